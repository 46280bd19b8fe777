// The token a page's link carries (#token=...): taken once out of the address bar, then kept in
// this browser under `key` (the banker's page and a player's phone keep theirs apart).
// Shared by the banker's page (page/*.js, modules) and player.js; loaded before either.
"use strict";

function keepLinkToken(key) {
  const match = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    localStorage.setItem(key, match[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return () => localStorage.getItem(key) || "";
}
