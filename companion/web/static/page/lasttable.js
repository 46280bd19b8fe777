// The table as this page last heard it, kept in this browser (the players' card UIDs left out,
// as a page without the token sees them) so that a reload without the network shows it, said
// to be the last known one, instead of an empty page (issue 44). A payment made meanwhile is
// kept and sent once when the companion answers (net.js, unsent.js); the table is the
// companion's again at its first state.

/* globals t */
import { $ } from "./store.js";

const STORE_KEY = "companion-last-table";

export function keepTable(table) {
  try {
    const players = table.players.map((p) => ({ ...p, card: null }));
    localStorage.setItem(STORE_KEY, JSON.stringify({ ...table, players }));
  } catch (err) { /* the browser's storage is full or off: an empty page after a reload */ }
}

export function lastTable() {
  try {
    const table = JSON.parse(localStorage.getItem(STORE_KEY) || "null");
    return table && typeof table === "object" && Array.isArray(table.players) ? table : null;
  } catch (err) {
    return null;
  }
}

// Shown (true) or live again (false): the notice under the header, and the page marked.
export function markLastTable(shown) {
  document.body.classList.toggle("on-last-table", shown);
  $("last-table").hidden = !shown;
  $("last-table").textContent = shown
    ? t("Not live: the table as this device last heard it.")
    : "";
}
