"""The page in the table's language and in each device's own, in headless Chromium against the
real daemon: German from ``[table] language`` on a browser whose languages the companion does
not speak, Polish picked on one phone (and remembered there, not on the next device), Arabic
right to left; no English word left that the language's catalog says otherwise, and the
server's sentences (a move, a refusal) in it too. A device that never picked one speaks its
browser's first language the companion has (the banker's page, a player's phone, the join
page), else the table's; a pick under Aa wins over the browser's."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from companion.i18n import translator
from tests.conftest import BROWSER_TOKEN
from tests.english_left import english_left as left_in
from tests.test_banker_page import PHONE, context, no_overflow, tile
from tests.test_movie_page import readme_shot
from tests.test_pwa import until
from tests.test_tablet_browser import api, daemon

SHOWN_TEXTS = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.replace(/[\\u2066-\\u2069]/g, "").replace(/\\s+/g, " ").trim();
    if (!text || !el || !el.getClientRects().length) continue;
    if (el.closest('[lang="en"]') && el.closest('[lang="en"]') !== document.documentElement) {
      continue;  // the rulebook's own lines: a citation, in English on purpose
    }
    if (getComputedStyle(el).visibility === "hidden") continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("[aria-label]")) {
    if (!el.getClientRects().length) continue;
    out.push(el.getAttribute("aria-label").replace(/[\\u2066-\\u2069]/g, ""));
  }
  return out;
}"""


LATIN = re.compile(r"[A-Za-z][A-Za-z'-]+")
PLAYERS = ("Mario", "Luigi", "Peach")
"""The conftest table's players: names stay as typed (Arabic's catalog writes characters'
names in its own letters, but a player typed "Mario")."""


def english_left(page: Page, code: str) -> list[str]:
    """Texts on show that are English the catalog of ``code`` says otherwise; on a page in
    Arabic, also any Latin word that is neither a player's name nor one the Arabic catalog
    itself writes (GO, POW, Free Parking ...)."""
    texts = page.evaluate(SHOWN_TEXTS)
    left = left_in(texts, code, PLAYERS)
    if code == "ar":
        kept = {w for forms in translator("ar").messages.values() for f in forms
                for w in LATIN.findall(f)} | set(PLAYERS) | {"Aa"}
        left += sorted({w for text in texts for w in LATIN.findall(text)} - kept)
    return left


UNSPOKEN = "ja-JP"
"""A browser language the companion has no catalog for: a page shows the table's."""


def unspoken(browser: Browser) -> BrowserContext:
    """A phone whose browser asks for a language the companion does not speak."""
    return context(browser, PHONE, locale=UNSPOKEN)


@pytest.fixture
def german_table(config: Path) -> Path:
    """The browser tests' table of three (conftest), its language German."""
    config.write_text(config.read_text() + '[table]\nlanguage = "de"\n')
    return config


def opened(page: Page, base: str, code: str) -> None:
    page.goto(f"{base}#token={BROWSER_TOKEN}")
    until(page, f"document.documentElement.lang === '{code}'")
    expect(page.locator(".tile").first).to_be_visible()
    until(page, "document.getElementById('link').classList.contains('live')")


def pick(page: Page, code: str) -> None:
    page.locator("#settings summary").click()
    page.locator("#pref-language").select_option(code)
    until(page, f"document.documentElement.lang === '{code}'")
    page.locator("#settings summary").click()


def test_the_page_speaks_the_tables_language_and_each_devices_own(
        browser: Browser, german_table: Path) -> None:
    de = translator("de")
    with daemon(german_table) as base:
        api(base, "/api/press")
        api(base, "/api/transfers", {"from": 2, "to": 1, "amount": 7})
        ctx = unspoken(browser)
        page = ctx.new_page()
        opened(page, base, "de")
        assert page.evaluate("document.documentElement.dir") == "ltr"
        assert english_left(page, "de") == []
        history = page.locator("#history")
        if history.count():
            assert "Luigi" in history.inner_text()
        no_overflow(page, PHONE["width"])
        readme_shot(page, "phone-lang-de")

        # A refusal from the server, in the page's language.
        refused = page.evaluate("""async (token) => {
          const r = await fetch('/api/transfers', {method: 'POST', headers: {
            'Content-Type': 'application/json', 'Authorization': 'Bearer ' + token},
            body: JSON.stringify({from: 1, to: 1, amount: 3})});
          const body = await r.json();
          return [r.status, body.error, said(body.error_said || body.error)];
        }""", BROWSER_TOKEN)
        assert refused[0] == 400
        assert refused[2] and refused[2] != refused[1], refused  # put into German

        # This phone picks Polish: kept here across a reload; a new device still gets German.
        pick(page, "pl")
        assert english_left(page, "pl") == []
        page.reload()
        opened(page, base, "pl")
        assert english_left(page, "pl") == []
        readme_shot(page, "phone-lang-pl")
        other = unspoken(browser).new_page()
        opened(other, base, "de")
        assert de.gettext("Language") != "Language"

        # Arabic: right to left, the header mirrored, nothing overflows.
        pick(page, "ar")
        assert page.evaluate("document.documentElement.dir") == "rtl"
        title = page.locator("h1").bounding_box()
        menu = page.locator("#settings summary").bounding_box()
        assert title and menu and title["x"] > menu["x"]  # the title on the right
        assert english_left(page, "ar") == []
        no_overflow(page, PHONE["width"])
        readme_shot(page, "phone-lang-ar")
        page.locator("#timer-fold > summary").click()  # folded on a phone: one tap
        page.locator("#timer-start").click()  # the lever timer's words, and the pay pad's keys
        until(page, "document.getElementById('timer-what').textContent.length > 0")
        tile(page, "Luigi").tap()
        tile(page, "Mario").tap()
        expect(page.locator("#pad-pay")).to_be_visible()
        assert english_left(page, "ar") == []
        page.locator("#pad-close").tap()
        # Spanish counts a whole number of millions in a form of its own ("de monedas"),
        # as the catalog's rule says, far past the page's table of 200.
        pick(page, "es")
        es = translator("es")
        for n in (1, 2, 21, 1_000_000, 3_000_000, 3_000_001):
            expected = es.ngettext("{n} coin", "{n} coins", n).format(n=n)
            assert page.evaluate(f"tn('{{n}} coin', '{{n}} coins', {n})") == expected, n
        assert es.ngettext("{n} coin", "{n} coins", 10**6).format(n=10**6) == "1000000 de monedas"
        pick(page, "en")
        assert page.evaluate("document.documentElement.dir") == "ltr"


