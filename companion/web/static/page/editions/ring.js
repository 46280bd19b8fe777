// The board the table describes once (Gamer, Mario Kart), and the tokens on it: the Board card
// (the ring, from ring_cells.js), the current player's move by a tap (the numbered die's 1-6; a
// game of two: a row of keys per token), a movement press's Power-up face in one tap, what the
// space landed on offers next (a Property: buy, auction, rent), and a sheet per space. The
// describe editor is ring_describe.js.

/* globals currentLanguage, t, tn, word */
import { $, state, watching } from "../store.js";
import { charName, modeRule, powers, sameSpace } from "../rules.js";
import { player, spaceOf } from "../words.js";
import { el } from "../widgets.js";
import { armLater, snack } from "../messages.js";
import { ask } from "../dialog.js";
import { authGet, write } from "../net.js";
import { undoLatest, undoSnack } from "../undo.js";
import { markNotNow, notNow } from "../flow.js";
import { moveSnack, openDrop } from "./board.js";
import { faceOffer, openPower, superStar } from "./powers.js";
import { bananaLimit, bareName, kindOf, kinds, spaceName, tokensOf } from "./spaces.js";
import { deedKey, deedOffer, deedSheet, holderOf } from "./deeds.js";
import { resumeDescribing } from "./ring_describe.js";
import {
  dot, pilesBySpace, playCell, ringGrid, tokenWords, tokensBySpace, whoWhere
} from "./ring_cells.js";

const DIE = [1, 2, 3, 4, 5, 6];
const BOOSTED = [7, 8, 9, 10, 11, 12];  // a boosted move: Mario's "add up to 3 spaces", Toad's 5

// -- the move row: the current player's token, by a tap -----------------------------------------

let landed = null;  // the last move of the current player's: {player, character, to, how, warped, used, seen}
let press = null;  // their movement press this turn: {outcome, player, face, roll, used}
let walked = null;  // the spaces their tokens passed or landed on this turn: {player, spaces}
let more = "";  // whose keys 7-12 are shown: "*" the one token's, else a character's
let shown = "";

export function forgetLanding() { landed = null; press = null; walked = null; more = ""; shown = ""; }

function again() { shown = ""; renderRing(); }

function walk(pid, path) {
  if (!walked || walked.player !== pid) walked = { player: pid, spaces: [] };
  for (const i of path || []) if (!walked.spaces.includes(i)) walked.spaces.push(i);
}

function key(n, cls, label, onTap) {
  const b = el("button", "move-key " + cls, n);
  b.type = "button";
  b.dataset.steps = String(n);
  if (label) b.setAttribute("aria-label", label);
  b.addEventListener("click", () => onTap(n, b));
  return b;
}

function moveToken(p, body, button, fallback) {
  more = "";
  write(`token:${p.id}`, "/api/tokens", { player: p.id, ...body }, { button }).then((move) => {
    const data = move.data || {};
    const o = state.last_outcome;
    landed = { player: p.id, character: data.character || null, to: data.to, how: data.how, warped: Boolean(data.warped),
               used: false, seen: o ? o.id : null };
    walk(p.id, data.path);
    renderRing();
    undoSnack(move, fallback, $("move-bar"));
  }).catch(() => {});
}

function roll(p, character = null) {
  const who = character ? t("{name}'s {character}", { name: p.name, character: charName(character) }) : p.name;
  return (n, button) => moveToken(p, character ? { steps: n, character } : { steps: n }, button,
    tn("{name} moves {n} space", "{name} moves {n} spaces", n, { name: who }));
}

// -- a movement press: the token moved by the block, its Power-up face offered --------------------

// The current player's movement press this turn (the block rolled both dice): its face offered,
// its landing's offer, the spaces it walked. The journal says where the token went and what was
// done since (a page loaded mid-turn offers nothing twice).
function notePress(p) {
  const o = state.last_outcome;
  if (!p || state.ended) { press = null; return; }
  if (press && press.player !== p.id) press = null;
  if (!o || o.kind !== "move" || o.player !== p.id || !o.params || (press && press.outcome === o.id)) return;
  const two = tokensOf(p).length > 1;  // the table moves one of the two by the roll
  if (!two && !state.turn_rolled) return;  // an earlier turn's
  press = { outcome: o.id, player: p.id, face: o.params.face || "", roll: o.rolls ? o.rolls[0] : null, used: false, checked: false };
  if (!two && !p.in_jail) {
    landed = { player: p.id, character: null, to: p.position, how: "roll", warped: false, used: false, seen: o.id, press: o.id,
               checked: false };
  }
  const mine = press;
  readPress(mine, o, two).catch(() => {}).finally(() => {  // offered once the journal is read
    mine.checked = true;
    if (landed && landed.press === o.id) landed.checked = true;
    again();
  });
}

