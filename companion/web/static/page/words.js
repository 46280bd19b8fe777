// Words about the table: who a player is, counts, the server's sentences in this device's
// language.

/* globals said, t, tn, word */
import { state } from "./store.js";

function isBank(id) { return id === "bank" || id === null || id === undefined; }

export function nameOf(id) {
  if (isBank(id)) return t("the Bank");
  const p = state && state.players.find((x) => x.id === id);
  return p ? p.name : t("player {id}", { id });
}

export function title(id) { return isBank(id) ? t("Bank") : nameOf(id); }

export function coinWords(n) { return tn("{n} coin", "{n} coins", n); }
export function cardWords(n) { return tn("{n} card", "{n} cards", n); }
export function wormWords(n) { return tn("{n} worm", "{n} worms", n); }
export function pointWords(n) { return tn("{n} point", "{n} points", n); }

// A sentence of the server's (``key``) in this device's language: its ``<key>_said`` when the
// server chose it (a Said), else the English as it came.
export function heard(x, key) {
  if (!x) return "";
  const chosen = x[key + "_said"];
  return said(chosen !== undefined && chosen !== null ? chosen : x[key]);
}

export function player(id) { return state && state.players.find((x) => x.id === id); }

export function bare(headline) { return String(headline || "").replace(/[!:.\s]+$/, ""); }

export function active() { return state.players.filter((p) => !p.out); }

// The armed mode in words: the server's sentence (text_said), else the edition's words for it.
export function modeWords(mode) { return mode.text_said ? said(mode.text_said) : word(mode.text || mode.name); }

export function ordinal(n) { return n === 1 ? t("1st") : n === 2 ? t("2nd") : n === 3 ? t("3rd") : t("{n}th", { n }); }

// Gamer, Mario Kart, once the table described its board: the space a player's token stands on
// (its number; In Jail: the jail corner, where they drop), and that space's label (the name its
// pile goes by); null while nobody said where the spaces are.
// A player with two tokens (a game of two) stands on the space both stand on, else on none (the
// table names it, as the server asks).
export function spaceOf(p) {
  const ring = state && state.ring;
  if (!ring || !p) return null;
  const two = p.tokens ? Object.values(p.tokens) : [];
  if (two.length) {
    const at = new Set(two.map((x) => (x < 0 ? ring.jail_corner : x)));
    return at.size === 1 ? [...at][0] : null;
  }
  if (p.position === null || p.position === undefined) return null;
  return p.in_jail || p.position < 0 ? ring.jail_corner : p.position;
}
export function standsOn(p) {
  const at = spaceOf(p);
  return at === null ? null : state.ring.labels[at];
}
