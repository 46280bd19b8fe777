"""The banker's page at the speed of the table (issue 14), in headless Chromium against the
real daemon: paying from the tiles, one intent one write, undo that says what it undoes,
confirmations, watching mode, earlier games, phone links, readability."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.conftest import ROOT
from tests.test_tablet_browser import (
    ARTIFACTS,
    TOKEN,
    api,
    api_state,
    daemon,
    state_of,
)

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1024, "height": 768}


def context(browser: Browser, size: dict[str, int], *, touch: bool = True,
            locale: str | None = None) -> BrowserContext:
    """A phone (touch, mobile) or a tablet in landscape (``locale``: its browser's language,
    else Chromium's own, en-US)."""
    mobile = size["width"] < 600
    return browser.new_context(viewport=size, has_touch=touch, is_mobile=mobile,
                               device_scale_factor=2 if mobile else 1,
                               **({"locale": locale} if locale else {}))


def banker(ctx: BrowserContext, base: str) -> Page:
    page = ctx.new_page()
    page.goto(f"{base}#token={TOKEN}")
    expect(page.locator("#link")).to_have_text("live")
    expect(page.locator(".tile").first).to_be_visible()
    return page


def tile(page: Page, name: str) -> Locator:
    return page.locator("#players .tile", has_text=name).locator(".pick")


def bank_tile(page: Page) -> Locator:
    return page.locator("#players .bank-tile .pick")


def key(page: Page, label: str) -> Locator:
    return page.locator(f'#keys button[data-key="{label}"]')


def dialog_settled(page: Page) -> None:
    """The open dialog's buttons take taps: none is still arming (a question that appears where
    a finger just was takes no tap for a moment)."""
    expect(page.locator("#dialog")).to_be_visible()
    expect(page.locator("#dialog-buttons button.arming")).to_have_count(0)


def moves(base: str) -> list[dict]:
    whole = urllib.request.Request(base + "api/journal",
                                   headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(whole, timeout=10) as reply:
        return json.loads(reply.read())["moves"]


def kinds(base: str, kind: str) -> list[dict]:
    return [m for m in moves(base) if m["kind"] == kind]


def get(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path.lstrip("/"), timeout=10) as reply:
        return json.loads(reply.read())


def double_tap(page: Page, target: Locator, gap_ms: int = 100) -> None:
    """Two taps at the same spot ``gap_ms`` apart, as an impatient finger makes them."""
    target.scroll_into_view_if_needed()
    box = target.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    page.wait_for_timeout(gap_ms)
    page.touchscreen.tap(x, y)


def shot(page: Page, name: str, *, full: bool = False) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(350)  # animations settle
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full)


def in_view(page: Page, target: Locator) -> bool:
    # Measured once it is drawn: a redraw under load can catch it between two renderings
    # (bounding_box() waits for nothing and says None then).
    expect(target).to_be_visible()
    box = target.bounding_box()
    view = page.viewport_size
    assert box is not None and view is not None
    return (box["y"] >= 0 and box["y"] + box["height"] <= view["height"]
            and box["x"] >= 0 and box["x"] + box["width"] <= view["width"])


def no_overflow(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# -- one intent, one write ----------------------------------------------------------------------


def test_a_double_tap_on_pay_pass_go_and_next_writes_once(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        mario, luigi, _peach = api_state(base)
        # Pay: Luigi pays the Bank 3; the Pay button tapped twice, 100 ms apart.
        tile(page, "Luigi").tap()
        bank_tile(page).tap()
        key(page, "3").tap()
        double_tap(page, page.locator("#pad-pay"))
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("27")
        page.wait_for_timeout(1200)
        assert len(kinds(base, "transfer")) == 1
        assert state_of(base)["players"][1]["balance"] == 27
        # Pass GO for the current player (Mario), twice.
        double_tap(page, page.locator("#go"))
        expect(tile(page, "Mario").locator(".coins")).to_have_text("32")
        page.wait_for_timeout(1200)
        assert len(kinds(base, "pass_go")) == 1
        assert state_of(base)["players"][0]["balance"] == 32
        # Next, twice: Luigi's turn, not Peach's.
        double_tap(page, page.locator("#next"))
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        page.wait_for_timeout(1200)
        assert state_of(base)["current_player"] == luigi
        turns = kinds(base, "turn")
        assert len(turns) == 1, turns
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        # Undo, twice: one undo (the turn back to Mario), the payment and GO stay.
        double_tap(page, page.locator("#undo"))
        expect(page.locator(".tile.current")).to_contain_text("Mario")
        page.wait_for_timeout(1200)
        assert len(kinds(base, "undo")) == 1
        assert state_of(base)["current_player"] == mario
        assert [p["balance"] for p in state_of(base)["players"]] == [32, 27, 30]
        ctx.close()


# -- paying from the tiles -------------------------------------------------------------------------


def test_rent_from_the_tiles_in_three_taps_plus_digits_and_nothing_is_kept(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        taps = 0
        digits = 0

        def tap(target: Locator) -> None:
            nonlocal taps
            target.tap()
            taps += 1

        def type_digits(text: str) -> None:
            nonlocal digits
            for d in text:
                key(page, d).tap()
                digits += 1

        # Rent: Luigi pays Peach 12.
        tap(tile(page, "Luigi"))
        expect(page.locator("#pad")).to_have_class(re.compile(r"\bopen\b"))
        expect(page.locator("#pad-what")).to_have_text("Luigi pays… tap who gets paid")
        # On a phone the tiles and the pad are on screen together, no scrolling between them.
        for name in ("Mario", "Luigi", "Peach"):
            assert in_view(page, tile(page, name)), name
        assert in_view(page, bank_tile(page))
        assert in_view(page, page.locator("#pad-pay"))
        tap(tile(page, "Peach"))
        type_digits("12")
        expect(page.locator("#pad-pay")).to_have_text("Pay 12: Luigi → Peach")
        shot(page, "phone-pay-pad")
        tap(page.locator("#pad-pay"))
        assert taps == 3 and digits == 2
        expect(tile(page, "Peach").locator(".coins")).to_have_text("42")
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("18")
        expect(page.locator("#toast")).to_contain_text("Luigi paid Peach 12")
        # After paying: who paid, who got paid and the amount are gone; the sheet closes.
        expect(page.locator("#pad")).not_to_have_class(re.compile(r"\bopen\b"))
        expect(page.locator("#players .tile.from, #players .tile.to")).to_have_count(0)
        expect(page.locator("#pad-amount")).to_have_text("0")
        # A quick amount: the Bank pays Mario the GO amount (from the rules: labelled).
        tile(page, "Mario").tap()
        expect(page.locator("#pad-current")).to_be_hidden()  # Mario is current already
        tile(page, "Mario").tap()  # tapped again: nothing chosen
        expect(page.locator("#players .tile.from")).to_have_count(0)
        bank_tile(page).tap()
        tile(page, "Mario").tap()
        expect(key(page, "2").first).to_be_visible()
        expect(page.locator("#keys button", has_text="GO 2")).to_be_visible()
        expect(page.locator("#keys button", has_text="Jail 5")).to_be_visible()
        page.locator("#keys button", has_text="GO 2").tap()
        expect(page.locator("#pad-pay")).to_have_text("Pay 2: Bank → Mario")
        # Next with a payment half made: it starts the next turn empty.
        page.locator("#pad-close").tap()
        tile(page, "Peach").tap()
        bank_tile(page).tap()
        key(page, "4").tap()
        page.evaluate("document.getElementById('next').click()")  # under the sheet on a phone
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        expect(page.locator("#players .tile.from, #players .tile.to")).to_have_count(0)
        expect(page.locator("#pad-amount")).to_have_text("0")
        expect(page.locator("#pad")).not_to_have_class(re.compile(r"\bopen\b"))
        # Make current from a tile: tap it, then its own button.
        tile(page, "Peach").tap()
        page.locator("#pad-current").tap()
        expect(page.locator(".tile.current")).to_contain_text("Peach")
        # A payment with a note, as the old form allowed.
        tile(page, "Mario").tap()
        bank_tile(page).tap()
        key(page, "1").tap()
        page.locator("#pad-note-toggle").tap()
        page.locator("#pad-note").fill("tax")
        page.locator("#pad-pay").tap()
        expect(page.locator("#history li").first).to_contain_text("Mario pays the Bank 1 · tax")
        no_overflow(page, PHONE["width"])
        ctx.close()


def test_tablet_landscape_has_the_pad_beside_the_tiles_and_the_timer_in_the_header(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        pad = page.locator("#pad").bounding_box()
        tiles = page.locator("#players").bounding_box()
        assert pad and tiles
        assert pad["x"] >= tiles["x"] + tiles["width"]  # side by side ...
        assert pad["y"] < tiles["y"] + tiles["height"]  # ... at the same height
        expect(page.locator("#pad-what")).to_have_text("Pay: tap who pays")
        expect(page.locator("#htimer")).to_be_visible()
        expect(page.locator("#htimer-go")).to_have_text("Start")
        page.locator("#htimer-go").click()
        expect(page.locator("#htimer-go")).to_have_text("Stop")
        expect(page.locator("#htimer-left")).to_have_text(re.compile(r"^\d+ s$"))
        page.locator("#htimer-go").click()
        expect(page.locator("#htimer-go")).to_have_text("Start")
        tile(page, "Luigi").click()
        tile(page, "Peach").click()
        key(page, "7").click()
        page.keyboard.press("5")  # a keyboard works the pad too
        page.keyboard.press("Backspace")
        expect(page.locator("#pad-pay")).to_have_text("Pay 7: Luigi → Peach")
        shot(page, "tablet-pay-pad")
        page.locator("#pad-pay").click()
        expect(tile(page, "Peach").locator(".coins")).to_have_text("37")
        expect(page.locator(".tile.flash").first).to_be_visible()  # the changed tiles flash
        no_overflow(page, TABLET["width"])
        ctx.close()


# -- confirmations --------------------------------------------------------------------------------


@pytest.mark.parametrize(("label", "size"), [("phone", PHONE), ("tablet", TABLET)])
def test_a_big_payment_is_asked_again_with_before_and_after(browser: Browser, config: Path,
                                                            label: str, size: dict) -> None:
    with daemon(config) as base:
        _mario, luigi, peach = api_state(base)
        api(base, "/api/transfers", {"from": luigi, "to": "bank", "amount": 9})  # Luigi: 21
        ctx = context(browser, size)
        page = banker(ctx, base)
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("21")
        tile(page, "Luigi").tap()
        tile(page, "Peach").tap()
        for d in "150":  # a typo for 15
            key(page, d).tap()
        page.locator("#pad-pay").tap()
        dialog = page.locator("#dialog")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text("more than Luigi has (21)")
        expect(dialog).to_contain_text("Luigi: 21 → -129")
        expect(dialog).to_contain_text("Peach: 30 → 180")
        shot(page, f"{label}-confirm-big-payment")
        dialog.locator("button", has_text="Change it").tap()
        expect(dialog).to_be_hidden()
        assert state_of(base)["players"][1]["balance"] == 21  # nothing was paid
        page.locator("#pad-back").tap()
        expect(page.locator("#pad-pay")).to_have_text("Pay 15: Luigi → Peach")
        page.locator("#pad-pay").tap()  # 15 is under 21 and under the 30 a player starts with
        expect(dialog).to_be_hidden()
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("6")
        # More than a player starts with (30), even from the Bank: asked too; yes pays it.
        bank_tile(page).tap()
        tile(page, "Peach").tap()
        for d in "40":
            key(page, d).tap()
        page.locator("#pad-pay").tap()
        expect(dialog).to_contain_text("more than the 30 coins a player starts with")
        expect(dialog).to_contain_text("Peach: 45 → 85")
        page.wait_for_timeout(700)  # its buttons take taps after a moment
        dialog.locator("button", has_text="Pay 40").tap()
        expect(tile(page, "Peach").locator(".coins")).to_have_text("85")
        assert state_of(base)["players"][2]["balance"] == 85
        assert peach
        ctx.close()


# -- undo says what it undoes; redo brings it back ------------------------------------------------


@pytest.mark.parametrize(("label", "size"), [("phone", PHONE), ("tablet", TABLET)])
def test_undo_names_the_move_and_redo_brings_it_back(browser: Browser, config: Path,
                                                     label: str, size: dict) -> None:
    with daemon(config) as base:
        ctx = context(browser, size)
        page = banker(ctx, base)
        tile(page, "Luigi").tap()
        tile(page, "Peach").tap()
        key(page, "7").tap()
        page.locator("#pad-pay").tap()
        expect(page.locator("#undo-what")).to_have_text("Luigi pays Peach 7")
        expect(page.locator("#undo")).to_have_attribute("aria-label", "Undo: Luigi pays Peach 7")
        # A mistaken Next is undone first, in order.
        page.locator("#next").tap()
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        expect(page.locator("#undo-what")).not_to_have_text("Luigi pays Peach 7")
        page.locator("#undo").tap()
        expect(page.locator(".tile.current")).to_contain_text("Mario")
        expect(page.locator("#toast")).to_contain_text("Undone:")
        expect(tile(page, "Peach").locator(".coins")).to_have_text("37")  # the rent stays
        expect(page.locator("#undo-what")).to_have_text("Luigi pays Peach 7")
        page.locator("#undo").tap()
        expect(page.locator("#toast-text")).to_have_text("Undone: Luigi pays Peach 7")
        expect(page.locator("#toast-action")).to_have_text("Redo")
        expect(tile(page, "Peach").locator(".coins")).to_have_text("30")
        shot(page, f"{label}-undo-snackbar")
        page.wait_for_timeout(700)
        page.locator("#toast-action").tap()
        expect(tile(page, "Peach").locator(".coins")).to_have_text("37")
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("23")
        expect(page.locator("#toast-text")).to_contain_text("Redone: Luigi pays Peach 7")
        # The history reads in words: no "#45".
        lines = page.locator("#history li").all_inner_texts()
        assert lines and not any(re.search(r"#\d", line) for line in lines), lines
        ctx.close()


# -- watching mode ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("label", "size"), [("phone", PHONE), ("tablet", TABLET)])
def test_without_the_token_the_page_is_watching_from_load(browser: Browser, config: Path,
                                                          label: str, size: dict) -> None:
    with daemon(config) as base:
        api(base, "/api/transfers", {"from": api_state(base)[1], "to": "bank", "amount": 4})
        ctx = context(browser, size)
        page = ctx.new_page()
        page.goto(base)
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator(".tile")).to_have_count(3)  # no Bank tile: nobody pays here
        expect(page.locator("#role")).to_have_text("Watching")
        expect(page.locator("#watching")).to_contain_text("QR code on the companion's small screen")
        expect(page.locator("#watching")).to_contain_text("Menu, Share the banker's link")
        for control in ("#press", "#go", "#next", "#undo", "#jail", "#pad", "#modes",
                        "#bankrupt-card", "#menu-open", "#setup", "#timer-start", "#htimer-go",
                        "#tiles-hint"):
            expect(page.locator(control)).to_be_hidden()
        for name in ("Mario", "Luigi", "Peach"):
            expect(tile(page, name)).to_be_disabled()
        # ... and the table still arrives live.
        api(base, "/api/transfers", {"from": "bank", "to": api_state(base)[0], "amount": 5})
        expect(tile(page, "Mario").locator(".coins")).to_have_text("35")
        expect(page.locator("#history li").first).to_contain_text("the Bank pays Mario 5")
        no_overflow(page, size["width"])
        shot(page, f"{label}-watching")
        ctx.close()


def test_a_wrong_token_turns_the_page_to_watching(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, PHONE)
        page = ctx.new_page()
        page.goto(f"{base}#token=not-the-table-token")
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("#role")).to_be_hidden()  # it has a token: it can't know yet
        page.locator("#go").tap()
        expect(page.locator("#role")).to_have_text("Watching")
        expect(page.locator("#error")).to_contain_text("token was refused")
        expect(page.locator("#go")).to_be_hidden()
        assert state_of(base)["players"][0]["balance"] == 30
        ctx.close()


# -- games: new (the setup, from the menu), earlier ones resumed ------------------------------


@pytest.mark.parametrize(("label", "size"), [("phone", PHONE), ("tablet", TABLET)])
def test_new_game_is_set_up_from_the_menu_and_an_earlier_game_resumes(
        browser: Browser, config: Path, label: str, size: dict) -> None:
    with daemon(config) as base:
        first = state_of(base)["game"]["id"]
        api(base, "/api/transfers", {"from": api_state(base)[1], "to": "bank", "amount": 4})
        ctx = context(browser, size)
        page = banker(ctx, base)
        page.locator("#menu-open").tap()
        page.locator("#menu-new").tap()
        setup = page.locator("#setup")
        expect(setup).to_be_visible()
        expect(page.locator("#setup-running")).to_contain_text(
            "Monopoly: Super Mario Celebration with Mario, Luigi, Peach stays in the bank")
        names = page.locator("#setup-rows .setup-name")
        expect(names).to_have_count(2)
        names.nth(0).fill("Toad")
        names.nth(1).fill("Daisy")
        # Cancel: the running game as it was, nothing started.
        page.locator("#setup-cancel").tap()
        expect(setup).to_be_hidden()
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("26")
        assert state_of(base)["game"]["id"] == first  # nothing happened
        page.locator("#menu-open").tap()
        page.locator("#menu-new").tap()
        expect(names).to_have_count(2)
        names.nth(0).fill("Toad")
        names.nth(1).fill("Daisy")
        page.locator("#setup-start").tap()
        expect(setup).to_be_hidden()
        expect(page.locator(".tile")).to_have_count(3)  # Toad, Daisy and the Bank
        expect(tile(page, "Toad")).to_be_visible()
        # The earlier game is listed in the menu, and resumes with its coins (asked first).
        page.locator("#menu-open").tap()
        page.locator("#menu-games").tap()
        earlier = page.locator("#games li", has_text="Mario, Luigi, Peach")
        expect(earlier).to_be_visible()
        expect(page.locator("#games li", has_text="Toad, Daisy")).to_contain_text("playing now")
        earlier.scroll_into_view_if_needed()
        shot(page, f"{label}-games")
        page.screenshot(path=str(ROOT / "tests" / "screenshots" / f"{label}-games.png"))  # README
        earlier.locator("button", has_text="Resume").tap()
        dialog = page.locator("#dialog")
        expect(dialog).to_contain_text("Toad, Daisy stops being played")
        page.wait_for_timeout(700)
        dialog.locator("button", has_text="Keep playing").tap()
        expect(dialog).to_be_hidden()
        assert state_of(base)["game"]["id"] != first  # nothing happened
        earlier.locator("button", has_text="Resume").tap()
        page.wait_for_timeout(700)
        dialog.locator("button", has_text="Resume it").tap()
        expect(page.locator("#menu")).not_to_have_attribute("open", "")
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("26")
        assert state_of(base)["game"]["id"] == first
        ctx.close()


# -- a waiting outcome, the sounding block, the banner after Next ---------------------------


def test_a_waiting_outcome_is_given_by_tapping_a_tile(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        api(base, "/api/current", {"player": None})
        api(base, "/api/press")
        waiting = state_of(base)["unassigned"]
        assert len(waiting) == 1
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        bar = page.locator("#givebar")
        expect(bar).to_be_visible()
        expect(bar).to_contain_text("Tap the player it is for")
        assert "?" not in page.locator("#give-what").inner_text()
        shot(page, "phone-waiting-outcome")
        expect(bank_tile(page)).to_be_hidden()  # an outcome is for a player
        tile(page, "Peach").tap()
        expect(bar).to_be_hidden()
        expect(page.locator("#players .tile.from")).to_have_count(0)  # no payment started
        assert state_of(base)["unassigned"] == []
        assert state_of(base)["last_outcome"]["player"] == api_state(base)[2]
        ctx.close()


def test_the_block_pulses_while_sounding_and_the_banner_dims_after_next(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        page.locator("#press").tap()
        expect(page.locator("#press")).to_have_class(re.compile(r"\bsounding\b"))
        expect(page.locator("#outcome")).not_to_have_class(re.compile(r"\bpast\b"))
        expect(page.locator("#press")).not_to_have_class(re.compile(r"\bsounding\b"),
                                                         timeout=6000)
        page.locator("#next").tap()
        expect(page.locator("#outcome")).to_have_class(re.compile(r"\bpast\b"))
        ctx.close()


# -- players' phones, from the banker's page ----------------------------------------------


@pytest.mark.parametrize(("label", "size"), [("phone", PHONE), ("tablet", TABLET)])
def test_a_phone_link_is_made_shown_as_a_qr_code_and_turned_off(browser: Browser, config: Path,
                                                                label: str, size: dict) -> None:
    with daemon(config) as base:
        luigi = api_state(base)[1]
        ctx = context(browser, size)
        page = banker(ctx, base)
        tile(page, "Luigi").tap()
        page.locator("#pad-phone").tap()
        dialog = page.locator("#dialog")
        expect(dialog).to_contain_text("Luigi's phone")
        expect(dialog.locator(".qr svg")).to_be_visible()
        qr = dialog.locator(".qr svg").bounding_box()
        assert qr and qr["width"] >= 180 and abs(qr["width"] - qr["height"]) < 2, qr  # square
        expect(dialog.locator(".qr-link")).to_contain_text("/p#token=")
        shot(page, f"{label}-phone-link")
        page.wait_for_timeout(400)
        dialog.locator("button", has_text="Done").tap()
        expect(page.locator(".tile", has_text="Luigi").locator(".phone")).to_be_visible()
        assert next(p for p in state_of(base)["players"] if p["id"] == luigi)["linked"]
        tile(page, "Luigi").tap()
        expect(page.locator("#pad-phone")).to_have_text("Phone: linked")
        page.locator("#pad-phone").tap()
        expect(dialog).to_contain_text("Luigi's phone is linked")
        page.wait_for_timeout(700)
        dialog.locator("button", has_text="Turn off").tap()
        expect(page.locator(".tile", has_text="Luigi").locator(".phone")).to_have_count(0)
        assert not next(p for p in state_of(base)["players"] if p["id"] == luigi)["linked"]
        ctx.close()


# -- readable: sizes, contrast, no overflow ----------------------------------------------

READABILITY = """() => {
  const linear = (v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  const lum = (c) => {
    const [r, g, b] = c.map(linear);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m);
    return (x + 0.05) / (y + 0.05);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage !== "none") return null;  // a gradient: not checked here
      const c = rgb(s.backgroundColor);
      if (c.length >= 3 && (c.length < 4 || c[3] > 0.9)) return c.slice(0, 3);
    }
    return [29, 29, 59];
  };
  const small = [], low = [];
  for (const el of document.querySelectorAll("body *")) {
    const text = [...el.childNodes].filter((n) => n.nodeType === 3)
      .map((n) => n.textContent.trim()).join("");
    if (!text || !el.getClientRects().length) continue;
    const s = getComputedStyle(el);
    const button = el.closest("button");
    if (s.visibility === "hidden" || (button && button.disabled)) continue;
    const what = `${el.id || el.className || el.tagName} "${text.slice(0, 20)}"`;
    if (parseFloat(s.fontSize) < 14) small.push(`${what}: ${s.fontSize}`);
    const bg = background(el);
    if (bg) {
      const r = ratio(rgb(s.color).slice(0, 3), bg);
      if (r < 4.5) low.push(`${what}: ${r.toFixed(2)}`);
    }
  }
  const inputs = [...document.querySelectorAll("input:not([type=checkbox]), select")]
    .filter((i) => parseFloat(getComputedStyle(i).fontSize) < 16).map((i) => i.id || i.className);
  return { small, low, inputs };
}"""


@pytest.mark.parametrize("size", [PHONE, TABLET, {"width": 768, "height": 1024}])
def test_text_is_readable_and_the_current_ring_is_no_players_colour(browser: Browser,
                                                                     config: Path,
                                                                     size: dict) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"players": ["Ann", "Ben", "Cal", "Dee", "Eve"]})
        eve = api_state(base)[4]
        api(base, "/api/current", {"player": eve})
        api(base, "/api/transfers", {"from": api_state(base)[1], "to": "bank", "amount": 35})
        watcher = context(browser, size)
        page = watcher.new_page()
        page.goto(base)
        expect(page.locator("#role")).to_have_text("Watching")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        watcher.close()
        ctx = context(browser, size)
        page = banker(ctx, base)
        tile(page, "Ann").tap()
        page.locator("#go").dispatch_event("click")  # a snackbar
        expect(page.locator("#toast")).to_be_visible()
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        page.locator("#pad-close").dispatch_event("click")
        page.locator("#menu-open").click()  # the setup: inputs and their placeholders
        page.locator("#menu-new").click()
        expect(page.locator("#setup-rows .setup-name").first).to_be_visible()
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        placeholder = page.evaluate("""() => {
          const i = document.querySelector('#setup-rows .setup-name');
          return getComputedStyle(i, '::placeholder').color; }""")
        assert placeholder == "rgb(154, 154, 192)"  # #9a9ac0 on #17172f: 6.5:1
        page.locator("#setup-cancel").click()
        # Eve's colour is the old ring's gold: the ring is white now, and says so in words.
        current = page.locator(".tile.current")
        expect(current).to_contain_text("Eve")
        expect(current).to_contain_text("current player")
        colour = current.evaluate("t => getComputedStyle(t).borderLeftColor")
        ring = current.evaluate("t => getComputedStyle(t).outlineColor")
        assert colour == "rgb(251, 208, 0)" and ring == "rgb(255, 255, 255)"
        ctx.close()


@pytest.mark.parametrize("height", [740, 640])
def test_nothing_sticks_out_at_360_px(browser: Browser, config: Path, height: int) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"players": ["Mario", "Luigi", "Peach", "Yoshi", "W" * 24,
                                             "Daisy"]})
        ctx = context(browser, {"width": 360, "height": height})
        page = banker(ctx, base)
        no_overflow(page, 360)
        tile(page, "Yoshi").tap()
        if height == 740:  # seven tiles (six players and the Bank) and the pad share the screen
            for name in ("Mario", "Daisy"):
                assert in_view(page, tile(page, name)), name
            assert in_view(page, bank_tile(page))
        tile(page, "Daisy").dispatch_event("click")  # 640 px high: the last row is a scroll away
        key(page, "9").tap()
        no_overflow(page, 360)
        assert in_view(page, page.locator("#pad-pay"))
        page.locator("#pad-pay").tap()
        expect(tile(page, "Daisy").locator(".coins")).to_have_text("39")
        no_overflow(page, 360)
        if height == 740:
            shot(page, "phone-360-six-players")
        ctx.close()
