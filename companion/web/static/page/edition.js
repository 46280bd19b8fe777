// What the edition has (modes, jail, bankruptcy, points, worms): the page drawn from its rules,
// which cards show and what the buttons say; the modes and the rent form.

/* globals t, word */
import { $, state } from "./store.js";
import { hasJail, rules } from "./rules.js";
import { active, modeWords } from "./words.js";
import { fillSelect } from "./widgets.js";
import { write } from "./net.js";
import { chooseReason, renderKeys } from "./pad.js";
import { renderBowserBar, renderMovie } from "./editions/movie.js";

function renderReasons() {
  // The rules' own payments whose amount is printed on a piece (a tax space, the Movie's
  // Continue cost on each deed): a tap names the payment (pad.js: the Bank is its payee, the
  // reason goes with it, so a fee the Free Parking pot takes goes on the pot); the amount is typed.
  const reasons = (rules && rules.reasons) || [];
  $("pad-reasons").replaceChildren(...reasons.map((r) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "big quiet reason";
    b.dataset.reason = r.id;
    b.textContent = word(r.label);
    b.title = r.quote.join(" ");
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => chooseReason(r));
    return b;
  }));
  $("pad-reasons").hidden = !reasons.length;
}

export function renderRules() {
  if (!rules) return;
  renderReasons();
  renderFolds();
  const goRule = rules.pass_go;
  $("go").textContent = goRule ? t("Pass GO +{coins}", { coins: goRule.value }) : t("Pass GO");
  $("go").title = goRule ? goRule.quote.join(" ") : "";
  const jail = rules.jail_fee;
  $("jail").hidden = !jail;
  if (jail) {
    $("jail").textContent = t("Jail: pay {fee}", { fee: jail.value });
    $("jail").title = jail.quote.join(" ");
  }
  renderKeys();
  setRule($("debt-rule"), rules.debt.rule === "capped" ? word(rules.debt.text) : "",
          rules.debt.rule === "capped" ? rules.debt.quote : []);
  $("debt-rule").hidden = rules.debt.rule !== "capped";
  $("bankrupt-card").hidden = rules.debt.rule !== "bankruptcy";
  setRule($("bankrupt-rule"), rules.debt.rule === "bankruptcy" ? word(rules.debt.text) : "",
          rules.debt.rule === "bankruptcy" ? rules.end.quote : []);
  $("score-card").hidden = !rules.scoring;
  if (rules.scoring) {
    setRule($("score-rule"), "", [...rules.end.quote, ...rules.scoring.every.quote, ...rules.scoring.tie]);
  }
  $("at-once-box").hidden = !rules.turn.at_once.length;
  $("dealt-box").hidden = !(rules.dealt || []).length;
  const block = $("press");
  const main = rules.modes.find((m) => m.default);
  block.title = t("Press: {mode}", { mode: word(main.name) });
  block.textContent = main.table === "lever" ? t("Lever") : main.table === "die_roll" || main.table === "two_dice" ? t("Roll") : "?";
  block.classList.toggle("word", block.textContent.length > 1);
  document.body.classList.toggle("movie", Boolean(rules.toll));
  const inBar = renderBowserBar();
  $("modes").hidden = rules.modes.filter((m) => !m.automatic && !inBar.has(m.id)).length < 2;
  $("bowser-card").hidden = !rules.bowser_wins;
  setRule($("bowser-rule"), "", rules.bowser_wins ? rules.bowser_wins.quote : []);
  $("tiles-hint").textContent = hasJail()
    ? t("Pay: tap who pays, then who gets paid. A tapped tile also offers Make current, Phone link and Jail.")
    : t("Pay: tap who pays, then who gets paid. A tapped tile also offers Make current and Phone link.");
  $("mode-buttons").replaceChildren(...rules.modes.map((m) => {
    const b = document.createElement("button");
    b.className = "big mode";
    b.dataset.mode = m.id;
    b.textContent = word(m.name);
    b.title = m.quote.join(" ");
    b.addEventListener("click", () => {
      if (m.needs.length) { showRent(m); return; }
      $("rent").hidden = true;
      write("mode", "/api/mode", { mode: m.id }, { button: b }).catch(() => {});
    });
    return b;
  }));
}

// A rule in the page's words, then the rulebook's own lines: a citation, kept as the English
// rulebook prints them (marked lang="en", so a screen reader says them in English).
// The quote is one tap away (a fold), so the page's own words stay in view on a phone.
function setRule(el, words, quote) {
  const parts = [];
  if (words) parts.push(document.createTextNode(words));
  if (quote.length) {
    const fold = Object.assign(document.createElement("details"), { className: "rulebook-fold" });
    fold.append(Object.assign(document.createElement("summary"), { textContent: t("The rulebook's words") }),
                Object.assign(document.createElement("q"), { className: "rulebook", lang: "en",
                                                             textContent: quote.join(" ") }));
    parts.push(fold);
  }
  el.replaceChildren(...parts);
}

// The rare parts fold away on a phone and stand open where there is room; the lever timer is
// always open in the edition whose lever is the game (Wiggly Worms). (The final score of the
// last Boss card or Race is asked in the contest's own panel, in view.)
const ROOMY = window.matchMedia("(min-width: 700px)");
function hasLever() { return Boolean(rules && rules.modes.some((m) => m.table === "lever")); }
function renderFolds() {
  const lever = hasLever();
  document.body.classList.toggle("lever", lever);
  $("timer-fold").classList.toggle("always", lever);
  if (lever) $("timer-fold").open = true;
}
function roomy() {
  for (const fold of document.querySelectorAll("details.fold")) fold.open = ROOMY.matches || fold.classList.contains("always");
}
ROOMY.addEventListener("change", roomy);
roomy();

function showRent(mode) {
  const form = $("rent");
  form.hidden = false;
  form.dataset.mode = mode.id;
  setRule($("rent-rule"), "", mode.quote);
  const utilities = $("rent-utilities");
  const chosen = utilities.value;
  utilities.replaceChildren(...Array.from({ length: mode.max_utilities }, (_, i) =>
    new Option(i === 0 ? t("1: rent = the roll") : t("{n}: rent = the roll × {n}", { n: i + 1 }), String(i + 1))));
  if (chosen) utilities.value = chosen;
  fillSelect($("rent-payer"), false, state.current_player ?? undefined);
  fillSelect($("rent-owner"), false, active().find((p) => p.id !== state.current_player)?.id);
}

export function renderModes() {
  const mode = state.mode;
  if (!mode) return;
  $("mode-now").textContent = modeWords(mode);
  for (const b of $("mode-buttons").children) b.classList.toggle("armed", b.dataset.mode === mode.id);
  $("modes").classList.toggle("armed", !mode.default);
  renderMovie();
}

for (const id of ["rent-payer", "rent-owner"]) {
  $(id).addEventListener("change", () => { $(id).dataset.chosen = "1"; });
}
$("rent").addEventListener("submit", (ev) => {
  ev.preventDefault();
  write("mode", "/api/mode", {
    mode: ev.target.dataset.mode, payer: Number($("rent-payer").value),
    owner: Number($("rent-owner").value), utilities: Number($("rent-utilities").value),
  }, { button: ev.target.querySelector("button") }).then(() => { $("rent").hidden = true; }).catch(() => {});
});
