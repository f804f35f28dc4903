// The assistant: log in with an API key, chat and see the memories each answer used; browse,
// search, correct, forget and export memories. The key stays in this tab (sessionStorage).
import { api, el, keyHeaders, showError, startLogin } from "/static/common.js";

const $ = (id) => document.getElementById(id);
const call = (path, options = {}) => api(path, { ...options, headers: { ...keyHeaders(), ...(options.headers || {}) } });
const fail = (error) => showError($("error"), error);

function memoryRow(m, extra = "") {
  const forget = el("button", { onclick: async () => { try { await call(`/v1/memories/${m.id}`, { method: "DELETE" }); await listMemories(); } catch (e) { fail(e); } } }, "forget");
  const correct = el("button", { onclick: async () => {
    const text = prompt("What is true instead?", m.text);
    if (!text) return;
    try { await call("/v1/corrections", { method: "POST", body: JSON.stringify({ action: "actually", memory_id: m.id, text }) }); await listMemories(); } catch (e) { fail(e); }
  } }, "correct");
  const prov = m.provenance;
  const replaces = prov.supersedes.length ? el("span", { class: "badge" }, `replaces ${prov.supersedes.length}`) : null;
  const pending = prov.detection === "pending" ? el("span", { class: "badge", title: "change detection has not judged it yet" }, "checking for changes") : null;
  const likely = prov.closest && prov.closest_p >= 0.5 ? el("span", { class: "badge", title: `probably replaces ${prov.closest} (kept both)` }, `probably newer P=${Number(prov.closest_p).toFixed(2)}`) : null;
  return el("li", { class: "memory", "data-id": m.id }, el("span", { class: "memory-text" }, m.text), el("span", { class: "badge" }, m.kind), replaces, pending, likely, extra ? el("span", { class: "doing" }, ` ${extra}`) : null, " ", correct, forget);
}

// What a newer memory made out of date: by what, how (the judge's P, or a correction), and
// one move to undo it.
function replacedRow(m, byId) {
  const newer = m.provenance.superseded_by.slice(-1)[0];
  const by = byId.get(newer);
  const how = m.provenance.how || "correction";
  const p = m.provenance.probability != null ? ` P=${Number(m.provenance.probability).toFixed(2)}` : "";
  const restore = el("button", { onclick: async () => { try { await call(`/v1/memories/${m.id}/restore`, { method: "POST" }); await listMemories(); } catch (e) { fail(e); } } }, "restore");
  return el("li", { class: "memory superseded", "data-id": m.id }, el("s", { class: "memory-text" }, m.text),
    el("span", { class: "doing" }, ` replaced by “${by ? by.text : newer}” (${how}${p})`), " ", restore);
}

async function listReplaced() {
  const gone = await call("/v1/memories?status=superseded&limit=20");  // newest first
  const ids = [...new Set(gone.map((m) => m.provenance.superseded_by.slice(-1)[0]).filter(Boolean))];
  const by = await Promise.all(ids.map((id) => call(`/v1/memories/${id}`).catch(() => null)));
  const byId = new Map(by.filter(Boolean).map((m) => [m.id, m]));
  gone.sort((a, b) => String(b.provenance.superseded_at || "").localeCompare(String(a.provenance.superseded_at || "")));
  $("replaced").replaceChildren(...gone.slice(0, 20).map((m) => replacedRow(m, byId)));
  $("replaced-title").hidden = gone.length === 0;
}

async function listMemories(query = "") {
  try {
    const list = $("memories");
    if (query) {
      const found = await call(`/v1/search?q=${encodeURIComponent(query)}&k=10`);
      list.replaceChildren(...found.map((f) => memoryRow(f.memory, `score ${f.score.toFixed(2)} (rec ${f.recency.toFixed(2)}, imp ${f.importance.toFixed(2)}, rel ${f.relevance.toFixed(2)})`)));
    } else {
      const found = await call("/v1/memories?status=active&limit=30");  // newest first
      list.replaceChildren(...found.map((m) => memoryRow(m)));
    }
    await listReplaced();
  } catch (error) { fail(error); }
}

async function send(text) {
  const messages = $("messages");
  messages.append(el("div", { class: "message you" }, el("span", { class: "text" }, text)));
  try {
    const reply = await call("/v1/chat", { method: "POST", body: JSON.stringify({ message: text }) });
    const used = reply.memories.length
      ? el("ul", { class: "used" }, reply.memories.map((m) => el("li", {}, m.status === "superseded" ? `${m.text} (no longer true)` : m.text)))
      : el("div", { class: "used" }, "no memories used");
    messages.append(el("div", { class: "message assistant" }, el("span", { class: "text" }, reply.answer), el("div", { class: "used" }, "used:"), used));
    await listMemories();
  } catch (error) { fail(error); }
}

$("send").addEventListener("submit", (e) => { e.preventDefault(); const text = $("message").value; $("message").value = ""; send(text); });
$("search").addEventListener("submit", (e) => { e.preventDefault(); listMemories($("query").value.trim()); });
$("remember").addEventListener("click", async () => {
  const text = $("new-memory").value.trim();
  if (!text) return;
  try { await call("/v1/memories", { method: "POST", body: JSON.stringify({ text, importance: 5 }) }); $("new-memory").value = ""; await listMemories(); } catch (e) { fail(e); }
});
$("export").addEventListener("click", async () => {
  try {
    const data = await call("/v1/export");
    const link = el("a", { href: URL.createObjectURL(new Blob([JSON.stringify(data, null, 1)], { type: "application/json" })), download: "mindstream-export.json" });
    link.click();
  } catch (e) { fail(e); }
});
startLogin(async (stats) => {
  $("who").textContent = `${stats.user}: ${stats.memories} memories`;
  await listMemories();
});
