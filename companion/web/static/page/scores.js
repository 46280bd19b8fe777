// How a game ends: the winner and the podium, bankruptcy, the final score typed from the
// cards.

/* globals t, tn, word */
import { $, state } from "./store.js";
import { contestRules, rules } from "./rules.js";
import {
  active, cardWords, coinWords, nameOf, ordinal, player, pointWords, title, wormWords
} from "./words.js";
import { fillSelect } from "./widgets.js";
import { snack } from "./messages.js";
import { ask } from "./dialog.js";
import { write } from "./net.js";
import { undoLatest } from "./undo.js";

export function renderWinner() {
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

// Who a player owes: whoever got their latest payment (the one that took them below zero), as
// the journal's latest lines show it; else the Bank.
function owedTo(id) {
  const line = (state.recent || []).find((l) => l.from === id && !l.undone_by && l.kind !== "undo");
  return line && typeof line.to === "number" ? line.to : "bank";
}

export function renderBankrupt() {
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

export function renderScores() {
  if ($("score-card").hidden) return;
  const box = $("score-rows");
  box.replaceChildren(...active().map((p) => scoreRow(p)));
}

// A player's points typed from their cards (Gamer, Mario Kart: the Property cards only; the
// Boss and Grand Prix cards are counted by the companion). What is typed and not saved yet is
// kept while the page redraws; nothing typed yet shows blank. The rows are one form: counting
// the score saves every row (saveScores), so nothing typed is ever left behind.
export function scoreRow(p, inContest) {
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
export async function saveScores(box) {
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

// Property points, typed before the final contest closes (the Boss and Grand Prix cards'
// points are counted by the companion).
export const pointsDraft = new Map();  // player id -> {points, cards} typed, not yet saved

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

for (const id of ["bankrupt-player", "bankrupt-creditor"]) {
  $(id).addEventListener("change", () => { $(id).dataset.chosen = "1"; });
}
$("bankrupt-player").addEventListener("change", () => renderBankrupt());
const side = (v) => (v === "bank" ? "bank" : Number(v));

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
