"""The board the table describes once (Gamer, Mario Kart) on the banker's page, on a phone
(390x844, touch) in headless Chromium against the real daemon: the board described through the
page (a refusal in words, nothing lost), then Gamer turns with the tokens moved by a tap, the
landing's offer (a Coin Block's roll, a Super Star), a POW that asks nobody where they stand,
a Green Shell that picks the next player ahead, a drop in two taps where the token stands, a
space's sheet, Jail; the taps counted as :mod:`tests.page_fit` counts them (issue 31: a turn in
at most five taps and no keystrokes)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.conftest import BROWSER_TOKEN
from tests.page_fit import (
    ALL_DROP,
    Taps,
    call,
    describe_board,
    gamer_turn,
    on_first_screen,
    open_phone,
    pick_characters,
    write_config,
)
from tests.test_banker_page import PHONE, READABILITY, banker, context, no_overflow
from tests.test_board_ring import gamer_board
from tests.test_movie_page import readme_shot
from tests.test_tablet_browser import daemon, state_of

TURN_TAPS = 5
"""Issue 31: a Gamer turn (a move, one ability, Next) in at most five taps."""


def put(base: str, path: str, body: object) -> Any:
    request = urllib.request.Request(base + path.lstrip("/"), data=json.dumps(body).encode(),
                                     method="PUT", headers={
                                         "Authorization": f"Bearer {BROWSER_TOKEN}",
                                         "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def players(base: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in state_of(base)["players"]}


def piles(base: str) -> dict[str, int]:
    return {p["space"]: p["coins"] for p in state_of(base)["board"] if p["coins"]}


def described_table(base: str) -> dict[str, int]:
    """Characters picked (as the setup leaves the table) and the small test board described;
    the players' ids."""
    pick_characters(base)
    put(base, "/api/board", gamer_board())
    return {name: p["id"] for name, p in players(base).items()}


def die_key(page: Page, steps: int) -> Locator:
    return page.locator(f'#move-bar .move-key.die-key[data-steps="{steps}"]')


def cell(page: Page, space: int) -> Locator:
    return page.locator(f'#ring-box .ring-cell[data-space="{space}"]')


def tile_of(page: Page, name: str) -> Locator:
    """A player's tile by their name alone (a tile also names the character played)."""
    return page.locator("#players .tile", has=page.locator(".who", has_text=re.compile(
        f"^{re.escape(name)}$"))).locator(".pick")


def stands(page: Page, name: str, where: str) -> None:
    """The ring's middle says where ``name``'s token stands (the page has the new state)."""
    expect(page.locator(".ring-who", has_text=name).locator(".rw-where")).to_have_text(where)


