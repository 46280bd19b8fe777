// A player's own phone: their coins big, the table small, and paying from their own coins only
// (tap who you pay, the coins, Pay); their history, outcomes and mistakes are seat.js's. The link's token is scoped to this one player: the server
// refuses anything else (403), and a link the banker turned off is a 401.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "companion-player-token";  // not the banker's table token
const STALE_MS = 25000;  // the server says something at least every 10 s
const MAX_AMOUNT = 10000;
const CONFIRM_ARM_MS = 450;  // a double tap can't confirm a payment larger than the balance
// The words of a link turned off, in the language of the moment: what to do next (the table's
// join code offers the player again once their link is off).
const TURNED_OFF = () => t("This link was turned off by the banker. To join again, scan the table's join code (the banker's Menu, Players join) and tap your own name.");

let state = null;   // the table, as the WebSocket last said
let me = null;      // {player, name, colour}
let rules = null;   // GET /api/rules
let socket = null;
let retryMs = 500;
let lastHeard = 0;
let stopped = false;
let pad = null;     // {to, basis, confirmAt, short, reason, jailKey}: the payment being made
let linkWords = () => t("connecting…");  // the status pill's words (said again on a new language)
let live = false;   // the page hears the companion now (a fresh state since the last loss)
let again = null;   // the next reconnect's timer
let offWords = null;  // why this page is off, if it is

// The token arrives once in the link (#token=...), then lives in this browser.
const token = keepLinkToken(TOKEN_KEY);

function toast(message, good) {
  const el = $("toast");
  el.textContent = message;
  el.className = "toast" + (good ? " good" : "");
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, good ? 2000 : 4000);
}

function turnedOff(words) {
  stopped = true;
  offWords = words;
  $("off").textContent = words();
  $("off").hidden = false;
  $("main").hidden = true;
  $("toast").hidden = true;
  linkWords = () => t("off");
  $("link").textContent = linkWords();
  $("link").className = "status offline";
  if (socket) { socket.onclose = null; socket.close(); }
}

function authHeaders() { return { "Authorization": "Bearer " + token() }; }

async function whoami() {
  const reply = await fetch("/api/players/me", { headers: authHeaders() });
  if (reply.status === 401) { turnedOff(TURNED_OFF); return false; }
  if (!reply.ok) throw new Error("the companion did not answer");
  me = await reply.json();
  drawTitle();
  return true;
}

// The page's title: whose coins, once the link says.
function drawTitle() {
  $("title").textContent = me ? me.name : t("My coins");
  document.title = me ? t("{name}'s coins", { name: me.name }) : t("My coins · Question Block bank");
}

// -- what is shown ----------------------------------------------------------------------------

function mine() { return state && me ? state.players.find((p) => p.id === me.player) : null; }
function nameOf(party) {
  if (party === "bank") return t("the Bank");
  const p = state && state.players.find((q) => q.id === party);
  return p ? p.name : t("someone");
}
// What this phone's payments are keyed on: the table as the page saw it when the payment was
// started (the state's version; before there was one, the newest journal line).
function basis() {
  if (!state) return "none";
  if (state.version) return state.version;
  const newest = state.recent && state.recent.length ? state.recent[0].id : 0;
  return `${state.game.id}.${newest}`;
}

function whyNot(player) {
  if (!state.game.bank) return t("This game keeps no coins.");
  if (state.ended) return t("The game has ended.");
  if (player.out) return t("You are out of the game.");
  return "";
}

// At the end of a game: everyone's coins over the evening (the banker's page's chart module).
function showChart() {
  if (!state.ended && $("coin-chart").hidden) return;
  import("/static/page/chart.js").then((chart) => chart.showCoins($("coin-chart"), state))
    .catch(() => { $("coin-chart").hidden = true; });
}