async function readPress(mine, o, two) {
  const reply = await authGet(`/api/journal?game=${state.game.id}&limit=12`);
  if (!reply.ok) return;
  const moves = (await reply.json()).moves || [];
  if (press !== mine) return;
  const live = (m) => !m.undone_by && m.kind !== "undo";
  const moved = moves.find((m) => m.kind === "token" && live(m) && m.data && m.data.outcome === o.id);
  const since = moves.filter((m) => live(m) && (moved ? m.id > moved.id : m.at > o.at));
  if (since.some((m) => m.kind === "turn")) { press = null; again(); return; }  // the turn passed meanwhile
  const by = since.filter((m) => m.player === mine.player);
  if (by.some((m) => m.kind === "ability" || (m.kind === "banana" && m.data && m.data.on))) mine.used = true;
  if (moved && !two) {
    walk(mine.player, moved.data.path);
    if (landed && landed.press === o.id) {
      Object.assign(landed, { to: moved.data.to, warped: Boolean(moved.data.warped) });
      // Done with: the deed bought or auctioned, the rent paid, or the token moved on since.
      // (a rent paid after selling Property back to the Bank is a sale: one move)
      const done = by.some((m) => m.kind === "token" || m.kind === "deed"
        || ((m.kind === "transfer" || m.kind === "sale") && m.data && m.data.note === "rent"));
      if (done) landed.used = true;
    }
  }
}

// Where a Banana of this turn may go: a space walked this turn ("anywhere in your path"; Luigi's
// boost: one of his Properties), none that has one.
function bananaSpaces(p) {
  if (!press || press.player !== p.id || press.used || press.face !== "banana" || !press.checked || !bananaLimit()) return [];
  if ((state.bananas || []).length >= bananaLimit()) return [];
  const a = powers() && powers().abilities.find((x) => !x.star && x.id === "banana");
  const chars = p.characters || [];
  const who = landed && landed.player === p.id && landed.character ? landed.character : chars[0];
  const boost = a && (a.boosts || []).find((b) => b.character === who);
  const spaces = boost ? Object.keys(state.deeds || {}).map(Number).filter((i) => holderOf(i) === p.id)
    : walked && walked.player === p.id ? walked.spaces : [];
  return spaces.filter((i) => !(state.bananas || []).includes(i));
}

function dropBanana(i, button) {
  const p = state.current_player === null ? null : player(state.current_player);
  if (!p || watching()) return;
  const name = spaceName(state.ring.spaces, i);
  write(`banana:${i}`, "/api/bananas", { space: i, player: p.id }, { button }).then((move) => {
    if (press && press.player === p.id && press.face === "banana") press.used = true;
    again();
    undoSnack(move, t("{name} drops a Banana on {space}", { name: p.name, space: name }), $("move-bar"));
  }).catch(() => {});
}

// The press's Power-up face, one tap away (a Banana: the spaces walked light up on the ring).
function faceRow(p) {
  if (!press || press.player !== p.id || press.used || !press.face || !press.checked) return null;
  const row = el("div", "face-row");
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", t("The Power-up die"));
  const letBe = () => { if (press) press.used = true; again(); };
  if (press.face === "banana" && bananaLimit()) {
    const spaces = bananaSpaces(p);
    const name = word(powers().abilities.find((x) => x.id === "banana").name);
    const full = (state.bananas || []).length >= bananaLimit();
    const b = el("button", "big face-offer banana-offer");
    b.type = "button";
    b.dataset.ability = "banana";
    b.textContent = full ? tn("{n} Banana is down: none to drop", "{n} Bananas are down: none to drop", bananaLimit())
      : !spaces.length ? t("{ability}: no space to drop it on", { ability: name })
      : t("{ability}: tap a space on your path", { ability: name });
    b.addEventListener("click", () => {
      const first = $("ring-box").querySelector(".ring-cell.on-path");
      if (!first) return;
      first.scrollIntoView({ block: "center", behavior: "smooth" });
      first.focus({ preventScroll: true });
    });
    b.disabled = full || !spaces.length;
    markNotNow(b, "place_banana", p.id);
    const later = el("button", "move-key offer-later", "✕");
    later.type = "button";
    later.setAttribute("aria-label", t("No Banana this time"));
    later.addEventListener("click", letBe);
    row.append(b, later);
    return row;
  }
  const character = landed && landed.player === p.id ? landed.character : null;
  const face = faceOffer(p, press.face, character);
  if (!face) return null;
  const b = el("button", "big face-offer" + (face.boosted ? " boosted" : ""));
  b.type = "button";
  b.dataset.ability = press.face;
  b.append(el("span", "fo-main", face.label), el("span", "fo-sub", face.text));
  b.addEventListener("click", () => face.use(b).then((move) => { if (move && press) { press.used = true; again(); } }));
  markNotNow(b, "use_ability", p.id);
  row.append(b);
  armLater(b);
  return row;
}

