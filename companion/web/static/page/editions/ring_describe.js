// The describe editor (Gamer, Mario Kart): how many spaces the board has counting GO, what is
// printed where (each space's kind, its name, a Property's numbers) and the Power-up die's six
// faces, typed once and kept for every later game. The draft is kept in this browser until
// saved (ring_draft.js); a board file from another companion is read instead (ring_file.js).
// Walked in order (Next, or a kind picked on a new space), a space's kind is one tap and the
// editor goes on; what the rulebook fixes is filled in: GO first, the first Property's name.

/* globals said, t, tn, word */
import { $, state, watching } from "../store.js";
import { boardRules, powers } from "../rules.js";
import { el } from "../widgets.js";
import { snack } from "../messages.js";
import { keepFocusIn } from "../dialog.js";
import { write } from "../net.js";
import { kindOf, kinds, spaceName } from "./spaces.js";
import { baseCell, ringGrid } from "./ring_cells.js";
import { dropDraft, keepDraft, loadDraft } from "./ring_draft.js";
import { readBoardFile, saveBoardFile } from "./ring_file.js";

const FACES = 6;  // the Power-up die's

// -- the describe editor: how many spaces, what is printed where, the Power-up die's faces ------

const NUMBERS = ["price", "rent", "points"];  // what a Property's space and deed print, each optional (the space's first)
let draft = null;  // {base, all: [{kind, name, points, price, rent}], count, faces, at, walking}: kept until saved

function edition() { return state.game.edition; }
function changed() { keepDraft(edition(), draft, $("ring-edit").open); }

function abilities() {
  const pw = powers();
  const seen = new Map();
  for (const a of pw ? pw.abilities : []) if (!a.star && !seen.has(a.id)) seen.set(a.id, a);
  return [...seen.values()];
}

// The board a draft started from: a draft of another (saved since, elsewhere) is let go.
function baseOf(ring) { return JSON.stringify(ring ? [ring.spaces, ring.faces] : null); }

function startDraft() {
  const ring = state.ring;
  const base = baseOf(ring);
  if (draft && draft.base === base) return;  // what was typed stays (unless the board was saved meanwhile)
  const kept = loadDraft(edition());  // typed before a reload
  if (kept && kept.base === base) { draft = kept; return; }
  const all = ring ? ring.spaces.map((s) => ({ kind: s.kind, name: s.name || "", points: s.points ?? null,
                                                price: s.price ?? null, rent: s.rent ?? null })) : [];
  const faces = ring && ring.faces.length === FACES ? [...ring.faces] : Array(FACES).fill("");
  draft = { base, all, count: ring ? all.length : null, faces, at: 0, walking: !ring };
}

// The rulebook's "Properties are set up on the board from least expensive to most expensive,
// starting with Acorn Plains": the first Property from GO is named so (unless typed otherwise).
function firstPropertyName(i) {
  const first = boardRules() && boardRules().first_property;
  if (!first) return "";
  const spaces = draft.all.slice(0, draft.count);
  const earlier = spaces.slice(0, i).some((s) => { const k = kindOf(s); return k && k.effect === "property"; });
  const taken = spaces.some((s) => s.name.toLowerCase() === first.name.toLowerCase());
  return earlier || taken ? "" : first.name;
}

// On to the next space, walking the board in order.
function advance() {
  draft.at = (draft.at + 1) % draft.count;
  draft.walking = true;
  changed();
  drawEditRing();
  drawSpacePanel();
  refocus(".ring-next");
  $("ring-edit-space").scrollIntoView({ block: "nearest" });
}

function setCount(n) {
  const valid = Number.isInteger(n) && n >= 8 && n <= 64;
  draft.count = valid ? n : null;
  if (!valid) return;
  const go = kinds().find((k) => k.effect === "go");
  while (draft.all.length < n) {
    draft.all.push({ kind: draft.all.length === 0 && go ? go.id : null, name: "", points: null, price: null, rent: null });
  }
  if (draft.at >= n) draft.at = n - 1;
}

function editCell(spaces, i) {
  const cell = baseCell(spaces, i);
  if (i === draft.at) { cell.classList.add("picked"); cell.setAttribute("aria-pressed", "true"); }
  cell.setAttribute("aria-label", t("{n}. {name}", { n: i, name: spaceName(spaces, i) }));
  cell.addEventListener("click", () => {
    draft.at = i;
    draft.walking = false;  // one space tapped to be corrected: the editor stays on it
    changed();
    drawEditRing();
    drawSpacePanel();
    refocus(`#ring-edit-ring .ring-cell[data-space="${i}"]`);
    $("ring-edit-space").scrollIntoView({ block: "nearest" });
  });
  return cell;
}

// Where there is room (a tablet), the space's panel is in the ring's middle, beside its cells.
const ROOMY = window.matchMedia("(min-width: 700px) and (min-height: 600px)");

