// Players' "that was a mistake" (from their phones): each open request at the top of the
// banker's page, with Undo it (one tap: the payment is undone, or the server says what depends
// on it) and Keep it. A request goes when the next state no longer lists it (settled, by this
// page or any other); a new one is said to a screen reader.

/* globals t */
import { $, state, watching } from "./store.js";
import { heard, nameOf } from "./words.js";
import { announce, snack } from "./messages.js";
import { write } from "./net.js";
import { undoMove } from "./undo.js";
import { cantUndo } from "./history.js";

const rows = new Map();  // each open request's row by id (kept across redraws: a tap's button stays off)
const announced = new Set();  // the requests said to a screen reader already

function words(r) {
  return t("{name} says this was a mistake: {move}", { name: nameOf(r.player), move: heard(r, "text") });
}

function undoIt(r, button) {
  undoMove(r.move, heard(r, "text"), button).catch((err) => {
    if (err.status === 409) cantUndo(heard(r, "text"), { error: err.message, error_said: err.said, blocked_by: err.blockedBy });
  });
}

function keepIt(r, button) {
  write(`keep:${r.id}`, `/api/requests/${r.id}`, undefined, { method: "DELETE", button })
    .then(() => snack(t("Kept: {move}", { move: heard(r, "text") })))
    .catch(() => {});
}

function requestRow(r) {
  const row = document.createElement("div");
  row.className = "request";
  row.setAttribute("role", "group");
  const text = document.createElement("p");
  text.className = "request-what";
  text.id = `request-${r.id}`;
  row.setAttribute("aria-labelledby", text.id);
  const undo = document.createElement("button");
  undo.type = "button";
  undo.className = "big warn request-undo";
  undo.addEventListener("click", () => undoIt(rows.get(r.id).request, undo));
  const keep = document.createElement("button");
  keep.type = "button";
  keep.className = "big quiet request-keep";
  keep.addEventListener("click", () => keepIt(rows.get(r.id).request, keep));
  const buttons = document.createElement("div");
  buttons.className = "request-buttons";
  buttons.append(keep, undo);
  row.append(text, buttons);
  return { row, text, undo, keep, request: r };
}

export function renderRequests() {
  const open = watching() || !Array.isArray(state.requests) ? [] : state.requests;
  const box = $("requests");
  const ids = new Set(open.map((r) => r.id));
  for (const [id, drawn] of rows) {
    if (!ids.has(id)) { drawn.row.remove(); rows.delete(id); }
  }
  for (const r of open) {  // oldest first, as the state lists them
    let drawn = rows.get(r.id);
    if (!drawn) { drawn = requestRow(r); rows.set(r.id, drawn); }
    drawn.request = r;
    drawn.text.textContent = words(r);  // again in another language
    drawn.undo.textContent = t("Undo it");
    drawn.keep.textContent = t("Keep it");
    if (drawn.row.parentNode !== box) box.append(drawn.row);  // moving a row would blur its button
    if (!announced.has(r.id)) { announced.add(r.id); announce(words(r)); }
  }
  box.hidden = open.length === 0;
}
