// TeachMe: log in with an API key (each user teaches their own reasoner), ask, read the
// proof, mark a premise false, add a missing fact or agree; the stored corrections are listed
// with their provenance. The key stays in this tab (sessionStorage), shared with /chat.
import { api, el, keyHeaders, showError, startLogin } from "/static/common.js";

const $ = (id) => document.getElementById(id);
const session = sessionStorage.getItem("teach-session") || crypto.randomUUID();
sessionStorage.setItem("teach-session", session);

async function call(path, body) {
  $("busy").textContent = "thinking…";
  showError($("error"), null);
  try {
    const answer = await api(path, { method: "POST", headers: keyHeaders(), body: JSON.stringify({ session, ...body }) });
    drawAnswer(answer);
    await drawTaught();
  } catch (error) { showError($("error"), error); }
  finally { $("busy").textContent = ""; }
}

function drawAnswer(answer) {
  const box = $("answer");
  box.hidden = false;
  const premises = el("ol", { class: "premises" }, answer.premises.map((p) => el("li", { class: "premise", "data-number": p.number },
    p.text, el("span", { class: `badge ${p.taught ? "taught" : "model"}` }, p.taught ? "taught" : "model wrote"),
    " ", el("button", { class: "false", onclick: () => call("/api/teach/move", { action: "premise_false", number: p.number }) }, "this is false"))));
  const fact = el("input", { placeholder: "a missing fact", "aria-label": "missing fact" });
  box.replaceChildren(
    el("h3", {}, answer.question),
    el("p", {}, "Answer: ", el("strong", { id: "choice" }, answer.choice ?? "(no answer)"), el("span", { class: "badge" }, answer.mode)),
    answer.premises.length ? el("div", {}, el("div", { class: "muted" }, "Because:"), premises) : el("p", { class: "muted" }, "No premises: answered directly."),
    answer.hypothesis ? el("p", {}, "Therefore: ", el("em", {}, answer.hypothesis),
      answer.verifier == null ? null : el("span", { class: "muted" }, ` (verifier ${answer.verifier.toFixed(2)})`)) : null,
    answer.ruled_out.length ? el("p", { class: "muted", id: "ruled-out" }, "Ruled out by what you taught: " + answer.ruled_out.map((choice, n) => `${choice} (by "${answer.ruled_out_by[n]}")`).join("; ")) : null,
    el("form", { class: "row", onsubmit: (e) => { e.preventDefault(); call("/api/teach/move", { action: "add_fact", text: fact.value }); } },
      fact, el("button", { type: "submit" }, "Add fact")),
    el("button", { id: "agree", onclick: () => call("/api/teach/move", { action: "agree" }) }, "I agree"));
}

async function drawTaught() {
  const rows = await api("/api/teach/taught", { headers: keyHeaders() });
  $("taught").querySelector("tbody").replaceChildren(...rows.map((r) => el("tr", {},
    el("td", {}, r.text), el("td", {}, r.metadata.action || r.kind), el("td", {}, r.metadata.question || ""), el("td", {}, r.status), el("td", {}, r.created_at.slice(0, 16).replace("T", " ")))));
}

$("ask").addEventListener("submit", (event) => {
  event.preventDefault();
  const choices = $("choices").value.split("\n").map((c) => c.trim()).filter(Boolean);
  call("/api/teach/ask", { question: $("question").value, choices });
});
startLogin(async (stats) => {
  $("who").textContent = stats.user;
  await drawTaught();
});
