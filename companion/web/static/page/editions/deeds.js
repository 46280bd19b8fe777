// Who holds each Property's deed on the described board (Gamer, Mario Kart), and what a token
// landing on one offers in the move row: buy it at the price on the space, auction it, or pay its
// owner the rent (doubled with both of the set). The price and the rent are typed once, when
// first needed, into the board's description (kept for every later game). A Property's sheet
// says who holds it and hands the deed on (a trade) or back to the Bank.

/* globals t, tn */
import { $, state } from "../store.js";
import { boardRules } from "../rules.js";
import { active, heard, player, title } from "../words.js";
import { el, playerRow } from "../widgets.js";
import { snack } from "../messages.js";
import { ask } from "../dialog.js";
import { write } from "../net.js";
import { undoLatest, undoSnack } from "../undo.js";
import { markNotNow } from "../flow.js";
import { paySale } from "../pad.js";
import { spaceName } from "./spaces.js";

const KEYS = [1, 2, 3, 4, 5, 6, 7, 8];  // a price, a rent, a bid: a tap each (more: typed)

export function holderOf(i) {
  const id = state.deeds ? state.deeds[String(i)] : undefined;
  return id === undefined || id === null ? null : id;
}

// -- the price and the rent, typed once into the board's description --------------------------

// A number typed here, until the state's board shows it: a second one typed meanwhile is sent
// with the first (the description is sent whole).
const typed = new Map();  // "space:field" -> the number

function numberOf(i, field) {
  const key = `${i}:${field}`;
  const space = state.ring.spaces[i];
  if (typed.has(key)) {
    if (space[field] === typed.get(key)) typed.delete(key);
    else return typed.get(key);
  }
  return space[field] ?? null;
}

async function keep(i, field, value) {
  typed.set(`${i}:${field}`, value);
  const spaces = state.ring.spaces.map((s, j) => {
    const out = { ...s };
    for (const f of ["price", "rent"]) { const n = numberOf(j, f); if (n !== null) out[f] = n; }
    return out;
  });
  spaces[i][field] = value;
  try {
    await write(`board:${i}:${field}`, "/api/board", { spaces, faces: [...state.ring.faces] }, { method: "PUT" });
  } catch (err) {
    typed.delete(`${i}:${field}`);
    throw err;
  }
}

// A number asked in a sheet: a key each for 1 to 8, more typed. ``go(n)`` words the button;
// ``extra`` goes above the keys (an auction's bidders), ``ready()`` says whether it is complete.
// The number, or null (cancelled).
async function askNumber({ heading, lines, legend, go, extra = null, ready = () => true, onDraw = null }) {
  let n = null;
  const box = el("div", "number-picks");
  if (extra) box.append(extra);
  const set = el("fieldset", "pick-set");
  set.append(el("legend", "", legend));
  const keys = el("div", "drop-keys number-keys");
  const input = Object.assign(document.createElement("input"), { id: "deed-number", type: "number", min: "0", max: "1000",
    inputMode: "numeric", placeholder: "9+" });
  input.setAttribute("aria-label", legend);
  for (const k of KEYS) {
    const b = el("button", "drop-key", k);
    b.type = "button";
    b.dataset.n = String(k);
    b.addEventListener("click", () => { n = k; input.value = ""; draw(); });
    keys.append(b);
  }
  input.addEventListener("input", () => {
    const v = Number(input.value);
    n = input.value !== "" && Number.isInteger(v) && v >= 0 && v <= 1000 ? v : null;
    draw();
  });
  keys.append(input);
  set.append(keys);
  box.append(set);
  const asked = ask(heading, lines, [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: "", value: true, cls: "pay-now" }],
    "deed-number", box);
  const button = $("dialog-buttons").lastElementChild;
  const draw = () => {
    for (const k of keys.querySelectorAll(".drop-key")) k.setAttribute("aria-pressed", String(Number(k.dataset.n) === n));
    const complete = n !== null && ready();
    button.dataset.off = complete ? "" : "1";
    if (!button.classList.contains("arming")) button.disabled = !complete;
    button.textContent = n === null ? t("Tap or type the number") : go(n);
  };
  if (onDraw) onDraw(draw);
  draw();
  return (await asked) ? n : null;
}

// -- landing on a Property: buy, auction, rent ---------------------------------------------------

let doubled = "";  // "mover:space" while ×2 is on for that landing

function buyWords(name, price) {
  return price === null ? t("Buy {space}…", { space: name }) : t("Buy {space} for {price}", { space: name, price });
}

