// How a game ends: the winner and the podium, bankruptcy, the final score typed from the
// cards (on a described board: each player's Property deeds ticked, their points typed once).

/* globals t, tn, word */
import { $, state } from "./store.js";
import { boardRules, contestRules, rules } from "./rules.js";
import {
  active, cardWords, coinWords, nameOf, ordinal, player, pointWords, title, wormWords
} from "./words.js";
import { el, fillSelect } from "./widgets.js";
import { snack } from "./messages.js";
import { ask } from "./dialog.js";
import { write } from "./net.js";
import { undoLatest } from "./undo.js";
import { showCoins } from "./chart.js";

export function renderWinner() {
  const box = $("winner");
  box.hidden = !state.ended;
  showCoins($("coin-chart"), state);  // each player's coins over the game (chart.js)
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

// Who a player owes: the payee of their latest unpaid payment, as the server reads it from the
// whole journal (``owes_to``: a player's id or "bank"); else the Bank.
function owedTo(id) {
  const p = player(id);
  return p && typeof p.owes_to === "number" ? p.owes_to : "bank";
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
// the score saves every row (saveScores), so nothing typed is ever left behind. On a described
// board with Properties the row is the player's deeds instead (deedsRow).
export function scoreRow(p, inContest) {
  if (properties()) return deedsRow(p, inContest);
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

// -- the deeds each player holds (Gamer, Mario Kart on a described board) -----------------------

// Whether the final score is ticked from the deeds (a described board with Properties).
export function byDeeds() { return Boolean(properties()); }

// The board's Properties (their spaces, from GO), or null: no board described, or none on it.
function properties() {
  const ring = state && state.ring;
  const board = boardRules();
  if (!ring || !board || !board.kinds) return null;
  const kinds = new Set(board.kinds.filter((k) => k.effect === "property").map((k) => k.id));
  const found = ring.spaces.flatMap((s, i) => (kinds.has(s.kind) ? [i] : []));
  return found.length ? found : null;
}

// Points typed on this page for a deed, until the board the server sends has them (or other
// points, typed since on another device).
const typedHere = new Map();  // space -> {points, was: the board's points when typed}
function printedOn(space) {
  const s = state.ring.spaces[space];
  return s && s.points !== undefined && s.points !== null ? s.points : null;
}
function pointsOf(space) {
  const here = typedHere.get(space);
  if (here && printedOn(space) === here.was) return here.points;
  typedHere.delete(space);
  return printedOn(space);
}

// What this page counted for each player (the spaces it sent): what a row shows once counted,
// and whether it changed since. Good while the companion has that count and the same holders
// (a deed bought or traded since, or a count from another device: the companion's again).
const counted = new Map();  // player id -> {spaces, points, holders}
function holdersKey() { return JSON.stringify(state.deeds || {}); }
function countedFor(id) {
  const c = counted.get(id);
  const p = player(id);
  if (!c || !p || c.game !== state.game.id || c.holders !== holdersKey()) return undefined;
  return p.points === c.points && p.cards === c.spaces.length ? c.spaces : undefined;
}
function keepCounted(id, spaces) {
  counted.set(id, { spaces, points: spaces.reduce((a, s) => a + (pointsOf(s) || 0), 0), holders: holdersKey(), game: state.game.id });
}

// Who each deed is ticked for (space -> player id): the holders the companion knows (bought,
// traded: state.deeds), then what this page counted, then what the table ticked here (a row the
// table changed lists exactly that player's deeds).
function ticks() {
  const own = new Map();
  for (const p of active()) {
    const draft = pointsDraft.get(p.id);
    const mine = draft && draft.deeds ? draft.deeds : countedFor(p.id);
    if (mine) own.set(p.id, { spaces: mine, draft: Boolean(draft && draft.deeds) });
  }
  const at = new Map();
  for (const [space, id] of Object.entries(state.deeds || {})) {
    if (!own.has(id) && player(id) && !player(id).out) at.set(Number(space), id);
  }
  for (const newer of [false, true]) {
    for (const [id, mine] of own) if (mine.draft === newer) for (const space of mine.spaces) at.set(space, id);
  }
  return at;
}
function deedsOf(at, id) { return properties().filter((space) => at.get(space) === id); }
function setDeeds(id, spaces) { pointsDraft.set(id, { deeds: [...spaces].sort((a, b) => a - b) }); }

// The board's label for a deed, in this device's words.
function deedName(space) { return word(state.ring.labels[space]) || t("Space {n}", { n: space }); }

function deedSum(spaces) {
  const known = spaces.map(pointsOf).filter((n) => n !== null);
  const sum = known.reduce((a, b) => a + b, 0);
  const points = known.length === spaces.length ? pointWords(sum) : known.length ? `${pointWords(sum)} + ?` : t("? points");
  return [tn("{n} deed", "{n} deeds", spaces.length), points].join(" · ");
}

const openRows = new Set();  // players whose row shows every deed (the others: only theirs)

// A player's row: their deeds as chips (ticked: theirs; a tap ticks or unticks), the sum live,
// and every other deed of the board one tap away (another's greyed, with whose it is).
function deedsRow(p, inContest) {
  const row = el("div", "score-row deeds-row" + (inContest ? " in-contest" : ""));
  row.dataset.player = p.id;
  row.style.setProperty("--colour", p.colour);
  const head = el("div", "deeds-head");
  head.append(el("span", "name", p.name), el("span", "deeds-sum"));
  row.append(head, el("div", "deed-chips"));
  drawDeeds(row);
  return row;
}

function drawDeeds(row) {
  const id = Number(row.dataset.player);
  const at = ticks();
  const mine = deedsOf(at, id);
  const open = openRows.has(id);
  // Closed, a row keeps in sight what it showed: its deeds, and those the companion or this page
  // last had as theirs (unticked here: one tap ticks them back).
  const had = new Set([...Object.entries(state.deeds || {}).filter(([, who]) => who === id).map(([s]) => Number(s)),
                       ...(countedFor(id) || [])]);
  const shown = properties().filter((space) => open || at.get(space) === id || had.has(space));
  row.querySelector(".deeds-sum").textContent = deedSum(mine);
  const chips = shown.map((space) => {
    const who = at.get(space);
    const b = el("button", "deed-chip" + (who !== undefined && who !== id ? " taken" : ""));
    b.type = "button";
    b.dataset.space = String(space);
    b.setAttribute("aria-pressed", String(who === id));
    const points = pointsOf(space);
    b.append(el("span", "dc-name", deedName(space)),
             el("span", "dc-points", points === null ? t("? points") : pointWords(points)));
    if (who !== undefined && who !== id) b.append(el("span", "dc-who", nameOf(who)));
    b.addEventListener("click", () => tick(id, space).catch(() => {}));
    return b;
  });
  if (!shown.length) chips.push(el("span", "deeds-none", t("No deed ticked")));
  const more = el("button", "deed-more", open ? t("Close") : t("Other deeds…"));
  more.type = "button";
  more.setAttribute("aria-expanded", String(open));
  more.addEventListener("click", () => {
    if (openRows.has(id)) openRows.delete(id); else openRows.add(id);
    redrawDeeds();
  });
  chips.push(more);
  row.querySelector(".deed-chips").replaceChildren(...chips);
}

// Every deeds row on the page (the score card's and the final contest's), drawn again.
function redrawDeeds() {
  for (const row of document.querySelectorAll(".score-row.deeds-row")) drawDeeds(row);
}

// A tap on a deed in a player's row: theirs, unticked; else ticked for them (unticked for whoever
// had it). A deed with no points typed asks them first (once: kept with the board); a deed the
// companion has as another player's is traded to them first (asked).
async function tick(id, space) {
  const at = ticks();
  if (at.get(space) === id) {
    setDeeds(id, deedsOf(at, id).filter((s) => s !== space));
    redrawDeeds();
    return;
  }
  if (pointsOf(space) === null && !(await askPoints(space))) return;
  const holder = state.deeds ? state.deeds[String(space)] : undefined;
  if (holder !== undefined && holder !== id) {
    const give = await ask(t("{space} is {name}'s deed", { space: deedName(space), name: nameOf(holder) }),
      [t("The companion has {space} as {name}'s. Did it go to {other}?", { space: deedName(space), name: nameOf(holder), other: nameOf(id) }),
       t("It is written as a trade (no coins: a payment of its own).")],
      [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Give it to {name}", { name: nameOf(id) }), value: true, cls: "pay-now" }],
      "deed-trade");
    if (!give) return;
    await write(`deed:${space}`, "/api/deeds", { space, player: id });
  }
  const now = ticks();
  const other = now.get(space);
  if (other !== undefined && other !== id) setDeeds(other, deedsOf(now, other).filter((s) => s !== space));
  setDeeds(id, [...deedsOf(now, id), space]);
  redrawDeeds();
}

// The points printed on a deed, asked once: number keys for the usual values, or typed; saved
// into the board's description (PUT /api/board), kept for every later game. False: not typed.
async function askPoints(space) {
  let points = null;
  const box = el("div", "deed-points-ask");
  const keys = el("div", "drop-keys");
  const typed = Object.assign(document.createElement("input"), { id: "deed-points", type: "number", min: "0", max: "1000",
    inputMode: "numeric", placeholder: "6+" });
  typed.setAttribute("aria-label", t("Points on its deed"));
  for (let n = 1; n <= 5; n++) {
    const k = el("button", "drop-key", n);
    k.type = "button";
    k.dataset.points = String(n);
    k.addEventListener("click", () => { points = n; typed.value = ""; draw(); });
    keys.append(k);
  }
  keys.append(typed);
  box.append(keys);
  const name = deedName(space);
  const asked = ask(t("Points on {space}'s deed", { space: name }),
    [t("Type the points printed on {space}'s deed: they are kept with the board for every later game.", { space: name })],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("How many points?"), value: true, cls: "pay-now" }], "deed-points", box);
  const go = $("dialog-buttons").lastElementChild;
  const draw = () => {
    for (const k of keys.querySelectorAll(".drop-key")) k.setAttribute("aria-pressed", String(Number(k.dataset.points) === points));
    const ready = points !== null;
    go.dataset.off = ready ? "" : "1";
    if (!go.classList.contains("arming")) go.disabled = !ready;
    go.textContent = ready ? tn("Keep {n} point", "Keep {n} points", points) : t("How many points?");
  };
  typed.addEventListener("input", () => {
    const n = Number(typed.value);
    points = typed.value.trim() !== "" && Number.isInteger(n) && n >= 0 && n <= 1000 ? n : null;
    draw();
  });
  draw();
  if (!(await asked)) return false;
  return savePoints(new Map([[space, points]]));
}

// The board's description as the server has it (kind, name and the deed's numbers of each space,
// the Power-up die's faces), with ``points`` (space -> points) typed in: the whole of it, as
// PUT /api/board takes it.
function boardWith(points) {
  const spaces = state.ring.spaces.map((s, i) => {
    const out = {};
    for (const key of ["kind", "name", "points", "price", "rent"]) {
      const value = key === "points" ? (points.has(i) ? points.get(i) : pointsOf(i)) : s[key];
      if (value !== null && value !== undefined) out[key] = value;
    }
    return out;
  });
  return { spaces, faces: [...(state.ring.faces || [])] };
}

async function savePoints(points) {
  try {
    await write("deed-points", "/api/board", boardWith(points), { method: "PUT" });
  } catch (err) {
    return false;
  }
  for (const [space, n] of points) typedHere.set(space, { points: n, was: printedOn(space) });
  redrawDeeds();
  return true;
}

// The deeds rows of a score form, saved: a deed ticked without points asks them first; then one
// POST /api/points {deeds} for each row that changed (a row giving deeds up first, so the deeds
// it gave are free for the next). False: a question was cancelled, or a write refused.
async function saveDeeds(rows) {
  for (const space of properties()) {
    if (pointsOf(space) === null && ticks().has(space) && !(await askPoints(space))) return false;
  }
  const at = ticks();
  const plan = rows.map((row) => {
    const id = Number(row.dataset.player);
    const p = player(id);
    const deeds = deedsOf(at, id);
    const sum = deeds.reduce((a, s) => a + pointsOf(s), 0);
    const before = countedFor(id);
    const changed = before ? before.join() !== deeds.join() : !p || p.points !== sum || p.cards !== deeds.length;
    const gives = before ? before.some((s) => !deeds.includes(s)) : Boolean(p) && deeds.length < p.cards;
    return { row, id, p, deeds, changed, gives };
  }).filter((r) => r.p && r.changed).sort((a, b) => Number(b.gives) - Number(a.gives));
  for (const r of plan) {
    try {
      await write(`points:${r.id}`, "/api/points", { player: r.id, deeds: r.deeds });
    } catch (err) {
      const first = r.row.querySelector(".deed-chip, .deed-more");
      if (first) first.focus();
      return false;
    }
    pointsDraft.delete(r.id);
  }
  for (const row of rows) {  // every row as the companion counts it now (unchanged ones too)
    const id = Number(row.dataset.player);
    keepCounted(id, deedsOf(at, id));
    pointsDraft.delete(id);
  }
  return true;
}

// Save every row of a score form (one write for each row that changed), asking first about the
// rows left blank: counted as 0, or typed. False when the table chose to type, or a row was
// refused (the page says why). Deeds rows: a player with no deed ticked counts 0 without asking
// once the companion knows who holds deeds (bought or traded on this page); before, it asks.
export async function saveScores(box) {
  const rows = [...box.querySelectorAll(".score-row")];
  const deedRows = rows.filter((r) => r.classList.contains("deeds-row"));
  if (deedRows.length) {
    const known = Object.keys(state.deeds || {}).length > 0;
    const at = ticks();
    const blank = known ? [] : deedRows.filter((r) => {
      const id = Number(r.dataset.player);
      return !pointsDraft.has(id) && !countedFor(id) && !deedsOf(at, id).length;
    });
    if (blank.length) {
      const names = blank.map((r) => nameOf(Number(r.dataset.player)));
      const zero = await ask(t("No deed ticked for some players"),
        [tn("No deed is ticked for {names}: count 0 points and 0 cards?",
            "No deed is ticked for {names}: count 0 points and 0 cards for each?", names.length, { names: names.join(", ") })],
        [{ label: t("Tick them"), value: false, cls: "quiet" }, { label: t("Count as 0"), value: true, cls: "warn" }], "blank-scores");
      if (!zero) {
        openRows.add(Number(blank[0].dataset.player));
        redrawDeeds();
        blank[0].querySelector(".deed-chip, .deed-more").focus();
        return false;
      }
    }
    return saveDeeds(deedRows);
  }
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
