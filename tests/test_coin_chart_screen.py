"""The small screen at the end of a game: the standings, then each player's coins over the
evening as a chart, turn about. The model's timing exactly (pure), then the real daemon with
SDL's dummy video driver: a short game played to its end, the screen reads the game's coins
once, and the chart drawn headless has a line of each player's colour, named at its end in
the order of their final coins."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pygame
import pytest
from gpiozero.pins.mock import MockFactory

from companion.app.commands import GetCoins, GetState, Move
from companion.core.coin_series import CoinPoint, CoinSeries
from companion.daemon import Daemon
from companion.display.frontend import ScreenFrontend
from companion.display.previews import sample_state
from companion.display.render import parse_colour, render
from companion.display.scene import CHART_SECONDS, DisplayModel
from companion.events import StateChanged
from companion.frontends import from_config
from tests.conftest import ROOT
from tests.test_display_screen import _config, _until

SHOTS = ROOT / "tests" / "screenshots"


@pytest.fixture(autouse=True)
def dummy_video(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def test_the_winner_screen_turns_to_the_chart_and_back_once_the_coins_are_read() -> None:
    state = sample_state(players=2, balances=(0, 42), out=(1,), ended=True)
    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("bankruptcy", "", state), 0.0)
    assert model.scene(100.0).screen == "winner" and model.next_change(100.0) is None
    series = CoinSeries(state.game.id, (1, 2), (CoinPoint(None, 0.0, (30, 30)),
                                                 CoinPoint(5, 1.0, (-4, 60)),
                                                 CoinPoint(6, 2.0, (0, 42))))
    model.set_coins(series, 10.0)
    assert model.scene(10.0).screen == "winner"
    assert model.next_change(10.0) == 10.0 + CHART_SECONDS
    chart = model.scene(10.0 + CHART_SECONDS)
    assert chart.screen == "chart" and chart.title == "Coins over the game"
    assert chart.chart is not None
    assert [(line.name, line.coins) for line in chart.chart.lines] == [
        ("Mario", (30, -4, 0)), ("Luigi", (30, 60, 42))]
    assert (chart.chart.low, chart.chart.high) == (-4, 60)
    assert model.next_change(10.0 + CHART_SECONDS) == 10.0 + 2 * CHART_SECONDS
    assert model.scene(10.0 + 2 * CHART_SECONDS).screen == "winner"
    # Another game's coins, a game without coins, or one still going: no chart.
    model.set_coins(CoinSeries(state.game.id + 1, (1, 2), series.points), 10.0)
    assert model.scene(10.0 + CHART_SECONDS).screen == "winner"
    worms = DisplayModel(idle_after=None)
    worms.apply(StateChanged("worms", "", sample_state(
        players=2, edition="wiggly_worms", balances=(0, 0), worms=(5, 2), ended=True)), 0.0)
    worms.set_coins(series, 10.0)
    assert worms.scene(10.0 + CHART_SECONDS).screen == "winner"
    assert worms.next_change(10.0) is None
    model.set_coins(series, 10.0)
    model.apply(StateChanged("undo", "", sample_state(players=2, balances=(0, 42))), 11.0)
    assert model.scene(10.0 + CHART_SECONDS).screen == "table"


async def test_the_screen_draws_everyones_coins_over_the_evening_at_the_end(
        tmp_path: Path) -> None:
    config = _config(tmp_path, idle_minutes=0)
    app = Daemon(config, pin_factory=MockFactory())
    frontends = from_config(config)
    runner = asyncio.ensure_future(app.run(frontends))
    await app.ready.wait()
    screen = next(f for f in frontends if isinstance(f, ScreenFrontend)).screen
    assert screen.ready.wait(10) and screen.available
    try:
        state = await app.table.read(GetState())
        mario, luigi, peach, yoshi = (p.id for p in state.players)
        for payer, payee, amount in ((mario, luigi, 12), (peach, "bank", 5), (yoshi, peach, 9),
                                     (luigi, yoshi, 4), (mario, peach, 25)):
            await app.table.act(Move("transfer", {"from": payer, "to": payee,
                                                  "amount": amount}))
        await app.table.act(Move("bankruptcy", {"player": mario, "creditor": peach}))
        await app.table.act(Move("transfer", {"from": yoshi, "to": luigi, "amount": 40}))
        await app.table.act(Move("bankruptcy", {"player": yoshi, "creditor": luigi}))
        await app.table.act(Move("transfer", {"from": peach, "to": luigi, "amount": 70}))
        await app.table.act(Move("bankruptcy", {"player": peach, "creditor": luigi}))
        state = await app.table.read(GetState())
        assert state.ended and state.winners == (luigi,)
        await _until(lambda: screen.model.coins is not None)
        series = await app.table.read(GetCoins(state.game.id))
        assert screen.model.coins == series  # read once, at the end
        await _until(lambda: screen.last_scene is not None
                     and screen.last_scene.screen == "winner")
        scene = screen.model.scene(screen.model.coins_at + CHART_SECONDS + 0.01)
        assert scene.screen == "chart" and scene.chart is not None
        ends = {p.name: p.balance for p in state.players}
        assert {line.name: line.coins[-1] for line in scene.chart.lines} == ends
        assert all(len(line.coins) == len(series.points) for line in scene.chart.lines)

        surface = pygame.Surface(screen.size)
        labels = render(scene, surface)
        SHOTS.mkdir(parents=True, exist_ok=True)
        pygame.image.save(surface, str(SHOTS / "screen-coin-chart.png"))
        named = {label.text: label for label in labels}
        for p in state.players:  # each line named at its end, in its colour
            label = named[f"{p.name} {p.balance}"]
            assert label.colour == parse_colour(p.colour)
        by_end = sorted(state.players, key=lambda p: -p.balance)
        tops = [named[f"{p.name} {p.balance}"].rect.top for p in by_end]
        assert tops == sorted(tops)  # more coins at the end: named higher up
        pixels = pygame.PixelArray(surface)
        try:  # a line in each player's colour (not only its name)
            for p in state.players:
                colour = surface.map_rgb(parse_colour(p.colour))
                label = named[f"{p.name} {p.balance}"].rect
                left_of_names = [(x, y) for x in range(label.left - 4)
                                 for y in range(surface.get_height())
                                 if pixels[x, y] == colour]
                assert len(left_of_names) > 50, p.name
        finally:
            pixels.close()
    finally:
        app.request_stop()
        await runner