// What the space just landed on offers, one tap away, in the die's place (a Super Star, a Boost
// Pad's roll, a Coin Block's or an Item Box's roll, a Warp Pipe not yet taken, a Property to buy
// or its rent): its words and its row of buttons, or null. It takes no tap for a moment (a
// double tap on a die key never lands on it).
function offer(p) {
  if (!landed || !p || landed.used || landed.player !== p.id || landed.checked === false) return null;
  const tok = tokensOf(p).find((x) => x.character === landed.character);
  if (!tok || tok.jailed || tok.at !== landed.to) return null;
  const kind = kindOf(state.ring.spaces[landed.to]);
  if (!kind) return null;
  const o = state.last_outcome;
  const done = () => { if (landed) landed.used = true; renderRing(); };
  const which = landed.character ? { character: landed.character } : {};
  const row = el("div", "offer-row on-" + kind.effect);
  row.setAttribute("role", "group");
  let say;
  if (kind.effect === "star") {
    const chars = landed.character ? [landed.character] : p.characters || [];
    const pw = powers();
    say = t("Landed on {space}: tap it", { space: word(kind.name) });
    if (!chars.length || !pw) {
      row.append(el("p", "offer-say", t("{name} has no character yet: no Super Star (tap their tile, then Character).", { name: p.name })));
    }
    for (const c of pw ? chars : []) {
      const star = pw.abilities.find((a) => a.star === c);
      if (!star) continue;
      const b = el("button", "big offer-star");
      b.type = "button";
      b.dataset.character = c;
      b.append(el("span", "os-main", word(star.name)), el("span", "os-sub", word(star.text)));
      b.addEventListener("click", () => superStar(p, c, b).then((move) => { if (move) done(); }));
      markNotNow(b, "use_ability", p.id);
      row.append(b);
    }
  } else if (kind.effect === "boost" || kind.effect === "coin_roll") {
    // The block pressed for the roll meanwhile: its outcome is the roll (the offer is done with).
    if (kind.effect === "coin_roll" && o && o.id !== landed.seen && o.kind !== "move" && o.player === p.id) return null;
    const block = kind.effect === "coin_roll" && modeRule((m) => m.default && m.table === "coin_roll");
    say = block ? t("{space}: tap the roll (or press the block)", { space: word(kind.name) })
      : t("{space}: tap the roll", { space: word(kind.name) });
    row.classList.add("move-keys");
    for (const n of DIE) {
      if (kind.effect === "boost") {
        row.append(key(n, "boost", tn("{space}: rolled {n}, move {n} space", "{space}: rolled {n}, move {n} spaces", n, { space: word(kind.name) }),
          roll(p, landed.character)));
        continue;
      }
      row.append(key(n, "coin", tn("{space}: rolled {n}, collect {n} coin", "{space}: rolled {n}, collect {n} coins", n, { space: word(kind.name) }),
        (coins, button) => write(`coin-roll:${p.id}`, "/api/transfers", { from: "bank", to: p.id, amount: coins, note: word(kind.name) }, { button })
          .then((reply) => {
            done();
            snack(t("{name} collects {coins} from the Bank: {space}", { name: p.name, coins: reply.amount ?? coins, space: word(kind.name) }),
                  t("Undo"), () => undoLatest(reply.move), $("move-bar"));
          }).catch(() => {})));
    }
  } else if (kind.effect === "warp" && landed.how === "place" && !landed.warped) {
    say = t("{space}: on to the next one?", { space: word(kind.name) });
    const b = el("button", "big offer-warp", t("Warp"));
    b.type = "button";
    b.addEventListener("click", () => moveToken(p, { how: "warp", ...which }, b, t("{name} warps", { name: p.name })));
    markNotNow(b, "move_token", p.id);
    row.append(b);
  } else if (kind.effect === "property" && landed.how !== "place") {
    const deed = deedOffer(p, landed.to, done, again);
    if (!deed) return null;
    say = deed.say;
    row.append(...deed.buttons);
  } else {
    return null;
  }
  const later = el("button", "move-key offer-later", "✕");
  later.type = "button";
  later.setAttribute("aria-label", t("Not now: the numbered die again"));
  later.addEventListener("click", done);
  row.append(later);
  row.setAttribute("aria-label", say);
  for (const b of row.querySelectorAll("button")) armLater(b);
  return { say, row };
}

