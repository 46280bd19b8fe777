// Writes that got no answer (the Wi-Fi went mid-request: each may or may not have been written),
// kept in this browser's storage so that a reload keeps them too (issue 44): said under the
// header until they are answered, and sent again, key and all, when the companion answers (the
// journal writes a key once: whichever try lands, the move is there once).

/* globals t */
import { $, state } from "./store.js";
import { nameOf } from "./words.js";

const STORE_KEY = "companion-unsent";

function load() {
  try {
    const all = JSON.parse(localStorage.getItem(STORE_KEY) || "{}");
    return all && typeof all === "object" && !Array.isArray(all) ? all : {};
  } catch (err) {
    return {};
  }
}

function save(all) {
  try {
    if (Object.keys(all).length) localStorage.setItem(STORE_KEY, JSON.stringify(all));
    else localStorage.removeItem(STORE_KEY);
  } catch (err) { /* the browser's storage is full or off: kept in memory for this visit */ }
}

// What a kept write is, in words that need no table to say again after a reload: a payment's
// payer, payee ("bank": said in the language of the moment) and amount; else nothing.
function whatOf(action, body) {
  if (action !== "pay" || !body || typeof body !== "object") return null;
  const side = (id) => (id === "bank" ? "bank" : nameOf(id));
  return { payer: side(body.from), payee: side(body.to), amount: body.amount };
}

// The write, kept: {key, action, method, path, body}, with the game it was made in (a write
// kept for an earlier game is never sent into a new one).
export function keepUnsent(write) {
  const all = load();
  all[write.key] = { ...write, what: whatOf(write.action, write.body), at: Date.now(),
                     game: state && state.game ? state.game.id : null };
  save(all);
  renderUnsent();
}

// Answered (written, replayed, or refused): no longer kept. True when it still was.
export function dropUnsent(key) {
  const all = load();
  const was = key in all;
  if (was) { delete all[key]; save(all); }
  renderUnsent();
  return was;
}

export function unsent() { return Object.values(load()).sort((a, b) => a.at - b.at); }

// A kept write in words ("Mario pays Peach 7"), or the words for any other move.
export function unsentWords(write) {
  const what = write.what;
  if (!what) return t("a move");
  const side = (name) => (name === "bank" ? t("the Bank") : name);
  return t("{payer} pays {payee} {amount}", { payer: side(what.payer), payee: side(what.payee),
                                              amount: what.amount });
}

export function renderUnsent() {
  const kept = unsent();
  $("unsent").hidden = !kept.length;
  $("unsent-text").textContent = !kept.length ? ""
    : t("Not sent yet, kept on this device: {what}. It is sent (once) when the companion answers.",
        { what: kept.map(unsentWords).join("; ") });
}
