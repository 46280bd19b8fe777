// Players' phones: a link (and QR code) per player, which the banker can turn off.

/* globals t */
import { $ } from "./store.js";
import { player } from "./words.js";
import { snack } from "./messages.js";
import { ask } from "./dialog.js";
import { write } from "./net.js";
import { pay, resetPay } from "./pad.js";

export function qrNode(svgText) {
  // The QR code comes from our own server as inline SVG markup (no xmlns: HTML's parser puts
  // it in the SVG namespace); only the <svg> is kept, without scripts or handlers.
  const doc = new DOMParser().parseFromString(String(svgText || ""), "text/html");
  const svg = doc.body.querySelector("svg");
  if (!svg) return null;
  for (const el of svg.querySelectorAll("script, foreignObject, a, use, image")) el.remove();
  const width = Number(svg.getAttribute("width"));
  const height = Number(svg.getAttribute("height"));
  if (!svg.getAttribute("viewBox") && width > 0 && height > 0) {
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);  // so it scales to the dialog
  }
  for (const el of [svg, ...svg.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) if (/^on/i.test(attr.name)) el.removeAttribute(attr.name);
  }
  svg.setAttribute("role", "img");
  return document.importNode(svg, true);
}

async function phoneLink(p) {
  const button = $("pad-phone");
  if (p.linked) {  // a new link turns the old one off: asked first
    const choice = await ask(t("{name}'s phone is linked", { name: p.name }),
      [t("A new link (and QR code) stops the one {name}'s phone has now; Turn off stops it with none new.", { name: p.name })],
      [{ label: t("Turn off"), value: "off", cls: "warn" }, { label: t("New link"), value: "new" },
       { label: t("Cancel"), value: false, cls: "quiet wide-btn" }], "phone-linked");
    if (choice === "off") { turnOffPhone(p); return; }
    if (choice !== "new") return;
  }
  let reply;
  try {
    reply = await write(`link:${p.id}`, `/api/players/${p.id}/link`, undefined, { button });
  } catch (err) { return; }
  const box = document.createElement("div");
  box.className = "qr-box";
  const qr = document.createElement("div");
  qr.className = "qr";
  qr.id = "qr";
  const node = qrNode(reply.qr_svg);
  if (node) { node.setAttribute("aria-label", t("QR code of {name}'s link", { name: p.name })); qr.append(node); }
  const link = document.createElement("p");
  link.className = "qr-link";
  link.textContent = reply.lan_link || reply.link || "";
  box.append(qr, link);
  const name = reply.name || p.name;
  const answer = await ask(t("{name}'s phone", { name }),
    [t("Scan it with {name}'s phone (or open the link): they see their own coins and the table, and pay from their own account only.", { name })],
    [{ label: t("Turn off"), value: "off", cls: "warn" }, { label: t("Done"), value: "done" }],
    "phone-link", box);
  if (answer === "off") turnOffPhone(p);
  else resetPay();
}

// Turn a player's phone off (here, or from "Anna's phone joined" at the top: ``button``).
export function turnOffPhone(p, button = null) {
  write(`unlink:${p.id}`, `/api/players/${p.id}/link`, undefined, { method: "DELETE", button })
    .then(() => { resetPay(); snack(t("{name}'s phone link is off", { name: p.name })); })
    .catch(() => {});
}

$("pad-phone").addEventListener("click", () => {
  const p = player(pay.from);
  if (p) phoneLink(p);
});
