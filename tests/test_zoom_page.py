"""Every sheet and dialog of the banker's page at 200 % zoom (a 1024x768 tablet zoomed to 200 %:
a 512x384 view at two device pixels a CSS pixel) and on a 320 px phone, in headless Chromium
against the real daemon (issue 44, item 4): each scrolls inside itself and keeps its close
button and its main action on screen and tappable (not under the header, not past the screen's
edge), and a payment to the last tile is finished from the pay sheet; a player's own page
keeps its Cancel and Pay in reach the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.page_fit import pick_characters
from tests.test_banker_page import banker, dialog_settled, get, kinds, shot, tile
from tests.test_board_page import table_config
from tests.test_player_phones import post
from tests.test_ring_page import kart_board, put, tile_of
from tests.test_tablet_browser import daemon

ZOOMED = {"width": 512, "height": 384}
"""A 1024x768 tablet at 200 % zoom."""
SMALL = {"width": 320, "height": 568}
"""The narrowest phone."""
SIZES = [pytest.param(ZOOMED, id="zoom-200"), pytest.param(SMALL, id="phone-320")]

REACH = """(el) => {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height) return 'not shown';
  if (r.top < -0.5 || r.left < -0.5 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5)
    return `off the screen: ${[r.left, r.top, r.width, r.height].map(Math.round)}`;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!hit || (hit !== el && !el.contains(hit)))
    return `under ${hit ? hit.id || hit.className || hit.tagName : 'nothing'}`;
  return '';
}"""


def zoomed_context(browser: Browser, size: dict[str, int]) -> BrowserContext:
    """The zoomed tablet (a desktop-class browser, touch) or the small phone (mobile, touch)."""
    return browser.new_context(viewport=size, device_scale_factor=2, has_touch=True,
                               is_mobile=size is SMALL)


def reachable(target: Locator, what: str, scroll: bool = False) -> None:
    """``target`` is on screen, and a tap at its middle lands on it, once the page has settled
    (a sheet that just opened scrolls the tiles above it in the next frame): polled, the last
    reason said. ``scroll``: scrolled into view first (the page, or the sheet or dialog around
    it), each time."""
    expect(target).to_be_visible()
    found = ""
    for _ in range(300):  # up to 30 s: a busy machine settles the page late
        if scroll:
            target.evaluate("el => el.scrollIntoView({ block: 'nearest' })")
        found = target.evaluate(REACH)
        if found == "":
            return
        target.page.wait_for_timeout(100)
    raise AssertionError(f"{what}: {found}")


def scrolled_to(target: Locator, what: str) -> None:
    """Scrolled into view (the page or the sheet/dialog around it), then reachable."""
    reachable(target, what, scroll=True)


def label(size: dict[str, int]) -> str:
    return f"{size['width']}x{size['height']}"


def five(tmp_path: Path, edition: str) -> Path:
    return table_config(tmp_path, edition, ["Mario", "Luigi", "Peach", "Daisy", "Toad"])


@pytest.mark.parametrize("size", SIZES)
def test_the_pay_sheet_and_every_dialog_keep_their_actions_in_reach(
        browser: Browser, tmp_path: Path, size: dict[str, int]) -> None:
    with daemon(five(tmp_path, "celebration")) as base:
        ctx = zoomed_context(browser, size)
        page = banker(ctx, base)
        name = label(size)
        # The pay sheet: its ✕ and Pay in sight at once; the last tile scrolled to above it.
        tile(page, "Mario").tap()
        expect(page.locator("#pad.open")).to_have_count(1)
        reachable(page.locator("#pad-close"), "the pay sheet's close")
        reachable(page.locator("#pad-pay"), "the pay sheet's Pay")
        shot(page, f"zoom-{name}-pay-sheet")
        last = page.locator("#players .tile .pick").last
        payee = last.locator(".name").inner_text()
        scrolled_to(last, "the last tile, with the sheet open")
        last.tap()
        for digit in ("1", "2"):
            key = page.locator(f'#keys button[data-key="{digit}"]')
            scrolled_to(key, f"the key {digit}, scrolled to in the sheet")
            key.tap()
        reachable(page.locator("#pad-close"), "the close, the sheet scrolled")
        pay = page.locator("#pad-pay")
        reachable(pay, "Pay, the sheet scrolled")
        expect(pay).to_be_enabled()
        shot(page, f"zoom-{name}-pay-ready")
        pay.tap()
        expect(page.locator("#pad.open")).to_have_count(0)
        mario = page.locator("#players .tile", has_text="Mario").locator(".coins")
        expect(mario).to_have_text("18")
        paid = kinds(base, "transfer")  # the page shows the table after the write
        assert len(paid) == 1 and "12" in str(paid[0]), paid
        assert payee in ("Bank", "Toad"), payee
        # A question with before and after (a payment bigger than the payer has).
        tile(page, "Luigi").tap()
        tile(page, "Peach").tap()
        for digit in "999":
            page.locator(f'#keys button[data-key="{digit}"]').tap()
        page.locator("#pad-pay").tap()
        dialog_settled(page)
        buttons = page.locator("#dialog-buttons button")
        reachable(buttons.first, "the big payment's first answer")
        reachable(buttons.last, "the big payment's last answer")
        shot(page, f"zoom-{name}-confirm")
        page.keyboard.press("Escape")
        expect(page.locator("#dialog")).to_be_hidden()
        page.locator("#pad-close").tap()
        # A phone's link: the QR code and its two buttons.
        tile(page, "Daisy").tap()
        page.locator("#pad-phone").tap()
        dialog_settled(page)
        expect(page.locator("#dialog .qr svg")).to_be_visible()
        reachable(page.locator("#dialog-buttons button").first, "the phone link's Turn off")
        reachable(page.locator("#dialog-buttons button").last, "the phone link's Done")
        shot(page, f"zoom-{name}-phone-link")
        page.locator("#dialog-buttons button").last.tap()
        expect(page.locator("#dialog")).to_be_hidden()
        # Undo from the history: the question and its answers.
        line = page.locator("#history .line").first
        line.evaluate("el => el.scrollIntoView({ block: 'center' })")
        line.tap()
        dialog_settled(page)
        reachable(page.locator("#dialog-buttons button").first, "undo's first answer")
        reachable(page.locator("#dialog-buttons button").last, "undo's last answer")
        page.keyboard.press("Escape")
        expect(page.locator("#dialog")).to_be_hidden()
        # The menu, and its tallest part (the join code's QR code and who has no phone).
        page.locator("#menu-open").tap()
        expect(page.locator("#menu")).to_be_visible()
        reachable(page.locator("#menu-close"), "the menu's close")
        reachable(page.locator("#menu-new"), "the menu's first item")
        scrolled_to(page.locator("#kept-import"), "the menu's last item")
        reachable(page.locator("#menu-close"), "the menu's close, the menu scrolled")
        page.locator("#menu-join").tap()
        expect(page.locator("#join-qr svg")).to_be_visible()
        reachable(page.locator("#menu-close"), "the join view's close")
        reachable(page.locator("#menu-back"), "the join view's Back")
        scrolled_to(page.locator("#join-missing li").last, "the join view's last player")
        reachable(page.locator("#menu-close"), "the join view's close, scrolled")
        shot(page, f"zoom-{name}-menu-join")
        page.locator("#menu-close").tap()
        expect(page.locator("#menu")).to_be_hidden()
        # The display settings.
        page.locator("#settings summary").tap()
        for box in ("#pref-big-text", "#pref-contrast", "#pref-language"):
            reachable(page.locator(box), f"the display setting {box}")
        page.locator("#settings summary").tap()
        ctx.close()


def fresh_pay(page: Page, name: str) -> None:
    """The pay sheet opened again from ``name``'s tile (whatever the last answer left)."""
    if page.locator("#pad.open").count():
        page.locator("#pad-close").tap()
    expect(page.locator("#pad.open")).to_have_count(0)
    tile_of(page, name).tap()
    expect(page.locator("#pad.open")).to_have_count(1)


