// A player's phone is their own seat: their whole history (a page at a time, "Older" for the
// page before), each block outcome given to them as it happens (its sound only when this
// phone's Sound is on: off by default, kept in this browser), and "That was a mistake" on their
// latest payment, which asks the banker to undo it. Loaded before player.js; it uses its
// helpers ($, state, me, mine, authHeaders, toast, whoami) once the page runs.
"use strict";

const SEAT_PAGE = 10;  // lines a page: about a phone screen of them
const SOUND_KEY = "companion-phone-sound";  // "on": this phone plays its sounds

const seat = {
  items: new Map(),     // "m12" / "o3" -> a line of the history, as the server sent it
  older: undefined,     // the next older page's cursors; null: none older; undefined: not read
  latest: null,         // the latest payment the mistake button is for (a move id)
  requests: [],         // this player's requests, newest first
  reading: null,        // the read under way
  again: false,         // something changed meanwhile: read once more after it
  seen: null,           // what the table looked like for us when the history was last read
  outcome: null,        // the latest block outcome given to this player (here, live)
};

const itemKey = (item) => (item.type === "move" ? "m" : "o") + item.id;

function heard(x, key) {  // a sentence of the server's in this device's language
  if (!x) return "";
  const chosen = x[key + "_said"];
  return said(chosen !== undefined && chosen !== null ? chosen : x[key]);
}

// -- the history ------------------------------------------------------------------------------

async function readSeat(params) {
  const reply = await fetch("/api/players/me/journal?" + new URLSearchParams(params),
                            { headers: authHeaders() });
  if (reply.status === 401) { await whoami(); return null; }
  if (reply.status === 429) {  // the companion asks for a moment: read again then
    const wait = Number(reply.headers.get("Retry-After")) || 1;
    setTimeout(refreshSeat, wait * 1000);
    return null;
  }
  if (!reply.ok) return null;
  return reply.json();
}

function keep(page) {
  for (const item of page.items) seat.items.set(itemKey(item), item);
  const before = seat.requests.filter((r) => r.status === "open").map((r) => r.id);
  for (const r of page.requests) {
    if (before.includes(r.id) && r.status !== "open") answered(r);
  }
  seat.requests = page.requests;
  seat.latest = page.latest_payment;
}

function cursorOf(page) {
  return page.more ? { before: page.next_before, outcomes_before: page.next_outcomes_before } : null;
}

// The newest lines (and older ones until they meet what is shown), the requests' answers.
async function refreshSeat() {
  if (seat.reading) { seat.again = true; return; }
  seat.reading = (async () => {
    let page = await readSeat({ limit: SEAT_PAGE });
    let turns = 0;
    while (page) {
      const meets = page.items.some((item) => seat.items.has(itemKey(item)));
      const first = seat.older === undefined;
      keep(page);
      if (first) seat.older = cursorOf(page);
      if (first || meets || !page.more || ++turns > 10) break;
      page = await readSeat({ before: page.next_before, outcomes_before: page.next_outcomes_before,
                              limit: SEAT_PAGE });
    }
    renderSeat();
  })();
  try { await seat.reading; } catch (err) { /* offline: the next change reads again */ }
  seat.reading = null;
  if (seat.again) { seat.again = false; refreshSeat(); }
}

async function olderSeat() {
  if (!seat.older) return;
  const button = $("older");
  button.disabled = true;
  try {
    const page = await readSeat({ ...seat.older, limit: SEAT_PAGE });
    if (page) { keep(page); seat.older = cursorOf(page); }
  } catch (err) {
    toast(t("no answer from the companion: check the Wi-Fi and try again"));
  } finally {
    button.disabled = false;
    renderSeat();
  }
}

// A state from the live feed: read the history again when something of ours changed.
function seatSaw(player) {
  const mineOpen = (state.requests || []).filter((r) => r.player === player.id).map((r) => r.id);
  const lines = (state.recent || []).filter((l) => l.from === player.id || l.to === player.id)
    .map((l) => [l.id, l.undone_by]);
  const now = JSON.stringify([state.game.id, player.balance, mineOpen, lines]);
  if (now !== seat.seen) { seat.seen = now; refreshSeat(); }
  renderOutcome();  // the turn moved on: its outcome is history
}

function requestFor(move) { return seat.requests.find((r) => r.move === move); }

function requestWords(r) {
  if (r.status === "undone") return t("The banker undid it");
  if (r.status === "kept") return t("The banker kept it");
  return t("Waiting for the banker…");
}

function answered(r) {
  toast(r.status === "undone" ? t("The banker undid it: {move}", { move: heard(r, "text") })
    : t("The banker kept it: {move}", { move: heard(r, "text") }), r.status === "undone");
}

function seatLine(item) {
  const li = document.createElement("li");
  li.className = "line " + (item.type === "move" ? "move" : "press");
  li.dataset.key = itemKey(item);
  const text = document.createElement("span");
  text.className = "what";
  const amount = document.createElement("span");
  amount.className = "amt";
  if (item.type === "outcome") {
    text.textContent = heard(item, "description") || heard(item, "headline");
    amount.textContent = "?";
    amount.classList.add("block");
  } else {
    text.textContent = heard(item, "text");
    if (item.undone_by) li.classList.add("undone");
    amount.textContent = item.coins > 0 ? "+" + item.coins : item.coins < 0 ? "−" + -item.coins : "0";
    amount.classList.add(item.coins > 0 ? "in" : item.coins < 0 ? "out" : "none");
  }
  li.append(text, amount);
  if (item.type !== "move") return li;
  const asked = requestFor(item.id);
  if (asked) {
    const note = document.createElement("span");
    note.className = "asked " + asked.status;
    note.textContent = requestWords(asked);
    li.append(note);
  } else if (item.id === seat.latest && !item.undone_by) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "mistake";
    button.textContent = t("That was a mistake");
    button.addEventListener("click", () => askMistake(item.id, button));
    li.append(button);
  }
  return li;
}

