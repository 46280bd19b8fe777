"""The tablet stays on and installs (issue 15's page part), in headless Chromium against the real
daemon: a web app manifest and a service worker (the page reloads offline from its cache and
reconnects), the Screen Wake Lock while a game runs, big text and high contrast, the keyboard
and a screen reader (one polite live region), and an axe-core audit with no serious or critical
violation."""

from __future__ import annotations

import json
import re
import struct
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.test_banker_page import (
    PHONE,
    READABILITY,
    TABLET,
    bank_tile,
    banker,
    context,
    key,
    no_overflow,
    tile,
)
from tests.test_board_page import table_config
from tests.test_movie_page import Dice, ids, movie_daemon, readme_shot
from tests.test_tablet_browser import api, daemon, state_of

STATIC = Path(__file__).resolve().parent.parent / "companion" / "web" / "static"


def fetch(base: str, path: str) -> tuple[dict[str, str], bytes]:
    with urllib.request.urlopen(base + path.lstrip("/"), timeout=10) as reply:
        return dict(reply.headers), reply.read()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def readable(page: Page) -> None:
    no_overflow(page, page.viewport_size["width"] if page.viewport_size else PHONE["width"])
    found = page.evaluate(READABILITY)
    assert found == {"small": [], "low": [], "inputs": []}, found


def until(page: Page, script: str, timeout_ms: int = 15_000) -> None:
    """Poll ``script`` (evaluated through the DevTools protocol: ``wait_for_function`` would
    ``eval`` in the page, which its CSP forbids) until it is true."""
    for _ in range(timeout_ms // 100):
        if page.evaluate(script):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"never true: {script}")


def focus_stays_in(page: Page, dialog: str, tabs: int) -> None:
    """``tabs`` Tabs then as many Shift+Tabs: the focus never leaves the open ``dialog``."""
    inside = []
    for keys in ["Tab"] * tabs + ["Shift+Tab"] * tabs:
        page.keyboard.press(keys)
        inside.append(page.evaluate(
            f"document.getElementById('{dialog}').contains(document.activeElement)"))
    assert all(inside), inside


def controlled(page: Page) -> None:
    """Wait until the service worker controls the page (it claims the page it installs from)."""
    until(page, "navigator.serviceWorker.controller !== null")


# -- installing: the manifest, the icons, the worker ----------------------------------------------


def test_the_manifest_icons_and_service_worker_are_served(config: Path) -> None:
    with daemon(config) as base:
        headers, page = fetch(base, "/")
        html = page.decode()
        assert '<link rel="manifest" href="/static/manifest.webmanifest">' in html
        headers, body = fetch(base, "/static/manifest.webmanifest")
        assert headers["Content-Type"].startswith("application/manifest+json")
        manifest = json.loads(body)
        assert manifest["start_url"] == "/" and manifest["scope"] == "/"
        assert manifest["display"] == "standalone"
        sizes = set()
        for icon in manifest["icons"]:
            headers, data = fetch(base, icon["src"])
            assert headers["Content-Type"] == icon["type"], icon
            if icon["type"] == "image/png":
                width, height = png_size(data)
                assert icon["sizes"] == f"{width}x{height}"
                sizes.add(width)
        assert {192, 512} <= sizes  # what Chromium asks for to offer "Install"
        headers, body = fetch(base, "/sw.js")
        assert headers["Content-Type"].startswith("text/javascript")
        assert headers["Cache-Control"] == "no-cache"  # a new version is seen at the next load
        assert body == (STATIC / "sw.js").read_bytes()
        # Every file the worker keeps is served (else its install fails as a whole).
        shell = re.search(r"const SHELL = \[(.*?)\];", body.decode(), re.S)
        assert shell is not None
        for path in re.findall(r'"(/[^"]*)"', shell.group(1)):
            fetch(base, path)