def test_the_board_is_described_through_the_page_a_refusal_loses_nothing(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        pick_characters(base)
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        card = page.locator("#ring-card")
        expect(card.locator("#ring-describe")).to_contain_text(
            "Describe your board once (how many spaces, what is printed where): then tokens "
            "move by a tap")
        expect(page.locator("#move-bar")).to_be_hidden()  # nothing to move on yet
        page.locator("#menu-open").click()
        page.locator("#menu-ring").click()
        editor = page.locator("#ring-edit")
        expect(editor).to_be_visible()
        expect(page.locator("#ring-count")).to_have_value("")
        page.locator("#ring-count").fill("8")
        cells = page.locator("#ring-edit-ring .ring-cell")
        expect(cells).to_have_count(8)
        expect(page.locator(".ring-space-title")).to_have_text("Space 0 of 8")
        expect(page.locator('.kind-chip[data-kind="go"]')).to_have_attribute("aria-pressed", "true")
        # Space 1: a Property, its name and its deed's points; then on with Next.
        page.locator(".ring-next").click()
        page.locator('.kind-chip[data-kind="property"]').click()
        page.locator("#ring-name").fill("Acorn Plains")
        page.locator("#ring-points").fill("1")
        expect(cells.nth(1)).to_have_attribute("aria-pressed", "true")
        page.locator("#ring-edit-ring").evaluate("e => e.scrollIntoView({block: 'start'})")
        readme_shot(page, "phone-ring-describe")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        for space, kind in ((2, "just_visiting"), (3, "coin_block"), (4, "super_star"),
                            (5, "just_visiting")):
            page.locator(f'#ring-edit-ring .ring-cell[data-space="{space}"]').click()
            page.locator(f'.kind-chip[data-kind="{kind}"]').click()
        # Two Just Visiting spaces: refused in the server's words, the editor as it was.
        page.locator("#ring-edit-save").click()
        expect(page.locator("#ring-edit-error")).to_have_text(
            "Spaces: the board has one Just Visiting")
        expect(editor).to_be_visible()
        assert state_of(base)["ring"] is None
        expect(page.locator(".ring-space-title")).to_have_text("Space 5 of 8")
        page.locator('.kind-chip[data-kind=""]').click()  # No rule
        page.locator("#ring-name").fill("Lakitu")
        page.wait_for_timeout(650)  # the save button takes taps again after its hold
        page.locator("#ring-edit-save").click()
        expect(editor).to_be_hidden()
        expect(page.locator("#toast-text")).to_have_text(
            "The board is described: 8 spaces. Tokens move by a tap.")
        ring = state_of(base)["ring"]
        assert ring["labels"] == ["GO", "Acorn Plains", "Just Visiting", "Coin Block",
                                  "Super Star", "Lakitu", "space 6", "space 7"]
        assert ring["spaces"][1] == {"kind": "property", "name": "Acorn Plains", "points": 1}
        assert ring["faces"] == []
        # The ring is drawn, every token on GO; the move row is there.
        expect(page.locator("#ring-box .ring-cell")).to_have_count(8)
        expect(cell(page, 0).locator(".rc-dot")).to_have_count(4)
        expect(die_key(page, 1)).to_be_visible()
        # Editing starts from the description.
        page.locator("#ring-edit-open").click()
        expect(page.locator("#ring-count")).to_have_value("8")
        page.locator('#ring-edit-ring .ring-cell[data-space="1"]').click()
        expect(page.locator("#ring-name")).to_have_value("Acorn Plains")
        expect(page.locator("#ring-points")).to_have_value("1")
        page.locator("#ring-edit-close").click()
        expect(editor).to_be_hidden()
        ctx.close()


def test_gamer_turns_by_taps_move_coin_block_pow_green_shell_drop_super_star(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        ids = described_table(base)
        # Coins on the way (Luigi and Peach dropped them), Yoshi's token on Lakitu.
        call(base, "/api/drops", {"player": ids["Luigi"], "space": "Acorn Plains", "coins": 2})
        call(base, "/api/drops", {"player": ids["Peach"], "space": "space 2", "coins": 1})
        call(base, "/api/tokens", {"player": ids["Yoshi"], "how": "place", "to": 14,
                                   "correction": True})
        assert state_of(base)["current_player"] == ids["Mario"]
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        stands(page, "Yoshi", "Lakitu")
        # The first screen: the table, the die's keys, the block.
        for part in ("#outcome", "#players", "#move-bar .move-keys", "#press", "#next"):
            assert on_first_screen(page, part), part
        expect(page.locator("#move-bar .move-say")).to_contain_text("Mario on GO")
        # -- Mario: a roll of 3, one tap; he scoops Acorn Plains and space 2 on his way.
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="3"]')
        assert turn.taps == 1
        stands(page, "Mario", "Coin Block 3")
        now = players(base)
        assert now["Mario"]["position"] == 3 and now["Mario"]["balance"] == 13
        assert piles(base) == {}
        expect(page.locator("#toast-text")).to_have_text(
            "Mario moves 3 spaces to Coin Block 3: scoops 2 from Acorn Plains, scoops 1 from "
            "space 2")
        # The Coin Block offers its roll in the die's place: 4, one tap.
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            "Coin Block: tap the roll (or press the block)")
        turn.tap('#move-bar .move-key.coin[data-steps="4"]')
        expect(page.locator("#toast-text")).to_have_text(
            "Mario collects 4 from the Bank: Coin Block")
        expect(die_key(page, 1)).to_be_visible()  # the offer is done with: the die again
        assert players(base)["Mario"]["balance"] == 17
        # POW, from the move row: nobody is asked where they stand.
        turn.tap("#move-bar .move-power")
        turn.tap('#dialog .power-face[data-ability="pow"]')
        expect(page.locator("#toast-text")).to_contain_text("POW")
        expect(page.locator("#dialog")).to_be_hidden()
        assert page.locator("select.where-space").count() == 0
        assert piles(base) == {"GO": 2, "Lakitu": 1}
        turn.tap("#next")
        expect(page.locator("#move-bar .move-say")).to_contain_text("Luigi on GO")
        assert {"taps": turn.taps, "keystrokes": turn.keys} == {"taps": 5, "keystrokes": 0}
        assert turn.taps <= TURN_TAPS
        # -- Luigi: 4 lands on a Warp Pipe and warps on to the next one (10).
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="4"]')
        stands(page, "Luigi", "Warp Pipe 10")
        # A Green Shell: the next player ahead of Luigi (Yoshi, 4 spaces on) is picked.
        turn.tap("#move-bar .move-power")
        turn.tap('#dialog .power-face[data-ability="green_shell"]')
        yoshi = page.locator("#dialog .pick-row", has_text="Yoshi")
        expect(yoshi.locator("input")).to_be_checked()
        expect(yoshi.locator(".pick-note")).to_have_text("next ahead")
        expect(page.locator("#dialog .where-row")).to_have_text(re.compile("Yoshi\\s*on Lakitu"))
        turn.tap("#dialog-buttons .pay-now")
        expect(page.locator("#dialog")).to_be_hidden()
        assert piles(base) == {"GO": 2, "Lakitu": 1 + 3}
        turn.tap("#next")
        assert turn.taps == TURN_TAPS and turn.keys == 0
        # -- Peach: 6 to Peach's Castle; she drops 2 there: the space is picked already, so
        # the drop is two taps (how many, Drop).
        expect(page.locator("#move-bar .move-say")).to_contain_text("Peach on GO")
        die_key(page, 6).click()
        stands(page, "Peach", "Peach's Castle")
        tile_of(page, "Peach").click()
        page.locator("#pad-drop").click()
        expect(page.locator("#dialog-title")).to_have_text("Peach drops coins")
        chip = page.locator("#dialog .space-chips .pick-row", has_text="Peach's Castle")
        expect(chip.locator("input")).to_be_checked()
        drop = Taps(page)
        drop.tap('#dialog .drop-key[data-coins="2"]')
        drop.tap("#dialog-buttons .pay-now")
        expect(page.locator("#toast-text")).to_have_text("Peach drops 2 coins on Peach's Castle")
        assert drop.taps == 2 and drop.keys == 0
        assert piles(base)["Peach's Castle"] == 2
        page.locator("#next").click()
        # -- Yoshi: 9 (a boost: the 7+ keys) from Lakitu past GO to the Super Star; Donkey
        # Kong's Super Star is offered at once, one tap.
        expect(page.locator("#move-bar .move-say")).to_contain_text("Yoshi on Lakitu")
        star = Taps(page)
        star.tap("#move-bar .move-more")
        star.tap('#move-bar .more-keys .move-key[data-steps="9"]')
        stands(page, "Yoshi", "Super Star")
        before = players(base)
        offer = page.locator("#move-bar .offer-star")
        expect(offer).to_contain_text("Donkey Kong's Super Star")
        expect(page.locator("#move-bar .move-hint")).to_have_text("Landed on Super Star: tap it")
        readme_shot(page, "phone-ring-super-star")
        star.tap("#move-bar .offer-star")
        # The star's 9 coins on Yoshi's tile (the move's own toast also named the Super Star).
        coins = str(before["Yoshi"]["balance"] + 9)
        expect(tile_of(page, "Yoshi").locator(".coins")).to_have_text(coins)
        expect(page.locator("#toast-text")).to_contain_text("Super Star")
        after = players(base)
        assert after["Yoshi"]["balance"] == before["Yoshi"]["balance"] + 9
        assert star.taps == 3 and star.keys == 0
        expect(die_key(page, 1)).to_be_visible()
        no_overflow(page, PHONE["width"])
        ctx.close()


