"""The family's evening on the banker's page (headless Chromium against the real daemon started
from a config file): a fresh install is set up from the page (the edition, the players with
their colours and who starts, the characters, the house rules) to the first press in a counted
number of taps; the last game's players are offered, never typed in; a refused start says the
server's words and keeps the rows; the menu (New game, Players join, Share the banker's link,
Export this game, Earlier games); a watching page never sees a setup control; axe-core finds
nothing serious or critical."""

from __future__ import annotations

import json
import re
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.conftest import BROWSER_TOKEN, free_port
from tests.page_fit import Taps
from tests.test_banker_page import PHONE, READABILITY, TABLET, context, no_overflow, tile
from tests.test_movie_page import readme_shot
from tests.test_player_phones import post
from tests.test_pwa import audit, audit_in_every_mode, axe_source, serious
from tests.test_tablet_browser import api, daemon, state_of

TOKEN = BROWSER_TOKEN
CELEBRATION = "Monopoly: Super Mario Celebration"
GAMER = "Monopoly Gamer"
RED, GREEN, PINK, BLUE = "#e52521", "#43b047", "#f49ac1", "#049cd8"
TAP_BUDGET = 8
"""Taps from the banker's link to the first press, beyond typing the names: the edition, the
first name box, a colour, who starts, the Free Parking pot, Start, the block (7), and one spare."""


def fresh_install(tmp_path: Path, game: str = "") -> Path:
    """A config as ``companion config`` writes it for a fresh install: no players named (the
    daemon boots a game awaiting its setup); ``game``: more of its ``[game]`` section."""
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                    f'port = {free_port()}\ntoken = "{TOKEN}"\n'
                    + (f"[game]\n{game}\n" if game else ""))
    return path


@dataclass
class Counted(Taps):
    """The page's taps (touch) and keystrokes, counted (tests/page_fit.py's counter)."""

    def tap_on(self, target: Locator) -> None:
        self.taps += 1
        target.tap()

    def type_in(self, target: Locator, text: str) -> None:
        """A tap into a box, then the name, key by key."""
        self.tap_on(target)
        self.type_here(text)

    def type_here(self, text: str) -> None:
        self.page.keyboard.type(text)
        self.keys += len(text)

    def press(self, key: str) -> None:
        self.keys += 1
        self.page.keyboard.press(key)


def open_banker(browser: Browser, base: str, size: dict[str, int]) -> Page:
    page = context(browser, size, touch=size is PHONE).new_page()
    page.goto(f"{base}#token={TOKEN}")
    expect(page.locator("#link")).to_have_text("live")
    return page


def edition_card(page: Page, name: str) -> Locator:
    return page.locator("#setup-editions .ed-card", has=page.locator(
        ".ed-name", has_text=re.compile(f"^{re.escape(name)}$")))


def row(page: Page, i: int) -> Locator:
    return page.locator("#setup-rows .setup-row").nth(i)


def names(page: Page) -> list[str]:
    expect(page.locator("#setup-rows .setup-row").first).to_be_visible()  # GET /api/setup came
    return page.locator("#setup-rows .setup-name").evaluate_all(
        "boxes => boxes.map((b) => b.value)")


def colours(page: Page) -> list[str]:
    return page.locator("#setup-rows .setup-row").evaluate_all(
        "rows => rows.map((r) => r.style.getPropertyValue('--colour'))")


def house_rule(page: Page, name: str) -> Locator:
    return page.locator("#setup-house .house-rule", has_text=name).locator("input")


