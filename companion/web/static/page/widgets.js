// Small pieces several parts of the page build: an element, a select of players, a row to pick a
// player in.

/* globals t */
import { active } from "./words.js";

export function fillSelect(select, withBank, preferred, players) {
  const keep = select.dataset.chosen ? select.value : preferred;
  const options = (players || active()).map((p) => new Option(p.name, String(p.id)));
  if (withBank) options.unshift(new Option(t("Bank"), "bank"));
  select.replaceChildren(...options);
  if (keep !== undefined && [...select.options].some((o) => o.value === String(keep))) {
    select.value = String(keep);
  }
}

export function playerRow(p, type, name, checked, disabled, note) {
  const row = document.createElement("label");
  row.className = "pick-row" + (disabled ? " off" : "");
  row.style.setProperty("--colour", p.colour);
  const input = Object.assign(document.createElement("input"), { type, name, value: String(p.id), checked, disabled });
  const who = Object.assign(document.createElement("span"), { className: "pick-name", textContent: p.name });
  const what = Object.assign(document.createElement("span"), { className: "pick-note", textContent: note || "" });
  row.append(input, who, what);
  return row;
}

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
