// The table's buttons (the block, Next player, Pass GO, Jail, Undo) and its options: the controls
// that follow the state (Undo says what it would undo).

/* globals t, word */
import { $, state } from "./store.js";
import { contestRules, rules } from "./rules.js";
import { heard, player, title } from "./words.js";
import { showError, snack } from "./messages.js";
import { ask } from "./dialog.js";
import { api, held, write } from "./net.js";
import { undoLatest } from "./undo.js";
import { pulse, soundMs } from "./outcome.js";
import { renderPad, resetPay } from "./pad.js";
import { cardLabel, openFlip } from "./editions/contest.js";
import { markNotNow } from "./flow.js";

export function renderControls() {
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
  // Out of its moment (the fee after the roll): marked, still tappable. A button that is off
  // for another reason (nobody in Jail, nobody current) is not marked.
  markNotNow($("jail"), who && who.in_jail ? "jail" : null, current);
  markNotNow($("go"), who ? "pass_go" : null, current);
  const roller = $("contest-press");  // the contest's press: off while the block's is
  if (roller) roller.disabled = held.has($("press"));
  renderPad();
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
  const flipNow = !state.flow || !state.flow.flip_card;  // the rules let the card be flipped now
  if (next && next.due && next.number !== null && contestRules() && flipNow) {
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

$("dealt").addEventListener("change", (ev) => {
  api("POST", "/api/options", { dealt: ev.target.checked }).catch(() => { ev.target.checked = !ev.target.checked; });
});
$("at-once").addEventListener("change", (ev) => {
  api("POST", "/api/options", { simultaneous: ev.target.checked }).catch(() => { ev.target.checked = !ev.target.checked; });
});
