// The setup the page leads: a game awaiting its setup (a fresh install), or New game (the menu,
// the end screen), opens here instead of the table: the edition, the players (a colour each,
// their order, who starts), the characters (Gamer, Mario Kart) and the house rules, then Start:
// one write (POST /api/games). Everything about an edition (its name, how many play, its box's
// colours, its characters, its house rules) comes from GET /api/setup; the last game's players
// are offered to tap, never typed into the boxes.

/* globals onLanguage, said, t, tn, word */
import { $, state, watching } from "./store.js";
import { heard } from "./words.js";
import { el } from "./widgets.js";
import { snack } from "./messages.js";
import { write } from "./net.js";
import { ask } from "./dialog.js";
import { focusTile, resetPay } from "./pad.js";

let offer = null;  // GET /api/setup's answer, asked again each time the setup opens
let draft = null;  // { edition, rows: [{ key, name, colour, starts, chars }], house: Set of ids }
let asked = false;  // opened by New game (a running game stays behind it: Cancel goes back)
let askedOver = null;  // the game New game was tapped over
let loading = false;
let waitFrom = null;  // Start was answered: the setup stays until the state leaves this game
let rowKeys = 0;

// The palette's colours by name (a swatch is a button: a screen reader hears its colour).
const COLOUR_WORDS = {
  "#e52521": () => t("red"), "#43b047": () => t("green"), "#f49ac1": () => t("pink"),
  "#049cd8": () => t("blue"), "#fbd000": () => t("yellow"), "#8e44ad": () => t("purple"),
};
function colourWord(hex) {
  const named = COLOUR_WORDS[String(hex).toLowerCase()];
  return named ? named() : String(hex);
}

// -- opening and closing ------------------------------------------------------------------------

// New game: the setup, over the game being played (which stays as it is until Start).
export function openSetup() {
  asked = true;
  askedOver = state ? state.game.id : null;
  draft = null;
  renderSetup();
}

function shown() {
  if (!state) return false;
  if (watching()) return Boolean(state.game.setup_pending);
  return asked || waitFrom !== null || Boolean(state.game.setup_pending);
}

// Every state: the setup instead of the table while a game awaits its setup (or New game was
// tapped); a watching page only says the banker is setting up. The header's house rules.
export function renderSetup() {
  renderHouseLine();
  if (!state) return;
  if (waitFrom !== null && state.game.id !== waitFrom) waitFrom = null;
  // Another game became the one played (resumed, or started elsewhere): the table shows it.
  if (asked && askedOver !== null && state.game.id !== askedOver) asked = false;
  const show = shown();
  const was = !$("setup").hidden;
  $("setup").hidden = !show;
  document.body.classList.toggle("setting-up", show);
  $("setup-wait").hidden = !watching();
  $("setup-form").hidden = watching();
  if (show !== was) window.scrollTo(0, 0);  // the setup, or the table after it, from its top
  if (show && !was) resetPay();  // a payment half made is dropped: the table is out of sight
  if (!show && was) focusTable();
  if (!show) { draft = null; return; }
  if (watching()) return;
  $("setup-cancel").hidden = Boolean(state.game.setup_pending);
  drawRunning();
  drawHeld();
  if (!draft && !loading) {
    for (const id of ["setup-editions", "setup-rows", "setup-last", "setup-chars", "setup-house"]) $(id).replaceChildren();
    loaded(false);
    load();
  }
}

// The setup closed (Start, Cancel): the keyboard's focus, left in the setup that is gone now (or
// on the page's body), goes to the player whose turn it is (the table's next move), else to the
// block; never to the body.
function focusTable() {
  const at = document.activeElement;
  if (at && at !== document.body && !$("setup").contains(at)) return;
  if (state.current_player !== null && focusTile(state.current_player)) return;
  const press = $("press");
  if (press.getClientRects().length) press.focus();
}

function load() {
  loading = true;
  fetch("/api/setup").then((reply) => {
    if (!reply.ok) throw new Error(String(reply.status));
    return reply.json();
  }).then((data) => {
    offer = data;
    freshDraft();
    draw();
    loaded(true);
    sayProblem("");
  }).catch(() => {
    sayProblem(t("The companion is not reachable. Is the Wi-Fi on?"));  // tried again with the next state
  }).finally(() => { loading = false; });
}

