"""The end of a game on the banker's page, in headless Chromium against the real daemon (its
config file, its SQLite file, aiohttp on 127.0.0.1): Mario Kart's "No rematch: final score"
counts each player's points from the same form as every final contest (the deeds ticked or
the points typed: saved, then the close), the final Race asks no prizes it never pays, and the
winner with the standings is brought where the eye is (scrolled into view, the focus on the
winner's line) after the last bankruptcy or the final score, on a phone scrolled down.

The taps of Mario Kart's end of game, from the final Race's rematch choice to the winner, as
:mod:`tests.page_fit` counts them: deeds the companion knows count in one tap (as before, when
that tap dropped every player's points); a board not described, one player's points and cards
typed and the others counted as 0, in four taps and three keystrokes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, WebSocketRoute, expect

from tests.page_fit import Taps
from tests.test_banker_page import PHONE, TABLET, banker, context, dialog_settled, in_view, shot
from tests.test_board_page import table_config
from tests.test_board_ring import kart_board
from tests.test_ring_page import put
from tests.test_tablet_browser import TOKEN, api, daemon, state_of

NO_REMATCH_DEEDS_TAPS = 1
"""Deeds known (bought on the page): No rematch: final score."""
NO_REMATCH_TYPED = (4, 3)
"""A board not described: Mario's points and cards typed ("32", "3"), No rematch: final
score, then "Count as 0" for the rows left blank."""


def go(page: Page) -> Locator:
    return page.locator("#dialog-buttons button").last


def names(base: str) -> dict[int, str]:
    return {p["id"]: p["name"] for p in state_of(base)["players"]}


def card_points(base: str) -> dict[str, tuple[int, int]]:
    """Each player's points and cards on Property cards, as the companion keeps them."""
    return {p["name"]: (p["points"], p["cards"]) for p in state_of(base)["players"]}


def to_the_final_race(base: str, who: dict[str, int], final_points: int) -> None:
    """Grand Prix 1 won by Mario (20 points), 2-7 discarded (nobody races), the final Race
    (8, ``final_points``) won by Peach alone: its prize, the rematch, is due. No fee: the
    coins stay even, the points decide."""
    api(base, "/api/race", {"action": "open", "card": {"fee": 0, "prizes": [0], "points": 20},
                            "correction": True})
    api(base, "/api/race", {"action": "enter", "player": who["Mario"]})
    api(base, "/api/race", {"action": "start"})
    api(base, "/api/race", {"action": "close"})
    while not state_of(base)["next_card"]["final"]:
        api(base, "/api/race", {"action": "open", "card": {"fee": 0, "prizes": [0], "points": 5},
                                "correction": True})
        api(base, "/api/race", {"action": "close"})
    api(base, "/api/race", {"action": "open", "card": {"fee": 0, "points": final_points},
                            "correction": True})
    api(base, "/api/race", {"action": "enter", "player": who["Peach"]})
    api(base, "/api/race", {"action": "start"})
    assert state_of(base)["next_card"]["rematch_due"]


