"""The tablet page in headless Chromium (Debian's, driven by Playwright) against the real daemon."""

from __future__ import annotations

import contextlib
import json
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from companion.bank import Bank
from companion.bench.press_latency import write_short_sounds
from tests.conftest import BROWSER_TOKEN, ROOT, free_port, spawn_companion, wait_for_line

TOKEN = BROWSER_TOKEN
ARTIFACTS = ROOT / "artifacts" / "screenshots"


@contextlib.contextmanager
def daemon(config: Path) -> Iterator[str]:
    """``companion run`` in a child process; yields the base URL."""
    with spawn_companion("run", "--config", str(config)) as proc:
        seen = wait_for_line(proc.stderr, "web: the tablet API is at")
        base = seen.split("web: the tablet API is at ")[1].split()[0].removesuffix("api/state")
        try:
            yield base
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=10)


def api(base: str, path: str, body: object = None) -> object:
    request = urllib.request.Request(base + path.lstrip("/"), method="POST",
                                     data=json.dumps(body or {}).encode(),
                                     headers={"Authorization": f"Bearer {TOKEN}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def open_page(browser: Browser, url: str, width: int = 1024, height: int = 768) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    expect(page.locator("#link")).to_have_text("live")
    return page


def coins(page: Page, name: str) -> str:
    return page.locator(".tile", has_text=name).locator(".coins").inner_text()


def test_press_on_the_page_changes_the_balance_without_reload(browser: Browser,
                                                              config: Path) -> None:
    with daemon(config) as base:
        page = open_page(browser, f"{base}#token={TOKEN}")
        assert "token" not in page.url  # kept in the browser, not in the address bar
        assert page.evaluate("localStorage.getItem('companion-table-token')") == TOKEN
        expect(page.locator(".tile")).to_have_count(3 + 1)  # and the Bank's, to pay from
        assert coins(page, "Mario") == "30"
        page.evaluate("window.__same_page = true")
        page.locator("#press").click()
        expect(page.locator("#outcome")).to_contain_text("Mario")
        state = json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())
        mario = state["players"][0]["balance"]
        expect(page.locator(".tile", has_text="Mario").locator(".coins")).to_have_text(str(mario))
        assert page.evaluate("window.__same_page") is True  # no reload happened
        page.close()


def test_two_pages_stay_in_sync_and_tiles_pick_the_current_player(browser: Browser,
                                                                   config: Path) -> None:
    with daemon(config) as base:
        context = browser.new_context(viewport={"width": 1024, "height": 768})
        one = context.new_page()
        one.goto(f"{base}#token={TOKEN}")
        two = context.new_page()
        two.goto(base)  # the same browser remembers the token
        for page in (one, two):
            expect(page.locator("#link")).to_have_text("live")
        # A tile chooses its player; "Make ... current" (on the pad) passes the turn to them.
        two.locator(".tile", has_text="Luigi").click()
        two.locator("#pad-current").click()
        expect(one.locator(".tile.current")).to_contain_text("Luigi")
        # Paying starts from the tiles: who pays, who gets paid, the amount (and a note).
        one.locator(".tile", has_text="Luigi").click()
        one.locator(".bank-tile").click()
        one.locator('#keys button[data-key="7"]').click()
        one.locator("#pad-note-toggle").click()
        one.locator("#pad-note").fill("tax")
        one.locator("#pad-pay").click()
        expect(two.locator(".tile", has_text="Luigi").locator(".coins")).to_have_text("23")
        expect(two.locator("#history li").first).to_contain_text("Luigi pays the Bank 7 · tax")
        two.locator("#undo").click()
        expect(one.locator(".tile", has_text="Luigi").locator(".coins")).to_have_text("30")
        context.close()


def test_a_page_reconnects_after_the_daemon_restarts(browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        page = open_page(browser, f"{base}#token={TOKEN}")
    expect(page.locator("#link")).to_have_text("reconnecting…")
    bank = Bank.in_dir(config.parent)  # a change while the page is cut off ...
    bank.transfer(bank.players()[1].id, "bank", 4, note="while offline")
    bank.close()
    with daemon(config) as base:
        expect(page.locator("#link")).to_have_text("live", timeout=15_000)
        # ... is on the page as soon as it is back, without a reload.
        expect(page.locator(".tile", has_text="Luigi").locator(".coins")).to_have_text("26")
        api(base, "/api/transfers", {"from": "bank", "to": api_state(base)[0], "amount": 12})
        expect(page.locator(".tile", has_text="Mario").locator(".coins")).to_have_text("42")
    page.close()


def api_state(base: str) -> list[int]:
    state = json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())
    return [p["id"] for p in state["players"]]


def test_without_the_token_the_page_watches_and_says_how_to_bank(browser: Browser,
                                                                 config: Path) -> None:
    with daemon(config) as base:
        context = browser.new_context()
        page = context.new_page()
        page.goto(base)
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator("#role")).to_have_text("Watching")  # from load, not after a tap
        expect(page.locator("#watching")).to_contain_text("scan the QR code")
        for control in ("#press", "#next", "#undo", "#pad", "#menu-open", "#setup"):
            expect(page.locator(control)).to_be_hidden()
        # Writes without the token are still refused by the server.
        request = urllib.request.Request(base + "api/press", method="POST", data=b"{}")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 401
        context.close()


