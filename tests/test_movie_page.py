"""The Movie edition on the banker's page, in headless Chromium against the real daemon and its
real web server: the dice drawn large, Bowser's toll, a battle, the Piranha Plant and Super
Star, Jail, and Bowser winning. The dice are scripted (the daemon's ``rng``), so every press
is known in advance."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from companion.bench.press_latency import write_short_sounds
from companion.config import load
from companion.daemon import Daemon
from companion.frontends import from_config
from tests.conftest import BROWSER_TOKEN, ROOT, free_port
from tests.test_banker_page import (
    PHONE,
    READABILITY,
    TABLET,
    bank_tile,
    banker,
    context,
    dialog_settled,
    in_view,
    key,
    kinds,
    no_overflow,
    tile,
)
from tests.test_tablet_browser import ARTIFACTS, api, state_of

SHOTS = ROOT / "tests" / "screenshots"


class Dice:
    """The daemon's dice, scripted: each ``randint`` takes the next face loaded."""

    def __init__(self) -> None:
        self.faces: list[int] = []
        self.lock = threading.Lock()

    def load(self, *faces: int) -> None:
        with self.lock:
            self.faces.extend(faces)

    def randint(self, a: int, b: int) -> int:
        with self.lock:
            assert self.faces, "a press rolled a die the test did not load"
            face = self.faces.pop(0)
        assert a <= face <= b
        return face

    def all_rolled(self) -> bool:
        with self.lock:
            return not self.faces


@pytest.fixture
def movie_config(tmp_path: Path) -> Path:
    """A Movie table of four on a free port, with 20 ms sounds (the block is ready again at
    once, so two presses in a row are both rolled)."""
    sounds = tmp_path / "sounds"
    sounds.mkdir()
    write_short_sounds(sounds)
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\nsounds_dir = "{sounds}"\n'
                    f'[gpio]\npin_factory = "mock"\n[data]\ndir = "{tmp_path}"\n'
                    f'[web]\nhost = "127.0.0.1"\nport = {free_port()}\n'
                    f'token = "{BROWSER_TOKEN}"\n'
                    '[game]\nedition = "movie"\nplayers = ["Mario", "Luigi", "Peach", "Toad"]\n')
    return path


@contextlib.contextmanager
def movie_daemon(config_path: Path, dice: Dice) -> Iterator[str]:
    """What ``companion run --config`` starts (the daemon with its frontends from the config:
    the real web server and page), with ``dice`` for its RNG, on its own loop in a thread (a
    child process can't be handed the dice); yields the page's base URL."""
    config = load(config_path)
    app = Daemon(config, rng=dice)
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(app.run(from_config(config)))
        except BaseException as exc:  # reported to the test below
            failed.append(exc)

    thread = threading.Thread(target=run, name="movie-daemon", daemon=True)
    thread.start()
    for _ in range(300):
        if app.ready.is_set() or failed or not thread.is_alive():
            break
        time.sleep(0.05)
    assert app.ready.is_set() and not failed, failed
    try:
        yield f"http://127.0.0.1:{config.web.port}/"
    finally:
        app.request_stop_from_thread()
        thread.join(timeout=15)
        assert not thread.is_alive(), "the daemon did not stop"
        assert not failed, failed


