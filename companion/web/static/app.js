// The bank on a tablet: live state over a WebSocket, writes through the JSON API. Every amount,
// rule and word about the game comes from the server (the edition's ruleset): none is written
// here.
"use strict";

const TOKEN_KEY = "companion-table-token";
const $ = (id) => document.getElementById(id);
let state = null;
let rules = null;
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

// Reads carry the token too: card UIDs and card actions come only with it.
function authGet(path) {
  return fetch(path, { headers: token() ? { "Authorization": "Bearer " + token() } : {} });
}

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
  if (data.message) toast(data.message);  // e.g. a payment capped at what the player had
  return data;
}

// The bank is not saving (a full SD card, a read-only folder): said at the top until it is.
function renderStorage(storage) {
  const el = $("storage");
  const text = storage && storage.warning;
  el.textContent = text || "";
  el.hidden = !text;
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

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

// -- the outcome ------------------------------------------------------------------------------

function outcomeText(o) {
  const who = o.player === null ? "Someone" : nameOf(o.player);
  if (o.kind === "rent" && o.params) {
    return `${o.headline}: ${nameOf(o.params.payer)} pays ${nameOf(o.params.owner)} ${o.coins}`;
  }
  if (o.kind === "roll") return `${o.headline} (${who})`;
  return `${o.headline} ${who}: ${o.instruction}`;
}

let lastPress = null;  // the latest press as it sounded (shown while the disk holds it)

function renderOutcome() {
  const el = $("outcome");
  if (state.storage && state.storage.held && lastPress) {
    el.textContent = `${lastPress.headline} ${nameOf(state.current_player)}: ${lastPress.instruction} (not saved yet)`;
    el.className = "outcome coins-only held " + lastPress.kind;
    return;
  }
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

function renderWinner() {
  const box = $("winner");
  box.hidden = !state.ended;
  if (!state.ended) return;
  const names = state.winners.map(nameOf);
  $("winner-title").textContent = names.length === 0 ? "Game over: nobody wins"
    : names.length === 1 ? `${names[0]} wins!` : `${names.join(" & ")} share the win!`;
  $("standings").replaceChildren(...state.standings.map((s) => {
    const li = document.createElement("li");
    if (state.winners.includes(s.player)) li.className = "won";
    const who = document.createElement("span");
    who.textContent = `${s.rank}. ${nameOf(s.player)}`;
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = s.total !== null ? `${s.total} points` + (s.cards ? ` · ${plural(s.cards, "card")}` : "")
      : s.worms !== null ? plural(s.worms, "worm") : s.out ? "out" : plural(s.coins, "coin");
    li.append(who, score);
    return li;
  }));
}

// -- the players --------------------------------------------------------------------------------

function renderPlayers() {
  const box = $("players");
  const worms = state.game.worms;
  box.replaceChildren(...state.players.map((p) => {
    const tile = document.createElement("div");
    tile.className = "tile" + (p.current ? " current" : "") + (p.out ? " out" : "");
    tile.style.setProperty("--colour", p.colour);
    tile.dataset.player = p.id;
    const pick = document.createElement("button");
    pick.className = "pick";
    pick.setAttribute("aria-pressed", p.current ? "true" : "false");
    pick.disabled = p.out || state.ended;
    pick.innerHTML = '<span class="name"></span><span class="coins"></span><span class="owe"></span><span class="extra"></span><span class="turn"></span>';
    pick.querySelector(".name").textContent = p.name;
    pick.querySelector(".coins").textContent = p.out ? "OUT" : p.balance;
    if (p.owes && !p.out) pick.querySelector(".owe").innerHTML = '<span class="owes">owes</span>';
    if (p.points !== null && (p.points || p.cards)) {
      pick.querySelector(".extra").textContent = `${p.points} points · ${plural(p.cards, "card")}`;
    }
    pick.querySelector(".turn").textContent = p.out ? "bankrupt" : p.current ? "current player" : "tap: make current";
    pick.addEventListener("click", () => api("POST", "/api/current", { player: p.id }).catch(() => {}));
    tile.append(pick);
    if (worms) tile.append(wormRow(p, worms));
    return tile;
  }));
}

function wormRow(p, target) {
  // Tap a worm to say how many are found; tap the last found one again to take it back.
  const row = document.createElement("div");
  row.className = "worms";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", `${p.name}: worms found`);
  for (let k = 1; k <= target; k++) {
    const worm = document.createElement("button");
    worm.className = "worm" + (k <= p.worms ? " found" : "");
    worm.textContent = String(k);
    worm.setAttribute("aria-label", `${p.name} has found ${k}`);
    worm.disabled = state.ended;
    worm.addEventListener("click", () => {
      const found = k === p.worms ? k - 1 : k;
      busy(worm, api("POST", "/api/worms", { player: p.id, found }));
    });
    row.append(worm);
  }
  const count = document.createElement("span");
  count.className = "worm-count";
  count.textContent = `${p.worms}/${target}`;
  row.append(count);
  return row;
}

function active() { return state.players.filter((p) => !p.out); }

function fillSelect(select, withBank, preferred, players) {
  const keep = select.dataset.chosen ? select.value : preferred;
  const options = (players || active()).map((p) => new Option(p.name, String(p.id)));
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

// -- what the edition has: modes, jail, bankruptcy, points, worms -------------------------------

function renderRules() {
  if (!rules) return;
  const goRule = rules.pass_go;
  $("go").textContent = goRule ? `Pass GO +${goRule.value}` : "Pass GO";
  $("go").title = goRule ? goRule.quote.join(" ") : "";
  const jail = rules.jail_fee;
  $("jail").hidden = !jail;
  if (jail) {
    $("jail").textContent = `Jail: pay ${jail.value}`;
    $("jail").title = jail.quote.join(" ");
  }
  $("debt-rule").textContent = rules.debt.rule === "capped"
    ? [rules.debt.text, ...rules.debt.quote].join(" ") : "";
  $("bankrupt-card").hidden = rules.debt.rule !== "bankruptcy";
  $("bankrupt-rule").textContent = rules.debt.rule === "bankruptcy"
    ? [rules.debt.text, ...rules.end.quote].join(" ") : "";
  $("score-card").hidden = !rules.scoring;
  if (rules.scoring) {
    $("score-rule").textContent = [...rules.end.quote, ...rules.scoring.every.quote, ...rules.scoring.tie].join(" ");
  }
  $("at-once-box").hidden = !rules.turn.at_once.length;
  const block = $("press");
  const main = rules.modes.find((m) => m.default);
  block.title = `Press: ${main.name}`;
  block.textContent = main.table === "lever" ? "Lever" : main.table === "die_roll" ? "Roll" : "?";
  block.classList.toggle("word", block.textContent.length > 1);
  $("modes").hidden = rules.modes.length < 2;
  $("mode-buttons").replaceChildren(...rules.modes.map((m) => {
    const b = document.createElement("button");
    b.className = "big mode";
    b.dataset.mode = m.id;
    b.textContent = m.name;
    b.title = m.quote.join(" ");
    b.addEventListener("click", () => {
      if (m.needs.length) { showRent(m); return; }
      $("rent").hidden = true;
      busy(b, api("POST", "/api/mode", { mode: m.id }));
    });
    return b;
  }));
}

function showRent(mode) {
  const form = $("rent");
  form.hidden = false;
  form.dataset.mode = mode.id;
  $("rent-rule").textContent = mode.quote.join(" ");
  const utilities = $("rent-utilities");
  const chosen = utilities.value;
  utilities.replaceChildren(...Array.from({ length: mode.max_utilities }, (_, i) =>
    new Option(i === 0 ? "1: rent = the roll" : `${i + 1}: rent = the roll × ${i + 1}`, String(i + 1))));
  if (chosen) utilities.value = chosen;
  fillSelect($("rent-payer"), false, state.current_player ?? undefined);
  fillSelect($("rent-owner"), false, active().find((p) => p.id !== state.current_player)?.id);
}

function renderModes() {
  const mode = state.mode;
  if (!mode) return;
  $("mode-now").textContent = mode.text || mode.name;
  for (const b of $("mode-buttons").children) b.classList.toggle("armed", b.dataset.mode === mode.id);
  $("modes").classList.toggle("armed", !mode.default);
}

function renderBankrupt() {
  if ($("bankrupt-card").hidden) return;
  fillSelect($("bankrupt-player"), false, state.current_player ?? undefined);
  fillSelect($("bankrupt-creditor"), true, "bank");
}

function renderScores() {
  if ($("score-card").hidden) return;
  const box = $("score-rows");
  const most = rules.scoring.max_cards.value;
  box.replaceChildren(...active().map((p) => {
    const row = document.createElement("form");
    row.className = "score-row";
    row.innerHTML = '<span class="name"></span><label>Points on cards <input class="points" type="number" inputmode="numeric" min="0" required></label>' +
      '<label>Cards <input class="cards" type="number" inputmode="numeric" min="0" required></label><button class="big" type="submit">Save</button>';
    row.querySelector(".name").textContent = p.name;
    const points = row.querySelector(".points");
    const cards = row.querySelector(".cards");
    points.value = p.points;
    cards.value = p.cards;
    cards.max = String(most);
    points.max = String(rules.scoring.max_points);
    row.addEventListener("submit", (ev) => {
      ev.preventDefault();
      busy(row.querySelector("button"), api("POST", "/api/points",
        { player: p.id, points: Number(points.value), cards: Number(cards.value) }));
    });
    return row;
  }));
}

// -- the history: what the table did, move by move ------------------------------------------------

// The newest page once; then, on each change, only the moves after the last one seen (an undo
// strikes through the move it undid here); "Older" loads the page before. A new game starts over.
const HISTORY_PAGE = 40;
// What the history shows: its game, each move's line by id, the newest move seen, the older page.
const shown = { game: null, items: new Map(), latest: 0, nextBefore: null, busy: null, again: false };

function historyItem(m) {
  const li = document.createElement("li");
  if (m.undone_by !== null) li.className = "undone";
  const what = document.createElement("span");
  what.textContent = m.text;
  li.append(what);
  const coins = m.entries.reduce((sum, e) => sum + e.amount, 0);
  if (coins && m.kind !== "opening") {
    const amt = document.createElement("span");
    amt.className = "amt";
    amt.textContent = String(coins);
    amt.title = "coins";
    li.append(amt);
  }
  shown.items.set(m.id, li);
  return li;
}

async function journalPage(game, query) {
  const reply = await authGet(`/api/journal?game=${game}&${query}`);
  if (!reply.ok) throw new Error("journal: " + reply.status);
  return reply.json();
}

function olderButton() {
  const li = document.createElement("li");
  li.id = "history-more";
  const older = document.createElement("button");
  older.className = "big";
  older.style.flex = "1";
  older.textContent = "Older";
  older.addEventListener("click", () => busy(older, loadOlder()));
  li.append(older);
  return li;
}

function showOlder(nextBefore) {
  shown.nextBefore = nextBefore;
  const more = $("history-more");
  if (nextBefore === null) { if (more) more.remove(); return; }
  if (!more) $("history").append(olderButton());
}

async function loadOlder() {
  const game = shown.game;
  const page = await journalPage(game, `before=${shown.nextBefore}&limit=${HISTORY_PAGE}`);
  if (game !== shown.game) return;  // a new game meanwhile
  const more = $("history-more");
  more.before(...page.moves.filter((m) => !shown.items.has(m.id)).map(historyItem));
  showOlder(page.next_before);
}

async function syncHistory() {
  const game = state.game.id;
  if (game !== shown.game) {  // the first load, or a new game: its newest page
    const page = await journalPage(game, `limit=${HISTORY_PAGE}`);
    if (game !== state.game.id) return;
    shown.game = game;
    shown.items.clear();
    shown.latest = page.moves.length ? page.moves[0].id : 0;
    $("history").replaceChildren(...page.moves.map(historyItem));
    showOlder(page.next_before);
    return;
  }
  let page;
  do {  // catch up: only what is new, oldest first
    page = await journalPage(game, `after=${shown.latest}&limit=500`);
    if (game !== shown.game) return;
    for (const m of page.moves) {
      if (shown.items.has(m.id)) continue;
      $("history").prepend(historyItem(m));
      const undid = m.undoes === null ? undefined : shown.items.get(m.undoes);
      if (undid) undid.classList.add("undone");
      shown.latest = Math.max(shown.latest, m.id);
    }
  } while (page.next_after !== null);
}

function renderHistory() {
  // One sync at a time; changes that arrive meanwhile are fetched right after it.
  if (shown.busy) { shown.again = true; return shown.busy; }
  shown.busy = (async () => {
    try {
      do { shown.again = false; await syncHistory(); } while (shown.again);
    } finally { shown.busy = null; }
  })();
  return shown.busy;
}

// -- the lever timer: the server says how long is left; the page counts down by itself -----------

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

// -- cards: taps on the reader, new cards to give to a player (or an action), one step each ------

const cardChoice = new Map();  // uid -> what was picked under "New cards"
const CARD_ACTIONS = { next_player: "Next player", pass_go: "Pass GO", press: "Press the block",
                       timer: "Start/stop the timer", undo: "Undo" };

async function loadActivity() {
  const data = await authGet("/api/activity").then((r) => r.json());
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

// -- putting it together ------------------------------------------------------------------------

async function loadRules() {
  rules = await fetch("/api/rules").then((r) => r.json());
  renderRules();
}

function render() {
  if (state.game.id !== gameId) {  // a new game: forget choices made for the old one
    gameId = state.game.id;
    chosenFor.clear();
    for (const id of ["pay-from", "pay-to", "rent-payer", "rent-owner", "bankrupt-player", "bankrupt-creditor"]) {
      delete $(id).dataset.chosen;
    }
    $("rent").hidden = true;
    loadRules().then(render).catch(() => {});
  }
  $("edition").textContent = "· " + state.game.name;
  document.body.classList.toggle("no-bank", state.game.bank === false);
  document.body.classList.toggle("ended", state.ended);
  $("at-once").checked = Boolean(state.game.simultaneous);
  if (state.timer) setTimer(state.timer);
  renderStorage(state.storage);
  renderWinner();
  renderOutcome();
  renderPlayers();
  // Until someone picks: the current player pays the Bank (the most common payment).
  fillSelect($("pay-from"), true, state.current_player === null ? "bank" : state.current_player);
  fillSelect($("pay-to"), true, "bank");
  renderWaiting();
  renderModes();
  renderBankrupt();
  if (rules) renderScores();
  renderHistory().catch(() => {});
}

function setLink(live) {
  const el = $("link");
  el.textContent = live ? "live" : "reconnecting…";
  el.className = "status " + (live ? "live" : "offline");
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // A browser can't set headers on a WebSocket: the token rides in the query (never logged).
  const key = token() ? "?token=" + encodeURIComponent(token()) : "";
  socket = new WebSocket(`${scheme}://${location.host}/ws${key}`);
  socket.onopen = () => {
    retryMs = 500; lastHeard = Date.now(); setLink(true);
    fetch("/healthz").then((r) => r.json()).then((h) => renderStorage(h.storage)).catch(() => {});
  };
  socket.onmessage = (msg) => {
    lastHeard = Date.now();
    const data = JSON.parse(msg.data);
    if (data.type === "state") { state = data.state; render(); }
    if (data.type === "timer") setTimer(data.timer, data.what);
    if (data.type === "outcome") lastPress = data;
    if (data.type === "storage") {
      renderStorage(data.storage);
      if (state) { state.storage = data.storage; renderOutcome(); }
    }
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

let editions = [];

async function loadEditions() {
  editions = (await fetch("/api/editions").then((r) => r.json())).editions;
  $("ng-edition").replaceChildren(...editions.map((e) => new Option(e.name, e.id)));
  renderNames();
}

function renderNames() {
  // As many name boxes as the chosen edition seats; the first ones filled in.
  const edition = editions.find((e) => e.id === $("ng-edition").value) || editions[0];
  if (!edition) return;
  const names = $("ng-names");
  const typed = [...names.querySelectorAll("input")].map((i) => i.value);
  const defaults = typed.length ? typed : ["Mario", "Luigi", "Peach", "Yoshi"];
  names.replaceChildren(...Array.from({ length: edition.max_players }, (_, i) => {
    const input = document.createElement("input");
    input.placeholder = `Player ${i + 1}` + (i >= edition.min_players ? " (optional)" : "");
    input.value = defaults[i] || "";
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
$("jail").addEventListener("click", () => {
  if (!state || state.current_player === null) { toast("Tap a player first."); return; }
  busy($("jail"), api("POST", "/api/jail", { player: state.current_player }));
});
$("end").addEventListener("click", () => {
  if (!confirm("End the game now and count the final score?")) return;
  busy($("end"), api("POST", "/api/end"));
});
$("at-once").addEventListener("change", (ev) => {
  api("POST", "/api/options", { simultaneous: ev.target.checked }).catch(() => { ev.target.checked = !ev.target.checked; });
});
$("timer-seconds").addEventListener("change", () => { $("timer-seconds").dataset.chosen = "1"; });
$("timer-start").addEventListener("click", () => {
  const seconds = Number($("timer-seconds").value);
  const body = seconds >= 1 ? { seconds } : {};
  busy($("timer-start"), api("POST", "/api/timer/start", body).then((r) => setTimer(r.timer, "started")));
});
$("timer-stop").addEventListener("click", () => busy($("timer-stop"), api("POST", "/api/timer/stop")
  .then((r) => setTimer(r.timer, "stopped"))));
for (const id of ["pay-from", "pay-to", "rent-payer", "rent-owner", "bankrupt-player", "bankrupt-creditor"]) {
  $(id).addEventListener("change", () => { $(id).dataset.chosen = "1"; });
}
const side = (v) => (v === "bank" ? "bank" : Number(v));
$("pay").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const button = ev.target.querySelector("button");
  busy(button, api("POST", "/api/transfers", {
    from: side($("pay-from").value), to: side($("pay-to").value),
    amount: Number($("pay-amount").value), note: $("pay-note").value,
  }).then(() => { $("pay-note").value = ""; }));
});
$("rent").addEventListener("submit", (ev) => {
  ev.preventDefault();
  busy(ev.target.querySelector("button"), api("POST", "/api/mode", {
    mode: ev.target.dataset.mode, payer: Number($("rent-payer").value),
    owner: Number($("rent-owner").value), utilities: Number($("rent-utilities").value),
  }).then(() => { $("rent").hidden = true; }));
});
$("bankrupt").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const who = Number($("bankrupt-player").value);
  const to = side($("bankrupt-creditor").value);
  if (!confirm(`${nameOf(who)} is bankrupt to ${nameOf(to)}: what they have left goes there and they are out. Sure?`)) return;
  busy(ev.target.querySelector("button"), api("POST", "/api/bankruptcy", { player: who, creditor: to }));
});
$("ng-edition").addEventListener("change", renderNames);
$("newgame").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const players = [...$("ng-names").querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean);
  api("POST", "/api/games", { edition: $("ng-edition").value, players })
    .then(() => { ev.target.closest("details").open = false; }).catch(() => {});
});

loadEditions().catch(() => {});
connect();
