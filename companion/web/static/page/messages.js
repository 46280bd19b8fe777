// Messages: errors at the top (never over a button), successes in a snackbar, and what a screen
// reader says.

import { $, watching } from "./store.js";

function sentence(text) { text = String(text); return text.charAt(0).toUpperCase() + text.slice(1); }

// ``about``: what the error is about ("connection": the companion did not answer), so the
// connection coming back clears its own error and no other.
export function showError(message, about = "") {
  $("error-text").textContent = sentence(message);
  $("error").dataset.about = about;
  $("error").hidden = false;
}

export function clearError(about) {
  if (about !== undefined && $("error").dataset.about !== about) return;
  $("error").hidden = true;
}

// One polite live region says each outcome and each move's words to a screen reader, once
// (the snackbar and the outcome box are not live regions themselves: the dice redraw, the
// snackbar hides). The same words twice in a row are said twice.
let announced = 0;
export function announce(text) {
  const box = $("announce");
  const words = sentence(text);
  const turn = ++announced;
  box.textContent = "";
  setTimeout(() => { if (turn === announced) box.textContent = words; }, 50);
  box.dataset.said = words;  // what was said last (tests read it without waiting)
}

let snackTimer = null;
// ``clear``: a part the snackbar must leave in sight (the move row's keys right after a move):
// while it, the block or Next is where the snackbar shows, the snackbar shows at the top
// instead.
export function snack(text, action, run, clear = null) {
  const box = $("toast");
  const button = $("toast-action");
  box.classList.remove("up");
  delete box.dataset.turn;
  $("toast-text").textContent = sentence(text);
  announce(text);
  button.hidden = !action || watching();
  button.textContent = action || "";
  button.onclick = action ? () => { hideSnack(); run(); } : null;
  armLater(button);
  box.hidden = false;
  // The table's next taps stay in sight: ``clear``, the block and Next (a long line of words
  // after a POW would cover Next, the turn's last tap), the setup's Start and Cancel.
  const at = box.getBoundingClientRect();
  const covers = [clear, $("press"), $("next"), $("setup-start"), $("setup-cancel")].some((part) => {
    if (!part) return false;
    const keep = part.getBoundingClientRect();
    return keep.height > 0 && keep.bottom > at.top && keep.top < at.bottom;
  });
  box.classList.toggle("up", covers);
  clearTimeout(snackTimer);
  snackTimer = setTimeout(hideSnack, action ? 5000 : 3500);
}

function hideSnack() { $("toast").hidden = true; }

// The snack in sight speaks for whose turn it is now (an undone or redone move names the turn
// it gave back): a turn change that follows it is not said again over it (and its Redo).
export function snackSaysTurn() { $("toast").dataset.turn = "1"; }
export function snackSaidTurn() { return !$("toast").hidden && $("toast").dataset.turn === "1"; }

// Something that appears where a finger just was (the snackbar over a button, a question over
// the pad) takes no tap for a moment: the second tap of a double tap never lands on it.
const ARM_MS = 600;
export function armLater(button) {
  button.disabled = true;
  button.classList.add("arming");
  setTimeout(() => { button.disabled = button.dataset.off === "1"; button.classList.remove("arming"); }, ARM_MS);
}

$("error-close").addEventListener("click", () => clearError());