@pytest.mark.parametrize("rows", ["deeds", "typed"])
def test_kart_no_rematch_final_score_counts_every_players_points(
        browser: Browser, tmp_path: Path, rows: str) -> None:
    """Mario holds Grand Prix 1 (20) and deeds worth 32; Peach wins the final Race (40):
    with Mario's 32 counted he wins, 52 to 40 (the tap that dropped them made Peach win).
    The deeds on a phone, the typed rows on a tablet."""
    config = table_config(tmp_path, "mario_kart", ["Mario", "Luigi", "Peach"])
    with daemon(config) as base:
        who = {name: pid for pid, name in names(base).items()}
        if rows == "deeds":  # Mario: Mario Kart Stadium 12 and Toad Harbor 20; Luigi: 8
            board = kart_board()
            for space, points in ((1, 12), (4, 8), (10, 20)):
                board["spaces"][space]["points"] = points
            put(base, "/api/board", board)
            for space, name in ((1, "Mario"), (4, "Luigi"), (10, "Mario")):
                api(base, "/api/deeds", {"space": space, "player": who[name],
                                         "correction": True})
        to_the_final_race(base, who, 40)
        device = "phone" if rows == "deeds" else "tablet"
        ctx = context(browser, PHONE if rows == "deeds" else TABLET)
        page = banker(ctx, base)
        panel = page.locator("#contest")
        close = page.locator("#contest-close")
        expect(close).to_have_text("No rematch: final score")
        mario = panel.locator(f'.score-row[data-player="{who["Mario"]}"]')
        t = Taps(page)
        if rows == "deeds":
            expect(mario.locator(".deeds-sum")).to_have_text("2 deeds · 32 points")
            panel.evaluate("e => e.scrollIntoView({block: 'start'})")
            shot(page, "phone-kart-no-rematch-deeds")
            t.tap("#contest-close")
        else:
            t.type(f'#contest .score-row[data-player="{who["Mario"]}"] .points', "32")
            t.type(f'#contest .score-row[data-player="{who["Mario"]}"] .cards', "3")
            shot(page, "tablet-kart-no-rematch-typed")
            t.tap("#contest-close")
            expect(page.locator("#dialog-body")).to_contain_text(
                "Nothing is typed for Luigi, Peach: count 0 points and 0 cards for each?")
            dialog_settled(page)
            t.tap("#dialog-buttons button", has_text="Count as 0")
        expect(page.locator("#winner-title")).to_have_text("Mario wins!")
        s = state_of(base)
        assert s["ended"] and s["winners"] == [who["Mario"]]
        expected = {"Mario": (32, 2 if rows == "deeds" else 3), "Peach": (0, 0),
                    "Luigi": (8, 1) if rows == "deeds" else (0, 0)}
        assert card_points(base) == expected
        top = s["standings"][0]
        assert (top["player"], top["points"]) == (who["Mario"], 32 + 20)
        expect(page.locator("#podium .step-1 .step-who")).to_have_text("Mario")
        expect(page.locator("#podium .step-1 .step-parts")).to_contain_text("52 card points")
        end_in_view(page)
        page.locator("#toast").evaluate("t => t.hidden = true")
        shot(page, f"{device}-kart-final-score")
        assert (t.taps, t.keys) == ((NO_REMATCH_DEEDS_TAPS, 0) if rows == "deeds"
                                    else NO_REMATCH_TYPED)
        ctx.close()


def test_the_final_race_asks_no_prizes_and_a_rematch_of_its_card_asks_them(
        browser: Browser, tmp_path: Path) -> None:
    """"There is one prize for the final Race, and that is to choose one Grand Prix card from
    any player and have a rematch of that Race": its flip asks the fee and the points only,
    its panel says its prize is the rematch; a rematch of that very card ("Prizes are handed
    out according to the card") asks its prizes then."""
    config = table_config(tmp_path, "mario_kart", ["Mario", "Luigi", "Peach"])
    with daemon(config) as base:
        who = {name: pid for pid, name in names(base).items()}
        while not state_of(base)["next_card"]["final"]:
            api(base, "/api/race", {"action": "open", "correction": True,
                                    "card": {"fee": 1, "prizes": [3], "points": 5}})
            api(base, "/api/race", {"action": "close"})
        api(base, "/api/go", {"player": who["Mario"]})
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        page.locator("#contest-flip").tap()
        expect(page.locator("#dialog-title")).to_have_text("Final Race: Grand Prix 8")
        expect(page.locator("#dialog-body")).to_contain_text(
            "The final Race: its prize is a rematch, then the game ends.")
        expect(page.locator("#dialog .prize-set")).to_have_count(0)
        page.locator("#card-fee").fill("1")
        page.locator("#card-points").fill("40")
        expect(go(page)).to_have_text("Flip Grand Prix 8")
        shot(page, "phone-kart-final-race-flip")
        dialog_settled(page)
        go(page).tap()
        panel = page.locator("#contest")
        expect(panel.locator(".contest-chips")).to_contain_text("prize: a rematch")
        race = state_of(base)["race"]
        assert race["final"] and race["card"] == {"number": 8, "fee": 1, "prizes": [],
                                                  "points": 40}
        api(base, "/api/race", {"action": "enter", "player": who["Peach"]})
        api(base, "/api/race", {"action": "start"})  # Peach alone: Grand Prix 8 is hers
        expect(page.locator("#contest-rematch")).to_be_visible()
        page.locator("#rematch-card").select_option("8")
        page.locator("#contest-rematch").tap()
        expect(page.locator("#dialog-title")).to_have_text("Prizes on Grand Prix 8")
        page.locator("#card-prize-1").fill("6")
        page.locator("#card-prize-2").fill("2")
        shot(page, "phone-kart-rematch-prizes")
        dialog_settled(page)
        go(page).tap()
        expect(panel.locator(".contest-title")).to_contain_text("Grand Prix 8 (rematch)")
        expect(panel.locator(".contest-chips")).to_contain_text("1st 6 · 2nd 2")
        race = state_of(base)["race"]
        assert race["rematch"] and race["card"]["prizes"] == [6, 2]
        ctx.close()