def gamer_dialogs(page: Page, name: str) -> None:
    """Gamer's and Mario Kart's pickers: a character, the Power-up die's faces, the board's
    describe editor."""
    tile_of(page, "Peach").tap()
    page.locator("#pad-chars").tap()
    dialog_settled(page)
    reachable(page.locator("#dialog-buttons button").last, "the character picker's button")
    scrolled_to(page.locator("#dialog .char-chip").last, "the last character")
    reachable(page.locator("#dialog-buttons button").last, "the character picker's, scrolled")
    shot(page, f"zoom-{name}-characters")
    page.keyboard.press("Escape")
    expect(page.locator("#dialog")).to_be_hidden()
    fresh_pay(page, "Peach")
    page.locator("#pad-power").tap()
    dialog_settled(page)
    reachable(page.locator("#dialog-buttons button").last, "the Power-up picker's Cancel")
    scrolled_to(page.locator("#dialog .power-face").last, "the Power-up die's last face")
    reachable(page.locator("#dialog-buttons button").last, "the Power-up picker's Cancel, scrolled")
    shot(page, f"zoom-{name}-power-up")
    page.keyboard.press("Escape")
    expect(page.locator("#dialog")).to_be_hidden()
    if page.locator("#pad.open").count():
        page.locator("#pad-close").tap()
    describe = page.locator("#ring-describe-open")
    describe.evaluate("el => el.scrollIntoView({ block: 'center' })")
    describe.tap()
    expect(page.locator("#ring-edit")).to_be_visible()
    page.locator("#ring-count").fill("40")
    reachable(page.locator("#ring-edit-close"), "the describe editor's close")
    reachable(page.locator("#ring-edit-save"), "the describe editor's Save")
    shot(page, f"zoom-{name}-describe")
    page.locator("#ring-edit-close").tap()
    expect(page.locator("#ring-edit")).to_be_hidden()


