// The ring of the board the table described (Gamer, Mario Kart): its spaces drawn as the board's
// square loop (GO at the bottom right, clockwise), each cell with its pile, its Banana and the
// tokens on it; shared by the Board card and the describe editor.

/* globals t, tn, word */
import { state } from "../store.js";
import { charName, sameSpace } from "../rules.js";
import { active, player } from "../words.js";
import { el } from "../widgets.js";
import { kindOf, spaceName, tokensOf } from "./spaces.js";
import { holderOf } from "./deeds.js";

// -- the ring: the board's square loop, GO at the bottom right, clockwise as the tokens move ----

// Columns and rows whose border holds n spaces (an odd count leaves one cell before GO empty).
function shape(n) {
  const sum = (n + (n % 2)) / 2 + 2;
  const cols = Math.ceil(sum / 2);
  return { cols, rows: sum - cols };
}

// Where space i goes: the bottom row right to left from GO, up the left side, the top row left
// to right, down the right side (as on the box's board).
function cellAt(i, cols, rows) {
  if (i < cols) return { col: cols - i, row: rows };
  i -= cols - 1;
  if (i < rows) return { col: 1, row: rows - i };
  i -= rows - 1;
  if (i < cols) return { col: 1 + i, row: 1 };
  i -= cols - 1;
  return { col: cols, row: 1 + i };
}

const TAP = 44;  // a finger's target, in CSS px: no cell is narrower or shorter
const GAP = 2;   // .ring's gap

// The shape on a ring ``width`` px wide: the board's square where its cells are a finger's
// width, else fewer columns and more rows (the same loop, taller) until they are; a side's depth
// (``edge``, in inner cells) is 2 where there is room, as on the box's board.
function shapeOn(n, width) {
  const square = shape(n);
  const sum = square.cols + square.rows;
  const deep = (cols, rows) => (Math.min(cols, rows) >= 7 ? [2, 1] : [1]);
  if (!width) return { ...square, edge: deep(square.cols, square.rows)[0] };
  for (let cols = square.cols; cols >= 3; cols--) {
    const rows = sum - cols;
    for (const edge of deep(cols, rows)) {
      const across = cols - 2 + 2 * edge;
      const down = rows - 2 + 2 * edge;
      const wide = (width - (cols - 1) * GAP) / across;
      const tall = (width * down / across - (rows - 1) * GAP) / down;
      if (Math.min(wide, tall) >= TAP) return { cols, rows, edge };
    }
  }
  return { cols: 3, rows: sum - 3, edge: 1 };
}

// The cells placed for a ring ``width`` px wide (0: not laid out yet, the square), ``mid`` in
// its middle where there is room for it, else right under it.
function place(grid, cells, mid, width) {
  const { cols, rows, edge } = shapeOn(cells.length, width);
  const key = `${cols}x${rows}/${edge}`;
  if (grid.dataset.shape === key) return;
  grid.dataset.shape = key;
  grid.style.gridTemplateColumns = `minmax(0, ${edge}fr) repeat(${cols - 2}, minmax(0, 1fr)) minmax(0, ${edge}fr)`;
  grid.style.gridTemplateRows = `minmax(0, ${edge}fr) repeat(${rows - 2}, minmax(0, 1fr)) minmax(0, ${edge}fr)`;
  grid.style.aspectRatio = `${2 * edge + cols - 2} / ${2 * edge + rows - 2}`;
  cells.forEach((node, i) => {
    const at = cellAt(i, cols, rows);
    const across = at.row === 1 || at.row === rows;
    const down = at.col === 1 || at.col === cols;
    node.classList.remove("corner", "tall", "wide");
    node.classList.add(across && down ? "corner" : across ? "tall" : "wide");
    node.style.gridColumn = String(at.col);
    node.style.gridRow = String(at.row);
  });
  if (!mid) return;
  if (cols >= 5 && rows >= 5) {
    mid.style.gridColumn = `2 / ${cols}`;
    mid.style.gridRow = `2 / ${rows}`;
    mid.classList.add("inside");
    if (mid.parentElement !== grid) grid.append(mid);
  } else {
    mid.style.gridColumn = mid.style.gridRow = "";
    mid.classList.remove("inside");
    if (mid.parentElement === grid) grid.after(mid);
  }
}

// The ring's grid of cells (made by ``cell(spaces, i)``), and ``mid`` in its middle where there
// is room for it (else under it). As on the box's board, the sides' spaces are deeper than wide
// and the corners square: a cell on the top or bottom row is tall, one on a side column wide.
// Laid out again when its width changes (a phone's ring is taller than the board's square).
export function ringGrid(spaces, cell, mid) {
  const grid = el("div", "ring");
  const cells = spaces.map((_, i) => cell(spaces, i));
  grid.append(...cells);
  place(grid, cells, mid, 0);
  const watch = new ResizeObserver((entries) => {
    if (!grid.isConnected) { watch.disconnect(); return; }  // drawn again: this one is gone
    const width = entries[entries.length - 1].contentRect.width;
    if (width > 0) place(grid, cells, mid, width);
  });
  watch.observe(grid);
  return !mid || mid.parentElement === grid ? [grid] : [grid, mid];
}