@pytest.mark.parametrize(("label", "width", "height"), [("phone", 360, 740),
                                                        ("tablet", 1024, 768),
                                                        ("tablet-portrait", 768, 1024)])
def test_screenshots(browser: Browser, config: Path, label: str, width: int,
                     height: int) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        ids = api_state(base)
        api(base, "/api/transfers", {"from": ids[2], "to": "bank", "amount": 35,
                                     "note": "Peach's Castle"})
        api(base, "/api/current", {"player": ids[1]})
        api(base, "/api/press")
        page = open_page(browser, f"{base}#token={TOKEN}", width, height)
        expect(page.locator(".tile", has_text="Peach").locator(".owes")).to_be_visible()
        expect(page.locator("#history li")).not_to_have_count(0)
        # Nothing may stick out sideways, from 360 px wide up.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.wait_for_timeout(700)  # let the outcome's pop animation finish for the picture
        page.screenshot(path=str(ARTIFACTS / f"{label}.png"), full_page=True)
        page.close()


def test_names_are_text_long_words_wrap_and_a_double_tap_writes_once(browser: Browser,
                                                                     config: Path) -> None:
    with daemon(config) as base:
        api(base, "/api/games", {"players": ["<img src=x onerror=1>", "W" * 24]})
        page = open_page(browser, f"{base}#token={TOKEN}", 360, 740)
        expect(page.locator(".tile").first).to_contain_text("<img src=x onerror=1>")
        assert page.locator(".tile img").count() == 0  # shown as text, never as HTML
        api(base, "/api/transfers", {"from": "bank", "to": api_state(base)[1], "amount": 1,
                                     "note": "N" * 200})
        expect(page.locator("#history li").first).to_contain_text("NNNN")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.locator("#go").dblclick()  # an impatient finger
        expect(page.locator("#go")).to_be_enabled()
        page.wait_for_load_state("networkidle")
        state = json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())
        assert state["players"][0]["balance"] == 32  # GO paid once, not twice
        page.close()