// The numbered die's keys for one token (``character`` null: the player's one token), and the
// keys 7-12 under them when asked for.
function dieKeys(p, character, label) {
  const mine = character || "*";
  const keys = el("div", "move-keys");
  keys.setAttribute("role", "group");
  keys.setAttribute("aria-label", t("{name}'s move: tap the numbered die", { name: label }));
  const rolled = press && press.player === p.id && tokensOf(p).length > 1 && !landed ? press.roll : null;
  for (const n of DIE) {
    const k = key(n, "die-key" + (n === rolled ? " rolled" : ""), tn("{name} moves {n} space", "{name} moves {n} spaces", n, { name: label }), roll(p, character));
    keys.append(k);
  }
  const toggle = el("button", "move-key move-more", more === mine ? "–" : "7+");
  toggle.type = "button";
  toggle.setAttribute("aria-expanded", String(more === mine));
  toggle.setAttribute("aria-label", t("Moves of 7 to 12 spaces (a boost)"));
  toggle.addEventListener("click", () => { more = more === mine ? "" : mine; renderRing(); });
  keys.append(toggle);
  const parts = [keys];
  if (more === mine) {
    const extra = el("div", "move-keys more-keys");
    for (const n of BOOSTED) extra.append(key(n, "die-key", tn("{name} moves {n} space", "{name} moves {n} spaces", n, { name: label }), roll(p, character)));
    parts.push(extra);
  }
  for (const k of parts.flatMap((x) => [...x.querySelectorAll(".die-key")])) markNotNow(k, "move_token", p.id);
  return parts;
}

// A game of two: a row of keys per token, labelled by its character (a tap moves that one).
function tokenRows(p, ring) {
  return tokensOf(p).map((tok) => {
    const row = el("div", "token-row");
    row.dataset.character = tok.character;
    const say = el("p", "token-say");
    say.append(dot(p, tok.jailed ? " jailed" : ""), el("strong", "token-who", charName(tok.character)), " ",
               el("span", "move-where", tok.jailed ? t("In Jail") : t("on {space}", { space: spaceName(ring.spaces, tok.at) })));
    row.append(say, ...dieKeys(p, tok.character, t("{name}'s {character}", { name: p.name, character: charName(tok.character) })));
    if (tok.jailed) for (const k of row.querySelectorAll(".move-key")) k.disabled = true;
    return row;
  });
}

