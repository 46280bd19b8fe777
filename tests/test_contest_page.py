"""Monopoly Gamer and Mario Kart on the banker's page, in headless Chromium against the real
daemon and its real web server, on a phone: characters picked, a Power-up ability (a boosted
Red Shell dropping on a chosen space), a Boss fight from its card typed to its win, a Race from
its entries to its prizes, the final Race's rematch, and the final score's podium. The dice are
scripted (the daemon's ``rng``), so every press is known in advance."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.test_banker_page import (
    PHONE,
    READABILITY,
    TABLET,
    banker,
    context,
    no_overflow,
    shot,
    tile,
)
from tests.test_board_page import pile, table_config
from tests.test_movie_page import Dice, ids, movie_daemon, readme_shot
from tests.test_tablet_browser import api, state_of


@pytest.fixture
def gamer_config(tmp_path: Path) -> Path:
    return table_config(tmp_path, "gamer", ["Mario", "Peach", "Daisy"])


@pytest.fixture
def kart_config(tmp_path: Path) -> Path:
    return table_config(tmp_path, "mario_kart", ["Mario", "Luigi", "Peach"])


def go(page: Page) -> Locator:
    return page.locator("#dialog-buttons button").last


def settle(page: Page) -> None:
    page.wait_for_timeout(650)  # a dialog's buttons take taps after a moment


def readable(page: Page) -> None:
    no_overflow(page, page.viewport_size["width"] if page.viewport_size else PHONE["width"])
    found = page.evaluate(READABILITY)
    assert found == {"small": [], "low": [], "inputs": []}, found


def chip(page: Page, who: str, character: str) -> Locator:
    return page.locator("#char-rows .char-row", has=page.locator(".char-who", has_text=re.compile(
        f"^{who}$"))).locator(f'.char-chip[data-character="{character}"]')


def hide_snack(page: Page) -> None:
    page.locator("#toast").evaluate("t => t.hidden = true")


def contest(page: Page) -> Locator:
    return page.locator("#contest")


def rolls(base: str) -> int:
    s = state_of(base)
    contest = s["fight"] or s["race"] or {"rolls": []}
    return len(contest["rolls"])


def roll(page: Page, dice: Dice, face: int) -> None:
    """The panel's "Press the block for …" button (the page's press), with ``face`` loaded."""
    base = page.url.split("#")[0]
    before = rolls(base)
    dice.load(face)
    page.locator("#contest-press").tap()
    for _ in range(100):
        if rolls(base) > before:
            break
        page.wait_for_timeout(50)
    assert dice.all_rolled()


def test_gamer_characters_a_boosted_red_shell_and_a_boss_fight(
        browser: Browser, gamer_config: Path) -> None:
    dice = Dice()
    with movie_daemon(gamer_config, dice) as base:
        who = ids(base)
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        # Characters: a card until everyone has one; a token taken is off for the others.
        card = page.locator("#characters")
        expect(card).to_be_visible()
        expect(page.locator("#chars-title")).to_have_text("Characters: who plays which token?")
        chip(page, "Mario", "mario").tap()
        expect(page.locator("#toast-text")).to_have_text("Mario plays Mario")
        chip(page, "Peach", "peach").tap()
        expect(page.locator("#toast-text")).to_have_text("Peach plays Princess Peach")
        expect(chip(page, "Daisy", "peach")).to_be_disabled()
        expect(chip(page, "Daisy", "peach")).to_contain_text("Peach")
        expect(chip(page, "Daisy", "mario")).to_be_disabled()
        expect(chip(page, "Daisy", "yoshi")).to_be_enabled()
        expect(chip(page, "Peach", "peach")).to_have_attribute("aria-pressed", "true")
        hide_snack(page)
        card.scroll_into_view_if_needed()
        readme_shot(page, "phone-gamer-characters")
        readable(page)
        chip(page, "Daisy", "yoshi").tap()
        expect(card).to_be_hidden()
        expect(tile(page, "Peach").locator(".chars")).to_have_text("Princess Peach")
        expect(tile(page, "Daisy").locator(".chars")).to_have_text("Yoshi")
        assert [p["characters"] for p in state_of(base)["players"]] == [
            ["mario"], ["peach"], ["yoshi"]]
        # A Red Shell from Peach's tile, on her turn: her boost (4, not 3), Daisy hit, on
        # Warp Pipe.
        api(base, "/api/current", {"player": who["Peach"]})
        expect(page.locator(".tile.current")).to_contain_text("Peach")
        tile(page, "Peach").tap()
        expect(page.locator("#pad-chars")).to_have_text("Character: Princess Peach")
        page.locator("#pad-power").tap()
        expect(page.locator("#dialog-title")).to_have_text("Peach: Power-up")
        face = page.locator('#dialog .power-face[data-ability="red_shell"]')
        expect(face).to_contain_text("Princess Peach boost")
        expect(face.locator(".pf-text")).to_have_text(
            "Choose a player: they drop 4 coins on their space")
        expect(page.locator('#dialog .power-face[data-ability="blooper"] .chip')).to_have_count(0)
        expect(page.locator('#dialog .power-face[data-ability="super_star"]')).to_contain_text(
            "Collect rent from the Bank for each Property she owns")
        settle(page)
        face.tap()
        expect(page.locator("#dialog-title")).to_have_text("Red Shell: Princess Peach's boost")
        expect(go(page)).to_have_text("Pick a player")
        settle(page)
        page.locator("#dialog .pick-row", has_text="Daisy").tap()
        expect(go(page)).to_have_text("Where is Daisy?")
        select = page.locator(f"#where-{who['Daisy']}")
        options = select.locator("option").all_inner_texts()
        assert options == ["Pick a space…", *state_of_rules(base)["spaces"], "Another space…"]
        select.select_option("Warp Pipe")
        expect(go(page)).to_have_text("Use Red Shell")
        readme_shot(page, "phone-gamer-ability")
        readable(page)
        go(page).tap()
        expect(page.locator("#toast-text")).to_have_text(
            re.compile(r"^Peach: Red Shell \(boost\).*Daisy.*4.*Warp Pipe"))
        expect(page.locator("#toast-action")).to_have_text("Undo")
        expect(pile(page, "Warp Pipe").locator(".pile-coin")).to_have_text("4")
        expect(tile(page, "Daisy").locator(".coins")).to_have_text("6")
        # A typed Super Star: Mario's, on his turn, the roll typed (2 + 5 coins).
        api(base, "/api/current", {"player": who["Mario"]})
        expect(page.locator(".tile.current")).to_contain_text("Mario")
        tile(page, "Mario").tap()
        page.locator("#pad-power").tap()
        settle(page)
        page.locator('#dialog .power-face[data-ability="super_star"]').tap()
        expect(go(page)).to_have_text("Tap the roll")
        settle(page)
        page.locator('#dialog .drop-key[data-coins="2"]').tap()
        go(page).tap()
        expect(tile(page, "Mario").locator(".coins")).to_have_text("17")
        hide_snack(page)
        # The Boss: Mario passes GO (+2), so the top card is flipped at the end of his turn;
        # the flip button names the card; its numbers typed.
        api(base, "/api/go", {"player": who["Mario"]})
        expect(tile(page, "Mario").locator(".coins")).to_have_text("19")
        flip = page.locator("#contest-flip")
        expect(flip).to_contain_text("Flip Boss 3")
        flip.tap()
        expect(page.locator("#dialog-title")).to_have_text("Flip Boss 3")
        expect(go(page)).to_have_text("Type the card's numbers")
        page.locator("#card-cost").fill("1")
        page.locator("#card-points").fill("30")
        page.locator("#card-bonus").fill("3")
        page.locator('#dialog [data-required="5"]').tap()
        expect(page.locator('#dialog input[name="pay_to"][value="bank"]')).to_be_checked()
        expect(page.locator("#card-flipper")).to_have_value(str(who["Mario"]))
        expect(go(page)).to_have_text("Flip Boss 3")
        readme_shot(page, "phone-gamer-boss-card")
        readable(page)
        go(page).tap()
        panel = contest(page)
        expect(panel).to_have_class(re.compile(r"\bboss\b"))
        expect(panel.locator(".contest-title")).to_have_text("Boss 3")
        expect(panel.locator(".contest-chips")).to_contain_text("needs 5+ (1/3)")
        expect(panel.locator(".contest-say")).to_have_text("Mario: fight or pass?")
        # Mario fights (pays 1) and loses; Peach passes; Daisy fights and wins.
        page.locator("#contest-fight").tap()
        expect(panel.locator(".contest-say")).to_have_text("Mario paid 1: 5 or more wins")
        expect(page.locator("#contest-press")).to_have_text("?Press the block for Mario")
        expect(tile(page, "Mario").locator(".coins")).to_have_text("18")
        hide_snack(page)
        readme_shot(page, "phone-gamer-boss-fight")
        readable(page)
        # The same fight on a tablet: nothing overflows, the press button beside the tiles.
        tablet = context(browser, TABLET, touch=False)
        wide = banker(tablet, base)
        expect(wide.locator("#contest-press")).to_be_visible()
        shot(wide, "tablet-gamer-boss-fight")
        readable(wide)
        tablet.close()
        roll(page, dice, 2)
        expect(page.locator("#outcome .dice-row")).to_have_attribute("aria-label", "Mario 2")
        expect(panel.locator(".co-row", has_text="Mario")).to_contain_text("rolled 2")
        expect(panel.locator(".contest-say")).to_have_text("Peach: fight or pass?")
        page.wait_for_timeout(650)
        page.locator("#contest-pass").tap()
        expect(panel.locator(".contest-say")).to_have_text("Daisy: fight or pass?")
        expect(panel.locator(".co-row", has_text="Peach")).to_contain_text("passed")
        page.wait_for_timeout(650)
        page.locator("#contest-fight").tap()
        expect(page.locator("#contest-press")).to_contain_text("Press the block for Daisy")
        roll(page, dice, 6)
        expect(panel.locator(".contest-result")).to_contain_text("Daisy beats Boss 3!")
        expect(panel.locator(".contest-result")).to_contain_text("+3 bonus")
        expect(tile(page, "Daisy").locator(".coins")).to_have_text("8")  # 6 - 1 + 3
        expect(tile(page, "Daisy").locator(".extra")).to_have_text("Boss 3")
        hide_snack(page)
        readme_shot(page, "phone-gamer-boss-won")
        readable(page)
        page.locator("#contest-close").tap()
        expect(page.locator("#contest-flip")).to_contain_text("Flip Boss 4")
        assert state_of(base)["fight"] is None
        ctx.close()


def state_of_rules(base: str) -> dict:
    from tests.test_banker_page import get

    return get(base, "/api/rules")["board"]


def test_gamer_final_boss_property_points_and_the_podium(
        browser: Browser, gamer_config: Path) -> None:
    dice = Dice()
    with movie_daemon(gamer_config, dice) as base:
        who = ids(base)
        for name, character in (("Mario", "mario"), ("Peach", "peach"), ("Daisy", "yoshi")):
            api(base, "/api/characters", {"player": who[name], "characters": [character]})
        card = {"cost": 0, "required": 6, "pay_to": "bank", "bonus": 0, "points": 10}
        deck = state_of(base)["next_card"]
        while not deck["final"]:  # every Boss but the last gets away
            api(base, "/api/boss", {"action": "open", "card": card, "correction": True})
            for name in ("Mario", "Peach", "Daisy"):
                api(base, "/api/boss", {"action": "pass", "player": who[name]})
            api(base, "/api/boss", {"action": "close"})
            deck = state_of(base)["next_card"]
        api(base, "/api/go", {"player": who["Mario"]})  # the final card: at the end of his turn
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        flip = page.locator("#contest-flip")
        expect(flip).to_contain_text(f"Flip Boss {deck['number']}")
        expect(flip).to_contain_text("the final Boss fight")
        flip.tap()
        expect(page.locator("#dialog-title")).to_have_text(f"Final Boss: Boss {deck['number']}")
        page.locator("#card-cost").fill("2")
        page.locator("#card-points").fill("50")
        page.locator("#card-bonus").fill("0")
        page.locator('#dialog [data-required="4"]').tap()
        settle(page)
        go(page).tap()
        panel = contest(page)
        expect(panel.locator(".contest-title")).to_contain_text("final Boss")
        page.locator("#contest-fight").tap()
        roll(page, dice, 4)
        expect(panel.locator(".contest-result")).to_contain_text(
            f"Mario beats Boss {deck['number']}!")
        expect(panel.locator(".final-note")).to_have_text(
            "Final Boss: closing shows the final score; type Property points first")
        row = panel.locator(f'.score-row[data-player="{who["Peach"]}"]')
        expect(row).to_contain_text("Property points")
        row.locator(".points").fill("40")
        row.locator(".cards").fill("3")
        # The final Boss closes with the score: every typed row is saved first, and the rows
        # left blank are asked about (counted as 0 here).
        page.locator("#contest-close").tap()
        expect(page.locator("#dialog-body")).to_contain_text(
            "Nothing is typed for Mario, Daisy: count 0 points and 0 cards for each?")
        page.locator("#dialog-buttons button", has_text="Count as 0").tap()
        winner = page.locator("#winner")
        expect(winner).to_be_visible()
        assert state_of(base)["ended"]
        assert next(p for p in state_of(base)["players"] if p["name"] == "Peach")["points"] == 40
        podium = page.locator("#podium .step")
        expect(podium).to_have_count(3)
        standings = state_of(base)["standings"]
        first = next(p["name"] for p in state_of(base)["players"]
                     if p["id"] == standings[0]["player"])
        expect(page.locator("#podium .step-1 .step-who")).to_have_text(first)
        expect(page.locator("#podium .step-1 .step-total")).to_have_text(
            f"{standings[0]['total']} points")
        expect(page.locator("#standings li")).to_have_count(3)
        hide_snack(page)
        page.locator("#winner").scroll_into_view_if_needed()
        readme_shot(page, "phone-gamer-final-score")
        readable(page)
        ctx.close()


def test_closing_the_final_boss_ends_the_game(gamer_config: Path) -> None:
    with movie_daemon(gamer_config, Dice()) as base:
        who = ids(base)
        card = {"cost": 0, "required": 6, "pay_to": "bank", "bonus": 0, "points": 10}
        while state_of(base)["next_card"] is not None:  # none once the game has ended
            api(base, "/api/boss", {"action": "open", "card": card, "correction": True})
            for name in ("Mario", "Peach", "Daisy"):
                api(base, "/api/boss", {"action": "pass", "player": who[name]})
            api(base, "/api/boss", {"action": "close"})
        assert state_of(base)["ended"]


def test_kart_race_entries_rolls_a_tie_prizes_and_the_rematch(
        browser: Browser, kart_config: Path) -> None:
    dice = Dice()
    with movie_daemon(kart_config, dice) as base:
        who = ids(base)
        for name, character in (("Mario", "mario"), ("Luigi", "luigi"), ("Peach", "peach")):
            api(base, "/api/characters", {"player": who[name], "characters": [character]})
        api(base, "/api/jail", {"player": who["Peach"], "in_jail": True, "correction": True})
        api(base, "/api/go", {"player": who["Mario"]})  # 12: the card at the end of his turn
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        expect(page.locator("#characters")).to_be_hidden()
        flip = page.locator("#contest-flip")
        expect(flip).to_contain_text("Flip Grand Prix 1")
        flip.tap()
        expect(page.locator("#dialog-title")).to_have_text("Flip Grand Prix 1")
        page.locator("#card-fee").fill("1")
        page.locator("#card-prize-1").fill("5")
        page.locator("#card-prize-2").fill("3")
        page.locator("#card-prize-3").fill("1")
        page.locator("#card-points").fill("20")
        expect(go(page)).to_have_text("Flip Grand Prix 1")
        settle(page)
        go(page).tap()
        panel = contest(page)
        expect(panel).to_have_class(re.compile(r"\brace\b"))
        expect(panel.locator(".contest-chips")).to_contain_text("1st 5 · 2nd 3 · 3rd 1")
        expect(panel.locator(".contest-say")).to_have_text(
            "Who races? Tick each player who pays 1 to enter")
        peach = panel.locator(".pick-row", has_text="Peach")
        expect(peach.locator("input")).to_be_disabled()
        expect(peach).to_contain_text("in Jail")
        start = page.locator("#contest-start")
        expect(start).to_have_text("Nobody races: discard the card")
        panel.locator(".pick-row", has_text="Mario").tap()
        panel.locator(".pick-row", has_text="Luigi").tap()
        expect(start).to_have_text("Start: Mario, Luigi race")
        expect(panel.locator(".pick-row", has_text="Mario")).to_contain_text("12 → 11")
        hide_snack(page)
        readme_shot(page, "phone-kart-race-entries")
        readable(page)
        start.tap()
        expect(panel.locator(".contest-say")).to_have_text("Mario rolls next")
        expect(page.locator("#contest-press")).to_contain_text("Press the block for Mario")
        race = state_of(base)["race"]
        assert race["entrants"] == [who["Mario"], who["Luigi"]] and race["started"]
        expect(tile(page, "Mario").locator(".coins")).to_have_text("11")
        # 4 and 4: a tie for 1st, rolled again; then 5 and 3.
        roll(page, dice, 4)
        expect(panel.locator(".race-round")).to_contain_text("Mario 4")
        roll(page, dice, 4)
        expect(panel.locator(".tie-line")).to_have_text("Tie for 1st: Mario and Luigi roll again")
        roll(page, dice, 5)
        expect(panel.locator(".race-round")).to_have_text("Mario 5")
        expect(page.locator("#contest-press")).to_contain_text("Press the block for Luigi")
        expect(page.locator("#outcome .dice-row")).to_have_attribute("aria-label", "Mario 5")
        hide_snack(page)
        readme_shot(page, "phone-kart-race-rolling")
        readable(page)
        roll(page, dice, 3)
        places = panel.locator(".race-places li")
        expect(places).to_have_count(2)
        expect(places.nth(0)).to_contain_text("1st")
        expect(places.nth(0)).to_contain_text("Mario")
        expect(places.nth(0)).to_contain_text("+5")
        expect(places.nth(1)).to_contain_text("Luigi")
        expect(places.nth(1)).to_contain_text("+3")
        expect(panel.locator(".contest-result")).to_contain_text("Mario wins Grand Prix 1!")
        expect(tile(page, "Mario").locator(".coins")).to_have_text("16")
        expect(tile(page, "Luigi").locator(".coins")).to_have_text("12")
        expect(tile(page, "Mario").locator(".extra")).to_have_text("Grand Prix 1")
        hide_snack(page)
        readme_shot(page, "phone-kart-race-over")
        readable(page)
        page.locator("#contest-close").tap()
        expect(page.locator("#contest-flip")).to_contain_text("Flip Grand Prix 2")
        # To the final Race (by the API), won by Luigi alone: its prize is a rematch.
        card = {"fee": 0, "prizes": [2], "points": 10}
        while True:
            api(base, "/api/race", {"action": "open", "card": card, "correction": True})
            api(base, "/api/race", {"action": "enter", "player": who["Luigi"]})
            api(base, "/api/race", {"action": "start"})
            if state_of(base)["race"]["final"]:
                break
            api(base, "/api/race", {"action": "close"})
        expect(page.locator("#contest-rematch")).to_be_visible()
        expect(panel.locator(".final-note")).to_contain_text("a rematch")
        options = page.locator("#rematch-card option").all_inner_texts()
        assert options[0] == "Grand Prix 1 (Mario's)"
        expect(page.locator("#contest-close")).to_have_text("No rematch: final score")
        readable(page)
        page.locator("#contest-rematch").tap()
        expect(panel.locator(".contest-title")).to_contain_text("Grand Prix 1 (rematch)")
        expect(page.locator("#contest-start")).to_be_visible()
        assert state_of(base)["race"]["rematch"] is True
        ctx.close()


def test_next_after_passing_go_asks_to_flip_the_boss_first(browser: Browser,
                                                          gamer_config: Path) -> None:
    """The rulebook: "At the end of your turn, if you landed on or passed GO, flip over the top
    Boss card". Pass GO makes the card due; Next asks first and can open the flip (three
    players: the deck starts at Boss 3)."""
    with movie_daemon(gamer_config, Dice()) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        flip = page.locator("#contest-flip")
        expect(flip).to_contain_text("when someone lands on or passes GO")
        expect(flip).not_to_have_class(re.compile(r"\bdue\b"))
        page.locator("#go").tap()
        expect(flip).to_contain_text("Mario passed GO: a Boss fight at the end of the turn")
        expect(flip).to_have_class(re.compile(r"\bdue\b"))
        page.locator("#next").tap()
        expect(page.locator("#dialog-title")).to_have_text("Flip Boss 3?")
        settle(page)
        go(page).tap()
        expect(page.locator("#dialog-title")).to_have_text("Flip Boss 3")
        assert state_of(base)["current_player"] == ids(base)["Mario"]  # the turn waits
        page.locator("#dialog-buttons button").first.tap()  # cancel the flip
        page.locator("#next").tap()
        expect(page.locator("#dialog-title")).to_have_text("Flip Boss 3?")
        settle(page)
        page.locator("#dialog-buttons button").first.tap()  # Next player, no fight
        expect(tile(page, "Peach")).to_contain_text("current")
        expect(flip).not_to_have_class(re.compile(r"\bdue\b"))
        readable(page)
        ctx.close()