# -- the end where the eye is ---------------------------------------------------------------


def over(page: Page, selector: str) -> str:
    """What is on top at the element's middle (its first line): "" when it is the element
    itself, else what covers it (the sticky header, the snackbar, ...)."""
    return page.locator(selector).evaluate("""e => {
        const r = e.getBoundingClientRect();
        const y = r.top + Math.min(r.height / 2, 20);
        const at = document.elementFromPoint(r.left + r.width / 2, y);
        if (e.contains(at)) return "";
        const top = at && at.closest("[id]");
        return at ? `${at.tagName} ${top ? top.id : ""} ${at.className}` : "nothing"; }""")


def seen(page: Page, selector: str) -> bool:
    """Wholly inside the viewport and nothing over it (the sticky header, the snackbar)."""
    covered = over(page, selector)
    assert covered == "", f"{selector} is under {covered}"
    return in_view(page, page.locator(selector))


def end_in_view(page: Page) -> None:
    """The winner's line and the standings in view, once the page has scrolled there (the
    scroll's end is the event waited for), and the focus on the winner's line."""
    expect(page.locator("#winner")).to_be_visible()
    page.wait_for_function("""() => {
        const below = document.querySelector('header').getBoundingClientRect().bottom;
        const view = (e) => { const r = e.getBoundingClientRect();
          return r.top >= below - 1 && r.bottom <= innerHeight; };
        return view(document.getElementById('winner-title'))
          && view(document.getElementById('standings')); }""")
    assert seen(page, "#winner-title") and seen(page, "#standings")  # nothing over them
    assert page.evaluate("document.activeElement.id") == "winner-title"


@pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone", "tablet"])
def test_the_last_bankruptcy_brings_the_winner_into_view(
        browser: Browser, config: Path, size: dict[str, int]) -> None:
    """Celebration: Peach out by the API, then Luigi declared bankrupt on the page, from the
    Bankruptcy fold at the bottom: the page scrolls up to "Mario wins!" and the standings."""
    with daemon(config) as base:
        who = {name: pid for pid, name in names(base).items()}
        api(base, "/api/bankruptcy", {"player": who["Peach"], "creditor": "bank"})
        ctx = context(browser, size)
        page = banker(ctx, base)
        if not page.locator("#bankrupt-fold").evaluate("d => d.open"):  # folded on a phone
            page.locator("#bankrupt-fold > summary").tap()
        page.locator("#bankrupt-player").select_option(str(who["Luigi"]))
        page.locator("#bankrupt-creditor").select_option("bank")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.locator("#bankrupt button[type=submit]").tap()
        expect(page.locator("#dialog-title")).to_have_text("Luigi is bankrupt to the Bank?")
        dialog_settled(page)
        go(page).tap()
        expect(page.locator("#winner-title")).to_have_text("Mario wins!")
        end_in_view(page)
        page.locator("#toast").evaluate("t => t.hidden = true")
        shot(page, f"{'phone' if size is PHONE else 'tablet'}-winner-in-view-bankruptcy")
        ctx.close()