function renderMoveBar(ring) {
  const bar = $("move-bar");
  const show = Boolean(ring) && !watching() && !state.ended;
  bar.hidden = !show;
  if (!show) return;
  const p = state.current_player === null ? null : player(state.current_player);
  if (!p) {
    bar.replaceChildren(el("p", "move-say", t("Tap a player's tile, then Make current, first.")));
    return;
  }
  const two = tokensOf(p).length > 1;
  const head = el("div", "move-head");
  const at = spaceOf(p);
  const where = el("p", "move-say");
  where.append(dot(p, p.in_jail && !two ? " jailed" : ""), el("strong", "move-who", p.name));
  if (!two) {
    where.append(" ", el("span", "move-where", p.in_jail ? t("In Jail") : at === null ? "" : t("on {space}", { space: spaceName(ring.spaces, at) })));
  }
  const next = offer(p);
  const rolled = two && press && press.player === p.id && !landed ? press.roll : null;
  if (next) where.append(el("span", "move-hint offer-say", next.say));
  else if (rolled) where.append(el("span", "move-hint offer-say", t("Rolled {n}: tap it on the token that moves", { n: rolled })));
  else if (two) where.append(el("span", "move-hint", t("Tap the numbered die on the token that moves")));
  else if (press && press.player === p.id && landed && landed.press === press.outcome && press.roll) {
    where.append(el("span", "move-hint", tn("The block rolled {n}: the token moved {n} space", "The block rolled {n}: the token moved {n} spaces", press.roll)));
  } else if (!p.in_jail) where.append(el("span", "move-hint", t("Tap the numbered die")));
  head.append(where);
  if (powers()) {
    const power = el("button", "big quiet power-btn move-power", t("Power-up"));
    power.type = "button";
    markNotNow(power, "use_ability", p.id);
    power.addEventListener("click", () => openPower(p, power, (id) => {
      if (id !== "banana" || !bananaLimit()) return false;  // a Banana: dropped on the ring
      press = { outcome: press && press.player === p.id ? press.outcome : null, player: p.id, face: "banana",
                roll: press && press.player === p.id ? press.roll : null, used: false, checked: true };
      again();
      return true;
    }));
    head.append(power);
  }
  const parts = [head];
  const face = faceRow(p);
  if (face) parts.push(face);
  if (next) parts.push(next.row);
  else if (two) parts.push(...tokenRows(p, ring));
  else {
    parts.push(...dieKeys(p, null, p.name));
    if (p.in_jail) {
      for (const k of parts.flatMap((x) => [...x.querySelectorAll(".move-key")])) k.disabled = true;
      parts.push(el("p", "move-note", t("{name} is In Jail: the token moves again once they are out (pay the fee or roll a 6).", { name: p.name })));
    }
  }
  // A move out of its moment (the keys are marked, still tappable): the reason, once.
  const late = next || p.in_jail ? null : notNow("move_token", p.id);
  if (late) parts.push(el("p", "move-note not-now-note", late.error));
  bar.replaceChildren(...parts);
}

// -- the ring card ----------------------------------------------------------------------------

// Not described yet: what to do, once (the ring card, under the block's buttons).
function renderRingCard(ring) {
  $("ring-card").hidden = !ring && (watching() || state.ended);
  $("ring-describe").hidden = Boolean(ring);
  $("ring-edit-open").hidden = !ring;
  if (!ring) { $("ring-box").replaceChildren(); return; }
  const piles = pilesBySpace(ring);
  const standing = tokensBySpace();
  const p = state.current_player === null || watching() || state.ended ? null : player(state.current_player);
  const pickable = new Set(p ? bananaSpaces(p) : []);
  $("ring-card").classList.toggle("picking", pickable.size > 0);
  $("ring-box").replaceChildren(...ringGrid(ring.spaces, (spaces, i) => playCell(spaces, i, piles, standing, pickable,
    (j, cell, drop) => (drop ? dropBanana(j, cell) : openSpace(j))),
    whoWhere(ring, pickable.size ? p : null)));
}

export function renderRing() {
  const board = kinds().length > 0;
  $("menu-ring").hidden = !board;
  document.body.classList.toggle("ring-on", board && Boolean(state.ring));
  if (!board) { $("move-bar").hidden = true; $("ring-card").hidden = true; shown = ""; return; }
  resumeDescribing();  // the editor was open when the page was left: open again where it was
  const ring = state.ring || null;
  // The turn passed: its offers with it.
  if (landed && landed.player !== state.current_player) landed = null;
  if (walked && walked.player !== state.current_player) walked = null;
  if (ring) notePress(state.current_player === null ? null : player(state.current_player));
  const seen = JSON.stringify([currentLanguage(), watching(), state.ended, ring, state.board, state.current_player,
    state.players.map((p) => [p.id, p.name, p.colour, p.position, p.tokens, p.in_jail, p.out, p.current, p.characters]),
    state.deeds, state.bananas, state.last_outcome && state.last_outcome.id, landed, press, walked, more, deedKey(), state.flow]);
  if (seen === shown) return;
  shown = seen;
  renderMoveBar(ring);
  renderRingCard(ring);
}

// -- a space's sheet: scoop its pile, put a token there, drop coins or a Banana there, its deed --

