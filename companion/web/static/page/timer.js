// The lever timer: the server says how long is left; the page counts down by itself.

/* globals t */
import { $ } from "./store.js";
import { heard } from "./words.js";
import { announce } from "./messages.js";
import { api } from "./net.js";

let timer = null;
let timerDeadline = 0;
let timeUpUntil = 0;
const LAST_SECONDS = 5;

export function setTimer(next, what) {
  timer = next;
  timerDeadline = performance.now() + (next ? next.remaining * 1000 : 0);
  // The seconds are not a live region (a screen reader would say each one): time-up is said.
  if (what === "time_up") { timeUpUntil = performance.now() + 4000; announce(t("Time's up!")); }
  if (what === "started") timeUpUntil = 0;
  const seconds = $("timer-seconds");
  if (next && !seconds.dataset.chosen) seconds.value = next.seconds;
  drawTimer();
}

export function drawTimer() {
  const box = $("timer");
  const now = performance.now();
  const running = Boolean(timer && timer.running);
  const left = running ? Math.max(0, (timerDeadline - now) / 1000) : 0;
  const up = !running && now < timeUpUntil;
  box.classList.toggle("running", running);
  box.classList.toggle("urgent", running && left <= LAST_SECONDS);
  box.classList.toggle("up", up);
  const shownLeft = running ? String(Math.ceil(left)) : up ? "0" : timer ? String(Math.round(timer.seconds)) : "–";
  $("timer-left").textContent = shownLeft;
  box.classList.toggle("idle", !running && !up);
  $("timer-what").textContent = running ? (timer.label ? heard(timer, "label") : t("Time is running"))
    : up ? t("Time's up!") : timer && timer.lever ? t("Lever timer: pull the lever back and let go")
    : t("Timer: start it here");
  $("timer-fill").style.width = running && timer.duration
    ? `${Math.min(100, (100 * left) / timer.duration)}%` : "0%";
  $("timer-stop").disabled = !running;
  // The header's compact timer (landscape): seconds left and one start/stop button.
  const head = $("htimer");
  $("htimer-left").textContent = shownLeft === "–" ? "–" : t("{seconds} s", { seconds: shownLeft });
  head.className = "htimer " + (up ? "up" : running ? (left <= LAST_SECONDS ? "running urgent" : "running") : "idle");
  const go = $("htimer-go");
  go.textContent = running ? t("Stop") : t("Start");
  go.setAttribute("aria-label", running ? t("Stop the timer") : t("Start the timer"));
}
setInterval(drawTimer, 100);
$("timer-seconds").addEventListener("change", () => { $("timer-seconds").dataset.chosen = "1"; });
function startTimer(button) {
  const seconds = Number($("timer-seconds").value);
  const body = seconds >= 1 ? { seconds } : {};
  button.disabled = true;
  api("POST", "/api/timer/start", body).then((r) => setTimer(r.timer, "started")).catch(() => {})
    .finally(() => { button.disabled = false; drawTimer(); });
}
function stopTimer(button) {
  button.disabled = true;
  api("POST", "/api/timer/stop").then((r) => setTimer(r.timer, "stopped")).catch(() => {})
    .finally(() => { button.disabled = false; drawTimer(); });
}
$("timer-start").addEventListener("click", () => startTimer($("timer-start")));
$("timer-stop").addEventListener("click", () => stopTimer($("timer-stop")));
$("htimer-go").addEventListener("click", () => {
  if (timer && timer.running) stopTimer($("htimer-go")); else startTimer($("htimer-go"));
});
