// A player's own phone: their coins big, the table small, and paying from their own coins only
// (tap who you pay, the coins, Pay). The link's token is scoped to this one player: the server
// refuses anything else (403), and a link the banker turned off is a 401.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "companion-player-token";  // not the banker's table token
const STALE_MS = 25000;  // the server says something at least every 10 s
const MAX_AMOUNT = 10000;
const CONFIRM_ARM_MS = 450;  // a double tap can't confirm a payment larger than the balance
const TURNED_OFF = "This link was turned off by the banker. Ask the banker for a new one.";

let state = null;   // the table, as the WebSocket last said
let me = null;      // {player, name, colour}
let rules = null;   // GET /api/rules
let socket = null;
let retryMs = 500;
let lastHeard = 0;
let stopped = false;
let pad = null;     // {to, basis, confirmAt}: the payment being made

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

function turnedOff(message) {
  stopped = true;
  $("off").textContent = message;
  $("off").hidden = false;
  $("main").hidden = true;
  $("toast").hidden = true;
  $("link").textContent = "off";
  $("link").className = "status offline";
  if (socket) { socket.onclose = null; socket.close(); }
}

function authHeaders() { return { "Authorization": "Bearer " + token() }; }

async function whoami() {
  const reply = await fetch("/api/players/me", { headers: authHeaders() });
  if (reply.status === 401) { turnedOff(TURNED_OFF); return false; }
  if (!reply.ok) throw new Error("the companion did not answer");
  me = await reply.json();
  $("title").textContent = me.name;
  document.title = `${me.name}'s coins`;
  return true;
}

// -- what is shown ----------------------------------------------------------------------------

function mine() { return state && me ? state.players.find((p) => p.id === me.player) : null; }
function nameOf(party) {
  if (party === "bank") return "the Bank";
  const p = state && state.players.find((q) => q.id === party);
  return p ? p.name : "someone";
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
  if (!state.game.bank) return "This game keeps no coins.";
  if (state.ended) return "The game has ended.";
  if (player.out) return "You are out of the game.";
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
  const tries = jailMode && jailMode.fees ? ` (${player.jail_tries} of ${jailMode.fees.tries} tries made)` : "";
  const jail = player.in_jail ? `in Jail${tries}` : "";
  $("me-note").textContent = player.out ? "out of the game" : player.owes ? "owes coins"
    : [jail, player.current ? "your turn" : ""].filter(Boolean).join(" · ");
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
    coins.textContent = p.out ? "out" : `${p.balance} coins`;
    tile.append(name, coins);
    if (p.current && !p.out) {
      const turn = document.createElement("span");
      turn.className = "turn";
      turn.textContent = "their turn";
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
  bank.innerHTML = '<span class="name">Bank</span><span class="coins">pay the Bank</span>';
  bank.addEventListener("click", () => openPad("bank"));
  $("payees").replaceChildren(...payees, bank);
  if (pad && why) closePad();
  if (pad) renderPad();
  renderLately(player);
}

function renderLately(player) {
  const lines = (state.recent || []).filter((l) => l.from === player.id || l.to === player.id);
  $("lately").replaceChildren(...lines.map((l) => {
    const li = document.createElement("li");
    if (l.undone_by) li.className = "undone";
    const text = document.createElement("span");
    const coming = l.to === player.id;
    text.textContent = coming ? `from ${nameOf(l.from)}` : `to ${nameOf(l.to)}`;
    if (l.note) text.textContent += ` · ${l.note}`;
    const amount = document.createElement("span");
    amount.className = "amt " + (coming ? "in" : "out");
    amount.textContent = (coming ? "+" : "−") + l.amount;
    li.append(text, amount);
    return li;
  }));
  if (!lines.length) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "Nothing yet.";
    $("lately").replaceChildren(li);
  }
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
  $("pad").scrollIntoView({ block: "nearest" });
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
  const who = pad.to === "bank" ? "the Bank" : nameOf(pad.to);
  $("pad-title").textContent = `Pay ${who}`;
  const send = $("send");
  send.disabled = n <= 0 || n > MAX_AMOUNT;
  send.textContent = pad.confirmAt ? `Pay anyway: ${n}` : n > 0 ? `Pay ${n}` : "Pay";
  send.classList.toggle("warn", Boolean(pad.confirmAt));
}

function setAmount(text) {
  $("amount").value = text.replace(/\D/g, "").replace(/^0+/, "").slice(0, 5);
  if (pad) { pad.confirmAt = null; $("confirm").hidden = true; renderPad(); }
}

function buildPad() {
  const quick = ((rules && rules.quick_amounts) || []).map((q) => [q.label, q.coins]);
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
    b.setAttribute("aria-label", k === "C" ? "Clear" : k === "⌫" ? "Delete" : k);
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
    $("confirm").textContent = `You have ${player.balance} coins: after paying ${n} you would ` +
      `have ${after}. Tap "Pay anyway" to pay it.`;
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
      if (await whoami()) toast("the bank could not check this link just now: try again");
      return;
    }
    if (!reply.ok) { toast(body.error || `refused (${reply.status})`); return; }
    closePad();
    $("flash").hidden = true;  // the news before this payment is old now
    toast(body.capped ? body.message || `Paid ${body.amount}` :
      `Paid ${to === "bank" ? "the Bank" : nameOf(to)} ${body.amount}`, true);
  } catch (err) {
    toast("no answer from the companion: check the Wi-Fi and try again");
  } finally {
    if (pad) renderPad();
  }
}

// -- coins arriving: a blip, a buzz, a flash -----------------------------------------------------

let audio = null;
function unlockAudio() {  // browsers allow sound only after a tap on the page
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!audio && Context) audio = new Context();
  if (audio && audio.state === "suspended") audio.resume().catch(() => {});
}
document.addEventListener("pointerdown", unlockAudio);

function blip() {
  if (!audio) return;
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
  el.textContent = back ? `+${news.amount} back (undo)` : `+${news.amount} from ${news.from}`;
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
  $("link").textContent = live ? "live" : "reconnecting…";
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
    if (data.type === "revoked") turnedOff(TURNED_OFF);
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
    turnedOff("This page needs your link: scan your QR code on the banker's page.");
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
start();
