// The described board's spaces as the page names them (Gamer, Mario Kart), and where each of a
// player's tokens stands: what the ring, its move row and the deeds share.

/* globals t, word */
import { state } from "../store.js";
import { boardRules } from "../rules.js";
import { spaceOf } from "../words.js";

export function kinds() { const board = boardRules(); return board && board.kinds ? board.kinds : []; }
export function kindOf(space) { return space && space.kind ? kinds().find((k) => k.id === space.kind) || null : null; }

// What a space is called on the page (as the server labels its pile, in this device's words): as
// printed, else its kind's name, numbered when the board has two of it; else "space 17".
export function bareName(space) {
  if (space.name) return word(space.name);
  const kind = kindOf(space);
  return kind ? word(kind.name) : "";
}
export function spaceName(spaces, i) {
  const name = bareName(spaces[i]);
  if (!name) return t("Space {n}", { n: i });
  const folded = name.toLowerCase();
  return spaces.filter((s) => bareName(s).toLowerCase() === folded).length > 1 ? `${name} ${i}` : name;
}

// Each token a player has on the board: one (``character`` null), or a game of two's two, each
// with the space it stands on (In Jail: the jail corner) and whether it is the one In Jail.
export function tokensOf(p) {
  const ring = state && state.ring;
  if (!ring || !p) return [];
  const two = p.tokens ? Object.entries(p.tokens) : [];
  if (two.length) {
    return two.map(([character, at]) => ({ character, at: at < 0 ? ring.jail_corner : at, jailed: Boolean(p.in_jail) && at < 0 }));
  }
  const at = spaceOf(p);
  return at === null ? [] : [{ character: null, at, jailed: Boolean(p.in_jail) }];
}

// Mario Kart: the most Bananas the board holds (0: none in this edition).
export function bananaLimit() { const board = boardRules(); return board && board.bananas ? board.bananas : 0; }
