// The end of a game shown where the eye is: when a game this page is showing ends (the last
// bankruptcy, the final Boss or Race closed, the score counted, on this device or another),
// the winner and the standings are scrolled into view and the focus moves to the winner's line
// (smoothly, unless the device asks for reduced motion). A page opened on an ended game starts
// at its top, where they are already.

import { $, state } from "./store.js";

let shown = null;  // the game and whether it had ended, as last drawn

export function showEnd() {
  const now = { game: state.game.id, ended: Boolean(state.ended) };
  const was = shown;
  shown = now;
  if (!was || was.game !== now.game || was.ended || !now.ended) return;
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  // A snackbar raised under the header (it would have covered the block or Next, gone now)
  // goes back down: up there it would cover the winner's line.
  $("toast").classList.remove("up");
  $("winner").scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  $("winner-title").focus({ preventScroll: true });
}
