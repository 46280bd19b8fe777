// The bank on a tablet or phone: live state over a WebSocket, writes through the JSON API.
// Every amount, rule and word about the game comes from the server (the edition's ruleset):
// none is written here.
//
// The page's entry point (a module; index.html loads the shared classic scripts i18n.js, prefs.js,
// link-token.js, link-status.js and keeper.js first): the connection, the render pass over every part, another
// language, and the start.

/* globals linkStatus, onLanguage, t, tn, word */
import { $, onRedraw, setSocket, setState, socket, state, token, watching } from "./store.js";
import { rules, setRules } from "./rules.js";
import { heard, player, title } from "./words.js";
import { clearError, snack, snackSaidTurn } from "./messages.js";
import { onLinkNews, sendUnanswered } from "./net.js";
import { keepHeld } from "./keeping.js";
import { renderUnsent } from "./unsent.js";
import { keepTable, lastTable, markLastTable } from "./lasttable.js";
import { forgetRoll } from "./dice.js";
import { forgetOutcome, pulse, renderOutcome, setLastPress, soundMs } from "./outcome.js";
import { laterFor, pay, renderKeys, renderPad, resetPay } from "./pad.js";
import { chosenFor, lastBalance, renderPlayers, renderWaiting } from "./table.js";
import { pointsDraft, renderBankrupt, renderScores, renderWinner } from "./scores.js";
import { renderCoinsBoard } from "./editions/board.js";
import { charDraft, forgetChars, renderCharacters } from "./editions/powers.js";
import { forgetContest, raceTicks, renderContest } from "./editions/contest.js";
import { forgetLanding, renderRing } from "./editions/ring.js";
import { renderModes, renderRules } from "./edition.js";
import { forgetHistory, renderHistory } from "./history.js";
import { renderRequests } from "./requests.js";
import { renderJoined, sawPhones } from "./joined.js";
import { drawTimer, setTimer } from "./timer.js";
import { loadActivity } from "./cards.js";
import { renderSetup } from "./setup.js";
import { renderMenu } from "./menu.js";
import { renderPot } from "./pot.js";
import { keepAwake, setAwake } from "./awake.js";
import { renderControls } from "./controls.js";
import { showEnd } from "./ending.js";
import "./phones.js";
import "./editions/ring_describe.js";

let retryMs = 500;  // the socket's own reconnects: slower each time, until its fresh state
let lostMs = 500;  // reconnects after a write got no answer: slower each time, until one is answered
let retry = null;  // the next connect's timer
let fresh = false;  // this socket has sent the table (its first state): the connection is back
let lastHeard = 0;
let gameId = null;
let lastShown = false;  // the table shown is the one kept from before a reload (lasttable.js)
const STALE_MS = 25000;  // the server says something at least every 10 s

// The role: a page without the table token only watches (store.js).
function renderRole() {
  const watch = watching();
  document.body.classList.toggle("watching", watch);
  $("role").hidden = !watch;
  $("watching").hidden = !watch;
  if (watch) resetPay();
}

// A write that was answered only when sent again: it went through once (the server replayed
// it, or it had not arrived before). A payment's pad is done with.
// (``words``: what it was, when kept from before a reload.)
function wentThrough(action, words) {
  if (action === "pay") {
    resetPay();
    renderPad();
    snack(words ? t("That payment went through (once): {text}", { text: words })
      : t("That payment went through (once)."));
  } else {
    snack(t("That went through (once)."));
  }
}

// A turn passed by anything but a tap that says so itself (a roll missed from Jail, time-up,
// another device, the API): the page says whose turn it is now, unless its snack already does.
function turnPassed(before, action) {
  if (before === undefined || !state || state.ended || action === "hello") return;
  const now = state.current_player;
  if (now === before || now === null) return;
  const words = state.game.simultaneous ? t("{name} slides the lever", { name: title(now) })
    : t("{name}'s turn", { name: title(now) });
  if (snackSaidTurn() || (!$("toast").hidden && $("toast-text").textContent.includes(words))) return;
  snack(words);
}

