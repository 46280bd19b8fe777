"""The final score from the deeds each player holds (Gamer, Mario Kart on a described board), on
the banker's page on a phone (390x844, touch) in headless Chromium against the real daemon: the
deeds bought on the page ticked already in each player's row, a deed's points typed once (kept
with the board for every later game), a deed ticked for one player greyed for the others, the
sum live, the score counted from the deeds (``POST /api/points {"deeds"}``); the taps counted
as :mod:`tests.page_fit` counts them: four players holding deeds whose points are typed count
the score in two taps (Count the score, then its question) and no keystroke, where typing
points and cards for each took ten taps and twelve keystrokes (measured here too, on a board
not described: those rows stay as they were)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.page_fit import PLAYERS, Taps, open_phone, pick_characters, write_config
from tests.test_banker_page import PHONE, READABILITY, banker, context, no_overflow, shot
from tests.test_board_page import table_config
from tests.test_board_ring import gamer_board
from tests.test_movie_page import Dice, ids, movie_daemon, readme_shot
from tests.test_ring_page import put
from tests.test_tablet_browser import ARTIFACTS, api, daemon, state_of

COUNT_TAPS = 2
"""Four players holding deeds with points typed: Count the score, then its question."""


@pytest.fixture
def gamer_config(tmp_path: Path) -> Path:
    return table_config(tmp_path, "gamer", ["Mario", "Peach", "Daisy"])


def board_with(**points: int) -> dict[str, Any]:
    """The small test board (Properties on spaces 1, 6, 11 and 15), the points of some deeds
    typed (``s1=10``) and a price on each Property."""
    board = gamer_board()
    for space, price in ((1, 1), (6, 2), (11, 4), (15, 5)):
        board["spaces"][space]["price"] = price
    for key, value in points.items():
        board["spaces"][int(key[1:])]["points"] = value
    return board


def row(page: Page, pid: int, where: str = "#contest") -> Locator:
    return page.locator(f'{where} .score-row[data-player="{pid}"]')


def deed(page: Page, pid: int, space: int, where: str = "#contest") -> Locator:
    return row(page, pid, where).locator(f'.deed-chip[data-space="{space}"]')


def settle(page: Page) -> None:
    page.wait_for_timeout(650)  # a dialog's buttons take taps after a moment


def go(page: Page) -> Locator:
    return page.locator("#dialog-buttons button").last


def readable(page: Page) -> None:
    no_overflow(page, PHONE["width"])
    found = page.evaluate(READABILITY)
    assert found == {"small": [], "low": [], "inputs": []}, found


def standings(base: str) -> dict[str, tuple[int, int]]:
    """Each player's card points and cards, as the final score counts them."""
    s = state_of(base)
    names = {p["id"]: p["name"] for p in s["players"]}
    return {names[r["player"]]: (r["points"], r["cards"]) for r in s["standings"]}


def roll(page: Page, dice: Dice, face: int) -> None:
    base = page.url.split("#")[0]
    dice.load(face)
    page.locator("#contest-press").tap()
    for _ in range(100):
        fight = state_of(base)["fight"]
        if fight and fight["rolls"]:
            break
        page.wait_for_timeout(50)
    assert dice.all_rolled()