def space_sheet(page: Page, base: str) -> None:
    """A space's sheet, its many answers scrolling with Close pinned below them."""
    put(base, "/api/board", kart_board())
    space = page.locator('#ring-box .ring-cell[data-space="10"]')  # a Property: many answers
    space.evaluate("el => el.scrollIntoView({ block: 'center' })")
    space.tap()
    dialog_settled(page)
    close = page.locator("#dialog-buttons button.dismiss")
    expect(close).to_have_text("Close")
    reachable(close, "the space's Close")
    scrolled_to(page.locator("#dialog-buttons button").first, "the space's first answer")
    reachable(close, "the space's Close, its answers scrolled")
    page.keyboard.press("Escape")
    expect(page.locator("#dialog")).to_be_hidden()


@pytest.mark.parametrize("size", SIZES)
def test_the_board_s_pickers_keep_their_actions_in_reach(browser: Browser, tmp_path: Path,
                                                     size: dict[str, int]) -> None:
    with daemon(table_config(tmp_path, "mario_kart", ["Mario", "Peach", "Daisy"])) as base:
        pick_characters(base)
        ctx = zoomed_context(browser, size)
        page = banker(ctx, base)
        gamer_dialogs(page, label(size))
        space_sheet(page, base)
        ctx.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_player_s_phone_pays_with_its_pad_in_reach(browser: Browser, tmp_path: Path,
                                                     size: dict[str, int]) -> None:
    """A player's own page: whom and the amount in view under the header, Cancel and Pay at
    the screen's foot while the digits scroll, the payment made."""
    with daemon(five(tmp_path, "celebration")) as base:
        mario = get(base, "api/state")["players"][0]["id"]
        link = post(base, f"api/players/{mario}/link")[1]["link"]
        ctx = zoomed_context(browser, size)
        page = ctx.new_page()
        page.goto(link)
        expect(page.locator("#link")).to_have_text("live")
        page.locator("#payees .payee").last.tap()
        expect(page.locator("#pad")).to_be_visible()
        for target, what in (("#amount", "the amount"), ("#cancel", "Cancel"), ("#send", "Pay")):
            reachable(page.locator(target), what)
        for digit in ("1", "3"):
            key = page.locator("#keys .digit", has_text=digit).first
            scrolled_to(key, f"the digit {digit}")
            key.tap()
        reachable(page.locator("#send"), "Pay, the digits scrolled to")
        shot(page, f"zoom-{label(size)}-player-pay")
        page.locator("#send").tap()
        expect(page.locator("#pad")).to_be_hidden()
        expect(page.locator("#me-coins")).to_have_text("17")  # the payment written
        paid = kinds(base, "transfer")
        assert len(paid) == 1 and "13" in str(paid[0]), paid
        ctx.close()
