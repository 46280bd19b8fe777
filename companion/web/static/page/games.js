// Earlier games to resume (in the menu; a new game is the setup's, setup.js).

/* globals currentLanguage, t, word */
import { $, state } from "./store.js";
import { snack } from "./messages.js";
import { ask } from "./dialog.js";
import { authGet, write } from "./net.js";

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
    .then(() => { snack(t("Resumed: {game}", { game: gameWords(g) })); if ($("menu").open) $("menu").close(); })
    .catch(() => {});
}
