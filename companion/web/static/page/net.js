// Talking to the bank: reads with the token, and writes (one intent, one write).

/* globals said, t */
import { redraw, state, token, TOKEN_KEY } from "./store.js";
import { clearError, showError, snack } from "./messages.js";
import { ask } from "./dialog.js";
import { keeper, renderKept } from "./kept.js";
import { dropUnsent, keepUnsent, unsent, unsentWords } from "./unsent.js";

// Reads carry the token too: card UIDs and card actions come only with it.
export function authGet(path) {
  return fetch(path, { headers: token() ? { "Authorization": "Bearer " + token() } : {} });
}

// -- writes: one intent, one write -----------------------------------------------------------

// A write's Idempotency-Key says what it does and the table it was made from (state.version):
// the same intent twice is written once by the server, which replays a repeated key. A second
// tap of the same button within HOLD_MS is the same intent (even if the page has redrawn the
// table in between): it sends the first tap's request again, key and all. A write that got no
// answer (the Wi-Fi blipped: it may have been written) stays the same intent, key and all,
// until it is answered or edited; it is kept in this browser's storage (unsent.js: a reload
// keeps it), the page sends it again when the connection is back, and says that it went through.
export const HOLD_MS = 600;
const intents = new Map();
export const held = new Set();  // buttons off until their answer (and HOLD_MS)

function hash53(text, seed) {  // cyrb53: a small, fast, well-mixed string hash
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

function randomKey() {
  return crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2) + Date.now();
}

function intentKey(action, body) {
  const version = state && state.version ? String(state.version) : null;
  if (version === null) return `${action}.${randomKey()}`;  // an older companion: no version
  const what = `${action}|${version}|${JSON.stringify(body === undefined ? null : body)}`;
  return `${action}.${hash53(what, 1)}${hash53(what, 2)}`;
}

// What the connection is like, as the writes find it (main.js listens): news(false) when a
// request got no answer (the WebSocket can look open for many seconds after the Wi-Fi went),
// news(true) when the companion answered one.
let linkNews = () => {};
export function onLinkNews(news) { linkNews = news; }

// A write with no answer after this long is one that got none (the Wi-Fi went mid-request):
// it is kept, key and all, and sent again when the connection is back.
const ANSWER_MS = 10000;

// The words for a write that got no answer: it is kept and sent again.
function keptWords(action) {
  return action === "pay"
    ? t("The companion is not reachable: this payment is kept here and sent again (once) when the connection is back.")
    : t("The companion is not reachable: this is kept here and sent again (once) when the connection is back.");
}