function renderSeat() {
  const items = [...seat.items.values()]
    .filter((item) => !state || item.game === state.game.id)
    .sort((a, b) => b.at - a.at || (a.type === b.type ? 0 : a.type === "move" ? -1 : 1) || b.id - a.id);
  if (items.length) {
    $("history").replaceChildren(...items.map(seatLine));
  } else {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = seat.older === undefined ? t("connecting…") : t("Nothing yet.");
    $("history").replaceChildren(li);
  }
  $("older").hidden = !seat.older;
}

// -- "That was a mistake" -----------------------------------------------------------------------

async function askMistake(move, button) {
  button.disabled = true;
  try {
    const reply = await fetch("/api/players/me/mistakes", {
      method: "POST",
      headers: { ...authHeaders(), "Content-Type": "application/json" },
      body: JSON.stringify({ move }),
    });
    const body = await reply.json().catch(() => ({}));
    if (reply.status === 401) {
      if (await whoami()) toast(t("the bank could not check this link just now: try again"));
      return;
    }
    if (!reply.ok) {
      toast(said(body.error_said || body.error) || t("refused ({status})", { status: reply.status }));
      return;
    }
    seat.requests = [body.request, ...seat.requests.filter((r) => r.id !== body.request.id)];
    toast(t("The banker is asked to undo it"), true);
  } catch (err) {
    toast(t("no answer from the companion: check the Wi-Fi and try again"));
  } finally {
    button.disabled = false;
    renderSeat();
  }
}

// -- the block's outcome for this player, and its sound ----------------------------------------

function soundOn() { return stored(SOUND_KEY) === "on"; }

let audio = null;
function unlockAudio() {  // browsers allow sound only after a tap on the page
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!audio && Context) audio = new Context();
  if (audio && audio.state === "suspended") audio.resume().catch(() => {});
}

const soundBuffers = new Map();  // a sound's name -> its decoded buffer (a promise), once
function soundBuffer(name) {
  if (!soundBuffers.has(name)) {
    soundBuffers.set(name, fetch(`/sounds/${encodeURIComponent(name)}.wav`)
      .then((reply) => { if (!reply.ok) throw new Error(`no sound ${name}`); return reply.arrayBuffer(); })
      .then((data) => audio.decodeAudioData(data))
      .catch((err) => { soundBuffers.delete(name); throw err; }));
  }
  return soundBuffers.get(name);
}

// One of the companion's own sounds, only when this phone's Sound is on (and a tap allowed it).
async function playSound(name) {
  if (!soundOn() || !audio || !name) return;
  try {
    const source = audio.createBufferSource();
    source.buffer = await soundBuffer(name);
    const gain = audio.createGain();
    gain.gain.value = 0.7;
    source.connect(gain);
    gain.connect(audio.destination);
    source.start();
  } catch (err) { /* no sound: the box still shows it */ }
}

function drawSound() {
  const on = soundOn();
  const button = $("sound");
  button.textContent = on ? t("Sound on") : t("Sound off");
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.classList.toggle("on", on);
}

function toggleSound() {  // the tap is the gesture that lets the page play
  store(SOUND_KEY, soundOn() ? "off" : "on");
  if (soundOn()) { unlockAudio(); playSound("coin"); }
  drawSound();
}

// Once its turn has passed (the companion's ``turn.past_outcomes``) the outcome is history:
// dimmed, and said as earlier, so nobody acts on it again at their next turn.
function outcomePast(o) {
  return Boolean(o && state && state.turn && o.id <= (state.turn.past_outcomes || 0));
}

function setText(id, text) { if ($(id).textContent !== text) $(id).textContent = text; }

function renderOutcome() {
  const o = seat.outcome;
  const past = outcomePast(o);
  const headline = o ? heard(o, "headline") : t("Nothing from the block yet.");
  setText("outcome-headline", past ? t("Earlier: {outcome}", { outcome: headline }) : headline);
  setText("outcome-say", o ? heard(o, "instruction") || heard(o, "description") : "");
  $("outcome").classList.toggle("empty", !o);
  $("outcome").classList.toggle("past", past);
}

function outcomeArrived(news) {
  seat.outcome = news;
  renderOutcome();
  const box = $("outcome");
  box.classList.remove("fresh");
  void box.offsetWidth;  // restart the animation
  box.classList.add("fresh");
  playSound(news.sound);
  refreshSeat();
}

function setUpSeat() {
  $("older").addEventListener("click", olderSeat);
  $("sound").addEventListener("click", toggleSound);
  // A phone whose Sound was left on: its first tap lets it play again.
  document.addEventListener("pointerdown", () => { if (soundOn()) unlockAudio(); });
  drawSound();
  renderOutcome();
}

function seatLanguage() {
  drawSound();
  renderOutcome();
  if (seat.older !== undefined) renderSeat();
}