// Until the editions have come, Add a player and Start have nothing to act on: off, so an early
// tap waits for them (it used to be lost) instead of doing nothing.
function loaded(yes) {
  $("setup-start").disabled = !yes;
  if (!yes) $("setup-add").disabled = true;
  $("setup-form").setAttribute("aria-busy", String(!yes));
}

function drawRunning() {
  const note = $("setup-running");
  const running = !state.game.setup_pending;
  note.hidden = !running;
  if (running) {
    note.textContent = t("A new game ends nothing: {game} with {names} stays in the bank, and Earlier games in the menu resumes it.",
      { game: word(state.game.name), names: state.players.map((p) => p.name).join(", ") });
  }
}

// The presses made while a fresh install awaits its setup: nobody is named yet, so the bank
// keeps them (no stand-in pays); Start asks whether who starts is charged.
function heldPresses() {
  return state && state.game.setup_pending ? state.unassigned || [] : [];
}

function pressWords(o) {
  return [heard(o, "headline"), heard(o, "instruction")].filter(Boolean).join(" ");
}

function drawHeld() {
  const held = heldPresses();
  const note = $("setup-held");
  note.hidden = held.length === 0;
  note.textContent = held.length === 0 ? "" : tn("A press was made during the setup: {presses}. Start asks who it is for.",
    "{n} presses were made during the setup: {presses}. Start asks who they are for.", held.length,
    { presses: held.map(pressWords).join("; ") });
}

// Start with presses held: they count for who starts (one tap), or for nobody; Escape starts
// nothing. A press the chosen edition's block could not have made stays uncharged unasked.
async function chargeHeld(e, starter) {
  const held = heldPresses().filter((o) => e.id === state.game.edition);
  if (held.length === 0) return "first";
  const answer = await ask(
    tn("A press was made during the setup", "{n} presses were made during the setup", held.length),
    [...held.map(pressWords),
     tn("Count it for {name}, who starts?", "Count them for {name}, who starts?", held.length, { name: starter })],
    [{ label: t("For nobody"), value: "keep", cls: "quiet" },
     { label: t("For {name}", { name: starter }), value: "first", cls: "pay-now" }],
    "setup-presses");
  return answer === "first" || answer === "keep" ? answer : null;
}

function renderHouseLine() {
  const house = (state && state.game.house) || [];
  const line = $("house-rules");
  line.hidden = house.length === 0;
  line.textContent = house.length ? t("House rules: {rules}", { rules: house.map((h) => heard(h, "name")).join(", ") }) : "";
}

// -- the draft: what is being set up ------------------------------------------------------------

function edition() {
  return offer.editions.find((e) => e.id === draft.edition) || offer.editions[0];
}

function freshDraft() {
  const ids = offer.editions.map((e) => e.id);
  const playing = state && !state.game.setup_pending ? state.game.edition : null;
  const chosen = [playing, offer.last && offer.last.edition, offer.default_edition].find((id) => ids.includes(id)) || ids[0];
  draft = { edition: chosen, rows: [], house: new Set() };
  fitRows();
  defaultHouse();
}

function freeColours(except) {
  const used = new Set(draft.rows.filter((r) => r !== except).map((r) => r.colour));
  return offer.colours.filter((c) => !used.has(c));
}

function addRow(name = "", colour = null) {
  const free = freeColours();
  const row = { key: ++rowKeys, name, colour: colour && free.includes(colour) ? colour : free[0] || offer.colours[0],
                starts: draft.rows.length === 0, chars: [] };
  draft.rows.push(row);
  return row;
}

// The rows within the edition's count: empty rows added up to its least, empty rows beyond its
// most taken away (typed names stay: the count's note says to remove one).
function fitRows() {
  const { min, max } = edition().players;
  while (draft.rows.length > max) {
    const blank = draft.rows.findLastIndex((r) => !r.name.trim());
    if (blank < 0) break;
    draft.rows.splice(blank, 1);
  }
  while (draft.rows.length < min) addRow();
  if (!draft.rows.some((r) => r.starts)) draft.rows[0].starts = true;
  fitChars();
}