def test_the_timer_counts_down_on_every_page_and_stops_from_either(browser: Browser,
                                                                   config: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        first = open_page(browser, f"{base}#token={TOKEN}", 1024, 768)
        second = open_page(browser, base, 360, 740)
        first.locator("#timer-seconds").fill("9")
        first.locator("#timer-start").click()
        for page in (first, second):
            expect(page.locator("#timer")).to_have_class("card timer running")
            expect(page.locator("#timer-left")).to_have_text("8", timeout=3000)
        expect(second.locator("#timer")).to_contain_text("Time is running")
        expect(second.locator("#timer")).to_have_class("card timer running urgent",
                                                       timeout=6000)
        second.screenshot(path=str(ARTIFACTS / "phone-timer-last-seconds.png"))
        first.locator("#timer-stop").click()
        for page in (first, second):
            expect(page.locator("#timer")).to_have_class("card timer idle")  # no countdown
            expect(page.locator("#timer-stop")).to_be_disabled()
        state = json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())
        assert state["timer"]["running"] is False and state["timer"]["runs"] == 1
        api(base, "/api/timer/start", {"seconds": 1})
        expect(second.locator("#timer-what")).to_have_text("Time's up!", timeout=4000)
        expect(second.locator("#timer")).to_have_class("card timer up")
        expect(second.locator("#announce")).to_have_text("Time's up!")  # a screen reader hears it
        first.close()
        second.close()


def test_wiggly_worms_page_is_timer_and_turns_only(browser: Browser, config: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "wiggly_worms", "players": ["Ann", "Ben", "Cal"]})
        page = open_page(browser, f"{base}#token={TOKEN}", 768, 1024)
        expect(page.locator("#edition")).to_contain_text("Wiggly Worms")
        for hidden in ("#go", "#outcome", "#pay", ".tile .coins", "#jail"):
            expect(page.locator(hidden).first).to_be_hidden()
        for shown in ("#next", "#undo", "#timer-start", "#at-once"):
            expect(page.locator(shown)).to_be_visible()
        expect(page.locator("#press")).to_have_text("Lever")  # the block is a second lever
        page.locator("#next").click()
        expect(page.locator(".tile.current")).to_contain_text("Ben")
        page.locator("#timer-start").click()
        expect(page.locator("#timer")).to_contain_text("Worms are moving!")
        page.screenshot(path=str(ARTIFACTS / "tablet-wiggly-worms.png"), full_page=True)
        page.close()


def test_a_new_card_is_assigned_on_the_page_in_one_step(browser: Browser, config: Path) -> None:
    from tests.reader_emulators import Pty

    pty = Pty()
    config.write_text(config.read_text() + f'[reader]\nport = "{pty.device}"\n'
                      'protocol = "lines"\ntap_gap_ms = 200\n')
    try:
        with daemon(config) as base:
            page = open_page(browser, f"{base}#token={TOKEN}", 768, 1024)
            expect(page.locator("#reader-status")).to_contain_text("connected")
            pty.write(b"\nUID: 04 A2 24 B9\r\n")
            expect(page.locator("#newcards")).to_be_visible()
            expect(page.locator("#newcard-list li")).to_contain_text("04A224B9")
            expect(page.locator("#activity li").first).to_contain_text("new card")
            page.locator("#newcard-list select").select_option(label="Luigi")
            page.screenshot(path=str(ARTIFACTS / "tablet-new-card.png"), full_page=True)
            pty.write(b"0A1B2C3D4E\n")  # another new card meanwhile: the list is redrawn
            expect(page.locator("#newcard-list li")).to_have_count(2)
            row = page.locator("#newcard-list li", has_text="04A224B9")
            expect(row.locator("select")).to_have_value(
                row.locator("option", has_text="Luigi").get_attribute("value"))
            row.locator("button").click()
            expect(page.locator("#newcard-list li")).to_have_count(1)
            page.wait_for_timeout(300)  # the reader's tap gap
            pty.write(b"04A224B9\n")
            expect(page.locator(".tile.current")).to_contain_text("Luigi")
            expect(page.locator("#activity li").first).to_contain_text("Luigi is current")
            page.close()
    finally:
        pty.close()


# -- games that end, played on the page --------------------------------------------------------


def state_of(base: str) -> dict:
    return json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())


