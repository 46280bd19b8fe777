// The Free Parking pot (a house rule the setup chose): its coins where the board's piles are
// shown, and Scoop in one tap for the current player (who landed there).

/* globals t, tn, word */
import { $, state, watching } from "./store.js";
import { coinWords, heard, title } from "./words.js";
import { snack } from "./messages.js";
import { held, write } from "./net.js";
import { undoLatest } from "./undo.js";

export function renderPot() {
  const pot = state.pot;
  $("pot-card").hidden = !pot;
  if (!pot) return;
  const rule = (state.game.house || []).find((h) => h.id === "free_parking_pot");
  const space = word(pot.space);
  $("pot-title").textContent = rule ? heard(rule, "name") : space;
  $("pot-coins").textContent = String(pot.coins);
  $("pot-space").textContent = space;
  $("pot-count").textContent = coinWords(pot.coins);
  const scoop = $("pot-scoop");
  const who = state.current_player;
  scoop.hidden = watching() || state.ended;
  scoop.disabled = !pot.coins || who === null || held.has(scoop);
  scoop.textContent = who === null ? t("Scoop") : t("{name} scoops", { name: title(who) });
  scoop.setAttribute("aria-label", !pot.coins ? t("No coins on {space}", { space })
    : who === null ? t("Scoop: nobody is current")
      : tn("{name} scoops the {n} coin on {space}", "{name} scoops the {n} coins on {space}", pot.coins, { name: title(who), space }));
}

$("pot-scoop").addEventListener("click", () => {
  if (!state || !state.pot || state.current_player === null) return;
  const who = state.current_player;
  const space = state.pot.space;
  write("scoop-pot", "/api/scoops", { player: who, space }, { button: $("pot-scoop") })
    .then((move) => snack(heard(move, "text") || t("{name} scooped up the coins on {space}", { name: title(who), space: word(space) }),
      t("Undo"), () => undoLatest(move.id)))
    .catch(() => {});
});
