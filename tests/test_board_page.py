"""Coins on the board (Gamer, Mario Kart) on the banker's page, in headless Chromium against the
real daemon and its real web server: dropping coins from a tapped tile onto a space the rulebook
names or one typed as printed on the board, piles that gather whatever the casing, scooping a
pile up, undo, Jail's one space, a refused scoop, and no card at all in other editions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from companion.bench.press_latency import write_short_sounds
from tests.conftest import BROWSER_TOKEN, free_port
from tests.test_banker_page import (
    PHONE,
    READABILITY,
    banker,
    context,
    dialog_settled,
    get,
    no_overflow,
    tile,
)
from tests.test_movie_page import Dice, ids, movie_daemon, readme_shot
from tests.test_tablet_browser import api, state_of


def table_config(tmp_path: Path, edition: str, players: list[str]) -> Path:
    """A table of ``players`` in ``edition`` on a free port, with 20 ms sounds."""
    sounds = tmp_path / "sounds"
    sounds.mkdir()
    write_short_sounds(sounds)
    path = tmp_path / "companion.toml"
    names = ", ".join(f'"{n}"' for n in players)
    path.write_text(f'[audio]\nbackend = "null"\nsounds_dir = "{sounds}"\n'
                    f'[gpio]\npin_factory = "mock"\n[data]\ndir = "{tmp_path}"\n'
                    f'[web]\nhost = "127.0.0.1"\nport = {free_port()}\n'
                    f'token = "{BROWSER_TOKEN}"\n'
                    f'[game]\nedition = "{edition}"\nplayers = [{names}]\n')
    return path


@pytest.fixture
def gamer_config(tmp_path: Path) -> Path:
    return table_config(tmp_path, "gamer", ["Mario", "Peach", "Daisy"])


def pile(page: Page, space: str) -> Locator:
    return page.locator("#piles .pile", has=page.locator(".pile-space", has_text=re.compile(
        f"^{re.escape(space)}$")))


def balances(base: str) -> dict[str, int]:
    return {p["name"]: p["balance"] for p in state_of(base)["players"]}


def piles(base: str) -> list[tuple[str, int]]:
    return [(p["space"], p["coins"]) for p in state_of(base)["board"]]


def open_drop(page: Page, name: str) -> Locator:
    """Tap ``name``'s tile, then Drop coins: the sheet."""
    tile(page, name).tap()
    page.locator("#pad-drop").tap()
    dialog = page.locator("#dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#dialog-title")).to_have_text(f"{name} drops coins")
    page.wait_for_timeout(650)  # the sheet's buttons take taps after a moment
    return dialog


def space_chip(page: Page, space: str) -> Locator:
    return page.locator("#dialog .space-chips .pick-row",
                        has_text=re.compile(f"^{re.escape(space)}"))


def drop_key(page: Page, n: int) -> Locator:
    return page.locator(f'#dialog .drop-key[data-coins="{n}"]')


def go(page: Page) -> Locator:
    return page.locator("#dialog-buttons button").last


def snack_is(page: Page, text: str) -> None:
    expect(page.locator("#toast-text")).to_have_text(text)


def test_drop_on_named_and_typed_spaces_one_pile_whatever_the_casing_scoop_and_undo(
        browser: Browser, gamer_config: Path) -> None:
    with movie_daemon(gamer_config, Dice()) as base:
        rules = get(base, "/api/rules")["board"]
        assert rules["jail_space"] == "Just Visiting"
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        card = page.locator("#coins-card")
        expect(card).to_be_visible()
        expect(card.locator("h2")).to_have_text("Coins on the board")
        expect(page.locator("#piles-empty")).to_have_text("No coins on the board")
        expect(page.locator("#piles .pile")).to_have_count(0)
        start = balances(base)
        # Peach drops 3 on a space the rulebook names, from her tile.
        dialog = open_drop(page, "Peach")
        chips = dialog.locator(".space-chips .pick-name")
        expect(chips).to_have_text(rules["spaces"])  # every name from the server
        expect(dialog.locator(".drop-other")).to_have_text(
            "Or another space, as printed on the board")
        expect(page.get_by_label("Or another space, as printed on the board")).to_be_editable()
        expect(go(page)).to_have_text("Pick a space")
        expect(go(page)).to_be_disabled()
        space_chip(page, "Warp Pipe").tap()
        expect(go(page)).to_have_text("How many coins?")
        drop_key(page, 3).tap()
        expect(go(page)).to_have_text("Drop 3 on Warp Pipe")
        go(page).tap()
        expect(dialog).to_be_hidden()
        snack_is(page, "Peach drops 3 coins on Warp Pipe")
        expect(pile(page, "Warp Pipe").locator(".pile-coin")).to_have_text("3")
        expect(page.locator("#piles-empty")).to_be_hidden()
        expect(tile(page, "Peach").locator(".coins")).to_have_text(str(start["Peach"] - 3))
        # Daisy drops 2 on a property, typed as printed on the board.
        open_drop(page, "Daisy")
        page.locator("#drop-other").fill("Bowser's Castle")
        drop_key(page, 2).tap()
        expect(go(page)).to_have_text("Drop 2 on Bowser's Castle")
        go(page).tap()
        snack_is(page, "Daisy drops 2 coins on Bowser's Castle")
        expect(pile(page, "Bowser's Castle").locator(".pile-count")).to_have_text("2 coins")
        # Mario types "warp pipe": the same space, one pile of 4.
        dialog = open_drop(page, "Mario")
        expect(space_chip(page, "Bowser's Castle")).to_be_visible()  # the piles are offered too
        page.locator("#drop-other").fill("warp pipe")
        page.locator("#drop-coins").fill("1")
        expect(go(page)).to_have_text("Drop 1 on warp pipe")
        go(page).tap()
        expect(pile(page, "Warp Pipe").locator(".pile-coin")).to_have_text("4")
        expect(page.locator("#piles .pile")).to_have_count(2)
        assert piles(base) == [("Warp Pipe", 4), ("Bowser's Castle", 2)]
        page.locator("#toast").evaluate("t => t.hidden = true")
        card.evaluate("c => c.scrollIntoView({block: 'end'})")
        readme_shot(page, "phone-board")
        no_overflow(page, PHONE["width"])
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        # Scoop: the current player (Mario) by default; Daisy picked instead.
        pile(page, "Warp Pipe").get_by_role("button", name=re.compile("Scoop")).tap()
        expect(page.locator("#dialog-title")).to_have_text("Scoop Warp Pipe")
        expect(go(page)).to_have_text("Mario scoops 4")
        expect(page.locator('#dialog input[name="scooper"]:checked')).to_have_value(
            str(ids(base)["Mario"]))
        page.wait_for_timeout(650)
        page.locator("#dialog .pick-row", has_text="Daisy").tap()
        expect(go(page)).to_have_text("Daisy scoops 4")
        # Not Daisy's turn: marked, and asked about (the banker records it as a correction).
        expect(go(page)).to_have_class(re.compile(r"\bnot-now\b"))
        go(page).tap()
        expect(page.locator("#dialog")).to_have_attribute("data-name", "correction")
        dialog_settled(page)
        page.locator("#dialog-buttons button", has_text="Record it as a correction").tap()
        snack_is(page, "Correction: Daisy scoops up 4 coins from Warp Pipe")
        expect(pile(page, "Warp Pipe")).to_have_count(0)
        expect(tile(page, "Daisy").locator(".coins")).to_have_text(str(start["Daisy"] - 2 + 4))
        assert piles(base) == [("Bowser's Castle", 2)]
        # Undo from the snackbar: the pile is back, and Daisy's coins.
        page.wait_for_timeout(650)
        page.locator("#toast-action").tap()
        expect(page.locator("#toast-text")).to_contain_text("Undone")
        expect(pile(page, "Warp Pipe").locator(".pile-coin")).to_have_text("4")
        expect(tile(page, "Daisy").locator(".coins")).to_have_text(str(start["Daisy"] - 2))
        assert dict(piles(base)) == {"Warp Pipe": 4, "Bowser's Castle": 2}
        assert balances(base)["Daisy"] == start["Daisy"] - 2
        ctx.close()


