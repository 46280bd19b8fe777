// The edition's rules as /api/rules gives them (null until they come), and the lookups several
// parts make in them.

/* globals word */

export let rules = null;
export function setRules(next) { rules = next; }  // main.js, when /api/rules answers

export function modeRule(test) { return rules ? rules.modes.find(test) : undefined; }
export function hasJail() { return Boolean(rules && rules.jail_fee); }

export function boardRules() { return rules && rules.board ? rules.board : null; }

export function sameSpace(a, b) { return String(a).toLowerCase() === String(b).toLowerCase(); }

export function powers() { return rules && rules.powers ? rules.powers : null; }
export function contestRules() { return rules && rules.contest ? rules.contest : null; }
export function charName(id) {
  const c = powers() && powers().characters.find((x) => x.id === id);
  return c ? word(c.name) : String(id);
}