def bankers(base: str, path: str) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(base + path.lstrip("/"),
                                     headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return dict(reply.headers), reply.read()


def bankers_json(base: str, path: str) -> Any:
    return json.loads(bankers(base, path)[1])


def games(base: str) -> list[dict]:
    return bankers_json(base, "api/games")["games"]


def touch_targets(page: Page, root: str) -> list[str]:
    """The controls under ``root`` smaller than 44x44 px (a radio or a checkbox: its label)."""
    return page.evaluate("""(root) => [...document.querySelectorAll(
        root + ' button, ' + root + ' input, ' + root + ' select')]
      .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
      .map((e) => ['radio', 'checkbox'].includes(e.type) ? e.closest('label') || e : e)
      .filter((e) => { const r = e.getBoundingClientRect(); return r.width < 44 || r.height < 44; })
      .map((e) => (e.id || e.className || e.tagName) + ' ' + e.textContent.trim().slice(0, 20))""",
                         root)


# -- a fresh install, set up from the page to the first press ----------------------------------


def test_a_fresh_install_is_set_up_from_the_page_to_the_first_press_in_counted_taps(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(fresh_install(tmp_path)) as base:
        pending = state_of(base)
        assert pending["game"]["setup_pending"] is True
        page = open_banker(browser, base, PHONE)
        # The link opens on the setup, not on a stand-in game of Mario, Luigi, Peach and Yoshi.
        expect(page.locator("#setup")).to_be_visible()
        expect(page.locator("#players")).to_be_hidden()
        expect(page.locator("#press")).to_be_hidden()
        expect(page.locator("#setup-cancel")).to_be_hidden()  # nothing to go back to
        expect(page.locator("#setup-last")).to_be_hidden()  # no game before this one
        expect(edition_card(page, CELEBRATION)).to_contain_text("2\u20136 players")  # an en dash
        expect(edition_card(page, GAMER)).to_contain_text("2\u20134 players")
        stripe = edition_card(page, CELEBRATION).locator(".ed-stripe span")
        expect(stripe).to_have_count(3)  # the box's colours, from its ruleset
        assert names(page) == ["", ""]  # nothing typed in for the table
        expect(page.locator("#setup-house-set legend")).to_have_text("House rules")
        assert not touch_targets(page, "#setup"), touch_targets(page, "#setup")
        no_overflow(page, PHONE["width"])

        count = Counted(page)
        count.tap_on(edition_card(page, CELEBRATION))
        count.type_in(row(page, 0).locator(".setup-name"), "Ann")
        count.press("Enter")  # the next box
        count.type_here("Ben")
        count.press("Enter")  # a third row, its box ready
        count.type_here("Cy")
        assert names(page) == ["Ann", "Ben", "Cy"]
        assert colours(page) == [RED, GREEN, PINK]
        swatch = row(page, 0).locator(".swatch")
        expect(swatch).to_have_attribute("aria-label", re.compile(r"^Ann's colour: red\."))
        count.tap_on(swatch)  # the next colour nobody has: blue
        expect(swatch).to_have_attribute("aria-label", re.compile(r"^Ann's colour: blue\."))
        count.tap_on(row(page, 1).locator(".setup-first"))  # Ben starts
        count.tap_on(house_rule(page, "Free Parking pot"))
        expect(page.locator("#setup-house")).to_contain_text(
            "fees and taxes paid to the Bank go on Free Parking")
        page.locator("#setup-rows").scroll_into_view_if_needed()
        page.evaluate("document.querySelector('#setup-rows').closest('fieldset')"
                      ".scrollIntoView({block: 'start'})")
        readme_shot(page, "phone-setup")
        assert state_of(base)["game"]["id"] == pending["game"]["id"]  # nothing written yet

        count.tap_on(page.locator("#setup-start"))
        expect(page.locator("#setup")).to_be_hidden()
        expect(page.locator("#players .tile")).to_have_count(4)  # three and the Bank
        expect(page.locator(".tile.current")).to_contain_text("Ben")
        assert page.evaluate("window.scrollY") == 0  # the table from its top
        house = page.locator("#house-rules")
        expect(house).to_be_visible()  # in the header, on the first screen
        expect(house).to_have_text("House rules: Free Parking pot")
        assert page.evaluate("document.getElementById('house-rules').closest('header') !== null")
        expect(page.locator("#pot-card")).to_be_visible()
        expect(page.locator("#pot-count")).to_have_text("0 coins")
        count.tap_on(page.locator("#press"))
        expect(page.locator("#outcome")).to_contain_text("Ben")

        print(f"\nsetup to the first press: {count.taps} taps, {count.keys} keystrokes")
        assert count.taps <= TAP_BUDGET and count.keys == len("AnnBenCy") + 2, count
        state = state_of(base)
        assert not state["game"]["setup_pending"] and state["game"]["id"] != pending["game"]["id"]
        assert [p["name"] for p in state["players"]] == ["Ann", "Ben", "Cy"]
        assert [p["colour"] for p in state["players"]] == [BLUE, GREEN, PINK]
        ben = state["players"][1]["id"]
        assert state["last_outcome"]["player"] == ben
        assert [h["id"] for h in state["game"]["house"]] == ["free_parking_pot"]

        # The pot fills from a tax (after the press's Bowser or Game Over, if it rolled one);
        # the current player scoops it in one tap (and Undo is offered).
        ann = state["players"][0]["id"]
        pot = state["pot"]["coins"] + 4
        api(base, "/api/current", {"player": ben})  # the tax is the lander's, on his turn
        api(base, "/api/transfers", {"from": ben, "to": "bank", "amount": 4, "reason": "tax"})
        api(base, "/api/current", {"player": ann})
        expect(page.locator("#pot-count")).to_have_text(f"{pot} coins")
        expect(page.locator("#pot-coins")).to_have_text(str(pot))
        scoop = page.locator("#pot-scoop")
        expect(scoop).to_have_text("Ann scoops")
        before = state_of(base)["players"][0]["balance"]
        scoop.tap()
        expect(page.locator("#pot-count")).to_have_text("0 coins")
        expect(page.locator("#toast")).to_contain_text(
            f"Ann scoops up {pot} coins from Free Parking")
        expect(scoop).to_be_disabled()  # nothing left to scoop
        after = state_of(base)
        assert after["players"][0]["balance"] == before + pot and after["pot"]["coins"] == 0
        page.context.close()


# -- Gamer: the characters, one token one player ----------------------------------------------


def start_is_clear(page: Page) -> None:
    """The snackbar is up and leaves "Start the game" in sight: the point at its centre is the
    button (what a finger there would tap)."""
    expect(page.locator("#toast")).to_be_visible()
    on_top = page.evaluate("""() => { const b = document.getElementById('setup-start');
      const r = b.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return hit === b || b.contains(hit); }""")
    assert on_top, page.locator("#toast").bounding_box()


def coins_moved(outcome: dict[str, Any]) -> int:
    """What a Celebration press moves for its player: a coins roll pays them, Bowser and Game
    Over take from them, a Power-up moves none."""
    if outcome["kind"] == "power_up":
        return 0
    return outcome["coins"] if outcome["kind"] == "coins" else -outcome["coins"]


def test_a_press_during_the_setup_is_kept_for_who_starts_and_leaves_start_in_sight(
        browser: Browser, tmp_path: Path) -> None:
    """Issue 44 (6): a child presses while the parents read the setup: its sound plays (the
    companion answers with the outcome), nobody's coins move (no stand-in "Mario" pays), the
    snackbar says so without covering "Start the game", and Start asks whether who starts is
    charged (one tap: yes)."""
    with daemon(fresh_install(tmp_path)) as base:
        pending = state_of(base)
        phone, tablet = open_banker(browser, base, PHONE), open_banker(browser, base, TABLET)
        for page in (phone, tablet):
            expect(page.locator("#setup-start")).to_be_visible()
        status, pressed = post(base, "api/press")
        assert status == 200 and pressed["sound_seconds"] > 0, pressed  # it sounds
        during = state_of(base)
        assert [p["balance"] for p in during["players"]] == \
            [p["balance"] for p in pending["players"]]  # no stand-in paid or was paid
        assert during["last_outcome"]["player"] is None
        for page, name in ((phone, "phone-setup-press"), (tablet, "tablet-setup-press")):
            expect(page.locator("#toast")).to_contain_text("kept for who starts")
            start_is_clear(page)
            expect(page.locator("#setup-held")).to_contain_text(pressed["headline"])
            readme_shot(page, name)
            start_is_clear(page)
        tablet.context.close()

        count = Counted(phone)
        count.tap_on(edition_card(phone, CELEBRATION))
        count.type_in(row(phone, 0).locator(".setup-name"), "Ann")
        count.press("Enter")
        count.type_here("Ben")
        count.tap_on(phone.locator("#setup-start"))
        dialog = phone.locator("#dialog")
        expect(dialog).to_contain_text("A press was made during the setup")
        expect(dialog).to_contain_text(pressed["headline"])
        expect(dialog).to_contain_text("Count it for Ann, who starts?")
        assert state_of(base)["game"]["id"] == pending["game"]["id"]  # asked before writing
        charge = dialog.locator("button", has_text="For Ann")
        expect(charge).to_be_enabled()  # it takes taps once armed
        readme_shot(phone, "phone-setup-press-asked")
        count.tap_on(charge)
        expect(phone.locator("#setup")).to_be_hidden()
        expect(phone.locator(".tile.current")).to_contain_text("Ann")
        state = state_of(base)
        assert {p["name"]: p["balance"] for p in state["players"]} == {
            "Ann": 30 + coins_moved(pressed), "Ben": 30}
        assert state["last_outcome"]["player"] == state["players"][0]["id"]
        assert state["unassigned"] == []
        print(f"\nsetup with a press made during it: {count.taps} taps, {count.keys} keystrokes")
        assert count.taps == 4 and count.keys == len("AnnBen") + 1, count


def test_gamer_characters_are_picked_in_the_setup_and_a_taken_one_is_off_for_the_others(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(fresh_install(tmp_path)) as base:
        page = open_banker(browser, base, TABLET)
        expect(page.locator("#setup")).to_be_visible()
        # Six rows on Celebration; Gamer seats four: the blank rows beyond go, and the reason
        # is said where Add a player is off.
        for _ in range(4):
            page.locator("#setup-add").click()
        expect(page.locator("#setup-rows .setup-row")).to_have_count(6)
        expect(page.locator("#setup-add")).to_be_disabled()
        expect(page.locator("#setup-count")).to_contain_text(
            "Monopoly: Super Mario Celebration is played by at most 6 players.")
        edition_card(page, GAMER).click()
        expect(page.locator("#setup-rows .setup-row")).to_have_count(4)  # its most
        expect(page.locator("#setup-add")).to_be_disabled()
        expect(page.locator("#setup-count")).to_have_text(
            "Monopoly Gamer is played by at most 4 players.")
        expect(page.locator("#setup-house-set")).to_be_hidden()  # Gamer offers no house rule
        row(page, 3).locator(".remove").click()
        row(page, 2).locator(".remove").click()
        expect(page.locator("#setup-count")).to_have_text(
            "Monopoly Gamer needs at least 2 players.")
        expect(row(page, 0).locator(".remove")).to_be_disabled()
        for i, name in enumerate(["Ann", "Ben"]):
            row(page, i).locator(".setup-name").fill(name)
        # Two players: two characters each (the ruleset's picks); a third tap trades the first.
        chars = page.locator("#setup-chars .char-row")
        expect(page.locator("#setup-chars-say")).to_contain_text("Each player plays 2 characters")
        for character in ("Mario", "Yoshi", "Donkey Kong"):
            chars.nth(0).locator(".char-chip", has_text=character).click()
        expect(chars.nth(0).locator('.char-chip[aria-pressed="true"]')).to_have_text(
            ["Yoshi", "Donkey Kong"])
        page.locator("#setup-add").click()
        expect(row(page, 2).locator(".setup-name")).to_be_focused()
        page.keyboard.type("Cy")
        # Three players: one character each (the last one picked kept), each token once.
        expect(chars.nth(0).locator('.char-chip[aria-pressed="true"]')).to_have_text(
            ["Donkey Kong"])
        expect(page.locator("#setup-chars-say")).to_contain_text("Each player plays 1 character")
        expect(chars).to_have_count(3)

        def chip(who: int, character: str) -> Locator:
            return chars.nth(who).locator(".char-chip", has_text=character)

        chip(0, "Mario").click()
        expect(chip(0, "Mario")).to_have_attribute("aria-pressed", "true")
        for other in (1, 2):
            expect(chip(other, "Mario")).to_be_disabled()
            expect(chip(other, "Mario")).to_contain_text("Ann's")
        chip(0, "Princess Peach").click()  # Ann changes her mind: Mario is free again
        expect(chip(0, "Mario")).to_have_attribute("aria-pressed", "false")
        expect(chip(1, "Mario")).to_be_enabled()
        chip(1, "Mario").click()
        chip(2, "Yoshi").click()
        expect(chip(2, "Mario")).to_be_disabled()
        expect(chip(2, "Princess Peach")).to_be_disabled()
        assert not touch_targets(page, "#setup"), touch_targets(page, "#setup")
        page.evaluate("document.querySelector('#setup-rows').closest('fieldset')"
                      ".scrollIntoView({block: 'start'})")
        readme_shot(page, "tablet-setup")
        page.locator("#setup-start").click()
        expect(page.locator("#setup")).to_be_hidden()
        expect(tile(page, "Ann")).to_contain_text("Princess Peach")
        state = state_of(base)
        assert state["game"]["edition"] == "gamer"
        assert [p["characters"] for p in state["players"]] == [["peach"], ["mario"], ["yoshi"]]
        assert state["players"][2]["balance"] == 10  # Gamer's starting coins for three
        page.context.close()


# -- the last game's players: offered, never typed in ------------------------------------------


def test_the_last_games_players_are_offered_as_chips_and_same_players_fills_them(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        first = state_of(base)["game"]["id"]
        page = open_banker(browser, base, PHONE)
        expect(tile(page, "Mario")).to_be_visible()
        page.locator("#menu-open").tap()
        page.locator("#menu-new").tap()
        expect(page.locator("#menu")).not_to_have_attribute("open", "")
        expect(page.locator("#setup")).to_be_visible()
        expect(page.locator("#players")).to_be_hidden()
        expect(page.locator("#setup-running")).to_contain_text(
            "Mario, Luigi, Peach stays in the bank")
        assert names(page) == ["", ""]  # the old names are offered, not typed in
        chips = page.locator("#setup-last .last-chip")
        expect(chips).to_have_text(["Mario", "Luigi", "Peach"])
        # One chip: its name in the first empty box, its colour with it; the chip is off.
        chips.nth(1).tap()
        assert names(page) == ["Luigi", ""] and colours(page)[0] == GREEN
        expect(chips.nth(1)).to_be_disabled()
        # Cancel: back to the game being played, nothing changed.
        page.locator("#setup-cancel").tap()
        expect(page.locator("#setup")).to_be_hidden()
        expect(tile(page, "Mario")).to_be_visible()
        assert state_of(base)["game"]["id"] == first
        # New game again: one tap for the same players, in their order and colours.
        page.locator("#menu-open").tap()
        page.locator("#menu-new").tap()
        assert names(page) == ["", ""]  # a fresh setup
        page.locator("#setup-same").tap()
        assert names(page) == ["Mario", "Luigi", "Peach"]
        assert colours(page) == [RED, GREEN, PINK]
        expect(chips.nth(0)).to_be_disabled()
        page.locator("#setup-start").tap()
        expect(page.locator("#setup")).to_be_hidden()
        state = state_of(base)
        assert state["game"]["id"] != first
        assert [p["name"] for p in state["players"]] == ["Mario", "Luigi", "Peach"]
        assert [g["id"] for g in games(base)][-1] == first  # the earlier game stays
        page.context.close()


# -- a refused start: the server's words, the rows kept ----------------------------------------


def test_a_refused_start_says_the_servers_words_and_keeps_what_was_typed(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(fresh_install(tmp_path)) as base:
        before = state_of(base)
        page = open_banker(browser, base, PHONE)
        # Nobody joins as a stand-in player while the game awaits its setup.
        page.locator("#menu-open").tap()
        page.locator("#menu-join").tap()
        expect(page.locator("#menu-said")).to_have_text(
            "Start the game first: then each player joins with their own name.")
        expect(page.locator("#join-qr svg")).to_have_count(0)
        page.locator("#menu-close").tap()
        row(page, 0).locator(".setup-name").fill("Ann")
        row(page, 1).locator(".setup-name").fill("ANN")
        page.locator("#setup-start").tap()
        problem = page.locator("#setup-error")
        expect(problem).to_have_text('Two players are called "Ann" and "ANN": pick a name the '
                                     "table can tell apart")
        expect(problem).to_have_attribute("role", "alert")
        assert page.evaluate("""() => { const r = document.getElementById('setup-error')
          .getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }""")
        expect(page.locator("#setup")).to_be_visible()
        assert names(page) == ["Ann", "ANN"]
        assert state_of(base) == before  # nothing written
        row(page, 1).locator(".setup-name").fill("Bea")
        page.locator("#setup-start").tap()
        expect(page.locator("#setup")).to_be_hidden()
        expect(problem).to_be_hidden()
        assert [p["name"] for p in state_of(base)["players"]] == ["Ann", "Bea"]
        page.context.close()


# -- the menu --------------------------------------------------------------------------------


def test_the_menu_join_qr_share_export_and_earlier_games(browser: Browser,
                                                         config: Path) -> None:
    with daemon(config) as base:
        first = state_of(base)
        luigi = first["players"][1]["id"]
        page = open_banker(browser, base, PHONE)
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        expect(tile(page, "Mario")).to_be_visible()
        opener = page.locator("#menu-open")
        expect(opener).to_have_attribute("aria-label", "Menu")
        box = opener.bounding_box()
        assert box is not None and box["width"] >= 44 and box["height"] >= 44
        opener.tap()
        menu = page.locator("#menu")
        expect(menu).to_have_attribute("open", "")
        expect(page.locator("#menu-new")).to_be_focused()
        for item in ("New game", "Players join", "Share the banker's link", "Export this game",
                     "Earlier games", "Give back presses from a file"):
            expect(menu).to_contain_text(item)
        assert not touch_targets(page, "#menu"), touch_targets(page, "#menu")
        readme_shot(page, "phone-menu")

        # Players join: the join code's QR code, big, and who has no phone yet (kept fresh).
        page.locator("#menu-join").tap()
        expect(page.locator("#menu-title")).to_have_text("Players join")
        expect(page.locator("#join-qr svg")).to_be_visible()
        join = bankers_json(base, "api/join")
        expect(page.locator("#join-link")).to_have_text(join["lan_url"] or join["url"])
        expect(page.locator("#join-missing li")).to_have_text(["Mario", "Luigi", "Peach"])
        qr = page.locator("#join-qr svg").bounding_box()
        assert qr is not None and qr["width"] >= 280  # big enough to scan across the table
        readme_shot(page, "phone-join-qr-menu")
        api(base, f"/api/players/{luigi}/link")  # Luigi's phone joins
        expect(page.locator("#join-missing li")).to_have_text(["Mario", "Peach"], timeout=10_000)

        # Share the banker's link: its QR code, the link, Copy; it says what the link gives.
        page.locator("#menu-back").tap()
        page.locator("#menu-share").tap()
        share = bankers_json(base, "api/share")
        link = share["lan_url"] or share["url"]
        expect(page.locator("#share-link")).to_have_value(link)
        expect(page.locator("#share-qr svg")).to_be_visible()
        expect(page.locator("#menu-share-view")).to_contain_text("full control of the bank")
        page.locator("#share-copy").tap()
        expect(page.locator("#share-said")).to_have_text("Copied: send it to the one who banks.")
        assert page.evaluate("navigator.clipboard.readText()") == link

        # Export this game: the very bytes GET /api/games/{id}/export gives, the server's name.
        page.locator("#menu-back").tap()
        game = first["game"]["id"]
        for fmt in ("csv", "json"):
            with page.expect_download() as download:
                page.locator(f"#menu-{fmt}").tap()
            saved = download.value
            assert saved.suggested_filename == f"question-block-game-{game}.{fmt}"
            headers, body = bankers(base, f"api/games/{game}/export?format={fmt}")
            assert Path(saved.path()).read_bytes() == body, fmt
            assert body and headers["Content-Disposition"].endswith(
                f'filename="question-block-game-{game}.{fmt}"')
        expect(page.locator("#menu-said")).to_have_text(f"Saved: question-block-game-{game}.json")

        # Escape closes it; focus goes back to the Menu button.
        page.keyboard.press("Escape")
        expect(menu).not_to_have_attribute("open", "")
        expect(opener).to_be_focused()

        # Earlier games: a game started since; the first one resumes from the menu (asked),
        # even from the setup of a new one: the table shows the game resumed.
        api(base, "/api/games", {"players": ["Toad", "Daisy"]})
        expect(tile(page, "Toad")).to_be_visible()
        opener.tap()
        page.locator("#menu-new").tap()
        expect(page.locator("#setup")).to_be_visible()
        opener.tap()
        page.locator("#menu-games").tap()
        earlier = page.locator("#games li", has_text="Mario, Luigi, Peach")
        expect(page.locator("#games li", has_text="Toad, Daisy")).to_contain_text("playing now")
        earlier.locator("button", has_text="Resume").tap()
        dialog = page.locator("#dialog")
        expect(dialog).to_contain_text("Toad, Daisy stops being played")
        page.wait_for_timeout(700)  # its buttons take taps after a moment
        dialog.locator("button", has_text="Resume it").tap()
        expect(menu).not_to_have_attribute("open", "")
        expect(page.locator("#setup")).to_be_hidden()
        expect(tile(page, "Mario")).to_be_visible()
        assert state_of(base)["game"]["id"] == game
        page.context.close()


def test_the_end_screen_offers_export_and_a_new_game(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        mario, luigi, peach = (p["id"] for p in state_of(base)["players"])
        for out in (luigi, peach):
            api(base, "/api/bankruptcy", {"player": out, "creditor": mario})
        page = open_banker(browser, base, PHONE)
        winner = page.locator("#winner")
        expect(winner).to_be_visible()
        expect(winner).not_to_contain_text("companion export")
        game = state_of(base)["game"]["id"]
        with page.expect_download() as download:
            page.locator("#winner-csv").tap()
        assert Path(download.value.path()).read_bytes() == bankers(
            base, f"api/games/{game}/export?format=csv")[1]
        page.locator("#winner-new").tap()
        expect(page.locator("#setup")).to_be_visible()
        expect(page.locator("#setup-last .last-chip")).to_have_text(["Mario", "Luigi", "Peach"])
        page.context.close()


# -- watching pages --------------------------------------------------------------------------


def test_a_watching_page_sees_no_setup_control_and_is_told_where_to_look(
        browser: Browser, tmp_path: Path) -> None:
    with daemon(fresh_install(tmp_path)) as base:
        watcher = context(browser, PHONE).new_page()
        watcher.goto(base)
        expect(watcher.locator("#role")).to_have_text("Watching")
        expect(watcher.locator("#setup-wait")).to_have_text(
            "The banker is setting up the game: the table shows here once it starts.")
        expect(watcher.locator("#setup-form")).to_be_hidden()
        expect(watcher.locator("#menu-open")).to_be_hidden()
        assert watcher.locator("#setup-rows .setup-row").count() == 0  # never drawn for it
        note = watcher.locator("#watching")
        expect(note).to_contain_text("Menu, Share the banker's link")
        expect(note).to_contain_text("Menu, Players join")
        expect(note).not_to_contain_text("companion link")
        # The banker starts the game: the watcher's table shows.
        api(base, "/api/games", {"players": ["Ann", "Ben"]})
        expect(watcher.locator("#setup")).to_be_hidden()
        expect(tile(watcher, "Ann")).to_be_visible()
        watcher.context.close()


# -- the keyboard ------------------------------------------------------------------------------

KEYBOARD_TAGS = """() => [...document.querySelectorAll('#setup button, #setup input')]
  .filter((e) => !e.disabled && e.getClientRects().length && e.tabIndex >= 0
          && !(e.type === 'radio' && !e.checked && e.name && document.querySelector(
               `#setup input[name="${e.name}"]:checked`)))
  .map((e, i) => { e.dataset.kb = String(i); return i; }).length"""
"""Tags each control of the setup the Tab key should reach (of a radio group, the checked one)."""

FOCUSED = """() => { const e = document.activeElement, s = getComputedStyle(e);
  return { kb: e.dataset.kb ?? null, ring: s.outlineStyle !== 'none'
           && parseFloat(s.outlineWidth) >= 2 && e.matches(':focus-visible') }; }"""


def test_every_setup_control_by_keyboard_with_a_focus_ring(browser: Browser,
                                                          tmp_path: Path) -> None:
    with daemon(fresh_install(tmp_path)) as base:
        ctx = browser.new_context(viewport=TABLET)
        page = ctx.new_page()
        page.goto(f"{base}#token={TOKEN}")
        first = row(page, 0).locator(".setup-name")
        expect(first).to_be_visible()
        first.focus()
        page.keyboard.type("Ann")
        page.keyboard.press("Enter")  # the next box
        expect(row(page, 1).locator(".setup-name")).to_be_focused()
        page.keyboard.type("Ben")
        page.keyboard.press("Enter")  # a new row after the last
        expect(row(page, 2).locator(".setup-name")).to_be_focused()
        page.keyboard.press("Tab")  # its remove button; Enter takes the row away
        page.keyboard.press("Enter")
        expect(page.locator("#setup-rows .setup-row")).to_have_count(2)
        # Move Ben up by keyboard: the focus stays on the moved row's control.
        row(page, 1).locator(".up").focus()
        page.keyboard.press("Enter")
        assert names(page) == ["Ben", "Ann"]
        expect(row(page, 0).locator(".down")).to_be_focused()  # up is off on the first row
        page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
        wanted = page.evaluate(KEYBOARD_TAGS)
        assert wanted >= 11, wanted  # an edition, two rows, Add, the pot, Start
        seen = []
        for _ in range(wanted + 12):
            page.keyboard.press("Tab")
            seen.append(page.evaluate(FOCUSED))
        reached = {s["kb"] for s in seen if s["kb"] is not None}
        assert reached == {str(i) for i in range(wanted)}, (wanted, sorted(reached, key=int))
        missing_ring = [s["kb"] for s in seen if s["kb"] is not None and not s["ring"]]
        assert not missing_ring, missing_ring
        # Start from the keyboard.
        page.locator("#setup-start").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#setup")).to_be_hidden()
        assert [p["name"] for p in state_of(base)["players"]] == ["Ben", "Ann"]
        ctx.close()


# -- axe-core --------------------------------------------------------------------------------


@pytest.mark.parametrize(("label", "size"), [("phone", PHONE), ("tablet", TABLET)])
def test_axe_finds_nothing_serious_on_the_setup_and_in_the_menu(
        browser: Browser, tmp_path: Path, label: str, size: dict) -> None:
    axe_source()
    with daemon(fresh_install(tmp_path)) as base:
        page = open_banker(browser, base, size)
        expect(page.locator("#setup-rows .setup-row")).to_have_count(2)
        axe_sees_the_setup(page)
        row(page, 0).locator(".setup-name").fill("Ann")
        house_rule(page, "Free Parking pot").check()
        audit_in_every_mode(page, f"setup {label}")
        readable(page)
        edition_card(page, GAMER).click()
        row(page, 1).locator(".setup-name").fill("Ben")
        page.locator("#setup-chars .char-chip", has_text="Yoshi").first.click()
        audit_in_every_mode(page, f"setup gamer {label}")
        readable(page)
        page.locator("#setup-start").click()  # refused: Ben has no character yet
        expect(page.locator("#setup-error")).to_be_visible()
        audit_in_every_mode(page, f"setup refused {label}")
        api(base, "/api/games", {"players": ["Ann", "Ben"]})  # started elsewhere: the table
        expect(page.locator("#setup")).to_be_hidden()
        page.locator("#menu-open").click()
        expect(page.locator("#menu")).to_have_attribute("open", "")
        audit_in_every_mode(page, f"menu {label}")
        page.locator("#menu-join").click()
        expect(page.locator("#join-qr svg")).to_be_visible()
        audit_in_every_mode(page, f"menu join {label}")
        page.locator("#menu-back").click()
        page.locator("#menu-share").click()
        expect(page.locator("#share-qr svg")).to_be_visible()
        audit_in_every_mode(page, f"menu share {label}")
        page.context.close()


def axe_sees_the_setup(page: Page) -> None:
    """The audit is not blind on the setup (the table is hidden behind it): a button without a
    name, put in the setup, is a critical violation."""
    page.evaluate("""() => { const b = document.createElement('button'); b.id = 'axe-probe';
      document.getElementById('setup-form').append(b); }""")
    found = [v["id"] for v in serious(audit(page))]
    page.evaluate("document.getElementById('axe-probe').remove()")
    assert "button-name" in found, found


def readable(page: Page) -> None:
    view = page.viewport_size
    assert view is not None
    no_overflow(page, view["width"])
    found = page.evaluate(READABILITY)
    assert found == {"small": [], "low": [], "inputs": []}, found


def test_add_and_start_wait_for_the_editions_so_an_early_tap_is_never_lost(
        browser: Browser, tmp_path: Path) -> None:
    """The setup shows before GET /api/setup answers; a tap on Add a player then had no draft to
    add to and was lost (a quick fourth tap made five rows, not six)."""
    with daemon(fresh_install(tmp_path)) as base:
        held: list[Any] = []
        page = context(browser, TABLET).new_page()
        page.route("**/api/setup", lambda route: held.append(route))  # held until let go
        page.goto(f"{base}#token={TOKEN}")
        expect(page.locator("#setup")).to_be_visible()
        page.wait_for_function("() => document.querySelector('#setup-form').ariaBusy === 'true'")
        expect(page.locator("#setup-add")).to_be_disabled()
        expect(page.locator("#setup-start")).to_be_disabled()
        assert held, "the page asked for the editions"
        held[0].continue_()
        expect(page.locator("#setup-add")).to_be_enabled()
        expect(page.locator("#setup-start")).to_be_enabled()
        expect(page.locator("#setup-form")).to_have_attribute("aria-busy", "false")
        rows = page.locator("#setup-rows .setup-row")
        before = rows.count()
        for added in range(1, 3):
            page.locator("#setup-add").click()
            expect(rows).to_have_count(before + added)
