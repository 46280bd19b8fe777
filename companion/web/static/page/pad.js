// Paying from the tiles: the pad (who pays, who gets paid, the amount), with a check before a
// payment that looks like a typo.

/* globals t, tn */
/* globals word */
import { $, state, watching } from "./store.js";
import { charName, hasJail, powers, rules } from "./rules.js";
import { bare, coinWords, heard, nameOf, player, title } from "./words.js";
import { el } from "./widgets.js";
import { snack } from "./messages.js";
import { ask } from "./dialog.js";
import { held, HOLD_MS, write } from "./net.js";
import { undoLatest } from "./undo.js";
import { markNotNow } from "./flow.js";
import { spaceName } from "./editions/spaces.js";

// Tap who pays (a tile or the Bank), tap who gets paid, the amount, Pay. Nothing is chosen in
// advance: every payment starts empty, and is emptied again after paying and on Next.
// ``reason``: the rules' own payment it is (a tax: its Reason button); ``jailKey``: the amount
// came from the pad's "Jail" key (to the Bank from a player in Jail: the jail fee).
export const pay = { from: null, to: null, digits: "", done: null, reason: null, jailKey: false };

function canPay() {
  return Boolean(state) && !watching() && !state.ended && state.game.bank !== false;
}

export function resetPay() {
  pay.from = null;
  pay.to = null;
  pay.digits = "";
  pay.done = null;
  pay.reason = null;
  pay.jailKey = false;
  if ($("pad-note")) { $("pad-note").value = ""; $("pad-note-box").hidden = true; }
  for (const b of $("pad-reasons").children) b.setAttribute("aria-pressed", "false");
  if (state) { markTiles(); renderPad(); }
}

// A rule's own payment (a tax space, the Movie's Continue cost): "Pay the Bank the amount
// shown", so the Bank is its payee. The payment names its reason, and a fee the Free Parking
// pot takes (README, "House rules") goes on the pot. A second tap takes it back.
export function chooseReason(r) {
  if (!canPay()) return;
  const on = pay.reason !== r.id;
  pay.reason = on ? r.id : null;
  pay.done = null;
  $("pad-note").value = on ? word(r.note) : "";
  $("pad-note-box").hidden = !on;
  if (on && pay.from !== null && pay.from !== "bank") pay.to = "bank";
  markTiles();
  renderPad();
}

function sameParty(a, b) { return a !== null && b !== null && String(a) === String(b); }

export function waitingOutcome() {
  if (!state || watching() || state.ended) return null;
  return state.unassigned.find((o) => !laterFor.has(o.id)) || null;
}
export const laterFor = new Set();  // waiting outcomes the banker put off ("Later")

export function tapTile(id) {
  if (!canPay()) return;
  const waiting = waitingOutcome();
  if (waiting && id !== "bank") {  // a waiting outcome is given by tapping its player
    const button = document.querySelector(`.tile[data-player="${id}"] .pick`);
    write("assign", "/api/assign", { outcome: waiting.id, player: id }, { button })
      .then((reply) => snack(t("{what} for {name}", { what: bare(heard(waiting, "headline")), name: title(id) }),
                             t("Undo"), () => undoLatest(reply.move)))
      .catch(() => {});
    return;
  }
  pay.done = null;
  if (pay.from === null) pay.from = id;
  else if (sameParty(pay.from, id)) { resetPay(); return; }
  else if (sameParty(pay.to, id)) pay.to = null;
  else pay.to = id;
  if (pay.reason !== null && pay.to !== null && pay.to !== "bank") dropReason();  // a tax is the Bank's
  markTiles();
  renderPad();
  keepTilesInView();
}

function dropReason() {
  pay.reason = null;
  $("pad-note").value = "";
  $("pad-note-box").hidden = true;
}

function amount() { return pay.digits === "" ? 0 : Number(pay.digits); }

