"""The banker's page keeps every coin right (issue 28), in headless Chromium against the real
daemon: a payment whose answer was lost is charged once, the final score counts every row,
turns pass the same way everywhere and say whose turn it is, buttons name their player, and
the page asks in its own dialogs."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from tests.test_banker_page import TABLET, bank_tile, banker, context, key, kinds, shot, tile
from tests.test_movie_page import Dice, movie_config, movie_daemon, press  # noqa: F401
from tests.test_tablet_browser import api, api_state, daemon, state_of

# -- 1. one intent, one payment, even when its answer is lost --------------------------------


def route_context(browser: Browser) -> BrowserContext:
    """A tablet whose requests Playwright can answer: the page's service worker is kept off
    (a request a service worker takes is not seen by ``page.route``)."""
    return browser.new_context(viewport=TABLET, service_workers="block")


def lose_the_first_answer(page: Page, path: str) -> list[str]:
    """The first request to ``path`` reaches the server (it writes it), then the connection
    drops before the page hears the answer. Answers the Idempotency-Key of every try."""
    keys: list[str] = []

    def handle(route: Route) -> None:
        keys.append(route.request.headers.get("idempotency-key", ""))
        if len(keys) == 1:
            route.fetch()  # written on the Pi ...
            route.abort("connectionreset")  # ... and the answer lost
        else:
            route.continue_()

    page.route(f"**{path}", handle)
    return keys


def pay_the_bank_and_lose_the_answer(page: Page, name: str, digit: str) -> list[str]:
    """``name`` pays the Bank ``digit`` coins on the pad; the server writes it and the page
    hears nothing back ("not reachable"). Answers every try's Idempotency-Key."""
    keys = lose_the_first_answer(page, "/api/transfers")
    tile(page, name).click()
    bank_tile(page).click()
    key(page, digit).click()
    page.locator("#pad-pay").click()
    expect(page.locator("#error")).to_contain_text("The companion is not reachable")
    return keys


def test_pay_again_after_a_lost_answer_charges_once_and_says_so(browser: Browser,
                                                                 config: Path) -> None:
    with daemon(config) as base:
        ctx = route_context(browser)
        page = banker(ctx, base)
        # A write with no answer makes the page reconnect, and send it again once the feed is
        # back: here the new feed stays silent, so the second try is the banker's own tap.
        page.route_web_socket(re.compile(r"/ws(\?|$)"), lambda ws: None)
        keys = pay_the_bank_and_lose_the_answer(page, "Luigi", "3")
        assert state_of(base)["players"][1]["balance"] == 27  # it was written
        page.wait_for_timeout(800)  # well past a double tap: a deliberate second try
        expect(page.locator("#pad-pay")).to_be_enabled()
        page.locator("#pad-pay").click()
        expect(page.locator("#toast-text")).to_contain_text("That payment went through (once)")
        page.wait_for_timeout(500)
        assert len(keys) == 2 and keys[0] == keys[1]  # the same intent, the same key
        assert len(kinds(base, "transfer")) == 1
        assert state_of(base)["players"][1]["balance"] == 27
        shot(page, "tablet-payment-went-through")
        ctx.close()


def test_a_lost_answer_is_sent_again_when_the_connection_is_back(browser: Browser,
                                                                  config: Path) -> None:
    with daemon(config) as base:
        ctx = route_context(browser)
        page = banker(ctx, base)
        keys = pay_the_bank_and_lose_the_answer(page, "Peach", "5")
        page.evaluate("socket.close()")  # the Wi-Fi comes back: the page reconnects
        expect(page.locator("#toast-text")).to_contain_text("That payment went through (once)")
        expect(page.locator("#pad-pay")).to_be_disabled()  # the pad is done with it
        page.wait_for_timeout(500)
        assert len(keys) == 2 and keys[0] == keys[1]
        assert len(kinds(base, "transfer")) == 1
        assert state_of(base)["players"][2]["balance"] == 25
        ctx.close()


# -- 2. the final score: one form, every row counted ------------------------------------------


