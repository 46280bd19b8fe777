// The page's words in the device's language: the same gettext catalogs as the small screen and
// the voice, served as JSON (GET /api/i18n/<code>), with each language's plural rule as a table.
// A device that never picked one shows the first of its browser's preferred languages the
// companion speaks (navigator.languages, as the web does), else the table's ([table]
// language); a pick under Aa wins, and it and its catalog are kept in this browser, so the
// page is drawn in it from the first frame.
"use strict";

const LANGUAGE_KEY = "companion-language";
const CATALOG_KEY = "companion-catalog";
const ENGLISH = { language: "en", name: "English", rtl: false, messages: {}, plural: null };
let catalog = ENGLISH;
const languageListeners = [];

function stored(key) {
  try { return localStorage.getItem(key); } catch (_) { return null; }
}

function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key); else localStorage.setItem(key, value);
  } catch (_) { /* private mode: this visit only */ }
}

// A right-to-left sentence keeps each value in its own direction: "Luigi ← Mario" between two
// Latin names would otherwise read backwards (each value is isolated, U+2068 ... U+2069).
function fill(text, args) {
  if (!args) return text;
  const [open, close] = catalog.rtl ? ["\u2068", "\u2069"] : ["", ""];
  return text.replace(/\{(\w+)\}/g,
    (whole, key) => (key in args ? open + argWords(args[key]) + close : whole));
}

function argWords(value) {
  if (Array.isArray(value)) return value.map(argWords).join(", ");
  if (value && typeof value === "object") return said(value);
  return value === null || value === undefined ? "" : String(value);
}

function pluralForm(n) {
  const table = catalog.plural;
  if (!table) return n === 1 ? 0 : 1;
  const k = Math.abs(Math.trunc(n));
  if (k < table.length) return table[k];
  // A whole number of millions has a form of its own in some languages (es, pt, it: "many").
  if (k % 1000000 === 0 && catalog.million !== undefined) return catalog.million;
  return table[100 + (k % 100)];
}

// A message in the device's language ({name} slots filled from args).
function t(message, args) {
  const found = catalog.messages[message];
  return fill(found && found[0] ? found[0] : message, args);
}

// A message with a count: its form by the language's plural rule ({n} is the count).
function tn(singular, plural, n, args) {
  const all = Object.assign({ n }, args || {});
  const found = catalog.messages[singular];
  if (!found || !found.some((s) => s)) return fill(n === 1 ? singular : plural, all);
  const form = pluralForm(n);
  return fill(found[form] || found[found.length - 1], all);
}

// A sentence the server chose ({m, p, n, a}: the message, its plural and count, its args) in
// the device's language; plain text (a name, an English-only line) as it is.
function said(x) {
  if (x === null || x === undefined) return "";
  if (typeof x !== "object") return String(x);
  if (x.p !== undefined) return tn(x.m, x.p, x.n, x.a);
  return t(x.m, x.a);
}

// One of the edition's words (a mode's name, a Power-up's text): from the catalog by its
// English, as the extractor found it in the ruleset.
function word(text) { return text ? t(text) : text; }

function currentLanguage() { return catalog.language; }

// The page's own HTML: each element marked data-i18n gets its words, and each attribute named in
// data-i18n-attrs (the English is kept in the element the first time, to translate again).
function translatePage(root) {
  for (const el of (root || document).querySelectorAll("[data-i18n]")) {
    if (el.dataset.i18nEn === undefined) el.dataset.i18nEn = el.textContent.replace(/\s+/g, " ").trim();
    el.textContent = t(el.dataset.i18nEn);
  }
  for (const el of (root || document).querySelectorAll("[data-i18n-attrs]")) {
    for (const attr of el.dataset.i18nAttrs.split(/\s+/)) {
      if (!attr) continue;
      const keep = "i18n" + attr.replace(/(^|-)(\w)/g, (_m, _d, c) => c.toUpperCase());
      if (el.dataset[keep] === undefined) el.dataset[keep] = (el.getAttribute(attr) || "").replace(/\s+/g, " ").trim();
      if (el.dataset[keep]) el.setAttribute(attr, t(el.dataset[keep]));
    }
  }
}

