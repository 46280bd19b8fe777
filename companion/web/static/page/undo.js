// Undo and Redo, and the snackbar's Undo after a move; Undo of any move (from the history, or a
// player's "that was a mistake").

/* globals t */
import { $, state } from "./store.js";
import { heard } from "./words.js";
import { showError, snack, snackSaysTurn } from "./messages.js";
import { write } from "./net.js";

// A move's own words in the snackbar, with Undo (a contest step moves no coins and is a move);
// ``clear``: a part it leaves in sight (messages.js).
export function undoSnack(move, fallback, clear = null) {
  snack(heard(move, "message") || heard(move, "text") || fallback, t("Undo"), () => undoLatest(move.id), clear);
}

export function undoLatest(moveId) {
  // The move the snackbar spoke of when its answer named it; else what Undo would undo now.
  const target = typeof moveId === "number" ? moveId : state.undo ? state.undo.move : undefined;
  if (state.undo === null) { showError(t("There is nothing to undo.")); return; }
  const body = target === undefined ? undefined : { move: target };
  const text = heard(state.undo, "text");
  write("undo", "/api/undo", body, { button: $("undo"), sticky: true }).then((reply) => {
    const undid = reply.undid && reply.undid.text ? heard(reply.undid, "text") : text;
    snack(t("Undone: {move}", { move: undid }), t("Redo"), redo);
    snackSaysTurn();
  }).catch(() => {});
}

// Undo that move, if nothing later depends on it: a new move gives back what it did (the
// journal keeps both). A refusal (409: a later move depends on it, or it is undone already)
// is the caller's to say, with the server's words (err.said, err.blockedBy).
export function undoMove(id, text, button = null) {
  return write(`undo:${id}`, "/api/undo", { move: id }, { button, quiet: (err) => err.status === 409 })
    .then((reply) => {
      const undid = reply.undid && reply.undid.text ? heard(reply.undid, "text") : text;
      snack(t("Undone: {move}", { move: undid }), t("Redo"), redo);
      snackSaysTurn();
      return reply;
    });
}

function redo() {
  const what = state.redo;
  if (!what) { showError(t("There is nothing to redo now.")); return; }
  write("redo", "/api/redo", { move: what.move }, { sticky: true }).then(() => {
    snack(t("Redone: {move}", { move: heard(what, "text") }), t("Undo"), () => undoLatest());
    snackSaysTurn();
  }).catch(() => {});
}