def test_the_page_reloads_offline_from_its_cache_and_reconnects(browser: Browser,
                                                                config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        controlled(page)
        assert page.evaluate("caches.keys()") == ["qb-shell-v13"]
        until(page, """async () => {
          const cache = await caches.open('qb-shell-v13');
          return (await cache.keys()).length >= 9; }""")
        ctx.set_offline(True)
        # The network goes: the page hears it at once and says so.
        expect(page.locator("#link")).to_have_text("offline: reconnecting…")
        page.reload()
        # The shell from the cache, not the browser's "no internet" page; it says it is offline
        # as the browser reports it (bookworm's Chromium 150 without its security updates
        # reports a document reloaded under emulated offline as online; 156 as offline).
        said = "reconnecting…" if page.evaluate("navigator.onLine") else "offline: reconnecting…"
        expect(page.locator("#link")).to_have_text(said)
        expect(page.locator("#press")).to_be_visible()
        expect(page.locator("h1")).to_contain_text("Question Block")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(29, 29, 59)"
        # A write offline fails as a write (never answered from a cache).
        status = page.evaluate("""() => fetch('/api/next', {method: 'POST', body: '{}'})
          .then((r) => r.status, () => 'failed')""")
        assert status == "failed"
        # Back online: the page's own reconnecting brings the table back, and it works.
        ctx.set_offline(False)
        expect(page.locator("#link")).to_have_text("live", timeout=15_000)
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("30")
        tile(page, "Luigi").tap()
        bank_tile(page).tap()
        key(page, "4").tap()
        page.locator("#pad-pay").tap()
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("26")
        assert state_of(base)["players"][1]["balance"] == 26
        # Nothing but the shell and token-free reads were kept: no write, no feed, no token.
        kept = page.evaluate("""async () => {
          const cache = await caches.open('qb-shell-v13');
          return (await cache.keys()).map((r) => {
            const u = new URL(r.url);
            return u.pathname + u.search; }); }""")
        modules = {f"/static/{m.relative_to(STATIC).as_posix()}"
                   for m in STATIC.glob("page/**/*.js")}
        assert "/" in kept and "/static/page/main.js" in modules
        assert modules <= set(kept)  # every module of the page, for it to load offline
        assert all(k == "/" or k.startswith("/static/") or k in (
            "/api/editions", "/api/rules", "/api/languages") or k.startswith("/api/i18n/")
            for k in kept), kept  # a fixed few public reads, never the journal or the state
        assert not [k for k in kept if k.startswith(("/api/transfers", "/ws", "/api/journal",
                                                     "/api/state"))]
        ctx.close()


# -- the Screen Wake Lock -------------------------------------------------------------------------


def test_the_screen_stays_on_while_a_game_runs_and_is_let_go_when_it_ends(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        # Refused (a browser whose permissions deny it: a context granted nothing): said nowhere
        # but the attribute, and nothing breaks.
        ctx = browser.new_context(viewport=TABLET, permissions=[])
        page = banker(ctx, base)
        expect(page.locator("html")).to_have_attribute("data-wake-lock", "refused")
        expect(page.locator("#awake")).to_be_hidden()
        denied = page.evaluate("""() => navigator.wakeLock.request('screen')
          .then((s) => { s.release(); return 'granted'; }, (e) => e.name)""")
        assert denied == "NotAllowedError"
        expect(page.locator("#error")).to_be_hidden()
        page.locator("#next").click()
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        ctx.close()
        # Chromium grants it to a visible page (headless too): the real request, the real lock.
        ctx = browser.new_context(viewport=TABLET)
        page = banker(ctx, base)
        html = page.locator("html")
        expect(html).to_have_attribute("data-wake-lock", "held")
        awake = page.locator("#awake")
        expect(awake).to_be_visible()
        expect(awake.locator(".sr-only")).to_have_text("The screen stays on while the game runs")
        assert page.evaluate("document.getElementById('awake').title") != ""
        assert page.evaluate("navigator.permissions.query({name: 'screen-wake-lock'})"
                             ".then((s) => s.state)") == "granted"
        # The game ends (everyone but Mario bankrupt): the lock goes, the sun too.
        _mario, luigi, peach = (p["id"] for p in state_of(base)["players"])
        api(base, "/api/bankruptcy", {"player": luigi, "creditor": "bank"})
        expect(html).to_have_attribute("data-wake-lock", "held")  # still playing
        api(base, "/api/bankruptcy", {"player": peach, "creditor": "bank"})
        assert state_of(base)["ended"]
        expect(html).to_have_attribute("data-wake-lock", "released")
        expect(page.locator("#awake")).to_be_hidden()
        # Undo reopens it: held again.
        api(base, "/api/undo")
        expect(html).to_have_attribute("data-wake-lock", "held")
        ctx.close()


# -- big text and high contrast -------------------------------------------------------------------


def set_display(page: Page, box: str, on: bool) -> None:
    page.locator("#settings summary").click()
    switch = page.locator(box)
    expect(switch).to_be_visible()
    if switch.is_checked() != on:
        switch.click()
    page.keyboard.press("Escape")
    expect(page.locator("#settings")).not_to_have_attribute("open", "")


@pytest.mark.parametrize(("box", "mode"), [("#pref-big-text", "big-text"),
                                           ("#pref-contrast", "high-contrast")])
def test_big_text_and_high_contrast_on_a_phone(browser: Browser, config: Path, box: str,
                                               mode: str) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"players": ["Mario", "Luigi", "Peach", "Yoshi", "Wario"]})
        api(base, "/api/press")
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        set_display(page, box, True)
        expect(page.locator("html")).to_have_class(re.compile(rf"\b{mode}\b"))
        # Kept on this device: a reload (a new tab) shows the page the same way.
        page.reload()
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("html")).to_have_class(re.compile(rf"\b{mode}\b"))
        expect(page.locator(box)).to_be_checked()
        if mode == "big-text":
            size = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
            assert size >= 21
        else:
            black = page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert black == "rgb(0, 0, 0)"
        readable(page)
        readme_shot(page, f"phone-{mode}")
        # The pay sheet over the tiles, the settings menu open, a dialog: all still fit.
        tile(page, "Luigi").tap()
        bank_tile(page).tap()
        key(page, "5").tap()
        expect(page.locator("#pad-pay")).to_be_visible()
        readable(page)
        readme_shot(page, f"phone-{mode}-pay")
        page.locator("#pad-close").tap()
        page.locator("#settings summary").click()
        readable(page)
        page.keyboard.press("Escape")
        # Off again: gone, and remembered as off.
        set_display(page, box, False)
        expect(page.locator("html")).not_to_have_class(re.compile(rf"\b{mode}\b"))
        page.reload()
        expect(page.locator("html")).not_to_have_class(re.compile(rf"\b{mode}\b"))
        ctx.close()