def test_count_the_score_saves_every_row_and_asks_about_blank_ones(browser: Browser,
                                                                 config: Path) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "gamer", "players": ["Toad", "Daisy", "Wario"]})
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        no_native_dialogs(page)
        for name, points in (("Toad", 70), ("Daisy", 90)):  # typed, never saved on their own
            row = page.locator("#score-rows .score-row", has_text=name)
            row.locator(".points").fill(str(points))
            row.locator(".cards").fill("3")
        page.locator("#end").click()
        expect(page.locator("#dialog-body")).to_have_text(
            "Nothing is typed for Wario: count 0 points and 0 cards?")
        page.locator("#dialog-buttons button", has_text="Type them").click()
        expect(page.locator("#dialog")).not_to_be_visible()
        assert [p["points"] for p in state_of(base)["players"]] == [0, 0, 0]  # nothing yet
        page.locator("#end").click()
        page.locator("#dialog-buttons button", has_text="Count as 0").click()
        expect(page.locator("#dialog-title")).to_have_text("End before the last card?")
        shot(page, "tablet-end-before-the-last-card")
        page.locator("#dialog-buttons button", has_text="End now (house rule)").click()
        expect(page.locator("#winner")).to_be_visible()
        state = state_of(base)
        assert [(p["points"], p["cards"]) for p in state["players"]] == [(70, 3), (90, 3), (0, 0)]
        assert state["ended"] and len(kinds(base, "points")) == 2
        ctx.close()


def no_native_dialogs(page: Page) -> None:
    """The page asks in its own dialogs: a browser confirm() fails the test."""
    def refuse(dialog: object) -> None:
        raise AssertionError(f"a native dialog: {dialog}")
    page.on("dialog", refuse)


# -- 3, 4. Jail and the turn: named, passed, said ------------------------------------------------


def test_going_to_jail_from_the_page_passes_the_turn_and_names_the_player(browser: Browser,
                                                                        config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        no_native_dialogs(page)
        expect(page.locator("#go")).to_have_text("Mario passes GO +2")
        expect(page.locator("#jail")).to_be_disabled()  # Mario is not in Jail: no fee to pay
        tile(page, "Mario").click()
        page.locator("#pad-jail-in").click()
        expect(page.locator("#toast-text")).to_have_text(
            "Mario goes to Jail (sent by the banker); Luigi's turn")
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        expect(page.locator("#go")).to_have_text("Luigi passes GO +2")
        # Mario's next turn: his fee on the header button names him.
        api(base, "/api/next", {})
        api(base, "/api/next", {})
        expect(page.locator("#toast-text")).to_have_text("Mario's turn")  # said, from anywhere
        expect(page.locator("#jail")).to_have_text("Mario pays 5 to leave Jail")
        expect(page.locator("#jail")).to_be_enabled()
        # The table's die for a 6: missed, counted, and the turn passes.
        tile(page, "Mario").click()
        expect(page.locator("#pad-jail-miss")).to_have_text("Missed a 6 (try 1 of 3)")
        shot(page, "tablet-jail-roll-buttons")
        page.locator("#pad-jail-miss").click()
        expect(page.locator("#toast-text")).to_have_text(
            "Mario missed a 6 (try 1 of 3): stays in Jail; Luigi's turn")
        expect(page.locator("#players .tile", has_text="Mario")).to_contain_text("1 of 3 tries")
        assert state_of(base)["players"][0]["jail_tries"] == 1
        ctx.close()


def test_gamer_has_go_to_jail_and_a_jailed_player_is_not_offered_the_boss(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "gamer", "players": ["Toad", "Daisy"]})
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        tile(page, "Toad").click()
        expect(page.locator("#pad-jail-in")).to_be_visible()
        page.locator("#pad-jail-in").click()
        expect(page.locator("#toast-text")).to_contain_text("Toad goes to Jail")
        assert state_of(base)["players"][0]["in_jail"]
        tile(page, "Toad").click()
        expect(page.locator("#pad-jail-six")).to_be_visible()
        expect(page.locator("#pad-jail-miss")).to_have_text("Missed a 6 (try 1 of 2)")
        ctx.close()


# -- 5. bankruptcy: the creditor is whoever they owe, asked in the page's own dialog -------------