def test_utility_rent_and_bankruptcies_to_a_winner_on_a_phone(browser: Browser,
                                                              config: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        mario, luigi, _peach = api_state(base)
        page = open_page(browser, f"{base}#token={TOKEN}", 390, 844)
        page.on("dialog", lambda dialog: dialog.accept())  # "Declare bankrupt?" yes
        expect(page.locator("#go")).to_have_text("Mario passes GO +2")  # the ruleset's GO, for whom
        expect(page.locator("#jail")).to_have_text("Jail: pay 5")
        # Arm utility rent on the page: Luigi pays Mario, who has both utilities.
        page.locator("#mode-buttons button", has_text="Utility rent").click()
        page.locator("#rent-payer").select_option(str(luigi))
        page.locator("#rent-owner").select_option(str(mario))
        page.locator("#rent-utilities").select_option("2")
        page.locator("#rent button").click()
        expect(page.locator("#mode-now")).to_have_text(
            "Utility rent: Luigi pays Mario, 2 utilities")
        page.locator("#outcome").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "phone-rent-armed.png"))
        page.locator("#press").click()
        expect(page.locator("#outcome")).to_contain_text("RENT")
        # The rent's die, drawn, and who pays whom, across the whole outcome box (the rent
        # form's grid once squeezed it into a third).
        expect(page.locator("#outcome .die")).to_have_count(1)
        expect(page.locator("#outcome .roll-who")).to_contain_text("Luigi pays Mario")
        widths = page.evaluate("""() => { const o = document.getElementById('outcome');
          return [o.querySelector('.roll-box').getBoundingClientRect().width, o.clientWidth]; }""")
        assert widths[0] > 0.8 * widths[1], widths
        expect(page.locator("#mode-now")).to_have_text("Question Block")  # one press only
        rent = state_of(base)["last_outcome"]["coins"]
        assert coins(page, "Luigi") == str(30 - rent) and coins(page, "Mario") == str(30 + rent)
        # Luigi can't pay: bankrupt to Mario. Then Mario, to the Bank: Peach wins. On a phone
        # the bankruptcy is folded away, one tap from the table.
        expect(page.locator("#bankrupt-player")).to_be_hidden()
        page.locator("#bankrupt-fold > summary").click()
        page.locator("#bankrupt-player").select_option(str(luigi))
        page.locator("#bankrupt-creditor").select_option(str(mario))
        page.locator("#bankrupt button").click()
        expect(page.locator("#dialog-title")).to_have_text("Luigi is bankrupt to Mario?")
        page.locator("#dialog-buttons button", has_text="Bankrupt").click()
        expect(page.locator(".tile.out")).to_contain_text("Luigi")
        expect(page.locator(".tile.out .pick")).to_be_disabled()
        page.locator("#bankrupt-player").select_option(str(mario))
        page.locator("#bankrupt-creditor").select_option("bank")
        page.locator("#bankrupt button").click()
        page.locator("#dialog-buttons button", has_text="Bankrupt").click()
        expect(page.locator("#winner-title")).to_have_text("Peach wins!")
        expect(page.locator("#standings li").first).to_contain_text("1. Peach")
        for gone in ("#press", "#go", "#pay", "#bankrupt", "#modes"):
            expect(page.locator(gone)).to_be_hidden()  # an ended game is read-only
        expect(page.locator("#undo")).to_be_visible()  # ... but undo reopens it
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(300)
        page.screenshot(path=str(ARTIFACTS / "phone-winner-celebration.png"))
        page.locator("#undo").click()
        expect(page.locator("#winner")).to_be_hidden()
        expect(page.locator("#press")).to_be_visible()
        page.close()