function typeKey(key, id = null) {
  if (!canPay()) return;
  pay.done = null;
  pay.jailKey = id === "jail";
  if (key === "back") pay.digits = pay.digits.slice(0, -1);
  else if (typeof key === "number") pay.digits = String(key);  // a quick amount: the whole amount
  else if (pay.digits.length < 5) pay.digits = (pay.digits + key).replace(/^0+/, "");
  renderPad();
}

function padOpen() { return pay.from !== null || pay.to !== null || pay.digits !== ""; }

// Just paid: the pad says so for a moment before it closes (on a phone), with Pay still under
// the finger and off, so a double tap's second tap lands on nothing else.
function padDone() { return pay.done !== null && performance.now() < pay.done.until; }

export function renderPad() {
  if (!state) return;
  const pad = $("pad");
  const done = padDone();
  const open = (padOpen() || done) && canPay();
  pad.classList.toggle("done", done && !padOpen());
  pad.classList.toggle("open", open);
  document.body.classList.toggle("paying", open);
  if (!open) scrollBack();
  const what = $("pad-what");
  const n = amount();
  if (done && !padOpen()) what.textContent = pay.done.text;
  else if (pay.from === null) what.textContent = t("Pay: tap who pays");
  else if (pay.to === null) what.textContent = t("{payer} pays… tap who gets paid", { payer: title(pay.from) });
  else what.textContent = t("{payer} pays {payee}", { payer: title(pay.from), payee: nameOf(pay.to) });
  $("pad-amount").textContent = String(n);
  $("pad-amount").classList.toggle("empty", n === 0);
  const own = pay.from !== null && pay.from !== "bank" && pay.to === null ? player(pay.from) : null;
  $("pad-player").hidden = !own;
  if (own) {
    $("pad-current").hidden = own.current;
    $("pad-current").textContent = t("Make {name} current", { name: own.name });
    $("pad-phone").textContent = own.linked ? t("Phone: linked") : t("Phone link");
    $("pad-phone").classList.toggle("linked", Boolean(own.linked));
    const jail = hasJail();
    const fee = rules && rules.jail_fee ? rules.jail_fee.value : null;
    const rolls = rules && rules.jail_rolls;  // the table's die for a 6 (not the Movie's block)
    $("pad-jail-in").hidden = !jail || own.in_jail;
    $("pad-jail-pay").hidden = !jail || !own.in_jail || fee === null;
    $("pad-jail-pay").textContent = t("Pay {fee} to leave", { fee });
    $("pad-jail-free").hidden = !jail || !own.in_jail;
    $("pad-jail-six").hidden = $("pad-jail-miss").hidden = !rolls || !own.in_jail;
    if (rolls && own.in_jail) {
      $("pad-jail-miss").textContent = t("Missed a 6 (try {n} of {tries})", { n: own.jail_tries + 1, tries: rolls.tries });
    }
    // Each for the tapped player, in the turn's moment (else marked "not now", still tappable).
    markNotNow($("pad-jail-in"), "go_to_jail", own.id);
    markNotNow($("pad-jail-pay"), "jail", own.id);
    markNotNow($("pad-jail-free"), "jail_free", own.id);
    markNotNow($("pad-jail-six"), "roll_from_jail", own.id);
    markNotNow($("pad-jail-miss"), "roll_from_jail", own.id);
    markNotNow($("pad-power"), "use_ability", own.id);
    $("pad-drop").hidden = !(rules && rules.board);
    $("pad-power").hidden = !powers();
    $("pad-chars").hidden = !powers();
    $("pad-chars").textContent = (own.characters || []).length
      ? t("Character: {names}", { names: own.characters.map(charName).join(" & ") }) : t("Pick a character");
    // An odd one out takes the whole row.
    const shownButtons = [...$("pad-player").children].filter((b) => !b.hidden);
    shownButtons.forEach((b, i) => b.classList.toggle("wide", i === shownButtons.length - 1 && shownButtons.length % 2 === 1));
  }
  for (const b of $("pad-reasons").children) {
    b.setAttribute("aria-pressed", String(b.dataset.reason === pay.reason));
    markNotNow(b, pay.from !== null && pay.from !== "bank" ? b.dataset.reason : null, pay.from);
  }
  const ready = pay.from !== null && pay.to !== null && n >= 1;
  const payButton = $("pad-pay");
  payButton.disabled = !ready || payButton.dataset.busy === "1" || held.has(payButton);
  payButton.textContent = ready ? t("Pay {amount}: {payer} → {payee}", { amount: n, payer: title(pay.from), payee: title(pay.to) })
    : done && !padOpen() ? t("Paid ✓") : t("Pay");
  // The sheet's height: the page's room under the tiles, and where a scroll to a tile stops.
  if (open) document.documentElement.style.setProperty("--sheet", `${pad.offsetHeight}px`);
}