function picksEach() {
  const chars = edition().characters;
  return chars ? chars.picks[String(draft.rows.length)] || 1 : 0;
}

function fitChars() {
  const chars = edition().characters;
  const known = new Set(chars ? chars.characters.map((c) => c.id) : []);
  const want = picksEach();
  for (const row of draft.rows) row.chars = row.chars.filter((id) => known.has(id)).slice(-want || 0);
}

function defaultHouse() {
  draft.house = new Set((edition().house_rules || []).filter((h) => h.default).map((h) => h.id));
}

function rowName(row) {
  return row.name.trim() || t("Player {n}", { n: draft.rows.indexOf(row) + 1 });
}

function rowOf(node) {
  const li = node && node.closest("[data-key]");
  return li ? draft.rows.find((r) => String(r.key) === li.dataset.key) : undefined;
}

// -- drawing ------------------------------------------------------------------------------------

function draw() {
  drawEditions();
  drawRows();
  drawLast();
  drawChars();
  drawHouse();
  drawCount();
}

function playerRange(e) {
  const { min, max } = e.players;
  return min === max ? tn("{n} player", "{n} players", min) : t("{min}–{max} players", { min, max });
}

function drawEditions() {
  $("setup-editions").replaceChildren(...offer.editions.map((e) => {
    const card = el("label", "ed-card");
    const input = Object.assign(document.createElement("input"), { type: "radio", name: "setup-edition", value: e.id,
                                                                     checked: e.id === draft.edition });
    const stripe = el("span", "ed-stripe");
    stripe.setAttribute("aria-hidden", "true");
    for (const colour of e.box_colours || []) {
      const band = el("span");
      band.style.background = colour;
      stripe.append(band);
    }
    card.append(input, el("span", "ed-name", word(e.name)), el("span", "ed-players", playerRange(e)), stripe);
    return card;
  }));
}

function rowButton(cls, act, symbol) {  // named by nameRow(); its symbol only seen
  const b = el("button", cls);
  b.type = "button";
  b.dataset.act = act;
  if (symbol) {
    const shown = el("span", "", symbol);
    shown.setAttribute("aria-hidden", "true");
    b.append(shown);
  }
  return b;
}

function drawRows() {
  const n = draft.rows.length;
  const { min } = edition().players;
  $("setup-rows").replaceChildren(...draft.rows.map((row, i) => {
    const li = el("li", "setup-row");
    li.dataset.key = String(row.key);
    li.style.setProperty("--colour", row.colour);
    const swatch = rowButton("swatch", "colour", "");
    const name = Object.assign(document.createElement("input"), {
      className: "setup-name", value: row.name, maxLength: 24, autocomplete: "off", spellcheck: false,
      placeholder: t("Player {n}", { n: i + 1 }), enterKeyHint: i === n - 1 ? "done" : "next" });
    name.setAttribute("autocapitalize", "words");
    name.dataset.act = "name";
    const starts = el("label", "setup-first");
    const radio = Object.assign(document.createElement("input"), { type: "radio", name: "setup-first", checked: row.starts });
    radio.dataset.act = "first";
    starts.append(radio, el("span", "", t("Starts")));
    const up = rowButton("row-btn up", "up", "↑");
    const down = rowButton("row-btn down", "down", "↓");
    const remove = rowButton("row-btn remove", "remove", "✕");
    up.disabled = i === 0;
    down.disabled = i === n - 1;
    remove.disabled = n <= min;
    li.append(swatch, name, remove, starts, up, down);
    nameRow(li, row);
    return li;
  }));
}

// The words that name a row's player, again as the name is typed.
function nameRow(li, row) {
  const who = rowName(row);
  const n = draft.rows.indexOf(row) + 1;
  const by = (act) => li.querySelector(`[data-act="${act}"]`);
  by("colour").setAttribute("aria-label", t("{name}'s colour: {colour}. Tap for the next free colour",
    { name: who, colour: colourWord(row.colour) }));
  by("name").setAttribute("aria-label", t("Name of player {n}", { n }));
  by("first").setAttribute("aria-label", t("{name} starts", { name: who }));
  by("up").setAttribute("aria-label", t("Move {name} up", { name: who }));
  by("down").setAttribute("aria-label", t("Move {name} down", { name: who }));
  by("remove").setAttribute("aria-label", t("Remove {name}", { name: who }));
}