async function buy(p, i, button, done) {
  const name = spaceName(state.ring.spaces, i);
  let price = numberOf(i, "price");
  if (price === null) {
    price = await askNumber({ heading: t("{space}: its price", { space: name }),
      lines: [t("The price printed on the space: typed once, kept for every later game.")],
      legend: t("Price (coins)"), go: (n) => t("Buy for {price}", { price: n }) });
    if (price === null) return;
    try { await keep(i, "price", price); } catch { return; }
  }
  write(`deed:${i}`, "/api/deeds", { space: i, player: p.id, price }, { button }).then((move) => {
    done();
    undoSnack(move, t("{name} buys {space} for {price}", { name: p.name, space: name, price }), $("move-bar"));
  }).catch(() => {});
}

async function auction(i, button, done) {
  const name = spaceName(state.ring.spaces, i);
  let winner = null;
  const set = el("fieldset", "pick-set");
  set.append(el("legend", "", t("Who wins the auction")));
  const list = el("div", "pick-list chips bidders");
  list.append(...active().map((x) => playerRow(x, "radio", "bidder", false, false, "")));
  set.append(list);
  let redraw = () => {};
  list.addEventListener("change", (ev) => {
    winner = Number(ev.target.value);
    for (const r of list.querySelectorAll(".pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    redraw();
  });
  const bid = await askNumber({ heading: t("Auction: {space}", { space: name }),
    lines: [t("The highest bidder wins the auction, and payment goes to the Bank.")],
    legend: t("The winning bid (coins)"), extra: set, ready: () => winner !== null,
    go: (n) => (winner === null ? t("Who wins?") : t("{name} wins it for {bid}", { name: title(winner), bid: n })),
    onDraw: (draw) => { redraw = draw; } });
  if (bid === null || winner === null) return;
  write(`deed:${i}`, "/api/deeds", { space: i, player: winner, price: bid }, { button }).then((move) => {
    done();
    undoSnack(move, t("{name} buys {space} for {price}", { name: title(winner), space: name, price: bid }), $("move-bar"));
  }).catch(() => {});
}

async function payRent(p, owner, i, button, done) {
  const name = spaceName(state.ring.spaces, i);
  const times = doubled === `${p.id}:${i}` ? setRent() : 1;
  let rent = numberOf(i, "rent");
  if (rent === null) {
    rent = await askNumber({ heading: t("{space}: its rent", { space: name }),
      lines: [t("The rent on its Title Deed card: typed once, kept for every later game.")],
      legend: t("Rent (coins)"), go: (n) => t("Pay {name} {coins}", { name: owner.name, coins: n * times }) });
    if (rent === null) return;
    try { await keep(i, "rent", rent); } catch { return; }
  }
  const amount = rent * times;
  if (amount < 1) { done(); return; }  // nothing to pay
  // Refused because the payer must sell Property first: the pad's question, with their deeds.
  const offer = (err) => (err.rule === "sell_first" ? { label: t("Sell Property first"), run: () => paySale(p.id, owner.id, amount, "rent") } : null);
  write(`rent:${p.id}`, "/api/transfers", { from: p.id, to: owner.id, amount, note: "rent" }, { button, offer }).then((reply) => {
    done();
    const args = { payer: p.name, payee: owner.name, amount: reply.amount ?? amount };
    const text = reply.message ? t("{payer} paid {payee} {amount} ({message})", { ...args, message: heard(reply, "message") })
      : t("{payer} paid {payee} {amount}", args);
    snack(text, t("Undo"), () => undoLatest(reply.move), $("move-bar"));
  }).catch(() => {});
}

// What landing on Property ``i`` offers player ``p``: its words and its buttons, or null (the
// deed is theirs). ``done``: the offer is used; ``again``: the row drawn again (×2 tapped).
export function deedOffer(p, i, done, again) {
  const owner = holderOf(i) === null ? null : player(holderOf(i));
  if (owner && owner.id === p.id) return null;
  const name = spaceName(state.ring.spaces, i);
  if (!owner) {
    const buyer = el("button", "big pay-now offer-buy", buyWords(name, numberOf(i, "price")));
    buyer.type = "button";
    buyer.addEventListener("click", () => buy(p, i, buyer, done));
    markNotNow(buyer, "buy", p.id);
    const bid = el("button", "big quiet offer-auction", t("Auction"));
    bid.type = "button";
    bid.addEventListener("click", () => auction(i, bid, done));
    markNotNow(bid, "buy");
    return { say: t("{space}: the Bank holds its deed", { space: name }), buttons: [buyer, bid] };
  }
  const key = `${p.id}:${i}`;
  const set = setRent();
  const times = doubled === key && set ? set : 1;
  const rent = numberOf(i, "rent");
  const payer = el("button", "big pay-now offer-rent",
    rent === null ? t("Pay {name} rent…", { name: owner.name }) : t("Pay {name} {coins}", { name: owner.name, coins: rent * times }));
  payer.type = "button";
  payer.addEventListener("click", () => payRent(p, owner, i, payer, done));
  const say = t("{space} is {name}'s: pay the rent", { space: name, name: owner.name });
  if (!set) return { say, buttons: [payer] };
  const twice = el("button", "move-key offer-double");  // the ruleset's times, its words
  twice.type = "button";
  twice.setAttribute("aria-pressed", String(times === set));
  twice.append(el("span", "od-main", `×${set}`), el("span", "od-sub", t("both of the set")));
  twice.title = t("If a player owns both Properties in a color set, pay them double rent!");
  twice.addEventListener("click", () => { doubled = doubled === key ? "" : key; again(); });
  return { say, buttons: [payer, twice] };
}

// What the offer row looks like now (the move row is drawn again when it changes).
// How many times its rent a Property costs with both of its colour set ("pay them double rent!",
// the ruleset's), or 0: the edition has no such rule.
function setRent() {
  const board = boardRules();
  return board && board.set_rent ? board.set_rent.value : 0;
}

export function deedKey() { return doubled; }

// -- a Property's sheet ---------------------------------------------------------------------------

function numbersLine(i) {
  const parts = [];
  const price = numberOf(i, "price");
  const rent = numberOf(i, "rent");
  const points = state.ring.spaces[i].points;
  if (price !== null) parts.push(t("price {n}", { n: price }));
  if (rent !== null) parts.push(t("rent {n}", { n: rent }));
  if (points !== null && points !== undefined) parts.push(tn("{n} point", "{n} points", points));
  return parts.join(" · ");
}

// Its part of a space's sheet: who holds it (and its numbers typed), who takes the deed (the
// current player unless another is picked), and its buttons; ``wire()`` once the sheet is open,
// ``run(answer)`` for the sheet's answer (true: it was one of these).
export function deedSheet(i, p) {
  const holder = holderOf(i);
  const about = el("div", "deed-about");
  const who = el("p", "deed-holder", holder === null ? t("The Bank holds its deed") : t("{name} holds its deed", { name: title(holder) }));
  about.append(who);
  const numbers = numbersLine(i);
  if (numbers) about.append(el("p", "deed-numbers", numbers));
  const takers = active().filter((x) => x.id !== holder);
  let taker = p && p.id !== holder ? p.id : takers.length ? takers[0].id : null;
  const list = el("div", "pick-list chips deed-takers");
  if (takers.length) {
    const set = el("fieldset", "pick-set");
    set.append(el("legend", "", t("Who takes the deed")));
    list.append(...takers.map((x) => playerRow(x, "radio", "taker", x.id === taker, false, "")));
    for (const r of list.querySelectorAll(".pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    set.append(list);
    about.append(set);
  }
  const buttons = [];
  if (taker !== null) buttons.push({ label: t("{name} takes the deed", { name: title(taker) }), value: "deed-take", cls: "deed-take" });
  if (holder !== null) buttons.push({ label: t("Back to the Bank"), value: "deed-bank", cls: "quiet deed-bank" });
  // A deed handed on without a price is a trade: one side of it must be the current player.
  const sides = () => (holder === null ? [taker] : [holder, taker]);
  const wire = () => {
    const go = $("dialog-buttons").querySelector(".deed-take");
    markNotNow(go, "trade", sides());
    list.addEventListener("change", (ev) => {
      taker = Number(ev.target.value);
      for (const r of list.querySelectorAll(".pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
      if (go) go.textContent = t("{name} takes the deed", { name: title(taker) });
      markNotNow(go, "trade", sides());
    });
  };
  const run = (answer) => {
    const name = spaceName(state.ring.spaces, i);
    if (answer === "deed-take" && taker !== null) {
      const to = taker;
      write(`deed:${i}`, "/api/deeds", { space: i, player: to }, {})
        .then((move) => undoSnack(move, t("{name} takes {space}'s deed", { name: title(to), space: name })))
        .catch(() => {});
      return true;
    }
    if (answer === "deed-bank") {
      write(`deed:${i}`, "/api/deeds", { space: i, player: null }, {})
        .then((move) => undoSnack(move, t("{space}'s deed goes back to the Bank", { space: name })))
        .catch(() => {});
      return true;
    }
    return false;
  };
  return { about, buttons, wire, run };
}