function drawEditRing() {
  const box = $("ring-edit-ring");
  const panel = $("ring-edit-space");
  const spaces = draft.count ? draft.all.slice(0, draft.count) : [];
  const inside = ROOMY.matches && spaces.length > 0;
  if (!inside) {
    panel.classList.remove("inside");
    panel.style.gridColumn = panel.style.gridRow = "";
    if (panel.previousElementSibling !== box) box.after(panel);
  }
  box.replaceChildren(...(spaces.length ? ringGrid(spaces, editCell, inside ? panel : null)
    : [el("p", "muted ring-none", t("8 to 64 spaces: type how many, counting GO."))]));
}

// A name typed: the cells' words again (a name printed twice numbers both), nothing redrawn.
function relabel() {
  const spaces = draft.all.slice(0, draft.count);
  for (const cell of $("ring-edit-ring").querySelectorAll(".ring-cell")) {
    const i = Number(cell.dataset.space);
    cell.querySelector(".rc-name").textContent = spaceName(spaces, i);
    cell.setAttribute("aria-label", t("{n}. {name}", { n: i, name: spaceName(spaces, i) }));
  }
}

// Redrawn after a tap on it: the same control (by what it is) has the focus again.
function refocus(selector) {
  const again = selector && $("ring-edit").querySelector(selector);
  if (again) again.focus({ preventScroll: true });
}

function drawSpacePanel() {
  const panel = $("ring-edit-space");
  panel.hidden = !draft.count;
  if (!draft.count) return;
  const i = draft.at;
  const space = draft.all[i];
  const kind = kindOf(space);
  const head = el("h3", "ring-space-title", t("Space {n} of {count}", { n: i, count: draft.count }));
  const chips = el("div", "kind-chips");
  chips.setAttribute("role", "group");
  chips.setAttribute("aria-label", t("What kind of space"));
  for (const k of [...kinds(), null]) {
    const b = el("button", "kind-chip kind-" + (k ? k.effect : "none"), k ? word(k.name) : t("No rule"));
    b.type = "button";
    b.dataset.kind = k ? k.id : "";
    b.setAttribute("aria-pressed", String((space.kind || null) === (k ? k.id : null)));
    b.addEventListener("click", () => {
      const fresh = !space.kind && !space.name;
      space.kind = k ? k.id : null;
      const property = Boolean(k) && k.effect === "property";
      if (!property) for (const field of NUMBERS) space[field] = null;
      else if (!space.name) space.name = firstPropertyName(i);
      changed();
      if (draft.walking && fresh && !property) { advance(); return; }  // nothing more to ask
      drawEditRing();
      drawSpacePanel();
      refocus(property && draft.walking ? "#ring-name" : `.kind-chip[data-kind="${b.dataset.kind}"]`);
    });
    chips.append(b);
  }
  const name = Object.assign(document.createElement("input"), { id: "ring-name", maxLength: 40, autocomplete: "off",
    value: space.name, placeholder: kind ? word(kind.name) : t("as printed on the board") });
  name.enterKeyHint = "next";
  name.addEventListener("input", () => { space.name = name.value; relabel(); changed(); });
  name.addEventListener("keydown", (ev) => onEnter(ev, "#ring-price"));
  const nameBox = el("label", "ring-field", t("Its name as printed (optional)"));
  nameBox.append(name);
  const parts = [head, chips, nameBox];
  if (kind && kind.effect === "property") {
    const numbers = el("div", "ring-numbers");
    for (const [field, words] of [["price", t("Price on the space (optional)")], ["rent", t("Rent on its deed (optional)")],
                                 ["points", t("Points on its deed (optional)")]]) {
      const input = Object.assign(document.createElement("input"), { id: `ring-${field}`, type: "number", min: "0", max: "1000",
        inputMode: "numeric", enterKeyHint: "next", value: space[field] === null ? "" : String(space[field]) });
      input.addEventListener("input", () => { space[field] = input.value === "" ? null : Number(input.value); changed(); });
      input.addEventListener("keydown", (ev) => onEnter(ev, null));  // the deed's numbers: typed when first needed
      const box = el("label", "ring-field", words);
      box.append(input);
      numbers.append(box);
    }
    parts.push(numbers);
  }
  const nav = el("div", "ring-nav");
  const step = (by, text) => {
    const b = el("button", "big quiet " + (by > 0 ? "ring-next" : "ring-back"), text);
    b.type = "button";
    b.addEventListener("click", () => {
      draft.at = (draft.at + by + draft.count) % draft.count;
      draft.walking = true;
      changed();
      drawEditRing();
      drawSpacePanel();
      refocus(by > 0 ? ".ring-next" : ".ring-back");
    });
    return b;
  };
  nav.append(step(-1, t("← Space {n}", { n: (i - 1 + draft.count) % draft.count })), step(1, t("Space {n} →", { n: (i + 1) % draft.count })));
  parts.push(nav);
  panel.replaceChildren(...parts);
}

// Enter in a field (a phone's "next" key): a Property's name goes on to the price on the space,
// anything else to the next space.
function onEnter(ev, next) {
  if (ev.key !== "Enter" || ev.isComposing) return;
  ev.preventDefault();
  const field = next && $("ring-edit").querySelector(next);  // null: not a Property
  if (field) field.focus();
  else advance();
}

