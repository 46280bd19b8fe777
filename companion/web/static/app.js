// The bank on a tablet: live state over a WebSocket, writes through the JSON API.
"use strict";

const TOKEN_KEY = "companion-table-token";
const $ = (id) => document.getElementById(id);
let state = null;
let socket = null;
let retryMs = 500;
let lastOutcomeId = null;
let lastHeard = 0;
let gameId = null;
const chosenFor = new Map();  // outcome id -> the player picked in "Give"
const STALE_MS = 25000;  // the server says something at least every 10 s

// The table token arrives once in the link (#token=...), then lives in this browser.
(function takeToken() {
  const match = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    localStorage.setItem(TOKEN_KEY, match[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
})();

function token() { return localStorage.getItem(TOKEN_KEY) || ""; }

function toast(message) {
  const el = $("toast");
  el.textContent = message;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; }, 4000);
}

async function api(method, path, body) {
  const headers = { "Authorization": "Bearer " + token() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["Idempotency-Key"] = crypto.randomUUID ? crypto.randomUUID() : String(Math.random());
  let reply;
  try {
    reply = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    toast("The companion is not reachable. Is the Wi-Fi on?");
    throw err;
  }
  const data = await reply.json().catch(() => ({}));
  if (reply.ok) $("notice").hidden = true;
  if (!reply.ok) {
    if (reply.status === 401) showNotice("This page has no table token: open the link from the companion's screen (QR code).");
    toast(data.error || ("Error " + reply.status));
    throw new Error(data.error || reply.status);
  }
  return data;
}

function showNotice(text) {
  const el = $("notice");
  el.textContent = text;
  el.hidden = false;
}

function nameOf(id) {
  if (id === "bank" || id === null) return "Bank";
  const p = state && state.players.find((x) => x.id === id);
  return p ? p.name : "player " + id;
}

function outcomeText(o) {
  const who = o.player === null ? "Someone" : nameOf(o.player);
  if (state && !state.game.question_block && o.kind !== "power_up") {
    const what = { coins: `${o.coins} coin ping${o.coins === 1 ? "" : "s"}`, bowser: "Bowser's laugh",
                   game_over: "Game Over tune" }[o.kind];
    return `${what} (${who}: no coins in this edition)`;
  }
  if (o.kind === "coins") return `${who} +${o.coins} coin${o.coins === 1 ? "" : "s"}`;
  if (o.kind === "bowser") return `Bowser! ${who} pays 5`;
  if (o.kind === "game_over") return `Game Over! ${who} pays 10`;
  return `Power-up! ${who} rolls and moves again`;
}

function renderOutcome() {
  const el = $("outcome");
  const o = state.last_outcome;
  if (!o) { el.className = "outcome coins-only"; el.innerHTML = '<span class="muted">Press the block!</span>'; return; }
  el.textContent = outcomeText(o) + (o.player === null ? " (waiting for a player)" : "");
  el.className = "outcome coins-only " + o.kind;
  if (o.id !== lastOutcomeId) {
    void el.offsetWidth;  // restart the animation
    el.classList.add("fresh");
    lastOutcomeId = o.id;
  }
}

function renderPlayers() {
  const box = $("players");
  box.replaceChildren(...state.players.map((p) => {
    const tile = document.createElement("button");
    tile.className = "tile" + (p.current ? " current" : "");
    tile.style.setProperty("--colour", p.colour);
    tile.dataset.player = p.id;
    tile.setAttribute("aria-pressed", p.current ? "true" : "false");
    tile.innerHTML = '<span class="name"></span><span class="coins"></span><span class="owe"></span><div class="turn"></div>';
    tile.querySelector(".name").textContent = p.name;
    tile.querySelector(".coins").textContent = p.balance;
    if (p.owes) tile.querySelector(".owe").innerHTML = '<span class="owes">owes</span>';
    tile.querySelector(".turn").textContent = p.current ? "current player" : "tap: make current";
    tile.addEventListener("click", () => api("POST", "/api/current", { player: p.id }).catch(() => {}));
    return tile;
  }));
}

function fillSelect(select, withBank, preferred) {
  const keep = select.dataset.chosen ? select.value : preferred;
  const options = state.players.map((p) => new Option(p.name, String(p.id)));
  if (withBank) options.unshift(new Option("Bank", "bank"));
  select.replaceChildren(...options);
  if (keep !== undefined && [...select.options].some((o) => o.value === String(keep))) {
    select.value = String(keep);
  }
}

function renderWaiting() {
  const list = $("waiting");
  $("unassigned").hidden = state.unassigned.length === 0;
  list.replaceChildren(...state.unassigned.map((o) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = outcomeText({ ...o, player: null }).replace("Someone", "?");
    const pick = document.createElement("select");
    fillSelect(pick, false, chosenFor.has(o.id) ? chosenFor.get(o.id) : state.current_player ?? undefined);
    pick.addEventListener("change", () => chosenFor.set(o.id, Number(pick.value)));
    const give = document.createElement("button");
    give.className = "big";
    give.textContent = "Give";
    give.addEventListener("click", () => busy(give, api("POST", "/api/assign", { outcome: o.id, player: Number(pick.value) })));
    li.append(label, pick, give);
    return li;
  }));
}