@pytest.fixture
def polish_table(config: Path) -> Path:
    """The browser tests' table of three (conftest), its language Polish."""
    config.write_text(config.read_text() + '[table]\nlanguage = "pl"\n')
    return config


def test_a_device_that_never_chose_speaks_its_browsers_language(
        browser: Browser, polish_table: Path) -> None:
    de = translator("de")
    with daemon(polish_table) as base:
        # A German browser: the banker's page, a player's phone and the join page in German,
        # not in the table's Polish.
        german = context(browser, PHONE, locale="de-DE")
        banker = german.new_page()
        opened(banker, base, "de")
        expect(banker.locator("#undo .undo-label")).to_have_text(de.gettext("Undo"))
        assert english_left(banker, "de") == []
        luigi = api(base, "/api/players/2/link")["link"]  # type: ignore[index]
        own = context(browser, PHONE, locale="de-DE").new_page()
        own.goto(luigi)
        until(own, "document.documentElement.lang === 'de'")
        expect(own.locator(".me-coins .unit")).to_have_text(de.gettext("coins"))
        expect(own.locator("#table h2 span").first).to_have_text(de.gettext("Pay whom?"))
        request = urllib.request.Request(base + "api/join",
                                         headers={"Authorization": f"Bearer {BROWSER_TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            join = json.loads(reply.read())["url"]
        joining = context(browser, PHONE, locale="de-DE").new_page()
        joining.goto(join)
        until(joining, "document.documentElement.lang === 'de'")
        expect(joining.locator("#who")).to_have_text(de.gettext("Players"))
        expect(joining.locator("#pref-language")).to_have_attribute(
            "aria-label", de.gettext("Language"))
        expect(joining.locator("#pref-language")).to_have_value("de")

        # A browser language the companion lacks: the table's. Portuguese of Brazil: Portuguese.
        for locale, code in ((UNSPOKEN, "pl"), ("pt-BR", "pt"), ("en-US", "en")):
            page = context(browser, PHONE, locale=locale).new_page()
            page.goto(join)
            until(page, f"document.documentElement.lang === '{code}'")
            expect(page.locator("#who")).to_have_text(translator(code).gettext("Players"))
            page.context.close()

        # The browser's languages in order, each tag and then its language; none known: null.
        known = [lang["code"] for lang in json.loads(
            urllib.request.urlopen(base + "api/languages", timeout=10).read())["languages"]]
        for preferred, expected in ((["de-DE"], "de"), (["fr-FR", "de-AT", "es"], "de"),
                                    (["pt-BR"], "pt"), (["PT_br"], "pt"), (["nb-NO"], "nb"),
                                    (["no"], "nb"), (["zh-Hant-TW", "ja"], None), ([], None),
                                    (["en-GB", "de"], "en")):
            assert joining.evaluate("([p, k]) => browserLanguage(p, k)",
                                    [preferred, known]) == expected, preferred

        # A pick under Aa wins over the browser's, on this device, after a reload too.
        pick(banker, "es")
        banker.reload()
        opened(banker, base, "es")
        expect(banker.locator("#undo .undo-label")).to_have_text(
            translator("es").gettext("Undo"))
        joining.locator("#pref-language").select_option("es")
        until(joining, "document.documentElement.lang === 'es'")
        joining.reload()
        until(joining, "document.documentElement.lang === 'es'")
        expect(joining.locator("#who")).to_have_text(translator("es").gettext("Players"))
        for ctx in (german, own.context, joining.context):
            ctx.close()
