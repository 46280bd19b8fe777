// Gamer and Mario Kart: characters (who plays which token) and Power-up abilities.

/* globals currentLanguage, t, tn, word */
import { $, state, watching } from "../store.js";
import { boardRules, charName, powers, sameSpace } from "../rules.js";
import { active, player, spaceOf, standsOn } from "../words.js";
import { el, playerRow } from "../widgets.js";
import { snack } from "../messages.js";
import { answerDialog, ask } from "../dialog.js";
import { write } from "../net.js";
import { undoSnack } from "../undo.js";
import { pay, resetPay } from "../pad.js";
import { markNotNow } from "../flow.js";

function picksWanted() {
  const pw = powers();
  if (!pw || !state) return 1;
  return pw.per_player[String(state.players.length)] || 1;
}
function takenBy(charId, pid) { return state.players.find((x) => x.id !== pid && (x.characters || []).includes(charId)); }

// -- characters: each player's token(s); one each (two each at a table of two) ---------------

export const charDraft = new Map();  // player id -> the characters ticked so far (two to pick)

function charChips(p, onDone) {
  const want = picksWanted();
  const row = el("div", "char-chips");
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", want > 1 ? t("{name}'s characters", { name: p.name }) : t("{name}'s character", { name: p.name }));
  const mine = charDraft.get(p.id) || p.characters || [];
  for (const c of powers().characters) {
    const other = takenBy(c.id, p.id);
    const b = el("button", "char-chip", word(c.name));
    b.type = "button";
    b.dataset.character = c.id;
    b.setAttribute("aria-pressed", String(mine.includes(c.id)));
    if (other) {
      b.disabled = true;
      b.append(el("span", "char-taker", t("{name}'s", { name: other.name })));
      b.setAttribute("aria-label", t("{character}: {name}'s", { character: word(c.name), name: other.name }));
    }
    b.addEventListener("click", () => pickCharacter(p, c.id, b, onDone));
    row.append(b);
  }
  return row;
}

function pickCharacter(p, id, button, onDone) {
  const want = picksWanted();
  let picked;
  if (want === 1) picked = [id];
  else {
    const now = [...(charDraft.get(p.id) || p.characters || [])].filter((x) => x !== id);
    if (now.length === (charDraft.get(p.id) || p.characters || []).length) now.push(id);  // ticked
    picked = now.slice(-want);
    if (picked.length < want) { charDraft.set(p.id, picked); shownChars = ""; renderCharacters(); if (onDone) onDone(false); return; }
  }
  charDraft.set(p.id, picked);
  write(`chars:${p.id}`, "/api/characters", { player: p.id, characters: picked }, { button })
    .then(() => { charDraft.delete(p.id); snack(t("{name} plays {characters}", { name: p.name, characters: picked.map(charName).join(" & ") })); if (onDone) onDone(true); })
    .catch(() => { charDraft.delete(p.id); shownChars = ""; renderCharacters(); });
}

let shownChars = "";
export function forgetChars() { shownChars = ""; }
export function renderCharacters() {
  const card = $("characters");
  const pw = powers();
  const want = picksWanted();
  const missing = pw && state && !state.ended && !watching() && active().some((p) => (p.characters || []).length < want);
  card.hidden = !missing;
  if (!missing) { shownChars = ""; return; }
  const key = JSON.stringify([currentLanguage(), state.players.map((p) => [p.id, p.name, p.characters, p.out]), [...charDraft]]);
  if (key === shownChars) return;
  shownChars = key;
  $("chars-title").textContent = want > 1 ? t("Characters: each player plays {n} tokens", { n: want }) : t("Characters: who plays which token?");
  $("char-rows").replaceChildren(...active().map((p) => {
    const row = el("div", "char-row");
    row.style.setProperty("--colour", p.colour);
    row.dataset.player = p.id;
    row.append(el("span", "char-who", p.name), charChips(p));
    return row;
  }));
}

function openCharacters() {
  const p = typeof pay.from === "number" ? player(pay.from) : null;
  if (!p || !powers()) return;
  const want = picksWanted();
  const box = el("div", "char-dialog");
  const draw = () => box.replaceChildren(charChips(p, (done) => { if (done) answerDialog(true); else draw(); }));
  draw();
  ask(want > 1 ? t("{name}'s characters", { name: p.name }) : t("{name}'s character", { name: p.name }),
      [want > 1 ? t("Tap {n} characters: each token is played by one player.", { n: want }) : t("Tap the token they play: each is played by one player.")],
      [{ label: t("Close"), value: false, cls: "quiet" }], "characters", box)
    .then(() => { charDraft.delete(p.id); resetPay(); });
}

