// The banker's page installs and reloads without the network: this service worker keeps the
// app shell (the page, its scripts: page/main.js and every module it imports, style, icons and
// manifest) in a versioned cache.
//
// - The shell: network first (a daemon upgraded is a page upgraded at the next load), the cache
//   when the network fails or is slower than NETWORK_MS (a tablet whose Wi-Fi dropped).
// - GET of a few public reads (the editions, the rules, the languages and their catalogs):
//   network first, a copy kept so the shell has its words offline. Every other /api/ read (with
//   the token, the journal's pages) is left to the network: nothing of it is stored.
// - Writes (POST, DELETE), /ws and /healthz: never touched, never cached.
// Served from /sw.js (not /static/) so its scope is the whole page.
"use strict";

const VERSION = "qb-shell-v13";
const SHELL = [
  "/",
  "/static/app.css",
  "/static/page/main.js",
  "/static/page/store.js",
  "/static/page/rules.js",
  "/static/page/words.js",
  "/static/page/widgets.js",
  "/static/page/messages.js",
  "/static/page/dialog.js",
  "/static/page/kept.js",
  "/static/page/unsent.js",
  "/static/page/lasttable.js",
  "/static/page/net.js",
  "/static/page/undo.js",
  "/static/page/keeping.js",
  "/static/page/dice.js",
  "/static/page/outcome.js",
  "/static/page/pad.js",
  "/static/page/table.js",
  "/static/page/scores.js",
  "/static/page/chart.js",
  "/static/page/ending.js",
  "/static/page/edition.js",
  "/static/page/editions/movie.js",
  "/static/page/editions/board.js",
  "/static/page/editions/powers.js",
  "/static/page/editions/ring.js",
  "/static/page/editions/ring_cells.js",
  "/static/page/editions/ring_describe.js",
  "/static/page/editions/ring_draft.js",
  "/static/page/editions/ring_file.js",
  "/static/page/editions/spaces.js",
  "/static/page/editions/deeds.js",
  "/static/page/editions/contest.js",
  "/static/page/history.js",
  "/static/page/requests.js",
  "/static/page/timer.js",
  "/static/page/cards.js",
  "/static/page/phones.js",
  "/static/page/joined.js",
  "/static/page/games.js",
  "/static/page/setup.js",
  "/static/page/menu.js",
  "/static/page/pot.js",
  "/static/page/awake.js",
  "/static/page/controls.js",
  "/static/page/flow.js",
  "/static/link-token.js",
  "/static/link-status.js",
  "/static/keeper.js",
  "/static/prefs.js",
  "/static/i18n.js",
  "/static/manifest.webmanifest",
  "/static/icon.svg",
  "/static/icon-192.png",
  "/static/icon-512.png",
];
const NETWORK_MS = 4000;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(VERSION)
    .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: "reload" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== VERSION).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the network is too slow")), ms);
    promise.then((r) => { clearTimeout(timer); resolve(r); }, (e) => { clearTimeout(timer); reject(e); });
  });
}

const PUBLIC_API = ["/api/editions", "/api/rules", "/api/languages"];
// The answers kept for the shell's words offline: a fixed few, read without the token (each
// language's catalog, /api/i18n/<code>, too). Anything else under /api/ is the network's alone.

async function networkFirst(request, key, keep) {
  const cache = await caches.open(VERSION);
  const kept = await cache.match(key);
  try {
    // A slow network gives way to a kept copy; with none, the page waits for the answer.
    const reply = await (kept ? withTimeout(fetch(request), NETWORK_MS) : fetch(request));
    if (keep && reply.ok && reply.type === "basic") cache.put(key, reply.clone()).catch(() => {});
    return reply;
  } catch (err) {
    if (kept) return kept;
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;  // writes go to the network, as if no worker were here
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const path = url.pathname;
  if (path === "/ws" || path === "/healthz" || path === "/sw.js") return;
  if (request.mode === "navigate" && path === "/") {
    // The link's #token never reaches here; "/?anything" is the same page.
    event.respondWith(networkFirst(request, "/", true));
  } else if (SHELL.includes(path)) {
    event.respondWith(networkFirst(request, path, true));
  } else if ((PUBLIC_API.includes(path) || path.startsWith("/api/i18n/")) &&
             !request.headers.has("Authorization") && !url.search) {
    event.respondWith(networkFirst(request, path, true));
  }  // any other /api/ read (with the token, the journal's pages, ...) goes to the network
});