export function markTiles() {
  for (const tile of document.querySelectorAll("#players .tile")) {
    const id = tile.dataset.player === "bank" ? "bank" : Number(tile.dataset.player);
    const from = sameParty(pay.from, id);
    const to = sameParty(pay.to, id);
    tile.classList.toggle("from", from);
    tile.classList.toggle("to", to);
    const badge = tile.querySelector(".badge");
    badge.textContent = from ? t("pays") : to ? t("gets") : "";
    badge.hidden = !from && !to;
    tile.querySelector(".pick").setAttribute("aria-pressed", from || to ? "true" : "false");
  }
  const waiting = waitingOutcome();
  $("players").classList.toggle("giving", Boolean(waiting));
  $("players").classList.toggle("choosing", pay.from !== null && !waiting);
}

function landscape() { return getComputedStyle($("pad")).position !== "fixed"; }

// On a phone the pad is a sheet at the bottom: the tiles stay on screen above it.
// When the sheet closes, the page goes back to where it was before the sheet moved it: the
// block and its outcome are where the eye left them for the next press.
let scrolledFrom = null;
function keepTilesInView() {
  if (!padOpen() || landscape()) return;
  requestAnimationFrame(() => {
    const head = $("top").getBoundingClientRect().bottom;
    const top = $("pad").getBoundingClientRect().top;
    const tiles = $("players").getBoundingClientRect();
    let delta = 0;
    if (tiles.bottom > top - 8) delta = Math.min(tiles.bottom - (top - 8), tiles.top - head - 8);
    else if (tiles.top < head + 4) delta = tiles.top - head - 8;
    if (!delta) return;
    if (scrolledFrom === null) scrolledFrom = window.scrollY;
    window.scrollBy(0, delta);
  });
}
function scrollBack() {
  if (scrolledFrom === null) return;
  const y = scrolledFrom;
  scrolledFrom = null;
  window.scrollTo(0, y);
}

// A typo (150 for 15) would take a player far below zero: more than the payer has, or more than
// a player starts the game with, is asked again with the balances before and after.
function startCoins() {
  if (!rules || !rules.start_coins) return null;
  const entry = rules.start_coins[String(state.players.length)];
  return entry && entry.value ? entry.value : null;
}

function bigPayment(from, to, asked) {
  const payer = from === "bank" ? null : player(from);
  const payee = to === "bank" ? null : player(to);
  const most = startCoins();
  const over = payer !== null && payer !== undefined && asked > payer.balance;
  const huge = most !== null && asked > most;
  if (!over && !huge) return null;
  const capped = rules && rules.debt && rules.debt.rule === "capped";
  const paid = payer && capped ? Math.max(0, Math.min(asked, payer.balance)) : asked;
  const lines = [];
  if (payer) lines.push(`${payer.name}: ${payer.balance} → ${payer.balance - paid}`);
  if (payee) lines.push(`${payee.name}: ${payee.balance} → ${payee.balance + paid}`);
  const why = over ? t("That is more than {name} has ({balance}).", { name: payer.name, balance: payer.balance })
    : t("That is more than the {most} coins a player starts with.", { most });
  const cap = payer && capped && paid < asked ? " " + t("{name} can pay only {paid}: that is what moves.", { name: payer.name, paid }) : "";
  return { title: t("Pay {amount}? Check the amount", { amount: asked }), lines, why: why + cap, over: why,
           sale: over && capped ? payer : null };
}