// -- putting it together ------------------------------------------------------------------------

async function loadRules() {
  setRules(await fetch("/api/rules").then((r) => r.json()));
  renderRules();
}

let shownCurrent;  // the current player as last drawn (undefined: nothing drawn yet)

function renderPage() {
  if (state.game.id !== gameId) {  // a new game: forget choices made for the old one
    gameId = state.game.id;
    chosenFor.clear();
    laterFor.clear();
    charDraft.clear();
    raceTicks.clear();
    pointsDraft.clear();
    lastBalance.clear();
    forgetOutcome();
    forgetLanding();
    for (const id of ["rent-payer", "rent-owner", "bankrupt-player", "bankrupt-creditor"]) {
      delete $(id).dataset.chosen;
    }
    $("rent").hidden = true;
    pay.from = pay.to = null;
    pay.digits = "";
    loadRules().then(renderPage).catch(() => {});
  }
  // Next (from any page) starts the next turn with an empty payment.
  if (shownCurrent !== undefined && shownCurrent !== state.current_player) resetPay();
  shownCurrent = state.current_player;
  for (const side of [pay.from, pay.to]) {  // a payer or payee who went out: start over
    if (side !== null && side !== "bank" && !(player(side) && !player(side).out)) { pay.from = pay.to = null; pay.digits = ""; }
  }
  $("edition").textContent = "· " + word(state.game.name);
  document.body.classList.toggle("no-bank", state.game.bank === false);
  document.body.classList.toggle("ended", state.ended);
  renderRole();
  $("at-once").checked = Boolean(state.game.simultaneous);
  if (rules && rules.worm_deck) {  // the dealt variant: an even share of the deck each
    const each = Math.floor(rules.worm_deck.value / Math.max(1, state.players.length));
    $("dealt").checked = Boolean(state.game.dealt);
    $("dealt").disabled = state.players.some((p) => p.worms);
    $("dealt-words").textContent = tn("Cards dealt out: {n} worm each", "Cards dealt out: {n} worms each", each);
  }
  if (state.timer) setTimer(state.timer);
  renderStorage(state.storage);
  keepHeld(state.storage);
  renderWinner();
  renderOutcome();
  renderPlayers();
  renderWaiting();
  renderModes();
  renderBankrupt();
  renderCoinsBoard();
  renderPot();
  if (rules) renderScores();
  if (rules) { renderCharacters(); renderContest(); renderRing(); }
  renderControls();
  renderRequests();
  renderJoined();
  renderHistory().catch(() => {});
  keepAwake();
  renderSetup();
  renderMenu();
  showEnd();  // last: the page as it is now drawn
}

// The bank is not saving (a full SD card, a read-only folder): said at the top until it is.
function renderStorage(storage) {
  const el = $("storage");
  const text = storage && storage.warning ? heard(storage, "warning") : "";
  el.textContent = text || "";
  el.hidden = !text;
}

let linkLive = null;  // the link as last drawn (drawn again in another language); null: connecting
function setLink(live) {
  const el = $("link");
  linkLive = live;
  // Without a network (the page came from the service worker's cache) it says so (link-status.js).
  el.textContent = linkStatus(live);
  el.className = "status " + (live ? "live" : "offline");
}

function connectIn(ms) {
  clearTimeout(retry);
  retry = setTimeout(() => { retry = null; connect(); }, ms);
}

// The socket let go without a word (a dead connection's close could take minutes).
function drop() {
  if (!socket) return;
  socket.onopen = socket.onmessage = socket.onclose = null;
  try { socket.close(); } catch (err) { /* closed already */ }
  fresh = false;
}

// The connection is back when the socket's fresh state arrives: live, the error bar's words
// about the connection gone (an error about anything else stays), unanswered writes sent again.
function linkBack() {
  fresh = true;
  if (lastShown) { lastShown = false; markLastTable(false); }
  retryMs = 500;
  setLink(true);
  clearError("connection");
  sendUnanswered(wentThrough);
  fetch("/healthz").then((r) => r.json()).then((h) => renderStorage(h.storage)).catch(() => {});
}

