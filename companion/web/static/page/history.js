// The history: what the table did, move by move. On the banker's page each move that can be
// undone is a button: a tap asks the server whether it can be undone now, then asks the banker
// ("Undo ...?"), or says why not (the later move it waits for, shown in the history on a tap).

/* globals said, t */
import { $, state, watching } from "./store.js";
import { heard } from "./words.js";
import { ask } from "./dialog.js";
import { api, authGet } from "./net.js";
import { undoMove } from "./undo.js";

// The newest page once; then, on each change, only the moves after the last one seen (an undo
// strikes through the move it undid here); "Older" loads the page before. A new game starts over.
const HISTORY_PAGE = 40;
// What the history shows: its game, each move's line by id, the newest move seen, the older page.
// Drawn for the banker (lines to undo) or for a watcher (text only).
const shown = { game: null, items: new Map(), moves: new Map(), latest: 0, nextBefore: null, busy: null, again: false,
  banker: null };
export function forgetHistory() { shown.game = null; }  // the newest page again at the next render

// Never undone: the opening balances, an undo (Redo brings back what it undid), a payment of 0.
function undoable(m) {
  return m.undone_by === null && m.kind !== "opening" && m.kind !== "undo"
    && !(m.kind === "transfer" && !m.entries.length);
}

// A move the banker made as a correction (out of its moment by the rules): marked as one (its
// words start "Correction: " already).
function corrected(m) { return Boolean(m.data && m.data.correction); }

function lineParts(m) {
  const what = document.createElement("span");
  what.className = "what";
  what.textContent = heard(m, "text");
  const parts = [what];
  if (corrected(m)) {
    const tag = document.createElement("span");
    tag.className = "correction-tag";
    tag.textContent = t("correction");
    parts.push(tag);
  }
  const coins = m.entries.reduce((sum, e) => sum + e.amount, 0);
  if (!coins || m.kind === "opening") return parts;
  const amt = document.createElement("span");
  amt.className = "amt";
  amt.textContent = String(coins);
  amt.title = t("coins");
  return [...parts, amt];
}