// Gamer, Mario Kart: "If you do not have enough Coins, you must sell Property you own back to
// the Bank for face value ... Then drop or give any Coins you still owe." The Bank pays the
// face value and the payment follows, one move. On a described board whose deeds the companion
// knows, the payer's deeds are ticked (each with its price, once typed): sold at the prices on
// the spaces, or at a face value typed when a price is not. Else the face value is typed (it is
// printed on the deed).
function deedsOf(p) {
  if (!state.ring || !state.deeds) return [];
  return Object.entries(state.deeds).filter(([, holder]) => holder === p.id)
    .map(([space]) => Number(space)).filter((i) => i >= 0 && i < state.ring.spaces.length).sort((a, b) => a - b);
}

function priceOf(i) {
  const price = state.ring.spaces[i].price;
  return typeof price === "number" ? price : null;
}

function saleBox(payer, asked) {
  const box = el("div", "sale");
  const deeds = deedsOf(payer);
  const ticked = new Set();
  if (deeds.length) {
    const set = el("fieldset", "pick-set sale-deeds");
    set.append(el("legend", "", t("Property sold back to the Bank first")));
    const list = el("div", "pick-list");
    for (const i of deeds) {
      const row = el("label", "pick-row sale-deed");
      row.dataset.space = String(i);
      row.style.setProperty("--colour", payer.colour);
      const check = Object.assign(document.createElement("input"), { type: "checkbox", name: "sale-deed", value: String(i) });
      const price = priceOf(i);
      row.append(check, el("span", "pick-name", spaceName(state.ring.spaces, i)),
                 el("span", "pick-note", price === null ? t("price not typed") : coinWords(price)));
      check.addEventListener("change", () => {
        if (check.checked) ticked.add(i); else ticked.delete(i);
        row.classList.toggle("on", check.checked);
        update();
      });
      list.append(row);
    }
    set.append(list);
    box.append(set);
  }
  const label = el("label", "sale-label", deeds.length ? t("Their face value (a price not typed)")
    : t("Property sold back to the Bank first (face value)"));
  const input = document.createElement("input");
  input.id = "sale-value";
  input.type = "number";
  input.inputMode = "numeric";
  input.min = "0";
  input.placeholder = "0";
  label.append(" ", input);
  const sum = el("p", "sale-sum", "");
  const after = el("p", "sale-after", "");
  const chosen = () => [...ticked].sort((a, b) => a - b);
  const typed = () => !deeds.length || chosen().some((i) => priceOf(i) === null);  // the face value is typed
  const sold = () => (typed() ? Math.max(0, Math.floor(Number(input.value) || 0))
    : chosen().reduce((n, i) => n + priceOf(i), 0));
  let go = null;  // the question's Pay button: off while a deed's face value is missing
  let redrawBalances = null;  // the question's balances, drawn again with the sale
  const update = () => {
    label.hidden = deeds.length > 0 && (!ticked.size || !typed());
    const value = sold();
    sum.hidden = !deeds.length || !ticked.size;
    sum.textContent = !typed() ? tn("The Bank pays {sold} for the deed", "The Bank pays {sold} for {n} deeds", ticked.size, { sold: value })
      : t("Type what the Bank pays for them");
    const paid = Math.min(asked, payer.balance + value);
    after.textContent = value ? t("With the sale: {name} pays {paid} of {asked}, keeps {left}",
                                  { name: payer.name, paid, asked, left: payer.balance + value - paid }) : "";
    if (redrawBalances) redrawBalances(value);
    if (go) {
      const missing = deeds.length > 0 && ticked.size > 0 && typed() && value < 1;
      go.dataset.off = missing ? "1" : "";
      if (!go.classList.contains("arming")) go.disabled = missing;
    }
  };
  input.addEventListener("input", update);
  box.append(sum, label, after);
  // What the payment sends: the deeds (their face value: summed by the companion from the
  // prices typed, else ``sold``), or the face value alone where no deed is known.
  box.read = () => {
    if (deeds.length && !ticked.size) return {};
    const out = deeds.length ? { deeds: chosen() } : {};
    if (typed() && sold() > 0) out.sold = sold();
    return out.deeds || out.sold ? out : {};
  };
  box.wire = (button, onSold) => { go = button; redrawBalances = onSold; update(); };
  update();
  return box;
}

