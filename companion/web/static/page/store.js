// What the banker's page's parts share: the table token, the table as the server last sent it,
// the WebSocket, and a way for a lower part to have a higher one redrawn (so none imports upward).

/* globals keepLinkToken */

export const TOKEN_KEY = "companion-table-token";
export const $ = (id) => document.getElementById(id);
export let state = null;  // the table as the server last sent it (main.js sets it)
export let socket = null;  // the WebSocket (main.js opens it)
export function setState(next) { state = next; }
export function setSocket(next) { socket = next; }

// The table token arrives once in the link (#token=...), then lives in this browser.
export const token = keepLinkToken(TOKEN_KEY);

// -- watching: a page without the table token shows the table and no write controls ----------

export function watching() { return !token(); }

// A part a lower module must have redrawn registers here (main.js does, by name: "role",
// "page", "controls"); the lower module calls redraw(name) and imports nothing above it.
const drawers = new Map();
export function onRedraw(name, draw) { drawers.set(name, draw); }
export function redraw(name) { drawers.get(name)(); }

// The tests read the table and the socket from the page (page.evaluate("state...")); a
// module's bindings are not globals, so these two are shown on window, read-only.
Object.defineProperty(window, "state", { get: () => state });
Object.defineProperty(window, "socket", { get: () => socket });