async function openSpace(i) {
  const ring = state.ring;
  if (!ring || watching() || state.ended) return;
  const label = ring.labels[i];
  const kind = kindOf(ring.spaces[i]);
  const p = state.current_player === null ? null : player(state.current_player);
  const pile = (state.board || []).find((x) => sameSpace(x.space, label) && x.coins > 0);
  const here = tokensBySpace().get(i) || [];
  const about = el("div", "space-about");
  if (pile) about.append(el("p", "space-pile", tn("{n} coin here", "{n} coins here", pile.coins)));
  if (here.length) {
    const who = el("p", "space-who");
    for (const { p: x, tok } of here) who.append(dot(x, tok.jailed ? " jailed" : ""), el("span", "", tokenWords(x, tok)));
    about.append(who);
  }
  const buttons = [];
  if (p && pile) buttons.push({ label: t("{name} scoops {coins}", { name: p.name, coins: pile.coins }), value: "scoop", cls: "pay-now scoop-go" });
  for (const tok of p ? tokensOf(p) : []) {
    if (tok.jailed || tok.at === i) continue;
    buttons.push(tok.character
      ? { label: t("Move {name}'s {character} here", { name: p.name, character: charName(tok.character) }), value: `place:${tok.character}`, cls: "place-go" }
      : { label: t("Move {name}'s token here", { name: p.name }), value: "place", cls: "place-go" });
  }
  if (p) buttons.push({ label: t("Drop coins here"), value: "drop" });
  const deed = kind && kind.effect === "property" ? deedSheet(i, p) : null;
  if (deed) { about.append(deed.about); buttons.push(...deed.buttons); }
  const limit = bananaLimit();
  const banana = (state.bananas || []).includes(i);
  const full = (state.bananas || []).length >= limit;
  if (limit && p) {
    if (banana) about.append(el("p", "space-banana", t("A Banana is on this space: a space holds only one.")));
    else if (full) about.append(el("p", "space-banana", tn("{n} Banana is down: the most the board holds.", "{n} Bananas are down: the most the board holds.", limit)));
    buttons.push({ label: t("Drop a Banana here"), value: "banana", cls: "banana-drop" });
    if (banana) buttons.push({ label: t("Take the Banana back"), value: "banana-back", cls: "banana-back" });
  }
  buttons.push({ label: t("Close"), value: false, cls: "quiet" });
  const kindWords = kind ? word(kind.name) : t("A space the rulebook gives no rule for");
  const named = bareName(ring.spaces[i]) !== "";
  const asked = ask(spaceName(ring.spaces, i), [named ? t("Space {n} · {kind}", { n: i, kind: kindWords }) : kindWords],
    buttons, "space", about);
  const off = $("dialog-buttons").querySelector(".banana-drop");
  if (off && (banana || full)) { off.dataset.off = "1"; off.disabled = true; }
  if (p) {  // the current player's moves, in the turn's moment (else marked "not now")
    markNotNow($("dialog-buttons").querySelector(".scoop-go"), "scoop", p.id);
    for (const b of $("dialog-buttons").querySelectorAll(".place-go")) markNotNow(b, "move_token", p.id);
    markNotNow(off, "place_banana", p.id);
  }
  if (deed) deed.wire();
  const answer = await asked;
  if (!answer || !p) return;
  if (deed && deed.run(answer)) return;
  if (answer === "scoop") {
    write("scoop", "/api/scoops", { player: p.id, space: pile.space }, {})
      .then((move) => moveSnack(move, t("{name} scooped up the coins on {space}", { name: p.name, space: word(pile.space) })))
      .catch(() => {});
  } else if (answer === "place" || String(answer).startsWith("place:")) {
    const character = answer === "place" ? null : answer.slice("place:".length);
    moveToken(p, character ? { how: "place", to: i, character } : { how: "place", to: i }, null,
              t("{name}'s token goes to {space}", { name: p.name, space: spaceName(ring.spaces, i) }));
  } else if (answer === "drop") {
    openDrop(p, label, null);
  } else if (answer === "banana") {
    dropBanana(i, null);
  } else if (answer === "banana-back") {
    write(`banana:${i}`, "/api/bananas", { space: i, on: false }, {})
      .then((move) => undoSnack(move, t("The Banana on {space} goes back to the pile", { space: spaceName(ring.spaces, i) })))
      .catch(() => {});
  }
}