// The pad's "Jail" key, to the Bank, from a player in Jail: the jail fee itself (the same move
// as their tile's "Pay 5 to leave": out of Jail, and on the Free Parking pot while it is on).
function jailFee(from, to, asked) {
  const payer = from === "bank" ? null : player(from);
  return pay.jailKey && to === "bank" && Boolean(payer && payer.in_jail)
    && Boolean(rules && rules.jail_fee) && asked === rules.jail_fee.value;
}

async function payNow(byKeyboard = false) {
  const from = pay.from;
  const to = pay.to;
  const asked = amount();
  const reason = pay.reason;
  if (from === null || to === null || asked < 1) return;
  const button = $("pad-pay");
  if (jailFee(from, to, asked)) {
    write("jail", "/api/jail", { player: from }, { button, sticky: true }).then((reply) => {
      paid(t("{name} paid {coins} and left Jail", { name: title(from), coins: reply.amount }), reply.move,
           false, from, to, byKeyboard);
    }).catch(() => {});
    return;
  }
  const note = $("pad-note").value.trim();
  const check = bigPayment(from, to, asked);
  let sale = {};
  if (check) {
    button.dataset.busy = "1";
    button.disabled = true;
    const box = check.sale ? saleBox(check.sale, asked) : null;
    const asking = ask(check.title, [check.why, ...check.lines],
                       [{ label: t("Change it"), value: false, cls: "quiet" },
                        { label: t("Pay {amount}", { amount: asked }), value: true, cls: "warn" }],
                       "confirm-pay", box || undefined);
    if (box) {  // the balances after, with the sale
      const whyLine = $("dialog-body").querySelector(".dialog-why");
      const [payerLine, payeeLine] = $("dialog-body").querySelectorAll(".dialog-line");
      const payer = check.sale;
      const payee = to === "bank" ? null : player(to);
      box.wire($("dialog-buttons").lastElementChild, (sold) => {
        const paid = Math.max(0, Math.min(asked, payer.balance + sold));
        if (whyLine) whyLine.textContent = sold ? check.over : check.why;  // no longer "can pay only"
        if (payerLine) payerLine.textContent = `${payer.name}: ${payer.balance} → ${payer.balance + sold - paid}`;
        if (payeeLine && payee) payeeLine.textContent = `${payee.name}: ${payee.balance} → ${payee.balance + paid}`;
      });
    }
    const answer = await asking;
    sale = box ? box.read() : {};
    delete button.dataset.busy;
    renderPad();
    if (!answer) return;
  }
  const body = { from, to, amount: asked, ...sale };
  if (note) body.note = note;
  if (reason !== null) body.reason = reason;
  // Refused because the payer still holds Property (sell first): the sale, one tap away.
  const offer = (err) => (err.rule === "sell_first" && pay.from === from && pay.to === to
    ? { label: t("Sell Property first"), run: () => payNow() } : null);
  write("pay", "/api/transfers", body, { button, offer }).then((reply) => {
    const args = { payer: title(from), payee: nameOf(to), amount: reply.amount ?? asked };
    let text = reply.message ? t("{payer} paid {payee} {amount} ({message})", { ...args, message: heard(reply, "message") })
      : reply.space ? t("{payer} paid {amount} onto {space}", { ...args, space: word(reply.space) })  // the pot
        : t("{payer} paid {payee} {amount}", args);
    if (reply.sold) text = t("{payer} sold Property for {sold}, then: {text}", { payer: title(from), sold: reply.sold, text });
    paid(text, reply.move, reply.again, from, to, byKeyboard);
  }).catch(() => {});
}