def test_the_final_score_is_typed_in_and_counted(browser: Browser, config: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "mario_kart", "players": ["Toad", "Daisy", "Wario"]})
        toad = api_state(base)[0]
        api(base, "/api/transfers", {"from": "bank", "to": toad, "amount": 3, "note": "prize"})
        page = open_page(browser, f"{base}#token={TOKEN}", 1024, 768)
        page.on("dialog", lambda dialog: dialog.accept())
        expect(page.locator("#score-card")).to_be_visible()
        expect(page.locator("#bankrupt-card")).to_be_hidden()  # no bankruptcy in this game
        expect(page.locator("#score-rule")).to_contain_text("Every 5 Coins is worth 10 points.")
        for name, points, cards in (("Toad", 130, 5), ("Daisy", 90, 4), ("Wario", 110, 6)):
            row = page.locator(".score-row", has_text=name)
            row.locator(".points").fill(str(points))
            row.locator(".cards").fill(str(cards))
        # One "Count the score" saves every row; the Grand Prix deck is not played out, so
        # ending now is the house rule, asked in the page's own dialog.
        page.locator("#end").click()
        expect(page.locator("#dialog-title")).to_have_text("End before the last card?")
        expect(page.locator("#dialog-body")).to_contain_text("8 cards are still to play")
        page.locator("#dialog-buttons button", has_text="End now (house rule)").click()
        expect(page.locator("#winner-title")).to_have_text("Toad wins!")
        # "This player ... has 13 Coins": 130 points on cards + 20 for 13 coins = 150.
        expect(page.locator("#standings li").first).to_contain_text("150 points")
        assert state_of(base)["standings"][0] == {
            "player": toad, "rank": 1, "coins": 13, "points": 130, "total": 150, "cards": 5,
            "worms": None, "out": False}
        page.wait_for_timeout(300)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(ARTIFACTS / "tablet-winner-mario-kart.png"))
        page.close()


def test_worms_are_tapped_to_five_and_the_first_wins(browser: Browser, config: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        api(base, "/api/games", {"edition": "wiggly_worms", "players": ["Ann", "Ben", "Cal"]})
        page = open_page(browser, f"{base}#token={TOKEN}", 768, 1024)
        ann = page.locator(".tile", has_text="Ann")
        ann.locator(".worm", has_text="3").click()
        expect(ann.locator(".worm.found")).to_have_count(3)
        page.wait_for_timeout(700)  # a moment later (at once would be a double tap: one intent)
        ann.locator(".worm", has_text="3").click()  # tapped again: one back
        expect(ann.locator(".worm.found")).to_have_count(2)
        expect(ann.locator(".worm-count")).to_have_text("2/5")
        page.locator(".tile", has_text="Cal").locator(".worm", has_text="4").click()
        page.screenshot(path=str(ARTIFACTS / "tablet-wiggly-worms-found.png"), full_page=True)
        page.locator(".tile", has_text="Ben").locator(".worm", has_text="5").click()
        expect(page.locator("#winner-title")).to_have_text("Ben wins!")
        expect(page.locator("#standings li")).to_have_count(3)
        expect(page.locator("#standings li").first).to_contain_text("5 worms")
        expect(page.locator(".worm").first).to_be_disabled()
        page.wait_for_timeout(300)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(ARTIFACTS / "tablet-winner-wiggly-worms.png"))
        page.close()