// -- Power-up abilities, from a tapped tile --------------------------------------------------

function abilityFor(a, character) {
  const boost = character ? (a.boosts || []).find((b) => b.character === character) : null;
  return boost ? { ...a, ...boost, id: a.id, name: a.name, boosted: true } : { ...a, boosted: false };
}

function spaceNames() {
  const board = boardRules();
  const names = [];
  for (const name of [...(board ? board.spaces : []), ...(state.board || []).map((x) => x.space)]) {
    if (!names.some((n) => sameSpace(n, name))) names.push(name);
  }
  return names;
}

// The Power-up die's abilities: in the order of its faces once the table typed them (a face
// typed twice listed once), else as the rulebook prints them.
function dieFaces(pw) {
  const all = pw.abilities.filter((x) => !x.star);
  const typed = state.ring && state.ring.faces ? [...new Set(state.ring.faces)] : [];
  const listed = typed.map((id) => all.find((a) => a.id === id)).filter(Boolean);
  return [...listed, ...all.filter((a) => !listed.includes(a))];
}

// The Power-up die, tapped as it shows (or the character's Super Star), for player ``p`` (from
// a tapped tile, or the move row's Power-up for the current player). ``takes(ability id,
// character)``: the move row's own way with an ability (a Banana dropped on the ring), true
// when it took it.
export async function openPower(p, button = $("pad-power"), takes = null) {
  const pw = powers();
  if (!pw || !p) return;
  const chars = p.characters || [];
  let character = chars[0] || null;
  const box = el("div", "power-picks");
  const draw = () => {
    const parts = [];
    if (chars.length > 1) {
      const set = el("fieldset", "pick-set");
      set.append(el("legend", "", t("Which character's turn")));
      const list = el("div", "pick-list chips");
      for (const c of chars) {
        const row = el("label", "pick-row" + (c === character ? " on" : ""));
        row.style.setProperty("--colour", p.colour);
        const input = Object.assign(document.createElement("input"), { type: "radio", name: "power-char", value: c, checked: c === character });
        input.addEventListener("change", () => { character = c; draw(); });
        row.append(input, el("span", "pick-name", charName(c)));
        list.append(row);
      }
      set.append(list);
      parts.push(set);
    } else if (!chars.length) {
      parts.push(el("p", "dialog-note", t("{name} has no character yet: no boosts, and no Super Star (tap Character first).", { name: p.name })));
    }
    const faces = el("div", "power-faces");
    for (const a of dieFaces(pw)) {
      const how = abilityFor(a, character);
      const b = el("button", "power-face" + (how.boosted ? " boosted" : ""));
      b.type = "button";
      b.dataset.ability = a.id;
      const head = el("span", "pf-head");
      head.append(el("span", "pf-name", word(a.name)));
      if (how.boosted) head.append(el("span", "chip gold", t("{character} boost", { character: charName(character) })));
      b.append(head, el("span", "pf-text", word(how.text)));
      b.title = (how.quote || []).join(" ");
      b.addEventListener("click", () => answerDialog({ a, how, character }));
      faces.append(b);
    }
    const star = pw.abilities.find((x) => x.star && x.star === character);
    const sb = el("button", "power-face star");
    sb.type = "button";
    sb.dataset.ability = "super_star";
    const head = el("span", "pf-head");
    head.append(el("span", "pf-name", t("Super Star")));
    sb.append(head, el("span", "pf-text", star ? word(star.text) : t("Pick a character first")));
    sb.disabled = !star;
    if (star) sb.addEventListener("click", () => answerDialog({ a: star, how: { ...star, boosted: false }, character }));
    faces.append(sb);
    for (const b of faces.children) markNotNow(b, "use_ability", p.id);  // out of the turn's moment: marked
    parts.push(faces);
    box.replaceChildren(...parts);
  };
  draw();
  const picked = await ask(t("{name}: Power-up", { name: p.name }), [t("Tap what the Power-up die shows (or Super Star).")],
    [{ label: t("Cancel"), value: false, cls: "quiet" }], "power", box);
  if (!picked) return;
  if (takes && !picked.a.star && takes(picked.a.id, picked.character)) return;
  await usePower(p, picked, button);
}

