// A player's own phone: their coins big, the table small, and paying from their own coins only
// (tap who you pay, the coins, Pay); their history, outcomes and mistakes are seat.js's. The link's token is scoped to this one player: the server
// refuses anything else (403), and a link the banker turned off is a 401.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "companion-player-token";  // not the banker's table token
const STALE_MS = 25000;  // the server says something at least every 10 s
const MAX_AMOUNT = 10000;
const CONFIRM_ARM_MS = 450;  // a double tap can't confirm a payment larger than the balance
// The words of a link turned off, in the language of the moment.
const TURNED_OFF = () => t("This link was turned off by the banker. Ask the banker for a new one.");

let state = null;   // the table, as the WebSocket last said
let me = null;      // {player, name, colour}
let rules = null;   // GET /api/rules
let socket = null;
let retryMs = 500;
let lastHeard = 0;
let stopped = false;
let pad = null;     // {to, basis, confirmAt, short}: the payment being made
let linkWords = () => t("connecting…");  // the status pill's words (said again on a new language)
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

function render() {
  const player = mine();
  if (!player) return;
  $("main").hidden = false;
  $("me").style.setProperty("--colour", player.colour);
  $("me-name").textContent = player.name;
  $("me-coins").textContent = String(player.balance);
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
  pad = { to, basis: basis(), confirmAt: null };
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
  if (pad.short) {  // more than there is: before and after
    const { have, paid, after } = pad.short;
    $("confirm").textContent = tn(
      "You have {n} coin: after paying {paid} you would have {after}. Tap \"Pay anyway\" to pay it.",
      "You have {n} coins: after paying {paid} you would have {after}. Tap \"Pay anyway\" to pay it.",
      have, { paid, after });
  }
}

function setAmount(text) {
  $("amount").value = text.replace(/\D/g, "").replace(/^0+/, "").slice(0, 5);
  if (pad) { pad.confirmAt = null; pad.short = null; $("confirm").hidden = true; renderPad(); }
}

function buildPad() {
  const quick = ((rules && rules.quick_amounts) || []).map((q) => [said(q.label_said || q.label), q.coins]);
  $("quick").replaceChildren(...quick.map(([label, n]) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "key quick-amount";
    b.textContent = label;
    b.dataset.amount = String(n);
    b.addEventListener("click", () => setAmount(String(n)));
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
  const { to, basis: seen } = pad;
  const button = $("send");
  button.disabled = true;
  try {
    const reply = await fetch("/api/transfers", {
      method: "POST",
      headers: { ...authHeaders(), "Content-Type": "application/json",
                 // One intent writes once: what it does and the table it was made from.
                 "Idempotency-Key": `pay:${seen}:${me.player}:${to}:${n}` },
      body: JSON.stringify({ from: me.player, to, amount: n }),
    });
    const body = await reply.json().catch(() => ({}));
    if (reply.status === 401) {  // off, or the bank could not check it just now: ask
      if (await whoami()) toast(t("the bank could not check this link just now: try again"));
      return;
    }
    if (!reply.ok) {
      toast(said(body.error_said || body.error) || t("refused ({status})", { status: reply.status }));
      return;
    }
    closePad();
    $("flash").hidden = true;  // the news before this payment is old now
    toast(body.capped ? said(body.message_said || body.message) || t("Paid {amount}", { amount: body.amount })
      : t("Paid {name} {amount}", { name: to === "bank" ? t("the Bank") : nameOf(to), amount: body.amount }), true);
  } catch (err) {
    toast(t("no answer from the companion: check the Wi-Fi and try again"));
  } finally {
    if (pad) renderPad();
  }
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

function setLink(live) {
  linkWords = live ? () => t("live") : () => t("reconnecting…");
  $("link").textContent = linkWords();
  $("link").className = "status " + (live ? "live" : "offline");
}

function connect() {
  if (stopped) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // A browser can't set headers on a WebSocket: the token rides in the query (never logged).
  socket = new WebSocket(`${scheme}://${location.host}/ws?token=${encodeURIComponent(token())}`);
  socket.onopen = () => { retryMs = 500; lastHeard = Date.now(); setLink(true); };
  socket.onmessage = (msg) => {
    lastHeard = Date.now();
    const data = JSON.parse(msg.data);
    if (data.type === "state") {
      state = data.state;
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
    setLink(false);
    setTimeout(() => { whoami().then((on) => { if (on) connect(); }).catch(connect); }, retryMs);
    retryMs = Math.min(retryMs * 2, 5000);
  };
}

setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > STALE_MS) socket.close();
}, 5000);

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
