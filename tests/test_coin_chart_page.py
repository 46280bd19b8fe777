"""The end of a game as a picture: each player's coins over the evening, a line each in their
colour, on the banker's page (tablet 1024x768, phone 390x844, and 320 px wide) and on a player's
phone, from the companion's own series (GET /api/games/{id}/coins). A short Celebration game
played through the API of the real daemon to its end; headless Chromium reads the chart."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.conftest import ROOT
from tests.test_banker_page import PHONE, READABILITY, TABLET, banker, context
from tests.test_player_phones import post
from tests.test_pwa import audit, serious
from tests.test_tablet_browser import daemon, state_of

SHOTS = ROOT / "tests" / "screenshots"
NARROW = {"width": 320, "height": 640}


def coins_of(base: str, game: int) -> dict[str, Any]:
    return json.loads(urllib.request.urlopen(f"{base}api/games/{game}/coins", timeout=10).read())


def play_to_the_end(base: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Mario, Luigi and Peach: a few payments, then Mario and Peach go bankrupt to Luigi."""
    state = state_of(base)
    mario, luigi, peach = (p["id"] for p in state["players"])
    for payer, payee, amount in ((mario, luigi, 10), (peach, "bank", 5), (luigi, peach, 3),
                                 ("bank", peach, 12), (mario, luigi, 25)):
        assert post(base, "/api/transfers", body={"from": payer, "to": payee,
                                                  "amount": amount})[0] == 201
    assert post(base, "/api/bankruptcy", body={"player": mario, "creditor": luigi})[0] < 300
    assert post(base, "/api/transfers", body={"from": peach, "to": luigi, "amount": 50})[0] \
        == 201
    assert post(base, "/api/bankruptcy", body={"player": peach, "creditor": luigi})[0] < 300
    state = state_of(base)
    assert state["ended"] and state["winners"] == [luigi]
    return state, coins_of(base, state["game"]["id"])


def the_chart_draws(page: Page, state: dict[str, Any], series: dict[str, Any]) -> None:
    """A line a player, in their colour, from the series: as many points as the series, the
    ends ordered as the final coins are (more coins: higher up), each line named at its end."""
    chart = page.locator("#coin-chart")
    expect(chart).to_be_visible()
    lines = chart.locator("polyline")
    expect(lines).to_have_count(len(state["players"]))
    drawn = lines.evaluate_all("""(all) => all.map((l) => ({
        player: Number(l.dataset.player), colour: l.getAttribute('stroke'),
        points: l.getAttribute('points').trim().split(/\\s+/)
          .map((p) => p.split(',').map(Number))}))""")
    colours = {p["id"]: p["colour"] for p in state["players"]}
    ends = {line["player"]: line["end"] for line in series["players"]}
    assert [d["player"] for d in drawn] == [p["id"] for p in state["players"]]
    for d in drawn:
        assert d["colour"] == colours[d["player"]]
        assert len(d["points"]) == len(series["moves"])
    final_y = {d["player"]: d["points"][-1][1] for d in drawn}
    for a in ends:
        for b in ends:
            if ends[a] > ends[b]:
                assert final_y[a] < final_y[b], (a, b, final_y)
            elif ends[a] == ends[b]:
                assert final_y[a] == final_y[b]
    for p in state["players"]:  # named at its end, beside a dot of its colour
        expect(chart.locator(f"text.coin-name[data-player='{p['id']}']")).to_have_text(
            f"{p['name']} {ends[p['id']]}")
        expect(chart.locator(f"circle.coin-dot[data-player='{p['id']}']")).to_have_attribute(
            "fill", p["colour"])
    found = page.evaluate(READABILITY)  # no text under 14 px
    assert found["small"] == [] and found["low"] == [], found
    ink = chart.locator("text.coin-name").evaluate_all(
        "(all) => all.map((t) => getComputedStyle(t).fill)")
    assert set(ink) == {"rgb(255, 255, 255)"}  # the names in the page's ink: 4.5:1 and more
    # The same figures for a screen reader: start, highest, lowest, end, a row a player.
    rows = chart.locator("table tbody tr")
    expect(rows).to_have_count(len(state["players"]))
    for row, line in zip(rows.all(), series["players"], strict=True):
        name = next(p["name"] for p in state["players"] if p["id"] == line["player"])
        assert row.locator("th, td").all_inner_texts() == [
            name, *(str(line[k]) for k in ("start", "high", "low", "end"))]


def fits(page: Page) -> None:
    """Nothing wider than the screen: no sideways scroll, the chart inside the view's width;
    and seen without a scroll from the top of the page (0 taps, 0 scrolls)."""
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator("#coin-chart svg").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    assert box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], box


def test_the_end_of_a_game_shows_everyones_coins_over_the_evening(browser: Browser,
                                                                  config: Path) -> None:
    with daemon(config) as base:
        ctx = context(browser, TABLET, touch=False)
        tablet = banker(ctx, base)
        expect(tablet.locator("#coin-chart")).to_be_hidden()  # the game goes on: no chart
        state, series = play_to_the_end(base)
        assert [line["end"] for line in series["players"]] == [p["balance"] for p in
                                                                state["players"]]
        expect(tablet.locator("#winner-title")).to_have_text("Luigi wins!")
        the_chart_draws(tablet, state, series)
        fits(tablet)
        assert not serious(audit(tablet))  # axe: nothing serious or critical
        tablet.locator("#winner").screenshot(path=str(SHOTS / "tablet-coin-chart.png"))
        ctx.close()

        for size, shot in ((PHONE, "phone-coin-chart.png"), (NARROW, "narrow-coin-chart.png")):
            ctx = context(browser, size)
            page = banker(ctx, base)
            the_chart_draws(page, state, series)
            fits(page)
            page.locator("#coin-chart").scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / shot))
            ctx.close()

        # Luigi's phone shows the same chart at the end.
        luigi = state["winners"][0]
        status, link = post(base, f"/api/players/{luigi}/link")
        assert status == 201
        ctx = context(browser, PHONE)
        phone = ctx.new_page()
        phone.goto(link["link"])
        expect(phone.locator("#why-not")).to_have_text("The game has ended.")
        the_chart_draws(phone, state, series)
        fits(phone)
        assert not serious(audit(phone))
        phone.locator("#coin-chart").scroll_into_view_if_needed()
        phone.screenshot(path=str(SHOTS / "player-phone-coin-chart.png"))

        # Undo reopens the game: the chart goes until it ends again.
        assert post(base, "/api/undo")[0] < 300
        expect(phone.locator("#coin-chart")).to_be_hidden()
        ctx.close()