def test_a_green_shell_tie_offers_the_players_tied_for_next_ahead_first(
        browser: Browser, tmp_path: Path) -> None:
    """"If two players are tied for the next player, choose one": Peach and Yoshi both stand
    6 spaces ahead of Mario, Luigi on his space (not ahead). The picker lists the two tied
    first, each marked; the tap on the first is a move by the rules (no correction asked)."""
    with daemon(write_config(tmp_path, "gamer")) as base:
        ids = described_table(base)
        for name in ("Peach", "Yoshi"):
            call(base, "/api/current", {"player": ids[name]})
            call(base, "/api/tokens", {"player": ids[name], "how": "place", "to": 6})
        call(base, "/api/current", {"player": ids["Mario"]})
        page = banker(context(browser, PHONE), base)
        stands(page, "Yoshi", "Peach's Castle")
        page.locator("#move-bar .move-power").click()
        page.locator('#dialog .power-face[data-ability="green_shell"]').click()
        rows = page.locator("#dialog fieldset").first.locator(".pick-row")
        expect(rows).to_have_count(3)
        expect(rows.locator(".pick-name")).to_have_text(["Peach", "Yoshi", "Luigi"])
        expect(rows.locator(".pick-note")).to_have_text(["next ahead", "next ahead", ""])
        expect(rows.locator("input:checked")).to_have_count(0)  # the table chooses one
        before = players(base)["Peach"]["balance"]
        rows.first.click()
        expect(page.locator("#dialog")).to_be_hidden()
        expect(tile_of(page, "Peach").locator(".coins")).to_have_text(str(before - 3))
        assert piles(base) == {"Peach's Castle": 3}
        last = state_of(base)["recent"][0]
        assert last["kind"] == "drop" and "correction" not in json.dumps(last)
        page.close()


def test_yoshis_green_shell_offers_the_nearest_ahead_and_behind_first(
        browser: Browser, tmp_path: Path) -> None:
    """Yoshi's boost: "choose a player in front of OR behind you": the nearest ahead (2 spaces)
    and the nearest behind (3 spaces) are listed first, marked, as the rules check it; the
    farther one (6 ahead) last, unmarked. The tap on the first is a move by the rules."""
    with daemon(write_config(tmp_path, "gamer")) as base:
        described_table(base)
        table = state_of(base)["players"]
        yoshi = next(p for p in table if p["characters"] == ["yoshi"])
        far, ahead, behind = (p for p in table if p["id"] != yoshi["id"])
        for who, space in ((yoshi, 9), (far, 15), (ahead, 11), (behind, 6)):
            call(base, "/api/current", {"player": who["id"]})
            call(base, "/api/tokens", {"player": who["id"], "how": "place", "to": space})
        call(base, "/api/current", {"player": yoshi["id"]})
        page = banker(context(browser, PHONE), base)
        stands(page, behind["name"], "Peach's Castle")
        page.locator("#move-bar .move-power").click()
        page.locator('#dialog .power-face[data-ability="green_shell"]').click()
        rows = page.locator("#dialog fieldset").first.locator(".pick-row")
        expect(rows.locator(".pick-name")).to_have_text([ahead["name"], behind["name"],
                                                          far["name"]])
        expect(rows.locator(".pick-note")).to_have_text(["next ahead", "next behind", ""])
        rows.first.click()
        expect(page.locator("#dialog")).to_be_hidden()
        assert piles(base) == {"Bowser's Castle": 3}
        last = state_of(base)["recent"][0]
        assert last["kind"] == "drop" and "correction" not in json.dumps(last)
        page.close()


