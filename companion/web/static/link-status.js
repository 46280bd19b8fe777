// The header's word for the connection, the same on the banker's page and a player's phone
// (issue 44): "live" only while the page hears the companion; without a network (as the browser
// reports it) "offline: reconnecting…", else "reconnecting…". Each page says "not live" at once
// when a request gets no answer or the browser goes offline, and "live" again only when a
// fresh state arrives. Loaded before page/main.js and player.js.
"use strict";

function linkStatus(live) {
  return live ? t("live") : navigator.onLine === false ? t("offline: reconnecting…") : t("reconnecting…");
}
