// The outcome and the block: the latest outcome in words (or dice), said once to a screen
// reader; the block pulses while its outcome sounds.

/* globals t */
import { $, state } from "./store.js";
import { rules } from "./rules.js";
import { bare, heard, title } from "./words.js";
import { announce, snack } from "./messages.js";
import { DICE_KINDS, diceOf, drawRoll, forgetRoll } from "./dice.js";

function outcomeText(o) {
  if (o.player === null && state.game.setup_pending) {  // nobody named yet: kept for who starts
    return t("{headline} {instruction} (kept for who starts)",
             { headline: heard(o, "headline"), instruction: heard(o, "instruction") });
  }
  const who = o.player === null ? t("Someone") : title(o.player);
  const headline = heard(o, "headline");
  if (o.kind === "rent" && o.params) {
    return t("{headline}: {payer} pays {owner} {coins}",
             { headline, payer: title(o.params.payer), owner: title(o.params.owner), coins: o.coins });
  }
  if (o.kind === "roll") return t("{headline} ({who})", { headline, who });
  return t("{headline} {who}: {instruction}", { headline, who, instruction: heard(o, "instruction") });
}

function inSight(el) {
  const box = el.getBoundingClientRect();
  const top = $("top").getBoundingClientRect().bottom;
  const sheet = document.body.classList.contains("paying") && getComputedStyle($("pad")).position === "fixed"
    ? $("pad").getBoundingClientRect().top : window.innerHeight;  // a phone's pay sheet covers the rest
  return box.height > 0 && box.top >= top - 8 && box.bottom <= Math.min(sheet, window.innerHeight) + 8;
}

// An outcome nobody has been given yet says so.
function waitingText(o) {
  const text = outcomeText(o);
  return o.player === null && !state.game.setup_pending ? t("{outcome} (waiting for a player)", { outcome: text }) : text;
}

// The companion says which outcomes belong to turns that have passed (the turn's
// ``past_outcomes``); a press on its way to the disk is this turn's.
function outcomePast(o) {
  return Boolean(o && state.turn && o.id <= (state.turn.past_outcomes || 0));
}

// A roll drawn as dice says "Earlier" above them once its turn has passed.
function markEarlier(el, past) {
  const old = el.querySelector(":scope > .outcome-earlier");
  if (old) old.remove();
  if (!past) return;
  const note = Object.assign(document.createElement("span"), { className: "outcome-earlier", textContent: t("Earlier") });
  el.prepend(note);
}

let lastOutcomeId = null;
let lastPress = null;  // the latest press as it sounded (shown while the disk holds it)
export function setLastPress(o) { lastPress = o; }  // main.js, as the companion says it

let outcomeDrawn = false;  // this game's outcome box drawn once: a new outcome after is news
export function forgetOutcome() { lastOutcomeId = null; outcomeDrawn = false; }  // a new game

export function renderOutcome() {
  const el = $("outcome");
  const news = outcomeDrawn;
  outcomeDrawn = true;
  if (state.storage && state.storage.held && lastPress) {
    el.textContent = t("{headline} {who}: {instruction} (not saved yet)", { headline: heard(lastPress, "headline"),
      who: title(state.current_player), instruction: heard(lastPress, "instruction") });
    el.className = "outcome coins-only held " + lastPress.kind;
    return;
  }
  const o = state.last_outcome;
  el.hidden = !o && state.ended;  // an ended game asks for no press
  if (!o) {
    forgetRoll();
    el.className = "outcome coins-only";
    const hint = document.createElement("span");
    hint.className = "muted";
    hint.textContent = rules && rules.toll ? t("Press to roll the dice!") : t("Press the block!");
    el.replaceChildren(hint);
    return;
  }
  // Once its turn has passed (Next, a press that ended the turn, however many turns ago) the
  // outcome is history: dimmed and said as earlier, so nobody acts on it twice.
  const past = outcomePast(o);
  const rolled = DICE_KINDS.has(o.kind);
  if (rolled) { drawRoll(el, o); markEarlier(el, past); }
  else { forgetRoll(); el.textContent = past ? t("Earlier: {outcome}", { outcome: waitingText(o) }) : waitingText(o); }
  const doubles = rolled && o.kind !== "third_doubles" && Boolean(o.doubles);
  el.className = "outcome coins-only " + o.kind + (rolled ? " rolled" : "") + (doubles ? " doubles" : "") + (past ? " past" : "");
  if (o.id !== lastOutcomeId) {
    void el.offsetWidth;  // restart the animation
    if (lastOutcomeId !== null) el.classList.add("fresh");
    // Nothing scrolls for a press: an outcome box out of sight (the page scrolled to the
    // history, the pay sheet over it) says its outcome in the snackbar, where the eye is.
    if (news && !inSight(el)) snack(outcomeText(o));
    else if (news) announce(spokenOutcome(o));
    lastOutcomeId = o.id;
  }
}

// An outcome in words for a screen reader: the dice's faces said, not drawn.
function spokenOutcome(o) {
  if (!DICE_KINDS.has(o.kind)) return waitingText(o);
  const who = o.player === null ? t("waiting for a player") : title(o.player);
  const faces = diceOf(o).map((d) => d.label).join(", ");
  return [t("{headline} ({who})", { headline: bare(heard(o, "headline")), who }), faces, heard(o, "instruction")]
    .filter(Boolean).join(". ");
}

// The block pulses while its outcome sounds, for as long as the companion says its sound lasts.
let pulseTimer = null;
let pulseUntil = 0;
export function soundMs(o) {
  return o && o.sound_seconds ? o.sound_seconds * 1000 : 0;
}

export function pulse(ms) {
  if (ms <= 0) return;
  pulseUntil = Math.max(pulseUntil, performance.now() + ms);
  const block = $("press");
  block.classList.add("sounding");
  block.setAttribute("aria-busy", "true");
  clearTimeout(pulseTimer);
  pulseTimer = setTimeout(() => {
    block.classList.remove("sounding");
    block.removeAttribute("aria-busy");
  }, pulseUntil - performance.now());
}