// A move's line: a button (named "Undo: ...") on the banker's page while it can be undone.
function drawLine(li, m) {
  li.classList.toggle("undone", m.undone_by !== null);
  li.classList.toggle("correction", corrected(m));
  if (!shown.banker || !undoable(m)) {
    const focused = li.contains(document.activeElement);
    li.replaceChildren(...lineParts(m));
    if (focused) $("history").focus({ preventScroll: true });  // its button gone: the list keeps focus
    return;
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "line";
  button.setAttribute("aria-label", t("Undo: {move}", { move: heard(m, "text") }));
  button.append(...lineParts(m));
  button.addEventListener("click", () => offerUndo(m, button));
  li.replaceChildren(button);
}

function historyItem(m) {
  const li = document.createElement("li");
  li.dataset.move = String(m.id);
  drawLine(li, m);
  shown.items.set(m.id, li);
  shown.moves.set(m.id, m);
  return li;
}

// -- undo from the history -----------------------------------------------------------------------

function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

async function offerUndo(m, button) {
  const text = heard(m, "text");
  let check;
  try {
    check = await api("GET", `/api/moves/${m.id}/undo`);
  } catch (err) { return; }  // said in the error bar
  if (!check.undoable) { await cantUndo(text, check); return; }
  const answer = await ask(t("Undo \"{move}\"?", { move: text }),
    [t("A new move gives back what it did; the moves after it stand, and the history keeps it struck through.")],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Undo"), value: "undo", cls: "warn" }],
    "undo-move");
  if (answer !== "undo") return;
  undoMove(m.id, text, button).catch((err) => {
    if (err.status === 409) cantUndo(text, { error: err.message, error_said: err.said, blocked_by: err.blockedBy });
  });
}

// The server's words for a move that can't be undone now (``check``: GET /api/moves/{id}/undo's
// answer, or an undo's 409): the dialog says them and offers to show the move it waits for.
export async function cantUndo(text, check) {
  const words = check.error_said ? said(check.error_said) : String(check.error || "");
  const waitsFor = check.blocked_by && check.blocked_by.length ? check.blocked_by[0] : null;
  const buttons = [{ label: t("OK"), value: "ok" }];
  if (waitsFor !== null && shown.items.has(waitsFor)) {
    buttons.unshift({ label: t("Show it in the history"), value: "show", cls: "quiet" });
  }
  const answer = await ask(t("Can't undo \"{move}\"", { move: text }), [capital(words)], buttons, "undo-blocked");
  if (answer === "show") showMove(waitsFor);
}

// A move's line scrolled to, marked for a few seconds and focused (the move another waits for).
function showMove(id) {
  const li = shown.items.get(id);
  if (!li) return;
  for (const other of document.querySelectorAll("#history li.waited")) other.classList.remove("waited");
  li.classList.add("waited");
  const target = li.querySelector("button") || li;
  if (target === li) li.tabIndex = -1;
  li.scrollIntoView({ block: "center", behavior: "smooth" });
  target.focus({ preventScroll: true });
  setTimeout(() => li.classList.remove("waited"), 6000);
}

async function journalPage(game, query) {
  const reply = await authGet(`/api/journal?game=${game}&${query}`);
  if (!reply.ok) throw new Error("journal: " + reply.status);
  return reply.json();
}

function olderButton() {
  const li = document.createElement("li");
  li.id = "history-more";
  const older = document.createElement("button");
  older.className = "big older";
  older.textContent = t("Older");
  older.addEventListener("click", () => {
    older.disabled = true;
    loadOlder().catch(() => {}).finally(() => { older.disabled = false; });
  });
  li.append(older);
  return li;
}

function showOlder(nextBefore) {
  shown.nextBefore = nextBefore;
  const more = $("history-more");
  if (nextBefore === null) { if (more) more.remove(); return; }
  if (!more) $("history").append(olderButton());
}

async function loadOlder() {
  const game = shown.game;
  const page = await journalPage(game, `before=${shown.nextBefore}&limit=${HISTORY_PAGE}`);
  if (game !== shown.game) return;  // a new game meanwhile
  const more = $("history-more");
  more.before(...page.moves.filter((m) => !shown.items.has(m.id)).map(historyItem));
  showOlder(page.next_before);
}

async function syncHistory() {
  const game = state.game.id;
  if (game !== shown.game || shown.banker !== !watching()) {  // the first load, a new game, a token refused
    const page = await journalPage(game, `limit=${HISTORY_PAGE}`);
    if (game !== state.game.id) return;
    shown.game = game;
    shown.banker = !watching();
    shown.items.clear();
    shown.moves.clear();
    shown.latest = page.moves.length ? page.moves[0].id : 0;
    $("history").replaceChildren(...page.moves.map(historyItem));
    showOlder(page.next_before);
    return;
  }
  let page;
  do {  // catch up: only what is new, oldest first
    page = await journalPage(game, `after=${shown.latest}&limit=500`);
    if (game !== shown.game) return;
    for (const m of page.moves) {
      if (shown.items.has(m.id)) continue;
      $("history").prepend(historyItem(m));
      const undid = m.undoes === null ? undefined : shown.items.get(m.undoes);
      if (undid) {
        const move = { ...shown.moves.get(m.undoes), undone_by: m.id };
        shown.moves.set(m.undoes, move);
        drawLine(undid, move);
      }
      shown.latest = Math.max(shown.latest, m.id);
    }
  } while (page.next_after !== null);
}

export function renderHistory() {
  // One sync at a time; changes that arrive meanwhile are fetched right after it.
  if (shown.busy) { shown.again = true; return shown.busy; }
  shown.busy = (async () => {
    try {
      do { shown.again = false; await syncHistory(); } while (shown.again);
    } finally { shown.busy = null; }
  })();
  return shown.busy;
}
