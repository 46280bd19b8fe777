// The bank on a tablet or phone: live state over a WebSocket, writes through the JSON API.
// Every amount, rule and word about the game comes from the server (the edition's ruleset):
// none is written here.
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
const token = keepLinkToken(TOKEN_KEY);

// Reads carry the token too: card UIDs and card actions come only with it.
function authGet(path) {
  return fetch(path, { headers: token() ? { "Authorization": "Bearer " + token() } : {} });
}

// -- watching: a page without the table token shows the table and no write controls ----------

function watching() { return !token(); }

function renderRole() {
  const watch = watching();
  document.body.classList.toggle("watching", watch);
  $("role").hidden = !watch;
  $("watching").hidden = !watch;
  if (watch) resetPay();
}

// -- messages: errors at the top (never over a button), successes in a snackbar -------------

function sentence(text) { text = String(text); return text.charAt(0).toUpperCase() + text.slice(1); }

function showError(message) {
  $("error-text").textContent = sentence(message);
  $("error").hidden = false;
}

function clearError() { $("error").hidden = true; }

// One polite live region says each outcome and each move's words to a screen reader, once
// (the snackbar and the outcome box are not live regions themselves: the dice redraw, the
// snackbar hides). The same words twice in a row are said twice.
let announced = 0;
function announce(text) {
  const box = $("announce");
  const words = sentence(text);
  const turn = ++announced;
  box.textContent = "";
  setTimeout(() => { if (turn === announced) box.textContent = words; }, 50);
  box.dataset.said = words;  // what was said last (tests read it without waiting)
}

let snackTimer = null;
function snack(text, action, run) {
  const box = $("toast");
  const button = $("toast-action");
  $("toast-text").textContent = sentence(text);
  announce(text);
  button.hidden = !action || watching();
  button.textContent = action || "";
  button.onclick = action ? () => { hideSnack(); run(); } : null;
  armLater(button);
  box.hidden = false;
  clearTimeout(snackTimer);
  snackTimer = setTimeout(hideSnack, action ? 5000 : 3500);
}

function hideSnack() { $("toast").hidden = true; }

// Something that appears where a finger just was (the snackbar over a button, a question over
// the pad) takes no tap for a moment: the second tap of a double tap never lands on it.
const ARM_MS = 600;
function armLater(button) {
  button.disabled = true;
  button.classList.add("arming");
  setTimeout(() => { button.disabled = button.dataset.off === "1"; button.classList.remove("arming"); }, ARM_MS);
}

// -- writes: one intent, one write -----------------------------------------------------------

// A write's Idempotency-Key says what it does and the table it was made from (state.version):
// the same intent twice is written once by the server, which replays a repeated key. A second
// tap of the same button within HOLD_MS is the same intent (even if the page has redrawn the
// table in between): it sends the first tap's request again, key and all. A write that got no
// answer (the Wi-Fi blipped: it may have been written) stays the same intent, key and all,
// until it is answered or edited; the page sends it again when the connection is back, and
// says that it went through.
const HOLD_MS = 600;
const intents = new Map();
const held = new Set();  // buttons off until their answer (and HOLD_MS)

function hash53(text, seed) {  // cyrb53: a small, fast, well-mixed string hash
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

function randomKey() {
  return crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now();
}

function intentKey(action, body) {
  const version = state && state.version ? String(state.version) : null;
  if (version === null) return `${action}.${randomKey()}`;  // an older companion: no version
  const what = `${action}|${version}|${JSON.stringify(body === undefined ? null : body)}`;
  return `${action}.${hash53(what, 1)}${hash53(what, 2)}`;
}

async function api(method, path, body, key, quiet) {
  const headers = {};
  if (token()) headers["Authorization"] = "Bearer " + token();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["Idempotency-Key"] = key || randomKey();
  let reply;
  try {
    reply = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    if (!(quiet && quiet(err))) showError(t("The companion is not reachable. Is the Wi-Fi on?"));
    err.unanswered = true;  // sent, maybe written: only its answer is lost
    throw err;
  }
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    const err = new Error(data.error || ("Error " + reply.status));
    err.status = reply.status;
    // The page's words for it: the server's sentence (error_said) in this device's language.
    err.said = data.error_said || data.error || null;
    err.saved = data.saved;  // a 503's: false (nothing written) or null (not known)
    if (reply.status === 401) {
      // The token this browser has is wrong or old: from now on the page only watches.
      localStorage.removeItem(TOKEN_KEY);
      renderRole();
      if (state) render();
      showError(t("This browser's table token was refused: the page only watches now. Scan the QR code on the companion's small screen to bank again."));
    } else if (!(quiet && quiet(err))) {
      showError(err.said ? said(err.said) : t("Error {status}", { status: reply.status }));
    }
    throw err;
  }
  clearError();
  return data;
}

function write(action, path, body, { button = null, sticky = false, method = "POST", quiet = null } = {}) {
  const now = performance.now();
  const text = JSON.stringify(body === undefined ? null : body);
  let intent = intents.get(action);
  const edited = intent && intent.text !== text && (!sticky || intent.unanswered);
  if (!intent || edited || (now - intent.at > HOLD_MS && !intent.unanswered)) {
    intent = { at: now, body, text, key: intentKey(action, body) };
    intents.set(action, intent);
  }
  if (button) { button.disabled = true; held.add(button); }
  const first = intent.at;
  const sent = intent;
  return api(method, path, intent.body, intent.key, quiet).then((reply) => {
    if (sent.unanswered) {  // answered at last: once, whichever try was written
      sent.unanswered = false;
      if (reply && typeof reply === "object") reply.again = true;
    }
    return reply;
  }, (err) => {
    if (err.unanswered) Object.assign(sent, { unanswered: true, path, method });
    else if (intents.get(action) === sent) intents.delete(action);  // refused: a new intent next
    if (err.status === 503 && (err.saved === false || err.saved === null) && path !== "/api/held") {
      // The disk refused it (or failed writing it): kept here, key and all, and sent again when
      // the bank takes writes (written once, whichever try lands).
      keeper.keepWrite({ key: sent.key, action, method, path, body: sent.body, at: Date.now() });
      renderKept();
      snack(t("This tablet keeps it and sends it again when the bank takes writes."));
    }
    throw err;
  }).finally(() => {
    // Off until the answer, and for at least HOLD_MS after the tap: a double tap's second
    // tap finds the button off; a deliberate second tap comes later.
    setTimeout(() => {
      if (button) { held.delete(button); button.disabled = false; }
      if (state) renderControls();
    }, Math.max(0, first + HOLD_MS - performance.now()));
  });
}

