// The describe editor (Gamer, Mario Kart): how many spaces the board has counting GO, what is
// printed where (each space's kind, its name, a Property's numbers) and the Power-up die's six
// faces, typed once and kept for every later game.

/* globals said, t, tn, word */
import { $, state, watching } from "../store.js";
import { powers } from "../rules.js";
import { el } from "../widgets.js";
import { snack } from "../messages.js";
import { keepFocusIn } from "../dialog.js";
import { write } from "../net.js";
import { kindOf, kinds, spaceName } from "./spaces.js";
import { baseCell, ringGrid } from "./ring_cells.js";

const FACES = 6;  // the Power-up die's

// -- the describe editor: how many spaces, what is printed where, the Power-up die's faces ------

const NUMBERS = ["points", "price", "rent"];  // what a Property's deed and space print, each optional
let draft = null;  // {base, all: [{kind, name, points, price, rent}], count, faces, at}: kept until saved

function abilities() {
  const pw = powers();
  const seen = new Map();
  for (const a of pw ? pw.abilities : []) if (!a.star && !seen.has(a.id)) seen.set(a.id, a);
  return [...seen.values()];
}

function startDraft() {
  const ring = state.ring;
  const base = JSON.stringify(ring ? [ring.spaces, ring.faces] : null);
  if (draft && draft.base === base) return;  // what was typed stays (unless the board was saved meanwhile)
  const all = ring ? ring.spaces.map((s) => ({ kind: s.kind, name: s.name || "", points: s.points ?? null,
                                                price: s.price ?? null, rent: s.rent ?? null })) : [];
  const faces = ring && ring.faces.length === FACES ? [...ring.faces] : Array(FACES).fill("");
  draft = { base, all, count: ring ? all.length : null, faces, at: 0 };
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
      space.kind = k ? k.id : null;
      if (!k || k.effect !== "property") for (const field of NUMBERS) space[field] = null;
      drawEditRing();
      drawSpacePanel();
      refocus(`.kind-chip[data-kind="${b.dataset.kind}"]`);
    });
    chips.append(b);
  }
  const name = Object.assign(document.createElement("input"), { id: "ring-name", maxLength: 40, autocomplete: "off",
    value: space.name, placeholder: kind ? word(kind.name) : t("as printed on the board") });
  name.addEventListener("input", () => { space.name = name.value; relabel(); });
  const nameBox = el("label", "ring-field", t("Its name as printed (optional)"));
  nameBox.append(name);
  const parts = [head, chips, nameBox];
  if (kind && kind.effect === "property") {
    const numbers = el("div", "ring-numbers");
    for (const [field, words] of [["points", t("Points on its deed (optional)")], ["price", t("Price on the space (optional)")],
                                 ["rent", t("Rent on its deed (optional)")]]) {
      const input = Object.assign(document.createElement("input"), { id: `ring-${field}`, type: "number", min: "0", max: "1000",
        inputMode: "numeric", value: space[field] === null ? "" : String(space[field]) });
      input.addEventListener("input", () => { space[field] = input.value === "" ? null : Number(input.value); });
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
    select.addEventListener("change", () => { draft.faces[f] = select.value; });
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
  $("ring-edit").showModal();
  if (draft.count === null) count.focus();
  else $("ring-edit-save").focus();
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
    .then((ring) => {
      draft = null;
      $("ring-edit").close();
      snack(tn("The board is described: {n} space. Tokens move by a tap.", "The board is described: {n} spaces. Tokens move by a tap.",
               ring.labels ? ring.labels.length : spaces.length));
    })
    .catch((err) => {  // nothing lost: the editor stays as it was, with the server's words
      if (refused(err)) editError(err.said ? said(err.said) : err.message);
      else if (err.unanswered) editError(t("The companion is not reachable. Is the Wi-Fi on?"));
    });
}

function nudge(by) {
  const now = draft.count || Number($("ring-count").value) || (by > 0 ? 7 : 65);
  const n = Math.min(64, Math.max(8, now + by));
  $("ring-count").value = String(n);
  setCount(n);
  drawEditRing();
  drawSpacePanel();
}

$("ring-count").addEventListener("input", () => {
  const value = $("ring-count").value.trim();
  setCount(value === "" ? NaN : Number(value));
  drawEditRing();
  drawSpacePanel();
});
$("ring-less").addEventListener("click", () => nudge(-1));
$("ring-more").addEventListener("click", () => nudge(1));
$("ring-edit-save").addEventListener("click", save);
$("ring-edit-close").addEventListener("click", () => $("ring-edit").close());
$("ring-edit-open").addEventListener("click", openEditor);
$("ring-describe-open").addEventListener("click", openEditor);
$("menu-ring").addEventListener("click", () => { $("menu").close(); openEditor(); });
// The keys typed in the editor are its own (the pay pad's digits are not typed through it).
$("ring-edit").addEventListener("keydown", (ev) => ev.stopPropagation());
keepFocusIn($("ring-edit"));