export async function api(method, path, body, key, quiet) {
  const headers = {};
  if (token()) headers["Authorization"] = "Bearer " + token();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["Idempotency-Key"] = key || randomKey();
  const giveUp = method !== "GET" ? new AbortController() : null;
  const timer = giveUp ? setTimeout(() => giveUp.abort(), ANSWER_MS) : null;
  let reply;
  try {
    reply = await fetch(path, { method, headers, signal: giveUp ? giveUp.signal : undefined,
      body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    err.unanswered = true;  // sent, maybe written: only its answer is lost
    linkNews(false);
    if (!(quiet && quiet(err))) showError(t("The companion is not reachable. Is the Wi-Fi on?"), "connection");
    throw err;
  } finally {
    clearTimeout(timer);
  }
  linkNews(true);
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    const err = new Error(data.error || ("Error " + reply.status));
    err.status = reply.status;
    // The page's words for it: the server's sentence (error_said) in this device's language.
    err.said = data.error_said || data.error || null;
    err.saved = data.saved;  // a 503's: false (nothing written) or null (not known)
    err.blockedBy = Array.isArray(data.blocked_by) ? data.blocked_by : [];  // an undo's 409
    // A move the rulebook does not allow now (out of its moment, another player's turn): the
    // banker may make it all the same as a correction (the same request, "correction": true).
    err.correction = data.correction === true;
    err.rule = typeof data.rule === "string" ? data.rule : null;
    err.quote = Array.isArray(data.quote) ? data.quote : [];
    err.moment = typeof data.moment === "string" ? data.moment : null;
    err.who = typeof data.who === "string" ? data.who : null;
    if (reply.status === 401) {
      // The token this browser has is wrong or old: from now on the page only watches.
      localStorage.removeItem(TOKEN_KEY);
      redraw("role");
      if (state) redraw("page");
      showError(t("This browser's table token was refused: the page only watches now. Scan the QR code on the companion's small screen to bank again."));
    } else if (!(quiet && quiet(err))) {
      showError(err.said ? said(err.said) : t("Error {status}", { status: reply.status }));
    }
    throw err;
  }
  clearError();
  return data;
}

// A refusal the banker may overrule: a 409 that names the rule it keeps (``correction``), for a
// request that is not a correction already.
function correctable(err, body) {
  return err.status === 409 && err.correction === true && !(body && typeof body === "object" && body.correction === true);
}

// A refusal by the rules, asked about on the page (never the error bar): the server's reason in
// this device's words, the rulebook's lines, and the choice to make it all the same as a
// correction (the journal keeps it as one; the history marks it). ``offer``: the caller's
// better way, if any (a sale before a payment): ``{label, run}``. The answer: "correct",
// "offer", or false.
function askCorrection(err, offer) {
  const reason = err.said ? said(err.said) : err.message;
  const extra = document.createElement("div");
  extra.className = "correction-box";
  if (err.quote.length) {
    const quote = document.createElement("blockquote");
    quote.className = "rule-quote";
    quote.lang = "en";  // the rulebook's own lines, as printed (a screen reader says them in English)
    for (const line of err.quote) {
      const p = document.createElement("p");
      p.textContent = `“${line}”`;
      quote.append(p);
    }
    extra.append(quote);
  }
  const note = document.createElement("p");
  note.className = "dialog-note";
  note.textContent = t("As a correction, the move is made anyway and the history marks it.");
  extra.append(note);
  const buttons = [{ label: t("Cancel"), value: false, cls: "quiet" },
                   { label: t("Record it as a correction"), value: "correct", cls: "warn correct-go" }];
  if (offer) buttons.push({ label: offer.label, value: "offer", cls: "pay-now wide-btn" });
  return ask(t("Not now, by the rules"), [String(reason).charAt(0).toUpperCase() + String(reason).slice(1)],
             buttons, "correction", extra);
}

// ``offer(err)``: for a refusal by the rules, the caller's own way out besides the correction
// (``{label, run}``, or null). A write refused by the rules asks first (askCorrection): made as
// a correction, the promise resolves with that answer as with any other; cancelled (or the
// offer taken), it is rejected with the refusal, as before.
export function write(action, path, body, { button = null, sticky = false, method = "POST", quiet = null, offer = null } = {}) {
  const now = performance.now();
  const text = JSON.stringify(body === undefined ? null : body);
  let intent = intents.get(action);
  const edited = intent && intent.text !== text && (!sticky || intent.unanswered);
  if (!intent || edited || (now - intent.at > HOLD_MS && !intent.unanswered)) {
    intent = { at: now, body, text, key: intentKey(action, body) };
    intents.set(action, intent);
  }
  if (button) { button.disabled = true; held.add(button); }
  const first = intent.at;
  const sent = intent;
  // No answer: said here, with what becomes of it (kept, sent again when the connection is back).
  // A refusal by the rules: asked about below, not flashed in the error bar.
  const callerQuiet = (err) => Boolean(quiet && quiet(err));
  const quietHere = (err) => err.unanswered || callerQuiet(err) || correctable(err, body);
  return api(method, path, intent.body, intent.key, quietHere).then((reply) => {
    if (sent.unanswered) {  // answered at last: once, whichever try was written
      sent.unanswered = false;
      if (reply && typeof reply === "object") reply.again = true;
    }
    dropUnsent(sent.key);
    return reply;
  }, (err) => {
    if (err.unanswered) {
      Object.assign(sent, { unanswered: true, path, method });
      keepUnsent({ key: sent.key, action, method, path, body: sent.body });
      if (!(quiet && quiet(err))) showError(keptWords(action), "connection");
    } else {
      dropUnsent(sent.key);  // answered (refused): no longer kept
      if (intents.get(action) === sent) intents.delete(action);  // refused: a new intent next
    }
    if (err.status === 503 && (err.saved === false || err.saved === null) && path !== "/api/held") {
      // The disk refused it (or failed writing it): kept here, key and all, and sent again when
      // the bank takes writes (written once, whichever try lands).
      keeper.keepWrite({ key: sent.key, action, method, path, body: sent.body, at: Date.now() });
      renderKept();
      snack(t("This tablet keeps it and sends it again when the bank takes writes."));
    }
    if (correctable(err, body) && !callerQuiet(err)) {
      const other = offer ? offer(err) : null;
      return askCorrection(err, other).then((answer) => {
        if (answer === "correct") {  // the same request, as a correction: a new intent
          const corrected = { ...(body && typeof body === "object" ? body : {}), correction: true };
          return write(action, path, corrected, { button, sticky, method, quiet });
        }
        if (answer === "offer" && other) setTimeout(() => other.run(), 0);
        throw err;
      });
    }
    throw err;
  }).finally(() => {
    // Off until the answer, and for at least HOLD_MS after the tap: a double tap's second
    // tap finds the button off; a deliberate second tap comes later.
    setTimeout(() => {
      if (button) { held.delete(button); button.disabled = false; }
      if (state) redraw("controls");
    }, Math.max(0, first + HOLD_MS - performance.now()));
  });
}

// When the connection is back, each write that got no answer (kept in this browser's storage:
// from before a reload too) is sent again, key and all: the server answers what it wrote, or
// writes it now (and wentThrough(action, words) says so, once). One that is refused now (the
// table moved on meanwhile) is let go, with the server's words; one the bank could not save (503)
// goes to the keeper (kept.js) until it takes writes; one that gets no answer again stays kept,
// and the error bar says so again.
const resending = new Set();  // keys on their way
export function sendUnanswered(wentThrough) {
  for (const kept of unsent()) {
    if (resending.has(kept.key)) continue;
    if (kept.game !== null && kept.game !== undefined && state && state.game.id !== kept.game) {
      dropUnsent(kept.key);  // the table has moved on to another game: never sent into it
      showError(t("Not sent: {what} was for an earlier game.", { what: unsentWords(kept) }));
      continue;
    }
    resending.add(kept.key);
    const settle = () => {
      for (const [action, intent] of intents) {
        if (intent.key !== kept.key) continue;
        intent.unanswered = false;
        if (intents.get(action) === intent) intents.delete(action);
      }
      return dropUnsent(kept.key);  // false: answered meanwhile (a tap sent it again)
    };
    api(kept.method, kept.path, kept.body, kept.key, () => true).then(() => {
      if (settle()) wentThrough(kept.action, unsentWords(kept));
    }).catch((err) => {
      if (err.unanswered) { showError(keptWords(kept.action), "connection"); return; }
      if (err.status === 503 && (err.saved === false || err.saved === null)) {
        keeper.keepWrite({ key: kept.key, action: kept.action, method: kept.method, path: kept.path,
                           body: kept.body, at: Date.now() });
        settle();
        renderKept();
        return;
      }
      if (err.status === 503) return;  // the bank takes no writes yet: tried again later
      if (settle() && err.status !== 401) {
        showError(t("Not written: {what}", { what: unsentWords(kept) }) + " · " +
                  (err.said ? said(err.said) : t("Error {status}", { status: err.status })));
      }
    }).finally(() => resending.delete(kept.key));
  }
}

// tests/test_failing_card.py writes from the page (page.evaluate("write(...)")).
window.write = write;