// A write that was answered only when sent again: it went through once (the server replayed
// it, or it had not arrived before). A payment's pad is done with.
function wentThrough(action) {
  if (action === "pay") {
    resetPay();
    renderPad();
    snack(t("That payment went through (once)."));
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
  if (!$("toast").hidden && $("toast-text").textContent.includes(words)) return;
  snack(words);
}

// When the connection is back, each write that got no answer is sent again, key and all: the
// server answers what it wrote, or writes it now.
function sendUnanswered() {
  for (const [action, intent] of intents) {
    if (!intent.unanswered) continue;
    api(intent.method, intent.path, intent.body, intent.key, () => true).then(() => {
      if (intents.get(action) === intent && intent.unanswered) { intent.unanswered = false; wentThrough(action); }
    }).catch(() => {});
  }
}

// -- what this tablet keeps while the bank can't save (keeper.js) ------------------------------
const keeper = new Keeper("companion-kept");

// Every state (and storage news): keep a copy of the presses the companion holds, tell it so,
// and give back what it no longer holds (banked once, by id); kept writes go again once it saves.
function keepHeld(storage) {
  if (!storage || !token() || watching()) return;
  const ids = keeper.keep(storage.presses);
  const keeping = JSON.stringify({ type: "keeping", presses: ids });
  if (socket && socket.readyState === WebSocket.OPEN && socket.keeping !== keeping) {
    socket.send(keeping);  // once per change, on each connection
    socket.keeping = keeping;
  }
  const holds = new Set((storage.presses || []).map((p) => p.id));
  keeper.giveBack(holds, (presses) => api("POST", "/api/held", { presses }, undefined, () => true)
    .then((reply) => reply.presses))
    .then((banked) => {
      if (banked) snack(tn("{n} press this tablet kept is in the bank", "{n} presses this tablet kept are in the bank", banked));
    })
    .catch(() => {})
    .finally(renderKept);
  if (storage.ok && !keeper.sending && keeper.counts().writes) {
    keeper.sending = true;
    keeper.sendWrites((w) => api(w.method, w.path, w.body, w.key, () => true))
      .then(([answered, refused]) => {
        if (answered) snack(tn("{n} write this tablet kept went through (once)", "{n} writes this tablet kept went through (once)", answered));
        if (refused) showError(tn("{n} write this tablet kept was refused by the bank", "{n} writes this tablet kept were refused by the bank", refused));
      })
      .finally(() => { keeper.sending = false; renderKept(); });
  }
  renderKept();
}

function renderKept() {
  const n = keeper.counts();
  const box = $("kept");
  const parts = [];
  if (n.presses) parts.push(tn("{n} press", "{n} presses", n.presses));
  if (n.writes) parts.push(tn("{n} write", "{n} writes", n.writes));
  if (n.refused) parts.push(tn("{n} press the bank refused", "{n} presses the bank refused", n.refused));
  box.hidden = !parts.length;
  $("kept-text").textContent = parts.length
    ? t("This tablet keeps {what} not saved yet, and gives them back when the bank takes writes.", { what: parts.join(", ") })
    : "";
}

$("kept-file").addEventListener("click", () => {
  const blob = new Blob([JSON.stringify(keeper.file(), null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = "companion-kept-" + new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-") + ".json";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
});

$("kept-import").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  let data;
  try { data = JSON.parse(await file.text()); } catch (err) { data = null; }
  const presses = data && (data.held_presses || data.presses);
  if (!Array.isArray(presses)) { showError(t("That file holds no presses to give back.")); return; }
  keeper.adopt(presses);
  if (state) keepHeld(state.storage);
});

// -- words --------------------------------------------------------------------------------------

function isBank(id) { return id === "bank" || id === null || id === undefined; }

function nameOf(id) {
  if (isBank(id)) return t("the Bank");
  const p = state && state.players.find((x) => x.id === id);
  return p ? p.name : t("player {id}", { id });
}

function title(id) { return isBank(id) ? t("Bank") : nameOf(id); }

function coinWords(n) { return tn("{n} coin", "{n} coins", n); }
function cardWords(n) { return tn("{n} card", "{n} cards", n); }
function wormWords(n) { return tn("{n} worm", "{n} worms", n); }
function pointWords(n) { return tn("{n} point", "{n} points", n); }

// A sentence of the server's (``key``) in this device's language: its ``<key>_said`` when the
// server chose it (a Said), else the English as it came.
function heard(x, key) {
  if (!x) return "";
  const chosen = x[key + "_said"];
  return said(chosen !== undefined && chosen !== null ? chosen : x[key]);
}

function player(id) { return state && state.players.find((x) => x.id === id); }

// -- the outcome and the block -----------------------------------------------------------------

function bare(headline) { return String(headline || "").replace(/[!:.\s]+$/, ""); }

function outcomeText(o) {
  const who = o.player === null ? t("Someone") : title(o.player);
  const headline = heard(o, "headline");
  if (o.kind === "rent" && o.params) {
    return t("{headline}: {payer} pays {owner} {coins}",
             { headline, payer: title(o.params.payer), owner: title(o.params.owner), coins: o.coins });
  }
  if (o.kind === "roll") return t("{headline} ({who})", { headline, who });
  return t("{headline} {who}: {instruction}", { headline, who, instruction: heard(o, "instruction") });
}

// An outcome nobody has been given yet says so.
function waitingText(o) {
  const text = outcomeText(o);
  return o.player === null ? t("{outcome} (waiting for a player)", { outcome: text }) : text;
}

let lastPress = null;  // the latest press as it sounded (shown while the disk holds it)
let outcomeTurn = null;  // whose turn it was when the shown outcome came

let outcomeDrawn = false;  // this game's outcome box drawn once: a new outcome after is news

function renderOutcome() {
  const el = $("outcome");
  const news = outcomeDrawn;
  outcomeDrawn = true;
  if (state.storage && state.storage.held && lastPress) {
    el.textContent = t("{headline} {who}: {instruction} (not saved yet)", { headline: heard(lastPress, "headline"),
      who: title(state.current_player), instruction: heard(lastPress, "instruction") });
    el.className = "outcome coins-only held " + lastPress.kind;
    return;
  }
  const o = state.last_outcome;
  el.hidden = !o && state.ended;  // an ended game asks for no press
  if (!o) {
    shownRoll = null;
    el.className = "outcome coins-only";
    const hint = document.createElement("span");
    hint.className = "muted";
    hint.textContent = rules && rules.toll ? t("Press to roll the dice!") : t("Press the block!");
    el.replaceChildren(hint);
    return;
  }
  if (o.id !== lastOutcomeId) {
    // A fresh page takes the outcome's player as its turn; a live one, the turn it came in.
    outcomeTurn = lastOutcomeId === null && o.player !== null ? o.player : state.current_player;
  }
  // After Next the outcome belongs to the turn before: dimmed, so nobody acts on it twice.
  const past = state.current_player !== outcomeTurn;
  const rolled = DICE_KINDS.has(o.kind);
  if (rolled) drawRoll(el, o);
  else { shownRoll = null; el.textContent = waitingText(o); }
  const doubles = rolled && o.kind !== "third_doubles" && Boolean(o.doubles);
  el.className = "outcome coins-only " + o.kind + (rolled ? " rolled" : "") + (doubles ? " doubles" : "") + (past ? " past" : "");
  if (o.id !== lastOutcomeId) {
    void el.offsetWidth;  // restart the animation
    if (lastOutcomeId !== null) el.classList.add("fresh");
    if (news) announce(spokenOutcome(o));
    lastOutcomeId = o.id;
  }
}

// An outcome in words for a screen reader: the dice's faces said, not drawn.
function spokenOutcome(o) {
  if (!DICE_KINDS.has(o.kind)) return waitingText(o);
  const who = o.player === null ? t("waiting for a player") : title(o.player);
  const faces = diceOf(o).map((d) => d.label).join(", ");
  return [t("{headline} ({who})", { headline: bare(heard(o, "headline")), who }), faces, heard(o, "instruction")]
    .filter(Boolean).join(". ");
}

// -- the Movie edition's dice: large, with pips, and what the roll means ----------------------

// The outcomes that are dice: [red, black] for a turn or a roll from Jail, one red die for the
// Piranha Plant and Super Star, the leader's die then the teammate's in a battle.
const DICE_KINDS = new Set(["dice", "third_doubles", "battle_roll", "battle_won", "battle_lost",
                            "piranha", "super_star", "jail_free", "jail_stay", "jail_paid",
                            "boss_won", "boss_lost", "race_roll"]);
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

function modeRule(test) { return rules ? rules.modes.find(test) : undefined; }
function feeOf(table, fee) {
  const m = modeRule((x) => x.table === table);
  return m && m.fees && m.fees[fee] !== undefined ? m.fees[fee] : null;
}
function ofLimit(n, limit) { return limit ? t("{n} of {limit}", { n, limit }) : String(n); }

// Each die of an outcome: its face, colour, words (for a screen reader) and caption.
function diceOf(o) {
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
  return chips;
}

let shownRoll = null;  // what the outcome box shows now (it is drawn again only when that changes)

function drawRoll(el, o) {
  const dice = diceOf(o);
  const who = o.player === null ? t("Waiting for a player") : title(o.player);
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

// The block pulses while its outcome sounds, for as long as the companion says its sound lasts.
let pulseTimer = null;
let pulseUntil = 0;
function soundMs(o) {
  return o && o.sound_seconds ? o.sound_seconds * 1000 : 0;
}

function pulse(ms) {
  if (ms <= 0) return;
  pulseUntil = Math.max(pulseUntil, performance.now() + ms);
  const block = $("press");
  block.classList.add("sounding");
  block.setAttribute("aria-busy", "true");
  clearTimeout(pulseTimer);
  pulseTimer = setTimeout(() => {
    block.classList.remove("sounding");
    block.removeAttribute("aria-busy");
  }, pulseUntil - performance.now());
}

function renderWinner() {
  const box = $("winner");
  box.hidden = !state.ended;
  if (!state.ended) return;
  const names = state.winners.map(title);
  const bowser = Boolean(state.bowser_won);
  box.classList.toggle("bowser", bowser);
  if (bowser) {  // every deed on its Game Over side: nobody wins, the table's coins are left
    const rest = Object.assign(document.createElement("span"), { className: "winner-sub",
      textContent: t("every deed is on its Game Over side. Everyone loses.") });
    $("winner-title").replaceChildren(t("Bowser wins:"), " ", rest);
  } else {
    $("winner-title").textContent = names.length === 0 ? t("Game over: nobody wins")
      : names.length === 1 ? t("{name} wins!", { name: names[0] }) : t("{names} share the win!", { names: names.join(" & ") });
  }
  renderPodium(bowser);
  $("standings").replaceChildren(...state.standings.map((s) => {
    const li = document.createElement("li");
    if (state.winners.includes(s.player)) li.className = "won";
    const who = document.createElement("span");
    who.textContent = bowser ? title(s.player) : `${s.rank}. ${title(s.player)}`;
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = s.total !== null ? [pointWords(s.total), s.cards ? cardWords(s.cards) : ""].filter(Boolean).join(" · ")
      : s.worms !== null ? wormWords(s.worms) : s.out ? t("out") : coinWords(s.coins);
    li.append(who, score);
    return li;
  }));
}

// The final score of a Gamer or Mario Kart game: the first three on a podium (2nd, 1st, 3rd),
// each with their total and what it is made of.
function renderPodium(bowser) {
  const box = $("podium");
  const top = state.standings.filter((s) => s.total !== null && !s.out).slice(0, 3);
  box.hidden = bowser || !contestRules() || !top.length;
  if (box.hidden) return;
  box.replaceChildren(...top.map((s, i) => {
    const li = document.createElement("li");
    const p = player(s.player);
    li.className = `step step-${i + 1}` + (state.winners.includes(s.player) ? " won" : "");
    if (p) li.style.setProperty("--colour", p.colour);
    li.append(Object.assign(document.createElement("span"), { className: "step-who", textContent: title(s.player) }),
              Object.assign(document.createElement("span"), { className: "step-total", textContent: pointWords(s.total) }),
              Object.assign(document.createElement("span"), { className: "step-parts",
                textContent: [coinWords(s.coins), tn("{n} card point", "{n} card points", s.points)].join(" · ") }),
              Object.assign(document.createElement("span"), { className: "step-rank", textContent: ordinal(s.rank) }));
    return li;
  }));
}

// -- paying from the tiles -----------------------------------------------------------------------

// Tap who pays (a tile or the Bank), tap who gets paid, the amount, Pay. Nothing is chosen in
// advance: every payment starts empty, and is emptied again after paying and on Next.
const pay = { from: null, to: null, digits: "", done: null };

function canPay() {
  return Boolean(state) && !watching() && !state.ended && state.game.bank !== false;
}

function resetPay() {
  pay.from = null;
  pay.to = null;
  pay.digits = "";
  pay.done = null;
  if ($("pad-note")) { $("pad-note").value = ""; $("pad-note-box").hidden = true; }
  for (const b of $("pad-reasons").children) b.setAttribute("aria-pressed", "false");
  if (state) { markTiles(); renderPad(); }
}

function sameParty(a, b) { return a !== null && b !== null && String(a) === String(b); }

function waitingOutcome() {
  if (!state || watching() || state.ended) return null;
  return state.unassigned.find((o) => !laterFor.has(o.id)) || null;
}
const laterFor = new Set();  // waiting outcomes the banker put off ("Later")

function tapTile(id) {
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
  markTiles();
  renderPad();
  keepTilesInView();
}

function amount() { return pay.digits === "" ? 0 : Number(pay.digits); }

function typeKey(key) {
  if (!canPay()) return;
  pay.done = null;
  if (key === "back") pay.digits = pay.digits.slice(0, -1);
  else if (typeof key === "number") pay.digits = String(key);  // a quick amount: the whole amount
  else if (pay.digits.length < 5) pay.digits = (pay.digits + key).replace(/^0+/, "");
  renderPad();
}

function padOpen() { return pay.from !== null || pay.to !== null || pay.digits !== ""; }

// Just paid: the pad says so for a moment before it closes (on a phone), with Pay still under
// the finger and off, so a double tap's second tap lands on nothing else.
function padDone() { return pay.done !== null && performance.now() < pay.done.until; }

function renderPad() {
  if (!state) return;
  const pad = $("pad");
  const done = padDone();
  const open = (padOpen() || done) && canPay();
  pad.classList.toggle("done", done && !padOpen());
  pad.classList.toggle("open", open);
  document.body.classList.toggle("paying", open);
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
    $("pad-drop").hidden = !(rules && rules.board);
    $("pad-power").hidden = !powers();
    $("pad-chars").hidden = !powers();
    $("pad-chars").textContent = (own.characters || []).length
      ? t("Character: {names}", { names: own.characters.map(charName).join(" & ") }) : t("Pick a character");
    // An odd one out takes the whole row.
    const shownButtons = [...$("pad-player").children].filter((b) => !b.hidden);
    shownButtons.forEach((b, i) => b.classList.toggle("wide", i === shownButtons.length - 1 && shownButtons.length % 2 === 1));
  }
  const ready = pay.from !== null && pay.to !== null && n >= 1;
  const payButton = $("pad-pay");
  payButton.disabled = !ready || payButton.dataset.busy === "1" || held.has(payButton);
  payButton.textContent = ready ? t("Pay {amount}: {payer} → {payee}", { amount: n, payer: title(pay.from), payee: title(pay.to) })
    : done && !padOpen() ? t("Paid ✓") : t("Pay");
  if (open) document.body.style.setProperty("--sheet", `${pad.offsetHeight}px`);
}

function markTiles() {
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
function keepTilesInView() {
  if (!padOpen() || landscape()) return;
  requestAnimationFrame(() => {
    const head = $("top").getBoundingClientRect().bottom;
    const top = $("pad").getBoundingClientRect().top;
    const tiles = $("players").getBoundingClientRect();
    let delta = 0;
    if (tiles.bottom > top - 8) delta = Math.min(tiles.bottom - (top - 8), tiles.top - head - 8);
    else if (tiles.top < head + 4) delta = tiles.top - head - 8;
    if (delta) window.scrollBy(0, delta);
  });
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
  return { title: t("Pay {amount}? Check the amount", { amount: asked }), lines, why: why + cap,
           sale: over && capped ? payer : null };
}

// Gamer, Mario Kart: "If you do not have enough Coins, you must sell Property you own back to
// the Bank for face value ... Then drop or give any Coins you still owe." The face value is
// typed (it is printed on the deed); the Bank pays it and the payment follows, one move.
function saleBox(payer, asked) {
  const box = el("div", "sale");
  const label = el("label", "sale-label", t("Property sold back to the Bank first (face value)"));
  const input = document.createElement("input");
  input.id = "sale-value";
  input.type = "number";
  input.inputMode = "numeric";
  input.min = "0";
  input.placeholder = "0";
  label.append(" ", input);
  const after = el("p", "sale-after", "");
  const update = () => {
    const sold = Math.max(0, Number(input.value) || 0);
    const paid = Math.min(asked, payer.balance + sold);
    after.textContent = sold ? t("With the sale: {name} pays {paid} of {asked}, keeps {left}",
                                 { name: payer.name, paid, asked, left: payer.balance + sold - paid }) : "";
  };
  input.addEventListener("input", update);
  box.append(label, after);
  return box;
}

async function payNow() {
  const from = pay.from;
  const to = pay.to;
  const asked = amount();
  if (from === null || to === null || asked < 1) return;
  const button = $("pad-pay");
  const note = $("pad-note").value.trim();
  const check = bigPayment(from, to, asked);
  let sold = 0;
  if (check) {
    button.dataset.busy = "1";
    button.disabled = true;
    const answer = await ask(check.title, [check.why, ...check.lines],
                             [{ label: t("Change it"), value: false, cls: "quiet" },
                              { label: t("Pay {amount}", { amount: asked }), value: true, cls: "warn" }],
                             "confirm-pay", check.sale ? saleBox(check.sale, asked) : undefined);
    const sale = $("sale-value");
    sold = sale && Number(sale.value) > 0 ? Math.floor(Number(sale.value)) : 0;
    delete button.dataset.busy;
    renderPad();
    if (!answer) return;
  }
  const body = { from, to, amount: asked };
  if (sold) body.sold = sold;
  if (note) body.note = note;
  write("pay", "/api/transfers", body, { button }).then((reply) => {
    const args = { payer: title(from), payee: nameOf(to), amount: reply.amount ?? asked };
    let text = reply.message ? t("{payer} paid {payee} {amount} ({message})", { ...args, message: heard(reply, "message") })
      : t("{payer} paid {payee} {amount}", args);
    if (reply.sold) text = t("{payer} sold Property for {sold}, then: {text}", { payer: title(from), sold: reply.sold, text });
    resetPay();
    pay.done = { text, until: performance.now() + HOLD_MS };
    renderPad();
    setTimeout(() => renderPad(), HOLD_MS + 20);
    snack(reply.again ? t("That payment went through (once): {text}", { text }) : text, t("Undo"),
          () => undoLatest(reply.move));
  }).catch(() => {});
}

// -- the players --------------------------------------------------------------------------------

const lastBalance = new Map();  // player id -> the balance last drawn (a change flashes)

function renderPlayers() {
  const box = $("players");
  const worms = state.game.worms;
  const tiles = state.players.map((p) => {
    const tile = document.createElement("div");
    tile.className = "tile" + (p.current ? " current" : "") + (p.out ? " out" : "") + (p.linked ? " linked" : "");
    tile.style.setProperty("--colour", p.colour);
    tile.dataset.player = p.id;
    const pick = document.createElement("button");
    pick.className = "pick";
    pick.type = "button";
    pick.disabled = p.out || state.ended || watching();
    pick.innerHTML = '<span class="badge" hidden></span><span class="name"><span class="who"></span></span><span class="coins"></span><span class="owe"></span><span class="chars"></span><span class="extra"></span><span class="jail"></span><span class="turn"></span>';
    pick.querySelector(".who").textContent = p.name;
    if (p.linked) {
      const phone = document.createElement("span");
      phone.className = "phone";
      phone.title = t("Has a phone link");
      phone.setAttribute("role", "img");
      phone.setAttribute("aria-label", t("phone linked"));
      pick.querySelector(".name").append(phone);
    }
    pick.querySelector(".coins").textContent = p.out ? t("OUT") : p.balance;
    if (p.owes && !p.out) pick.querySelector(".owe").append(el("span", "owes", t("owes")));
    if (p.points !== null && (p.points || p.cards)) {
      pick.querySelector(".extra").textContent = `${pointWords(p.points)} · ${cardWords(p.cards)}`;
    }
    if (powers() && (p.characters || []).length) pick.querySelector(".chars").textContent = p.characters.map(charName).join(" & ");
    if (contestRules()) {  // the Boss or Grand Prix cards won, and the Property points typed
      const bits = [];
      if ((p.won || []).length) bits.push(`${word(contestRules().card_name)} ${p.won.join(", ")}`);
      if (p.points || p.cards) bits.push(tn("Property {n} point", "Property {n} points", p.points));
      pick.querySelector(".extra").textContent = bits.join(" · ");
    }
    if (p.in_jail && !p.out) {
      tile.classList.add("jailed");
      const tries = rules && rules.jail_tries;
      const jail = pick.querySelector(".jail");
      jail.append(Object.assign(document.createElement("span"), { className: "jail-badge", textContent: t("in Jail") }));
      // Tries are counted the same way in every edition: the block's (the Movie) or the table's.
      if (tries) jail.append(Object.assign(document.createElement("span"), { className: "jail-tries",
                                                                              textContent: tn("{done} of {n} try", "{done} of {n} tries", tries, { done: p.jail_tries }) }));
    }
    if (p.out) pick.querySelector(".turn").textContent = t("bankrupt");
    else if (p.current && state.game.simultaneous) pick.querySelector(".turn").textContent = t("slides the lever");
    else if (p.current) currentLabel(pick.querySelector(".turn"));
    pick.addEventListener("click", () => tapTile(p.id));
    tile.append(pick);
    if (worms) tile.append(wormRow(p, worms));
    if (lastBalance.has(p.id) && lastBalance.get(p.id) !== p.balance) tile.classList.add("flash");
    lastBalance.set(p.id, p.balance);
    return tile;
  });
  if (state.game.bank !== false && !watching() && !state.ended) tiles.push(bankTile());
  box.replaceChildren(...tiles);
  markTiles();
}

// "current player", its second word dropped where the tiles are narrow (.turn-more) when the
// language's long label starts with its short one; else the short label alone.
function currentLabel(box) {
  const short = t("current");
  const long = t("current player");
  if (long.startsWith(short) && long.length > short.length) {
    box.replaceChildren(short, el("span", "turn-more", long.slice(short.length)));
  } else box.textContent = short;
}

function bankTile() {
  const tile = document.createElement("div");
  tile.className = "tile bank-tile";
  tile.dataset.player = "bank";
  const pick = document.createElement("button");
  pick.className = "pick";
  pick.type = "button";
  pick.innerHTML = '<span class="badge" hidden></span><span class="name"></span><span class="extra"></span>';
  pick.querySelector(".name").textContent = t("Bank");
  pick.querySelector(".extra").textContent = t("pays or collects");
  pick.addEventListener("click", () => tapTile("bank"));
  tile.append(pick);
  return tile;
}

function wormRow(p, target) {
  // Tap a worm to say how many are found; tap the last found one again to take it back.
  const row = document.createElement("div");
  row.className = "worms";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", t("{name}: worms found", { name: p.name }));
  for (let k = 1; k <= target; k++) {
    const worm = document.createElement("button");
    worm.className = "worm" + (k <= p.worms ? " found" : "");
    worm.textContent = String(k);
    worm.setAttribute("aria-label", t("{name} has found {n}", { name: p.name, n: k }));
    worm.disabled = state.ended || watching();
    worm.addEventListener("click", () => {
      const found = k === p.worms ? k - 1 : k;
      write(`worms:${p.id}:${k}`, "/api/worms", { player: p.id, found }, { button: worm, sticky: true })
        .then(() => snack(tn("{name}: {n} worm found", "{name}: {n} worms found", found, { name: p.name }), t("Undo"), () => undoLatest()))
        .catch(() => {});
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
  if (withBank) options.unshift(new Option(t("Bank"), "bank"));
  select.replaceChildren(...options);
  if (keep !== undefined && [...select.options].some((o) => o.value === String(keep))) {
    select.value = String(keep);
  }
}

function renderWaiting() {
  const waiting = waitingOutcome();
  const bar = $("givebar");
  bar.hidden = !waiting;
  if (waiting) {
    $("give-what").textContent = t("Waiting: {what} — {instruction}. Tap the player it is for.",
                                  { what: bare(heard(waiting, "headline")), instruction: heard(waiting, "instruction") });
  }
  // Put off with "Later": given here, from a list.
  const later = watching() ? [] : state.unassigned.filter((o) => laterFor.has(o.id));
  const list = $("waiting");
  $("unassigned").hidden = later.length === 0;
  list.replaceChildren(...later.map((o) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = `${bare(heard(o, "headline"))} — ${heard(o, "instruction")}`;
    const pick = document.createElement("select");
    pick.setAttribute("aria-label", t("Who it is for"));
    fillSelect(pick, false, chosenFor.has(o.id) ? chosenFor.get(o.id) : state.current_player ?? undefined);
    pick.addEventListener("change", () => chosenFor.set(o.id, Number(pick.value)));
    const give = document.createElement("button");
    give.className = "big";
    give.textContent = t("Give");
    give.addEventListener("click", () => {
      const who = Number(pick.value);
      write("assign", "/api/assign", { outcome: o.id, player: who }, { button: give })
        .then((reply) => snack(t("{what} for {name}", { what: bare(heard(o, "headline")), name: title(who) }),
                               t("Undo"), () => undoLatest(reply.move)))
        .catch(() => {});
    });
    li.append(label, pick, give);
    return li;
  }));
}

// -- what the edition has: modes, jail, bankruptcy, points, worms -------------------------------

function renderReasons() {
  // The rules' own payments whose amount is printed on a piece (the Movie's Continue cost, on
  // each deed): a tap writes the reason as the payment's note; the amount is typed.
  const reasons = (rules && rules.reasons) || [];
  $("pad-reasons").replaceChildren(...reasons.map((r) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "big quiet reason";
    b.textContent = word(r.label);
    b.title = r.quote.join(" ");
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => {
      const on = b.getAttribute("aria-pressed") !== "true";
      for (const other of $("pad-reasons").children) other.setAttribute("aria-pressed", "false");
      b.setAttribute("aria-pressed", String(on));
      $("pad-note-box").hidden = !on && !$("pad-note").value;
      $("pad-note").value = on ? word(r.note) : "";
    });
    return b;
  }));
  $("pad-reasons").hidden = !reasons.length;
}

function renderRules() {
  if (!rules) return;
  renderReasons();
  const goRule = rules.pass_go;
  $("go").textContent = goRule ? t("Pass GO +{coins}", { coins: goRule.value }) : t("Pass GO");
  $("go").title = goRule ? goRule.quote.join(" ") : "";
  const jail = rules.jail_fee;
  $("jail").hidden = !jail;
  if (jail) {
    $("jail").textContent = t("Jail: pay {fee}", { fee: jail.value });
    $("jail").title = jail.quote.join(" ");
  }
  renderKeys();
  setRule($("debt-rule"), rules.debt.rule === "capped" ? word(rules.debt.text) : "",
          rules.debt.rule === "capped" ? rules.debt.quote : []);
  $("debt-rule").hidden = rules.debt.rule !== "capped";
  $("bankrupt-card").hidden = rules.debt.rule !== "bankruptcy";
  setRule($("bankrupt-rule"), rules.debt.rule === "bankruptcy" ? word(rules.debt.text) : "",
          rules.debt.rule === "bankruptcy" ? rules.end.quote : []);
  $("score-card").hidden = !rules.scoring;
  if (rules.scoring) {
    setRule($("score-rule"), "", [...rules.end.quote, ...rules.scoring.every.quote, ...rules.scoring.tie]);
  }
  $("at-once-box").hidden = !rules.turn.at_once.length;
  $("dealt-box").hidden = !(rules.dealt || []).length;
  const block = $("press");
  const main = rules.modes.find((m) => m.default);
  block.title = t("Press: {mode}", { mode: word(main.name) });
  block.textContent = main.table === "lever" ? t("Lever") : main.table === "die_roll" || main.table === "two_dice" ? t("Roll") : "?";
  block.classList.toggle("word", block.textContent.length > 1);
  document.body.classList.toggle("movie", Boolean(rules.toll));
  const inBar = renderBowserBar();
  $("modes").hidden = rules.modes.filter((m) => !m.automatic && !inBar.has(m.id)).length < 2;
  $("bowser-card").hidden = !rules.bowser_wins;
  setRule($("bowser-rule"), "", rules.bowser_wins ? rules.bowser_wins.quote : []);
  $("tiles-hint").textContent = hasJail()
    ? t("Pay: tap who pays, then who gets paid. A tapped tile also offers Make current, Phone link and Jail.")
    : t("Pay: tap who pays, then who gets paid. A tapped tile also offers Make current and Phone link.");
  $("mode-buttons").replaceChildren(...rules.modes.map((m) => {
    const b = document.createElement("button");
    b.className = "big mode";
    b.dataset.mode = m.id;
    b.textContent = word(m.name);
    b.title = m.quote.join(" ");
    b.addEventListener("click", () => {
      if (m.needs.length) { showRent(m); return; }
      $("rent").hidden = true;
      write("mode", "/api/mode", { mode: m.id }, { button: b }).catch(() => {});
    });
    return b;
  }));
}

// The amount pad: digits 1-9 and 0 (from empty, the small quick amounts are the digits
// themselves), then the larger quick amounts and the edition's jail fee and GO from /api/rules,
// each the whole amount at one tap.
function renderKeys() {
  const keys = [];
  const key = (label, value, cls, aria) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pad-key" + (cls ? " " + cls : "");
    b.textContent = label;
    if (aria) b.setAttribute("aria-label", aria);
    b.dataset.key = typeof value === "number" ? `=${value}` : value;  // "=5": the whole amount
    b.addEventListener("click", () => typeKey(value));
    keys.push(b);
  };
  for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"]) key(d, d);
  for (const q of (rules && rules.quick_amounts) || []) {
    if (q.named) key(heard(q, "label"), q.coins, "quick named", t("{label} coins", { label: heard(q, "label") }));
    else if (q.coins >= 10) key(q.label, q.coins, "quick", coinWords(q.coins));
  }
  $("keys").replaceChildren(...keys);
}

// A rule in the page's words, then the rulebook's own lines: a citation, kept as the English
// rulebook prints them (marked lang="en", so a screen reader says them in English).
function setRule(el, words, quote) {
  const parts = [];
  if (words) parts.push(document.createTextNode(words + (quote.length ? " " : "")));
  if (quote.length) {
    parts.push(Object.assign(document.createElement("q"), { className: "rulebook", lang: "en",
                                                           textContent: quote.join(" ") }));
  }
  el.replaceChildren(...parts);
}

function showRent(mode) {
  const form = $("rent");
  form.hidden = false;
  form.dataset.mode = mode.id;
  setRule($("rent-rule"), "", mode.quote);
  const utilities = $("rent-utilities");
  const chosen = utilities.value;
  utilities.replaceChildren(...Array.from({ length: mode.max_utilities }, (_, i) =>
    new Option(i === 0 ? t("1: rent = the roll") : t("{n}: rent = the roll × {n}", { n: i + 1 }), String(i + 1))));
  if (chosen) utilities.value = chosen;
  fillSelect($("rent-payer"), false, state.current_player ?? undefined);
  fillSelect($("rent-owner"), false, active().find((p) => p.id !== state.current_player)?.id);
}

// The armed mode in words: the server's sentence (text_said), else the edition's words for it.
function modeWords(mode) { return mode.text_said ? said(mode.text_said) : word(mode.text || mode.name); }

function renderModes() {
  const mode = state.mode;
  if (!mode) return;
  $("mode-now").textContent = modeWords(mode);
  for (const b of $("mode-buttons").children) b.classList.toggle("armed", b.dataset.mode === mode.id);
  $("modes").classList.toggle("armed", !mode.default);
  renderMovie();
}

// Who a player owes: whoever got their latest payment (the one that took them below zero), as
// the journal's latest lines show it; else the Bank.
function owedTo(id) {
  const line = (state.recent || []).find((l) => l.from === id && !l.undone_by && l.kind !== "undo");
  return line && typeof line.to === "number" ? line.to : "bank";
}

function renderBankrupt() {
  if ($("bankrupt-card").hidden) return;
  const below = active().find((p) => p.balance < 0);  // who can't pay: one below zero first
  fillSelect($("bankrupt-player"), false, below ? below.id : state.current_player ?? undefined);
  const who = Number($("bankrupt-player").value);
  if ($("bankrupt-creditor").dataset.chosen && $("bankrupt-creditor").dataset.for !== String(who)) {
    delete $("bankrupt-creditor").dataset.chosen;  // another player: whoever they owe
  }
  fillSelect($("bankrupt-creditor"), true, owedTo(who), active().filter((p) => p.id !== who));
  $("bankrupt-creditor").dataset.for = String(who);
}

function renderScores() {
  if ($("score-card").hidden) return;
  const box = $("score-rows");
  box.replaceChildren(...active().map((p) => scoreRow(p)));
}

// A player's points typed from their cards (Gamer, Mario Kart: the Property cards only; the
// Boss and Grand Prix cards are counted by the companion). What is typed and not saved yet is
// kept while the page redraws; nothing typed yet shows blank. The rows are one form: counting
// the score saves every row (saveScores), so nothing typed is ever left behind.
function scoreRow(p, inContest) {
  const property = Boolean(contestRules());
  const row = document.createElement("div");
  row.className = "score-row" + (inContest ? " in-contest" : "");
  row.dataset.player = p.id;
  row.innerHTML = '<span class="name"></span><label><span class="lp"></span> <input class="points" type="number" inputmode="numeric" min="0"></label>' +
    '<label><span class="lc"></span> <input class="cards" type="number" inputmode="numeric" min="0"></label>';
  row.querySelector(".name").textContent = p.name;
  row.querySelector(".lp").textContent = property ? t("Property points") : t("Points on cards");
  row.querySelector(".lc").textContent = property ? t("Property cards") : t("Cards");
  const points = row.querySelector(".points");
  const cards = row.querySelector(".cards");
  const draft = pointsDraft.get(p.id);
  const typed = p.points || p.cards;
  points.value = draft ? draft.points : typed ? p.points : "";
  cards.value = draft ? draft.cards : typed ? p.cards : "";
  cards.max = String(rules.scoring.max_cards.value);
  points.max = String(rules.scoring.max_points);
  row.addEventListener("input", () => pointsDraft.set(p.id, { points: points.value, cards: cards.value }));
  return row;
}

// Save every row of a score form (one write for each row that changed), asking first about the
// rows left blank: counted as 0, or typed. False when the table chose to type, or a row was
// refused (the page says why).
async function saveScores(box) {
  const rows = [...box.querySelectorAll(".score-row")];
  const blank = rows.filter((r) => r.querySelector(".points").value.trim() === "" || r.querySelector(".cards").value.trim() === "");
  if (blank.length) {
    const names = blank.map((r) => nameOf(Number(r.dataset.player)));
    const zero = await ask(t("Nothing typed for some players"),
      [tn("Nothing is typed for {names}: count 0 points and 0 cards?",
          "Nothing is typed for {names}: count 0 points and 0 cards for each?", names.length, { names: names.join(", ") })],
      [{ label: t("Type them"), value: false, cls: "quiet" }, { label: t("Count as 0"), value: true, cls: "warn" }], "blank-scores");
    if (!zero) { blank[0].querySelector(".points").focus(); return false; }
  }
  for (const row of rows) {
    const id = Number(row.dataset.player);
    const p = player(id);
    const points = Number(row.querySelector(".points").value || 0);
    const cards = Number(row.querySelector(".cards").value || 0);
    if (!p || (p.points === points && p.cards === cards)) { pointsDraft.delete(id); continue; }
    try {
      await write(`points:${id}`, "/api/points", { player: id, points, cards });
    } catch (err) {
      row.querySelector(".points").focus();
      return false;
    }
    pointsDraft.delete(id);
  }
  return true;
}

// -- the Movie edition: Bowser's toll, battles, the Piranha Plant and Super Star, Jail ------------

// Jail is kept for each player when the edition rolls for doubles from it.
function jailTracked() { return Boolean(modeRule((m) => m.table === "jail_roll")); }
function hasJail() { return Boolean(rules && rules.jail_fee); }

// What an armed space's button says under its name (built when drawn: in the page's language).
function barWords(table) {
  if (table === "red_die_pay") return t("pay the red die");
  if (table === "red_die_collect") return t("collect the red die");
  return null;
}

function barButton(id, main, sub, run, cls) {
  const b = document.createElement("button");
  b.type = "button";
  b.id = id;
  b.className = "big bar-btn" + (cls ? " " + cls : "");
  b.append(Object.assign(document.createElement("span"), { className: "bar-main", textContent: main }),
           Object.assign(document.createElement("span"), { className: "bar-sub", textContent: sub }));
  b.addEventListener("click", () => run(b));
  return b;
}

// The buttons for what happens on the board: Bowser passed players (his toll), a battle, the
// Piranha Plant and Super Star spaces (each arms the next press). Says which modes it offers.
function renderBowserBar() {
  const offered = new Set();
  const buttons = [];
  if (rules.toll) {
    buttons.push(barButton("toll", t("Bowser passed…"), tn("{n} coin each", "{n} coins each", rules.toll.value), openToll, "bowser"));
  }
  for (const m of rules.modes) {
    if (m.default || m.automatic) continue;
    if (m.table === "battle") {
      buttons.push(barButton("battle", word(m.name), m.fees.target ? t("{target} or more wins", { target: m.fees.target }) : t("team up"),
                             openBattle, "battle"));
      offered.add(m.id);
    } else if (barWords(m.table) && !m.needs.length) {
      const b = barButton(`arm-${m.id}`, word(m.name), barWords(m.table), (button) => armMode(m, button), "arm " + m.table);
      b.dataset.mode = m.id;
      b.title = m.quote.join(" ");
      buttons.push(b);
      offered.add(m.id);
    }
  }
  $("bowser-bar").hidden = buttons.length === 0;
  $("bowser-bar").replaceChildren(...buttons);
  return offered;
}

function defaultMode() { return rules ? rules.default_mode || (rules.modes.find((m) => m.default) || {}).id : "turn"; }

function armMode(m, button) {
  if (!state) return;
  const again = state.mode && state.mode.id === m.id;  // armed already: the tap disarms it
  write("mode", "/api/mode", { mode: again ? defaultMode() : m.id }, { button })
    .then(() => { if (again) snack(t("{mode}: cancelled", { mode: word(m.name) })); })
    .catch(() => {});
}

function renderMovie() {
  const mode = state.mode;
  const rule = mode ? modeRule((m) => m.id === mode.id) : undefined;
  const armed = Boolean(rules && (rules.toll || jailTracked()) && mode && !mode.default && !state.ended);
  const box = $("armed");
  box.hidden = !armed;
  if (armed) {
    const auto = Boolean(rule && rule.automatic);
    box.className = `armed coins-only playing mode-${mode.id}` + (auto ? " auto" : "");
    $("armed-label").textContent = auto ? t("Next press") : t("Armed: next press");
    $("armed-text").textContent = modeWords(mode);
    $("armed-cancel").hidden = auto;  // rolling from Jail is not armed by hand: nothing to cancel
  }
  $("bowser-waits").hidden = !state.bowser_waits || state.ended;
  for (const b of $("bowser-bar").querySelectorAll("[data-mode]")) {
    const on = Boolean(mode && b.dataset.mode === mode.id);
    b.classList.toggle("armed", on);
    b.setAttribute("aria-pressed", on ? "true" : "false");
    const sub = b.querySelector(".bar-sub");
    if (!sub.dataset.words) sub.dataset.words = sub.textContent;
    sub.textContent = on ? t("armed: tap to cancel") : sub.dataset.words;
  }
}

function playerRow(p, type, name, checked, disabled, note) {
  const row = document.createElement("label");
  row.className = "pick-row" + (disabled ? " off" : "");
  row.style.setProperty("--colour", p.colour);
  const input = Object.assign(document.createElement("input"), { type, name, value: String(p.id), checked, disabled });
  const who = Object.assign(document.createElement("span"), { className: "pick-name", textContent: p.name });
  const what = Object.assign(document.createElement("span"), { className: "pick-note", textContent: note || "" });
  row.append(input, who, what);
  return row;
}

// Bowser passed players: every player ticked but those in Jail (who pay none); the banker
// unticks anyone on Free Parking. One write, one move, one undo.
async function openToll() {
  if (!state || !rules.toll) return;
  const toll = rules.toll.value;
  const list = document.createElement("div");
  list.className = "pick-list";
  const rows = active().map((p) => playerRow(p, "checkbox", "toll", !p.in_jail, Boolean(p.in_jail), ""));
  list.append(...rows);
  const note = Object.assign(document.createElement("p"), { className: "dialog-note",
    textContent: t("Players on Free Parking pay none: untick them.") });
  const box = document.createElement("div");
  box.append(list, note);
  const asked = ask(t("Bowser passed…"), [tn("Tick every player Bowser passed: each pays the Bank {n} coin.",
                                             "Tick every player Bowser passed: each pays the Bank {n} coins.", toll)],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Pay the toll"), value: true, cls: "pay-now" }], "toll", box);
  const go = $("dialog-buttons").lastElementChild;
  const ticked = () => rows.map((r) => r.querySelector("input")).filter((i) => i.checked).map((i) => Number(i.value));
  const update = () => {
    for (const r of rows) {
      const p = player(Number(r.querySelector("input").value));
      const on = r.querySelector("input").checked;
      r.classList.toggle("on", on);
      r.querySelector(".pick-note").textContent = p.in_jail ? t("in Jail: no toll") : on ? `${p.balance} → ${p.balance - toll}` : t("no toll");
    }
    const ids = ticked();
    go.dataset.off = ids.length ? "" : "1";
    if (!go.classList.contains("arming")) go.disabled = ids.length === 0;
    go.textContent = ids.length === 0 ? t("Nobody ticked") : ids.length === 1 ? t("{name} pays {coins}", { name: title(ids[0]), coins: toll })
      : tn("{n} player pays {coins} each", "{n} players pay {coins} each", ids.length, { coins: toll });
  };
  list.addEventListener("change", update);
  update();
  if (!(await asked)) return;
  const players = ticked();
  if (!players.length) return;
  write("toll", "/api/toll", { players }, { button: $("toll") })
    .then((move) => snack(move.text ? heard(move, "text") : t("Bowser's toll paid"), t("Undo"), () => undoLatest(move.id)))
    .catch(() => {});
}

// A battle: the leader (the current player unless in Jail) and a teammate who is not in Jail.
async function openBattle() {
  if (!state) return;
  const m = modeRule((x) => x.table === "battle");
  const free = active().filter((p) => !p.in_jail);
  if (!m) return;
  if (!free.length) { showError(t("Everyone is in Jail: nobody can battle Bowser.")); return; }
  const current = free.find((p) => p.id === state.current_player);
  let leader = (current || free[0]).id;
  let mate = null;
  const box = document.createElement("div");
  box.className = "battle-picks";
  const leaders = Object.assign(document.createElement("fieldset"), { className: "pick-set" });
  leaders.append(Object.assign(document.createElement("legend"), { textContent: t("Leader: who met Bowser") }));
  const leaderList = Object.assign(document.createElement("div"), { className: "pick-list chips" });
  leaders.append(leaderList);
  const mates = Object.assign(document.createElement("fieldset"), { className: "pick-set" });
  mates.append(Object.assign(document.createElement("legend"), { textContent: t("Teams up with") }));
  const mateList = Object.assign(document.createElement("div"), { className: "pick-list chips" });
  mates.append(mateList);
  const jailed = active().filter((p) => p.in_jail);
  const jailNote = Object.assign(document.createElement("p"), { className: "dialog-note",
    textContent: jailed.length ? t("In Jail, can't battle: {names}.", { names: jailed.map((p) => p.name).join(", ") }) : "" });
  jailNote.hidden = !jailed.length;
  box.append(leaders, mates, jailNote);
  const f = m.fees || {};
  const why = f.target ? tn("Each rolls one die: {target} or more beats Bowser and both collect {n} coin; less, and the leader goes to Jail.",
                            "Each rolls one die: {target} or more beats Bowser and both collect {n} coins; less, and the leader goes to Jail.",
                            f.prize, { target: f.target })
    : m.quote.join(" ");
  const asked = ask(word(m.name), [why], [{ label: t("Cancel"), value: false, cls: "quiet" },
                                          { label: t("Arm the battle"), value: true, cls: "battle-go" }], "battle", box);
  const go = $("dialog-buttons").lastElementChild;
  const draw = () => {
    leaderList.replaceChildren(...free.map((p) => playerRow(p, "radio", "leader", p.id === leader, false, "")));
    const options = free.filter((p) => p.id !== leader);
    if (mate === leader || !options.some((p) => p.id === mate)) mate = options.length === 1 ? options[0].id : null;
    mateList.replaceChildren(...options.map((p) => playerRow(p, "radio", "teammate", p.id === mate, false, "")));
    if (!options.length) {
      mateList.append(Object.assign(document.createElement("p"), { className: "dialog-note",
        textContent: t("Nobody else can battle: {name} rolls both dice.", { name: title(leader) }) }));
    }
    for (const r of box.querySelectorAll(".pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    const ready = mate !== null || !options.length;
    go.dataset.off = ready ? "" : "1";
    if (!go.classList.contains("arming")) go.disabled = !ready;
    go.textContent = !ready ? t("Pick a teammate") : mate === null ? t("{name} battles alone", { name: title(leader) })
      : t("{leader} + {teammate}: battle!", { leader: title(leader), teammate: title(mate) });
  };
  box.addEventListener("change", (ev) => {
    if (ev.target.name === "leader") leader = Number(ev.target.value);
    if (ev.target.name === "teammate") mate = Number(ev.target.value);
    draw();
  });
  draw();
  if (!(await asked)) return;
  write("battle", "/api/battle", { leader, teammate: mate }, { button: $("battle") }).catch(() => {});
}

// -- coins on the board (Gamer, Mario Kart): piles on spaces, dropped and scooped up -------------

function boardRules() { return rules && rules.board ? rules.board : null; }

function sameSpace(a, b) { return String(a).toLowerCase() === String(b).toLowerCase(); }

function renderCoinsBoard() {
  const board = boardRules();
  $("coins-card").hidden = !board;
  if (!board) return;
  const piles = (state.board || []).filter((pile) => pile.coins > 0);
  $("piles-empty").hidden = piles.length > 0;
  $("piles").replaceChildren(...piles.map((pile) => {
    const li = document.createElement("li");
    li.className = "pile";
    li.dataset.space = pile.space;
    const coin = Object.assign(document.createElement("span"), { className: "pile-coin", textContent: String(pile.coins) });
    coin.setAttribute("aria-hidden", "true");
    const words = Object.assign(document.createElement("span"), { className: "pile-words" });
    words.append(Object.assign(document.createElement("span"), { className: "pile-space", textContent: word(pile.space) }),
                 Object.assign(document.createElement("span"), { className: "pile-count", textContent: coinWords(pile.coins) }));
    li.append(coin, words);
    if (!watching() && !state.ended) {
      const scoop = Object.assign(document.createElement("button"), { type: "button", className: "big quiet pile-scoop write", textContent: t("Scoop") });
      scoop.setAttribute("aria-label", tn("Scoop the {n} coin on {space}", "Scoop the {n} coins on {space}", pile.coins, { space: word(pile.space) }));
      scoop.addEventListener("click", () => openScoop(pile, scoop));
      li.append(scoop);
    }
    return li;
  }));
}

function moveSnack(move, fallback) {
  const message = move.message ? heard(move, "message") : move.data && move.data.message ? heard(move.data, "message") : "";
  const text = message || heard(move, "text") || fallback;  // the player had less: the server says so
  if (move.entries && move.entries.length === 0) snack(text);  // nothing moved: nothing to undo
  else snack(text, t("Undo"), () => undoLatest(move.id));
}

// Who scoops up a pile: the current player unless another is picked.
async function openScoop(pile, button) {
  if (!state) return;
  const players = active();
  if (!players.length) return;
  const current = players.find((p) => p.id === state.current_player);
  let who = (current || players[0]).id;
  const list = Object.assign(document.createElement("div"), { className: "pick-list chips" });
  const space = word(pile.space);
  const asked = ask(t("Scoop {space}", { space }), [tn("{n} coin on {space}: who scoops them up?",
                                                       "{n} coins on {space}: who scoops them up?", pile.coins, { space })],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Scoop"), value: true, cls: "pay-now" }], "scoop", list);
  const go = $("dialog-buttons").lastElementChild;
  const draw = () => {
    list.replaceChildren(...players.map((p) => playerRow(p, "radio", "scooper", p.id === who, false, "")));
    for (const r of list.querySelectorAll(".pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    go.textContent = t("{name} scoops {coins}", { name: title(who), coins: pile.coins });
  };
  list.addEventListener("change", (ev) => { who = Number(ev.target.value); draw(); });
  draw();
  if (!(await asked)) return;
  write("scoop", "/api/scoops", { player: who, space: pile.space }, { button })
    .then((move) => moveSnack(move, t("{name} scooped up the coins on {space}", { name: title(who), space })))
    .catch(() => {});
}

// Drop coins from a tapped tile: the space (the rulebook's, a pile's, or one typed as printed on
// the board; in Jail, only the jail space) and how many.
async function openDrop() {
  const board = boardRules();
  const p = typeof pay.from === "number" ? player(pay.from) : null;
  if (!board || !p) return;
  const jailed = Boolean(p.in_jail);
  const names = [];
  for (const name of jailed ? [board.jail_space] : [...board.spaces, ...(state.board || []).map((x) => x.space)]) {
    if (!names.some((n) => sameSpace(n, name))) names.push(name);
  }
  let space = jailed ? board.jail_space : null;
  let coins = null;
  const box = document.createElement("div");
  box.className = "drop-picks";
  const spaces = Object.assign(document.createElement("fieldset"), { className: "pick-set" });
  spaces.append(Object.assign(document.createElement("legend"), { textContent: t("On which space") }));
  const spaceList = Object.assign(document.createElement("div"), { className: "pick-list chips space-chips" });
  spaces.append(spaceList);
  const other = Object.assign(document.createElement("input"), { id: "drop-other", maxLength: 40, autocomplete: "off",
    placeholder: t("its name") });
  const otherBox = Object.assign(document.createElement("label"), { className: "drop-other",
    textContent: t("Or another space, as printed on the board") });
  otherBox.append(other);
  if (!jailed) spaces.append(otherBox);
  else {
    spaces.append(Object.assign(document.createElement("p"), { className: "dialog-note",
      textContent: t("{name} is in Jail: coins go on {space}.", { name: p.name, space: word(board.jail_space) }) }));
  }
  const count = Object.assign(document.createElement("fieldset"), { className: "pick-set" });
  count.append(Object.assign(document.createElement("legend"), { textContent: t("How many coins") }));
  const keys = Object.assign(document.createElement("div"), { className: "drop-keys" });
  const typed = Object.assign(document.createElement("input"), { id: "drop-coins", type: "number", min: "1", max: "999",
    inputMode: "numeric", placeholder: "6+" });
  typed.setAttribute("aria-label", t("Coins to drop"));
  for (let n = 1; n <= 5; n++) {
    const b = Object.assign(document.createElement("button"), { type: "button", className: "drop-key", textContent: String(n) });
    b.dataset.coins = String(n);
    b.addEventListener("click", () => { coins = n; typed.value = ""; draw(); });
    keys.append(b);
  }
  keys.append(typed);
  count.append(keys);
  box.append(spaces, count);
  const asked = ask(t("{name} drops coins", { name: p.name }),
    [tn("{name} has {n} coin. Dropped coins stay on the space until someone scoops them up.",
        "{name} has {n} coins. Dropped coins stay on the space until someone scoops them up.", p.balance, { name: p.name })],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Drop"), value: true, cls: "pay-now" }], "drop", box);
  const go = $("dialog-buttons").lastElementChild;
  const draw = () => {
    spaceList.replaceChildren(...names.map((name) => {
      const row = document.createElement("label");
      const on = space !== null && other.value.trim() === "" && sameSpace(space, name);
      row.className = "pick-row space-row" + (on ? " on" : "");
      const input = Object.assign(document.createElement("input"), { type: "radio", name: "space", value: name, checked: on });
      row.append(input, Object.assign(document.createElement("span"), { className: "pick-name", textContent: word(name) }));
      const pile = (state.board || []).find((x) => sameSpace(x.space, name));
      if (pile && pile.coins) row.append(Object.assign(document.createElement("span"), { className: "pick-note", textContent: `${pile.coins}` }));
      return row;
    }));
    for (const b of keys.querySelectorAll(".drop-key")) b.setAttribute("aria-pressed", String(Number(b.dataset.coins) === coins));
    const ready = space !== null && space !== "" && coins !== null && coins >= 1;
    go.dataset.off = ready ? "" : "1";
    if (!go.classList.contains("arming")) go.disabled = !ready;
    go.textContent = !space ? t("Pick a space") : !coins ? t("How many coins?") : t("Drop {coins} on {space}", { coins, space: word(space) });
  };
  spaceList.addEventListener("change", (ev) => { space = ev.target.value; other.value = ""; draw(); });
  other.addEventListener("input", () => { space = other.value.trim() || null; draw(); });
  typed.addEventListener("input", () => { const n = Number(typed.value); coins = Number.isInteger(n) && n >= 1 ? n : null; draw(); });
  draw();
  if (!(await asked)) return;
  const who = p.id;
  write(`drop:${who}`, "/api/drops", { player: who, space, coins }, { button: $("pad-drop") }).then((move) => {
    resetPay();
    moveSnack(move, tn("{name} drops {n} coin on {space}", "{name} drops {n} coins on {space}", coins, { name: title(who), space: word(space) }));
  }).catch(() => {});
}

function jailWrite(action, body, words) {
  const who = pay.from;
  const button = $(action);
  write(`${action}:${body.player}`, "/api/jail", body, { button, sticky: true }).then((reply) => {
    resetPay();
    const move = typeof reply.move === "number" ? reply.move : reply.id;
    snack(reply.text ? heard(reply, "text") : words(title(who), reply), t("Undo"), () => undoLatest(move));
  }).catch(() => {});
}

// -- Gamer and Mario Kart: characters, Power-up abilities, Boss fights and Races ----------------

function powers() { return rules && rules.powers ? rules.powers : null; }
function contestRules() { return rules && rules.contest ? rules.contest : null; }
function charName(id) {
  const c = powers() && powers().characters.find((x) => x.id === id);
  return c ? word(c.name) : String(id);
}
function picksWanted() {
  const pw = powers();
  if (!pw || !state) return 1;
  return pw.per_player[String(state.players.length)] || 1;
}
function takenBy(charId, pid) { return state.players.find((x) => x.id !== pid && (x.characters || []).includes(charId)); }
function ordinal(n) { return n === 1 ? t("1st") : n === 2 ? t("2nd") : n === 3 ? t("3rd") : t("{n}th", { n }); }
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// -- characters: each player's token(s); one each (two each at a table of two) ---------------

const charDraft = new Map();  // player id -> the characters ticked so far (two to pick)

function charChips(p, onDone) {
  const want = picksWanted();
  const row = el("div", "char-chips");
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", want > 1 ? t("{name}'s characters", { name: p.name }) : t("{name}'s character", { name: p.name }));
  const mine = charDraft.get(p.id) || p.characters || [];
  for (const c of powers().characters) {
    const other = takenBy(c.id, p.id);
    const b = el("button", "char-chip", word(c.name));
    b.type = "button";
    b.dataset.character = c.id;
    b.setAttribute("aria-pressed", String(mine.includes(c.id)));
    if (other) {
      b.disabled = true;
      b.append(el("span", "char-taker", t("{name}'s", { name: other.name })));
      b.setAttribute("aria-label", t("{character}: {name}'s", { character: word(c.name), name: other.name }));
    }
    b.addEventListener("click", () => pickCharacter(p, c.id, b, onDone));
    row.append(b);
  }
  return row;
}

function pickCharacter(p, id, button, onDone) {
  const want = picksWanted();
  let picked;
  if (want === 1) picked = [id];
  else {
    const now = [...(charDraft.get(p.id) || p.characters || [])].filter((x) => x !== id);
    if (now.length === (charDraft.get(p.id) || p.characters || []).length) now.push(id);  // ticked
    picked = now.slice(-want);
    if (picked.length < want) { charDraft.set(p.id, picked); shownChars = ""; renderCharacters(); if (onDone) onDone(false); return; }
  }
  charDraft.set(p.id, picked);
  write(`chars:${p.id}`, "/api/characters", { player: p.id, characters: picked }, { button })
    .then(() => { charDraft.delete(p.id); snack(t("{name} plays {characters}", { name: p.name, characters: picked.map(charName).join(" & ") })); if (onDone) onDone(true); })
    .catch(() => { charDraft.delete(p.id); shownChars = ""; renderCharacters(); });
}

let shownChars = "";
function renderCharacters() {
  const card = $("characters");
  const pw = powers();
  const want = picksWanted();
  const missing = pw && state && !state.ended && !watching() && active().some((p) => (p.characters || []).length < want);
  card.hidden = !missing;
  if (!missing) { shownChars = ""; return; }
  const key = JSON.stringify([currentLanguage(), state.players.map((p) => [p.id, p.name, p.characters, p.out]), [...charDraft]]);
  if (key === shownChars) return;
  shownChars = key;
  $("chars-title").textContent = want > 1 ? t("Characters: each player plays {n} tokens", { n: want }) : t("Characters: who plays which token?");
  $("char-rows").replaceChildren(...active().map((p) => {
    const row = el("div", "char-row");
    row.style.setProperty("--colour", p.colour);
    row.dataset.player = p.id;
    row.append(el("span", "char-who", p.name), charChips(p));
    return row;
  }));
}

function openCharacters() {
  const p = typeof pay.from === "number" ? player(pay.from) : null;
  if (!p || !powers()) return;
  const want = picksWanted();
  const box = el("div", "char-dialog");
  const draw = () => box.replaceChildren(charChips(p, (done) => { if (done) answerDialog(true); else draw(); }));
  draw();
  ask(want > 1 ? t("{name}'s characters", { name: p.name }) : t("{name}'s character", { name: p.name }),
      [want > 1 ? t("Tap {n} characters: each token is played by one player.", { n: want }) : t("Tap the token they play: each is played by one player.")],
      [{ label: t("Close"), value: false, cls: "quiet" }], "characters", box)
    .then(() => { charDraft.delete(p.id); resetPay(); });
}

// -- Power-up abilities, from a tapped tile --------------------------------------------------

function abilityFor(a, character) {
  const boost = character ? (a.boosts || []).find((b) => b.character === character) : null;
  return boost ? { ...a, ...boost, id: a.id, name: a.name, boosted: true } : { ...a, boosted: false };
}

function spaceNames() {
  const board = boardRules();
  const names = [];
  for (const name of [...(board ? board.spaces : []), ...(state.board || []).map((x) => x.space)]) {
    if (!names.some((n) => sameSpace(n, name))) names.push(name);
  }
  return names;
}

async function openPower() {
  const pw = powers();
  const p = typeof pay.from === "number" ? player(pay.from) : null;
  if (!pw || !p) return;
  const chars = p.characters || [];
  let character = chars[0] || null;
  const box = el("div", "power-picks");
  const draw = () => {
    const parts = [];
    if (chars.length > 1) {
      const set = el("fieldset", "pick-set");
      set.append(el("legend", "", t("Which character's turn")));
      const list = el("div", "pick-list chips");
      for (const c of chars) {
        const row = el("label", "pick-row" + (c === character ? " on" : ""));
        row.style.setProperty("--colour", p.colour);
        const input = Object.assign(document.createElement("input"), { type: "radio", name: "power-char", value: c, checked: c === character });
        input.addEventListener("change", () => { character = c; draw(); });
        row.append(input, el("span", "pick-name", charName(c)));
        list.append(row);
      }
      set.append(list);
      parts.push(set);
    } else if (!chars.length) {
      parts.push(el("p", "dialog-note", t("{name} has no character yet: no boosts, and no Super Star (tap Character first).", { name: p.name })));
    }
    const faces = el("div", "power-faces");
    for (const a of pw.abilities.filter((x) => !x.star)) {
      const how = abilityFor(a, character);
      const b = el("button", "power-face" + (how.boosted ? " boosted" : ""));
      b.type = "button";
      b.dataset.ability = a.id;
      const head = el("span", "pf-head");
      head.append(el("span", "pf-name", word(a.name)));
      if (how.boosted) head.append(el("span", "chip gold", t("{character} boost", { character: charName(character) })));
      b.append(head, el("span", "pf-text", word(how.text)));
      b.title = (how.quote || []).join(" ");
      b.addEventListener("click", () => answerDialog({ a, how, character }));
      faces.append(b);
    }
    const star = pw.abilities.find((x) => x.star && x.star === character);
    const sb = el("button", "power-face star");
    sb.type = "button";
    sb.dataset.ability = "super_star";
    const head = el("span", "pf-head");
    head.append(el("span", "pf-name", t("Super Star")));
    sb.append(head, el("span", "pf-text", star ? word(star.text) : t("Pick a character first")));
    sb.disabled = !star;
    if (star) sb.addEventListener("click", () => answerDialog({ a: star, how: { ...star, boosted: false }, character }));
    faces.append(sb);
    parts.push(faces);
    box.replaceChildren(...parts);
  };
  draw();
  const picked = await ask(t("{name}: Power-up", { name: p.name }), [t("Tap what the Power-up die shows (or Super Star).")],
    [{ label: t("Cancel"), value: false, cls: "quiet" }], "power", box);
  if (!picked) return;
  const body = { player: p.id, ability: picked.a.star ? "super_star" : picked.a.id };
  if (chars.length > 1 && picked.character) body.character = picked.character;
  const details = await powerDetails(p, picked.how, body);
  if (!details) return;
  write(`ability:${p.id}`, "/api/abilities", details, { button: $("pad-power") }).then((move) => {
    resetPay();
    undoSnack(move, t("{name}: {ability}", { name: p.name, ability: word(picked.how.name) }));
  }).catch(() => {});
}

// What an ability needs before it is sent: who it hits, where each dropping player stands, a
// number typed (a roll, the rent, the coins Toad drops), coins or spaces (Mario's Coins boost).
async function powerDetails(p, how, body) {
  const others = active().filter((x) => x.id !== p.id);
  const typedKind = { collect_roll: "roll", collect_typed: "rent", drop_up_to: "upto" }[how.effect] || null;
  const drops = how.effect === "drop" || how.effect === "drop_give";
  const choose = how.targets === "one" || how.targets === "two";
  if (!choose && !typedKind && !how.spaces_instead && !(drops && how.targets === "others")) return body;
  let targets = [];
  let coins = null;
  let instead = false;
  const where = new Map();  // player id -> the space typed or picked
  const box = el("div", "power-detail");
  const targetSet = el("fieldset", "pick-set");
  const spaceSet = el("fieldset", "pick-set where-set");
  const coinSet = el("fieldset", "pick-set");
  const droppers = () => {
    if (drops) return how.targets === "others" ? others : others.filter((x) => targets.includes(x.id));
    if (how.effect === "drop_up_to" && coins) return [p];
    return [];
  };
  if (choose) {
    targetSet.append(el("legend", "", how.targets === "two" ? t("Who: one or two players") : t("Who")));
    const list = el("div", "pick-list chips");
    for (const x of others) {
      const row = playerRow(x, how.targets === "two" ? "checkbox" : "radio", "target", false, false, x.in_jail ? t("in Jail") : "");
      list.append(row);
    }
    list.addEventListener("change", () => {
      const ticked = [...list.querySelectorAll("input:checked")].map((i) => Number(i.value));
      if (how.targets === "two" && ticked.length > 2) {  // a third tick: the oldest goes
        const drop = targets.find((t) => ticked.includes(t));
        list.querySelector(`input[value="${drop}"]`).checked = false;
      }
      targets = [...list.querySelectorAll("input:checked")].map((i) => Number(i.value));
      draw();
    });
    targetSet.append(list);
    box.append(targetSet);
  }
  if (typedKind) {
    const label = typedKind === "roll" ? t("The numbered die rolled") : typedKind === "rent" ? t("Rent counted (coins)")
      : t("Coins dropped (0 to {coins})", { coins: how.coins });
    coinSet.append(el("legend", "", label));
    if (typedKind === "rent") {
      const input = Object.assign(document.createElement("input"), { id: "power-coins", type: "number", min: "0", max: "200", inputMode: "numeric", placeholder: t("coins") });
      input.setAttribute("aria-label", label);
      input.addEventListener("input", () => { const n = Number(input.value); coins = input.value !== "" && Number.isInteger(n) && n >= 0 ? n : null; draw(); });
      coinSet.append(input);
    } else {
      const keys = el("div", "drop-keys power-keys");
      const [lo, hi] = typedKind === "roll" ? [1, 6] : [0, how.coins];
      for (let n = lo; n <= hi; n++) {
        const k = el("button", "drop-key", n);
        k.type = "button";
        k.dataset.coins = String(n);
        k.addEventListener("click", () => { coins = n; draw(); });
        keys.append(k);
      }
      coinSet.append(keys);
    }
    box.append(coinSet);
  }
  if (how.spaces_instead) {
    const set = el("fieldset", "pick-set");
    set.append(el("legend", "", t("Coins, or spaces instead")));
    const list = el("div", "pick-list chips");
    for (const [value, text] of [[false, tn("Collect {n} coin", "Collect {n} coins", how.coins)],
                                 [true, tn("Up to {n} space", "Up to {n} spaces", how.coins)]]) {
      const row = el("label", "pick-row" + (instead === value ? " on" : ""));
      row.style.setProperty("--colour", p.colour);
      const input = Object.assign(document.createElement("input"), { type: "radio", name: "instead", value: String(value), checked: instead === value });
      input.addEventListener("change", () => { instead = value; for (const r of list.children) r.classList.toggle("on", r.querySelector("input").checked); });
      row.append(input, el("span", "pick-name", text));
      list.append(row);
    }
    set.append(list);
    box.append(set);
  }
  box.append(spaceSet);
  const asked = ask(how.boosted ? t("{ability}: {character}'s boost", { ability: word(how.name), character: charName(how.character) }) : word(how.name),
    [word(how.text)],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Use it"), value: true, cls: "pay-now" }], "power-detail", box);
  const go = $("dialog-buttons").lastElementChild;
  let spacesKey = null;
  const drawSpaces = () => {
    const who = droppers();
    const key = JSON.stringify(who.map((x) => x.id));
    if (key === spacesKey) return;
    spacesKey = key;
    spaceSet.hidden = !who.length;
    const names = spaceNames();
    const board = boardRules();
    spaceSet.replaceChildren(el("legend", "", t("Where each one drops: the space they stand on")));
    for (const x of who) {
      const line = el("div", "where-row");
      line.style.setProperty("--colour", x.colour);
      line.dataset.player = x.id;
      if (x.in_jail) {
        line.append(el("span", "where-who", x.name), el("span", "where-jail", t("in Jail: drops on {space}", { space: word(board.jail_space) })));
        spaceSet.append(line);
        continue;
      }
      const label = el("label", "where-label", t("{name} stands on", { name: x.name }));
      const select = document.createElement("select");
      select.className = "where-space";
      select.id = `where-${x.id}`;
      select.append(new Option(t("Pick a space…"), ""), ...names.map((n) => new Option(word(n), n)), new Option(t("Another space…"), "*other"));
      const typed = Object.assign(document.createElement("input"), { className: "where-other", maxLength: 40, autocomplete: "off",
                                                                     placeholder: t("as printed on the board") });
      typed.setAttribute("aria-label", t("{name}: another space", { name: x.name }));
      const had = where.get(x.id);
      if (had && names.some((n) => n === had)) select.value = had;
      else if (had) { select.value = "*other"; typed.value = had; }
      typed.hidden = select.value !== "*other";
      select.addEventListener("change", () => {
        typed.hidden = select.value !== "*other";
        if (select.value === "*other") { where.delete(x.id); typed.focus(); } else if (select.value) where.set(x.id, select.value); else where.delete(x.id);
        draw();
      });
      typed.addEventListener("input", () => { if (typed.value.trim()) where.set(x.id, typed.value.trim()); else where.delete(x.id); draw(); });
      label.append(select);
      line.append(label, typed);
      spaceSet.append(line);
    }
  };
  const draw = () => {
    for (const r of box.querySelectorAll(".pick-list .pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    for (const k of box.querySelectorAll(".drop-key")) k.setAttribute("aria-pressed", String(Number(k.dataset.coins) === coins));
    drawSpaces();
    const who = droppers();
    const missingSpace = who.find((x) => !x.in_jail && !where.get(x.id));
    let need = null;
    if (choose && !targets.length) need = how.targets === "two" ? t("Pick one or two players") : t("Pick a player");
    else if (typedKind && coins === null) need = typedKind === "roll" ? t("Tap the roll") : typedKind === "rent" ? t("Type the rent") : t("How many coins?");
    else if (missingSpace) need = t("Where is {name}?", { name: missingSpace.name });
    go.dataset.off = need ? "1" : "";
    if (!go.classList.contains("arming")) go.disabled = Boolean(need);
    go.textContent = need || t("Use {ability}", { ability: word(how.name) });
  };
  draw();
  if (!(await asked)) return null;
  const out = { ...body };
  if (choose) out.targets = targets;
  const spaces = {};
  for (const x of droppers()) if (!x.in_jail) spaces[String(x.id)] = where.get(x.id);
  if (Object.keys(spaces).length) out.spaces = spaces;
  if (typedKind) out.coins = coins;
  if (instead) out.spaces_instead = true;
  return out;
}

// -- Boss fights (Gamer) and Races (Mario Kart): the card typed, then who fights or races -------

function contestPath() { const c = contestRules(); return c && c.kind === "race" ? "/api/race" : "/api/boss"; }

function numberField(id, label, value, extra) {
  const box = el("label", "card-field", label);
  const input = Object.assign(document.createElement("input"), { id, type: "number", min: "0", max: "500", inputMode: "numeric" });
  if (value !== undefined && value !== null) input.value = String(value);
  if (extra) Object.assign(input, extra);
  box.append(input);
  return [box, input];
}

async function openFlip(button) {
  const c = contestRules();
  const next = state && state.next_card;
  if (!c || !next || next.number === null) return;
  const race = c.kind === "race";
  const v = next.values || {};
  const box = el("form", "card-form");
  box.addEventListener("submit", (ev) => ev.preventDefault());
  const fields = [];
  let required = v.required ?? null;
  let payTo = v.pay_to || "bank";
  const [flipBox, flipper] = [el("label", "card-field wide", t("Flipped by")), document.createElement("select")];
  flipper.id = "card-flipper";
  fillSelect(flipper, false, state.current_player ?? undefined);
  flipBox.append(flipper);
  if (race) {
    const [feeBox, fee] = numberField("card-fee", t("Entry fee"), v.fee);
    const prizeBox = el("fieldset", "pick-set wide prize-set");
    prizeBox.append(el("legend", "", t("Prizes by place (coins)")));
    const row = el("div", "prize-row");
    const places = Math.max(1, Math.min(4, Math.max(active().length, (v.prizes || []).length)));
    const prizes = [];
    for (let i = 0; i < places; i++) {
      const [b, input] = numberField(`card-prize-${i + 1}`, ordinal(i + 1), (v.prizes || [])[i]);
      row.append(b);
      prizes.push(input);
    }
    prizeBox.append(row);
    const [pointsBox, points] = numberField("card-points", t("Points"), v.points);
    box.append(feeBox, pointsBox, prizeBox, flipBox);
    fields.push(fee, points, ...prizes);
    box.read = () => {
      const typed = prizes.map((i) => i.value.trim());
      const last = typed.reduce((n, t, i) => (t !== "" ? i + 1 : n), 0);
      return { fee: Number(fee.value), points: Number(points.value), prizes: typed.slice(0, Math.max(1, last)).map((t) => Number(t || 0)) };
    };
    box.ready = () => fee.value !== "" && points.value !== "" && prizes[0].value !== "";
  } else {
    const [costBox, cost] = numberField("card-cost", t("Roll cost"), v.cost);
    const reqSet = el("fieldset", "pick-set wide");
    reqSet.append(el("legend", "", t("Roll needed to win (or higher)")));
    const keys = el("div", "drop-keys need-keys");
    for (let n = 1; n <= 6; n++) {
      const k = el("button", "drop-key", n);
      k.type = "button";
      k.dataset.required = String(n);
      k.addEventListener("click", () => { required = n; box.draw(); });
      keys.append(k);
    }
    reqSet.append(keys);
    const payTo_ = el("fieldset", "pick-set wide");
    payTo_.append(el("legend", "", t("The roll cost goes to")));
    const payList = el("div", "pick-list chips pay-to");
    for (const [value, text] of [["bank", t("the Bank")], ["card", t("the Boss card")]]) {
      const row = el("label", "pick-row");
      row.style.setProperty("--colour", "#e8a800");
      const input = Object.assign(document.createElement("input"), { type: "radio", name: "pay_to", value, checked: payTo === value });
      input.addEventListener("change", () => { payTo = value; box.draw(); });
      row.append(input, el("span", "pick-name", text));
      payList.append(row);
    }
    payTo_.append(payList);
    const [bonusBox, bonus] = numberField("card-bonus", t("Bonus coins"), v.bonus);
    const [pointsBox, points] = numberField("card-points", t("Points"), v.points);
    box.append(costBox, pointsBox, reqSet, payTo_, bonusBox, flipBox);
    fields.push(cost, bonus, points);
    box.read = () => ({ cost: Number(cost.value), required, pay_to: payTo, bonus: Number(bonus.value), points: Number(points.value) });
    box.ready = () => cost.value !== "" && bonus.value !== "" && points.value !== "" && required !== null;
  }
  const name = cardLabel(c, next.number);
  const lines = [next.values ? t("As typed in an earlier game: check them against the card.") : t("Type the numbers printed on {card}.", { card: name })];
  if (next.final) lines.push(race ? t("The final Race: its prize is a rematch, then the game ends.") : t("The final Boss: the game ends when this fight is over."));
  const heading = !next.final ? t("Flip {card}", { card: name }) : race ? t("Final Race: {card}", { card: name }) : t("Final Boss: {card}", { card: name });
  const asked = ask(heading, lines,
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Flip {card}", { card: name }), value: true, cls: "pay-now" }], "flip", box);
  const go = $("dialog-buttons").lastElementChild;
  box.draw = () => {
    for (const r of box.querySelectorAll(".pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    for (const k of box.querySelectorAll("[data-required]")) k.setAttribute("aria-pressed", String(Number(k.dataset.required) === required));
    const ready = box.ready();
    go.dataset.off = ready ? "" : "1";
    if (!go.classList.contains("arming")) go.disabled = !ready;
    go.textContent = ready ? t("Flip {card}", { card: name }) : t("Type the card's numbers");
  };
  box.addEventListener("input", box.draw);
  box.draw();
  if (!(await asked)) return;
  const body = { action: "open", card: box.read(), player: Number(flipper.value) };
  write("contest:open", contestPath(), body, { button }).then((move) => undoSnack(move, t("{card} is open", { card: name }))).catch(() => {});
}

// A move's own words in the snackbar, with Undo (a contest step moves no coins and is a move).
function undoSnack(move, fallback) {
  snack(heard(move, "message") || heard(move, "text") || fallback, t("Undo"), () => undoLatest(move.id));
}

// A contest card by its name and number ("Boss 3").
function cardLabel(c, number) { return `${word(c.card_name)} ${number}`; }

// Names as a list: "A and B", "A, B and C".
function andList(names) {
  if (names.length < 2) return names.join("");
  return t("{names} and {last}", { names: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}

function contestWrite(action, body, button, fallback) {
  return write(`contest:${action}`, contestPath(), body, { button })
    .then((move) => { undoSnack(move, fallback); return move; });
}

function cardChips(card, race) {
  const chips = el("div", "contest-chips");
  const add = (text, cls) => chips.append(el("span", `chip ${cls || ""}`.trim(), text));
  if (race) {
    add(t("fee {coins}", { coins: card.fee }), "coin");
    add(card.prizes.map((n, i) => `${ordinal(i + 1)} ${n}`).join(" · "), "gold");
  } else {
    add(card.pay_to === "card" ? t("cost {coins} onto the card", { coins: card.cost }) : t("cost {coins}", { coins: card.cost }), "coin");
    add(t("needs {roll}+ ({chance})", { roll: card.required, chance: card.chance }), "gold");
    if (card.bonus) add(t("bonus {coins}", { coins: card.bonus }), "good coin");
  }
  add(pointWords(card.points));
  return chips;
}

function rollButton(who) {
  const b = el("button", "big contest-roll write");
  b.type = "button";
  b.id = "contest-press";
  b.append(el("span", "cr-block", "?"), el("span", "cr-words", t("Press the block for {name}", { name: title(who) })));
  b.addEventListener("click", () => $("press").click());
  b.disabled = held.has($("press"));
  return b;
}

const raceTicks = new Map();  // race move key -> the players ticked to enter
let shownContest = "";

function renderContest() {
  const box = $("contest");
  const c = contestRules();
  const fight = state.fight;
  const race = state.race;
  const next = state.next_card;
  if (!c || state.ended || (!fight && !race && (!next || watching()))) {
    box.hidden = true;
    shownContest = "";
    return;
  }
  const key = JSON.stringify([fight, race, next, watching(), state.players.map((p) => [p.id, p.name, p.balance, p.in_jail, p.points, p.cards, p.colour]), [...raceTicks], [...pointsDraft]]);
  if (key === shownContest) return;
  shownContest = key;
  box.hidden = false;
  box.className = "contest " + (fight ? "boss" : race ? "race" : "flip") + ((fight && fight.final) || (race && race.final) ? " final" : "");
  if (fight) box.replaceChildren(...fightPanel(fight, c));
  else if (race) box.replaceChildren(...racePanel(race, c, next));
  else box.replaceChildren(...flipBar(c, next));
}

function flipBar(c, next) {
  if (next.number === null) {  // every card played and the game still open: count it here
    const b = el("button", "big contest-flip write", t("Count the final score"));
    b.type = "button";
    b.addEventListener("click", () => $("end").click());
    return [el("p", "contest-note", t("Every {card} card has been played.", { card: word(c.card_name) })), b];
  }
  const b = el("button", "big contest-flip write");
  b.type = "button";
  b.id = "contest-flip";
  const race = c.kind === "race";
  const who = next.due && state.current_player !== null ? title(state.current_player) : null;
  if (next.due) b.classList.add("due");
  const sub = who ? (race ? t("{name} passed GO: a Race at the end of the turn", { name: who })
                           : t("{name} passed GO: a Boss fight at the end of the turn", { name: who }))
    : race ? t("when someone lands on or passes GO: a Race") : t("when someone lands on or passes GO: a Boss fight");
  b.append(el("span", "cf-main", t("Flip {card}", { card: cardLabel(c, next.number) })),
           el("span", "cf-sub", sub + (next.final ? " " + (race ? t("(the final Race)") : t("(the final Boss fight)")) : "")));
  b.addEventListener("click", () => openFlip(b));
  return [b];
}

function contestHead(name, card, race, final) {
  const head = el("div", "contest-head");
  const titleRow = el("h2", "contest-title", name);
  if (final) titleRow.append(el("span", "chip bad", race ? t("final Race") : t("final Boss")));
  head.append(titleRow, cardChips(card, race));
  return head;
}

function fightPanel(f, c) {
  const card = f.card;
  const parts = [contestHead(cardLabel(c, card.number), card, false, f.final)];
  // Who may fight, in order: their rolls, passes, whose choice it is.
  const list = el("ol", "contest-order");
  for (const id of f.order) {
    const p = player(id);
    const li = el("li", "co-row");
    li.style.setProperty("--colour", p ? p.colour : "#9a9ac0");
    li.append(el("span", "co-name", title(id)));
    const rolls = f.rolls.filter((r) => r.player === id);
    for (const r of rolls) li.append(el("span", "chip " + (r.roll >= card.required ? "good" : "bad"), t("rolled {roll}", { roll: r.roll })));
    if (f.passed.includes(id)) li.append(el("span", "chip", t("passed")));
    if (f.winner === id) { li.classList.add("won"); li.append(el("span", "chip gold", t("won"))); }
    if (f.up === id) { li.classList.add("up"); li.append(el("span", "chip now", t("to choose"))); }
    if (f.fighter === id) { li.classList.add("up"); li.append(el("span", "chip now", t("paid: rolling"))); }
    list.append(li);
  }
  parts.push(list);
  if (card.pay_to === "card" && f.pot) {
    parts.push(el("p", "contest-note", tn("On the card: {n} coin (the winner takes them)", "On the card: {n} coins (the winner takes them)", f.pot)));
  }
  if (f.fighter !== null) {
    parts.push(el("p", "contest-say", watching()
      ? t("Press the block for {name}: {roll} or more wins", { name: title(f.fighter), roll: card.required })
      : t("{name} paid {cost}: {roll} or more wins", { name: title(f.fighter), cost: card.cost, roll: card.required })));
    if (!watching()) parts.push(rollButton(f.fighter));
  } else if (f.up !== null) {
    const p = player(f.up);
    const poor = p && p.balance < card.cost;
    parts.push(el("p", "contest-say", t("{name}: fight or pass?", { name: title(f.up) })));
    if (!watching()) {
      const row = el("div", "contest-buttons write");
      const fightB = el("button", "big battle-go", poor ? t("Can't pay {cost}", { cost: card.cost }) : t("Fight: pay {cost}", { cost: card.cost }));
      fightB.type = "button";
      fightB.id = "contest-fight";
      fightB.disabled = poor;
      fightB.addEventListener("click", () => contestWrite("fight", { action: "fight", player: f.up }, fightB, t("{name} fights", { name: title(f.up) })).catch(() => {}));
      const passB = el("button", "big quiet", t("Pass"));
      passB.type = "button";
      passB.id = "contest-pass";
      passB.addEventListener("click", () => contestWrite("pass", { action: "pass", player: f.up }, passB, t("{name} passes", { name: title(f.up) })).catch(() => {}));
      row.append(fightB, passB);
      parts.push(row);
    }
  } else if (f.over) {
    const result = el("div", "contest-result " + (f.winner !== null ? "won" : "away"));
    if (f.winner !== null) {
      result.append(el("strong", "", t("{name} beats {card}!", { name: title(f.winner), card: cardLabel(c, card.number) })));
      const got = [card.bonus ? t("+{coins} bonus", { coins: card.bonus }) : t("the card's Bonus by hand"),
                   f.pot ? t("+{coins} from the card", { coins: f.pot }) : "", keepsCard(card.points)].filter(Boolean);
      result.append(el("span", "", got.join(" · ")));
    } else {
      result.append(el("strong", "", t("{card} got away", { card: cardLabel(c, card.number) })),
                    el("span", "", t("Everyone passed: the card leaves the game.")));
    }
    parts.push(result);
    parts.push(...closePart(f.final, c));
  }
  return parts;
}

function keepsCard(points) { return tn("keeps the card: {n} point", "keeps the card: {n} points", points); }

function closePart(final, c, rematch) {
  const parts = [];
  if (final) {
    parts.push(el("p", "contest-note final-note", c.kind === "race"
      ? t("Final Race: closing shows the final score; type Property points first")
      : t("Final Boss: closing shows the final score; type Property points first")));
    if (!watching()) parts.push(pointsBox());
  }
  if (watching()) return parts;
  const done = el("button", "big pay-now contest-done write",
                  final ? (rematch === false ? t("No rematch: final score") : t("Done: the final score")) : t("Done"));
  done.type = "button";
  done.id = "contest-close";
  done.addEventListener("click", async () => {  // the final one: every typed row first
    const rows = final ? $("contest").querySelector(".contest-points") : null;
    if (rows && !(await saveScores(rows))) return;
    contestWrite("close", { action: "close" }, done, t("Closed")).catch(() => {});
  });
  parts.push(done);
  return parts;
}

// Property points, typed before the final contest closes (the Boss and Grand Prix cards'
// points are counted by the companion).
const pointsDraft = new Map();  // player id -> {points, cards} typed, not yet saved
function pointsBox() {
  const box = el("div", "contest-points");
  for (const p of active()) box.append(scoreRow(p, true));
  return box;
}

function racePanel(r, c, next) {
  const card = r.card;
  const label = cardLabel(c, card.number);
  const parts = [contestHead(r.rematch ? t("{card} (rematch)", { card: label }) : label, card, true, r.final)];
  if (!r.started) {
    const tickKey = String(card.number) + (r.rematch ? "r" : "");
    if (!raceTicks.has(tickKey)) raceTicks.set(tickKey, []);
    const ticks = raceTicks.get(tickKey);
    parts.push(el("p", "contest-say", watching() ? t("Players enter the race") : t("Who races? Tick each player who pays {fee} to enter", { fee: card.fee })));
    const list = el("div", "pick-list race-entries");
    for (const p of active()) {
      const entered = r.entrants.includes(p.id);
      const may = r.order.includes(p.id);
      const poor = p.balance < card.fee;
      const off = entered || !may || poor || watching();
      const note = entered ? t("entered") : !may ? t("in Jail") : poor ? t("has {coins}", { coins: p.balance })
        : ticks.includes(p.id) ? `${p.balance} → ${p.balance - card.fee}` : "";
      const row = playerRow(p, "checkbox", "racer", entered || ticks.includes(p.id), off, note);
      row.classList.toggle("on", entered || ticks.includes(p.id));
      row.querySelector("input").addEventListener("change", (ev) => {
        const now = raceTicks.get(tickKey).filter((x) => x !== p.id);
        if (ev.target.checked) now.push(p.id);
        raceTicks.set(tickKey, now);
        renderContest();
      });
      list.append(row);
    }
    parts.push(list);
    if (!watching()) {
      const going = [...r.entrants, ...ticks.filter((id) => !r.entrants.includes(id))];
      const start = el("button", "big pay-now write", going.length ? t("Start: {names} race", { names: going.map(title).join(", ") })
        : t("Nobody races: discard the card"));
      start.type = "button";
      start.id = "contest-start";
      start.addEventListener("click", () => startRace(r, tickKey, start));
      parts.push(start);
    }
    return parts;
  }
  // Rolling: whose press, this round's rolls, a tie being re-rolled, the places so far.
  if (r.places.length) {
    const places = el("ol", "race-places");
    r.places.forEach((id, i) => {
      const li = el("li", "rp-row");
      li.style.setProperty("--colour", player(id) ? player(id).colour : "#9a9ac0");
      li.append(el("span", "rp-place", ordinal(i + 1)), el("span", "rp-name", title(id)));
      const prize = r.prizes.find((x) => x.player === id);
      if (prize) li.append(el("span", "chip gold coin", `+${prize.coins}`));
      places.append(li);
    });
    parts.push(places);
  }
  if (!r.over) {
    if (r.tied.length) {
      parts.push(el("p", "contest-note tie-line", t("Tie for {place}: {names} roll again",
                                                    { place: ordinal(r.places.length + 1), names: andList(r.tied.map(title)) })));
    }
    if (r.round.length) {
      const round = el("div", "contest-chips race-round");
      for (const x of r.round) round.append(el("span", "chip", `${title(x.player)} ${x.roll}`));
      parts.push(round);
    }
    parts.push(el("p", "contest-say", watching() ? t("Press the block for {name}", { name: title(r.roller) })
      : t("{name} rolls next", { name: title(r.roller) })));
    if (!watching()) parts.push(rollButton(r.roller));
    return parts;
  }
  const result = el("div", "contest-result won");
  result.append(el("strong", "", t("{name} wins {card}!", { name: title(r.winner), card: label })));
  const rolled = r.rolls.map((x) => `${title(x.player)} ${x.roll}`).join(", ");
  result.append(el("span", "", [keepsCard(card.points), rolled ? t("rolls: {rolls}", { rolls: rolled }) : t("the only racer")].join(" · ")));
  parts.push(result);
  if (r.final && !r.rematch && next && next.rematch_due && !watching()) {
    parts.push(el("p", "contest-note final-note", t("The final Race's prize: a rematch of any Grand Prix card a player holds. Closing shows the final score; type Property points first")));
    parts.push(pointsBox());
    const pick = el("label", "rematch-pick", t("Rematch card"));
    const select = document.createElement("select");
    select.id = "rematch-card";
    select.append(...next.held.map((n) => {
      const holder = state.players.find((p) => (p.won || []).includes(n));
      const held = cardLabel(c, n);
      return new Option(holder ? t("{card} ({name}'s)", { card: held, name: holder.name }) : held, String(n));
    }));
    pick.append(select);
    const row = el("div", "contest-buttons");
    const again = el("button", "big pay-now", t("Rematch"));
    again.type = "button";
    again.id = "contest-rematch";
    again.addEventListener("click", () => contestWrite("rematch", { action: "open", rematch: Number(select.value) }, again, t("Rematch")).catch(() => {}));
    const none = el("button", "big quiet", t("No rematch: final score"));
    none.type = "button";
    none.id = "contest-close";
    none.addEventListener("click", () => contestWrite("close", { action: "close" }, none, t("Closed")).catch(() => {}));
    row.append(again, none);
    parts.push(pick, row);
    return parts;
  }
  parts.push(...closePart(r.final, c));
  return parts;
}

async function startRace(r, tickKey, button) {
  const ticks = raceTicks.get(tickKey) || [];
  const todo = ticks.filter((id) => !r.entrants.includes(id));
  try {
    for (const id of todo) {
      await write(`contest:enter:${id}`, "/api/race", { action: "enter", player: id }, { button });
    }
    if (!r.entrants.length && !todo.length) {
      await contestWrite("close", { action: "close" }, button, t("Nobody races: the card is discarded"));
      return;
    }
    const move = await write("contest:start", "/api/race", { action: "start" }, { button });
    raceTicks.delete(tickKey);
    undoSnack(move, t("The race starts"));
  } catch (err) { /* shown at the top */ }
}

// -- the controls that follow the state: Undo says what it would undo ----------------------------

function renderControls() {
  const undo = $("undo");
  const what = state.undo;  // {move, text} or null; undefined from an older companion
  if (what === undefined) {
    $("undo-what").textContent = "";
    undo.setAttribute("aria-label", t("Undo the latest move"));
  } else {
    const move = heard(what, "text");
    $("undo-what").textContent = what ? move : t("nothing to undo");
    undo.setAttribute("aria-label", what ? t("Undo: {move}", { move }) : t("Nothing to undo"));
    undo.title = what ? t("Undo: {move}", { move }) : t("Nothing to undo");
    undo.disabled = !what || held.has(undo);
  }
  const current = state.current_player;
  const who = current === null ? null : player(current);
  const goRule = rules && rules.pass_go;
  $("go").disabled = current === null || held.has($("go"));
  if (who) {  // the buttons say whom they are for
    $("go").textContent = goRule ? t("{name} passes GO +{coins}", { name: who.name, coins: goRule.value }) : t("Pass GO");
  }
  if (rules && rules.jail_fee) {
    $("jail").textContent = who && who.in_jail
      ? t("{name} pays {fee} to leave Jail", { name: who.name, fee: rules.jail_fee.value })
      : t("Jail: pay {fee}", { fee: rules.jail_fee.value });
    $("jail").title = who && !who.in_jail ? t("{name} is not in Jail: the fee is only a way out", { name: who.name })
      : rules.jail_fee.quote.join(" ");
  }
  $("jail").disabled = !who || !who.in_jail || held.has($("jail"));
  const roller = $("contest-press");  // the contest's press: off while the block's is
  if (roller) roller.disabled = held.has($("press"));
  renderPad();
}

function undoLatest(moveId) {
  // The move the snackbar spoke of when its answer named it; else what Undo would undo now.
  const target = typeof moveId === "number" ? moveId : state.undo ? state.undo.move : undefined;
  if (state.undo === null) { showError(t("There is nothing to undo.")); return; }
  const body = target === undefined ? undefined : { move: target };
  const text = heard(state.undo, "text");
  write("undo", "/api/undo", body, { button: $("undo"), sticky: true }).then((reply) => {
    const undid = reply.undid && reply.undid.text ? heard(reply.undid, "text") : text;
    snack(t("Undone: {move}", { move: undid }), t("Redo"), redo);
  }).catch(() => {});
}

function redo() {
  const what = state.redo;
  if (!what) { showError(t("There is nothing to redo now.")); return; }
  write("redo", "/api/redo", { move: what.move }, { sticky: true }).then(() => {
    snack(t("Redone: {move}", { move: heard(what, "text") }), t("Undo"), () => undoLatest());
  }).catch(() => {});
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
  what.textContent = heard(m, "text");
  li.append(what);
  const coins = m.entries.reduce((sum, e) => sum + e.amount, 0);
  if (coins && m.kind !== "opening") {
    const amt = document.createElement("span");
    amt.className = "amt";
    amt.textContent = String(coins);
    amt.title = t("coins");
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
  older.className = "big older";
  older.textContent = t("Older");
  older.addEventListener("click", () => {
    older.disabled = true;
    loadOlder().catch(() => {}).finally(() => { older.disabled = false; });
  });
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
  // The seconds are not a live region (a screen reader would say each one): time-up is said.
  if (what === "time_up") { timeUpUntil = performance.now() + 4000; announce(t("Time's up!")); }
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
  const shownLeft = running ? String(Math.ceil(left)) : up ? "0" : timer ? String(Math.round(timer.seconds)) : "–";
  $("timer-left").textContent = shownLeft;
  box.classList.toggle("idle", !running && !up);
  $("timer-what").textContent = running ? (timer.label ? heard(timer, "label") : t("Time is running"))
    : up ? t("Time's up!") : timer && timer.lever ? t("Lever timer: pull the lever back and let go")
    : t("Timer: start it here");
  $("timer-fill").style.width = running && timer.duration
    ? `${Math.min(100, (100 * left) / timer.duration)}%` : "0%";
  $("timer-stop").disabled = !running;
  // The header's compact timer (landscape): seconds left and one start/stop button.
  const head = $("htimer");
  $("htimer-left").textContent = shownLeft === "–" ? "–" : t("{seconds} s", { seconds: shownLeft });
  head.className = "htimer " + (up ? "up" : running ? (left <= LAST_SECONDS ? "running urgent" : "running") : "idle");
  const go = $("htimer-go");
  go.textContent = running ? t("Stop") : t("Start");
  go.setAttribute("aria-label", running ? t("Stop the timer") : t("Start the timer"));
}
setInterval(drawTimer, 100);

// -- cards: taps on the reader, new cards to give to a player (or an action), one step each ------

const cardChoice = new Map();  // uid -> what was picked under "New cards"
function cardActions() {
  return { next_player: t("Next player"), pass_go: t("Pass GO"), press: t("Press the block"),
           timer: t("Start/stop the timer"), undo: t("Undo") };
}

async function loadActivity() {
  const data = await authGet("/api/activity").then((r) => r.json());
  const reader = data.reader;
  const where = reader ? { protocol: reader.protocol, port: reader.port } : null;
  $("reader-status").textContent = !reader ? t("· no reader configured")
    : reader.connected ? t("· {protocol} on {port}: connected", where) : t("· {protocol} on {port}: not connected", where);
  // Tables without a reader never see this section; with one, it shows taps and the link.
  $("taps").hidden = data.activity.length === 0 && !(reader && reader.connected);
  $("activity").replaceChildren(...data.activity.slice(0, 12).map((a) => {
    const li = document.createElement("li");
    const what = document.createElement("span");
    what.textContent = heard(a, "did");
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
    pick.setAttribute("aria-label", t("What this card does"));
    pick.append(...state.players.map((p) => new Option(p.name, "p" + p.id)));
    for (const [key, text] of Object.entries(cardActions())) pick.append(new Option(text, "a" + key));
    // Another tap rebuilds this list: keep what was picked for this card.
    if (cardChoice.has(uid) && [...pick.options].some((o) => o.value === cardChoice.get(uid))) {
      pick.value = cardChoice.get(uid);
    }
    pick.addEventListener("change", () => cardChoice.set(uid, pick.value));
    const give = document.createElement("button");
    give.className = "big";
    give.textContent = t("Assign");
    give.addEventListener("click", () => {
      const v = pick.value;
      const body = v[0] === "p" ? { uid, player: Number(v.slice(1)) } : { uid, action: v.slice(1) };
      give.disabled = true;
      api("POST", "/api/cards", body).then(() => loadActivity()).catch(() => {})
        .finally(() => { give.disabled = false; });
    });
    li.append(label, pick, give);
    return li;
  }));
}

// -- a question asked on the page (a native confirm can't show before and after) -----------------

let answerDialog = null;
function ask(heading, lines, buttons, name, extra) {
  const dialog = $("dialog");
  if (answerDialog) answerDialog(undefined);
  $("dialog-title").textContent = heading;
  const body = $("dialog-body");
  body.replaceChildren(...lines.map((line, i) => {
    const p = document.createElement("p");
    p.className = i === 0 ? "dialog-why" : "dialog-line";
    p.textContent = line;
    return p;
  }));
  if (extra) body.append(extra);
  dialog.dataset.name = name || "";
  return new Promise((resolve) => {
    answerDialog = (value) => {
      answerDialog = null;
      if (dialog.open) dialog.close();
      resolve(value);
    };
    $("dialog-buttons").replaceChildren(...buttons.map((b) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "big" + (b.cls ? " " + b.cls : "");
      button.textContent = b.label;
      button.addEventListener("click", () => answerDialog(b.value));
      armLater(button);
      return button;
    }));
    dialog.showModal();
  });
}
$("dialog").addEventListener("cancel", (ev) => { ev.preventDefault(); if (answerDialog) answerDialog(false); });
// Tab and Shift+Tab go round the dialog's own controls (the page behind is inert while it is
// open; without this the browser's own bar would be next).
$("dialog").addEventListener("keydown", (ev) => {
  if (ev.key !== "Tab") return;
  const controls = [...$("dialog").querySelectorAll("button, input, select, textarea, summary, a[href], [tabindex]")]
    .filter((e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length);
  if (!controls.length) return;
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (ev.shiftKey && (document.activeElement === first || !$("dialog").contains(document.activeElement))) {
    last.focus(); ev.preventDefault();
  } else if (!ev.shiftKey && document.activeElement === last) {
    first.focus(); ev.preventDefault();
  }
});

// -- players' phones: a link (and QR code) per player, which the banker can turn off --------------

function qrNode(svgText) {
  // The QR code comes from our own server as inline SVG markup (no xmlns: HTML's parser puts
  // it in the SVG namespace); only the <svg> is kept, without scripts or handlers.
  const doc = new DOMParser().parseFromString(String(svgText || ""), "text/html");
  const svg = doc.body.querySelector("svg");
  if (!svg) return null;
  for (const el of svg.querySelectorAll("script, foreignObject, a, use, image")) el.remove();
  const width = Number(svg.getAttribute("width"));
  const height = Number(svg.getAttribute("height"));
  if (!svg.getAttribute("viewBox") && width > 0 && height > 0) {
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);  // so it scales to the dialog
  }
  for (const el of [svg, ...svg.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) if (/^on/i.test(attr.name)) el.removeAttribute(attr.name);
  }
  svg.setAttribute("role", "img");
  return document.importNode(svg, true);
}

async function phoneLink(p) {
  const button = $("pad-phone");
  if (p.linked) {  // a new link turns the old one off: asked first
    const choice = await ask(t("{name}'s phone is linked", { name: p.name }),
      [t("A new link (and QR code) stops the one {name}'s phone has now; Turn off stops it with none new.", { name: p.name })],
      [{ label: t("Turn off"), value: "off", cls: "warn" }, { label: t("New link"), value: "new" }], "phone-linked");
    if (choice === "off") { turnOffPhone(p); return; }
    if (choice !== "new") return;
  }
  let reply;
  try {
    reply = await write(`link:${p.id}`, `/api/players/${p.id}/link`, undefined, { button });
  } catch (err) { return; }
  const box = document.createElement("div");
  box.className = "qr-box";
  const qr = document.createElement("div");
  qr.className = "qr";
  qr.id = "qr";
  const node = qrNode(reply.qr_svg);
  if (node) { node.setAttribute("aria-label", t("QR code of {name}'s link", { name: p.name })); qr.append(node); }
  const link = document.createElement("p");
  link.className = "qr-link";
  link.textContent = reply.lan_link || reply.link || "";
  box.append(qr, link);
  const name = reply.name || p.name;
  const answer = await ask(t("{name}'s phone", { name }),
    [t("Scan it with {name}'s phone (or open the link): they see their own coins and the table, and pay from their own account only.", { name })],
    [{ label: t("Turn off"), value: "off", cls: "warn" }, { label: t("Done"), value: "done" }],
    "phone-link", box);
  if (answer === "off") turnOffPhone(p);
  else resetPay();
}

function turnOffPhone(p) {
  write(`unlink:${p.id}`, `/api/players/${p.id}/link`, undefined, { method: "DELETE" })
    .then(() => { resetPay(); snack(t("{name}'s phone link is off", { name: p.name })); })
    .catch(() => {});
}

// -- games: a new one (asked first), earlier ones to resume ----------------------------------------

let editions = [];

async function loadEditions() {
  editions = (await fetch("/api/editions").then((r) => r.json())).editions;
  renderEditions();
}

function renderEditions() {
  const chosen = $("ng-edition").value;
  $("ng-edition").replaceChildren(...editions.map((e) => new Option(word(e.name), e.id)));
  if (chosen && editions.some((e) => e.id === chosen)) $("ng-edition").value = chosen;
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
    input.placeholder = i >= edition.min_players ? t("Player {n} (optional)", { n: i + 1 }) : t("Player {n}", { n: i + 1 });
    input.value = defaults[i] || "";
    input.maxLength = 24;
    input.setAttribute("aria-label", t("Player {n}", { n: i + 1 }));
    return input;
  }));
}

function when(at) {
  if (at === null || at === undefined) return "";
  const date = typeof at === "number" ? new Date(at < 1e12 ? at * 1000 : at) : new Date(at);
  if (Number.isNaN(date.getTime())) return String(at);
  let locale;
  try { locale = Intl.DateTimeFormat.supportedLocalesOf([currentLanguage()]).length ? currentLanguage() : undefined; } catch (_) { locale = undefined; }
  return date.toLocaleString(locale, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

function gameWords(g) { return `${word(g.name) || g.edition} · ${(g.players || []).join(", ")}`; }

let gamesAsked = 0;
let gamesShown = "";
async function loadGames() {
  const list = $("games");
  const asked = ++gamesAsked;
  let data;
  try {
    const reply = await authGet("/api/games");
    if (!reply.ok) throw new Error(String(reply.status));
    data = await reply.json();
    if (asked !== gamesAsked) return;  // a later load is on its way
    const seen = JSON.stringify(data);
    if (seen === gamesShown) return;  // unchanged: the buttons stay where a finger is
    gamesShown = seen;
  } catch (err) {
    gamesShown = "";
    list.replaceChildren(Object.assign(document.createElement("li"), { className: "muted", textContent: t("The list of games is not available.") }));
    return;
  }
  const games = data.games || [];
  if (!games.length) {
    list.replaceChildren(Object.assign(document.createElement("li"), { className: "muted", textContent: t("No earlier games.") }));
    return;
  }
  list.replaceChildren(...games.map((g) => {
    const li = document.createElement("li");
    li.dataset.game = g.id;
    const what = document.createElement("span");
    what.className = "game-what";
    what.textContent = gameWords(g);
    const more = document.createElement("span");
    more.className = "game-when";
    more.textContent = [when(g.created_at), g.ended ? t("ended") : ""].filter(Boolean).join(" · ");
    what.append(more);
    li.append(what);
    if (g.current) {
      const now = document.createElement("span");
      now.className = "game-now";
      now.textContent = t("playing now");
      li.append(now);
    } else {
      const resume = document.createElement("button");
      resume.className = "big quiet";
      resume.type = "button";
      resume.textContent = t("Resume");
      resume.addEventListener("click", () => resumeGame(g, resume));
      li.append(resume);
    }
    return li;
  }));
}

function runningWords() {
  if (!state) return t("the game being played");
  return t("{game} with {names}", { game: word(state.game.name), names: state.players.map((p) => p.name).join(", ") });
}

async function resumeGame(g, button) {
  const ok = await ask(t("Resume {game}?", { game: word(g.name) || g.edition }),
    [t("{game} becomes the game the table plays. {running} stops being played: it is kept as it is and can be resumed here.",
       { game: gameWords(g), running: runningWords() })],
    [{ label: t("Keep playing"), value: false, cls: "quiet" }, { label: t("Resume it"), value: true }], "confirm-resume");
  if (!ok) return;
  write(`resume:${g.id}`, `/api/games/${g.id}/resume`, undefined, { button })
    .then(() => { snack(t("Resumed: {game}", { game: gameWords(g) })); $("games-card").open = false; })
    .catch(() => {});
}

// -- putting it together ------------------------------------------------------------------------

async function loadRules() {
  rules = await fetch("/api/rules").then((r) => r.json());
  renderRules();
}

let shownCurrent;  // the current player as last drawn (undefined: nothing drawn yet)

function render() {
  if (state.game.id !== gameId) {  // a new game: forget choices made for the old one
    gameId = state.game.id;
    chosenFor.clear();
    laterFor.clear();
    charDraft.clear();
    raceTicks.clear();
    pointsDraft.clear();
    lastBalance.clear();
    lastOutcomeId = null;
    outcomeDrawn = false;
    for (const id of ["rent-payer", "rent-owner", "bankrupt-player", "bankrupt-creditor"]) {
      delete $(id).dataset.chosen;
    }
    $("rent").hidden = true;
    pay.from = pay.to = null;
    pay.digits = "";
    loadRules().then(render).catch(() => {});
    if ($("games-card").open) loadGames();
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
  if (rules) renderScores();
  if (rules) { renderCharacters(); renderContest(); }
  renderControls();
  renderHistory().catch(() => {});
  keepAwake();
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
  // Without a network (the page came from the service worker's cache) it says so.
  el.textContent = live ? t("live") : navigator.onLine === false ? t("offline: reconnecting…") : t("reconnecting…");
  el.className = "status " + (live ? "live" : "offline");
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  // A browser can't set headers on a WebSocket: the token rides in the query (never logged).
  const key = token() ? "?token=" + encodeURIComponent(token()) : "";
  socket = new WebSocket(`${scheme}://${location.host}/ws${key}`);
  socket.onopen = () => {
    retryMs = 500; lastHeard = Date.now(); setLink(true);
    sendUnanswered();
    fetch("/healthz").then((r) => r.json()).then((h) => renderStorage(h.storage)).catch(() => {});
  };
  socket.onmessage = (msg) => {
    lastHeard = Date.now();
    const data = JSON.parse(msg.data);
    if (data.type === "state") {
      const before = state ? state.current_player : undefined;
      state = data.state;
      render();
      turnPassed(before, data.action);
    }
    if (data.type === "timer") setTimer(data.timer, data.what);
    if (data.type === "outcome") { lastPress = data; pulse(soundMs(data)); }
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
    setLink(false);
    setTimeout(connect, retryMs);  // the server sends the full state again on reconnect
    retryMs = Math.min(retryMs * 2, 5000);
  };
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
window.addEventListener("online", () => { if (!socket || socket.readyState !== WebSocket.OPEN) setLink(false); reconnectNow(); });
window.addEventListener("offline", () => { if (!socket || socket.readyState !== WebSocket.OPEN) setLink(false); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });

// -- the tablet stays on while a game runs (Screen Wake Lock) --------------------------------------
// Asked for while a game is open and not ended, and again each time the page comes back into
// view (the browser lets it go when the page is hidden); let go when the game ends. A browser
// may refuse (no permission, battery saver, an old browser): the page carries on, the small sun
// in the header is simply not shown. <html data-wake-lock> says where it stands: "held",
// "refused", "unsupported", "released" or "off".
let wakeLock = null;
let wakeAsking = false;
let wakeRefused = false;  // asked again only when the page comes back into view
function wantAwake() { return Boolean(state) && !state.ended && document.visibilityState === "visible"; }
function setAwake(how) {
  document.documentElement.dataset.wakeLock = how;
  $("awake").hidden = how !== "held";
}
async function keepAwake() {
  if (!("wakeLock" in navigator)) { setAwake("unsupported"); return; }
  if (!wantAwake()) {
    if (wakeLock) { const held = wakeLock; wakeLock = null; held.release().catch(() => {}); }
    if (document.documentElement.dataset.wakeLock === "held") setAwake("released");
    return;
  }
  if (wakeLock || wakeAsking || wakeRefused) return;
  wakeAsking = true;
  try {
    const lock = await navigator.wakeLock.request("screen");
    wakeAsking = false;
    if (!wantAwake()) { lock.release().catch(() => {}); setAwake("released"); return; }
    wakeLock = lock;
    setAwake("held");
    lock.addEventListener("release", () => {
      if (wakeLock === lock) { wakeLock = null; setAwake("released"); }
    });
  } catch (_) {  // refused: nothing to tell the banker, the page works the same
    wakeAsking = false;
    wakeRefused = true;
    setAwake("refused");
  }
}
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") wakeRefused = false;
  keepAwake();
});

// -- installing: the app shell kept by a service worker, so the page reloads offline -----------
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}

// -- the buttons ------------------------------------------------------------------------------------

const sounding = (err) => err.status === 409 && /sounding/i.test(err.message);

$("press").addEventListener("click", () => {
  write("press", "/api/press", undefined, { button: $("press"), sticky: true, quiet: sounding })
    .then((reply) => {
      pulse(soundMs(reply));
      if (reply.saved === false && reply.message) snack(heard(reply, "message"));  // held: the disk refused it
    })
    .catch((err) => { if (sounding(err)) pulse(1200); });
});
$("undo").addEventListener("click", () => undoLatest());
$("next").addEventListener("click", async () => {
  if (!state) return;
  const from = state.current_player;
  const next = state.next_card;
  if (state.doubles && from !== null) {
    // "Should you roll doubles you will take another turn after you complete your current turn."
    const again = await ask(t("Doubles: {name} goes again", { name: title(from) }),
      [t("{name} rolled doubles: they take another turn after this one.", { name: title(from) })],
      [{ label: t("Next player anyway"), value: "next", cls: "quiet" }, { label: t("{name} goes again", { name: title(from) }), value: "again" }],
      "doubles-next");
    if (again !== "next") return;
  }
  if (next && next.due && next.number !== null && contestRules()) {
    // "At the end of your turn, if you landed on or passed GO, flip over the top card."
    const c = contestRules();
    const card = cardLabel(c, next.number);
    const answer = await ask(t("Flip {card}?", { card }),
      [t("{name} passed GO this turn: the top {card} card is flipped at the end of it.", { name: title(from), card: word(c.card_name) })],
      [{ label: t("Next player"), value: "next", cls: "quiet" }, { label: t("Flip {card}", { card }), value: "flip" }],
      "flip-due");
    if (answer === "flip") { openFlip($("next")); return; }
    if (answer !== "next") return;
  }
  write("next", "/api/next", from === null ? {} : { from }, { button: $("next"), sticky: true })
    .then((reply) => {
      resetPay();
      snack(reply.current_player === null || reply.current_player === undefined ? t("Next player")
        : t("{name}'s turn", { name: title(reply.current_player) }), t("Undo"), () => undoLatest(reply.move));
    }).catch(() => {});
});
$("go").addEventListener("click", () => {
  if (!state || state.current_player === null) { showError(t("Tap a player's tile, then Make current, first.")); return; }
  const who = state.current_player;
  write("go", "/api/go", { player: who }, { button: $("go"), sticky: true })
    .then((reply) => snack(t("{name} passed GO: +{coins}", { name: title(who), coins: reply.amount }), t("Undo"), () => undoLatest(reply.move)))
    .catch(() => {});
});
$("jail").addEventListener("click", () => {
  if (!state || state.current_player === null) { showError(t("Tap a player's tile, then Make current, first.")); return; }
  const who = state.current_player;
  write("jail", "/api/jail", { player: who }, { button: $("jail"), sticky: true })
    .then((reply) => snack(t("{name} paid the jail fee: {coins}", { name: title(who), coins: reply.amount }), t("Undo"), () => undoLatest(reply.move)))
    .catch(() => {});
});
// Count the score: every row saved (blank ones asked about), then the end. Points games end
// with their last card ("The game ends immediately when the final ... is over"): ending while
// cards remain is a house rule, asked about in those words.
$("end").addEventListener("click", async () => {
  const button = $("end");
  if (!(await saveScores($("score-rows")))) return;
  const next = state.next_card;
  const left = next ? next.left : 0;
  let body;
  if (left) {
    const card = word(next.card_name);
    const early = await ask(t("End before the last card?"),
      [tn("{edition} ends when its final {card} card has been played: {n} card is still to play.",
          "{edition} ends when its final {card} card has been played: {n} cards are still to play.", left,
          { edition: word(rules.name), card }),
       t("Ending now is a house rule: the highest score wins as it stands.")],
      [{ label: t("Keep playing"), value: false, cls: "quiet" }, { label: t("End now (house rule)"), value: true, cls: "warn" }],
      "end-early");
    if (!early) return;
    body = { early: true };
  } else {
    const ok = await ask(t("Count the final score?"), [t("The game ends and the highest score wins.")],
      [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Count the score"), value: true, cls: "warn" }], "end");
    if (!ok) return;
  }
  write("end", "/api/end", body, { button, sticky: true }).catch(() => {});
});
$("dealt").addEventListener("change", (ev) => {
  api("POST", "/api/options", { dealt: ev.target.checked }).catch(() => { ev.target.checked = !ev.target.checked; });
});
$("at-once").addEventListener("change", (ev) => {
  api("POST", "/api/options", { simultaneous: ev.target.checked }).catch(() => { ev.target.checked = !ev.target.checked; });
});
$("timer-seconds").addEventListener("change", () => { $("timer-seconds").dataset.chosen = "1"; });
function startTimer(button) {
  const seconds = Number($("timer-seconds").value);
  const body = seconds >= 1 ? { seconds } : {};
  button.disabled = true;
  api("POST", "/api/timer/start", body).then((r) => setTimer(r.timer, "started")).catch(() => {})
    .finally(() => { button.disabled = false; drawTimer(); });
}
function stopTimer(button) {
  button.disabled = true;
  api("POST", "/api/timer/stop").then((r) => setTimer(r.timer, "stopped")).catch(() => {})
    .finally(() => { button.disabled = false; drawTimer(); });
}
$("timer-start").addEventListener("click", () => startTimer($("timer-start")));
$("timer-stop").addEventListener("click", () => stopTimer($("timer-stop")));
$("htimer-go").addEventListener("click", () => {
  if (timer && timer.running) stopTimer($("htimer-go")); else startTimer($("htimer-go"));
});
for (const id of ["rent-payer", "rent-owner", "bankrupt-player", "bankrupt-creditor"]) {
  $(id).addEventListener("change", () => { $(id).dataset.chosen = "1"; });
}
$("bankrupt-player").addEventListener("change", () => renderBankrupt());
const side = (v) => (v === "bank" ? "bank" : Number(v));
$("rent").addEventListener("submit", (ev) => {
  ev.preventDefault();
  write("mode", "/api/mode", {
    mode: ev.target.dataset.mode, payer: Number($("rent-payer").value),
    owner: Number($("rent-owner").value), utilities: Number($("rent-utilities").value),
  }, { button: ev.target.querySelector("button") }).then(() => { $("rent").hidden = true; }).catch(() => {});
});
$("bankrupt").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const who = Number($("bankrupt-player").value);
  const to = side($("bankrupt-creditor").value);
  const p = player(who);
  const sure = await ask(t("{name} is bankrupt to {creditor}?", { name: title(who), creditor: nameOf(to) }),
    [t("What they have left goes to {creditor} and they are out of the game.", { creditor: nameOf(to) }),
     p ? t("{name} has {coins}.", { name: p.name, coins: coinWords(p.balance) }) : ""].filter(Boolean),
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Bankrupt"), value: true, cls: "warn" }], "bankrupt");
  if (!sure) return;
  write("bankrupt", "/api/bankruptcy", { player: who, creditor: to }, { button: ev.target.querySelector("button") })
    .then(() => snack(t("{name} is bankrupt to {creditor}", { name: title(who), creditor: nameOf(to) }), t("Undo"), () => undoLatest()))
    .catch(() => {});
});
$("ng-edition").addEventListener("change", renderNames);
$("games-card").addEventListener("toggle", () => { if ($("games-card").open) loadGames(); });
$("newgame").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const players = [...$("ng-names").querySelectorAll("input")].map((i) => i.value.trim()).filter(Boolean);
  const edition = editions.find((e) => e.id === $("ng-edition").value);
  const name = edition ? word(edition.name) : $("ng-edition").value;
  const ok = await ask(t("Start a new game of {edition}?", { edition: name }),
    [t("{players} start with the edition's coins. {running} stops being the game played: it ends nothing, stays in the bank and can be resumed from Earlier games.",
       { players: players.join(", "), running: runningWords() })],
    [{ label: t("Keep playing"), value: false, cls: "quiet" }, { label: t("Start the new game"), value: true }], "confirm-new-game");
  if (!ok) return;
  write("newgame", "/api/games", { edition: $("ng-edition").value, players }, { button: ev.target.querySelector("button[type=submit]") })
    .then(() => { $("games-card").open = false; snack(t("New game: {edition} with {players}", { edition: name, players: players.join(", ") })); })
    .catch(() => {});
});

// The pad.
$("pad-close").addEventListener("click", resetPay);
$("pad-back").addEventListener("click", () => typeKey("back"));
$("pad-pay").addEventListener("click", payNow);
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
$("pad-jail-in").addEventListener("click", () => {
  if (typeof pay.from !== "number") return;
  jailWrite("pad-jail-in", { player: pay.from, in_jail: true }, (name) => t("{name} goes to Jail", { name }));
});
$("pad-jail-pay").addEventListener("click", () => {
  if (typeof pay.from !== "number") return;
  jailWrite("pad-jail-pay", { player: pay.from }, (name, reply) => t("{name} paid {coins} and left Jail", { name, coins: reply.amount }));
});
for (const [id, six] of [["pad-jail-six", true], ["pad-jail-miss", false]]) {
  $(id).addEventListener("click", () => {  // a roll of the table's own die from Jail
    if (typeof pay.from !== "number") return;
    write(`${id}:${pay.from}`, "/api/jail/roll", { player: pay.from, six }, { button: $(id), sticky: true }).then((reply) => {
      resetPay();
      snack(heard(reply, "text"), t("Undo"), () => undoLatest(reply.id));
    }).catch(() => {});
  });
}
$("pad-jail-free").addEventListener("click", () => {
  if (typeof pay.from !== "number") return;
  jailWrite("pad-jail-free", { player: pay.from, in_jail: false }, (name) => t("{name} left Jail (card)", { name }));
});
$("armed-cancel").addEventListener("click", () => {
  if (!state || !state.mode) return;
  const was = word(state.mode.name);
  write("mode", "/api/mode", { mode: defaultMode() }, { button: $("armed-cancel") })
    .then(() => snack(t("{mode}: cancelled", { mode: was }))).catch(() => {});
});
$("bowser-wins").addEventListener("click", async () => {
  const sure = await ask(t("Bowser wins?"),
    [t("Every Title Deed is on its Game Over side? Then Bowser wins and everyone loses: the game ends. (Undo reopens it.)")],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Bowser wins"), value: true, cls: "warn" }], "bowser-wins");
  if (!sure) return;
  write("bowser-wins", "/api/bowser-wins", {}, { button: $("bowser-wins"), sticky: true })
    .then((move) => snack(move.text ? heard(move, "text") : t("Bowser wins"), t("Undo"), () => undoLatest(move.id)))
    .catch(() => {});
});
$("pad-drop").addEventListener("click", openDrop);
$("pad-power").addEventListener("click", openPower);
$("pad-chars").addEventListener("click", openCharacters);
$("pad-phone").addEventListener("click", () => {
  const p = player(pay.from);
  if (p) phoneLink(p);
});
$("give-later").addEventListener("click", () => {
  const waiting = waitingOutcome();
  if (waiting) laterFor.add(waiting.id);
  if (state) render();
});
$("error-close").addEventListener("click", clearError);
// A keyboard on a tablet: digits, Backspace, Enter and Escape work the pad.
document.addEventListener("keydown", (ev) => {
  if (!padOpen() || $("dialog").open) return;
  const target = ev.target;
  if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
  if (/^[0-9]$/.test(ev.key)) { typeKey(ev.key); ev.preventDefault(); }
  else if (ev.key === "Backspace") { typeKey("back"); ev.preventDefault(); }
  else if (ev.key === "Escape") resetPay();
  else if (ev.key === "Enter" && !$("pad-pay").disabled) { payNow(); ev.preventDefault(); }
});
window.addEventListener("resize", () => { if (state) renderPad(); });

// Another language on this device: everything drawn with words is drawn again in it (an open
// question stays as it was asked: the page behind it, and so the language menu, is inert).
onLanguage(() => {
  renderRole();
  if (rules) renderRules(); else renderKeys();
  if (linkLive !== null) setLink(linkLive);
  drawTimer();
  if (editions.length) renderEditions();
  if (state) {
    shownRoll = null;
    shownChars = "";
    shownContest = "";
    shown.game = null;  // the history's newest page again, in the new words
    render();
    loadActivity().catch(() => {});
  }
  gamesShown = "";
  if ($("games-card").open) loadGames();
});

renderRole();
renderKeys();
setAwake("off");
loadEditions().catch(() => {});
connect();
