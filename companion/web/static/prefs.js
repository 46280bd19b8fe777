// How this device shows the page: big text, high contrast. Kept in this browser (one tablet
// may want big text, the banker's phone not) and put on <html> before the page is drawn (this
// script is in the <head>), so it never flashes the other way.
"use strict";

const DISPLAY_PREFS = { "big-text": "pref-big-text", "high-contrast": "pref-contrast" };

function displayPref(name) {
  try { return localStorage.getItem("companion-display-" + name) === "on"; } catch (_) { return false; }
}

function setDisplayPref(name, on) {
  document.documentElement.classList.toggle(name, on);
  try { localStorage.setItem("companion-display-" + name, on ? "on" : "off"); } catch (_) { /* private mode */ }
}

for (const name of Object.keys(DISPLAY_PREFS)) document.documentElement.classList.toggle(name, displayPref(name));

document.addEventListener("DOMContentLoaded", () => {
  for (const [name, id] of Object.entries(DISPLAY_PREFS)) {
    const box = document.getElementById(id);
    if (!box) continue;
    box.checked = displayPref(name);
    box.addEventListener("change", () => setDisplayPref(name, box.checked));
  }
  // The settings menu closes with Escape (back on its button) and when a tap lands elsewhere.
  const menu = document.getElementById("settings");
  if (!menu) return;
  menu.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
      ev.stopPropagation();
    }
  });
  document.addEventListener("click", (ev) => { if (menu.open && !menu.contains(ev.target)) menu.open = false; });
});
