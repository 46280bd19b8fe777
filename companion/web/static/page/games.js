// Games: a new one (asked first), earlier ones to resume.

/* globals currentLanguage, t, word */
import { $, state } from "./store.js";
import { snack } from "./messages.js";
import { ask } from "./dialog.js";
import { authGet, write } from "./net.js";

export let editions = [];

export async function loadEditions() {
  editions = (await fetch("/api/editions").then((r) => r.json())).editions;
  renderEditions();
}

export function renderEditions() {
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
export function forgetGames() { gamesShown = ""; }
export async function loadGames() {
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