function drawCount() {
  const e = edition();
  const { min, max } = e.players;
  const n = draft.rows.length;
  const name = word(e.name);
  $("setup-add").disabled = n >= max;
  const said = [];
  if (n > max) said.push(tn("{edition} is played by at most {n} player: remove one to start.",
                            "{edition} is played by at most {n} players: remove one to start.", max, { edition: name }));
  else if (n === max) said.push(tn("{edition} is played by at most {n} player.", "{edition} is played by at most {n} players.", max, { edition: name }));
  if (n <= min) said.push(tn("{edition} needs at least {n} player.", "{edition} needs at least {n} players.", min, { edition: name }));
  $("setup-count").textContent = said.join(" ");
}

function lastPlayers() {
  const last = offer.last && offer.last.players ? offer.last.players : [];
  return [...last].sort((a, b) => a.seat - b.seat);
}

function typedNames() {
  return new Set(draft.rows.map((r) => r.name.trim().toLocaleLowerCase()).filter(Boolean));
}

function drawLast() {
  const last = lastPlayers();
  const box = $("setup-last");
  box.hidden = last.length === 0;
  if (!last.length) return;
  const same = el("button", "big quiet same-players", t("Same players as last time"));
  same.type = "button";
  same.id = "setup-same";
  box.replaceChildren(el("span", "setup-last-title", t("Last time:")), ...last.map((p) => {
    const chip = el("button", "last-chip", p.name);
    chip.type = "button";
    chip.dataset.name = p.name;
    chip.style.setProperty("--colour", p.colour);
    chip.setAttribute("aria-label", t("Add {name}", { name: p.name }));
    return chip;
  }), same);
  markLast();
}

function markLast() {  // a chip whose name is in a box already is off (the chips stay where a finger is)
  const typed = typedNames();
  const full = draft.rows.every((r) => r.name.trim()) && draft.rows.length >= edition().players.max;
  for (const chip of $("setup-last").querySelectorAll(".last-chip")) {
    chip.disabled = typed.has(chip.dataset.name.toLocaleLowerCase()) || full;
  }
}

function drawChars() {
  const chars = edition().characters;
  $("setup-chars-set").hidden = !chars;
  if (!chars) { $("setup-chars").replaceChildren(); return; }
  const want = picksEach();
  $("setup-chars-say").textContent = tn(
    "Each player plays {n} character: tap it, or leave them all to pick on the table later.",
    "Each player plays {n} characters: tap them, or leave them all to pick on the table later.", want);
  $("setup-chars").replaceChildren(...draft.rows.map((row) => {
    const who = rowName(row);
    const box = el("div", "char-row");
    box.dataset.key = String(row.key);
    box.style.setProperty("--colour", row.colour);
    box.append(el("span", "char-who", who));
    const chips = el("div", "char-chips");
    chips.setAttribute("role", "group");
    chips.setAttribute("aria-label", want > 1 ? t("{name}'s characters", { name: who }) : t("{name}'s character", { name: who }));
    for (const c of chars.characters) {
      const other = draft.rows.find((r) => r !== row && r.chars.includes(c.id));
      const b = el("button", "char-chip", word(c.name));
      b.type = "button";
      b.dataset.character = c.id;
      b.setAttribute("aria-pressed", String(row.chars.includes(c.id)));
      if (other) {  // one token, one player: taken, with whose it is
        b.disabled = true;
        b.append(el("span", "char-taker", t("{name}'s", { name: rowName(other) })));
        b.setAttribute("aria-label", t("{character}: {name}'s", { character: word(c.name), name: rowName(other) }));
      }
      chips.append(b);
    }
    box.append(chips);
    return box;
  }));
}

