// Each player's coins over the evening, at the end of a game: one line per player in their
// colour with their name at its end, drawn as plain SVG; the same figures (start, highest,
// lowest, end) as a table for a screen reader. The series is the companion's, computed from
// the journal (GET /api/games/{id}/coins), fetched once when a game has ended. The banker's
// page and the players' phones (player.js imports it) both draw it.

/* globals t */
const SVG = "http://www.w3.org/2000/svg";
const HEIGHT = 200;
const FONT = 14;         // px: the labels are drawn at the page's own size (no scaling),
                         // no text under 14 px (readable at arm's length)
const LABEL_GAP = 16;    // px between two names at the lines' ends
const MAX_LABEL = 12;    // characters of a name at a line's end (the table has it whole)

const shown = new WeakMap();  // box -> {key, series, players}: what it draws
let watcher = null;

// Show the chart of the game in `table` (a state with game, players, ended, version) in `box`,
// or hide it while the game goes on. Fetched once a version; drawn again when the box's width
// changes (a phone turned).
export function showCoins(box, table) {
  if (!box) return;
  if (!table || !table.ended || table.game.bank === false) { box.hidden = true; return; }
  const key = `${table.game.id}.${table.version || ""}`;
  const had = shown.get(box);
  if (had && had.key === key) {
    if (had.series) draw(box, had.series, table.players);
    return;
  }
  shown.set(box, { key, series: null });
  fetch(`/api/games/${table.game.id}/coins`).then((reply) => {
    if (!reply.ok) throw new Error(`coins: ${reply.status}`);
    return reply.json();
  }).then((series) => {
    const now = shown.get(box);
    if (!now || now.key !== key) return;  // a newer state asked meanwhile
    now.series = series;
    now.players = table.players;
    draw(box, series, table.players);
  }).catch(() => { box.hidden = true; });
  if (!watcher && window.ResizeObserver) {
    watcher = new ResizeObserver((seen) => seen.forEach(({ target }) => {
      const now = shown.get(target);
      if (now && now.series && !target.hidden && now.width !== target.clientWidth) {
        draw(target, now.series, now.players);
      }
    }));
  }
  if (watcher) watcher.observe(box);
}

function el(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function short(name) {
  return name.length > MAX_LABEL ? name.slice(0, MAX_LABEL - 1) + "…" : name;
}

// The names at the lines' ends, moved apart where ends are close, kept inside the plot.
function spread(labels, top, bottom) {
  labels.sort((a, b) => a.y - b.y);
  for (let i = 1; i < labels.length; i++) {
    labels[i].y = Math.max(labels[i].y, labels[i - 1].y + LABEL_GAP);
  }
  const over = labels.length ? labels[labels.length - 1].y - bottom : 0;
  if (over > 0) labels.forEach((l) => { l.y -= over; });
  for (let i = 0; i < labels.length; i++) {
    labels[i].y = Math.max(labels[i].y, top + i * LABEL_GAP);
  }
  return labels;
}

function draw(box, series, players) {
  const byId = new Map(players.map((p) => [p.id, p]));
  const lines = series.players.filter((line) => byId.has(line.player));
  const width = Math.max(240, box.clientWidth || box.parentElement?.clientWidth || 320);
  const now = shown.get(box);
  if (now) now.width = box.clientWidth;
  const names = lines.map((line) => short(byId.get(line.player).name));
  const longest = Math.max(4, ...names.map((n, i) => n.length + String(lines[i].end).length + 1));
  const right = Math.min(Math.round(width * 0.42), Math.round(longest * FONT * 0.62) + 28);
  const left = 38;
  const top = 10;
  const bottom = HEIGHT - 24;
  const plot = width - left - right;
  const high = Math.max(1, ...lines.map((l) => l.high));
  const low = Math.min(0, ...lines.map((l) => l.low));
  const steps = Math.max(1, series.moves.length - 1);
  const x = (i) => left + (plot * i) / steps;
  const y = (coins) => bottom - ((bottom - top) * (coins - low)) / (high - low);

  const svg = el("svg", { viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT,
                          class: "coin-lines", "aria-hidden": "true", focusable: "false" });
  const placed = [];
  for (const value of [...new Set([0, high, low])]) {  // the scale: 0, the top, any debt
    svg.append(el("line", { x1: left, x2: left + plot, y1: y(value), y2: y(value),
                            class: value === 0 ? "axis" : "grid" }));
    if (placed.some((other) => Math.abs(y(other) - y(value)) < FONT)) continue;  // too near
    placed.push(value);
    svg.append(el("text", { x: left - 6, y: y(value) + 5, "text-anchor": "end", class: "scale" },
                  String(value)));
  }
  const ends = [el("text", { x: left, y: HEIGHT - 6, class: "scale" }, t("At the start")),
                el("text", { x: left + plot, y: HEIGHT - 6, "text-anchor": "end", class: "scale" },
                   t("At the end"))];
  svg.append(...ends);
  const labels = [];
  lines.forEach((line, n) => {
    const p = byId.get(line.player);
    const coins = line.coins.length > 1 ? line.coins : [line.coins[0], line.coins[0]];
    const step = line.coins.length > 1 ? x : (i) => left + plot * i;
    const points = coins.map((c, i) => `${step(i).toFixed(1)},${y(c).toFixed(1)}`).join(" ");
    svg.append(el("polyline", { points, stroke: p.colour, "data-player": line.player,
                                "data-end": line.end, class: "coin-line" }));
    labels.push({ y: y(line.end), text: `${names[n]} ${line.end}`, colour: p.colour,
                  player: line.player });
  });
  for (const l of spread(labels, top + FONT / 2, bottom)) {  // a dot of the line's colour,
    // then the name in the page's ink (a player's colour on the dark is too faint to read)
    svg.append(el("circle", { cx: left + plot + 11, cy: l.y, r: 5, fill: l.colour,
                              class: "coin-dot", "data-player": l.player }));
    svg.append(el("text", { x: left + plot + 20, y: l.y + FONT / 2 - 2, class: "coin-name",
                            "data-player": l.player }, l.text));
  }
  box.replaceChildren(caption(), svg, figures(lines, byId));
  box.hidden = false;
  const [start, end] = ends.map((text) => text.getBBox());  // a narrow chart: the line says it
  if (start.width && start.x + start.width + 8 > end.x) ends.forEach((text) => text.remove());
}

function caption() {
  const cap = document.createElement("figcaption");
  cap.textContent = t("Coins over the game");
  return cap;
}

// The chart's figures in words: a table a screen reader reads (hidden from the eye).
function figures(lines, byId) {
  const hidden = document.createElement("div");
  hidden.className = "visually-hidden";
  const table = hidden.appendChild(document.createElement("table"));
  const head = table.createTHead().insertRow();
  for (const heading of [t("Player"), t("At the start"), t("Highest"), t("Lowest"), t("At the end")]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = heading;
    head.append(th);
  }
  const body = table.createTBody();
  for (const line of lines) {
    const row = body.insertRow();
    const who = document.createElement("th");
    who.scope = "row";
    who.textContent = byId.get(line.player).name;
    row.append(who);
    for (const value of [line.start, line.high, line.low, line.end]) {
      row.insertCell().textContent = String(value);
    }
  }
  return hidden;
}
