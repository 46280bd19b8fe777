// Keeping in step with the companion while its card refuses writes (issue 29): the presses it
// holds kept here too and given back, the kept writes sent again, presses given back from a file.

/* globals t, tn */
import { $, socket, state, token, watching } from "./store.js";
import { showError, snack } from "./messages.js";
import { keeper, renderKept } from "./kept.js";
import { api } from "./net.js";

// Every state (and storage news): keep a copy of the presses the companion holds, tell it so,
// and give back what it no longer holds (banked once, by id); kept writes go again once it saves.
export function keepHeld(storage) {
  if (!storage || !token() || watching()) return;
  const ids = keeper.keep(storage.presses);
  const keeping = JSON.stringify({ type: "keeping", presses: ids });
  if (socket && socket.readyState === WebSocket.OPEN && socket.keeping !== keeping) {
    socket.send(keeping);  // once per change, on each connection
    socket.keeping = keeping;
  }
  const holds = new Set((storage.presses || []).map((p) => p.id));
  keeper.giveBack(holds, (presses) => api("POST", "/api/held", { presses }, undefined, () => true)
    .then((reply) => reply.presses))
    .then((banked) => {
      if (banked) snack(tn("{n} press this tablet kept is in the bank", "{n} presses this tablet kept are in the bank", banked));
    })
    .catch(() => {})
    .finally(renderKept);
  if (storage.ok && !keeper.sending && keeper.counts().writes) {
    keeper.sending = true;
    keeper.sendWrites((w) => api(w.method, w.path, w.body, w.key, () => true))
      .then(([answered, refused]) => {
        if (answered) snack(tn("{n} write this tablet kept went through (once)", "{n} writes this tablet kept went through (once)", answered));
        if (refused) showError(tn("{n} write this tablet kept was refused by the bank", "{n} writes this tablet kept were refused by the bank", refused));
      })
      .finally(() => { keeper.sending = false; renderKept(); });
  }
  renderKept();
}

$("kept-import").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  let data;
  try { data = JSON.parse(await file.text()); } catch (err) { data = null; }
  const presses = data && (data.held_presses || data.presses);
  if (!Array.isArray(presses)) { showError(t("That file holds no presses to give back.")); return; }
  keeper.adopt(presses);
  if (state) keepHeld(state.storage);
});