def test_jail_offers_only_its_space_less_than_asked_and_a_refused_scoop(
        browser: Browser, gamer_config: Path) -> None:
    with movie_daemon(gamer_config, Dice()) as base:
        who = ids(base)
        api(base, "/api/jail", {"player": who["Daisy"], "in_jail": True, "correction": True})
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        has = balances(base)["Daisy"]
        dialog = open_drop(page, "Daisy")
        expect(dialog.locator(".space-chips .pick-name")).to_have_text(["Just Visiting"])
        expect(dialog.locator("#drop-other")).to_have_count(0)
        expect(dialog).to_contain_text("Daisy is in Jail: coins go on Just Visiting.")
        expect(space_chip(page, "Just Visiting").locator("input")).to_be_checked()
        page.locator("#drop-coins").fill(str(has + 2))
        expect(go(page)).to_have_text(f"Drop {has + 2} on Just Visiting")
        go(page).tap()
        snack_is(page, f"Daisy had only {has} of {has + 2} coins: dropped {has}")
        expect(tile(page, "Daisy").locator(".coins")).to_have_text("0")
        expect(pile(page, "Just Visiting").locator(".pile-coin")).to_have_text(str(has))
        # A scoop that finds the pile gone (scooped meanwhile from elsewhere) is refused.
        pile(page, "Just Visiting").get_by_role("button", name=re.compile("Scoop")).tap()
        expect(page.locator("#dialog-title")).to_have_text("Scoop Just Visiting")
        api(base, "/api/scoops", {"player": who["Peach"], "space": "Just Visiting",
                                  "correction": True})
        expect(pile(page, "Just Visiting")).to_have_count(0)
        page.wait_for_timeout(650)
        go(page).tap()
        expect(page.locator("#error-text")).to_have_text("There are no coins on Just Visiting")
        expect(page.locator("#piles-empty")).to_be_visible()
        ctx.close()


def test_the_drop_sheet_on_a_phone(browser: Browser, gamer_config: Path) -> None:
    with movie_daemon(gamer_config, Dice()) as base:
        api(base, "/api/drops", {"player": ids(base)["Mario"], "space": "Coin Block", "coins": 2})
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        expect(pile(page, "Coin Block")).to_be_visible()
        open_drop(page, "Peach")
        expect(space_chip(page, "Coin Block").locator(".pick-note")).to_have_text("2")
        space_chip(page, "Coin Block").tap()
        drop_key(page, 2).tap()
        expect(go(page)).to_have_text("Drop 2 on Coin Block")
        readme_shot(page, "phone-board-drop")
        no_overflow(page, PHONE["width"])
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        ctx.close()


def test_no_coins_on_the_board_in_a_celebration_game(browser: Browser, tmp_path: Path) -> None:
    config = table_config(tmp_path, "celebration", ["Mario", "Luigi", "Peach"])
    with movie_daemon(config, Dice()) as base:
        assert get(base, "/api/rules")["board"] is None
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        expect(page.locator("#edition")).to_contain_text("Celebration")
        tile(page, "Luigi").tap()
        expect(page.locator("#pad-current")).to_be_visible()
        expect(page.locator("#pad-drop")).to_be_hidden()
        expect(page.locator("#coins-card")).to_be_hidden()
        ctx.close()