function render() {
  const player = mine();
  if (!player) return;
  $("main").hidden = false;
  $("me").style.setProperty("--colour", player.colour);
  $("me-name").textContent = player.name;
  $("me-coins").textContent = String(player.balance);
  drawStale();
  const jailMode = rules && rules.modes ? rules.modes.find((m) => m.table === "jail_roll") : null;
  const fees = jailMode && jailMode.fees;
  const jail = !player.in_jail ? "" : !fees ? t("in Jail")
    : tn("in Jail ({made} of {n} tries made)", "in Jail ({made} of {n} tries made)", fees.tries,
         { made: player.jail_tries });
  $("me-note").textContent = player.out ? t("out of the game") : player.owes ? t("owes coins")
    : [jail, player.current ? t("your turn") : ""].filter(Boolean).join(" · ");
  const why = whyNot(player);
  $("why-not").textContent = why;
  $("why-not").hidden = !why;
  showChart();
  const payees = state.players.filter((p) => p.id !== player.id).map((p) => {
    const tile = document.createElement("button");
    tile.type = "button";
    tile.className = "payee" + (p.current ? " current" : "") + (p.out ? " out" : "");
    tile.style.setProperty("--colour", p.colour);
    tile.dataset.to = String(p.id);
    tile.disabled = Boolean(why) || p.out;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = p.name;
    const coins = document.createElement("span");
    coins.className = "coins";
    coins.textContent = p.out ? t("out") : tn("{n} coin", "{n} coins", p.balance);
    tile.append(name, coins);
    if (p.current && !p.out) {
      const turn = document.createElement("span");
      turn.className = "turn";
      turn.textContent = t("their turn");
      tile.append(turn);
    }
    tile.addEventListener("click", () => openPad(p.id));
    return tile;
  });
  const bank = document.createElement("button");
  bank.type = "button";
  bank.className = "payee bank";
  bank.dataset.to = "bank";
  bank.disabled = Boolean(why);
  const bankName = document.createElement("span");
  bankName.className = "name";
  bankName.textContent = t("Bank");
  const bankWords = document.createElement("span");
  bankWords.className = "coins";
  bankWords.textContent = t("pay the Bank");
  bank.append(bankName, bankWords);
  bank.addEventListener("click", () => openPad("bank"));
  $("payees").replaceChildren(...payees, bank);
  if (pad && why) closePad();
  if (pad) renderPad();
  seatSaw(player);
}

// -- paying: tap who, the coins, Pay ---------------------------------------------------------

function amount() {
  const n = Number($("amount").value);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

function openPad(to) {
  pad = { to, basis: basis(), confirmAt: null, reason: null, jailKey: false };
  payFailed("");
  $("amount").value = "";
  $("table").hidden = true;
  $("pad").hidden = false;
  document.body.classList.add("paying");
  renderPad();
  // Taller than the screen (200 % zoom): its top (whom, the amount) in view, Pay pinned below.
  const tall = $("pad").offsetHeight > window.innerHeight - 120;
  $("pad").scrollIntoView({ block: tall ? "start" : "nearest" });
}

function closePad() {
  pad = null;
  payFailed("");
  $("pad").hidden = true;
  $("table").hidden = false;
  document.body.classList.remove("paying");
  $("confirm").hidden = true;
}

function renderPad() {
  const n = amount();
  const who = pad.to === "bank" ? t("the Bank") : nameOf(pad.to);
  $("pad-title").textContent = t("Pay {name}", { name: who });
  const send = $("send");
  send.disabled = n <= 0 || n > MAX_AMOUNT;
  send.textContent = pad.confirmAt ? t("Pay anyway: {n}", { n }) : n > 0 ? t("Pay {n}", { n }) : t("Pay");
  send.classList.toggle("warn", Boolean(pad.confirmAt));
  // The rules' own payments to the Bank (a tax space): named, so a fee the Free Parking pot
  // takes goes on the pot (README, "House rules").
  $("reasons").hidden = pad.to !== "bank" || !$("reasons").children.length;
  for (const b of $("reasons").children) b.setAttribute("aria-pressed", String(b.dataset.reason === pad.reason));
  if (pad.short) {  // more than there is: before and after
    const { have, paid, after } = pad.short;
    $("confirm").textContent = tn(
      "You have {n} coin: after paying {paid} you would have {after}. Tap \"Pay anyway\" to pay it.",
      "You have {n} coins: after paying {paid} you would have {after}. Tap \"Pay anyway\" to pay it.",
      have, { paid, after });
  }
}

function setAmount(text, key = null) {
  $("amount").value = text.replace(/\D/g, "").replace(/^0+/, "").slice(0, 5);
  if (pad) { pad.jailKey = key === "jail"; pad.confirmAt = null; pad.short = null; $("confirm").hidden = true; payFailed(""); renderPad(); }
}

// The digits type the amount; from empty, 1-9 are the small amounts themselves. The quick row
// (under its words: each the whole amount at one tap) holds only what the digits can't give
// at one tap, as the banker's pad does: the larger amounts, the edition's jail fee and GO
// (a row of 1-5 above digits 1-3 did two things with the same labels).
function buildPad() {
  const quick = ((rules && rules.quick_amounts) || []).filter((q) => q.named || q.coins >= 10)
    .map((q) => [q.named ? said(q.label_said || q.label) : String(q.coins), q.coins, q.id]);
  $("quick-box").hidden = !quick.length;
  $("quick").replaceChildren(...quick.map(([label, n, id]) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "key quick-amount";
    b.textContent = label;
    b.setAttribute("aria-label", label === String(n) ? tn("{n} coin", "{n} coins", n)
      : t("{label} coins", { label }));
    b.dataset.amount = String(n);
    b.addEventListener("click", () => setAmount(String(n), id));
    return b;
  }));
  $("reasons").replaceChildren(...((rules && rules.reasons) || []).map((r) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "key reason";
    b.dataset.reason = r.id;
    b.textContent = word(r.label);
    b.title = r.quote.join(" ");
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => {
      if (!pad) return;
      pad.reason = pad.reason === r.id ? null : r.id;
      renderPad();
    });
    return b;
  }));
  const keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "C", "0", "⌫"];
  $("keys").replaceChildren(...keys.map((k) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "key digit";
    b.textContent = k;
    b.setAttribute("aria-label", k === "C" ? t("Clear") : k === "⌫" ? t("Delete") : k);
    b.addEventListener("click", () => {
      const now = $("amount").value;
      setAmount(k === "C" ? "" : k === "⌫" ? now.slice(0, -1) : now + k);
    });
    return b;
  }));
}