async function renderHistory() {
  const data = await fetch("/api/journal?game=" + state.game.id).then((r) => r.json());
  const items = data.entries.slice(-40).reverse().map((e) => {
    const li = document.createElement("li");
    if (e.undone_by !== null) li.className = "undone";
    const what = document.createElement("span");
    what.textContent = `${nameOf(e.from)} → ${nameOf(e.to)}` + (e.note ? ` · ${e.note}` : "");
    const amt = document.createElement("span");
    amt.className = "amt";
    amt.textContent = String(e.amount);
    amt.title = "coins";
    li.append(what, amt);
    return li;
  });
  $("history").replaceChildren(...items);
}

// The lever timer: the server says how long is left; the page counts down by itself.
let timer = null;
let timerDeadline = 0;
let timeUpUntil = 0;
const LAST_SECONDS = 5;

function setTimer(t, what) {
  timer = t;
  timerDeadline = performance.now() + (t ? t.remaining * 1000 : 0);
  if (what === "time_up") timeUpUntil = performance.now() + 4000;
  if (what === "started") timeUpUntil = 0;
  const seconds = $("timer-seconds");
  if (t && !seconds.dataset.chosen) seconds.value = t.seconds;
  drawTimer();
}

function drawTimer() {
  const box = $("timer");
  const now = performance.now();
  const running = Boolean(timer && timer.running);
  const left = running ? Math.max(0, (timerDeadline - now) / 1000) : 0;
  const up = !running && now < timeUpUntil;
  box.classList.toggle("running", running);
  box.classList.toggle("urgent", running && left <= LAST_SECONDS);
  box.classList.toggle("up", up);
  $("timer-left").textContent = running ? String(Math.ceil(left))
    : up ? "0" : timer ? String(Math.round(timer.seconds)) : "–";
  box.classList.toggle("idle", !running && !up);
  $("timer-what").textContent = running ? (timer.label || "Time is running")
    : up ? "Time's up!" : timer && timer.lever ? "Lever timer: pull the lever back and let go"
    : "Timer: start it here";
  $("timer-fill").style.width = running && timer.duration
    ? `${Math.min(100, (100 * left) / timer.duration)}%` : "0%";
  $("timer-stop").disabled = !running;
}
setInterval(drawTimer, 100);

// Cards: taps on the reader, new cards to give to a player (or an action), one step each.
const cardChoice = new Map();  // uid -> what was picked under "New cards"
const CARD_ACTIONS = { next_player: "Next player", pass_go: "Pass GO", press: "Press the block",
                       timer: "Start/stop the timer", undo: "Undo" };

async function loadActivity() {
  const data = await fetch("/api/activity").then((r) => r.json());
  const reader = data.reader;
  $("reader-status").textContent = !reader ? "· no reader configured"
    : `· ${reader.protocol} on ${reader.port}: ${reader.connected ? "connected" : "not connected"}`;
  // Tables without a reader never see this section; with one, it shows taps and the link.
  $("taps").hidden = data.activity.length === 0 && !(reader && reader.connected);
  $("activity").replaceChildren(...data.activity.slice(0, 12).map((a) => {
    const li = document.createElement("li");
    const what = document.createElement("span");
    what.textContent = a.did;
    const uid = document.createElement("span");
    uid.className = "uid";
    uid.textContent = a.uid;
    li.append(what, uid);
    return li;
  }));
  $("newcards").hidden = data.new_cards.length === 0 || !state;
  if (!state) return;
  $("newcard-list").replaceChildren(...data.new_cards.map((uid) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.className = "uid";
    label.textContent = uid;
    const pick = document.createElement("select");
    pick.setAttribute("aria-label", "What this card does");
    pick.append(...state.players.map((p) => new Option(p.name, "p" + p.id)));
    for (const [key, text] of Object.entries(CARD_ACTIONS)) pick.append(new Option(text, "a" + key));
    // Another tap rebuilds this list: keep what was picked for this card.
    if (cardChoice.has(uid) && [...pick.options].some((o) => o.value === cardChoice.get(uid))) {
      pick.value = cardChoice.get(uid);
    }
    pick.addEventListener("change", () => cardChoice.set(uid, pick.value));
    const give = document.createElement("button");
    give.className = "big";
    give.textContent = "Assign";
    give.addEventListener("click", () => {
      const v = pick.value;
      const body = v[0] === "p" ? { uid, player: Number(v.slice(1)) } : { uid, action: v.slice(1) };
      busy(give, api("POST", "/api/cards", body).then(() => loadActivity()));
    });
    li.append(label, pick, give);
    return li;
  }));
}