function drawHouse() {
  const rules = edition().house_rules || [];
  $("setup-house-set").hidden = rules.length === 0;
  $("setup-house").replaceChildren(...rules.map((h, i) => {
    const label = el("label", "house-rule");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", value: h.id, checked: draft.house.has(h.id) });
    box.dataset.kind = h.kind;
    const what = el("span", "house-what", heard(h, "description"));
    what.id = `setup-house-what-${i}`;
    box.setAttribute("aria-describedby", what.id);
    const words = el("span", "house-words");
    words.append(el("span", "house-name", heard(h, "name")), what);
    label.append(box, words);
    return label;
  }));
}

function sayProblem(text) {  // as the header's bar says it: a sentence
  $("setup-error").textContent = text.charAt(0).toUpperCase() + text.slice(1);
  $("setup-error").hidden = !text;
}

// After a row's buttons are drawn again, the keyboard's focus stays on the same control.
function refocus(row, act) {
  const li = $("setup-rows").querySelector(`[data-key="${row.key}"]`);
  if (!li) return;
  let target = li.querySelector(`[data-act="${act}"]`);
  if (target && target.disabled) target = li.querySelector(`[data-act="${act === "up" ? "down" : "up"}"]`);
  if (!target || target.disabled) target = li.querySelector('[data-act="colour"]');
  target.focus({ preventScroll: false });
}

function changedRows() {
  fitChars();
  drawRows();
  markLast();
  drawChars();
  drawCount();
}

// -- what a tap does ----------------------------------------------------------------------------

$("setup-editions").addEventListener("change", (ev) => {
  draft.edition = ev.target.value;
  fitRows();
  defaultHouse();
  drawRows();
  drawLast();
  drawChars();
  drawHouse();
  drawCount();
});

$("setup-rows").addEventListener("click", (ev) => {
  const button = ev.target.closest("button[data-act]");
  const row = rowOf(button);
  if (!button || !row || button.disabled) return;
  const at = draft.rows.indexOf(row);
  const act = button.dataset.act;
  if (act === "colour") {  // the next colour of the palette nobody else has
    const free = freeColours(row);
    const from = offer.colours.indexOf(row.colour);
    const next = [...offer.colours.slice(from + 1), ...offer.colours.slice(0, from + 1)].find((c) => free.includes(c));
    if (next) row.colour = next;
  } else if (act === "up" && at > 0) {
    draft.rows.splice(at - 1, 0, draft.rows.splice(at, 1)[0]);
  } else if (act === "down" && at < draft.rows.length - 1) {
    draft.rows.splice(at + 1, 0, draft.rows.splice(at, 1)[0]);
  } else if (act === "remove") {
    draft.rows.splice(at, 1);
    if (row.starts) draft.rows[0].starts = true;
    changedRows();
    const next = draft.rows[Math.min(at, draft.rows.length - 1)];
    refocus(next, "name");
    return;
  }
  changedRows();
  refocus(row, act);
});

$("setup-rows").addEventListener("change", (ev) => {
  const row = rowOf(ev.target);
  if (!row || ev.target.dataset.act !== "first") return;
  for (const r of draft.rows) r.starts = r === row;
});

$("setup-rows").addEventListener("input", (ev) => {
  const row = rowOf(ev.target);
  if (!row || ev.target.dataset.act !== "name") return;
  row.name = ev.target.value;
  nameRow(ev.target.closest("li"), row);
  markLast();
  for (const who of $("setup-chars").querySelectorAll(`[data-key="${row.key}"] .char-who`)) who.textContent = rowName(row);
});

// Enter in a name box: the next box (a new row after the last, while the edition seats more).
$("setup-rows").addEventListener("keydown", (ev) => {
  if (ev.key !== "Enter" || ev.target.dataset.act !== "name" || ev.isComposing) return;
  ev.preventDefault();
  const row = rowOf(ev.target);
  const at = draft.rows.indexOf(row);
  if (at < draft.rows.length - 1) { refocus(draft.rows[at + 1], "name"); return; }
  if (row.name.trim() && draft.rows.length < edition().players.max) {
    const added = addRow();
    changedRows();
    refocus(added, "name");
  }
});

$("setup-add").addEventListener("click", () => {
  if (draft.rows.length >= edition().players.max) return;
  const added = addRow();
  changedRows();
  refocus(added, "name");
});