def test_a_space_s_sheet_red_shell_where_jail_and_a_watching_page(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        ids = described_table(base)
        call(base, "/api/current", {"player": ids["Peach"]})  # her token moved on her turn
        call(base, "/api/tokens", {"player": ids["Peach"], "how": "place", "to": 6})
        call(base, "/api/current", {"player": ids["Mario"]})
        call(base, "/api/drops", {"player": ids["Luigi"], "space": "Thwomp", "coins": 3})
        call(base, "/api/drops", {"player": ids["Peach"], "space": "Rainbow Road", "coins": 1})
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        ring = page.locator("#ring-card")
        expect(cell(page, 8).locator(".rc-coins")).to_have_text("3")
        expect(cell(page, 8)).to_have_attribute("aria-label", "8. Thwomp, 3 coins")
        expect(cell(page, 0)).to_have_attribute("aria-label", re.compile(
            "^0. GO, Mario, Luigi, Yoshi$"))
        page.locator("#toast").evaluate("t => t.hidden = true")
        ring.scroll_into_view_if_needed()
        readme_shot(page, "phone-ring")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        no_overflow(page, PHONE["width"])
        # A space's sheet: Mario (current) scoops its pile in one tap.
        cell(page, 8).click()
        expect(page.locator("#dialog-title")).to_have_text("Thwomp")
        buttons = page.locator("#dialog-buttons button")
        expect(buttons).to_have_text(["Mario scoops 3", "Move Mario's token here",
                                      "Drop coins here", "Close"])
        readme_shot(page, "phone-ring-space")
        sheet = Taps(page)
        sheet.tap("#dialog-buttons .pay-now")
        expect(page.locator("#toast-text")).to_have_text("Mario scoops up 3 coins from Thwomp")
        assert sheet.taps == 1 and "Thwomp" not in piles(base)
        expect(cell(page, 8).locator(".rc-coins")).to_have_count(0)
        # ... or puts his token there (no coins on the way: Rainbow Road's pile stays).
        cell(page, 15).click()
        page.wait_for_timeout(650)
        page.locator("#dialog-buttons button", has_text="Move Mario's token here").click()
        expect(page.locator("#toast-text")).to_have_text("Mario's token goes to Rainbow Road")
        stands(page, "Mario", "Rainbow Road")
        assert piles(base) == {"Rainbow Road": 1}
        # Put on a Warp Pipe, the token has not warped: Warp is offered in the die's place.
        cell(page, 4).click()
        page.wait_for_timeout(650)
        page.locator("#dialog-buttons button", has_text="Move Mario's token here").click()
        expect(page.locator("#move-bar .move-hint")).to_have_text("Warp Pipe: on to the next one?")
        warp = Taps(page)
        warp.tap("#move-bar .offer-warp")
        expect(page.locator("#toast-text")).to_have_text("Mario warps to Warp Pipe 10")
        stands(page, "Mario", "Warp Pipe 10")
        assert warp.taps == 1 and players(base)["Mario"]["position"] == 10
        # Drop coins here: that space is picked, the token's own space offered beside it.
        cell(page, 11).click()
        page.wait_for_timeout(650)
        page.locator("#dialog-buttons button", has_text="Drop coins here").click()
        expect(page.locator("#dialog-title")).to_have_text("Mario drops coins")
        chips = page.locator("#dialog .space-chips .pick-row")
        expect(chips.first).to_contain_text("Bowser's Castle")
        expect(chips.first.locator("input")).to_be_checked()
        expect(chips.nth(1)).to_have_text(re.compile("Warp Pipe 10\\s*here"))
        expect(page.locator("#drop-other option")).to_have_count(17)  # or any space, picked
        page.wait_for_timeout(650)
        page.locator("#dialog-buttons button", has_text="Cancel").click()
        # A Red Shell on Peach: she drops on her token's space, nobody asked where; the tap on
        # her is the last one.
        page.locator("#move-bar .move-power").click()
        page.locator('#dialog .power-face[data-ability="red_shell"]').click()
        expect(page.locator("#dialog select")).to_have_count(0)
        page.locator("#dialog .pick-row", has_text="Peach").click()
        expect(page.locator("#dialog")).to_be_hidden()
        expect(page.locator("#toast-text")).to_contain_text("Peach drops 3 on Peach's Castle")
        assert piles(base)["Peach's Castle"] == 3
        # In Jail: the keys are off, with the words why; the token on the jail corner.
        call(base, "/api/jail", {"player": ids["Mario"], "in_jail": True})  # his turn ends
        call(base, "/api/current", {"player": ids["Mario"]})  # his next turn, in Jail
        expect(page.locator("#move-bar .move-note")).to_have_text(
            "Mario is In Jail: the token moves again once they are out (pay the fee or roll a "
            "6).")
        for steps in range(1, 7):
            expect(die_key(page, steps)).to_be_disabled()
        stands(page, "Mario", "In Jail")
        expect(cell(page, 5)).to_have_class(re.compile(r"\bhas-jailed\b"))
        expect(cell(page, 5).locator(".rc-dot.jailed")).to_have_count(1)
        ctx.close()
        # A page without the token: the ring, and nothing to tap on it.
        watcher = context(browser, PHONE).new_page()
        watcher.goto(base)
        expect(watcher.locator("#link")).to_have_text("live")
        expect(watcher.locator("#ring-box .ring-cell")).to_have_count(16)
        expect(watcher.locator("#move-bar")).to_be_hidden()
        expect(watcher.locator("#ring-edit-open")).to_be_hidden()
        watcher.locator('#ring-box .ring-cell[data-space="8"]').click()
        expect(watcher.locator("#dialog")).to_be_hidden()
        watcher.context.close()


def kart_board() -> dict[str, Any]:
    """A small Mario Kart board: a Boost Pad, an Item Box, a Thwomp."""
    spaces = [("go", "GO"), ("property", "Mario Kart Stadium"), ("boost_pad", ""),
              ("item_box", ""), (None, ""), ("just_visiting", ""), ("thwomp", ""),
              ("super_star", ""), ("free_parking", ""), ("go_to_jail", ""),
              ("property", "Rainbow Road"), (None, "")]
    return {"spaces": [{"kind": k, "name": n} for k, n in spaces], "faces": []}


def test_mario_kart_a_boost_pad_and_an_item_box_are_rolled_in_the_die_s_place(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "mario_kart")) as base:
        pick_characters(base)
        put(base, "/api/board", kart_board())
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        for part in ("#outcome", "#players", "#move-bar .move-keys", "#press", "#next"):
            assert on_first_screen(page, part), part
        before = players(base)
        # Mario: 2 to the Boost Pad, its roll (4) on to the Thwomp, who takes 2.
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="2"]')
        stands(page, "Mario", "Boost Pad")
        expect(page.locator("#move-bar .move-hint")).to_have_text("Boost Pad: tap the roll")
        turn.tap('#move-bar .move-key.boost[data-steps="4"]')
        stands(page, "Mario", "Thwomp")
        expect(page.locator("#toast-text")).to_have_text(
            "Mario moves 4 spaces to Thwomp: drops 2 on Thwomp")
        expect(die_key(page, 1)).to_be_visible()  # a Thwomp offers nothing: it is done
        assert players(base)["Mario"]["balance"] == before["Mario"]["balance"] - 2
        assert piles(base) == {"Thwomp": 2}
        turn.tap("#next")
        assert turn.taps == 3 and turn.keys == 0
        # Luigi: 3 to the Item Box, its roll (5) from the Bank.
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="3"]')
        stands(page, "Luigi", "Item Box")
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            "Item Box: tap the roll (or press the block)")
        turn.tap('#move-bar .move-key.coin[data-steps="5"]')
        expect(page.locator("#toast-text")).to_have_text("Luigi collects 5 from the Bank: Item Box")
        assert players(base)["Luigi"]["balance"] == before["Luigi"]["balance"] + 5
        assert turn.taps == 2
        # Peach lands there too and lets the offer be: it goes with her turn, not to her next.
        page.locator("#next").click()
        expect(page.locator("#move-bar .move-say")).to_contain_text("Peach on GO")
        die_key(page, 3).click()
        expect(page.locator("#move-bar .move-key.coin")).to_have_count(6)
        page.locator("#next").click()
        expect(page.locator("#move-bar .move-say")).to_contain_text("Yoshi on GO")
        call(base, "/api/current", {"player": players(base)["Peach"]["id"]})
        expect(page.locator("#move-bar .move-say")).to_contain_text("Peach on Item Box")
        expect(page.locator("#move-bar .move-hint")).to_have_text("Tap the numbered die")
        expect(page.locator("#move-bar .move-key.coin")).to_have_count(0)
        ctx.close()


