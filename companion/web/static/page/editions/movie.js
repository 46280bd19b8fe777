// The Movie edition: Bowser's toll, battles, the Piranha Plant and Super Star, Jail.

/* globals t, tn, word */
import { $, state } from "../store.js";
import { modeRule, rules } from "../rules.js";
import { active, heard, modeWords, player, title } from "../words.js";
import { playerRow } from "../widgets.js";
import { showError, snack } from "../messages.js";
import { ask } from "../dialog.js";
import { write } from "../net.js";
import { undoLatest } from "../undo.js";
import { pay, resetPay } from "../pad.js";
import { markNotNow } from "../flow.js";

// Jail is kept for each player when the edition rolls for doubles from it.
function jailTracked() { return Boolean(modeRule((m) => m.table === "jail_roll")); }

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
export function renderBowserBar() {
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

export function renderMovie() {
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
  if (rules && rules.toll) markNotNow($("toll"), "toll");  // Bowser moves in a turn: none, not now
  for (const b of $("bowser-bar").querySelectorAll("[data-mode]")) {
    const on = Boolean(mode && b.dataset.mode === mode.id);
    b.classList.toggle("armed", on);
    b.setAttribute("aria-pressed", on ? "true" : "false");
    const sub = b.querySelector(".bar-sub");
    if (!sub.dataset.words) sub.dataset.words = sub.textContent;
    sub.textContent = on ? t("armed: tap to cancel") : sub.dataset.words;
  }
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
  markNotNow(go, "toll");
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

function jailWrite(action, body, words) {
  const who = pay.from;
  const button = $(action);
  write(`${action}:${body.player}`, "/api/jail", body, { button, sticky: true }).then((reply) => {
    resetPay();
    const move = typeof reply.move === "number" ? reply.move : reply.id;
    snack(reply.text ? heard(reply, "text") : words(title(who), reply), t("Undo"), () => undoLatest(move));
  }).catch(() => {});
}

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