// A movement press's Power-up face, offered in the move row as one button for player ``p``
// (``character``: the token that moved, for a player with two): its words, and ``use(button)``,
// the existing flow with that ability chosen (nothing asked when it has no choice: POW,
// Lightning, Coins; a Green Shell whose next player ahead is known). Null: not an ability here.
export function faceOffer(p, id, character = null) {
  const pw = powers();
  const a = pw && pw.abilities.find((x) => !x.star && x.id === id);
  if (!a || !p) return null;
  const chars = p.characters || [];
  const who = character && chars.includes(character) ? character : chars[0] || null;
  const how = abilityFor(a, who);
  const name = word(a.name);
  const others = active().filter((x) => x.id !== p.id);
  const next = how.id === "green_shell" && !how.boosted && how.targets === "one" ? nextAhead(p, others) : null;
  let label;
  if (next) label = t("{ability}: {name} drops {n}", { ability: name, name: next.name, n: how.coins });
  else if (how.targets === "one" || how.targets === "two") label = t("{ability}: who?", { ability: name });
  else if ((how.effect === "drop" || how.effect === "drop_give") && how.targets === "others") {
    label = t("{ability}: all others drop {n}", { ability: name, n: how.coins });
  } else if (how.effect === "steal" && how.targets === "others") label = t("{ability}: {n} from each", { ability: name, n: how.coins });
  else if (how.effect === "collect" && how.spaces_instead) label = t("{ability}: coins or spaces?", { ability: name });
  else if (how.effect === "collect") label = t("{ability}: collect {n}", { ability: name, n: how.coins });
  else label = name;
  const use = (button) => usePower(p, { a, how, character: who }, button, Boolean(next));
  return { label, text: word(how.text), boosted: how.boosted, use };
}

// An ability picked (``{a, how, character}``): what it needs asked, then written; the move, or
// null when it was not used.
async function usePower(p, picked, button, direct = false) {
  const body = { player: p.id, ability: picked.a.star ? "super_star" : picked.a.id };
  if ((p.characters || []).length > 1 && picked.character) body.character = picked.character;
  const details = await powerDetails(p, picked.how, body, direct);
  if (!details) return null;
  return write(`ability:${p.id}`, "/api/abilities", details, { button }).then((move) => {
    resetPay();
    undoSnack(move, t("{name}: {ability}", { name: p.name, ability: word(picked.how.name) }));
    return move;
  }).catch(() => null);
}

// Landed on a Super Star space: the character's own Super Star, at once (what it needs is asked
// as from the Power-up dialog).
export function superStar(p, character, button) {
  const pw = powers();
  const star = pw && pw.abilities.find((x) => x.star && x.star === character);
  if (!star) return Promise.resolve(null);
  return usePower(p, { a: star, how: { ...star, boosted: false }, character }, button);
}

// Where a token stands is known once the board is described (In Jail: the jail space).
function placed(x) { return Boolean(x.in_jail) || spaceOf(x) !== null; }

// A Green Shell: "the next player on the board, from your position ... If two players are tied
// for the next player, choose one." The nearest ahead, clockwise (a player on the same space is
// not ahead), or ``behind`` (Yoshi's boost: "a player in front of OR behind you"): every one
// tied for it; none when a position is unknown.
function nearestAhead(p, others, behind = false) {
  const ring = state.ring;
  if (!ring || spaceOf(p) === null || !others.length || others.some((x) => spaceOf(x) === null)) return [];
  const n = ring.spaces.length;
  const gap = (x) => (behind ? spaceOf(p) - spaceOf(x) : spaceOf(x) - spaceOf(p));
  const away = (x) => ((gap(x) % n) + n) % n || n;
  const nearest = Math.min(...others.map(away));
  return others.filter((x) => away(x) === nearest);
}

// The one next player ahead; null when a tie (or a position unknown) leaves the choice to the table.
function nextAhead(p, others) {
  const found = nearestAhead(p, others);
  return found.length === 1 ? found[0] : null;
}