@pytest.mark.parametrize("edition", ["gamer", "mario_kart"])
def test_a_turn_as_page_fit_counts_it_is_four_taps_and_scrolls_nothing(
        browser: Browser, tmp_path: Path, edition: str) -> None:
    """The figure ``python -m tests.page_fit`` prints: a move, POW (Lightning), Next."""
    with daemon(write_config(tmp_path, edition)) as base:
        pick_characters(base)
        describe_board(base)
        page = open_phone(browser, base)
        for part in ("#outcome", "#players", "#move-bar .move-keys", "#press", "#next"):
            assert on_first_screen(page, part), part
        turn = gamer_turn(page, ALL_DROP[edition])
        assert turn == {"taps": 4, "keystrokes": 0, "scrolled_px": 0.0}
        assert turn["taps"] <= TURN_TAPS
        mario = players(base)["Mario"]
        assert mario["position"] == 3 and state_of(base)["current_player"] != mario["id"]
        page.close()


# -- a movement press's face, deeds, Bananas, a game of two ------------------------------------

GAMER_FACES = ["pow", "red_shell", "green_shell", "red_shell", "blooper", "coins"]
"""The Power-up die as a table might type it (Red Shell on two faces: half the presses are a
shell; POW first, not in the rulebook's order)."""
KART_FACES = ["spiny_shell", "green_shell", "lightning", "coins", "banana", "banana"]


def long_board(base: str, faces: list[str], size: int = 64) -> None:
    """A board of ``size`` spaces (GO, Just Visiting on the fifth, the rest without a rule) with
    the Power-up die's faces typed: forty presses pass no GO and land on nothing that asks."""
    kinds = {k["effect"]: k["id"] for k in call(base, "/api/rules")["board"]["kinds"]}
    spaces: list[dict[str, Any]] = [{"kind": None, "name": ""} for _ in range(size)]
    spaces[0] = {"kind": kinds["go"], "name": "GO"}
    spaces[5] = {"kind": kinds["visit"], "name": ""}
    put(base, "/api/board", {"spaces": spaces, "faces": faces})


def press_block(page: Page, turn: Taps) -> dict[str, Any]:
    """The block pressed on the page (one tap): the movement press's outcome, as the page has
    it."""
    seen = page.evaluate("state.last_outcome ? state.last_outcome.id : null")
    page.wait_for_timeout(800)  # the last outcome has sounded (a press meanwhile is refused)
    turn.tap("#press")
    page.wait_for_function("(seen) => state.last_outcome && state.last_outcome.id !== seen",
                           arg=seen)
    outcome: dict[str, Any] = page.evaluate("state.last_outcome")
    assert outcome["kind"] == "move", outcome
    return outcome


def use_face(page: Page, turn: Taps, face: str, shot: bool = False) -> None:
    """The press's face from the move row: one tap when it has no choice (POW, Coins, a Green
    Shell whose next player ahead is known), else one more: who (the first player offered; the
    tap on them uses it, their token saying where they drop)."""
    label = page.locator("#move-bar .face-offer .fo-main")
    if face in ("red_shell", "blooper") or (
            face == "green_shell" and "who?" in label.inner_text()):
        expect(label).to_have_text(re.compile(r": who\?$"))
        turn.tap("#move-bar .face-offer")
        turn.tap("#dialog .pick-row")
    else:
        expect(label).to_have_text({
            "pow": re.compile(r"^POW: all others drop [12]$"),
            "coins": re.compile(r"^Coins: collect [34]$"),
            "green_shell": re.compile(r"^Green Shell: \w+ drops 3$")}[face])
        if face == "pow" and shot:
            readme_shot(page, "phone-ring-press-face")
            found = page.evaluate(READABILITY)
            assert found == {"small": [], "low": [], "inputs": []}, found
        turn.tap("#move-bar .face-offer")  # written at once: nothing asked
    expect(page.locator("#dialog")).to_be_hidden()


