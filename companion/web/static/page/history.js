// The history: what the table did, move by move.

/* globals t */
import { $, state } from "./store.js";
import { heard } from "./words.js";
import { authGet } from "./net.js";

// The newest page once; then, on each change, only the moves after the last one seen (an undo
// strikes through the move it undid here); "Older" loads the page before. A new game starts over.
const HISTORY_PAGE = 40;
// What the history shows: its game, each move's line by id, the newest move seen, the older page.
const shown = { game: null, items: new Map(), latest: 0, nextBefore: null, busy: null, again: false };
export function forgetHistory() { shown.game = null; }  // the newest page again at the next render

function historyItem(m) {
  const li = document.createElement("li");
  if (m.undone_by !== null) li.className = "undone";
  const what = document.createElement("span");
  what.textContent = heard(m, "text");
  li.append(what);
  const coins = m.entries.reduce((sum, e) => sum + e.amount, 0);
  if (coins && m.kind !== "opening") {
    const amt = document.createElement("span");
    amt.className = "amt";
    amt.textContent = String(coins);
    amt.title = t("coins");
    li.append(amt);
  }
  shown.items.set(m.id, li);
  return li;
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
  if (game !== shown.game) {  // the first load, or a new game: its newest page
    const page = await journalPage(game, `limit=${HISTORY_PAGE}`);
    if (game !== state.game.id) return;
    shown.game = game;
    shown.items.clear();
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
      if (undid) undid.classList.add("undone");
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