def to_the_final_boss(base: str, who: dict[str, int]) -> None:
    """Gamer: every Boss gets away (everyone passes), the final one too: its close is due."""
    card = {"cost": 0, "required": 6, "pay_to": "bank", "bonus": 0, "points": 10}
    while True:
        api(base, "/api/boss", {"action": "open", "card": card, "correction": True})
        for pid in who.values():
            api(base, "/api/boss", {"action": "pass", "player": pid})
        if state_of(base)["fight"]["final"]:
            break
        api(base, "/api/boss", {"action": "close"})


def test_the_final_score_in_gamer_brings_the_winner_into_view(
        browser: Browser, tmp_path: Path) -> None:
    """Gamer: the final Boss got away (everyone passed); the banker scrolled down to its
    close under the score rows; "Done: the final score" brings the winner's line and the
    standings into view at once on a device that asks for reduced motion (no smooth scroll)."""
    config = table_config(tmp_path, "gamer", ["Mario", "Peach", "Daisy"])
    with daemon(config) as base:
        who = {name: pid for pid, name in names(base).items()}
        to_the_final_boss(base, who)
        ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                  device_scale_factor=2, reduced_motion="reduce")
        page = banker(ctx, base)
        page.locator(f'#contest .score-row[data-player="{who["Peach"]}"] .points').fill("30")
        page.locator(f'#contest .score-row[data-player="{who["Peach"]}"] .cards').fill("2")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.locator("#contest-close").tap()
        dialog_settled(page)
        page.locator("#dialog-buttons button", has_text="Count as 0").tap()
        expect(page.locator("#winner-title")).to_have_text("Peach wins!")
        assert seen(page, "#winner-title") and seen(page, "#standings")  # no scroll to wait for
        end_in_view(page)
        page.locator("#toast").evaluate("t => t.hidden = true")
        shot(page, "phone-winner-in-view-gamer")
        ctx.close()


def test_the_close_answered_before_the_end_arrives_leaves_the_winner_uncovered(
        browser: Browser, tmp_path: Path) -> None:
    """The close's answer can come before the socket's ended state: its snackbar ("Undo")
    is placed for the table as it still is, raised under the header when it would cover the
    block or Next at the bottom; the winner then appears up there, and it is not covered.
    The socket's ended states are held here until the close has been answered."""
    config = table_config(tmp_path, "gamer", ["Mario", "Peach", "Daisy"])
    with daemon(config) as base:
        who = {name: pid for pid, name in names(base).items()}
        to_the_final_boss(base, who)
        ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                  device_scale_factor=2, reduced_motion="reduce")
        page = ctx.new_page()
        held: list[str] = []
        routes: list[WebSocketRoute] = []

        def ended(message: str | bytes) -> bool:
            data = json.loads(message)
            return data.get("type") == "state" and bool(data["state"].get("ended"))

        def route(ws: WebSocketRoute) -> None:
            server = ws.connect_to_server()
            routes.append(ws)

            def down(message: str | bytes) -> None:
                if ended(message):
                    held.append(str(message))
                else:
                    ws.send(message)
            server.on_message(down)

        page.route_web_socket(re.compile(r"/ws"), route)
        page.goto(f"{base}#token={TOKEN}")
        expect(page.locator("#link")).to_have_text("live")
        page.locator(f'#contest .score-row[data-player="{who["Mario"]}"] .points').fill("30")
        page.locator(f'#contest .score-row[data-player="{who["Mario"]}"] .cards').fill("2")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        page.locator("#contest-close").tap()
        dialog_settled(page)
        page.locator("#dialog-buttons button", has_text="Count as 0").tap()
        expect(page.locator("#toast")).to_be_visible()  # the close answered: its Undo
        assert held and routes  # the end not drawn yet
        routes[-1].send(held[-1])
        expect(page.locator("#winner-title")).to_have_text("Mario wins!")
        shot(page, "phone-winner-with-the-snack")
        end_in_view(page)
        ctx.close()