def test_a_movement_press_s_face_is_one_tap_in_the_move_row(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        pick_characters(base)
        long_board(base, GAMER_FACES)
        page = open_phone(browser, base)
        # The Power-up picker lists the die's faces in order, a face typed twice once.
        page.locator("#move-bar .move-power").click()
        expect(page.locator("#dialog .power-face")).to_have_count(6)
        faces = page.locator("#dialog .power-face").evaluate_all(
            "bs => bs.map(b => b.dataset.ability)")
        assert faces == ["pow", "red_shell", "green_shell", "blooper", "coins", "super_star"]
        page.locator("#dialog-buttons button", has_text="Cancel").click()
        expect(page.locator("#dialog")).to_be_hidden()
        # Turns as the block rolls them: the press's face, then Next; until a Red Shell and a
        # face with no choice have come up.
        taps: dict[str, int] = {}
        for _ in range(40):
            who = page.evaluate("state.players.find(p => p.current).name")
            turn = Taps(page)
            outcome = press_block(page, turn)
            face = outcome["params"]["face"]
            offered = page.locator("#move-bar .face-offer")
            expect(offered).to_have_attribute("data-ability", face)
            before = state_of(base)["version"]
            use_face(page, turn, face, shot="pow" not in taps)
            expect(offered).to_have_count(0)  # used: not offered again
            assert state_of(base)["version"] != before
            assert f"{who}: " in page.locator("#toast-text").inner_text()
            turn.tap("#next")
            expect(page.locator("#move-bar .move-say")).not_to_contain_text(who)
            assert turn.keys == 0 and turn.taps <= TURN_TAPS, (face, turn.taps)
            taps.setdefault(face, turn.taps)
            if "red_shell" in taps and ({"pow", "coins"} & taps.keys()):
                break
        assert taps["red_shell"] == 4  # the press, the face, who, Next
        assert all(taps[f] == 3 for f in ("pow", "coins") if f in taps), taps
        page.close()


def deed_board() -> dict[str, Any]:
    """The small test board with one more Property (9: Moo Moo Meadows) and the numbers a
    table typed so far: Rainbow Road's price, Acorn Plains' rent."""
    board = gamer_board()
    board["faces"] = []
    board["spaces"][9] = {"kind": "property", "name": "Moo Moo Meadows"}
    board["spaces"][15]["price"] = 4
    board["spaces"][1]["rent"] = 2
    return board


def offer(page: Page, cls: str) -> Locator:
    return page.locator(f"#move-bar .offer-row .{cls}")


def test_deeds_on_landing_buy_auction_and_rent_typed_once(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        pick_characters(base)
        put(base, "/api/board", deed_board())
        ids = {name: p["id"] for name, p in players(base).items()}
        for space in (1, 11):  # Luigi holds Acorn Plains and Bowser's Castle (a trade)
            call(base, "/api/deeds", {"space": space, "player": ids["Luigi"], "correction": True})
        call(base, "/api/tokens", {"player": ids["Luigi"], "how": "place", "to": 9,
                                   "correction": True})
        call(base, "/api/tokens", {"player": ids["Yoshi"], "how": "place", "to": 7,
                                   "correction": True})
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        before = players(base)
        # -- Mario: 6 to Peach's Castle, nobody holds it and its price was never typed: the
        # first tap asks it (a key), saved into the board, then bought.
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="6"]')
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            "Peach's Castle: the Bank holds its deed")
        expect(offer(page, "offer-buy")).to_have_text("Buy Peach's Castle…")
        expect(offer(page, "offer-auction")).to_have_text("Auction")
        turn.tap("#move-bar .offer-buy")
        expect(page.locator("#dialog-title")).to_have_text("Peach's Castle: its price")
        expect(page.locator("#dialog-buttons .pay-now")).to_have_text("Tap or type the number")
        turn.tap('#dialog .drop-key[data-n="3"]')
        expect(page.locator("#dialog-buttons .pay-now")).to_have_text("Buy for 3")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        turn.tap("#dialog-buttons .pay-now")
        expect(page.locator("#toast-text")).to_have_text("Mario buys Peach's Castle for 3")
        state = state_of(base)
        assert state["ring"]["spaces"][6]["price"] == 3  # typed once, kept in the board
        assert state["deeds"]["6"] == ids["Mario"]
        assert players(base)["Mario"]["balance"] == before["Mario"]["balance"] - 3
        expect(page.locator("#move-bar .offer-row")).to_have_count(0)  # his now: nothing
        expect(cell(page, 6)).to_have_attribute("aria-label", re.compile("held by Mario"))
        turn.tap("#next")
        assert {"taps": turn.taps, "keystrokes": turn.keys} == {"taps": 5, "keystrokes": 0}
        # -- Luigi: 6 from Moo Moo Meadows to Rainbow Road, its price typed: one tap.
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="6"]')
        expect(offer(page, "offer-buy")).to_have_text("Buy Rainbow Road for 4")
        page.locator("#toast").evaluate("t => t.hidden = true")
        readme_shot(page, "phone-ring-buy")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        turn.tap("#move-bar .offer-buy")
        expect(page.locator("#toast-text")).to_have_text("Luigi buys Rainbow Road for 4")
        turn.tap("#next")
        assert {"taps": turn.taps, "keystrokes": turn.keys} == {"taps": 3, "keystrokes": 0}
        assert state_of(base)["deeds"]["15"] == ids["Luigi"]
        # -- Peach: 1 to Acorn Plains, Luigi's (rent typed: 2); Luigi holds both of the set:
        # double rent, then one tap pays him 4.
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="1"]')
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            "Acorn Plains is Luigi's: pay the rent")
        expect(offer(page, "offer-rent")).to_have_text("Pay Luigi 2")
        expect(offer(page, "offer-double")).to_have_attribute("aria-pressed", "false")
        turn.tap("#move-bar .offer-double")
        expect(offer(page, "offer-double")).to_have_attribute("aria-pressed", "true")
        expect(offer(page, "offer-rent")).to_have_text("Pay Luigi 4")
        page.locator("#toast").evaluate("t => t.hidden = true")
        readme_shot(page, "phone-ring-rent")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        turn.tap("#move-bar .offer-rent")
        expect(page.locator("#toast-text")).to_have_text("Peach paid Luigi 4")
        turn.tap("#next")
        assert {"taps": turn.taps, "keystrokes": turn.keys} == {"taps": 4, "keystrokes": 0}
        now = players(base)
        assert now["Peach"]["balance"] == before["Peach"]["balance"] - 4
        assert now["Luigi"]["balance"] == before["Luigi"]["balance"] - 4 + 4
        # -- Yoshi: 4 from the Super Star to Bowser's Castle, Luigi's, its rent never typed:
        # typed once (a key), kept, paid.
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="4"]')
        expect(offer(page, "offer-rent")).to_have_text("Pay Luigi rent…")
        turn.tap("#move-bar .offer-rent")
        expect(page.locator("#dialog-title")).to_have_text("Bowser's Castle: its rent")
        turn.tap('#dialog .drop-key[data-n="2"]')
        expect(page.locator("#dialog-buttons .pay-now")).to_have_text("Pay Luigi 2")
        turn.tap("#dialog-buttons .pay-now")
        expect(page.locator("#toast-text")).to_have_text("Yoshi paid Luigi 2")
        turn.tap("#next")
        assert {"taps": turn.taps, "keystrokes": turn.keys} == {"taps": 5, "keystrokes": 0}
        assert state_of(base)["ring"]["spaces"][11]["rent"] == 2
        # -- Mario: 3 to Moo Moo Meadows; he lets it go to auction: Peach wins it for 5.
        die_key(page, 3).click()
        offer(page, "offer-auction").click()
        expect(page.locator("#dialog-title")).to_have_text("Auction: Moo Moo Meadows")
        page.locator("#dialog .pick-row", has_text="Peach").click()
        page.locator('#dialog .drop-key[data-n="5"]').click()
        expect(page.locator("#dialog-buttons .pay-now")).to_have_text("Peach wins it for 5")
        page.locator("#dialog-buttons .pay-now").click()
        expect(page.locator("#toast-text")).to_have_text("Peach buys Moo Moo Meadows for 5")
        assert state_of(base)["deeds"]["9"] == ids["Peach"]
        assert players(base)["Peach"]["balance"] == now["Peach"]["balance"] - 5
        expect(page.locator("#move-bar .offer-row")).to_have_count(0)
        # The sheet of a Property: who holds it, a trade, back to the Bank.
        cell(page, 6).click()
        expect(page.locator("#dialog .deed-holder")).to_have_text("Mario holds its deed")
        expect(page.locator("#dialog .deed-numbers")).to_have_text("price 3")
        expect(page.locator("#dialog-buttons .deed-take")).to_have_text("Luigi takes the deed")
        page.locator("#dialog .deed-takers .pick-row", has_text="Yoshi").click()
        expect(page.locator("#dialog-buttons .deed-take")).to_have_text("Yoshi takes the deed")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        page.wait_for_timeout(650)
        page.locator("#dialog-buttons .deed-take").click()
        expect(page.locator("#toast-text")).to_have_text(
            "Peach's Castle's deed goes from Mario to Yoshi")
        cell(page, 6).click()
        expect(page.locator("#dialog .deed-holder")).to_have_text("Yoshi holds its deed")
        page.wait_for_timeout(650)
        page.locator("#dialog-buttons .deed-bank").click()
        expect(page.locator("#toast-text")).to_have_text(
            "Peach's Castle's deed goes back to the Bank")
        assert "6" not in state_of(base)["deeds"]
        no_overflow(page, PHONE["width"])
        # -- The next game: the numbers typed are the board's; Peach's Castle in one tap.
        call(base, "/api/games", {"edition": "gamer", "players": ["Mario", "Luigi", "Peach"],
                                  "characters": [["mario"], ["peach"], ["yoshi"]]})
        expect(page.locator("#move-bar .move-say")).to_contain_text("Mario on GO")
        ring = state_of(base)["ring"]
        assert ring["spaces"][6]["price"] == 3 and ring["spaces"][11]["rent"] == 2
        turn = Taps(page)
        turn.tap('#move-bar .move-key.die-key[data-steps="6"]')
        turn.tap("#move-bar .offer-buy", has_text="Buy Peach's Castle for 3")
        expect(page.locator("#toast-text")).to_have_text("Mario buys Peach's Castle for 3")
        assert turn.taps == 2 and turn.keys == 0
        turn.tap("#next")
        # Its rent typed once (Luigi's turn), then one tap (Peach's): a move, the rent, Next.
        for name, taps in (("Luigi", 5), ("Peach", 3)):
            expect(page.locator("#move-bar .move-who")).to_have_text(name)
            turn = Taps(page)
            turn.tap('#move-bar .move-key.die-key[data-steps="6"]')
            turn.tap("#move-bar .offer-rent")
            if name == "Luigi":
                turn.tap('#dialog .drop-key[data-n="1"]')
                turn.tap("#dialog-buttons .pay-now")
            expect(page.locator("#toast-text")).to_have_text(f"{name} paid Mario 1")
            turn.tap("#next")
            assert {"taps": turn.taps, "keystrokes": turn.keys} == {"taps": taps,
                                                                     "keystrokes": 0}
        ctx.close()


