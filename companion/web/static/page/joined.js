// Phones that joined from the table's code: "Anna's phone joined" at the top of the banker's
// page, in Anna's colour, with Turn off (one tap: that phone's link stops at once and the phone
// is told to scan the code again) and OK. A notice goes on OK, when that phone's link is off
// (from here or any page) and with another game. Only a phone joining is said: a link the
// banker makes with Phone link is the banker's own doing.

/* globals t */
import { $, state, watching } from "./store.js";
import { announce, armLater } from "./messages.js";
import { turnOffPhone } from "./phones.js";

const JOINED = "phone joined";  // the state's action when a phone joined from the join code
const rows = new Map();  // player id -> the notice drawn for them
let linked = null;  // the players with a phone as this page last saw them (null: not yet)
let game = null;

function words(p) { return t("{name}'s phone joined", { name: p.name }); }

function noticeRow(p) {
  const row = document.createElement("div");
  row.className = "request joined-row";
  row.dataset.player = String(p.id);
  row.setAttribute("role", "group");
  const text = document.createElement("p");
  text.className = "request-what";
  text.id = `joined-${p.id}`;
  row.setAttribute("aria-labelledby", text.id);
  const off = document.createElement("button");
  off.type = "button";
  off.className = "big warn joined-off";
  off.addEventListener("click", () => turnOffPhone(drawn.player, off));
  const ok = document.createElement("button");
  ok.type = "button";
  ok.className = "big quiet joined-ok";
  ok.addEventListener("click", () => { row.remove(); rows.delete(p.id); renderJoined(); });
  const buttons = document.createElement("div");
  buttons.className = "request-buttons";
  buttons.append(ok, off);
  row.append(text, buttons);
  // It appears at the top, maybe under a finger: its buttons take no tap for a moment.
  armLater(off);
  armLater(ok);
  const drawn = { row, text, off, ok, player: p };
  return drawn;
}

// A state arrived (``action``: what changed): a player whose phone joined just now gets a notice.
export function sawPhones(action) {
  if (!state) return;
  if (state.game.id !== game) {  // another game: its own phones
    game = state.game.id;
    linked = null;
    for (const drawn of rows.values()) drawn.row.remove();
    rows.clear();
  }
  const now = new Set(state.players.filter((p) => p.linked).map((p) => p.id));
  if (linked && action === JOINED && !watching()) {
    for (const p of state.players) {
      if (!now.has(p.id) || linked.has(p.id) || rows.has(p.id)) continue;
      rows.set(p.id, noticeRow(p));
      announce(words(p));
    }
  }
  linked = now;
}

export function renderJoined() {
  const box = $("joined");
  for (const [id, drawn] of rows) {
    const p = state && state.players.find((q) => q.id === id);
    if (!p || !p.linked || watching()) { drawn.row.remove(); rows.delete(id); continue; }
    drawn.player = p;
    drawn.row.style.setProperty("--colour", p.colour);
    drawn.text.textContent = words(p);  // again in another language
    drawn.off.textContent = t("Turn off");
    drawn.ok.textContent = t("OK");
    if (drawn.row.parentNode !== box) box.append(drawn.row);
  }
  box.hidden = rows.size === 0;
}