function drawFaces() {
  const list = abilities();
  const set = $("ring-edit-faces");
  set.hidden = !list.length;
  const slots = el("div", "face-slots");
  draft.faces.forEach((face, f) => {
    const select = document.createElement("select");
    select.id = `ring-face-${f}`;
    select.append(new Option("—", ""), ...list.map((a) => new Option(word(a.name), a.id)));
    select.value = face;
    select.addEventListener("change", () => { draft.faces[f] = select.value; changed(); });
    const label = el("label", "face-slot", t("Face {n}", { n: f + 1 }));
    label.append(select);
    slots.append(label);
  });
  set.replaceChildren(el("legend", "", t("The Power-up die: what each face shows")), slots);
}

function editError(text) {
  $("ring-edit-error").textContent = text ? text.charAt(0).toUpperCase() + text.slice(1) : "";
  $("ring-edit-error").hidden = !text;
}

function openEditor() {
  if (!state || watching() || !kinds().length) return;
  startDraft();
  editError("");
  const count = $("ring-count");
  count.value = draft.count === null ? "" : String(draft.count);
  drawEditRing();
  drawSpacePanel();
  drawFaces();
  $("ring-file-save").hidden = !state.ring;
  $("ring-edit").showModal();
  changed();
  if (draft.count === null) count.focus();
  else if (draft.walking) refocus(".ring-next");
  else $("ring-edit-save").focus();
}

// A page loaded while the editor was open (a reload, a phone woken): open again where it was.
let resumed = false;
export function resumeDescribing() {
  if (resumed || !state || watching() || !kinds().length) return;
  resumed = true;
  const kept = loadDraft(edition());
  if (kept && kept.open && kept.base === baseOf(state.ring) && !$("ring-edit").open) openEditor();
}

function described(ring, n) {
  draft = null;
  dropDraft(edition());
  $("ring-edit").close();
  snack(tn("The board is described: {n} space. Tokens move by a tap.", "The board is described: {n} spaces. Tokens move by a tap.",
           ring.labels ? ring.labels.length : n));
}

function refusedIn(err) {
  if (err.status >= 400 && err.status < 500 && err.status !== 401) editError(err.said ? said(err.said) : err.message);
  else if (err.unanswered) editError(t("The companion is not reachable. Is the Wi-Fi on?"));
}

function save() {
  const spaces = draft.count ? draft.all.slice(0, draft.count).map((s) => {
    const out = { kind: s.kind, name: s.name.trim() };
    const kind = kindOf(s);
    if (kind && kind.effect === "property") for (const field of NUMBERS) if (s[field] !== null) out[field] = s[field];
    return out;
  }) : [];
  const chosen = draft.faces.filter(Boolean).length;
  if (chosen && chosen < FACES) { editError(t("The Power-up die: pick all six faces, or leave them all empty for now.")); return; }
  editError("");
  const refused = (err) => err.status >= 400 && err.status < 500 && err.status !== 401;
  write("board", "/api/board", { spaces, faces: chosen ? [...draft.faces] : [] }, { method: "PUT", button: $("ring-edit-save"), quiet: refused })
    .then((ring) => described(ring, spaces.length))
    .catch(refusedIn);  // nothing lost: the editor stays as it was, with the server's words
}

function nudge(by) {
  const now = draft.count || Number($("ring-count").value) || (by > 0 ? 7 : 65);
  const n = Math.min(64, Math.max(8, now + by));
  $("ring-count").value = String(n);
  setCount(n);
  changed();
  drawEditRing();
  drawSpacePanel();
}

$("ring-count").addEventListener("input", () => {
  const value = $("ring-count").value.trim();
  setCount(value === "" ? NaN : Number(value));
  changed();
  drawEditRing();
  drawSpacePanel();
});
$("ring-less").addEventListener("click", () => nudge(-1));
$("ring-more").addEventListener("click", () => nudge(1));
$("ring-edit-save").addEventListener("click", save);
$("ring-edit-close").addEventListener("click", () => $("ring-edit").close());
$("ring-edit").addEventListener("close", () => { if (draft) keepDraft(edition(), draft, false); });
$("ring-file-save").addEventListener("click", async () => { editError(await saveBoardFile()); });
$("ring-file-read").addEventListener("change", (ev) => {
  const file = ev.target.files[0];
  ev.target.value = "";
  if (!file) return;
  editError("");
  readBoardFile(file).then((ring) => described(ring, ring.spaces.length)).catch(refusedIn);
});
$("ring-edit-open").addEventListener("click", openEditor);
$("ring-describe-open").addEventListener("click", openEditor);
$("menu-ring").addEventListener("click", () => { $("menu").close(); openEditor(); });
// The keys typed in the editor are its own (the pay pad's digits are not typed through it).
$("ring-edit").addEventListener("keydown", (ev) => ev.stopPropagation());
keepFocusIn($("ring-edit"));
