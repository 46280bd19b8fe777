// The tablet stays on while a game runs (Screen Wake Lock).

import { $, state } from "./store.js";

// Asked for while a game is open and not ended, and again each time the page comes back into
// view (the browser lets it go when the page is hidden); let go when the game ends. A browser
// may refuse (no permission, battery saver, an old browser): the page carries on, the small sun
// in the header is simply not shown. <html data-wake-lock> says where it stands: "held",
// "refused", "unsupported", "released" or "off".
let wakeLock = null;
let wakeAsking = false;
let wakeRefused = false;  // asked again only when the page comes back into view
function wantAwake() { return Boolean(state) && !state.ended && document.visibilityState === "visible"; }
export function setAwake(how) {
  document.documentElement.dataset.wakeLock = how;
  $("awake").hidden = how !== "held";
}
export async function keepAwake() {
  if (!("wakeLock" in navigator)) { setAwake("unsupported"); return; }
  if (!wantAwake()) {
    if (wakeLock) { const held = wakeLock; wakeLock = null; held.release().catch(() => {}); }
    if (document.documentElement.dataset.wakeLock === "held") setAwake("released");
    return;
  }
  if (wakeLock || wakeAsking || wakeRefused) return;
  wakeAsking = true;
  try {
    const lock = await navigator.wakeLock.request("screen");
    wakeAsking = false;
    if (!wantAwake()) { lock.release().catch(() => {}); setAwake("released"); return; }
    wakeLock = lock;
    setAwake("held");
    lock.addEventListener("release", () => {
      if (wakeLock === lock) { wakeLock = null; setAwake("released"); }
    });
  } catch (_) {  // refused: nothing to tell the banker, the page works the same
    wakeAsking = false;
    wakeRefused = true;
    setAwake("refused");
  }
}
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") wakeRefused = false;
  keepAwake();
});