$("setup-last").addEventListener("click", (ev) => {
  const chip = ev.target.closest(".last-chip");
  if (ev.target.closest("#setup-same")) {  // the whole last table, in its order and colours
    const last = lastPlayers().slice(0, edition().players.max);
    const before = draft.rows;
    draft.rows = [];
    for (const p of last) {
      const row = addRow(p.name, p.colour);
      row.chars = [...(p.characters || [])];
    }
    while (draft.rows.length < edition().players.min) addRow();
    if (!draft.rows.length) draft.rows = before;
    changedRows();
    return;
  }
  if (!chip || chip.disabled) return;
  const p = lastPlayers().find((x) => x.name === chip.dataset.name);
  let row = draft.rows.find((r) => !r.name.trim());
  if (!row) {
    if (draft.rows.length >= edition().players.max) return;
    row = addRow();
  }
  row.name = p.name;
  // Their colour with them: free, or swapped with a row not named yet.
  const holder = draft.rows.find((r) => r !== row && r.colour === p.colour);
  if (holder && !holder.name.trim()) holder.colour = row.colour;
  if (!holder || !holder.name.trim()) row.colour = p.colour;
  changedRows();
});

$("setup-chars").addEventListener("click", (ev) => {
  const chip = ev.target.closest(".char-chip");
  const row = rowOf(chip);
  if (!chip || !row || chip.disabled) return;
  const id = chip.dataset.character;
  const want = picksEach();
  row.chars = row.chars.includes(id) ? row.chars.filter((x) => x !== id) : [...row.chars, id].slice(-want);
  drawChars();
  const again = $("setup-chars").querySelector(`[data-key="${row.key}"] [data-character="${id}"]`);
  if (again) again.focus();
});

$("setup-house").addEventListener("change", (ev) => {
  const box = ev.target;
  if (box.checked && box.dataset.kind === "file") {  // one house-rules file at a time: each replaces the edition
    for (const other of $("setup-house").querySelectorAll('input[data-kind="file"]')) {
      if (other !== box) other.checked = false;
    }
  }
  draft.house = new Set([...$("setup-house").querySelectorAll("input:checked")].map((b) => b.value));
});

$("setup-cancel").addEventListener("click", () => {
  asked = false;
  sayProblem("");
  renderSetup();
});

// Start: one write; a refusal is said here in the server's words, and what was typed stays.
$("setup-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!draft || !state) return;
  const e = edition();
  const rows = draft.rows.filter((r) => r.name.trim());
  const rules = e.house_rules || [];
  const body = {
    edition: e.id,
    players: rows.map((r) => r.name.trim()),
    colours: rows.map((r) => r.colour),
    first: Math.max(0, rows.findIndex((r) => r.starts)),
    house: {
      free_parking_pot: rules.some((h) => h.kind === "pot" && draft.house.has(h.id)),
      files: rules.filter((h) => h.kind === "file" && draft.house.has(h.id)).map((h) => h.id),
    },
  };
  if (e.characters && rows.some((r) => r.chars.length)) body.characters = rows.map((r) => r.chars);
  if (rows.length) {
    const charge = await chargeHeld(e, body.players[body.first]);
    if (charge === null) { $("setup-start").focus(); return; }  // Escape: nothing started
    body.setup_presses = charge;
  }
  sayProblem("");
  const from = state.game.id;
  write("setup", "/api/games", body, { button: $("setup-start"), quiet: () => true }).then((reply) => {
    asked = false;
    waitFrom = state && state.game.id === from && reply.game !== from ? from : null;
    renderSetup();
    snack(t("New game: {edition} with {players}", { edition: word(e.name), players: body.players.join(", ") }));
  }).catch((err) => {
    sayProblem(err.said ? said(err.said) : err.unanswered ? t("The companion is not reachable. Is the Wi-Fi on?")
      : t("Error {status}", { status: err.status }));
  });
});

$("winner-new").addEventListener("click", openSetup);
// The keys typed in the setup are its own (the pay pad's Enter, digits and Escape are not).
$("setup").addEventListener("keydown", (ev) => ev.stopPropagation());

// Another language: the setup's words again (what was typed stays).
onLanguage(() => {
  renderHouseLine();
  if (draft && offer && !$("setup").hidden) { draw(); if (state) drawRunning(); }
});