async function send() {
  const player = mine();
  const n = amount();
  if (!pad || !player || n <= 0) return;
  const after = player.balance - n;
  if (n > player.balance && !pad.confirmAt) {  // more than there is: say so, before and after
    pad.confirmAt = Date.now() + CONFIRM_ARM_MS;
    pad.short = { have: player.balance, paid: n, after };
    $("confirm").hidden = false;
    renderPad();
    return;
  }
  if (pad.confirmAt && Date.now() < pad.confirmAt) return;  // the second tap of a double tap
  const { to, basis: seen, reason } = pad;
  // The "Jail" key, to the Bank, from Jail: the jail fee itself (out of Jail; on the Free
  // Parking pot while that house rule is on), as the banker's "Pay 5 to leave".
  const fee = rules && rules.jail_fee;
  const jail = pad.jailKey && to === "bank" && player.in_jail && Boolean(fee) && n === fee.value;
  const body = jail ? { player: me.player } : { from: me.player, to, amount: n, ...(reason ? { reason } : {}) };
  const button = $("send");
  button.disabled = true;
  try {
    const reply = await fetch(jail ? "/api/jail" : "/api/transfers", {
      method: "POST",
      headers: { ...authHeaders(), "Content-Type": "application/json",
                 // One intent writes once: what it does and the table it was made from.
                 "Idempotency-Key": jail ? `jail:${seen}:${me.player}` : `pay:${seen}:${me.player}:${to}:${n}:${reason || ""}` },
      body: JSON.stringify(body),
    });
    const answer = await reply.json().catch(() => ({}));
    if (reply.status === 401) {  // off, or the bank could not check it just now: ask
      if (await whoami()) toast(t("the bank could not check this link just now: try again"));
      return;
    }
    if (!reply.ok) {
      payFailed(said(answer.error_said || answer.error) || t("refused ({status})", { status: reply.status }));
      return;
    }
    closePad();
    $("flash").hidden = true;  // the news before this payment is old now
    toast(answer.capped ? said(answer.message_said || answer.message) || t("Paid {amount}", { amount: answer.amount })
      : answer.space ? t("Paid {amount} onto {space}", { amount: answer.amount, space: word(answer.space) })
        : t("Paid {name} {amount}", { name: to === "bank" ? t("the Bank") : nameOf(to), amount: answer.amount }), true);
    $("me").focus();  // the keyboard's focus: the balance just paid from, never the page's body
  } catch (err) {
    linkLost();
    payFailed(t("No answer: this payment may not have gone through. Tap Pay again once live: it is paid once."));
  } finally {
    if (pad) renderPad();
  }
}

// A payment that failed, said in the pad where the player looks (it stays until the pad is
// closed, the amount changed or another try): never a toast over the coins that goes by itself.
function payFailed(words) {
  $("pay-failed").textContent = words;
  $("pay-failed").hidden = !words;
}

// -- coins arriving: a blip, a buzz, a flash -----------------------------------------------------

// The blip plays only when this phone's Sound is on (seat.js: off until the player turns it on).
function blip() {
  if (!audio || !soundOn()) return;
  const start = audio.currentTime + 0.01;
  const gain = audio.createGain();
  gain.connect(audio.destination);
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(0.25, start + 0.01);
  gain.gain.setValueAtTime(0.25, start + 0.08);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.45);
  const tone = audio.createOscillator();  // a coin: B5, then E6
  tone.type = "square";
  tone.frequency.setValueAtTime(988, start);
  tone.frequency.setValueAtTime(1319, start + 0.08);
  tone.connect(gain);
  tone.start(start);
  tone.stop(start + 0.5);
}