function render() {
  if (state.game.id !== gameId) {  // a new game: forget choices made for the old one
    gameId = state.game.id;
    chosenFor.clear();
    for (const id of ["pay-from", "pay-to"]) delete $(id).dataset.chosen;
  }
  $("edition").textContent = "· " + state.game.name;
  document.body.classList.toggle("no-bank", state.game.bank === false);
  if (state.timer) setTimer(state.timer);
  renderOutcome();
  renderPlayers();
  // Until someone picks: the current player pays the Bank (the most common payment).
  fillSelect($("pay-from"), true, state.current_player === null ? "bank" : state.current_player);
  fillSelect($("pay-to"), true, "bank");
  renderWaiting();
  renderHistory().catch(() => {});
}

function setLink(live) {
  const el = $("link");
  el.textContent = live ? "live" : "reconnecting…";
  el.className = "status " + (live ? "live" : "offline");
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => { retryMs = 500; lastHeard = Date.now(); setLink(true); };
  socket.onmessage = (msg) => {
    lastHeard = Date.now();
    const data = JSON.parse(msg.data);
    if (data.type === "state") { state = data.state; render(); }
    if (data.type === "timer") setTimer(data.timer, data.what);
    if (data.type === "activity" || (data.type === "state" && data.action === "hello")) {
      loadActivity().catch(() => {});
    }
  };
  socket.onclose = () => {
    setLink(false);
    setTimeout(connect, retryMs);  // the server sends the full state again on reconnect
    retryMs = Math.min(retryMs * 2, 5000);
  };
}

async function loadEditions() {
  const data = await fetch("/api/editions").then((r) => r.json());
  $("ng-edition").replaceChildren(...data.editions.map((e) => new Option(e.name, e.id)));
  const names = $("ng-names");
  const defaults = ["Mario", "Luigi", "Peach", "Yoshi", "", ""];
  names.replaceChildren(...defaults.map((n, i) => {
    const input = document.createElement("input");
    input.placeholder = `Player ${i + 1}` + (i >= 2 ? " (optional)" : "");
    input.value = n;
    input.maxLength = 24;
    input.setAttribute("aria-label", `Player ${i + 1}`);
    return input;
  }));
}

// A dead connection can look open for minutes (Wi-Fi gone): if the server's heartbeat stops,
// drop the socket and reconnect; also retry at once when the tablet wakes or the network returns.
setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > STALE_MS) socket.close();
}, 5000);
function reconnectNow() {
  if (socket && socket.readyState !== WebSocket.OPEN && socket.readyState !== WebSocket.CONNECTING) {
    socket.onclose = null;
    connect();
  }
}
window.addEventListener("online", reconnectNow);
document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });

// One tap, one write: a button stays disabled until its request has an answer.
function busy(button, promise) {
  button.disabled = true;
  return promise.catch(() => {}).finally(() => { button.disabled = false; });
}

$("press").addEventListener("click", () => busy($("press"), api("POST", "/api/press")));
$("undo").addEventListener("click", () => busy($("undo"), api("POST", "/api/undo")));
$("next").addEventListener("click", () => busy($("next"), api("POST", "/api/next")));
$("go").addEventListener("click", () => {
  if (!state || state.current_player === null) { toast("Tap a player first."); return; }
  busy($("go"), api("POST", "/api/go", { player: state.current_player }));
});
$("timer-seconds").addEventListener("change", () => { $("timer-seconds").dataset.chosen = "1"; });
$("timer-start").addEventListener("click", () => {
  const seconds = Number($("timer-seconds").value);
  const body = seconds >= 1 ? { seconds } : {};
  busy($("timer-start"), api("POST", "/api/timer/start", body).then((r) => setTimer(r.timer, "started")));
});
$("timer-stop").addEventListener("click", () => busy($("timer-stop"), api("POST", "/api/timer/stop")
  .then((r) => setTimer(r.timer, "stopped"))));
for (const id of ["pay-from", "pay-to"]) {
  $(id).addEventListener("change", () => { $(id).dataset.chosen = "1"; });
}
$("pay").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const side = (v) => (v === "bank" ? "bank" : Number(v));
  const button = ev.target.querySelector("button");
  busy(button, api("POST", "/api/transfers", {
    from: side($("pay-from").value), to: side($("pay-to").value),
    amount: Number($("pay-amount").value), note: $("pay-note").value,
  }).then(() => { $("pay-note").value = ""; }));
});
$("newgame").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const players = [...$("ng-names").querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean);
  api("POST", "/api/games", { edition: $("ng-edition").value, players })
    .then(() => { ev.target.closest("details").open = false; }).catch(() => {});
});

loadEditions().catch(() => {});
connect();