def test_mario_kart_bananas_from_a_space_s_sheet_stop_a_token_four_at_most(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "mario_kart")) as base:
        pick_characters(base)
        put(base, "/api/board", kart_board())
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        # Space 4's sheet: Drop a Banana here (the current player's, Mario's).
        cell(page, 4).click()
        expect(page.locator("#dialog-buttons .banana-drop")).to_have_text("Drop a Banana here")
        expect(page.locator("#dialog-buttons .banana-back")).to_have_count(0)
        sheet = Taps(page)
        sheet.tap("#dialog-buttons .banana-drop")
        expect(page.locator("#toast-text")).to_have_text("Mario drops a Banana on space 4")
        assert sheet.taps == 1 and state_of(base)["bananas"] == [4]
        expect(cell(page, 4).locator(".rc-banana")).to_have_count(1)
        expect(cell(page, 4)).to_have_attribute("aria-label", "4. Space 4, a Banana")
        # A token that reaches it stops there, and the Banana goes back to the pile.
        die_key(page, 6).click()
        expect(page.locator("#toast-text")).to_have_text(
            "Mario moves 6 spaces to space 4: stops on a Banana")
        stands(page, "Mario", "Space 4")
        assert state_of(base)["bananas"] == []
        expect(cell(page, 4).locator(".rc-banana")).to_have_count(0)
        # Four down: the most the board holds; a space with one offers it back.
        for space in (1, 5, 7, 8):
            call(base, "/api/bananas", {"space": space})
        expect(cell(page, 8).locator(".rc-banana")).to_have_count(1)
        cell(page, 10).click()
        expect(page.locator("#dialog .space-banana")).to_have_text(
            "4 Bananas are down: the most the board holds.")
        expect(page.locator("#dialog-buttons .banana-drop")).to_be_disabled()
        page.wait_for_timeout(650)
        expect(page.locator("#dialog-buttons .banana-drop")).to_be_disabled()
        page.locator("#dialog-buttons button", has_text="Close").click()
        cell(page, 8).click()
        expect(page.locator("#dialog .space-banana")).to_have_text(
            "A Banana is on this space: a space holds only one.")
        page.wait_for_timeout(650)
        expect(page.locator("#dialog-buttons .banana-drop")).to_be_disabled()
        page.locator("#dialog-buttons .banana-back").click()
        expect(page.locator("#toast-text")).to_have_text(
            "The Banana on Free Parking goes back to the pile")
        assert state_of(base)["bananas"] == [1, 5, 7]
        ctx.close()


def test_mario_kart_a_banana_rolled_lights_the_path_one_tap_drops_it(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "mario_kart")) as base:
        pick_characters(base)
        long_board(base, KART_FACES, 24)
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        # Presses until a Banana comes up for someone who is not Luigi (his boost drops it on
        # his own Properties); another face's turn is passed.
        for _ in range(40):
            turn = Taps(page)
            outcome = press_block(page, turn)
            who = page.evaluate("state.players.find(p => p.current)")
            if outcome["params"]["face"] == "banana" and who["name"] != "Luigi":
                break
            call(base, "/api/next", {})
        else:
            pytest.fail("no Banana in 40 presses")
        offered = page.locator("#move-bar .face-offer.banana-offer")
        expect(offered).to_have_text("Banana: tap a space on your path")
        steps = outcome["rolls"][0]
        path = [(who["position"] - k) % 24 for k in range(steps)]
        lit = page.locator("#ring-box .ring-cell.on-path")
        expect(lit).to_have_count(steps)
        assert sorted(int(x) for x in lit.evaluate_all("cs => cs.map(c => c.dataset.space)")) \
            == sorted(path)
        turn.tap("#move-bar .banana-offer")  # the ring in sight
        page.wait_for_timeout(400)
        page.locator("#toast").evaluate("t => t.hidden = true")
        readme_shot(page, "phone-ring-banana")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        turn.tap(f'#ring-box .ring-cell[data-space="{path[-1]}"]')  # the first space passed
        label = state_of(base)["ring"]["labels"][path[-1]]
        expect(page.locator("#toast-text")).to_have_text(
            f"{who['name']} drops a Banana on {label}")
        assert state_of(base)["bananas"] == [path[-1]]
        expect(lit).to_have_count(0)
        expect(offered).to_have_count(0)
        assert turn.taps == 3 and turn.keys == 0  # press, the Banana's button, the space
        ctx.close()


