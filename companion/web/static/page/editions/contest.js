// Boss fights (Gamer) and Races (Mario Kart): the card typed, then who fights or races.

/* globals t, tn, word */
import { $, state, watching } from "../store.js";
import { contestRules } from "../rules.js";
import { active, ordinal, player, pointWords, title } from "../words.js";
import { el, fillSelect, playerRow } from "../widgets.js";
import { ask } from "../dialog.js";
import { held, write } from "../net.js";
import { undoSnack } from "../undo.js";
import { byDeeds, pointsDraft, saveScores, scoreRow } from "../scores.js";
import { markNotNow } from "../flow.js";

function contestPath() { const c = contestRules(); return c && c.kind === "race" ? "/api/race" : "/api/boss"; }

function numberField(id, label, value, extra) {
  const box = el("label", "card-field", label);
  const input = Object.assign(document.createElement("input"), { id, type: "number", min: "0", max: "500", inputMode: "numeric" });
  if (value !== undefined && value !== null) input.value = String(value);
  if (extra) Object.assign(input, extra);
  box.append(input);
  return [box, input];
}

export async function openFlip(button) {
  const c = contestRules();
  const next = state && state.next_card;
  if (!c || !next || next.number === null) return;
  const race = c.kind === "race";
  const v = next.values || {};
  const box = el("form", "card-form");
  box.addEventListener("submit", (ev) => ev.preventDefault());
  let required = v.required ?? null;
  let payTo = v.pay_to || "bank";
  const [flipBox, flipper] = [el("label", "card-field wide", t("Flipped by")), document.createElement("select")];
  flipper.id = "card-flipper";
  fillSelect(flipper, false, state.current_player ?? undefined);
  flipBox.append(flipper);
  if (race) {
    const [feeBox, fee] = numberField("card-fee", t("Entry fee"), v.fee);
    const [pointsBox, points] = numberField("card-points", t("Points"), v.points);
    // "There is one prize for the final Race, and that is to choose one Grand Prix card from
    // any player and have a rematch of that Race": its coins by place are not asked.
    const prizes = next.final ? null : prizeFields(v.prizes);
    box.append(feeBox, pointsBox, ...(prizes ? [prizes.box] : []), flipBox);
    box.read = () => ({ fee: Number(fee.value), points: Number(points.value), ...(prizes ? { prizes: prizes.read() } : {}) });
    box.ready = () => fee.value !== "" && points.value !== "" && (!prizes || prizes.ready());
  } else {
    const [costBox, cost] = numberField("card-cost", t("Roll cost"), v.cost);
    const reqSet = el("fieldset", "pick-set wide");
    reqSet.append(el("legend", "", t("Roll needed to win (or higher)")));
    const keys = el("div", "drop-keys need-keys");
    for (let n = 1; n <= 6; n++) {
      const k = el("button", "drop-key", n);
      k.type = "button";
      k.dataset.required = String(n);
      k.addEventListener("click", () => { required = n; box.draw(); });
      keys.append(k);
    }
    reqSet.append(keys);
    const payTo_ = el("fieldset", "pick-set wide");
    payTo_.append(el("legend", "", t("The roll cost goes to")));
    const payList = el("div", "pick-list chips pay-to");
    for (const [value, text] of [["bank", t("the Bank")], ["card", t("the Boss card")]]) {
      const row = el("label", "pick-row");
      row.style.setProperty("--colour", "#e8a800");
      const input = Object.assign(document.createElement("input"), { type: "radio", name: "pay_to", value, checked: payTo === value });
      input.addEventListener("change", () => { payTo = value; box.draw(); });
      row.append(input, el("span", "pick-name", text));
      payList.append(row);
    }
    payTo_.append(payList);
    const [bonusBox, bonus] = numberField("card-bonus", t("Bonus coins"), v.bonus);
    const [pointsBox, points] = numberField("card-points", t("Points"), v.points);
    box.append(costBox, pointsBox, reqSet, payTo_, bonusBox, flipBox);
    box.read = () => ({ cost: Number(cost.value), required, pay_to: payTo, bonus: Number(bonus.value), points: Number(points.value) });
    box.ready = () => cost.value !== "" && bonus.value !== "" && points.value !== "" && required !== null;
  }
  const name = cardLabel(c, next.number);
  const lines = [next.values ? t("As typed in an earlier game: check them against the card.") : t("Type the numbers printed on {card}.", { card: name })];
  if (next.final) lines.push(race ? t("The final Race: its prize is a rematch, then the game ends.") : t("The final Boss: the game ends when this fight is over."));
  const heading = !next.final ? t("Flip {card}", { card: name }) : race ? t("Final Race: {card}", { card: name }) : t("Final Boss: {card}", { card: name });
  const asked = ask(heading, lines,
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Flip {card}", { card: name }), value: true, cls: "pay-now" }], "flip", box);
  const go = $("dialog-buttons").lastElementChild;
  box.draw = () => {
    for (const r of box.querySelectorAll(".pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    for (const k of box.querySelectorAll("[data-required]")) k.setAttribute("aria-pressed", String(Number(k.dataset.required) === required));
    const ready = box.ready();
    go.dataset.off = ready ? "" : "1";
    if (!go.classList.contains("arming")) go.disabled = !ready;
    go.textContent = ready ? t("Flip {card}", { card: name }) : t("Type the card's numbers");
    markNotNow(go, "flip_card", Number(flipper.value));  // the flipper's turn, at its end
  };
  box.addEventListener("input", box.draw);  // the flipper's select too
  box.draw();
  if (!(await asked)) return;
  const body = { action: "open", card: box.read(), player: Number(flipper.value) };
  write("contest:open", contestPath(), body, { button }).then((move) => undoSnack(move, t("{card} is open", { card: name }))).catch(() => {});
}

// A Grand Prix card's prizes by place (coins), typed: one field a place (as many as players,
// at most four); read() gives them up to the last typed, ready() once the 1st is typed.
function prizeFields(known) {
  const box = el("fieldset", "pick-set wide prize-set");
  box.append(el("legend", "", t("Prizes by place (coins)")));
  const row = el("div", "prize-row");
  const places = Math.max(1, Math.min(4, Math.max(active().length, (known || []).length)));
  const inputs = [];
  for (let i = 0; i < places; i++) {
    const [b, input] = numberField(`card-prize-${i + 1}`, ordinal(i + 1), (known || [])[i]);
    row.append(b);
    inputs.push(input);
  }
  box.append(row);
  const read = () => {
    const typed = inputs.map((i) => i.value.trim());
    const last = typed.reduce((n, x, i) => (x !== "" ? i + 1 : n), 0);
    return typed.slice(0, Math.max(1, last)).map((x) => Number(x || 0));
  };
  return { box, read, ready: () => inputs[0].value !== "" };
}

// A contest card by its name and number ("Boss 3").
export function cardLabel(c, number) { return `${word(c.card_name)} ${number}`; }

// Names as a list: "A and B", "A, B and C".
function andList(names) {
  if (names.length < 2) return names.join("");
  return t("{names} and {last}", { names: names.slice(0, -1).join(", "), last: names[names.length - 1] });
}

function contestWrite(action, body, button, fallback) {
  return write(`contest:${action}`, contestPath(), body, { button })
    .then((move) => { undoSnack(move, fallback); return move; });
}

// A card's numbers as chips (the final Race: its prize is the rematch, no coins by place).
function cardChips(card, race, rematchPrize) {
  const chips = el("div", "contest-chips");
  const add = (text, cls) => chips.append(el("span", `chip ${cls || ""}`.trim(), text));
  if (race) {
    add(t("fee {coins}", { coins: card.fee }), "coin");
    add(rematchPrize ? t("prize: a rematch") : card.prizes.map((n, i) => `${ordinal(i + 1)} ${n}`).join(" · "), "gold");
  } else {
    add(card.pay_to === "card" ? t("cost {coins} onto the card", { coins: card.cost }) : t("cost {coins}", { coins: card.cost }), "coin");
    add(t("needs {roll}+ ({chance})", { roll: card.required, chance: card.chance }), "gold");
    if (card.bonus) add(t("bonus {coins}", { coins: card.bonus }), "good coin");
  }
  add(pointWords(card.points));
  return chips;
}

function rollButton(who) {
  const b = el("button", "big contest-roll write");
  b.type = "button";
  b.id = "contest-press";
  b.append(el("span", "cr-block", "?"), el("span", "cr-words", t("Press the block for {name}", { name: title(who) })));
  b.addEventListener("click", () => $("press").click());
  b.disabled = held.has($("press"));
  return b;
}

export const raceTicks = new Map();  // race move key -> the players ticked to enter
let shownContest = "";
export function forgetContest() { shownContest = ""; }

export function renderContest() {
  const box = $("contest");
  const c = contestRules();
  const fight = state.fight;
  const race = state.race;
  const next = state.next_card;
  if (!c || state.ended || (!fight && !race && (!next || watching()))) {
    box.hidden = true;
    shownContest = "";
    return;
  }
  const key = JSON.stringify([fight, race, next, watching(), state.players.map((p) => [p.id, p.name, p.balance, p.in_jail, p.points, p.cards, p.colour]), [...raceTicks], [...pointsDraft],
    state.deeds || null, state.ring ? state.ring.spaces : null, state.current_player, state.flow ? state.flow.flip_card : null]);
  if (key === shownContest) return;
  shownContest = key;
  box.hidden = false;
  box.className = "contest " + (fight ? "boss" : race ? "race" : "flip") + ((fight && fight.final) || (race && race.final) ? " final" : "");
  if (fight) box.replaceChildren(...fightPanel(fight, c));
  else if (race) box.replaceChildren(...racePanel(race, c, next));
  else box.replaceChildren(...flipBar(c, next));
}

function flipBar(c, next) {
  if (next.number === null) {  // every card played and the game still open: count it here
    const b = el("button", "big contest-flip write", t("Count the final score"));
    b.type = "button";
    b.addEventListener("click", () => $("end").click());
    return [el("p", "contest-note", t("Every {card} card has been played.", { card: word(c.card_name) })), b];
  }
  const b = el("button", "big contest-flip write");
  b.type = "button";
  b.id = "contest-flip";
  const race = c.kind === "race";
  const who = next.due && state.current_player !== null ? title(state.current_player) : null;
  if (next.due) b.classList.add("due");
  const sub = who ? (race ? t("{name} passed GO: a Race at the end of the turn", { name: who })
                           : t("{name} passed GO: a Boss fight at the end of the turn", { name: who }))
    : race ? t("when someone lands on or passes GO: a Race") : t("when someone lands on or passes GO: a Boss fight");
  b.append(el("span", "cf-main", t("Flip {card}", { card: cardLabel(c, next.number) })),
           el("span", "cf-sub", sub + (next.final ? " " + (race ? t("(the final Race)") : t("(the final Boss fight)")) : "")));
  b.addEventListener("click", () => openFlip(b));
  markNotNow(b, "flip_card", state.current_player);  // before the end of a turn that passed GO: not now
  return [b];
}

function contestHead(name, card, race, final, rematch) {
  const head = el("div", "contest-head");
  const titleRow = el("h2", "contest-title", name);
  if (final) titleRow.append(el("span", "chip bad", race ? t("final Race") : t("final Boss")));
  head.append(titleRow, cardChips(card, race, final && !rematch));
  return head;
}

function fightPanel(f, c) {
  const card = f.card;
  const parts = [contestHead(cardLabel(c, card.number), card, false, f.final)];
  // Who may fight, in order: their rolls, passes, whose choice it is.
  const list = el("ol", "contest-order");
  for (const id of f.order) {
    const p = player(id);
    const li = el("li", "co-row");
    li.style.setProperty("--colour", p ? p.colour : "#9a9ac0");
    li.append(el("span", "co-name", title(id)));
    const rolls = f.rolls.filter((r) => r.player === id);
    for (const r of rolls) li.append(el("span", "chip " + (r.roll >= card.required ? "good" : "bad"), t("rolled {roll}", { roll: r.roll })));
    if (f.passed.includes(id)) li.append(el("span", "chip", t("passed")));
    if (f.winner === id) { li.classList.add("won"); li.append(el("span", "chip gold", t("won"))); }
    if (f.up === id) { li.classList.add("up"); li.append(el("span", "chip now", t("to choose"))); }
    if (f.fighter === id) { li.classList.add("up"); li.append(el("span", "chip now", t("paid: rolling"))); }
    list.append(li);
  }
  parts.push(list);
  if (card.pay_to === "card" && f.pot) {
    parts.push(el("p", "contest-note", tn("On the card: {n} coin (the winner takes them)", "On the card: {n} coins (the winner takes them)", f.pot)));
  }
  if (f.fighter !== null) {
    parts.push(el("p", "contest-say", watching()
      ? t("Press the block for {name}: {roll} or more wins", { name: title(f.fighter), roll: card.required })
      : t("{name} paid {cost}: {roll} or more wins", { name: title(f.fighter), cost: card.cost, roll: card.required })));
    if (!watching()) parts.push(rollButton(f.fighter));
  } else if (f.up !== null) {
    const p = player(f.up);
    const poor = p && p.balance < card.cost;
    parts.push(el("p", "contest-say", t("{name}: fight or pass?", { name: title(f.up) })));
    if (!watching()) {
      const row = el("div", "contest-buttons write");
      const fightB = el("button", "big battle-go", poor ? t("Can't pay {cost}", { cost: card.cost }) : t("Fight: pay {cost}", { cost: card.cost }));
      fightB.type = "button";
      fightB.id = "contest-fight";
      fightB.disabled = poor;
      fightB.addEventListener("click", () => contestWrite("fight", { action: "fight", player: f.up }, fightB, t("{name} fights", { name: title(f.up) })).catch(() => {}));
      const passB = el("button", "big quiet", t("Pass"));
      passB.type = "button";
      passB.id = "contest-pass";
      passB.addEventListener("click", () => contestWrite("pass", { action: "pass", player: f.up }, passB, t("{name} passes", { name: title(f.up) })).catch(() => {}));
      row.append(fightB, passB);
      parts.push(row);
    }
  } else if (f.over) {
    const result = el("div", "contest-result " + (f.winner !== null ? "won" : "away"));
    if (f.winner !== null) {
      result.append(el("strong", "", t("{name} beats {card}!", { name: title(f.winner), card: cardLabel(c, card.number) })));
      const got = [card.bonus ? t("+{coins} bonus", { coins: card.bonus }) : t("the card's Bonus by hand"),
                   f.pot ? t("+{coins} from the card", { coins: f.pot }) : "", keepsCard(card.points)].filter(Boolean);
      result.append(el("span", "", got.join(" · ")));
    } else {
      result.append(el("strong", "", t("{card} got away", { card: cardLabel(c, card.number) })),
                    el("span", "", t("Everyone passed: the card leaves the game.")));
    }
    parts.push(result);
    parts.push(...closePart(f.final, c));
  }
  return parts;
}

function keepsCard(points) { return tn("keeps the card: {n} point", "keeps the card: {n} points", points); }

function closePart(final, c) {
  const parts = !final ? [] : finalForm(byDeeds()
    ? (c.kind === "race" ? t("Final Race: closing shows the final score; tick each player's deeds first")
      : t("Final Boss: closing shows the final score; tick each player's deeds first"))
    : c.kind === "race" ? t("Final Race: closing shows the final score; type Property points first")
      : t("Final Boss: closing shows the final score; type Property points first"));
  if (!watching()) parts.push(closeButton(final, final ? t("Done: the final score") : t("Done"), "pay-now"));
  return parts;
}

// The final score's form, one for the final Boss, the final Race and its rematch: what it
// follows (``note``), then each player's row (the deeds they hold ticked, or their points
// typed; not on a page that only watches).
function finalForm(note) {
  return [el("p", "contest-note final-note", note), ...(watching() ? [] : [pointsBox()])];
}

// Closing a contest. The final one's close counts the score: every row of the form saved first
// (one write a changed row; a blank row asked about), then the close, which ends the game.
function closeButton(final, label, cls) {
  const done = el("button", `big ${cls} contest-done write`, label);
  done.type = "button";
  done.id = "contest-close";
  done.addEventListener("click", async () => {
    const rows = final ? $("contest").querySelector(".contest-points") : null;
    if (rows && !(await saveScores(rows))) return;
    contestWrite("close", { action: "close" }, done, t("Closed")).catch(() => {});
  });
  return done;
}

function pointsBox() {
  const box = el("div", "contest-points");
  for (const p of active()) box.append(scoreRow(p, true));
  return box;
}

function racePanel(r, c, next) {
  const card = r.card;
  const label = cardLabel(c, card.number);
  const parts = [contestHead(r.rematch ? t("{card} (rematch)", { card: label }) : label, card, true, r.final, r.rematch)];
  if (!r.started) {
    const tickKey = String(card.number) + (r.rematch ? "r" : "");
    if (!raceTicks.has(tickKey)) raceTicks.set(tickKey, []);
    const ticks = raceTicks.get(tickKey);
    parts.push(el("p", "contest-say", watching() ? t("Players enter the race") : t("Who races? Tick each player who pays {fee} to enter", { fee: card.fee })));
    const list = el("div", "pick-list race-entries");
    for (const p of active()) {
      const entered = r.entrants.includes(p.id);
      const may = r.order.includes(p.id);
      const poor = p.balance < card.fee;
      const off = entered || !may || poor || watching();
      const note = entered ? t("entered") : !may ? t("in Jail") : poor ? t("has {coins}", { coins: p.balance })
        : ticks.includes(p.id) ? `${p.balance} → ${p.balance - card.fee}` : "";
      const row = playerRow(p, "checkbox", "racer", entered || ticks.includes(p.id), off, note);
      row.classList.toggle("on", entered || ticks.includes(p.id));
      row.querySelector("input").addEventListener("change", (ev) => {
        const now = raceTicks.get(tickKey).filter((x) => x !== p.id);
        if (ev.target.checked) now.push(p.id);
        raceTicks.set(tickKey, now);
        renderContest();
      });
      list.append(row);
    }
    parts.push(list);
    if (!watching()) {
      const going = [...r.entrants, ...ticks.filter((id) => !r.entrants.includes(id))];
      const start = el("button", "big pay-now write", going.length ? t("Start: {names} race", { names: going.map(title).join(", ") })
        : t("Nobody races: discard the card"));
      start.type = "button";
      start.id = "contest-start";
      start.addEventListener("click", () => startRace(r, tickKey, start));
      parts.push(start);
    }
    return parts;
  }
  // Rolling: whose press, this round's rolls, a tie being re-rolled, the places so far.
  if (r.places.length) {
    const places = el("ol", "race-places");
    r.places.forEach((id, i) => {
      const li = el("li", "rp-row");
      li.style.setProperty("--colour", player(id) ? player(id).colour : "#9a9ac0");
      li.append(el("span", "rp-place", ordinal(i + 1)), el("span", "rp-name", title(id)));
      const prize = r.prizes.find((x) => x.player === id);
      if (prize) li.append(el("span", "chip gold coin", `+${prize.coins}`));
      places.append(li);
    });
    parts.push(places);
  }
  if (!r.over) {
    if (r.tied.length) {
      parts.push(el("p", "contest-note tie-line", t("Tie for {place}: {names} roll again",
                                                    { place: ordinal(r.places.length + 1), names: andList(r.tied.map(title)) })));
    }
    if (r.round.length) {
      const round = el("div", "contest-chips race-round");
      for (const x of r.round) round.append(el("span", "chip", `${title(x.player)} ${x.roll}`));
      parts.push(round);
    }
    parts.push(el("p", "contest-say", watching() ? t("Press the block for {name}", { name: title(r.roller) })
      : t("{name} rolls next", { name: title(r.roller) })));
    if (!watching()) parts.push(rollButton(r.roller));
    return parts;
  }
  const result = el("div", "contest-result won");
  result.append(el("strong", "", t("{name} wins {card}!", { name: title(r.winner), card: label })));
  const rolled = r.rolls.map((x) => `${title(x.player)} ${x.roll}`).join(", ");
  result.append(el("span", "", [keepsCard(card.points), rolled ? t("rolls: {rolls}", { rolls: rolled }) : t("the only racer")].join(" · ")));
  parts.push(result);
  if (r.final && !r.rematch && next && next.rematch_due && !watching()) {
    parts.push(...finalForm(byDeeds()
      ? t("The final Race's prize: a rematch of any Grand Prix card a player holds. Closing shows the final score; tick each player's deeds first")
      : t("The final Race's prize: a rematch of any Grand Prix card a player holds. Closing shows the final score; type Property points first")));
    const pick = el("label", "rematch-pick", t("Rematch card"));
    const select = document.createElement("select");
    select.id = "rematch-card";
    select.append(...next.held.map((n) => {
      const holder = state.players.find((p) => (p.won || []).includes(n));
      const held = cardLabel(c, n);
      return new Option(holder ? t("{card} ({name}'s)", { card: held, name: holder.name }) : held, String(n));
    }));
    pick.append(select);
    const row = el("div", "contest-buttons");
    const again = el("button", "big pay-now", t("Rematch"));
    again.type = "button";
    again.id = "contest-rematch";
    again.addEventListener("click", () => rematch(r, c, Number(select.value), again).catch(() => {}));
    row.append(again, closeButton(true, t("No rematch: final score"), "quiet"));
    parts.push(pick, row);
    return parts;
  }
  parts.push(...closePart(r.final, c));
  return parts;
}

// The final Race's rematch of card ``number``. Its own card was flipped without its prizes
// (the final Race pays none): a rematch of it pays them, so they are typed first.
async function rematch(r, c, number, button) {
  const body = { action: "open", rematch: number };
  if (number === r.card.number && !r.card.prizes.length) {
    const prizes = prizeFields([]);
    const name = cardLabel(c, number);
    const asked = ask(t("Prizes on {card}", { card: name }),
      [t("Its rematch pays the prizes by place printed on {card}: type them.", { card: name })],
      [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Rematch"), value: true, cls: "pay-now" }],
      "rematch-prizes", prizes.box);
    const go = $("dialog-buttons").lastElementChild;
    const draw = () => {
      go.dataset.off = prizes.ready() ? "" : "1";
      if (!go.classList.contains("arming")) go.disabled = !prizes.ready();
    };
    prizes.box.addEventListener("input", draw);
    draw();
    if (!(await asked)) return;
    body.card = { fee: r.card.fee, points: r.card.points, prizes: prizes.read() };
  }
  await contestWrite("rematch", body, button, t("Rematch"));
}

async function startRace(r, tickKey, button) {
  const ticks = raceTicks.get(tickKey) || [];
  const todo = ticks.filter((id) => !r.entrants.includes(id));
  try {
    for (const id of todo) {
      await write(`contest:enter:${id}`, "/api/race", { action: "enter", player: id }, { button });
    }
    if (!r.entrants.length && !todo.length) {
      await contestWrite("close", { action: "close" }, button, t("Nobody races: the card is discarded"));
      return;
    }
    const move = await write("contest:start", "/api/race", { action: "start" }, { button });
    raceTicks.delete(tickKey);
    undoSnack(move, t("The race starts"));
  } catch (err) { /* shown at the top */ }
}
