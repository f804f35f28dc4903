// Town replay and live view: the map at a tick, conversations as bubbles, injected events
// marked; clicking an agent opens its mind (plan, memories, reflections with evidence, recall).
import { api, el, initials, showError } from "/static/common.js";

const run = decodeURIComponent(location.pathname.split("/").pop());
const state = { overview: null, events: [], ticks: [], current: 1, selected: null, timer: null };
const $ = (id) => document.getElementById(id);

function indexTicks() {
  state.ticks = state.events.filter((e) => e.type === "tick").map((e) => e.tick);
  const last = state.ticks.length ? Math.max(...state.ticks) : 1;
  $("scrubber").max = String(last);
}

function whereabouts(tick) {
  let latest = null;
  for (const e of state.events) if (e.type === "tick" && e.tick <= tick) latest = e;
  return latest ? latest.agents : {};
}

function drawMap() {
  const tick = state.current;
  const at = whereabouts(tick);
  const now = state.events.filter((e) => e.tick === tick);
  const marked = new Map(state.events.filter((e) => e.type === "event" && e.tick <= tick)
    .map((e) => [e.place.split(":")[0].trim(), e]));
  const talks = now.filter((e) => e.type === "conversation");
  const map = $("map");
  map.replaceChildren();
  for (const [area, rooms] of Object.entries(state.overview.world)) {
    const box = el("div", { class: "area", "data-area": area }, el("h3", {}, area));
    const event = marked.get(area);
    if (event) {
      box.classList.add("event");
      box.append(el("div", { class: "happening" }, `⚠ ${event.place}: ${event.state}`));
    }
    for (const room of Object.keys(rooms)) {
      const place = `${area}: ${room}`;
      const cell = el("div", { class: "room", "data-place": place }, el("div", { class: "label" }, room));
      for (const [name, where] of Object.entries(at)) {
        if (where.place !== place) continue;
        // The activity is written beside the agent, not hidden in a hover title.
        cell.append(el("div", { class: "resident" }, el("button", {
          class: "agent" + (name === state.selected ? " selected" : ""), title: name,
          "data-agent": name, onclick: () => openMind(name),
        }, initials(name)), el("span", { class: "activity", "data-agent": name },
          el("b", {}, name.split(" ")[0]), ` ${where.doing}`)));
      }
      for (const talk of talks.filter((t) => t.place === place)) {
        const lines = talk.lines.length ? talk.lines : [[talk.first, "(nothing said)"]];
        for (const [who, text] of lines) cell.append(el("div", { class: "bubble" }, `${who}: ${text}`));
      }
      box.append(cell);
    }
    map.append(box);
  }
  const time = (state.events.find((e) => e.tick === tick) || {}).time || "";
  $("clock").textContent = time.replace("T", " ").slice(0, 16);
  $("tick-label").textContent = `tick ${tick} of ${$("scrubber").max}`;
  drawHappenings(now);
}

function drawHappenings(now) {
  const box = $("happenings");
  box.replaceChildren(el("h3", {}, "At this tick"));
  const list = el("ul");
  for (const e of now) {
    if (e.type === "conversation") list.append(el("li", {}, `${e.first} and ${e.second} talked in ${e.place} (${e.lines.length} lines)`));
    else if (e.type === "event") list.append(el("li", {}, `event: ${e.place} is ${e.state}`));
    else if (e.type === "move") list.append(el("li", {}, `${e.agent} went to ${e.to}`));
    else if (e.type === "react") list.append(el("li", {}, `${e.agent} reacted to ${e.to}: ${e.plan}`));
    else if (e.type === "reflection") list.append(el("li", {}, `${e.agent} reflected: ${e.insights.join("; ")}`));
  }
  if (!list.children.length) list.append(el("li", { class: "muted" }, "nothing but everyday activity"));
  box.append(list);
}

function planList(nodes, depth = 0) {
  // Day steps are listed; their hour steps and actions fold open on a click.
  return el("ul", { class: "plan" }, nodes.map((n) => {
    const line = [`${n.start} (${n.minutes} min) ${n.activity}`, n.place ? el("span", { class: "doing" }, ` @ ${n.place}`) : null];
    if (!n.children.length) return el("li", {}, ...line);
    const label = depth === 0 ? "hours" : "actions";
    return el("li", {}, ...line, el("details", {}, el("summary", { class: "doing" }, `${n.children.length} ${label}`), planList(n.children, depth + 1)));
  }));
}

function memoryItem(m) {
  return el("li", { id: `mem-${m.id}` }, m.text, el("span", { class: "badge" }, m.kind),
    el("span", { class: "doing" }, ` importance ${m.importance.toFixed(1)}`));
}

// A superseded memory, what replaced it, how (same subject, the judge and its P, a correction).
function supersedeNote(m, by) {
  const how = m.provenance.how || "correction";
  const p = m.provenance.probability != null ? ` P=${Number(m.provenance.probability).toFixed(2)}` : "";
  return ` replaced by “${by ? by.text : m.provenance.superseded_by.slice(-1)[0]}” (${how}${p})`;
}

