// The page's menu (the header's Menu button, the banker's only): New game, Players join (the
// join code's QR code and who has no phone yet), Share the banker's link, Export this game,
// Earlier games, Give back presses from a file. A modal <dialog>: Escape or ✕ closes it, Tab
// stays inside it, a sub-part has Back.

/* globals onLanguage, said, t */
import { $, state } from "./store.js";
import { el } from "./widgets.js";
import { showError, snack } from "./messages.js";
import { authGet } from "./net.js";
import { openSetup } from "./setup.js";
import { forgetGames, loadGames } from "./games.js";
import { qrNode } from "./phones.js";

const VIEWS = { main: "menu-main", join: "menu-join-view", share: "menu-share-view", games: "menu-games-view" };
const JOIN_REFRESH_MS = 4000;
let view = "main";
let joinTimer = null;
let joinShown = "";
let asking = 0;

function titleOf(name) {
  if (name === "join") return t("Players join");
  if (name === "share") return t("Share the banker's link");
  if (name === "games") return t("Earlier games");
  return t("Menu");
}

// A word from the menu: in the menu while it is open (the header's bar is behind it).
function tell(text) {
  if ($("menu").open) $("menu-said").textContent = text;
  else if (text) showError(text);
}

function show(name) {
  const from = view;
  view = name;
  for (const [key, id] of Object.entries(VIEWS)) $(id).hidden = key !== name;
  $("menu-back").hidden = name === "main";
  $("menu-title").textContent = titleOf(name);
  $("menu-said").textContent = "";
  clearInterval(joinTimer);
  joinTimer = null;
  if (name === "join") {
    joinShown = "";
    $("join-qr").replaceChildren();
    $("join-link").textContent = "";
    $("join-missing").replaceChildren();
    loadJoin();
    joinTimer = setInterval(loadJoin, JOIN_REFRESH_MS);  // who has a phone now, while it shows
  }
  if (name === "share") loadShare();
  if (name === "games") loadGames();
  if (name === "main") { const back = $(`menu-${from}`); if (back && from !== "main") back.focus(); }
  else $("menu-back").focus();
}

// The Menu button names the menu it opens only while it is open (a closed dialog is no part of
// the page a screen reader can go to), and says whether it is.
function menuShown(open) {
  const button = $("menu-open");
  button.setAttribute("aria-expanded", String(open));
  if (open) button.setAttribute("aria-controls", "menu");
  else button.removeAttribute("aria-controls");
}

function openMenu() {
  show("main");
  $("menu").showModal();
  menuShown(true);
  $("menu-new").focus();
}

function closeMenu() {
  if ($("menu").open) $("menu").close();
}

// -- Players join: the join code's QR code, big, and who has no phone yet ----------------------

async function reading(path) {
  const reply = await authGet(path);
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    const err = new Error(data.error || String(reply.status));
    err.said = data.error_said || data.error || t("Error {status}", { status: reply.status });
    throw err;
  }
  return data;
}

function problem(err) {
  return err.said ? said(err.said) : t("The companion is not reachable. Is the Wi-Fi on?");
}

async function loadJoin() {
  const mine = ++asking;
  if (state && state.game.setup_pending) {  // stand-in players: nobody joins as them
    joinShown = "";
    $("join-qr").replaceChildren();
    $("join-link").textContent = "";
    $("join-missing").replaceChildren();
    tell(t("Start the game first: then each player joins with their own name."));
    return;
  }
  let data;
  try { data = await reading("/api/join"); } catch (err) {
    if (mine === asking && view === "join") tell(problem(err));
    return;
  }
  if (mine !== asking || view !== "join" || !$("menu").open) return;
  $("menu-said").textContent = "";
  const seen = JSON.stringify(data);
  if (seen === joinShown) return;  // unchanged: nothing redrawn (a screen reader is not told again)
  joinShown = seen;
  const link = data.lan_url || data.url || "";
  const qr = qrNode(data.qr);
  if (qr) qr.setAttribute("aria-label", t("QR code of the players' join link"));
  $("join-qr").replaceChildren(...(qr ? [qr] : []));
  $("join-link").textContent = link;
  const missing = data.players_without_phone || [];
  $("join-missing").replaceChildren(...(missing.length ? missing.map((p) => {
    const li = el("li", "join-who");
    li.style.setProperty("--colour", p.colour);
    li.dataset.player = String(p.id);
    li.append(el("span", "join-dot"), el("span", "join-name", p.name));
    li.firstChild.setAttribute("aria-hidden", "true");
    return li;
  }) : [el("li", "muted", t("Every player has a phone."))]));
}

// -- Share the banker's link: whoever opens it banks ---------------------------------------------