// A request got no answer: the page says at once that it is not live, and reconnects (the
// socket may look open for many seconds after the Wi-Fi went). An answer resets the wait.
function linkNews(answered) {
  if (answered) {  // the companion is there: a reconnect that waits need wait no longer
    lostMs = 500;
    if (!fresh && retry !== null) connect();
    return;
  }
  setLink(false);
  if (retry !== null || (socket && socket.readyState === WebSocket.CONNECTING)) return;  // on its way
  drop();
  connectIn(lostMs);
  lostMs = Math.min(lostMs * 2, 5000);
}
onLinkNews(linkNews);

function connect() {
  clearTimeout(retry);
  retry = null;
  fresh = false;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // A browser can't set headers on a WebSocket: the token rides in the query (never logged).
  const key = token() ? "?token=" + encodeURIComponent(token()) : "";
  setSocket(new WebSocket(`${scheme}://${location.host}/ws${key}`));
  socket.onopen = () => { lastHeard = Date.now(); };
  socket.onmessage = (msg) => {
    lastHeard = Date.now();
    const data = JSON.parse(msg.data);
    if (data.type === "state") {
      const before = state && !lastShown ? state.current_player : undefined;
      setState(data.state);
      sawPhones(data.action);
      keepTable(data.state);
      renderPage();
      turnPassed(before, data.action);
      if (!fresh) linkBack();
    }
    if (data.type === "timer") setTimer(data.timer, data.what);
    if (data.type === "outcome") { setLastPress(data); pulse(soundMs(data)); }
    if (data.type === "storage") {
      renderStorage(data.storage);
      keepHeld(data.storage);
      if (state) { state.storage = data.storage; renderOutcome(); }
    }
    if (data.type === "activity" || (data.type === "state" && data.action === "hello")) {
      loadActivity().catch(() => {});
    }
  };
  socket.onclose = () => {
    fresh = false;
    setLink(false);
    showLastTable();
    connectIn(retryMs);  // the server sends the full state again on reconnect
    retryMs = Math.min(retryMs * 2, 5000);
  };
}

// No table yet and no connection (a reload without the network): the table as last heard,
// said to be so, rather than an empty page.
function showLastTable() {
  if (state) return;
  const table = lastTable();
  if (!table) return;
  lastShown = true;
  setState(table);
  markLastTable(true);
  renderPage();
}

// A dead connection can look open for minutes (Wi-Fi gone): if the server's heartbeat stops,
// drop the socket and reconnect; also retry at once when the tablet wakes or the network returns.
setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > STALE_MS) linkNews(false);
}, 5000);
function reconnectNow() {
  if (socket && (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)) return;
  drop();
  connect();
}
window.addEventListener("online", () => { if (!fresh) setLink(false); reconnectNow(); });
window.addEventListener("offline", () => { linkNews(false); showLastTable(); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });

// -- installing: the app shell kept by a service worker, so the page reloads offline -----------
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

// Another language on this device: everything drawn with words is drawn again in it (an open
// question stays as it was asked: the page behind it, and so the language menu, is inert).
onLanguage(() => {
  renderRole();
  renderUnsent();
  if (lastShown) markLastTable(true);
  if (rules) renderRules(); else renderKeys();
  if (linkLive !== null) setLink(linkLive);
  drawTimer();
  if (state) {
    forgetRoll();
    forgetChars();
    forgetContest();
    forgetHistory();  // the history's newest page again, in the new words
    renderPage();
    loadActivity().catch(() => {});
  }
});

// What a lower part has redrawn (store.js): the role and the whole page (net.js, on a refused
// token; table.js, on Later), the controls (net.js, when a write is answered).
onRedraw("role", renderRole);
onRedraw("page", renderPage);
onRedraw("controls", renderControls);

renderRole();
renderKeys();
renderUnsent();  // a write kept from before a reload: said at once, with or without the network
setAwake("off");
if (navigator.onLine === false) showLastTable();
connect();
