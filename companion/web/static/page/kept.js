// What this tablet keeps while the bank can't save (keeper.js): the copy, the notice saying so,
// and the file it can be saved as.

/* globals Keeper, t, tn */
import { $ } from "./store.js";

export const keeper = new Keeper("companion-kept");

export function renderKept() {
  const n = keeper.counts();
  const box = $("kept");
  const parts = [];
  if (n.presses) parts.push(tn("{n} press", "{n} presses", n.presses));
  if (n.writes) parts.push(tn("{n} write", "{n} writes", n.writes));
  if (n.refused) parts.push(tn("{n} press the bank refused", "{n} presses the bank refused", n.refused));
  box.hidden = !parts.length;
  $("kept-text").textContent = parts.length
    ? t("This tablet keeps {what} not saved yet, and gives them back when the bank takes writes.", { what: parts.join(", ") })
    : "";
}

$("kept-file").addEventListener("click", () => {
  const blob = new Blob([JSON.stringify(keeper.file(), null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = "companion-kept-" + new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-") + ".json";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
});