def test_the_final_boss_counts_the_deeds_held_and_asks_a_deeds_points_once(
        browser: Browser, gamer_config: Path) -> None:
    dice = Dice()
    with movie_daemon(gamer_config, dice) as base:
        who = ids(base)
        mario, peach, daisy = who["Mario"], who["Peach"], who["Daisy"]
        for name, character in (("Mario", "mario"), ("Peach", "peach"), ("Daisy", "yoshi")):
            api(base, "/api/characters", {"player": who[name], "characters": [character]})
        # The board described with two deeds' points (Acorn Plains 10, Bowser's Castle 40);
        # Mario buys Acorn Plains, Peach her Castle (no points typed for it yet).
        put(base, "/api/board", board_with(s1=10, s11=40))
        api(base, "/api/deeds", {"space": 1, "player": mario, "price": 1})
        api(base, "/api/deeds", {"space": 6, "player": peach, "price": 2})
        card = {"cost": 0, "required": 6, "pay_to": "bank", "bonus": 0, "points": 10}
        deck = state_of(base)["next_card"]
        while not deck["final"]:  # every Boss but the last gets away
            api(base, "/api/boss", {"action": "open", "card": card, "correction": True})
            for pid in (mario, peach, daisy):
                api(base, "/api/boss", {"action": "pass", "player": pid})
            api(base, "/api/boss", {"action": "close"})
            deck = state_of(base)["next_card"]
        api(base, "/api/go", {"player": mario})  # the final card: at the end of his turn
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        # The final Boss: Mario beats it (50 points).
        page.locator("#contest-flip").tap()
        page.locator("#card-cost").fill("0")
        page.locator("#card-points").fill("50")
        page.locator("#card-bonus").fill("0")
        page.locator('#dialog [data-required="4"]').tap()
        settle(page)
        go(page).tap()
        page.locator("#contest-fight").tap()
        roll(page, dice, 4)
        panel = page.locator("#contest")
        expect(panel.locator(".contest-result")).to_contain_text("Mario beats Boss")
        # Each row: the player's deeds, ticked from who holds them, with their points.
        expect(deed(page, mario, 1)).to_have_attribute("aria-pressed", "true")
        expect(deed(page, mario, 1)).to_contain_text("Acorn Plains")
        expect(deed(page, mario, 1)).to_contain_text("10 points")
        expect(row(page, mario).locator(".deeds-sum")).to_have_text("1 deed · 10 points")
        expect(deed(page, peach, 6)).to_have_attribute("aria-pressed", "true")
        expect(deed(page, peach, 6)).to_contain_text("? points")
        expect(row(page, peach).locator(".deeds-sum")).to_have_text("1 deed · ? points")
        expect(row(page, daisy).locator(".deed-chip")).to_have_count(0)  # holds none
        expect(row(page, daisy)).to_contain_text("No deed ticked")
        expect(row(page, mario).locator("input")).to_have_count(0)  # nothing to type
        # Daisy's row open: every deed of the board; Mario's and Peach's greyed, with whose.
        row(page, daisy).locator(".deed-more").tap()
        chips = row(page, daisy).locator(".deed-chip")
        expect(chips).to_have_count(4)
        expect(deed(page, daisy, 1)).to_have_class(re.compile(r"\btaken\b"))
        expect(deed(page, daisy, 1).locator(".dc-who")).to_have_text("Mario")
        expect(deed(page, daisy, 11)).to_contain_text("40 points")
        expect(deed(page, daisy, 15)).to_contain_text("? points")
        # Rainbow Road for Daisy: its points asked once, typed, kept with the board.
        deed(page, daisy, 15).tap()
        expect(page.locator("#dialog-title")).to_have_text("Points on Rainbow Road's deed")
        expect(go(page)).to_have_text("How many points?")
        expect(page.locator('#dialog .drop-key[data-points="3"]')).to_be_visible()
        page.locator("#deed-points").fill("25")
        expect(go(page)).to_have_text("Keep 25 points")
        hide_snack(page)
        shot(page, "phone-final-score-deed-points")
        readable(page)
        settle(page)
        go(page).tap()
        expect(deed(page, daisy, 15)).to_have_attribute("aria-pressed", "true")
        expect(row(page, daisy).locator(".deeds-sum")).to_have_text("1 deed · 25 points")
        ring = state_of(base)["ring"]["spaces"]
        assert (ring[15]["points"], ring[15]["price"]) == (25, 5)  # the rest kept as it was
        assert (ring[1]["points"], ring[1]["price"], ring[6].get("points")) == (10, 1, None)
        # Bowser's Castle ticked for Daisy, then for Mario: unticked for her, the sums live.
        deed(page, daisy, 11).tap()
        expect(row(page, daisy).locator(".deeds-sum")).to_have_text("2 deeds · 65 points")
        row(page, mario).locator(".deed-more").tap()
        expect(deed(page, mario, 11)).to_have_class(re.compile(r"\btaken\b"))
        expect(deed(page, mario, 11).locator(".dc-who")).to_have_text("Daisy")
        deed(page, mario, 11).tap()
        expect(deed(page, mario, 11)).to_have_attribute("aria-pressed", "true")
        expect(row(page, mario).locator(".deeds-sum")).to_have_text("2 deeds · 50 points")
        expect(deed(page, daisy, 11)).to_have_class(re.compile(r"\btaken\b"))
        expect(row(page, daisy).locator(".deeds-sum")).to_have_text("1 deed · 25 points")
        hide_snack(page)
        open_rows = ARTIFACTS / "phone-final-score-deeds-open.png"
        panel.locator(".contest-points").screenshot(path=str(open_rows))
        row(page, mario).locator(".deed-more").tap()  # closed: only Mario's deeds
        row(page, daisy).locator(".deed-more").tap()
        expect(row(page, daisy).locator(".deed-chip")).to_have_count(1)
        hide_snack(page)
        panel.locator(".final-note").evaluate("e => e.scrollIntoView({block: 'start'})")
        readme_shot(page, "phone-final-score-deeds")
        readable(page)
        # Closing counts the score: Peach's Castle's points asked first (never typed), then
        # each row's deeds sent; nothing asked about blank rows (the deeds are known).
        page.locator("#contest-close").tap()
        expect(page.locator("#dialog-title")).to_have_text("Points on Peach's Castle's deed")
        page.locator('#dialog .drop-key[data-points="2"]').tap()
        expect(go(page)).to_have_text("Keep 2 points")
        settle(page)
        go(page).tap()
        expect(page.locator("#winner")).to_be_visible()
        s = state_of(base)
        assert s["ended"]
        assert s["ring"]["spaces"][6]["points"] == 2
        assert standings(base) == {"Mario": (10 + 40 + 50, 3), "Peach": (2, 1),
                                   "Daisy": (25, 1)}
        assert {p["name"]: (p["points"], p["cards"]) for p in s["players"]} == {
            "Mario": (50, 2), "Peach": (2, 1), "Daisy": (25, 1)}
        ctx.close()