def readme_shot(page: Page, name: str) -> None:
    """A README picture (tests/screenshots/) and the same in artifacts/screenshots/."""
    page.wait_for_timeout(700)  # the dice's tumble and the dialogs settle
    SHOTS.mkdir(parents=True, exist_ok=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def press(base: str) -> dict:
    """POST /api/press, as the block would; again while the last outcome is still sounding."""
    for _ in range(50):
        try:
            return api(base, "/api/press")  # type: ignore[return-value]
        except urllib.error.HTTPError as refused:
            if refused.code != 409:
                raise
            time.sleep(0.1)
    raise AssertionError("the block stayed busy")


def ids(base: str) -> dict[str, int]:
    return {p["name"]: p["id"] for p in state_of(base)["players"]}


def coins(page: Page, name: str) -> Locator:
    return tile(page, name).locator(".coins")


def to_top(page: Page) -> None:
    page.evaluate("window.scrollTo(0, 0)")


def dice_on(page: Page) -> list[dict]:
    """Each die drawn: its words, its size on the page (CSS pixels, without the tumble it
    lands with), its pips."""
    return page.locator("#outcome .die").evaluate_all("""dice => dice.map(d => ({
      label: d.getAttribute('aria-label'), colour: d.classList[1], width: d.offsetWidth,
      height: d.offsetHeight, pips: d.querySelectorAll('.pip').length }))""")


# -- the dice, large --------------------------------------------------------------------------


def test_the_dice_are_drawn_large_with_their_pips_on_a_phone(browser: Browser,
                                                              movie_config: Path) -> None:
    dice = Dice()
    with movie_daemon(movie_config, dice) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        expect(page.locator("#press")).to_have_text("Roll")
        expect(page.locator("#outcome")).to_contain_text("Press to roll the dice!")
        # A turn roll: the red die and the black die, large, with their pips.
        dice.load(4, 2)
        page.locator("#press").tap()
        outcome = page.locator("#outcome")
        expect(outcome.locator(".die")).to_have_count(2)
        expect(outcome.locator(".dice-row")).to_have_attribute("aria-label", "red 4, black 2")
        drawn = dice_on(page)
        assert [(d["label"], d["colour"], d["pips"]) for d in drawn] == [
            ("red 4", "red", 4), ("black 2", "black", 2)], drawn
        for die in drawn:  # large: a fifth of a phone's width, and square
            assert die["width"] >= 70 and abs(die["width"] - die["height"]) < 1, die
        last = state_of(base)["last_outcome"]
        expect(outcome.locator(".roll-headline")).to_have_text(last["headline"])
        expect(outcome.locator(".roll-say")).to_have_text(last["instruction"])
        assert last["headline"] == "4 + 2 = 6"
        expect(outcome.locator(".chip")).to_have_count(0)  # no doubles
        # Doubles: highlighted, and how many in a row of the three that send to Jail.
        dice.load(3, 3)
        page.locator("#press").tap()
        expect(outcome.locator(".dice-row")).to_have_attribute("aria-label", "red 3, black 3")
        expect(outcome).to_have_class(re.compile(r"\bdoubles\b"))
        expect(outcome.locator(".chip")).to_have_text("doubles 1 of 3")
        expect(outcome.locator(".roll-headline")).to_contain_text("DOUBLES")
        expect(outcome.locator(".roll-say")).to_have_text(state_of(base)["last_outcome"]["instruction"])
        assert [d["pips"] for d in dice_on(page)] == [3, 3]
        dice.load(5, 5)
        page.locator("#press").tap()
        expect(outcome.locator(".chip")).to_have_text("doubles 2 of 3")
        assert state_of(base)["doubles"] == 2
        to_top(page)
        readme_shot(page, "phone-movie-dice")
        box = outcome.locator(".dice-row").bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"]  # on screen
        no_overflow(page, PHONE["width"])
        # The Piranha Plant: one tap arms it; one red die, and the coins paid.
        page.locator("#arm-piranha").tap()
        expect(page.locator("#armed-text")).to_have_text("Piranha Plant")
        expect(page.locator("#arm-piranha")).to_have_attribute("aria-pressed", "true")
        dice.load(5)
        page.locator("#press").tap()
        expect(outcome.locator(".dice-row")).to_have_attribute("aria-label", "red 5")
        assert [(d["colour"], d["pips"]) for d in dice_on(page)] == [("red", 5)]
        expect(outcome.locator(".chip")).to_have_text("\u22125")
        expect(outcome.locator(".roll-headline")).to_have_text("PIRANHA PLANT! PAY 5")
        expect(coins(page, "Mario")).to_have_text("25")
        expect(page.locator("#armed")).to_be_hidden()  # one press only
        # Super Star: collect the red die.
        page.locator("#arm-super_star").tap()
        expect(page.locator("#armed-text")).to_have_text("Super Star")
        dice.load(6)
        page.locator("#press").tap()
        expect(outcome.locator(".dice-row")).to_have_attribute("aria-label", "red 6")
        assert [d["pips"] for d in dice_on(page)] == [6]
        expect(outcome.locator(".chip")).to_have_text("+6")
        expect(coins(page, "Mario")).to_have_text("31")
        # Armed and disarmed again from its own button: nothing rolled.
        page.locator("#arm-piranha").tap()
        expect(page.locator("#armed")).to_be_visible()
        page.wait_for_timeout(700)
        page.locator("#arm-piranha").tap()
        expect(page.locator("#armed")).to_be_hidden()
        assert state_of(base)["mode"]["default"] is True
        assert dice.all_rolled()
        found = page.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        ctx.close()


# -- Bowser's toll ----------------------------------------------------------------------------


def test_bowsers_toll_ticks_everyone_but_jail_one_move_one_undo(browser: Browser,
                                                              movie_config: Path) -> None:
    with movie_daemon(movie_config, Dice()) as base:
        who = ids(base)
        api(base, "/api/jail", {"player": who["Peach"], "in_jail": True, "correction": True})
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        expect(page.locator("#toll")).to_contain_text("1 coin each")  # from the rules
        page.locator("#toll").tap()
        dialog = page.locator("#dialog")
        expect(dialog).to_be_visible()
        expect(dialog.locator("#dialog-title")).to_have_text("Bowser passed…")
        expect(dialog).to_contain_text("each pays the Bank 1 coin")
        expect(dialog).to_contain_text("Players on Free Parking pay none: untick them.")
        rows = dialog.locator(".pick-row")
        expect(rows).to_have_count(4)
        for name in ("Mario", "Luigi", "Toad"):
            expect(rows.filter(has_text=name).locator("input")).to_be_checked()
        peach = rows.filter(has_text="Peach")
        expect(peach.locator("input")).not_to_be_checked()
        expect(peach.locator("input")).to_be_disabled()
        expect(peach).to_contain_text("in Jail: no toll")
        expect(rows.filter(has_text="Mario")).to_contain_text("30 → 29")
        go = dialog.locator("#dialog-buttons button").last
        expect(go).to_have_text("3 players pay 1 each")
        # Toad is on Free Parking: the banker unticks him.
        rows.filter(has_text="Toad").tap()
        expect(rows.filter(has_text="Toad").locator("input")).not_to_be_checked()
        expect(rows.filter(has_text="Toad")).to_contain_text("no toll")
        expect(go).to_have_text("2 players pay 1 each")
        readme_shot(page, "phone-movie-toll")
        go.tap()
        expect(dialog).to_be_hidden()
        expect(coins(page, "Mario")).to_have_text("29")
        expect(coins(page, "Luigi")).to_have_text("29")
        expect(coins(page, "Peach")).to_have_text("30")
        expect(coins(page, "Toad")).to_have_text("30")
        tolls = kinds(base, "toll")
        assert len(tolls) == 1 and len(tolls[0]["entries"]) == 2, tolls
        text = "Bowser's toll: Mario, Luigi each pay 1 coin"
        expect(page.locator("#history li").first).to_contain_text(text)
        expect(page.locator("#toast-text")).to_have_text(text)
        expect(page.locator("#undo-what")).to_have_text(text)
        # Undo undoes it whole.
        page.locator("#undo").tap()
        expect(coins(page, "Mario")).to_have_text("30")
        expect(coins(page, "Luigi")).to_have_text("30")
        expect(page.locator("#history li.undone")).to_contain_text(text)
        assert [p["balance"] for p in state_of(base)["players"]] == [30, 30, 30, 30]
        assert len(kinds(base, "undo")) == 1
        # Nobody ticked: nothing to confirm.
        page.wait_for_timeout(700)
        page.locator("#toll").tap()
        for name in ("Mario", "Luigi", "Toad"):
            rows.filter(has_text=name).tap()
        page.wait_for_timeout(700)
        expect(go).to_have_text("Nobody ticked")
        expect(go).to_be_disabled()
        dialog.locator("#dialog-buttons button", has_text="Cancel").tap()
        expect(dialog).to_be_hidden()
        assert len(kinds(base, "toll")) == 1
        ctx.close()


# -- a battle -----------------------------------------------------------------------------------


def test_a_battle_is_armed_in_a_dialog_and_its_two_dice_are_shown(browser: Browser,
                                                                   movie_config: Path) -> None:
    dice = Dice()
    with movie_daemon(movie_config, dice) as base:
        who = ids(base)
        api(base, "/api/jail", {"player": who["Peach"], "in_jail": True, "correction": True})
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        page.locator("#battle").tap()
        dialog = page.locator("#dialog")
        expect(dialog.locator("#dialog-title")).to_have_text("Battle Bowser")
        expect(dialog).to_contain_text("7 or more beats Bowser and both collect 2 coins")
        leaders = dialog.locator("fieldset").nth(0)
        mates = dialog.locator("fieldset").nth(1)
        expect(leaders.locator("input:checked")).to_have_value(str(who["Mario"]))  # current
        expect(leaders.locator(".pick-row")).to_have_count(3)  # Peach is in Jail
        expect(mates.locator(".pick-row")).to_have_count(2)  # ... and Mario leads
        expect(mates).not_to_contain_text("Mario")
        expect(mates).not_to_contain_text("Peach")
        expect(dialog).to_contain_text("In Jail, can't battle: Peach.")
        go = dialog.locator("#dialog-buttons button").last
        page.wait_for_timeout(700)
        expect(go).to_have_text("Pick a teammate")
        expect(go).to_be_disabled()
        mates.locator(".pick-row", has_text="Luigi").tap()
        expect(go).to_have_text("Mario + Luigi: battle!")
        readme_shot(page, "phone-movie-battle-dialog")
        go.tap()
        banner = page.locator("#armed")
        expect(banner).to_be_visible()
        mode = state_of(base)["mode"]
        assert mode["id"] == "battle" and mode["leader"] == who["Mario"]
        expect(page.locator("#armed-text")).to_have_text(mode["text"])
        expect(page.locator("#armed-text")).to_have_text(
            "Battle Bowser: Mario leads with Luigi; Mario presses first")
        expect(page.locator("#armed-cancel")).to_be_visible()
        # The leader's press, on the page: one die, the teammate's still to come.
        dice.load(4)
        page.locator("#press").tap()
        outcome = page.locator("#outcome")
        expect(outcome.locator(".dice-row")).to_have_attribute("aria-label",
                                                           "Mario 4; Luigi rolls next")
        assert [(d["label"], d["pips"]) for d in dice_on(page)] == [("Mario 4", 4)]
        expect(outcome.locator(".die-slot")).to_be_visible()
        expect(page.locator("#armed-text")).to_have_text(state_of(base)["mode"]["text"])
        expect(page.locator("#armed-text")).to_contain_text("Luigi presses for the second die")
        # The teammate's press (the block, or here the API): both dice, and the prize.
        dice.load(5)
        press(base)
        expect(outcome.locator(".dice-row")).to_have_attribute("aria-label", "Mario 4, Luigi 5")
        drawn = dice_on(page)
        assert [(d["label"], d["pips"]) for d in drawn] == [("Mario 4", 4), ("Luigi 5", 5)]
        assert all(d["width"] >= 70 for d in drawn), drawn
        expect(outcome.locator(".die-caption")).to_have_text(["Mario", "Luigi"])
        expect(outcome.locator(".roll-headline")).to_have_text("BOWSER BEATEN 4 + 5 = 9")
        expect(outcome.locator(".chip")).to_have_text("+2 each")
        expect(coins(page, "Mario")).to_have_text("32")
        expect(coins(page, "Luigi")).to_have_text("32")
        expect(banner).to_be_hidden()
        expect(page.locator("#bowser-waits-text")).to_have_text(
            "Bowser waits on GO until everyone has had a turn")
        expect(page.locator("#bowser-waits")).to_be_visible()
        to_top(page)
        readme_shot(page, "phone-movie-battle")
        # Armed again, then cancelled from the banner: the next press is the turn roll.
        page.locator("#battle").tap()
        mates.locator(".pick-row", has_text="Toad").tap()
        page.wait_for_timeout(700)
        go.tap()
        expect(page.locator("#armed-text")).to_contain_text("Mario leads with Toad")
        page.locator("#armed-cancel").tap()
        expect(banner).to_be_hidden()
        expect(page.locator("#toast-text")).to_have_text("Battle Bowser: cancelled")
        assert state_of(base)["mode"]["id"] == "turn"
        assert dice.all_rolled()
        ctx.close()


# -- Jail ------------------------------------------------------------------------------------------


def test_jail_from_a_tile_the_badge_the_tries_and_paying_to_leave(browser: Browser,
                                                                  movie_config: Path) -> None:
    dice = Dice()
    with movie_daemon(movie_config, dice) as base:
        who = ids(base)
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        # Go to Jail: a tapped tile offers it, as it offers Make current and Phone link.
        tile(page, "Luigi").tap()
        expect(page.locator("#pad-jail-pay")).to_be_hidden()
        expect(page.locator("#pad-jail-free")).to_be_hidden()
        # Not Luigi's turn (Mario's): marked, and recorded as the banker's correction.
        expect(page.locator("#pad-jail-in")).to_have_class(re.compile(r"\bnot-now\b"))
        page.locator("#pad-jail-in").tap()
        expect(page.locator("#dialog")).to_have_attribute("data-name", "correction")
        dialog_settled(page)
        page.locator("#dialog-buttons button", has_text="Record it as a correction").tap()
        luigi = page.locator("#players .tile", has_text="Luigi")
        expect(luigi.locator(".jail-badge")).to_have_text("in Jail")
        expect(luigi.locator(".jail-tries")).to_have_text("0 of 3 tries")
        expect(luigi).to_have_class(re.compile(r"\bjailed\b"))
        expect(page.locator("#pad")).not_to_have_class(re.compile(r"\bopen\b"))
        expect(page.locator("#history li").first).to_contain_text(
            "Luigi goes to Jail (sent by the banker)")
        assert next(p for p in state_of(base)["players"] if p["name"] == "Luigi")["in_jail"]
        # His turn: a press rolls for doubles (automatic: nothing to cancel).
        page.locator("#next").tap()
        expect(page.locator("#armed-text")).to_have_text(
            "Luigi is in Jail: a press rolls for doubles (try 1 of 3)")
        expect(page.locator("#armed-cancel")).to_be_hidden()
        dice.load(1, 2)
        page.locator("#press").tap()
        outcome = page.locator("#outcome")
        expect(outcome.locator(".dice-row")).to_have_attribute("aria-label", "red 1, black 2")
        expect(outcome.locator(".chip")).to_have_text("try 1 of 3")
        expect(luigi.locator(".jail-tries")).to_have_text("1 of 3 tries")
        # No doubles: he stays in Jail, and his turn is over: Peach's turn.
        expect(page.locator("#players .tile.current")).to_contain_text("Peach")
        expect(page.locator("#armed")).to_be_hidden()
        assert state_of(base)["current_player"] == who["Peach"]
        expect(page.locator("#toast")).to_be_hidden(timeout=8000)  # "Peach's turn" is gone
        to_top(page)
        readme_shot(page, "phone-movie-jail")
        # At the start of his next turn, tapped, a player in Jail offers paying to leave, or
        # leaving free with a card.
        api(base, "/api/current", {"player": who["Luigi"]})
        expect(page.locator("#players .tile.current")).to_contain_text("Luigi")
        page.locator("#toast").evaluate("t => t.hidden = true")
        tile(page, "Luigi").tap()
        expect(page.locator("#pad-jail-pay")).to_have_text("Pay 1 to leave")  # the rules' fee
        expect(page.locator("#pad-jail-free")).to_have_text("Leave free (card)")
        expect(page.locator("#pad-jail-in")).to_be_hidden()
        for name in ("Mario", "Luigi"):
            assert in_view(page, tile(page, name)), name
        assert in_view(page, page.locator("#pad-jail-free"))
        page.evaluate("""() => {  // for the picture: the tiles right under the header
          const head = document.getElementById('top').getBoundingClientRect().bottom;
          const tiles = document.getElementById('players').getBoundingClientRect().top;
          window.scrollBy(0, tiles - head - 10);
        }""")
        readme_shot(page, "phone-movie-jail-pad")
        page.locator("#pad-jail-pay").tap()
        expect(luigi.locator(".jail-badge")).to_have_count(0)
        expect(coins(page, "Luigi")).to_have_text("29")
        expect(page.locator("#toast-text")).to_have_text("Luigi paid 1 and left Jail")
        luigi_now = next(p for p in state_of(base)["players"] if p["name"] == "Luigi")
        assert not luigi_now["in_jail"] and luigi_now["balance"] == 29
        # Peach leaves free with a card at the start of her turn: no coins move.
        api(base, "/api/jail", {"player": who["Peach"], "in_jail": True, "correction": True})
        api(base, "/api/current", {"player": who["Peach"]})
        peach = page.locator("#players .tile", has_text="Peach")
        expect(peach.locator(".jail-badge")).to_be_visible()
        page.wait_for_timeout(700)
        tile(page, "Peach").tap()
        page.locator("#pad-jail-free").tap()
        expect(peach.locator(".jail-badge")).to_have_count(0)
        expect(coins(page, "Peach")).to_have_text("30")
        # A refusal shows the server's words, as every refusal does.
        page.locator("#toll").tap()
        page.wait_for_timeout(700)
        api(base, "/api/jail", {"player": who["Mario"], "in_jail": True,  # meanwhile
                                "correction": True})
        page.locator("#dialog-buttons button").last.tap()
        expect(page.locator("#error-text")).to_have_text("Mario is in Jail and pays no toll")
        assert kinds(base, "toll") == []
        assert dice.all_rolled()
        ctx.close()


# -- Bowser wins ----------------------------------------------------------------------------------


def test_bowser_wins_ends_the_game_with_no_winner_and_undo_reopens_it(
        browser: Browser, movie_config: Path) -> None:
    with movie_daemon(movie_config, Dice()) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        card = page.locator("#bowser-card")
        expect(card).to_contain_text("Bowser wins the game. All of the players lose the game.")
        expect(card).to_be_hidden()  # folded away on a phone: one tap from the table
        page.locator("#bowser-fold > summary").tap()
        card.locator("#bowser-wins").tap()
        expect(page.locator("#dialog-body")).to_contain_text("Game Over side")  # asked first
        page.locator("#dialog-buttons button", has_text="Bowser wins").tap()
        title = page.locator("#winner-title")
        expect(title).to_have_text(
            "Bowser wins: every deed is on its Game Over side. Everyone loses.")
        state = state_of(base)
        assert state["ended"] and state["bowser_won"] and state["winners"] == []
        expect(page.locator("#winner")).to_have_class(re.compile(r"\bbowser\b"))
        expect(page.locator("#standings li")).to_have_count(4)
        expect(page.locator("#standings li.won")).to_have_count(0)  # nobody won
        for gone in ("#press", "#bowser-bar", "#bowser-card", "#toll"):
            expect(page.locator(gone)).to_be_hidden()
        expect(page.locator("#history li").first).to_contain_text(
            "Every deed is on its Game Over side: Bowser wins, everyone loses")
        expect(page.locator("#outcome")).to_be_hidden()  # nothing to press for
        expect(page.locator("#toast")).to_be_hidden(timeout=8000)
        to_top(page)
        readme_shot(page, "phone-movie-bowser-wins")
        page.wait_for_timeout(700)
        page.locator("#undo").tap()
        expect(page.locator("#winner")).to_be_hidden()
        expect(page.locator("#press")).to_be_visible()
        expect(page.locator("#bowser-bar")).to_be_visible()
        assert not state_of(base)["ended"] and not state_of(base)["bowser_won"]
        ctx.close()


def test_a_continue_cost_is_a_payment_to_the_bank_with_its_own_reason(
        browser: Browser, movie_config: Path) -> None:
    """The Continue cost is printed on each deed, not in the rules: the pad offers the reason,
    the banker types the amount."""
    with movie_daemon(movie_config, Dice()) as base:
        ctx = context(browser, PHONE)
        page = banker(ctx, base)
        tile(page, "Mario").tap()
        bank_tile(page).tap()
        key(page, "4").tap()
        reason = page.locator("#pad-reasons .reason", has_text="Continue")
        expect(reason).to_be_visible()
        assert "pay the Continue cost to the Bank" in (reason.get_attribute("title") or "")
        reason.tap()
        expect(page.locator("#pad-note")).to_have_value(
            "Continue cost: a deed back from its Game Over side")
        expect(page.locator("#pad-pay")).to_have_text("Pay 4: Mario → Bank")
        readme_shot(page, "phone-movie-continue")
        page.locator("#pad-pay").tap()
        expect(coins(page, "Mario")).to_have_text("26")
        expect(page.locator("#history li").first).to_contain_text(
            "Mario pays the Bank 4 · Continue cost: a deed back from its Game Over side")
        expect(page.locator("#pad-reasons .reason[aria-pressed=true]")).to_have_count(0)
        ctx.close()


# -- the tablet, and a page that only watches ----------------------------------------------------


def test_the_tablet_and_a_watching_phone(browser: Browser, movie_config: Path) -> None:
    dice = Dice()
    with movie_daemon(movie_config, dice) as base:
        who = ids(base)
        api(base, "/api/jail", {"player": who["Peach"], "in_jail": True, "correction": True})
        api(base, "/api/battle", {"leader": who["Mario"], "teammate": who["Toad"]})
        dice.load(6, 3)
        press(base)
        press(base)
        api(base, "/api/next")  # Luigi rolls doubles
        dice.load(2, 2)
        press(base)
        ctx = context(browser, TABLET, touch=False)
        page = banker(ctx, base)
        outcome = page.locator("#outcome")
        expect(outcome.locator(".chip")).to_have_text("doubles 1 of 3")
        drawn = dice_on(page)
        assert [d["label"] for d in drawn] == ["red 2", "black 2"]
        assert all(d["width"] >= 100 for d in drawn), drawn  # larger still on a tablet
        expect(page.locator("#bowser-waits")).to_be_visible()
        peach = page.locator("#players .tile", has_text="Peach")
        expect(peach.locator(".jail-badge")).to_be_visible()
        expect(page.locator("#bowser-bar button")).to_have_count(4)
        page.locator("#arm-super_star").click()
        expect(page.locator("#armed-text")).to_have_text("Super Star")
        no_overflow(page, TABLET["width"])
        to_top(page)
        for seen in ("#outcome .dice-row", "#press", "#armed"):  # one screen, no scrolling
            assert in_view(page, page.locator(seen)), seen
        readme_shot(page, "tablet-movie")
        ctx.close()
        # Watching: the dice, the badges and the banners; none of the banker's buttons.
        watcher = context(browser, PHONE)
        watch = watcher.new_page()
        watch.goto(base)
        expect(watch.locator("#role")).to_have_text("Watching")
        expect(watch.locator("#outcome .die")).to_have_count(2)
        expect(watch.locator("#armed-text")).to_have_text("Super Star")
        for hidden in ("#bowser-bar", "#armed-cancel", "#bowser-card", "#press"):
            expect(watch.locator(hidden)).to_be_hidden()
        expect(watch.locator(".jail-badge")).to_have_count(1)
        found = watch.evaluate(READABILITY)
        assert found == {"small": [], "low": [], "inputs": []}, found
        watcher.close()
        assert dice.all_rolled()