# -- the keyboard and a screen reader -------------------------------------------------------------


FOCUSABLE = """() => [...document.querySelectorAll('button, summary, input, select, [tabindex]')]
  .filter((e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length
          && getComputedStyle(e).visibility !== 'hidden'
          && !e.closest('[inert], dialog:not([open])')
          && !e.closest('details:not([open]) > :not(summary)'))
  .map((e) => e.id || e.textContent.trim().slice(0, 30))"""

FOCUS_RING = """() => {
  const e = document.activeElement, s = getComputedStyle(e);
  if (e === document.body) return null;  // past the last control: out to the browser
  return { id: e.id || e.textContent.trim().slice(0, 30), ring: s.outlineStyle !== 'none'
           && parseFloat(s.outlineWidth) >= 2, visible: e.matches(':focus-visible') };
}"""


def tab_through(page: Page, limit: int) -> list[dict]:
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_RING)
        if focused is not None:
            seen.append(focused)
    return seen


def test_every_control_by_keyboard_with_a_focus_ring_and_a_trapped_dialog(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = browser.new_context(viewport=TABLET)
        page = banker(ctx, base)
        page.locator("body").click(position={"x": 5, "y": 300})
        page.evaluate("document.activeElement.blur()")
        wanted = page.evaluate(FOCUSABLE)
        assert len(wanted) > 20
        seen = tab_through(page, len(wanted) + 5)
        reached = {s["id"] for s in seen}
        assert set(wanted) <= reached, set(wanted) - reached
        missing_ring = [s["id"] for s in seen if not (s["ring"] and s["visible"])]
        assert not missing_ring, missing_ring
        # The block pressed from the keyboard: the outcome is said once, in words.
        page.locator("#press").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#outcome")).to_contain_text("Mario")
        outcome = state_of(base)["last_outcome"]
        said = page.locator("#announce")
        expect(said).to_contain_text(outcome["headline"].rstrip("!:. "))
        assert said.get_attribute("aria-live") == "polite"
        # A payment typed on the keyboard: the snackbar's words are said too.
        tile(page, "Luigi").focus()
        page.keyboard.press("Enter")
        bank_tile(page).focus()
        page.keyboard.press("Enter")
        page.keyboard.press("3")
        page.keyboard.press("Enter")
        expect(page.locator("#toast-text")).to_have_text(re.compile("Luigi paid the Bank 3"))
        expect(said).to_have_text(page.locator("#toast-text").inner_text())
        # A dialog (a big payment asked again): focus stays in it on Tab and Shift+Tab, Escape
        # closes it.
        page.wait_for_timeout(700)  # Pay takes the next payment once the last one's hold is over
        tile(page, "Luigi").focus()
        page.keyboard.press("Enter")
        bank_tile(page).focus()
        page.keyboard.press("Enter")
        for digit in "150":
            page.keyboard.press(digit)
        page.keyboard.press("Enter")
        dialog = page.locator("#dialog")
        expect(dialog).to_have_attribute("open", "")
        page.wait_for_timeout(700)  # its buttons take presses after a moment
        focus_stays_in(page, "dialog", 5)
        page.keyboard.press("Escape")
        expect(dialog).not_to_have_attribute("open", "")
        assert state_of(base)["players"][1]["balance"] == 27  # nothing paid but the 3
        # Enter on the header's Menu, a payment ready on the pad: the menu opens, nothing paid.
        page.locator("#menu-open").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#menu")).to_have_attribute("open", "")
        expect(dialog).not_to_have_attribute("open", "")
        page.keyboard.press("Escape")
        expect(page.locator("#menu")).not_to_have_attribute("open", "")
        assert state_of(base)["players"][1]["balance"] == 27
        page.keyboard.press("Escape")  # the pad's payment dropped too
        expect(page.locator("#pad-amount")).to_have_text("0")
        # The menu: a dialog too; Tab stays in it, Escape closes it, focus back on Menu.
        page.locator("#menu-open").focus()
        page.keyboard.press("Enter")
        menu = page.locator("#menu")
        expect(menu).to_have_attribute("open", "")
        focus_stays_in(page, "menu", 12)
        page.keyboard.press("Escape")
        expect(menu).not_to_have_attribute("open", "")
        expect(page.locator("#menu-open")).to_be_focused()
        # The settings menu: opened and closed by keyboard, its switches labelled.
        page.locator("#settings summary").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#pref-big-text")).to_be_visible()
        page.keyboard.press("Tab")
        page.keyboard.press("Space")
        expect(page.locator("html")).to_have_class(re.compile(r"\bbig-text\b"))
        page.keyboard.press("Escape")
        expect(page.locator("#pref-big-text")).to_be_hidden()
        assert page.evaluate("document.activeElement.id") == "" and page.evaluate(
            "document.activeElement.closest('#settings') !== null")
        ctx.close()


# -- axe-core -------------------------------------------------------------------------------------


def axe_source() -> str:
    import axe_playwright_python as axe  # a test dependency (pyproject): never a silent skip

    return (Path(axe.__file__).parent / "axe.min.js").read_text()


def audit(page: Page) -> list[dict]:
    """axe-core's violations on the page as it is now (injected through the DevTools protocol:
    the page's CSP allows no inline script, and rightly), and what axe could not decide about
    an ``aria-controls`` (one that names a closed dialog, say): counted as a violation."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_source())
    result = page.evaluate("""async () => {
      const r = await axe.run(document);
      const found = (v, nodes) => ({ id: v.id, impact: v.impact, help: v.help,
        nodes: nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary).slice(0, 5) });
      const controls = r.incomplete.map((v) => found(v, v.nodes.filter((n) =>
        /aria-controls/.test(n.failureSummary || '')))).filter((v) => v.nodes.length);
      return { rules: r.passes.length + r.violations.length + r.incomplete.length,
        violations: [...r.violations.map((v) => found(v, v.nodes)),
                     ...controls.map((v) => ({ ...v, id: 'aria-controls' }))] };
    }""")
    assert result["rules"] > 10, result  # axe really ran its rules on the page
    return result["violations"]


def axe_sees(page: Page) -> None:
    """The audit is not blind: a button without a name, put on the page, is a critical one."""
    page.evaluate("""() => { const b = document.createElement('button'); b.id = 'axe-probe';
      document.querySelector('main').append(b); }""")
    found = [v["id"] for v in serious(audit(page))]
    page.evaluate("document.getElementById('axe-probe').remove()")
    assert "button-name" in found, found
    # Nor deaf to the moderate: words outside every landmark, a control naming a closed dialog.
    page.evaluate("""() => { const p = document.createElement('p'); p.id = 'axe-probe';
      p.textContent = 'Outside'; document.body.append(p);
      const d = document.createElement('dialog'); d.id = 'axe-probe-dialog';
      const b = document.createElement('button'); b.id = 'axe-probe-button'; b.textContent = 'Open';
      b.setAttribute('aria-haspopup', 'dialog'); b.setAttribute('aria-controls', d.id);
      document.querySelector('main').append(b, d); }""")
    found = [v["id"] for v in serious(audit(page))]
    page.evaluate("""() => ['axe-probe', 'axe-probe-dialog', 'axe-probe-button']
      .forEach((id) => document.getElementById(id).remove())""")
    assert "region" in found and "aria-controls" in found, found


ALWAYS = ("region", "aria-controls")
"""Found at any impact: content outside every landmark (axe's moderate ``region``: the
snackbar, the watching note) and an ``aria-controls`` axe can't follow."""