async function loadShare() {
  const mine = ++asking;
  $("share-qr").replaceChildren();
  $("share-link").value = "";
  $("share-said").textContent = "";
  let data;
  try { data = await reading("/api/share"); } catch (err) {
    if (mine === asking) tell(problem(err));
    return;
  }
  if (mine !== asking || view !== "share") return;
  const qr = qrNode(data.qr);
  if (qr) qr.setAttribute("aria-label", t("QR code of the banker's link"));
  $("share-qr").replaceChildren(...(qr ? [qr] : []));
  $("share-link").value = data.lan_url || data.url || "";
}

async function copyLink() {
  const input = $("share-link");
  if (!input.value) return;
  let done = false;
  try {
    if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(input.value); done = true; }
  } catch (_) { done = false; }
  if (!done) {  // plain http on the table's Wi-Fi: no clipboard API, the older way
    input.focus();
    input.select();
    try { done = document.execCommand("copy"); } catch (_) { done = false; }
  }
  $("share-said").textContent = done ? t("Copied: send it to the one who banks.") : t("Select the link and copy it.");
}

// -- Export this game: the file the server names, saved by the browser ----------------------------

async function exportGame(format, button) {
  if (!state) return;
  const game = state.game.id;
  button.disabled = true;
  try {
    const reply = await authGet(`/api/games/${game}/export?format=${format}`);
    if (!reply.ok) {
      const data = await reply.json().catch(() => ({}));
      tell(data.error_said || data.error ? said(data.error_said || data.error) : t("Error {status}", { status: reply.status }));
      return;
    }
    const blob = await reply.blob();
    const named = /filename="?([^";]+)"?/i.exec(reply.headers.get("Content-Disposition") || "");
    const file = named ? named[1] : `question-block-game-${game}.${format}`;
    const url = URL.createObjectURL(blob);
    const link = Object.assign(document.createElement("a"), { href: url, download: file, hidden: true });
    ($("menu").open ? $("menu") : document.body).append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
    if ($("menu").open) tell(t("Saved: {file}", { file }));
    else snack(t("Saved: {file}", { file }));
  } catch (err) {
    tell(t("The companion is not reachable. Is the Wi-Fi on?"));
  } finally {
    button.disabled = false;
  }
}

// Every state: an open part follows the table (a player who joined, a game resumed).
export function renderMenu() {
  if (!$("menu").open) return;
  if (view === "games") loadGames();
  if (view === "join") loadJoin();
}

$("menu-open").addEventListener("click", openMenu);
$("menu-close").addEventListener("click", closeMenu);
$("menu-back").addEventListener("click", () => show("main"));
$("menu-new").addEventListener("click", () => { closeMenu(); openSetup(); });
$("menu-join").addEventListener("click", () => show("join"));
$("menu-share").addEventListener("click", () => show("share"));
$("menu-games").addEventListener("click", () => show("games"));
$("menu-csv").addEventListener("click", () => exportGame("csv", $("menu-csv")));
$("menu-json").addEventListener("click", () => exportGame("json", $("menu-json")));
$("winner-csv").addEventListener("click", () => exportGame("csv", $("winner-csv")));
$("winner-json").addEventListener("click", () => exportGame("json", $("winner-json")));
$("share-copy").addEventListener("click", copyLink);
$("kept-import").addEventListener("change", closeMenu);  // what it gave back is said on the page
$("menu").addEventListener("close", () => { clearInterval(joinTimer); joinTimer = null; asking++; view = "main"; menuShown(false); });
// A tap on the backdrop (outside the menu's box) closes it.
$("menu").addEventListener("click", (ev) => {
  if (ev.target !== $("menu")) return;
  const box = $("menu").getBoundingClientRect();
  const inside = ev.clientX >= box.left && ev.clientX <= box.right && ev.clientY >= box.top && ev.clientY <= box.bottom;
  if (!inside && (ev.clientX || ev.clientY)) closeMenu();
});
// Tab and Shift+Tab go round the menu's own controls; the keys pressed in it are its own (the
// pay pad's keys, Enter among them, are not typed through it).
$("menu").addEventListener("keydown", (ev) => {
  ev.stopPropagation();
  if (ev.key !== "Tab") return;
  const controls = [...$("menu").querySelectorAll("button, input, a[href], [tabindex]")]
    .filter((e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length);
  if (!controls.length) return;
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (ev.shiftKey && (document.activeElement === first || !$("menu").contains(document.activeElement))) {
    last.focus(); ev.preventDefault();
  } else if (!ev.shiftKey && document.activeElement === last) {
    first.focus(); ev.preventDefault();
  }
});

onLanguage(() => {
  $("menu-title").textContent = titleOf(view);
  forgetGames();
  joinShown = "";
  renderMenu();
});
