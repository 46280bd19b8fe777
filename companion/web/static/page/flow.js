// Who may make a move, and when: the turn's moment as the server says it. The state's ``flow``
// holds, for each move with a moment or a player of its own, null (the current player may make
// it now) or why not; the rules' ``flow`` says who may make each ("current": only the current
// player). The page offers every move all the same: one out of its moment is marked "not now"
// with the reason, and a tap still goes to the server, whose refusal offers the banker's
// correction (net.js).

/* globals said, t */
import { state } from "./store.js";
import { rules } from "./rules.js";
import { title } from "./words.js";

function capital(text) { text = String(text); return text.charAt(0).toUpperCase() + text.slice(1); }

// Why ``rule`` may not be made now by ``who`` (a player id, a list of them: a trade's two sides,
// or null: whoever the move will name), or null: it may (a rule the edition does not have is
// any time). ``{error, quote}``: the reason in this device's words, the rulebook's lines.
export function notNow(rule, who = null) {
  if (!rule || !state || !state.flow || !(rule in state.flow)) return null;
  const refused = state.flow[rule];
  const declared = rules && rules.flow ? rules.flow[rule] : null;
  const players = (Array.isArray(who) ? who : [who]).filter((x) => typeof x === "number");
  const current = state.current_player;
  const theirs = !players.length || current === null || current === undefined || players.includes(current);
  if (!theirs && declared && declared.moment !== "never" && declared.who === "current") {
    return { error: capital(t("it is {current}'s turn: {name} may do this only on their own turn",
                                { current: title(current), name: title(players[0]) })),
             quote: declared.quote || [] };
  }
  if (!refused && declared && declared.moment === "never") {
    return { error: capital(t("the rulebook has no such move: the banker may record it as a correction")),
             quote: declared.quote || [] };
  }
  if (!refused) return null;
  return { error: capital(said(refused.error_said || refused.error)), quote: refused.quote || [] };
}

// ``button`` marked as out of its moment for ``rule`` (class ``not-now``, a small "not now" tag
// drawn by the style sheet, its reason as its title and description), or cleared when the move
// is allowed (or ``rule`` is null: none applies now). It stays tappable: the tap goes to the
// server, and the correction dialog explains. Returns the reason (or null).
export function markNotNow(button, rule, who = null) {
  if (!button) return null;
  const why = notNow(rule, who);
  if (why) {
    if (!button.classList.contains("not-now")) button.dataset.titleWas = button.title || "";
    button.classList.add("not-now");
    button.dataset.notNow = t("not now");
    button.title = why.error;
    button.setAttribute("aria-description", why.error);
  } else if (button.classList.contains("not-now")) {
    button.classList.remove("not-now");
    delete button.dataset.notNow;
    button.removeAttribute("aria-description");
    if (button.dataset.titleWas !== undefined) {
      if (button.dataset.titleWas) button.title = button.dataset.titleWas;
      else button.removeAttribute("title");
      delete button.dataset.titleWas;
    }
  }
  return why;
}