def serious(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v["impact"] in ("serious", "critical") or v["id"] in ALWAYS]


def audit_in_every_mode(page: Page, what: str) -> None:
    for classes in ("", "big-text", "high-contrast", "big-text high-contrast"):
        page.evaluate("""c => { const html = document.documentElement;
          html.classList.remove('big-text', 'high-contrast');
          if (c) html.classList.add(...c.split(' ')); }""", classes)
        page.wait_for_timeout(100)
        found = serious(audit(page))
        assert not found, f"{what} [{classes or 'default'}]: {json.dumps(found, indent=1)}"


def test_axe_finds_nothing_serious_in_a_celebration_game(browser: Browser, config: Path) -> None:
    axe_source()
    with daemon(config) as base:
        api(base, "/api/press")
        for size in (PHONE, TABLET):
            ctx = context(browser, size, touch=size is PHONE)
            page = banker(ctx, base)
            axe_sees(page)
            audit_in_every_mode(page, f"celebration {size['width']}")
            tile(page, "Luigi").click()  # the pay pad open
            bank_tile(page).click()
            audit_in_every_mode(page, f"celebration pay pad {size['width']}")
            key(page, "3").click()
            page.locator("#pad-pay").click()  # the snackbar says it, with Undo
            expect(page.locator("#toast")).to_be_visible()
            audit_in_every_mode(page, f"celebration snackbar {size['width']}")
            page.locator("#settings summary").click()
            audit_in_every_mode(page, f"celebration menus {size['width']}")
            page.locator("#settings summary").click()
            page.locator("#menu-open").click()  # the page's menu (tests/test_setup_page.py: more)
            audit_in_every_mode(page, f"celebration page menu {size['width']}")
            ctx.close()
        # A watcher (no token) and a dialog open.
        ctx = context(browser, PHONE)
        page = ctx.new_page()
        page.goto(base)
        expect(page.locator("#role")).to_have_text("Watching")
        audit_in_every_mode(page, "watching")
        ctx.close()