// Paid: the pad says so and closes, Undo is offered, and the keyboard's focus goes to the
// payer's tile (the Bank's payee's), never to the page's body.
function paid(text, move, again, from, to, byKeyboard) {
  resetPay();
  pay.done = { text, until: performance.now() + HOLD_MS };
  renderPad();
  setTimeout(() => renderPad(), HOLD_MS + 20);
  snack(again ? t("That payment went through (once): {text}", { text }) : text, t("Undo"),
        () => undoLatest(move));
  focusTile(from === "bank" ? to : from, byKeyboard);
}

// The keyboard's focus on a player's tile (or the Bank's); the page scrolls to it only for a
// keyboard (a finger's view stays where it is).
export function focusTile(id, scroll = true) {
  const pick = document.querySelector(`#players .tile[data-player="${id}"] .pick`);
  if (!pick || pick.disabled || !pick.getClientRects().length) return false;
  pick.focus({ preventScroll: !scroll });
  return true;
}

// A payment made elsewhere (a rent from the move row) refused because the payer must sell
// Property first: the pad filled in with it, and its question with the payer's deeds.
export function paySale(from, to, asked, note = "") {
  if (!canPay()) return;
  pay.from = from;
  pay.to = to;
  pay.digits = String(asked);
  pay.done = null;
  pay.reason = null;
  pay.jailKey = false;
  $("pad-note").value = note;
  $("pad-note-box").hidden = !note;
  markTiles();
  renderPad();
  payNow();
}

// The amount pad: digits 1-9 and 0 (from empty, the small quick amounts are the digits
// themselves), then the larger quick amounts and the edition's jail fee and GO from /api/rules,
// each the whole amount at one tap.
export function renderKeys() {
  const keys = [];
  const key = (label, value, cls, aria, id = null) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pad-key" + (cls ? " " + cls : "");
    b.textContent = label;
    if (aria) b.setAttribute("aria-label", aria);
    b.dataset.key = typeof value === "number" ? `=${value}` : value;  // "=5": the whole amount
    b.addEventListener("click", () => typeKey(value, id));
    keys.push(b);
  };
  for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"]) key(d, d);
  for (const q of (rules && rules.quick_amounts) || []) {
    if (q.named) key(heard(q, "label"), q.coins, "quick named", t("{label} coins", { label: heard(q, "label") }), q.id);
    else if (q.coins >= 10) key(q.label, q.coins, "quick", coinWords(q.coins));
  }
  $("keys").replaceChildren(...keys);
}

// The pad.
$("pad-close").addEventListener("click", resetPay);
$("pad-back").addEventListener("click", () => typeKey("back"));
$("pad-pay").addEventListener("click", (ev) => payNow(ev.detail === 0));
$("pad-note-toggle").addEventListener("click", () => {
  const box = $("pad-note-box");
  box.hidden = !box.hidden;
  if (!box.hidden) $("pad-note").focus();
  renderPad();
});
$("pad-current").addEventListener("click", () => {
  const who = pay.from;
  if (who === null || who === "bank") return;
  write("current", "/api/current", { player: who }, { button: $("pad-current"), sticky: true })
    .then((reply) => { resetPay(); snack(t("{name} is the current player", { name: title(who) }), t("Undo"), () => undoLatest(reply.move)); })
    .catch(() => {});
});

// A keyboard on a tablet: digits, Backspace, Enter and Escape work the pad.
document.addEventListener("keydown", (ev) => {
  if (!padOpen() || $("dialog").open) return;
  const target = ev.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  // The header's own controls (the menu, Aa, the timer, a request's answer) keep their Enter.
  if (ev.key === "Enter" && target && target.closest && target.closest("#top, dialog")) return;
  if (/^[0-9]$/.test(ev.key)) { typeKey(ev.key); ev.preventDefault(); }
  else if (ev.key === "Backspace") { typeKey("back"); ev.preventDefault(); }
  else if (ev.key === "Escape") resetPay();
  else if (ev.key === "Enter" && !$("pad-pay").disabled) { payNow(true); ev.preventDefault(); }
});
window.addEventListener("resize", () => { if (state) renderPad(); });
