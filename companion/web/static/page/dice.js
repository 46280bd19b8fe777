// The Movie edition's dice: large, with pips, and what the roll means.

/* globals t, tn */
import { state } from "./store.js";
import { modeRule } from "./rules.js";
import { heard, title } from "./words.js";

// The outcomes that are dice: [red, black] for a turn or a roll from Jail, one red die for the
// Piranha Plant and Super Star, the leader's die then the teammate's in a battle.
export const DICE_KINDS = new Set(["dice", "third_doubles", "battle_roll", "battle_won", "battle_lost",
                                   "piranha", "super_star", "jail_free", "jail_stay", "jail_paid",
                                   "boss_won", "boss_lost", "race_roll", "rent"]);
const PIPS = {
  1: [[50, 50]],
  2: [[27, 27], [73, 73]],
  3: [[27, 27], [50, 50], [73, 73]],
  4: [[27, 27], [73, 27], [27, 73], [73, 73]],
  5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
  6: [[27, 25], [73, 25], [27, 50], [73, 50], [27, 75], [73, 75]],
};
const SVG_NS = "http://www.w3.org/2000/svg";

function dieNode(face, colour, label) {
  const die = document.createElement("span");
  die.className = `die ${colour}`;
  die.dataset.face = String(face);
  die.setAttribute("role", "img");
  die.setAttribute("aria-label", label);
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  const body = document.createElementNS(SVG_NS, "rect");
  for (const [k, v] of Object.entries({ x: 4, y: 4, width: 92, height: 92, rx: 19, class: "die-face" })) body.setAttribute(k, v);
  svg.append(body);
  for (const [cx, cy] of PIPS[face] || []) {
    const pip = document.createElementNS(SVG_NS, "circle");
    for (const [k, v] of Object.entries({ cx, cy, r: 9.5, class: "pip" })) pip.setAttribute(k, v);
    svg.append(pip);
  }
  die.append(svg);
  return die;
}

function feeOf(table, fee) {
  const m = modeRule((x) => x.table === table);
  return m && m.fees && m.fees[fee] !== undefined ? m.fees[fee] : null;
}
function ofLimit(n, limit) { return limit ? t("{n} of {limit}", { n, limit }) : String(n); }

// Each die of an outcome: its face, colour, words (for a screen reader) and caption.
export function diceOf(o) {
  const rolls = o.rolls || [];
  if (o.kind.startsWith("battle_")) {
    const p = o.params || {};
    const leader = p.leader ?? o.player;
    const mate = p.teammate ?? leader;  // nobody else can battle: the leader rolls both
    return rolls.map((face, i) => {
      const who = (i === 0 ? leader : mate) ?? null;
      const name = who === null ? (i === 0 ? t("leader") : t("teammate")) : title(who);
      return { face, colour: "ivory", label: `${name} ${face}`, caption: name };
    });
  }
  if (o.kind === "rent") {  // utility rent: the table's numbered die, rolled by the block
    return rolls.map((face) => ({ face, colour: "ivory", label: t("the die {face}", { face }), caption: null }));
  }
  if (o.kind.startsWith("boss_") || o.kind === "race_roll") {  // a Boss fighter's or a racer's die
    const name = o.player === null ? "" : title(o.player);
    return rolls.map((face) => ({ face, colour: "ivory", label: `${name || t("the die")} ${face}`, caption: name || null }));
  }
  if (rolls.length === 2) {
    return [{ face: rolls[0], colour: "red", label: t("red {face}", { face: rolls[0] }) },
            { face: rolls[1], colour: "black", label: t("black {face}", { face: rolls[1] }) }];
  }
  return rolls.map((face) => ({ face, colour: "red", label: t("red {face}", { face }) }));
}