def hide_snack(page: Page) -> None:
    page.locator("#toast").evaluate("t => t.hidden = true")


def four_at_the_table(base: str) -> dict[str, int]:
    pick_characters(base)
    return {p["name"]: p["id"] for p in state_of(base)["players"]}


def count_the_score(page: Page, t: Taps) -> None:
    """Count the score, then its question (cards left: ending now, as a house rule)."""
    t.tap("#end")
    expect(page.locator("#dialog")).to_be_visible()
    settle(page)
    t.tap("#dialog-buttons button.warn")
    expect(page.locator("#winner")).to_be_visible()


def test_four_players_holding_deeds_count_the_score_in_two_taps(browser: Browser,
                                                               tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        who = four_at_the_table(base)
        put(base, "/api/board", board_with(s1=10, s6=20, s11=40, s15=30))
        for space, name in ((1, "Mario"), (6, "Luigi"), (11, "Peach"), (15, "Yoshi")):
            api(base, "/api/deeds", {"space": space, "player": who[name], "correction": True})
        page = open_phone(browser, base)
        page.locator("#score-fold > summary").click()  # the rare parts: one tap away
        for space, name in ((1, "Mario"), (6, "Luigi"), (11, "Peach"), (15, "Yoshi")):
            expect(deed(page, who[name], space, "#score-rows")).to_have_attribute(
                "aria-pressed", "true")
        page.locator("#score-card").scroll_into_view_if_needed()
        shot(page, "phone-final-score-deeds-fold")
        t = Taps(page)
        count_the_score(page, t)
        assert (t.taps, t.keys) == (COUNT_TAPS, 0)
        assert standings(base) == {"Mario": (10, 1), "Luigi": (20, 1), "Peach": (40, 1),
                                   "Yoshi": (30, 1)}
        page.close()


def test_a_board_not_described_keeps_the_typed_rows(browser: Browser, tmp_path: Path) -> None:
    """The rows as they were: points and cards typed for each player (the taps and keystrokes
    the deeds save)."""
    with daemon(write_config(tmp_path, "gamer")) as base:
        four_at_the_table(base)
        page = open_phone(browser, base)
        page.locator("#score-fold > summary").click()
        expect(page.locator("#score-rows .deed-chip")).to_have_count(0)
        t = Taps(page)
        typed = {"Mario": ("10", "1"), "Luigi": ("20", "1"), "Peach": ("40", "1"),
                 "Yoshi": ("30", "1")}
        for p in state_of(base)["players"]:
            points, cards = typed[p["name"]]
            t.type(f'#score-rows .score-row[data-player="{p["id"]}"] .points', points)
            t.type(f'#score-rows .score-row[data-player="{p["id"]}"] .cards', cards)
        count_the_score(page, t)
        assert (t.taps, t.keys) == (2 * len(PLAYERS["gamer"]) + COUNT_TAPS, 12)
        assert standings(base) == {"Mario": (10, 1), "Luigi": (20, 1), "Peach": (40, 1),
                                   "Yoshi": (30, 1)}
        page.close()


def test_deeds_nobody_ticked_are_asked_about_and_a_held_deed_moves_by_a_trade(
        browser: Browser, tmp_path: Path) -> None:
    """No deed bought on the page: a row with nothing ticked is asked about (the deeds are not
    known); a deed the companion has as another's, ticked for a player, is traded (asked)."""
    with daemon(write_config(tmp_path, "gamer")) as base:
        who = four_at_the_table(base)
        put(base, "/api/board", board_with(s1=10, s6=20, s11=40, s15=30))
        page = open_phone(browser, base)
        page.locator("#score-fold > summary").click()
        page.locator("#end").click()
        expect(page.locator("#dialog-title")).to_have_text("No deed ticked for some players")
        expect(page.locator("#dialog-body")).to_contain_text(
            "No deed is ticked for Mario, Luigi, Peach, Yoshi: count 0 points and 0 cards for "
            "each?")
        settle(page)
        page.locator("#dialog-buttons button", has_text="Tick them").click()
        mario = who["Mario"]
        expect(row(page, mario, "#score-rows").locator(".deed-chip")).to_have_count(4)
        deed(page, mario, 6, "#score-rows").click()
        expect(row(page, mario, "#score-rows").locator(".deeds-sum")).to_have_text(
            "1 deed · 20 points")
        # Acorn Plains bought by Luigi (another device); ticked for Mario here: a trade, asked.
        api(base, "/api/deeds", {"space": 1, "player": who["Luigi"], "correction": True})
        expect(deed(page, mario, 1, "#score-rows").locator(".dc-who")).to_have_text("Luigi")
        deed(page, mario, 1, "#score-rows").click()
        expect(page.locator("#dialog-title")).to_have_text("Acorn Plains is Luigi's deed")
        expect(go(page)).to_have_text("Give it to Mario")
        settle(page)
        go(page).click()
        expect(row(page, mario, "#score-rows").locator(".deeds-sum")).to_have_text(
            "2 deeds · 30 points")
        assert state_of(base)["deeds"] == {"1": mario}
        # Counted now: the deeds are known, nobody is asked about; Mario's two deeds sent.
        t = Taps(page)
        count_the_score(page, t)
        assert (t.taps, t.keys) == (COUNT_TAPS, 0)
        assert standings(base) == {"Mario": (30, 2), "Luigi": (0, 0), "Peach": (0, 0),
                                   "Yoshi": (0, 0)}
        page.close()