// What an ability needs before it is sent: who it hits, where each dropping player stands, a
// number typed (a roll, the rent, the coins Toad drops), coins or spaces (Mario's Coins boost).
// ``direct``: a Green Shell whose next player ahead is known is written at once (the move row's
// button named them).
async function powerDetails(p, how, body, direct = false) {
  const others = active().filter((x) => x.id !== p.id);
  const typedKind = { collect_roll: "roll", collect_typed: "rent", drop_up_to: "upto" }[how.effect] || null;
  const drops = how.effect === "drop" || how.effect === "drop_give";
  const choose = how.targets === "one" || how.targets === "two";
  // Nothing to ask (POW with every token on the board): written at once, undone from its snack.
  const unplaced = drops && how.targets === "others" && others.some((x) => !placed(x));
  if (!choose && !typedKind && !how.spaces_instead && !unplaced) return body;
  const next = choose && how.id === "green_shell" && !how.boosted ? nextAhead(p, others) : null;
  if (direct && next && placed(next) && !typedKind && !how.spaces_instead) return { ...body, targets: [next.id] };
  let targets = next ? [next.id] : [];
  let coins = null;
  let instead = false;
  const where = new Map();  // player id -> the space typed or picked
  const box = el("div", "power-detail");
  const targetSet = el("fieldset", "pick-set");
  const spaceSet = el("fieldset", "pick-set where-set");
  const coinSet = el("fieldset", "pick-set");
  const droppers = () => {
    if (drops) return how.targets === "others" ? others : others.filter((x) => targets.includes(x.id));
    if (how.effect === "drop_up_to" && coins) return [p];
    return [];
  };
  if (choose) {
    targetSet.append(el("legend", "", how.targets === "two" ? t("Who: one or two players") : t("Who")));
    const list = el("div", "pick-list chips");
    // A Green Shell's tie: the players tied for next ahead (boosted: next behind too, as the
    // rules check it) come first, each marked (another is the banker's correction).
    const shell = choose && how.id === "green_shell";
    const ahead = shell ? nearestAhead(p, others).map((x) => x.id) : [];
    const behind = shell && how.boosted ? nearestAhead(p, others, true).map((x) => x.id) : [];
    const tied = [...ahead, ...behind];
    const listed = [...others.filter((x) => tied.includes(x.id)), ...others.filter((x) => !tied.includes(x.id))];
    for (const x of listed) {
      const note = x.in_jail ? t("in Jail") : ahead.includes(x.id) ? t("next ahead")
        : behind.includes(x.id) ? t("next behind") : "";
      const row = playerRow(x, how.targets === "two" ? "checkbox" : "radio", "target", targets.includes(x.id), false, note);
      list.append(row);
    }
    list.addEventListener("change", () => {
      const ticked = [...list.querySelectorAll("input:checked")].map((i) => Number(i.value));
      if (how.targets === "two" && ticked.length > 2) {  // a third tick: the oldest goes
        const drop = targets.find((t) => ticked.includes(t));
        list.querySelector(`input[value="${drop}"]`).checked = false;
      }
      targets = [...list.querySelectorAll("input:checked")].map((i) => Number(i.value));
      draw();
      // One player to pick and nothing else to ask (their token says where they drop): the
      // tap on them is the last one; the snack's Undo takes it back.
      const hit = others.find((x) => x.id === targets[0]);
      if (state.ring && how.targets === "one" && targets.length === 1 && !typedKind &&
          !how.spaces_instead && hit && (!drops || placed(hit) || hit.in_jail)) answerDialog(true);
    });
    targetSet.append(list);
    box.append(targetSet);
  }
  if (typedKind) {
    const label = typedKind === "roll" ? t("The numbered die rolled") : typedKind === "rent" ? t("Rent counted (coins)")
      : t("Coins dropped (0 to {coins})", { coins: how.coins });
    coinSet.append(el("legend", "", label));
    if (typedKind === "rent") {
      const input = Object.assign(document.createElement("input"), { id: "power-coins", type: "number", min: "0", max: "200", inputMode: "numeric", placeholder: t("coins") });
      input.setAttribute("aria-label", label);
      input.addEventListener("input", () => { const n = Number(input.value); coins = input.value !== "" && Number.isInteger(n) && n >= 0 ? n : null; draw(); });
      coinSet.append(input);
    } else {
      const keys = el("div", "drop-keys power-keys");
      const [lo, hi] = typedKind === "roll" ? [1, 6] : [0, how.coins];
      for (let n = lo; n <= hi; n++) {
        const k = el("button", "drop-key", n);
        k.type = "button";
        k.dataset.coins = String(n);
        k.addEventListener("click", () => { coins = n; draw(); });
        keys.append(k);
      }
      coinSet.append(keys);
    }
    box.append(coinSet);
  }
  if (how.spaces_instead) {
    const set = el("fieldset", "pick-set");
    set.append(el("legend", "", t("Coins, or spaces instead")));
    const list = el("div", "pick-list chips");
    for (const [value, text] of [[false, tn("Collect {n} coin", "Collect {n} coins", how.coins)],
                                 [true, tn("Up to {n} space", "Up to {n} spaces", how.coins)]]) {
      const row = el("label", "pick-row" + (instead === value ? " on" : ""));
      row.style.setProperty("--colour", p.colour);
      const input = Object.assign(document.createElement("input"), { type: "radio", name: "instead", value: String(value), checked: instead === value });
      input.addEventListener("change", () => { instead = value; for (const r of list.children) r.classList.toggle("on", r.querySelector("input").checked); });
      row.append(input, el("span", "pick-name", text));
      list.append(row);
    }
    set.append(list);
    box.append(set);
  }
  box.append(spaceSet);
  const asked = ask(how.boosted ? t("{ability}: {character}'s boost", { ability: word(how.name), character: charName(how.character) }) : word(how.name),
    [word(how.text)],
    [{ label: t("Cancel"), value: false, cls: "quiet" }, { label: t("Use it"), value: true, cls: "pay-now" }], "power-detail", box);
  const go = $("dialog-buttons").lastElementChild;
  let spacesKey = null;
  const drawSpaces = () => {
    const who = droppers();
    const key = JSON.stringify(who.map((x) => x.id));
    if (key === spacesKey) return;
    spacesKey = key;
    spaceSet.hidden = !who.length;
    const names = spaceNames();
    const board = boardRules();
    const ring = state.ring;
    spaceSet.replaceChildren(el("legend", "", t("Where each one drops: the space they stand on")));
    for (const x of who) {
      const line = el("div", "where-row");
      line.style.setProperty("--colour", x.colour);
      line.dataset.player = x.id;
      if (x.in_jail) {
        const jailSpace = ring ? ring.labels[ring.jail_corner] : board.jail_space;
        line.append(el("span", "where-who", x.name), el("span", "where-jail", t("in Jail: drops on {space}", { space: word(jailSpace) })));
        spaceSet.append(line);
        continue;
      }
      if (placed(x)) {  // the board is described: their token says where
        line.classList.add("known");
        line.append(el("span", "where-who", x.name), el("span", "where-on", t("on {space}", { space: word(standsOn(x)) })));
        spaceSet.append(line);
        continue;
      }
      const label = el("label", "where-label", t("{name} stands on", { name: x.name }));
      const select = document.createElement("select");
      select.className = "where-space";
      select.id = `where-${x.id}`;
      select.append(new Option(t("Pick a space…"), ""), ...names.map((n) => new Option(word(n), n)), new Option(t("Another space…"), "*other"));
      const typed = Object.assign(document.createElement("input"), { className: "where-other", maxLength: 40, autocomplete: "off",
                                                                     placeholder: t("as printed on the board") });
      typed.setAttribute("aria-label", t("{name}: another space", { name: x.name }));
      const had = where.get(x.id);
      if (had && names.some((n) => n === had)) select.value = had;
      else if (had) { select.value = "*other"; typed.value = had; }
      typed.hidden = select.value !== "*other";
      select.addEventListener("change", () => {
        typed.hidden = select.value !== "*other";
        if (select.value === "*other") { where.delete(x.id); typed.focus(); } else if (select.value) where.set(x.id, select.value); else where.delete(x.id);
        draw();
      });
      typed.addEventListener("input", () => { if (typed.value.trim()) where.set(x.id, typed.value.trim()); else where.delete(x.id); draw(); });
      label.append(select);
      line.append(label, typed);
      spaceSet.append(line);
    }
  };
  const draw = () => {
    for (const r of box.querySelectorAll(".pick-list .pick-row")) r.classList.toggle("on", r.querySelector("input").checked);
    for (const k of box.querySelectorAll(".drop-key")) k.setAttribute("aria-pressed", String(Number(k.dataset.coins) === coins));
    drawSpaces();
    const who = droppers();
    const missingSpace = who.find((x) => !placed(x) && !where.get(x.id));
    let need = null;
    if (choose && !targets.length) need = how.targets === "two" ? t("Pick one or two players") : t("Pick a player");
    else if (typedKind && coins === null) need = typedKind === "roll" ? t("Tap the roll") : typedKind === "rent" ? t("Type the rent") : t("How many coins?");
    else if (missingSpace) need = t("Where is {name}?", { name: missingSpace.name });
    go.dataset.off = need ? "1" : "";
    if (!go.classList.contains("arming")) go.disabled = Boolean(need);
    go.textContent = need || t("Use {ability}", { ability: word(how.name) });
    markNotNow(go, "use_ability", p.id);
  };
  draw();
  if (!(await asked)) return null;
  const out = { ...body };
  if (choose) out.targets = targets;
  const spaces = {};
  for (const x of droppers()) if (!placed(x)) spaces[String(x.id)] = where.get(x.id);
  if (Object.keys(spaces).length) out.spaces = spaces;
  if (typedKind) out.coins = coins;
  if (instead) out.spaces_instead = true;
  return out;
}

$("pad-power").addEventListener("click", () => openPower(typeof pay.from === "number" ? player(pay.from) : null));
$("pad-chars").addEventListener("click", openCharacters);
