"""An outcome fades to history once its turn has passed (issue 44, item 5), on the real daemon
started from a config file, seen in Debian's Chromium: the banker's page (a phone at 390x844
with touch, a tablet at 1024x768) and the player's own phone. A press's outcome is bright in its
turn; after Next (however many turns later, the player's own turn come round again, a reload)
and after the next player's press, it is shown as past: dimmed, unframed, "Earlier: ..."."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.conftest import BROWSER_TOKEN, free_port
from tests.test_banker_page import PHONE, TABLET, context
from tests.test_movie_page import readme_shot
from tests.test_player_phones import post
from tests.test_player_seat import api_json
from tests.test_tablet_browser import daemon


def banker(browser: Browser, base: str, size: dict[str, int]) -> Page:
    page = context(browser, size, touch=size is PHONE).new_page()
    page.goto(f"{base}#token={BROWSER_TOKEN}")
    expect(page.locator("#link")).to_have_text("live")
    return page


def phone(browser: Browser, link: str) -> Page:
    page = context(browser, PHONE).new_page()
    page.goto(link)
    expect(page.locator("#link")).to_have_text("live")
    return page


def press(base: str, pages: list[Page]) -> dict[str, Any]:
    """The block, pressed once the last outcome has stopped sounding (the banker's block says
    so): its outcome."""
    pages[0].wait_for_function("() => !document.getElementById('press').classList"
                               ".contains('sounding')")
    status, pressed = post(base, "api/press")
    assert status == 200, pressed
    return pressed  # type: ignore[no-any-return]


def next_turn(base: str, after: int) -> None:
    status, answer = post(base, "api/next", body={"from": after})
    assert status == 200, answer


def colour(page: Page, selector: str, what: str = "color") -> str:
    return page.locator(selector).evaluate(f"(el) => getComputedStyle(el).{what}")


def muted(page: Page) -> str:
    """The page's muted colour (``--muted``), as a computed colour."""
    return page.evaluate("() => { const d = document.createElement('span');"
                         " d.style.color = 'var(--muted)'; document.body.append(d);"
                         " const v = getComputedStyle(d).color; d.remove(); return v; }")


def bright(bankers: list[Page], seat: Page | None, headline: str) -> None:
    for page in bankers:
        expect(page.locator("#outcome")).to_contain_text(headline)
        expect(page.locator("#outcome.past")).to_have_count(0)
        expect(page.locator("#outcome")).not_to_contain_text("Earlier")
        expect(page.locator("#outcome")).not_to_have_css("color", muted(page))
    if seat is not None:
        expect(seat.locator("#outcome-headline")).to_have_text(headline)
        expect(seat.locator("#outcome.past")).to_have_count(0)
        gold = colour(seat, "#outcome-headline")
        assert gold != muted(seat)
        expect(seat.locator("#outcome")).to_have_css("border-top-color", gold)  # framed


def past(bankers: list[Page], seat: Page | None, headline: str) -> None:
    for page in bankers:
        expect(page.locator("#outcome.past")).to_have_count(1)
        expect(page.locator("#outcome")).to_contain_text(f"Earlier: {headline}")
        # the muted words, not its own colour (once the fade has run)
        expect(page.locator("#outcome")).to_have_css("color", muted(page))
    if seat is not None:
        expect(seat.locator("#outcome.past")).to_have_count(1)
        expect(seat.locator("#outcome-headline")).to_have_text(f"Earlier: {headline}")
        expect(seat.locator("#outcome")).to_have_css("border-top-color", "rgba(0, 0, 0, 0)")
        expect(seat.locator("#outcome-headline")).to_have_css("color", muted(seat))  # no gold


def test_an_outcome_fades_to_history_once_its_turn_has_passed(browser: Browser,
                                                              config: Path) -> None:
    with daemon(config) as base:
        mario, luigi, peach = (p["id"] for p in api_json(base, "api/state")["players"])
        tablet, handheld = banker(browser, base, TABLET), banker(browser, base, PHONE)
        bankers = [tablet, handheld]
        mine = phone(browser, post(base, f"api/players/{mario}/link")[1]["link"])

        # Mario's press: bright in his turn, on the banker's pages and on his phone.
        first = press(base, bankers)
        bright(bankers, mine, first["headline"])
        readme_shot(mine, "phone-outcome-now")

        # Next: Luigi's turn; Mario's outcome is history everywhere.
        next_turn(base, mario)
        past(bankers, mine, first["headline"])
        readme_shot(tablet, "tablet-outcome-earlier")
        readme_shot(handheld, "phone-banker-outcome-earlier")
        readme_shot(mine, "phone-outcome-earlier")

        # Round the table to Mario's turn again: his old outcome stays history (it is not his
        # news at the start of his turn), and a reload reads it so too.
        next_turn(base, luigi)
        next_turn(base, peach)
        assert api_json(base, "api/state")["current_player"] == mario
        expect(tablet.locator(".tile.current")).to_contain_text("Mario")
        past(bankers, mine, first["headline"])
        tablet.reload()
        expect(tablet.locator("#link")).to_have_text("live")
        past([tablet], None, first["headline"])

        # Luigi's turn and his press: bright; Mario's phone keeps his own as history.
        next_turn(base, mario)
        second = press(base, bankers)
        bright(bankers, None, second["headline"])
        past([], mine, first["headline"])


def test_a_roll_drawn_as_dice_says_earlier_once_its_turn_has_passed(browser: Browser,
                                                                   tmp_path: Path) -> None:
    """The Movie's turn roll is drawn as dice: once its turn has passed they are dimmed under
    "Earlier" (the page's words), on a phone and on a tablet."""
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                    f'port = {free_port()}\ntoken = "{BROWSER_TOKEN}"\n'
                    '[game]\nedition = "movie"\nplayers = ["Mario", "Luigi", "Peach"]\n')
    with daemon(path) as base:
        mario = api_json(base, "api/state")["players"][0]["id"]
        tablet, handheld = banker(browser, base, TABLET), banker(browser, base, PHONE)
        rolled = press(base, [tablet, handheld])
        for page in (tablet, handheld):
            expect(page.locator("#outcome.rolled .die").first).to_be_visible()
            expect(page.locator("#outcome .outcome-earlier")).to_have_count(0)
        next_turn(base, mario)  # (a first roll never ends the turn: no third doubles yet)
        for page, name in ((tablet, "tablet-roll-earlier"), (handheld, "phone-roll-earlier")):
            expect(page.locator("#outcome.past.rolled")).to_have_count(1)
            expect(page.locator("#outcome .outcome-earlier")).to_have_text("Earlier")
            expect(page.locator("#outcome")).to_contain_text(rolled["headline"])
            readme_shot(page, name)