def test_the_history_reads_only_what_is_new_and_older_pages_on_demand(browser: Browser,
                                                                     config: Path) -> None:
    """A long game: the newest page once; after each change only ``after=`` (an undo strikes
    through its move without reading the rest again); "Older" loads the page before."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    bank = Bank.in_dir(config.parent)
    bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
    mario, luigi, _peach = (p.id for p in bank.players())
    for n in range(1, 121):
        bank.transfer(mario if n % 2 else luigi, "bank", 1 + n % 3, note=f"rent #{n}")
        if n % 2:
            bank.transfer("bank", mario, 2, note=f"prize #{n}")
    bank.close()
    with daemon(config) as base:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        reads: list[str] = []
        page.on("request", lambda r: reads.append(r.url) if "/api/journal" in r.url else None)
        page.goto(f"{base}#token={TOKEN}")
        expect(page.locator("#link")).to_have_text("live")
        lines = page.locator("#history li")
        expect(lines.first).to_contain_text("Luigi pays the Bank 1 · rent #120")
        expect(lines).to_have_count(40 + 1)  # the newest page and the "Older" button
        expect(page.locator("#history li").last).to_have_text("Older")
        api(base, "/api/transfers", {"from": luigi, "to": "bank", "amount": 3, "note": "tax"})
        api(base, "/api/transfers", {"from": mario, "to": luigi, "amount": 4, "note": "toll"})
        api(base, "/api/undo")
        expect(lines.first).to_contain_text("Undo: Mario pays Luigi 4 · toll")
        expect(page.locator("#history li.undone")).to_have_count(1)
        expect(page.locator("#history li.undone")).to_contain_text("Mario pays Luigi 4 · toll")
        expect(lines.nth(2)).to_contain_text("Luigi pays the Bank 3 · tax")
        page.wait_for_load_state("networkidle")
        first, *later = reads
        assert "limit=40" in first and "after=" not in first and "before=" not in first
        assert later and all("after=" in url for url in later), reads
        history = page.locator("#history")
        history.evaluate("list => { list.scrollTop = list.scrollHeight; }")
        page.wait_for_timeout(200)
        card = page.locator("section.card", has=history)
        card.screenshot(path=str(ARTIFACTS / "tablet-history-older.png"))
        page.locator("#history li button", has_text="Older").click()
        expect(lines).to_have_count(43 + 40 + 1)
        assert "before=" in reads[-1] and len(reads) == len(later) + 2
        assert len(set(lines.all_inner_texts())) > 80  # no move twice
        page.close()


def test_the_page_says_the_house_rules_numbers_not_its_own(browser: Browser,
                                                          tmp_path: Path) -> None:
    """Nothing on the page carries a hard-coded amount: with house rules the page says the
    house's numbers (GO pays 4, the jail fee is 6, Bowser costs 3, Game Over 7)."""
    house = tmp_path / "house"
    house.mkdir()
    packaged = (ROOT / "companion" / "core" / "editions" / "celebration.toml").read_text()
    (house / "celebration.toml").write_text(
        packaged.replace("coins = 2\n", "coins = 4\n").replace("fee = 5\n", "fee = 6\n")
        .replace("fees = { bowser = 5, game_over = 10 }", "fees = { bowser = 3, game_over = 7 }"))
    sounds = tmp_path / "sounds"  # 20 ms sounds: the block is ready again at once
    sounds.mkdir()
    write_short_sounds(sounds)
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\nsounds_dir = "{sounds}"\n'
                      f'[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                      f'port = {free_port()}\ntoken = "{TOKEN}"\n'
                      f'[game]\nplayers = ["Mario", "Luigi"]\nhouse_rules = "{house}"\n')
    with daemon(config) as base:
        page = open_page(browser, f"{base}#token={TOKEN}")
        expect(page.locator("#go")).to_have_text("Mario passes GO +4")  # whom it is for
        expect(page.locator("#jail")).to_have_text("Jail: pay 6")
        seen: dict[str, str] = {}
        last = None
        for _ in range(80):  # press until both fees have been seen on the page
            page.locator("#press").click()
            for _ in range(100):
                outcome = state_of(base)["last_outcome"]
                if outcome is not None and outcome["id"] != last:
                    break
                page.wait_for_timeout(20)
            last = outcome["id"]
            expect(page.locator("#outcome")).to_contain_text(outcome["instruction"])
            if outcome["kind"] in ("bowser", "game_over"):
                seen[outcome["kind"]] = page.locator("#outcome").inner_text()
            if len(seen) == 2:
                break
        assert seen == {"bowser": "BOWSER! Mario: Pay the Bank 3 coins",
                        "game_over": "GAME OVER Mario: Pay the Bank 7 coins"}
        text = page.locator("body").inner_text()
        assert "+2" not in text and "pay 5" not in text and "Bank 10" not in text
        page.close()