function applyLanguage() {
  const html = document.documentElement;
  html.lang = catalog.language;
  html.dir = catalog.rtl ? "rtl" : "ltr";
  if (document.body) translatePage();
  for (const listener of languageListeners) listener(catalog.language);
}

function onLanguage(listener) { languageListeners.push(listener); }

async function loadCatalog(code) {
  const reply = await fetch(`/api/i18n/${encodeURIComponent(code)}`);
  if (!reply.ok) throw new Error(`no catalog for ${code}`);
  return reply.json();
}

// Switch this device to ``code`` and (``remember``) keep it as this device's choice.
async function setLanguage(code, remember = true) {
  const next = code === "en" ? ENGLISH : await loadCatalog(code);
  if (remember) store(LANGUAGE_KEY, code);
  catalog = next;
  store(CATALOG_KEY, JSON.stringify(next));
  applyLanguage();
}

// The languages the companion speaks, and the table's: {languages: [...], table: "de"}; asked
// once a page (the start and the picker both need it), again only after a failure.
let languagesAsked = null;
function languages() {
  if (!languagesAsked) {
    languagesAsked = fetch("/api/languages").then((reply) => reply.json())
      .catch((err) => { languagesAsked = null; throw err; });
  }
  return languagesAsked;
}

// The page's language picker (a <select id="pref-language">, if the page has one): each
// language by its own name; a pick is this device's from then on.
function languagePicker() {
  const pick = document.getElementById("pref-language");
  if (!pick) return;
  onLanguage((code) => { pick.value = code; });
  pick.addEventListener("change", () => {
    const code = pick.value;
    setLanguage(code).catch(() => { pick.value = currentLanguage(); });
  });
  const show = (all) => {
    pick.replaceChildren(...all.map((lang) => {
      const option = document.createElement("option");
      option.value = lang.code;
      option.textContent = lang.name;
      option.lang = lang.code;
      if (lang.rtl) option.dir = "rtl";
      return option;
    }));
    pick.value = currentLanguage();
  };
  // Offline: the language this page is in, until the list comes.
  show([{ code: catalog.language, name: catalog.name || catalog.language, rtl: catalog.rtl }]);
  languages().then((all) => show(all.languages || [])).catch(() => { /* offline */ });
}

// The first of the browser's ``preferred`` languages (BCP 47 tags, best first) among the ``known``
// codes: "de-DE" is "de", "pt-BR" is "pt-BR" when there is such a catalog, else "pt"; null
// when none is known.
const LANGUAGE_ALIASES = { no: "nb", nn: "nb" };  // Norwegian: the catalog is Bokmål's
function browserLanguage(preferred, known) {
  const codes = new Map(known.map((code) => [code.toLowerCase(), code]));
  for (const tag of preferred || []) {
    const parts = String(tag).toLowerCase().split(/[-_]/);
    for (let n = parts.length; n > 0; n--) {
      const asked = parts.slice(0, n).join("-");
      const found = codes.get(asked) || codes.get(LANGUAGE_ALIASES[asked]);
      if (found) return found;
    }
  }
  return null;
}

function preferredLanguages() {
  if (navigator.languages && navigator.languages.length) return navigator.languages;
  return navigator.language ? [navigator.language] : [];
}

// A device's language when it never picked one: its browser's, else the table's.
function unpickedLanguage(all) {
  const known = (all.languages || []).map((lang) => lang.code);
  return browserLanguage(preferredLanguages(), known) || all.table || "en";
}

// First frame: the catalog kept from the last visit; then the network's (it may have changed).
(function start() {
  const kept = stored(CATALOG_KEY);
  const chosen = stored(LANGUAGE_KEY);
  if (kept) {
    try {
      const parsed = JSON.parse(kept);
      if (!chosen || parsed.language === chosen) catalog = parsed;
    } catch (_) { /* a broken copy: fetched again below */ }
  }
  document.documentElement.lang = catalog.language;
  document.documentElement.dir = catalog.rtl ? "rtl" : "ltr";
  document.addEventListener("DOMContentLoaded", () => { translatePage(); languagePicker(); });
  const ready = chosen ? Promise.resolve(chosen) : languages().then(unpickedLanguage);
  ready.then((code) => setLanguage(code, false)).catch(() => { /* offline: the kept copy */ });
})();