// The small labels beside the headline: doubles so far, tries from Jail, the coins moved.
function rollChips(o) {
  const chips = [];
  const limit = feeOf("two_dice", "doubles_limit");
  const tries = feeOf("jail_roll", "tries");
  if ((o.kind === "dice" && o.doubles) || o.kind === "third_doubles") {
    chips.push({ text: t("doubles {count}", { count: ofLimit(o.step || state.doubles || 1, limit) }),
                 cls: o.kind === "third_doubles" ? "bad" : "gold" });
  }
  if (o.kind.startsWith("jail_") && o.step) {
    chips.push({ text: t("try {count}", { count: ofLimit(o.step, tries) }), cls: o.kind === "jail_free" ? "good" : "" });
  }
  if (o.kind === "piranha" || o.kind === "jail_paid") chips.push({ text: `−${o.coins}`, cls: "bad coin" });
  if (o.kind === "super_star") chips.push({ text: `+${o.coins}`, cls: "gold coin" });
  if (o.kind === "battle_won") chips.push({ text: t("+{coins} each", { coins: o.coins }), cls: "good coin" });
  if (o.kind === "rent") chips.push({ text: tn("{n} coin", "{n} coins", o.coins), cls: "gold coin" });
  return chips;
}

let shownRoll = null;  // what the outcome box shows now (it is drawn again only when that changes)
export function forgetRoll() { shownRoll = null; }

export function drawRoll(el, o) {
  const dice = diceOf(o);
  const rent = o.kind === "rent" && o.params ? o.params : null;  // who pays whom, as armed
  const who = rent ? t("{payer} pays {owner}", { payer: title(rent.payer), owner: title(rent.owner) })
    : o.player === null ? t("Waiting for a player") : title(o.player);
  let pending = null;
  if (o.kind === "battle_roll") {
    const p = o.params || {};
    const mate = p.teammate ?? p.leader ?? null;
    pending = mate === null ? t("next") : title(mate);
  }
  const chips = rollChips(o);
  const headline = heard(o, "headline");
  const instruction = heard(o, "instruction");
  const key = JSON.stringify([o.id, dice, who, pending, chips, headline, instruction]);
  if (key === shownRoll && el.querySelector(".roll-box")) return;
  shownRoll = key;
  const roll = document.createElement("div");
  roll.className = "roll-box" + (o.doubles && o.kind !== "third_doubles" ? " doubles" : "");
  const group = document.createElement("div");
  group.className = "dice-row";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", dice.map((d) => d.label).join(", ") + (pending ? "; " + t("{name} rolls next", { name: pending }) : ""));
  for (const d of dice) {
    const cell = document.createElement("span");
    cell.className = "die-cell";
    cell.append(dieNode(d.face, d.colour, d.label));
    if (d.caption) cell.append(Object.assign(document.createElement("span"), { className: "die-caption", textContent: d.caption }));
    group.append(cell);
  }
  if (pending) {  // the teammate's die, still to roll
    const cell = document.createElement("span");
    cell.className = "die-cell";
    const slot = Object.assign(document.createElement("span"), { className: "die-slot", textContent: "?" });
    slot.setAttribute("aria-hidden", "true");
    cell.append(slot, Object.assign(document.createElement("span"), { className: "die-caption", textContent: pending }));
    group.append(cell);
  }
  const head = document.createElement("div");
  head.className = "roll-head";
  const headlineBox = Object.assign(document.createElement("div"), { className: "roll-headline" });
  // "BATTLE LOST 1 + 2 = 3": the sum is never broken over two lines.
  const sum = /^(.*?)\s*(\d+(?:\s*[+=]\s*\d+)+)$/.exec(headline);
  if (sum && sum[1]) headlineBox.append(sum[1], " ", Object.assign(document.createElement("span"), { className: "roll-sum", textContent: sum[2] }));
  else headlineBox.textContent = headline;
  const line = document.createElement("div");
  line.className = "roll-who";
  line.append(Object.assign(document.createElement("span"), { className: "roll-name", textContent: who }));
  for (const c of chips) {
    line.append(Object.assign(document.createElement("span"), { className: `chip ${c.cls}`.trim(), textContent: c.text }));
  }
  head.append(headlineBox, line);
  const say = Object.assign(document.createElement("p"), { className: "roll-say", textContent: instruction });
  roll.append(group, head, say);
  el.replaceChildren(roll);
}