function coinsArrived(news) {
  const el = $("flash");
  const back = news.kind === "undo";
  el.textContent = back ? t("+{amount} back (undo)", { amount: news.amount })
    : t("+{amount} from {name}", { amount: news.amount, name: said(news.from_said || news.from) });
  el.hidden = false;
  el.classList.remove("fresh");
  void el.offsetWidth;  // restart the animation
  el.classList.add("fresh");
  clearTimeout(coinsArrived.timer);
  coinsArrived.timer = setTimeout(() => { el.hidden = true; }, 4000);
  $("me-coins").textContent = String(news.balance);
  try { blip(); } catch (err) { /* no sound: the flash still shows */ }
  if (navigator.vibrate) navigator.vibrate([70, 50, 70]);
}

// -- the live feed ----------------------------------------------------------------------------

// The banker's page's honesty (link-status.js): "live" only from a fresh state until a request
// gets no answer or the browser goes offline; meanwhile the coins shown are marked as the last
// known ones.
function setLink(on) {
  live = on;
  linkWords = () => linkStatus(on);
  $("link").textContent = linkWords();
  $("link").className = "status " + (on ? "live" : "offline");
  drawStale();
}

function drawStale() {
  $("me").classList.toggle("stale", !live);
  $("main").classList.toggle("stale", !live);
  $("me-stale").hidden = live;
}

function reconnectIn(ms) {
  clearTimeout(again);
  again = setTimeout(() => {
    again = null;
    whoami().then((on) => { if (on) connect(); }).catch(connect);
  }, ms);
}

// No answer (a request failed, the heartbeat stopped, the browser went offline): not live at
// once, the socket let go without waiting for its close (a dead one can take minutes), and a
// new one tried.
function linkLost() {
  if (stopped) return;
  setLink(false);
  if (socket) {
    socket.onopen = socket.onmessage = socket.onclose = null;
    try { socket.close(); } catch (err) { /* closed already */ }
    socket = null;
  }
  reconnectIn(retryMs);
  retryMs = Math.min(retryMs * 2, 5000);
}

function connect() {
  if (stopped) return;
  clearTimeout(again);
  again = null;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // A browser can't set headers on a WebSocket: the token rides in the query (never logged).
  socket = new WebSocket(`${scheme}://${location.host}/ws?token=${encodeURIComponent(token())}`);
  socket.onopen = () => { lastHeard = Date.now(); };
  socket.onmessage = (msg) => {
    lastHeard = Date.now();
    const data = JSON.parse(msg.data);
    if (data.type === "state") {
      state = data.state;
      if (!live) { retryMs = 500; setLink(true); }  // the fresh state: live again
      if (!mine()) { whoami().catch(() => {}); return; }  // a new game: is the link still on?
      render();
    }
    if (data.type === "coins") coinsArrived(data);
    if (data.type === "my_outcome") outcomeArrived(data);
    // Turned off (or replaced) by the banker; or, with its words, a link of an earlier game.
    if (data.type === "revoked") {
      turnedOff(data.error_said || data.error ? () => said(data.error_said || data.error) : TURNED_OFF);
    }
  };
  socket.onclose = () => {
    if (stopped) return;
    socket = null;
    setLink(false);
    reconnectIn(retryMs);
    retryMs = Math.min(retryMs * 2, 5000);
  };
}

setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > STALE_MS) linkLost();
}, 5000);
window.addEventListener("offline", linkLost);
window.addEventListener("online", () => {
  if (stopped || (socket && socket.readyState <= WebSocket.OPEN)) return;
  retryMs = 500;
  reconnectIn(0);
});

async function start() {
  if (!token()) {
    turnedOff(() => t("This page needs your link: scan your QR code on the banker's page."));
    return;
  }
  try {
    if (!(await whoami())) return;
  } catch (err) {
    setLink(false);
    setTimeout(start, retryMs);
    retryMs = Math.min(retryMs * 2, 5000);
    return;
  }
  rules = await fetch("/api/rules").then((r) => r.json()).catch(() => null);
  buildPad();
  connect();
}

$("cancel").addEventListener("click", closePad);
$("send").addEventListener("click", send);
$("amount").addEventListener("input", () => setAmount($("amount").value));
$("amount").addEventListener("keydown", (e) => { if (e.key === "Enter") send(); });
// Another language picked (or the table's arrived): everything shown, said again in it.
onLanguage(() => {
  drawTitle();
  $("link").textContent = linkWords();
  if (offWords) $("off").textContent = offWords();
  if ($("keys").children.length) buildPad();  // built once the rules were asked for
  if (state && mine()) render();
  seatLanguage();
});
setUpSeat();
drawTitle();
$("link").textContent = linkWords();
start();
