// The join page: the table's one join code (#code=..., from the QR code the table shows) lists
// the players who have no phone yet; a tap asks "Is this you?" with that player's colour and
// name (No: back to the list, nothing taken), and Yes makes this phone that player's (POST
// /api/join with the code): the page goes on to the player's own page (/p) with its new link.
// Two taps, and a child who taps Mum's name by mistake sees Mum's colour first. The code can
// do nothing else: the server refuses it anywhere but here.
"use strict";

const $ = (id) => document.getElementById(id);
const PLAYER_TOKEN_KEY = "companion-player-token";  // player.js's: this phone's own link
const REFRESH_MS = 4000;  // the list again: another phone may have picked meanwhile
const ARM_MS = 600;  // Yes takes no tap for a moment: the second tap of a double tap never lands on it
// The table's seat colours by name (companion.core.ledger.COLOURS), as the setup names them.
const COLOUR_WORDS = {
  "#e52521": () => t("red"), "#43b047": () => t("green"), "#f49ac1": () => t("pink"),
  "#049cd8": () => t("blue"), "#fbd000": () => t("yellow"), "#8e44ad": () => t("purple"),
};

const code = (/(?:^|[#&])code=([A-Za-z0-9_-]+)/.exec(location.hash) || [])[1] || "";
let choices = null;   // the players without a phone, as the server last said
let offWords = null;  // why this page can't join (said again in a new language)
let saidWords = null; // the last refusal of a pick
let busy = false;
let timer = null;
let sure = null;      // the player picked, asked "Is this you?" about (null: the list)

function showTitle() { document.title = t("Join the game · Question Block bank"); }

// The page can't join (no code, a wrong one, an earlier game's): said, and nothing more asked.
function off(words) {
  offWords = words;
  clearTimeout(timer);
  $("off").textContent = words();
  $("off").hidden = false;
  $("main").hidden = true;
}

function refusal(reply, body) {
  return () => said(body.error_said || body.error) || t("refused ({status})", { status: reply.status });
}

function colourWord(hex) {
  const named = COLOUR_WORDS[String(hex).toLowerCase()];
  return named ? named() : "";
}

// "Is this you?": the picked player's colour and name, with No and Yes.
function drawSure() {
  $("sure").hidden = !sure;
  $("list").hidden = Boolean(sure);
  if (!sure) return;
  $("sure-who").style.setProperty("--colour", sure.colour);
  $("sure-name").textContent = sure.name;
  $("sure-colour").textContent = colourWord(sure.colour);
  $("sure-why").textContent = t("This phone will pay from {name}'s coins. Tap Yes only if you are {name}.", { name: sure.name });
  $("sure-yes").textContent = t("Yes, I am {name}", { name: sure.name });
  $("sure-yes").disabled = busy || $("sure-yes").classList.contains("arming");
  $("sure-no").disabled = busy;
}

function draw() {
  drawSure();
  $("waiting").hidden = choices !== null;
  if (choices === null) return;
  $("none").hidden = choices.length > 0;
  $("choices").replaceChildren(...choices.map((player) => {
    const tile = document.createElement("button");
    tile.type = "button";
    tile.className = "choice";
    tile.style.setProperty("--colour", player.colour);
    tile.dataset.player = String(player.id);
    tile.textContent = player.name;
    tile.disabled = busy;
    tile.addEventListener("click", () => ask(player));
    return tile;
  }));
  $("said").textContent = saidWords ? saidWords() : "";
  $("said").hidden = !saidWords;
}

function authHeaders() { return { "Authorization": "Bearer " + code }; }

async function refresh() {
  clearTimeout(timer);
  if (offWords) return;
  try {
    const reply = await fetch("/api/join", { headers: authHeaders() });
    const body = await reply.json().catch(() => ({}));
    if (reply.status === 401) { off(refusal(reply, body)); return; }
    if (reply.ok) { choices = body.players_without_phone || []; draw(); }
  } catch (err) { /* no answer now: asked again below */ }
  if (!offWords && !document.hidden) timer = setTimeout(refresh, REFRESH_MS);
}

// A name tapped: asked first (Yes arms a moment later, so a double tap can't take the seat).
function ask(player) {
  if (busy) return;
  sure = player;
  saidWords = null;
  const yes = $("sure-yes");
  yes.classList.add("arming");
  clearTimeout(ask.timer);
  ask.timer = setTimeout(() => { yes.classList.remove("arming"); drawSure(); }, ARM_MS);
  draw();
  $("sure-title").focus();
}

// No: back to the list, nothing taken; the name tapped keeps the focus.
function notMe() {
  const was = sure;
  sure = null;
  draw();
  const tile = was && $("choices").querySelector(`[data-player="${was.id}"]`);
  if (tile) tile.focus();
}

async function pick(player) {
  if (busy) return;
  busy = true;
  saidWords = null;
  draw();
  try {
    const reply = await fetch("/api/join", {
      method: "POST",
      headers: { ...authHeaders(), "Content-Type": "application/json" },
      body: JSON.stringify({ player: player.id }),
    });
    const body = await reply.json().catch(() => ({}));
    if (reply.status === 201 && body.token) {
      // The player's own page, on this very address; it keeps the link's token.
      location.replace("/p#token=" + encodeURIComponent(body.token));
      return;
    }
    if (reply.status === 401) { off(refusal(reply, body)); return; }
    saidWords = refusal(reply, body);
    sure = null;  // taken meanwhile (409): the list again, saying so
  } catch (err) {
    saidWords = () => t("no answer from the companion: check the Wi-Fi and try again");
  } finally {
    busy = false;
  }
  draw();
  refresh();
}

// A phone that has its player already (it scanned the table's code again): its own page.
async function alreadyMine() {
  let token = null;
  try { token = localStorage.getItem(PLAYER_TOKEN_KEY); } catch (_) { return false; }
  if (!token) return false;
  try {
    const reply = await fetch("/api/players/me", { headers: { "Authorization": "Bearer " + token } });
    return reply.ok;
  } catch (_) { return false; }
}

async function start() {
  if (!code) {
    off(() => t("This page needs the table's join code: scan the code the table shows."));
    return;
  }
  if (await alreadyMine()) { location.replace("/p"); return; }
  refresh();
}

$("sure-no").addEventListener("click", notMe);
$("sure-yes").addEventListener("click", () => { if (sure && !$("sure-yes").classList.contains("arming")) pick(sure); });
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
// Another language picked (or the table's arrived): the page's own words said again in it.
onLanguage(() => {
  showTitle();
  if (offWords) $("off").textContent = offWords();
  draw();
});
showTitle();
start();