// A cell: its number (GO's name) where the cell is narrow, its name where there is room.
export function baseCell(spaces, i) {
  const kind = kindOf(spaces[i]);
  const cell = el("button", "ring-cell kind-" + (kind ? kind.effect : "none"));
  cell.type = "button";
  cell.dataset.space = String(i);
  const label = el("span", "rc-label");
  label.append(el("span", "rc-num", kind && kind.effect === "go" ? word(kind.name) : i),
               el("span", "rc-name", spaceName(spaces, i)));
  cell.append(label);
  return cell;
}

export function dot(p, extra) {
  const d = el("span", "rc-dot" + (extra || ""));
  d.style.setProperty("--colour", p.colour);
  d.setAttribute("aria-hidden", "true");
  return d;
}

// The piles on the board by space (their labels are the ring's).
export function pilesBySpace(ring) {
  const piles = new Map();
  for (const pile of state.board || []) {
    const i = ring.labels.findIndex((label) => sameSpace(label, pile.space));
    if (i >= 0 && pile.coins > 0) piles.set(i, pile.coins);
  }
  return piles;
}

// A token in words: the player's name, or (a game of two) the player's character.
export function tokenWords(p, tok) {
  const name = tok.character ? t("{name}'s {character}", { name: p.name, character: charName(tok.character) }) : p.name;
  return tok.jailed ? t("{name} (In Jail)", { name }) : name;
}

// Every token on the board, by space: [{p, tok}].
export function tokensBySpace() {
  const at = new Map();
  for (const p of active()) {
    for (const tok of tokensOf(p)) {
      if (!at.has(tok.at)) at.set(tok.at, []);
      at.get(tok.at).push({ p, tok });
    }
  }
  return at;
}

function bananaMark() {
  const b = el("span", "rc-banana");
  b.setAttribute("aria-hidden", "true");
  return b;
}

// A cell of the Board card: its pile, its Banana, its tokens in its words; ``onTap(i, cell,
// drop)``: a tap on it (``drop``: a Banana of this turn goes there).
export function playCell(spaces, i, piles, standing, pickable, onTap) {
  const cell = baseCell(spaces, i);
  const coins = piles.get(i) || 0;
  const here = standing.get(i) || [];
  const words = [t("{n}. {name}", { n: i, name: spaceName(spaces, i) })];
  const holder = holderOf(i);
  if (holder !== null && kindOf(spaces[i]) && kindOf(spaces[i]).effect === "property" && player(holder)) {
    cell.classList.add("held");
    cell.style.setProperty("--holder", player(holder).colour);
    words.push(t("held by {name}", { name: player(holder).name }));
  }
  if (coins) {
    const badge = el("span", "rc-coins", coins);
    badge.setAttribute("aria-hidden", "true");
    cell.append(badge);
    words.push(tn("{n} coin", "{n} coins", coins));
  }
  const banana = (state.bananas || []).includes(i);
  if (here.length || banana) {
    const dots = el("span", "rc-dots");
    if (banana) { dots.append(bananaMark()); words.push(t("a Banana")); cell.classList.add("has-banana"); }
    for (const { p, tok } of here) dots.append(dot(p, (tok.jailed ? " jailed" : "") + (p.current ? " now" : "")));
    cell.append(dots);
    for (const { p, tok } of here) words.push(tokenWords(p, tok));
  }
  if (here.some((x) => x.tok.jailed)) cell.classList.add("has-jailed");
  const drop = pickable.has(i);
  if (drop) { cell.classList.add("on-path"); words.push(t("tap: a Banana here")); }
  cell.setAttribute("aria-label", words.join(", "));
  cell.title = words.join(", ");
  cell.addEventListener("click", () => onTap(i, cell, drop));  // a Banana dropped, or its sheet
  return cell;
}

// Who stands where, in words (in the ring's middle).
export function whoWhere(ring, picker) {
  const list = el("ul", "ring-mid");
  list.setAttribute("aria-label", t("Where the tokens stand"));
  if (picker) list.append(el("li", "ring-pick", t("{name}'s Banana: tap a lit space", { name: picker.name })));
  for (const p of active()) {
    for (const tok of tokensOf(p)) {
      const li = el("li", "ring-who" + (p.current ? " now" : ""));
      li.dataset.player = String(p.id);
      if (tok.character) li.dataset.character = tok.character;
      li.append(dot(p, tok.jailed ? " jailed" : ""), el("span", "rw-name", tok.character ? `${p.name} · ${charName(tok.character)}` : p.name),
                el("span", "rw-where", tok.jailed ? t("In Jail") : spaceName(ring.spaces, tok.at)));
      list.append(li);
    }
  }
  return list;
}
