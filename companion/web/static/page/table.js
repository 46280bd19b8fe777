// The players: a tile each (and the Bank's), the worms found, and the outcomes waiting for a
// player.

/* globals t, tn, word */
import { $, redraw, state, watching } from "./store.js";
import { charName, contestRules, powers, rules } from "./rules.js";
import { bare, cardWords, heard, pointWords, title } from "./words.js";
import { el, fillSelect } from "./widgets.js";
import { snack } from "./messages.js";
import { write } from "./net.js";
import { undoLatest } from "./undo.js";
import { laterFor, markTiles, tapTile, waitingOutcome } from "./pad.js";

export const chosenFor = new Map();  // outcome id -> the player picked in "Give"
export const lastBalance = new Map();  // player id -> the balance last drawn (a change flashes)

export function renderPlayers() {
  const box = $("players");
  const worms = state.game.worms;
  const tiles = state.players.map((p) => {
    const tile = document.createElement("div");
    tile.className = "tile" + (p.current ? " current" : "") + (p.out ? " out" : "") + (p.linked ? " linked" : "");
    tile.style.setProperty("--colour", p.colour);
    tile.dataset.player = p.id;
    const pick = document.createElement("button");
    pick.className = "pick";
    pick.type = "button";
    pick.disabled = p.out || state.ended || watching();
    pick.innerHTML = '<span class="badge" hidden></span><span class="name"><span class="who"></span></span><span class="coins"></span><span class="owe"></span><span class="chars"></span><span class="extra"></span><span class="jail"></span><span class="turn"></span>';
    pick.querySelector(".who").textContent = p.name;
    if (p.linked) {
      const phone = document.createElement("span");
      phone.className = "phone";
      phone.title = t("Has a phone link");
      phone.setAttribute("role", "img");
      phone.setAttribute("aria-label", t("phone linked"));
      pick.querySelector(".name").append(phone);
    }
    // The number is drawn; a screen reader hears it with its word ("Luigi, 16 coins").
    const coins = pick.querySelector(".coins");
    coins.textContent = p.out ? t("OUT") : p.balance;
    if (!p.out) {
      coins.setAttribute("aria-hidden", "true");
      const spoken = state.game.bank === false ? String(p.balance) : tn("{n} coin", "{n} coins", p.balance);
      coins.after(el("span", "sr-only", spoken));
    }
    if (p.owes && !p.out) pick.querySelector(".owe").append(el("span", "owes", t("owes")));
    if (p.points !== null && (p.points || p.cards)) {
      pick.querySelector(".extra").textContent = `${pointWords(p.points)} · ${cardWords(p.cards)}`;
    }
    if (powers() && (p.characters || []).length) pick.querySelector(".chars").textContent = p.characters.map(charName).join(" & ");
    if (contestRules()) {  // the Boss or Grand Prix cards won, and the Property points typed
      const bits = [];
      if ((p.won || []).length) bits.push(`${word(contestRules().card_name)} ${p.won.join(", ")}`);
      if (p.points || p.cards) bits.push(tn("Property {n} point", "Property {n} points", p.points));
      pick.querySelector(".extra").textContent = bits.join(" · ");
    }
    if (p.in_jail && !p.out) {
      tile.classList.add("jailed");
      const tries = rules && rules.jail_tries;
      const jail = pick.querySelector(".jail");
      jail.append(Object.assign(document.createElement("span"), { className: "jail-badge", textContent: t("in Jail") }));
      // Tries are counted the same way in every edition: the block's (the Movie) or the table's.
      if (tries) jail.append(Object.assign(document.createElement("span"), { className: "jail-tries",
                                                                              textContent: tn("{done} of {n} try", "{done} of {n} tries", tries, { done: p.jail_tries }) }));
    }
    if (p.out) pick.querySelector(".turn").textContent = t("bankrupt");
    else if (p.current && state.game.simultaneous) pick.querySelector(".turn").textContent = t("slides the lever");
    else if (p.current) currentLabel(pick.querySelector(".turn"));
    pick.addEventListener("click", () => tapTile(p.id));
    tile.append(pick);
    if (worms) tile.append(wormRow(p, worms));
    if (lastBalance.has(p.id) && lastBalance.get(p.id) !== p.balance) tile.classList.add("flash");
    lastBalance.set(p.id, p.balance);
    return tile;
  });
  if (state.game.bank !== false && !watching() && !state.ended) tiles.push(bankTile());
  // The tiles are drawn anew: the keyboard's focus stays on the same player's tile.
  const focused = box.contains(document.activeElement) ? document.activeElement.closest(".tile") : null;
  box.replaceChildren(...tiles);
  if (focused) {
    const again = box.querySelector(`.tile[data-player="${focused.dataset.player}"] .pick`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
  markTiles();
}

// "current player", its second word dropped where the tiles are narrow (.turn-more) when the
// language's long label starts with its short one; else the short label alone.
function currentLabel(box) {
  const short = t("current");
  const long = t("current player");
  if (long.startsWith(short) && long.length > short.length) {
    box.replaceChildren(short, el("span", "turn-more", long.slice(short.length)));
  } else box.textContent = short;
}

function bankTile() {
  const tile = document.createElement("div");
  tile.className = "tile bank-tile";
  tile.dataset.player = "bank";
  const pick = document.createElement("button");
  pick.className = "pick";
  pick.type = "button";
  pick.innerHTML = '<span class="badge" hidden></span><span class="name"></span><span class="extra"></span>';
  pick.querySelector(".name").textContent = t("Bank");
  pick.querySelector(".extra").textContent = t("pays or collects");
  pick.addEventListener("click", () => tapTile("bank"));
  tile.append(pick);
  return tile;
}

function wormRow(p, target) {
  // Tap a worm to say how many are found; tap the last found one again to take it back.
  const row = document.createElement("div");
  row.className = "worms";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", t("{name}: worms found", { name: p.name }));
  for (let k = 1; k <= target; k++) {
    const worm = document.createElement("button");
    worm.className = "worm" + (k <= p.worms ? " found" : "");
    worm.textContent = String(k);
    worm.setAttribute("aria-label", t("{name} has found {n}", { name: p.name, n: k }));
    worm.disabled = state.ended || watching();
    worm.addEventListener("click", () => {
      const found = k === p.worms ? k - 1 : k;
      write(`worms:${p.id}:${k}`, "/api/worms", { player: p.id, found }, { button: worm, sticky: true })
        .then(() => snack(tn("{name}: {n} worm found", "{name}: {n} worms found", found, { name: p.name }), t("Undo"), () => undoLatest()))
        .catch(() => {});
    });
    row.append(worm);
  }
  const count = document.createElement("span");
  count.className = "worm-count";
  count.textContent = `${p.worms}/${target}`;
  row.append(count);
  return row;
}

export function renderWaiting() {
  const waiting = waitingOutcome();
  const bar = $("givebar");
  bar.hidden = !waiting;
  if (waiting) {
    $("give-what").textContent = t("Waiting: {what} — {instruction}. Tap the player it is for.",
                                  { what: bare(heard(waiting, "headline")), instruction: heard(waiting, "instruction") });
  }
  // Put off with "Later": given here, from a list.
  const later = watching() ? [] : state.unassigned.filter((o) => laterFor.has(o.id));
  const list = $("waiting");
  $("unassigned").hidden = later.length === 0;
  list.replaceChildren(...later.map((o) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = `${bare(heard(o, "headline"))} — ${heard(o, "instruction")}`;
    const pick = document.createElement("select");
    pick.setAttribute("aria-label", t("Who it is for"));
    fillSelect(pick, false, chosenFor.has(o.id) ? chosenFor.get(o.id) : state.current_player ?? undefined);
    pick.addEventListener("change", () => chosenFor.set(o.id, Number(pick.value)));
    const give = document.createElement("button");
    give.className = "big";
    give.textContent = t("Give");
    give.addEventListener("click", () => {
      const who = Number(pick.value);
      write("assign", "/api/assign", { outcome: o.id, player: who }, { button: give })
        .then((reply) => snack(t("{what} for {name}", { what: bare(heard(o, "headline")), name: title(who) }),
                               t("Undo"), () => undoLatest(reply.move)))
        .catch(() => {});
    });
    li.append(label, pick, give);
    return li;
  }));
}

$("give-later").addEventListener("click", () => {
  const waiting = waitingOutcome();
  if (waiting) laterFor.add(waiting.id);
  if (state) redraw("page");
});
