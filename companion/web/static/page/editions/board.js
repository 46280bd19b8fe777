// Coins on the board (Gamer, Mario Kart): piles on spaces, dropped and scooped up.

/* globals t, tn, word */
import { $, state, watching } from "../store.js";
import { boardRules, sameSpace } from "../rules.js";
import { active, coinWords, heard, player, standsOn, title } from "../words.js";
import { playerRow } from "../widgets.js";
import { snack } from "../messages.js";
import { ask } from "../dialog.js";
import { write } from "../net.js";
import { undoLatest } from "../undo.js";
import { pay, resetPay } from "../pad.js";
import { markNotNow } from "../flow.js";

export function renderCoinsBoard() {
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
      markNotNow(scoop, "scoop", state.current_player);
      li.append(scoop);
    }
    return li;
  }));
}

export function moveSnack(move, fallback) {
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
    markNotNow(go, "scoop", who);
  };
  list.addEventListener("change", (ev) => { who = Number(ev.target.value); draw(); });
  draw();
  if (!(await asked)) return;
  write("scoop", "/api/scoops", { player: who, space: pile.space }, { button })
    .then((move) => moveSnack(move, t("{name} scooped up the coins on {space}", { name: title(who), space })))
    .catch(() => {});
}

// Drop coins (from a tapped tile, or a space of the described board): the space (where the
// player's token stands once the board is described, picked already; the rulebook's, a pile's,
// or one typed as printed on the board; in Jail, only the jail space) and how many.
export async function openDrop(p, preset = null, button = $("pad-drop")) {
  const board = boardRules();
  if (!board || !p) return;
  const ring = state.ring;
  const jailed = Boolean(p.in_jail);
  const jailSpace = ring ? ring.labels[ring.jail_corner] : board.jail_space;
  const here = standsOn(p);  // null: the board is not described
  const names = [];
  const offered = jailed ? [jailSpace] : ring ? [preset, here, ...(state.board || []).map((x) => x.space)]
    : [...board.spaces, ...(state.board || []).map((x) => x.space)];
  for (const name of offered) {
    if (name && !names.some((n) => sameSpace(n, name))) names.push(name);
  }
  let space = jailed ? jailSpace : preset || here;
  let coins = null;
  const box = document.createElement("div");
  box.className = "drop-picks";
  const spaces = Object.assign(document.createElement("fieldset"), { className: "pick-set" });
  spaces.append(Object.assign(document.createElement("legend"), { textContent: t("On which space") }));
  const spaceList = Object.assign(document.createElement("div"), { className: "pick-list chips space-chips" });
  spaces.append(spaceList);
  // Another space: typed as printed on the board, or (the board described) picked from its spaces.
  const other = ring ? Object.assign(document.createElement("select"), { id: "drop-other" })
    : Object.assign(document.createElement("input"), { id: "drop-other", maxLength: 40, autocomplete: "off", placeholder: t("its name") });
  if (ring) other.append(new Option(t("Pick a space…"), ""), ...ring.labels.map((label, i) => new Option(`${i} · ${word(label)}`, label)));
  const otherBox = Object.assign(document.createElement("label"), { className: "drop-other",
    textContent: ring ? t("Or another space of the board") : t("Or another space, as printed on the board") });
  otherBox.append(other);
  if (!jailed) spaces.append(otherBox);
  else {
    spaces.append(Object.assign(document.createElement("p"), { className: "dialog-note",
      textContent: t("{name} is in Jail: coins go on {space}.", { name: p.name, space: word(jailSpace) }) }));
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
      else if (here && sameSpace(name, here) && !jailed) row.append(Object.assign(document.createElement("span"), { className: "pick-here", textContent: t("here") }));
      return row;
    }));
    for (const b of keys.querySelectorAll(".drop-key")) b.setAttribute("aria-pressed", String(Number(b.dataset.coins) === coins));
    const ready = space !== null && space !== "" && coins !== null && coins >= 1;
    go.dataset.off = ready ? "" : "1";
    if (!go.classList.contains("arming")) go.disabled = !ready;
    go.textContent = !space ? t("Pick a space") : !coins ? t("How many coins?") : t("Drop {coins} on {space}", { coins, space: word(space) });
  };
  spaceList.addEventListener("change", (ev) => { space = ev.target.value; other.value = ""; draw(); });
  other.addEventListener(ring ? "change" : "input", () => { space = other.value.trim() || (ring ? here : null); draw(); });
  typed.addEventListener("input", () => { const n = Number(typed.value); coins = Number.isInteger(n) && n >= 1 ? n : null; draw(); });
  draw();
  if (!(await asked)) return;
  const who = p.id;
  write(`drop:${who}`, "/api/drops", { player: who, space, coins }, { button }).then((move) => {
    resetPay();
    moveSnack(move, tn("{name} drops {n} coin on {space}", "{name} drops {n} coins on {space}", coins, { name: title(who), space: word(space) }));
  }).catch(() => {});
}

$("pad-drop").addEventListener("click", () => openDrop(typeof pay.from === "number" ? player(pay.from) : null));
