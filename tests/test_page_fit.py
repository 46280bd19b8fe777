"""One hand on a phone (issue 30): the table, the block and its outcome on the first screen in
every edition; the rare parts one tap away; a payment and a press scroll nothing; a typical
turn in a counted number of taps. Headless Chromium against the real daemon
(:mod:`tests.page_fit` prints the same figures for a note)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.conftest import BROWSER_TOKEN
from tests.page_fit import (
    FIRST_SCREEN,
    Taps,
    celebration_rent,
    daemon,
    movie_turn,
    on_first_screen,
    open_phone,
    pick_characters,
    write_config,
)

TABLET = {"width": 1024, "height": 768}
FOLDS = {"celebration": ("#bankrupt-fold", "#timer-fold"),
         "movie": ("#bankrupt-fold", "#bowser-fold", "#timer-fold"),
         "gamer": ("#score-fold", "#timer-fold")}


def press(base: str) -> None:
    """The block on the table, pressed (again once the last outcome has sounded: 409 till)."""
    for _ in range(100):
        try:
            post(base, "/api/press", {})
            return
        except urllib.error.HTTPError as exc:
            if exc.code != 409:
                raise
            time.sleep(0.1)
    raise AssertionError("the block stayed busy")


def post(base: str, path: str, body: object) -> object:
    request = urllib.request.Request(base + path.lstrip("/"), data=json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {BROWSER_TOKEN}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


@pytest.mark.parametrize("edition", ["celebration", "movie", "gamer", "mario_kart",
                                     "wiggly_worms"])
def test_the_first_screen_holds_the_table_and_the_block(browser: Browser, tmp_path: Path,
                                                        edition: str) -> None:
    with daemon(write_config(tmp_path, edition)) as base:
        if edition in ("gamer", "mario_kart"):
            pick_characters(base)  # as the setup leaves the table
        page = open_phone(browser, base)
        wanted = [s for s in FIRST_SCREEN if edition != "wiggly_worms" or s != "#outcome"]
        assert {s: on_first_screen(page, s) for s in wanted} == dict.fromkeys(wanted, True)
        if edition == "wiggly_worms":  # the lever is the game: its timer stands open
            expect(page.locator("#timer-fold")).to_have_attribute("open", "")
            expect(page.locator("#timer-start")).to_be_visible()
        page.close()


@pytest.mark.parametrize("edition", sorted(FOLDS))
def test_the_rare_parts_are_one_tap_away_on_a_phone_and_open_on_a_tablet(
        browser: Browser, tmp_path: Path, edition: str) -> None:
    with daemon(write_config(tmp_path, edition)) as base:
        page = open_phone(browser, base)
        for fold in FOLDS[edition]:
            expect(page.locator(fold)).to_be_visible()
            expect(page.locator(fold)).not_to_have_attribute("open", "")
        expect(page.locator("#htimer")).to_be_hidden()  # no lever: its timer is in the fold
        for fold in FOLDS[edition]:
            page.locator(f"{fold} > summary").tap()  # one tap
            expect(page.locator(f"{fold} > .card")).to_be_visible()
        page.close()
        tablet = browser.new_page(viewport=TABLET)
        tablet.goto(f"{base}#token={BROWSER_TOKEN}")
        for fold in FOLDS[edition]:
            expect(tablet.locator(f"{fold} > .card")).to_be_visible()
        tablet.close()


def test_a_celebration_rent_and_a_movie_turn_in_counted_taps_scroll_nothing(
        browser: Browser, tmp_path: Path) -> None:
    for folder in ("c", "m"):
        (tmp_path / folder).mkdir()
    with daemon(write_config(tmp_path / "c", "celebration")) as base:
        page = open_phone(browser, base)
        rent = celebration_rent(page)
        assert rent == {"taps": 5, "keystrokes": 0, "scrolled_px": 0.0}
        page.close()
    with daemon(write_config(tmp_path / "m", "movie")) as base:
        page = open_phone(browser, base)
        turn = movie_turn(page)
        assert turn == {"taps": 6, "keystrokes": 0, "scrolled_px": 0.0,
                        "outcome_in_view_after_press": True}
        page.close()


def test_a_press_out_of_sight_says_its_outcome_where_the_eye_is(browser: Browser,
                                                                tmp_path: Path) -> None:
    with daemon(write_config(tmp_path, "celebration")) as base:
        page = open_phone(browser, base)
        t = Taps(page)
        page.locator("#history").scroll_into_view_if_needed()
        assert t.scroll_y() > 0
        seen = page.locator("#history").bounding_box()  # where the eye is
        press(base)  # the block on the table
        expect(page.locator("#toast")).to_be_visible()
        headline = json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())[
            "last_outcome"]["headline"]
        expect(page.locator("#toast-text")).to_contain_text(headline.rstrip("!:."),
                                                            ignore_case=True)
        now = page.locator("#history").bounding_box()
        assert seen and now and abs(now["y"] - seen["y"]) <= 1  # nothing moved under the eye
        # In sight, the box says it and the snackbar stays quiet.
        page.evaluate("window.scrollTo(0, 0)")
        for quiet in ("#toast", "#announce"):
            page.locator(quiet).evaluate("el => { el.hidden = el.id === 'toast'; "
                                         "if (el.id === 'announce') el.textContent = ''; }")
        press(base)
        expect(page.locator("#announce")).not_to_be_empty()  # the outcome came, and was said
        expect(page.locator("#toast")).to_be_hidden()
        page.close()
