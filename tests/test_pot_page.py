"""The Free Parking pot from the pages (issue 44), in headless Chromium against the real daemon
started from a config file: every fee the house rule names goes on the pot from every button
that pays it (the banker's pay sheet: its Tax and its Jail key; a player's own phone: the same),
and the keyboard's focus after Pay and after Start lands on the table, never on the body."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.conftest import ROOT
from tests.test_banker_page import PHONE, TABLET, bank_tile, banker, context, key, tile
from tests.test_player_phones import Phone, post
from tests.test_setup_page import Counted, fresh_install, open_banker, row
from tests.test_tablet_browser import api, daemon, state_of

SHOTS = ROOT / "tests" / "screenshots"
FAMILY = ["Anna", "Ben", "Cleo", "Dev"]


def pot_game(base: str) -> dict[str, int]:
    """A Celebration evening of four with the Free Parking pot on (Anna starts): the ids."""
    api(base, "/api/games", {"players": FAMILY, "house": {"free_parking_pot": True}})
    state = state_of(base)
    assert state["pot"] == {"space": "Free Parking", "coins": 0}
    return {p["name"]: p["id"] for p in state["players"]}


def pot(base: str) -> int:
    return int(state_of(base)["pot"]["coins"])


def balance(base: str, name: str) -> int:
    return next(p["balance"] for p in state_of(base)["players"] if p["name"] == name)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def to_jail_on_their_turn(base: str, who: int) -> None:
    """``who`` is in Jail (the banker's correction) and their next turn begins: the jail fee's
    moment ("Pay 5 coins at the start of your next turn")."""
    api(base, "/api/jail", {"player": who, "in_jail": True, "correction": True})
    api(base, "/api/current", {"player": who})


def focused(page: Page) -> dict[str, Any]:
    """What has the keyboard's focus: its tag, id, tile, text, and whether it is shown."""
    return page.evaluate("""() => { const e = document.activeElement;
      const r = e.getBoundingClientRect();
      return { tag: e.tagName, id: e.id, body: e === document.body,
               tile: e.closest('.tile') ? e.closest('.tile').dataset.player : null,
               text: (e.textContent || '').trim().slice(0, 40),
               shown: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight }; }""")


def test_a_tax_tapped_on_the_banker_page_goes_on_the_pot(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        ids = pot_game(base)
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        expect(page.locator("#pot-count")).to_have_text("0 coins")
        # The flow of the issue: Anna, Bank, Tax, 3, Pay (5 taps): on the pot, not the Bank's.
        count = Counted(page)
        count.tap_on(tile(page, "Anna"))
        count.tap_on(bank_tile(page))
        reason = page.locator("#pad-reasons .reason", has_text="Tax")
        count.tap_on(reason)
        expect(reason).to_have_attribute("aria-pressed", "true")
        count.tap_on(key(page, "3"))
        expect(page.locator("#pad-pay")).to_have_text("Pay 3: Anna → Bank")
        count.tap_on(page.locator("#pad-pay"))
        expect(page.locator("#pot-count")).to_have_text("3 coins")
        expect(page.locator("#toast")).to_contain_text("Anna paid 3 onto Free Parking")
        assert (pot(base), balance(base, "Anna"), count.taps) == (3, 27, 5)
        # Tax names the Bank as its payee ("Pay the Bank the amount shown on the board
        # space"): Anna, Tax, 4, Pay (4 taps).
        count = Counted(page)
        count.tap_on(tile(page, "Anna"))
        count.tap_on(reason)
        expect(page.locator("#players .bank-tile")).to_have_class(re.compile(r"\bto\b"))
        count.tap_on(key(page, "4"))
        expect(page.locator("#pad-pay")).to_have_text("Pay 4: Anna → Bank")
        page.wait_for_timeout(400)  # the sheet has slid up
        shot(page, "phone-pot-tax")
        count.tap_on(page.locator("#pad-pay"))
        expect(page.locator("#pot-count")).to_have_text("7 coins")
        assert (pot(base), balance(base, "Anna"), count.taps) == (7, 23, 4)
        print(f"\ntax onto the pot: 5 taps (payer, Bank, Tax, digit, Pay) or {count.taps}")
        taxes = [m for m in state_of(base)["recent"] if m.get("space") == "Free Parking"]
        assert [(m["to"], m["amount"]) for m in taxes] == [("board", 4), ("board", 3)]
        # A payment to the Bank with no reason (a purchase) stays the Bank's.
        tile(page, "Anna").tap()
        bank_tile(page).tap()
        key(page, "2").tap()
        page.locator("#pad-pay").tap()
        expect(page.locator(".tile", has_text="Anna").locator(".coins")).to_have_text("21")
        assert pot(base) == 7
        # The pad's Jail key, to the Bank, from a player in Jail: the jail fee itself (out of
        # Jail, on the pot), as the tile's "Pay 5 to leave".
        to_jail_on_their_turn(base, ids["Ben"])
        expect(page.locator(".tile", has_text="Ben").locator(".jail-badge")).to_be_visible()
        tile(page, "Ben").tap()
        bank_tile(page).tap()
        page.locator("#keys .quick.named", has_text="Jail").tap()
        page.locator("#pad-pay").tap()
        expect(page.locator("#pot-count")).to_have_text("12 coins")
        expect(page.locator(".tile", has_text="Ben").locator(".jail-badge")).to_have_count(0)
        assert (pot(base), balance(base, "Ben")) == (12, 25)
        ctx.close()

        # A tablet: the tax is the lander's, on their turn ("not now" for another player, as
        # the pad's other moves); Ben's is paid the same way.
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        tile(page, "Cleo").click()
        reason = page.locator("#pad-reasons .reason", has_text="Tax")
        expect(reason).to_have_class(re.compile(r"\bnot-now\b"))
        page.locator("#pad-close").click()
        tile(page, "Ben").click()
        reason.click()
        key(page, "6").click()
        expect(reason).not_to_have_class(re.compile(r"\bnot-now\b"))
        expect(page.locator("#pad-pay")).to_have_text("Pay 6: Ben → Bank")
        shot(page, "tablet-pot-tax")
        page.locator("#pad-pay").click()
        expect(page.locator("#pot-count")).to_have_text("18 coins")
        assert (pot(base), balance(base, "Ben")) == (18, 19)
        ctx.close()


def test_a_players_phone_pays_a_tax_and_the_jail_fee_onto_the_pot(browser: Browser,
                                                                    config: Path) -> None:
    with daemon(config) as base:
        ids = pot_game(base)
        ben = ids["Ben"]
        api(base, "/api/current", {"player": ben})  # Ben landed on a tax space
        link = post(base, f"api/players/{ben}/link")[1]["link"]
        phone = Phone(browser, link)
        phone.tap("#payees .payee:has-text('Bank')")
        reasons = phone.page.locator("#reasons .reason", has_text="Tax")
        expect(reasons).to_be_visible()
        phone.tap("#reasons .reason:has-text('Tax')")
        expect(reasons).to_have_attribute("aria-pressed", "true")
        phone.type_digits(2)
        shot(phone.page, "phone-player-tax")
        phone.tap("#send")
        expect(phone.page.locator("#pad")).to_be_hidden()
        expect(phone.page.locator("#toast")).to_have_text("Paid 2 onto Free Parking")
        phone.coins().to_have_text("28")
        assert (pot(base), phone.taps, phone.digits) == (2, 3, 1)
        # Paying another player, the reasons are not offered.
        phone.tap("#payees .payee:has-text('Anna')")
        expect(phone.page.locator("#reasons")).to_be_hidden()
        phone.tap("#cancel")
        # In Jail at the start of his turn: the Jail key to the Bank pays the jail fee itself.
        to_jail_on_their_turn(base, ben)
        expect(phone.page.locator("#me-note")).to_contain_text("in Jail")
        # A phone's link pays its own jail fee, nothing else of /api/jail.
        token = link.split("#token=")[1]
        before = state_of(base)
        for body in ({"player": ids["Anna"]}, {"player": ben, "in_jail": False}, {},
                     {"player": ben, "correction": True}, {"player": str(ben)}):
            status, reply = post(base, "api/jail", token=token, body=body)
            assert status == 403 and "own coins only" in reply["error"], (body, reply)
        assert state_of(base)["players"] == before["players"]
        phone.pay("Bank", quick="Jail 5")
        phone.coins().to_have_text("23")
        expect(phone.page.locator("#me-note")).not_to_contain_text("Jail")
        assert pot(base) == 7
        phone.context.close()


def test_focus_after_pay_and_after_start_lands_on_the_table_never_the_body(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(fresh_install(tmp_path)) as base:
        page = open_banker(browser, base, TABLET)
        expect(page.locator("#setup")).to_be_visible()
        # The keyboard alone: the names, then Start.
        row(page, 0).locator(".setup-name").focus()
        page.keyboard.type("Anna")
        page.keyboard.press("Enter")
        page.keyboard.type("Ben")
        page.locator("#setup-start").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#setup")).to_be_hidden()
        expect(page.locator("#players .tile")).to_have_count(3)
        now = focused(page)
        assert not now["body"] and now["shown"] and now["tile"] == str(
            state_of(base)["current_player"]), now
        # Pay with the keyboard: Anna's tile (focused), Tab, Tab to the Bank, 3, Enter.
        page.keyboard.press("Enter")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        expect(page.locator("#players .bank-tile .pick")).to_be_focused()
        page.keyboard.press("Enter")
        page.keyboard.press("3")
        expect(page.locator("#pad-pay")).to_have_text("Pay 3: Anna → Bank")
        page.keyboard.press("Enter")
        expect(page.locator(".tile", has_text="Anna").locator(".coins")).to_have_text("27")
        anna = str(state_of(base)["players"][0]["id"])
        expect(page.locator(f'#players .tile[data-player="{anna}"] .pick')).to_be_focused()
        now = focused(page)
        assert not now["body"] and now["shown"] and now["tile"] == anna, now
        shot(page, "tablet-focus-after-pay")
        # Tab to Pay itself and Enter on it: the same.
        page.keyboard.press("Enter")  # Anna pays again
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")  # to Ben
        page.keyboard.press("2")
        expect(page.locator("#pad-pay")).to_have_text("Pay 2: Anna → Ben")
        expect(page.locator("#pad-pay")).to_be_enabled()  # a double tap's guard is over
        page.locator("#pad-pay").focus()
        page.keyboard.press("Enter")
        expect(page.locator(".tile", has_text="Ben").locator(".coins")).to_have_text("32")
        expect(page.locator(f'#players .tile[data-player="{anna}"] .pick')).to_be_focused()
        assert not focused(page)["body"]
        page.context.close()

        # A player's phone, keyboard only: the Bank, 4, Enter: the balance paid from has focus.
        phone_ctx = browser.new_context(viewport=PHONE)
        phone = phone_ctx.new_page()
        phone.goto(post(base, f"api/players/{anna}/link")[1]["link"])
        expect(phone.locator("#link")).to_have_text("live")
        phone.locator("#payees .payee.bank").focus()
        phone.keyboard.press("Enter")
        phone.locator("#amount").focus()
        phone.keyboard.type("4")
        phone.keyboard.press("Enter")
        expect(phone.locator("#me-coins")).to_have_text("21")
        now = focused(phone)
        assert not now["body"] and now["shown"] and now["id"] == "me", now
        phone_ctx.close()


def test_the_movies_toll_and_jail_key_go_on_the_pot(browser: Browser, config: Path) -> None:
    """The Movie's fees (README, "House rules"): Bowser's toll from its dialog, the jail fee
    from the pad's Jail key; the rulebook's "pay one coin to the Bank" each."""
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "movie", "players": FAMILY,
                                 "house": {"free_parking_pot": True}})
        ids = {p["name"]: p["id"] for p in state_of(base)["players"]}
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        expect(page.locator("#pot-count")).to_have_text("0 coins")
        page.locator("#toll").tap()
        go = page.locator("#dialog #dialog-buttons button").last
        expect(go).to_have_text("4 players pay 1 each")
        go.tap()
        expect(page.locator("#pot-count")).to_have_text("4 coins")
        to_jail_on_their_turn(base, ids["Cleo"])
        expect(page.locator(".tile", has_text="Cleo").locator(".jail-badge")).to_be_visible()
        tile(page, "Cleo").tap()
        bank_tile(page).tap()
        page.locator("#keys .quick.named", has_text="Jail").tap()
        expect(page.locator("#pad-pay")).to_have_text("Pay 1: Cleo → Bank")
        page.locator("#pad-pay").tap()
        expect(page.locator("#pot-count")).to_have_text("5 coins")
        expect(page.locator(".tile", has_text="Cleo").locator(".jail-badge")).to_have_count(0)
        assert (pot(base), balance(base, "Cleo")) == (5, 28)
        ctx.close()
