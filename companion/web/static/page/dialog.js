// A question asked on the page (a native confirm can't show before and after), its focus kept
// inside it.

import { $ } from "./store.js";
import { armLater } from "./messages.js";

export let answerDialog = null;
export function ask(heading, lines, buttons, name, extra) {
  const dialog = $("dialog");
  if (answerDialog) answerDialog(undefined);
  $("dialog-title").textContent = heading;
  const body = $("dialog-body");
  body.replaceChildren(...lines.map((line, i) => {
    const p = document.createElement("p");
    p.className = i === 0 ? "dialog-why" : "dialog-line";
    p.textContent = line;
    return p;
  }));
  if (extra) body.append(extra);
  dialog.dataset.name = name || "";
  return new Promise((resolve) => {
    answerDialog = (value) => {
      answerDialog = null;
      if (dialog.open) dialog.close();
      resolve(value);
    };
    $("dialog-buttons").replaceChildren(...buttons.map((b) => {
      const button = document.createElement("button");
      button.type = "button";
      // The answer that changes nothing (Cancel, Close) stays in sight below many others.
      button.className = "big" + (b.cls ? " " + b.cls : "") + (b.value === false ? " dismiss" : "");
      button.textContent = b.label;
      button.addEventListener("click", () => answerDialog(b.value));
      armLater(button);
      return button;
    }));
    dialog.showModal();
  });
}
$("dialog").addEventListener("cancel", (ev) => { ev.preventDefault(); if (answerDialog) answerDialog(false); });
// Tab and Shift+Tab go round a dialog's own controls (the page behind is inert while it is
// open; without this the browser's own bar would be next).
export function keepFocusIn(dialog) {
  dialog.addEventListener("keydown", (ev) => {
    if (ev.key !== "Tab") return;
    const controls = [...dialog.querySelectorAll("button, input, select, textarea, summary, a[href], [tabindex]")]
      .filter((e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length);
    if (!controls.length) return;
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (ev.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) {
      last.focus(); ev.preventDefault();
    } else if (!ev.shiftKey && document.activeElement === last) {
      first.focus(); ev.preventDefault();
    }
  });
}
keepFocusIn($("dialog"));