function replacedItem(r) {
  return el("li", { class: "superseded", id: `mem-${r.memory.id}` }, el("s", {}, r.memory.text),
    el("span", { class: "doing" }, supersedeNote(r.memory, r.by)));
}

async function openMind(name) {
  state.selected = name;
  drawMap();
  const panel = $("mind");
  panel.replaceChildren(el("h2", {}, name), el("p", { class: "muted" }, "loading…"));
  try {
    const until = tickTime(state.current);
    const at = until ? `until=${encodeURIComponent(until)}` : "";
    const mind = await api(`/api/runs/${encodeURIComponent(run)}/agents/${encodeURIComponent(name)}?${at}`);
    const reflections = mind.reflections.length ? el("ul", { class: "reflections" }, mind.reflections.map((r) =>
      el("li", { class: "reflection" }, el("details", {}, el("summary", {}, r.memory.text),
        el("div", { class: "doing" }, "evidence:"), el("ul", { class: "evidence" }, r.evidence.map(memoryItem))))))
      : el("p", { class: "muted" }, "no reflections yet");
    const query = el("input", { placeholder: "what would it recall about…", "aria-label": "recall query" });
    const results = el("div");
    const form = el("form", { class: "row", onsubmit: async (event) => {
      event.preventDefault();
      try { results.replaceChildren(recallTable(await api(`/api/runs/${encodeURIComponent(run)}/agents/${encodeURIComponent(name)}/recall?q=${encodeURIComponent(query.value)}&${at}`))); }
      catch (error) { results.replaceChildren(el("p", { class: "error" }, error.message)); }
    } }, query, el("button", { type: "submit" }, "Recall"));
    panel.replaceChildren(...[el("h2", {}, name), mind.note ? el("p", { class: "muted" }, mind.note) : null,
      el("h3", {}, "Plan (day → hour → action)"), mind.plan.length ? planList(mind.plan) : el("p", { class: "muted" }, "no plan"),
      el("h3", {}, "Reflections"), reflections,
      el("h3", {}, "Recent memories"), el("ul", { class: "recent" }, mind.recent.map(memoryItem)),
      mind.replaced.length ? el("h3", {}, "No longer true") : null,
      mind.replaced.length ? el("ul", { class: "replaced" }, mind.replaced.map(replacedItem)) : null,
      el("h3", {}, "Recall"), form, results].filter(Boolean));
  } catch (error) { panel.replaceChildren(el("h2", {}, name), el("p", { class: "error" }, error.message)); }
}

// recency is shown as decay^hours since the memory was last recalled (before min-max scaling,
// which makes a column 0.50 for all when every memory was last recalled at the same tick)
function recallTable(found) {
  const head = el("tr", {}, ["memory", "score", "recency", "imp", "rel"].map((h) => el("th", {}, h)));
  return el("table", { class: "recall" }, head, found.map((f) => el("tr", {}, el("td", {}, f.memory.text),
    [f.score, f.recency_raw, f.importance, f.relevance].map((x, n) => el("td", {}, x.toFixed(n === 1 ? 3 : 2))))));
}

// The replay's time at a tick (an event's time, with its zone), or "" before the first.
function tickTime(tick) {
  const event = state.events.find((e) => e.tick === tick);
  return event ? event.time : "";
}

function setTick(tick) {
  state.current = Math.max(1, Math.min(Number($("scrubber").max), tick));
  $("scrubber").value = String(state.current);
  drawMap();
}

function togglePlay() {
  if (state.timer) { clearInterval(state.timer); state.timer = null; $("play").textContent = "Play"; return; }
  if (state.current >= Number($("scrubber").max)) setTick(1);
  $("play").textContent = "Pause";
  state.timer = setInterval(() => {
    if (state.current >= Number($("scrubber").max)) return togglePlay();
    setTick(state.current + 1);
  }, 700);
}

function follow() {
  const source = new EventSource(`/api/runs/${encodeURIComponent(run)}/stream?after=${state.events.length}`);
  $("live").textContent = "live";
  source.onmessage = (message) => {
    const atEnd = state.current >= Number($("scrubber").max);
    state.events.push(JSON.parse(message.data));
    indexTicks();
    if (atEnd) setTick(Number($("scrubber").max));
  };
  source.addEventListener("done", () => { source.close(); $("live").textContent = "finished"; });
}

async function start() {
  try {
    state.overview = await api(`/api/runs/${encodeURIComponent(run)}`);
    state.events = state.overview.events;
    $("title").textContent = `${state.overview.scenario} · ${run}`;
    document.title = `${run} · mindstream`;
    indexTicks();
    $("scrubber").addEventListener("input", (e) => setTick(Number(e.target.value)));
    $("play").addEventListener("click", togglePlay);
    // A run opens at its newest tick (a finished one at its end, Play replays it from the
    // start); a live one follows.
    setTick(Number($("scrubber").max));
    if (!state.overview.finished) follow();
    performance.mark("run-drawn");
  } catch (error) { showError($("error"), error); }
}
start();
