// Cards: taps on the reader, new cards to give to a player (or an action), one step each.

/* globals t */
import { $, state } from "./store.js";
import { heard } from "./words.js";
import { api, authGet } from "./net.js";

const cardChoice = new Map();  // uid -> what was picked under "New cards"
function cardActions() {
  return { next_player: t("Next player"), pass_go: t("Pass GO"), press: t("Press the block"),
           timer: t("Start/stop the timer"), undo: t("Undo") };
}

export async function loadActivity() {
  const data = await authGet("/api/activity").then((r) => r.json());
  const reader = data.reader;
  const where = reader ? { protocol: reader.protocol, port: reader.port } : null;
  $("reader-status").textContent = !reader ? t("· no reader configured")
    : reader.connected ? t("· {protocol} on {port}: connected", where) : t("· {protocol} on {port}: not connected", where);
  // Tables without a reader never see this section; with one, it shows taps and the link.
  $("taps").hidden = data.activity.length === 0 && !(reader && reader.connected);
  $("activity").replaceChildren(...data.activity.slice(0, 12).map((a) => {
    const li = document.createElement("li");
    const what = document.createElement("span");
    what.textContent = heard(a, "did");
    const uid = document.createElement("span");
    uid.className = "uid";
    uid.textContent = a.uid;
    li.append(what, uid);
    return li;
  }));
  $("newcards").hidden = data.new_cards.length === 0 || !state;
  if (!state) return;
  $("newcard-list").replaceChildren(...data.new_cards.map((uid) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.className = "uid";
    label.textContent = uid;
    const pick = document.createElement("select");
    pick.setAttribute("aria-label", t("What this card does"));
    pick.append(...state.players.map((p) => new Option(p.name, "p" + p.id)));
    for (const [key, text] of Object.entries(cardActions())) pick.append(new Option(text, "a" + key));
    // Another tap rebuilds this list: keep what was picked for this card.
    if (cardChoice.has(uid) && [...pick.options].some((o) => o.value === cardChoice.get(uid))) {
      pick.value = cardChoice.get(uid);
    }
    pick.addEventListener("change", () => cardChoice.set(uid, pick.value));
    const give = document.createElement("button");
    give.className = "big";
    give.textContent = t("Assign");
    give.addEventListener("click", () => {
      const v = pick.value;
      const body = v[0] === "p" ? { uid, player: Number(v.slice(1)) } : { uid, action: v.slice(1) };
      give.disabled = true;
      api("POST", "/api/cards", body).then(() => loadActivity()).catch(() => {})
        .finally(() => { give.disabled = false; });
    });
    li.append(label, pick, give);
    return li;
  }));
}