def test_a_game_of_two_a_row_of_keys_per_token_moves_that_character(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        call(base, "/api/games", {"edition": "gamer", "players": ["Ann", "Ben"],
                                  "characters": [["mario", "peach"], ["yoshi", "donkey_kong"]]})
        put(base, "/api/board", gamer_board())  # the faces typed: a press is the turn's roll
        ids = {name: p["id"] for name, p in players(base).items()}
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        rows = page.locator("#move-bar .token-row")
        expect(rows).to_have_count(2)
        expect(rows.locator(".token-say")).to_have_text(["Mario on GO", "Princess Peach on GO"])
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            "Tap the numbered die on the token that moves")
        expect(cell(page, 0)).to_have_attribute("aria-label", "0. GO, Ann's Mario, "
                                                "Ann's Princess Peach, Ben's Yoshi, "
                                                "Ben's Donkey Kong")
        expect(cell(page, 0).locator(".rc-dot")).to_have_count(4)
        # Ann moves Peach's token 3: one tap on Peach's row; Mario's stays on GO.
        turn = Taps(page)
        turn.tap('#move-bar .token-row[data-character="peach"] .die-key[data-steps="3"]')
        expect(page.locator("#toast-text")).to_have_text(
            "Ann moves 3 spaces to Coin Block 3")
        assert players(base)["Ann"]["tokens"] == {"mario": 0, "peach": 3}
        assert turn.taps == 1 and turn.keys == 0
        expect(cell(page, 3)).to_have_attribute("aria-label", "3. Coin Block 3, "
                                                "Ann's Princess Peach")
        expect(page.locator('.ring-who[data-character="peach"] .rw-where')).to_have_text(
            "Coin Block 3")
        # The Coin Block offers its roll in the rows' place; let be, the rows are back.
        expect(page.locator("#move-bar .move-key.coin")).to_have_count(6)
        page.locator("#move-bar .offer-later").click()
        expect(rows).to_have_count(2)
        expect(rows.locator(".token-say")).to_have_text(["Mario on GO",
                                                         "Princess Peach on Coin Block 3"])
        page.locator("#toast").evaluate("t => t.hidden = true")
        readme_shot(page, "phone-ring-two")
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        page.locator("#next").click()
        # Ben presses the block: the roll is for the token the table moves (its key lit in each
        # row), the face offered as for anyone.
        expect(page.locator("#move-bar .move-who")).to_have_text("Ben")
        turn = Taps(page)
        outcome = press_block(page, turn)
        steps, face = outcome["rolls"][0], outcome["params"]["face"]
        assert players(base)["Ben"]["tokens"] == {"yoshi": 0, "donkey_kong": 0}
        expect(page.locator("#move-bar .move-key.rolled")).to_have_count(2)
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            f"Rolled {steps}: tap it on the token that moves")
        expect(page.locator("#move-bar .face-offer")).to_have_attribute("data-ability", face)
        turn.tap(f'#move-bar .token-row[data-character="yoshi"] .die-key[data-steps="{steps}"]')
        end = 10 if steps == 4 else steps  # a Warp Pipe warps on
        expect(page.locator('.ring-who[data-character="yoshi"] .rw-where')).not_to_have_text("GO")
        assert players(base)["Ben"]["tokens"] == {"yoshi": end, "donkey_kong": 0}
        assert turn.taps == 2 and ids["Ben"] == state_of(base)["current_player"]
        no_overflow(page, PHONE["width"])
        ctx.close()


def test_a_press_onto_a_property_offers_its_deed_and_its_face_once_even_after_a_reload(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "gamer")) as base:
        pick_characters(base)
        names = ["Acorn Plains", "Yoshi's Island", "Cheep Cheep Beach", "Shy Guy Falls",
                 "Moo Moo Meadows", "Peach's Castle"]
        spaces: list[dict[str, Any]] = [{"kind": "go", "name": "GO"}]
        spaces += [{"kind": "property", "name": n, "price": 1} for n in names]
        spaces += [{"kind": "just_visiting", "name": ""}] + [{"kind": None, "name": ""}] * 8
        put(base, "/api/board", {"spaces": spaces, "faces": GAMER_FACES})
        page = open_phone(browser, base)
        turn = Taps(page)
        outcome = press_block(page, turn)
        steps, face = outcome["rolls"][0], outcome["params"]["face"]
        name = names[steps - 1]
        # Both: the die's face and the Property's deed, each one tap.
        expect(page.locator("#move-bar .face-offer")).to_have_attribute("data-ability", face)
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            f"{name}: the Bank holds its deed")
        turn.tap("#move-bar .offer-buy", has_text=f"Buy {name} for 1")
        expect(page.locator("#toast-text")).to_have_text(f"Mario buys {name} for 1")
        expect(page.locator("#move-bar .offer-row")).to_have_count(0)
        # A page loaded mid-turn: the face still to use, the deed his (nothing offered).
        page.reload()
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("#move-bar .face-offer")).to_have_attribute("data-ability", face)
        expect(page.locator("#move-bar .move-hint")).to_have_text(
            f"The block rolled {steps}: the token moved {steps} space"
            + ("s" if steps > 1 else ""))
        expect(page.locator("#move-bar .offer-row")).to_have_count(0)
        use_face(page, turn, face)
        expect(page.locator("#move-bar .face-offer")).to_have_count(0)
        page.reload()
        expect(page.locator("#link")).to_have_text("live")
        expect(die_key(page, 1)).to_be_visible()
        page.wait_for_timeout(500)  # the journal read
        expect(page.locator("#move-bar .face-offer")).to_have_count(0)  # used: not again
        turn.tap("#next")
        assert turn.taps <= 3 + 3 and turn.keys == 0  # press, buy, the face (<= 3), Next
        page.close()