@pytest.fixture
def gamer_config(tmp_path: Path) -> Path:
    return table_config(tmp_path, "gamer", ["Mario", "Peach", "Daisy"])


def test_axe_finds_nothing_serious_in_a_gamer_game_with_a_fight_open(
        browser: Browser, gamer_config: Path) -> None:
    axe_source()
    with movie_daemon(gamer_config, Dice()) as base:
        who = ids(base)
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        axe_sees(page)
        audit_in_every_mode(page, "gamer characters")
        for name, character in (("Mario", "mario"), ("Peach", "peach"), ("Daisy", "yoshi")):
            api(base, "/api/characters", {"player": who[name], "characters": [character]})
        api(base, "/api/boss", {"action": "open", "card": {
            "cost": 1, "required": 5, "pay_to": "bank", "bonus": 3, "points": 30},
            "correction": True})
        api(base, "/api/boss", {"action": "fight", "player": who["Mario"]})
        expect(page.locator("#contest")).to_be_visible()
        expect(page.locator("#contest-press")).to_be_visible()
        audit_in_every_mode(page, "gamer fight")
        # The Power-up dialog open over it.
        tile(page, "Peach").tap()
        page.locator("#pad-power").tap()
        expect(page.locator("#dialog")).to_have_attribute("open", "")
        audit_in_every_mode(page, "gamer power-up dialog")
        ctx.close()
        # On a tablet too.
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        audit_in_every_mode(page, "gamer fight tablet")
        ctx.close()


def test_axe_finds_nothing_serious_with_a_long_history(browser: Browser, config: Path) -> None:
    """A game of 30 payments: the history scrolls with nothing in it to focus (the scrolling
    region itself takes the keyboard's focus), and each tile says its coins as coins."""
    axe_source()
    with daemon(config) as base:
        luigi = state_of(base)["players"][1]["id"]
        for n in range(30):
            api(base, "/api/transfers", {"from": luigi, "to": "bank", "amount": 1,
                                         "note": f"fee {n}"})
        for size in (PHONE, TABLET):
            ctx = context(browser, size, touch=size is PHONE)
            page = banker(ctx, base)
            expect(page.locator("#history li")).to_have_count(30 + 1)  # and the opening
            assert page.evaluate("""() => { const h = document.getElementById('history');
              return h.scrollHeight > h.clientHeight; }""")  # it does scroll
            expect(tile(page, "Luigi")).to_have_accessible_name(re.compile(r"^Luigi 0 coins\b"))
            audit_in_every_mode(page, f"long history {size['width']}")
            ctx.close()