def test_bankruptcy_defaults_to_whoever_the_player_owes(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        _mario, luigi, peach = api_state(base)
        api(base, "/api/transfers", {"from": luigi, "to": peach, "amount": 33})  # Luigi -3
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        no_native_dialogs(page)
        page.locator("#bankrupt-card").scroll_into_view_if_needed()
        expect(page.locator("#bankrupt-player")).to_have_value(str(luigi))
        expect(page.locator("#bankrupt-creditor")).to_have_value(str(peach))
        page.locator("#bankrupt button[type=submit]").click()
        expect(page.locator("#dialog-title")).to_have_text("Luigi is bankrupt to Peach?")
        shot(page, "tablet-bankrupt-dialog")
        page.locator("#dialog-buttons button", has_text="Bankrupt").click()
        expect(page.locator("#players .tile", has_text="Luigi")).to_contain_text("OUT")
        move = kinds(base, "bankruptcy")[0]
        assert move["data"]["creditor"] == peach
        ctx.close()


# -- 10. Wiggly Worms: the dealt variant on the page ------------------------------------------


def test_the_dealt_variant_is_a_tick_that_doubles_the_worms_with_two(browser: Browser,
                                                                     config: Path) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "wiggly_worms", "players": ["Ann", "Ben"]})
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        expect(page.locator("#dealt-words")).to_have_text("Cards dealt out: 10 worms each")
        page.locator("#dealt").check()
        expect(page.locator("#players .tile", has_text="Ann")).to_contain_text("0/10")
        assert state_of(base)["game"]["worms"] == 10
        ctx.close()


def test_next_after_doubles_asks_and_a_missed_roll_from_jail_says_whose_turn(
        browser: Browser, movie_config: Path) -> None:  # noqa: F811 (the fixture)
    dice = Dice()
    with movie_daemon(movie_config, dice) as base:
        who = dict(zip(("Mario", "Luigi", "Peach", "Toad"), api_state(base), strict=True))
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        no_native_dialogs(page)
        dice.load(3, 3)
        press(base)  # Mario's turn roll: doubles
        expect(page.locator("#players .tile.current")).to_contain_text("Mario")
        page.wait_for_function("state && state.doubles === 1")
        page.locator("#next").click()
        expect(page.locator("#dialog-title")).to_have_text("Doubles: Mario goes again")
        shot(page, "tablet-next-after-doubles")
        page.locator("#dialog-buttons button", has_text="Mario goes again").click()
        assert state_of(base)["current_player"] == who["Mario"]
        page.locator("#next").click()
        page.locator("#dialog-buttons button", has_text="Next player anyway").click()
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        # Luigi in Jail misses his doubles: the press passes the turn, and the page says so.
        api(base, "/api/jail", {"player": who["Luigi"], "in_jail": True})  # Peach's turn
        for _ in range(3):
            api(base, "/api/next", {})  # Toad, Mario, Luigi
        expect(page.locator(".tile.current")).to_contain_text("Luigi")
        dice.load(1, 2)
        press(base)
        expect(page.locator("#toast-text")).to_have_text("Peach's turn")
        assert dice.all_rolled()
        ctx.close()


# -- 7. the sale before a payment larger than the balance --------------------------------------


def test_the_pad_offers_the_sale_before_a_capped_payment(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "gamer", "players": ["Toad", "Daisy"]})
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        no_native_dialogs(page)
        tile(page, "Toad").click()
        tile(page, "Daisy").click()
        for digit in "30":
            key(page, digit).click()
        page.locator("#pad-pay").click()
        expect(page.locator("#dialog-body")).to_contain_text(
            "Property sold back to the Bank first (face value)")
        page.locator("#sale-value").fill("6")
        expect(page.locator("#dialog-body")).to_contain_text(
            "With the sale: Toad pays 26 of 30, keeps 0")
        shot(page, "tablet-sale-before-payment")
        page.locator("#dialog-buttons button", has_text="Pay 30").click()
        expect(page.locator("#toast-text")).to_contain_text("Toad sold Property for 6, then:")
        state = state_of(base)
        assert [p["balance"] for p in state["players"]] == [0, 46]
        assert len(kinds(base, "transfer")) == 1  # the sale and the payment: one move
        ctx.close()
