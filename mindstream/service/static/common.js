// Shared helpers: every value from the server is shown with textContent (never parsed as HTML).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export async function api(path, options = {}) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const message = body?.error?.message || `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
}

export function showError(target, error) {
  target.textContent = error ? String(error.message || error) : "";
}

// Logging in with an API key (the chat and teach pages): the key is checked against
// /v1/stats and kept in this tab (sessionStorage, so both pages share it); `show(stats)` then
// draws the page. A key kept from before logs in at once.
export function keyHeaders() {
  return { Authorization: `Bearer ${sessionStorage.getItem("api-key")}`, "Content-Type": "application/json" };
}

export function startLogin(show) {
  const $ = (id) => document.getElementById(id);
  async function login(candidate) {
    try {
      const stats = await api("/v1/stats", { headers: { Authorization: `Bearer ${candidate}` } });
      sessionStorage.setItem("api-key", candidate);
      showError($("error"), null);
      $("login").hidden = true;
      $("app").hidden = false;
      await show(stats);
    } catch (error) {
      sessionStorage.removeItem("api-key");
      showError($("error"), new Error(`Could not log in: ${error.message}`));
    }
  }
  $("login").addEventListener("submit", (e) => { e.preventDefault(); login($("key").value.trim()); });
  const kept = sessionStorage.getItem("api-key");
  if (kept) login(kept);
}

export function initials(name) {
  return name.split(/\s+/).map((part) => part[0] || "").join("").slice(0, 2).toUpperCase();
}
