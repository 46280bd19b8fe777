"""The small screen's join code: while a game just started waits for its phones, the panel
shows the players' join QR code and who has no phone yet. The model on its own, the picture at
every preset (the QR code is segno's symbol module for module, 3 px a module or more), the
display thread, and the real daemon whose screen shows a code the web takes."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import aiohttp
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame
from gpiozero.pins.mock import MockFactory

from companion.app import commands as c
from companion.config import DisplayConfig, WebConfig
from companion.core.outcomes import Kind, Outcome
from companion.core.state import TableState
from companion.daemon import Daemon
from companion.display import SIZES
from companion.display.frontend import ScreenFrontend
from companion.display.previews import SAMPLE_JOIN_LINK, sample_scenes, sample_state
from companion.display.qr import qr_geometry, qr_matrix
from companion.display.render import Painter, qr_card
from companion.display.scene import DisplayModel, Scene, TimerView
from companion.events import BlockOutcome, StateChanged
from companion.frontends import from_config
from companion.web.join_code import JoinCodes
from companion.web.server import WebFrontend
from tests.test_display_render import assert_fits, drawn
from tests.test_display_screen import _config, _until, screen, wait_for  # noqa: F401

SHOTS = Path(__file__).resolve().parent / "screenshots"
LINK = "http://10.0.0.5:8080/join#code=1-abcdefghijklmnop"


def phones(state: TableState, *linked: int) -> TableState:
    """``state`` with a phone for the players ``linked`` (by id)."""
    return dataclasses.replace(state, players=tuple(
        dataclasses.replace(p, linked=p.id in linked) for p in state.players))


def other_game(state: TableState, game: int) -> TableState:
    return dataclasses.replace(state, game=dataclasses.replace(state.game, id=game))


def names(scene: Scene) -> list[str]:
    return [p.name for p in scene.players]


# -- the model --------------------------------------------------------------------------------


def test_a_new_game_shows_the_join_code_until_it_gets_going() -> None:
    model = DisplayModel(idle_after=None)
    model.set_join_link(1, LINK)
    state = sample_state()
    model.apply(StateChanged("transfer", "", phones(state)), 0.0)
    assert model.scene(1.0).screen == "table"  # a game being played: no join code

    model.apply(StateChanged("new game", "", phones(state, 1)), 2.0)
    scene = model.scene(3.0)
    assert (scene.screen, scene.title, scene.link) == ("join", "Join the game", LINK)
    assert names(scene) == ["Luigi", "Peach", "Yoshi"]
    assert [p.colour for p in scene.players] == [p.colour for p in state.players[1:]]
    for setting_up in ("phone link", "phone joined", "card", "characters", "phone link off"):
        model.apply(StateChanged(setting_up, "", phones(state, 1, 3)), 4.0)
        assert names(model.scene(5.0)) == ["Luigi", "Yoshi"]
    model.apply(StateChanged("phone link", "", phones(state, 1, 2, 3, 4)), 6.0)
    assert model.scene(7.0).screen == "table"  # everyone has a phone

    # Someone plays before every phone joined: the table, and it stays.
    for going in (StateChanged("transfer", "", phones(state, 1)),
                  BlockOutcome(1, Outcome(Kind.COINS, 2, (1, 2)), 8.0, "button", True)):
        model.apply(StateChanged("new game", "", phones(state, 1)), 8.0)
        assert model.scene(8.5).screen == "join"
        model.apply(going, 9.0)
        model.apply(StateChanged("phone link", "", phones(state, 1, 2)), 9.5)
        assert model.scene(30.0).screen == "table", going
    model.apply(StateChanged("resume game", "", phones(state, 1)), 31.0)
    assert model.scene(32.0).screen == "join"  # an earlier game again: its phones join
    model.set_timer(None, 32.5)
    assert model.scene(33.0).screen == "join"  # a timer stopped is no play
    model.set_timer(TimerView(100.0, 60.0), 34.0)
    model.set_timer(None, 35.0)
    assert model.scene(36.0).screen == "table"  # the lever timer ran: play began


def test_no_join_screen_without_the_games_own_link() -> None:
    state = phones(sample_state(), 1)
    for game, link in ((1, None), (2, LINK)):  # no link (no network); another game's
        model = DisplayModel(idle_after=None)
        model.set_join_link(game, link)
        model.apply(StateChanged("new game", "", state), 0.0)
        assert model.scene(1.0).screen == "table", (game, link)
        model.set_join_link(1, LINK)  # the link for this game arrives
        assert model.scene(2.0).screen == "join"
        model.set_join_link(1, None)
        assert model.scene(3.0).screen == "table"
    ended = DisplayModel(idle_after=None)
    ended.set_join_link(1, LINK)
    ended.apply(StateChanged("new game", "", dataclasses.replace(state, ended=True)), 0.0)
    assert ended.scene(1.0).screen == "winner"
    fresh = DisplayModel()  # the daemon's start: the idle screen, as before
    fresh.set_join_link(1, LINK)
    fresh.set_state(state)
    assert fresh.scene(0.0).screen == "idle"


# -- the picture ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_the_join_qr_is_segnos_symbol_module_for_module_and_scannable(size: str) -> None:
    scene = sample_scenes()["join-qr"]
    surface, labels = drawn(scene, size)
    assert_fits(surface, labels, size)
    said = [label.text for label in labels]
    assert said[0] == "Join the game"
    assert {"Scan with your phone,", "then tap your name", "No phone yet:"} <= set(said)
    assert {"Luigi", "Peach", "Yoshi"} <= set(said) and "Mario" not in said
    card = qr_card(Painter(surface))
    left, top, module, n = qr_geometry(SAMPLE_JOIN_LINK, card)
    assert module >= 3, f"{module}px modules are too small to scan at {size}"
    assert card.contains(pygame.Rect(left, top, module * n, module * n))
    matrix = qr_matrix(SAMPLE_JOIN_LINK)
    for y in range(n):
        for x in range(n):
            for dx, dy in ((0, 0), (module - 1, module - 1)):  # each module whole
                pixel = surface.get_at((left + x * module + dx, top + y * module + dy))[:3]
                assert pixel == ((0, 0, 0) if matrix[y][x] else (255, 255, 255)), (x, y)
    for label in labels:
        assert not label.rect.colliderect(card), label.text  # the code is never drawn over
    if size in ("320x240", "480x320"):
        SHOTS.mkdir(exist_ok=True)
        pygame.image.save(surface, str(SHOTS / f"screen-{size}-join-qr.png"))


@pytest.mark.parametrize("size", SIZES)
def test_six_players_without_a_phone_fit_with_the_warning_strip_too(size: str) -> None:
    scene = sample_scenes()["join-qr-6-players"]
    for shown in (scene, dataclasses.replace(scene, warning="NOT SAVED YET · the SD card")):
        surface, labels = drawn(shown, size)
        assert_fits(surface, labels, size)
        said = [label.text for label in labels]
        assert [name for name in said if name in names(scene)] == names(scene)


# -- the display thread and the daemon --------------------------------------------------------


def test_the_screen_asks_for_each_new_games_join_link(screen) -> None:  # noqa: F811
    asked: list[int] = []

    def join(game: int) -> str:
        asked.append(game)
        return f"http://10.0.0.5:8080/join#code={game}-abcdefghijklmnop"

    s = screen(DisplayConfig(enabled=True, idle_minutes=0))
    s.set_join_source(join)
    s.post(StateChanged("new game", "", phones(sample_state(), 1)))
    wait_for(lambda: s.last_scene is not None and s.last_scene.screen == "join")
    assert s.last_scene.link.endswith("code=1-abcdefghijklmnop") and asked[-1] == 1
    s.post(StateChanged("new game", "", other_game(sample_state(), 2)))
    wait_for(lambda: s.last_scene.link.endswith("code=2-abcdefghijklmnop"))
    assert names(s.last_scene) == ["Mario", "Luigi", "Peach", "Yoshi"]
    count = len(asked)
    s.post(StateChanged("phone link", "", phones(other_game(sample_state(), 2), 2)))
    wait_for(lambda: names(s.last_scene) == ["Mario", "Peach", "Yoshi"])
    assert len(asked) == count  # the same game: its link is not worked out again


async def test_the_daemons_screen_shows_a_join_code_the_web_takes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import companion.web.links

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setattr(companion.web.links, "lan_address", lambda: "10.9.8.7")
    config = dataclasses.replace(_config(tmp_path), web=WebConfig(host="0.0.0.0", port=0))
    app = Daemon(config, pin_factory=MockFactory())
    frontends = from_config(config)
    runner = asyncio.ensure_future(app.run(frontends))
    try:
        await app.ready.wait()
        shown = next(f for f in frontends if isinstance(f, ScreenFrontend)).screen
        web = next(f for f in frontends if isinstance(f, WebFrontend)).server
        assert web is not None and shown.ready.wait(10) and shown.available
        game = await app.table.act(c.Move("new_game", {"players": ["Ann", "Ben", "Cat"]}))
        await _until(lambda: shown.last_scene is not None and shown.last_scene.screen == "join")
        code = JoinCodes(web.token).code(game)
        assert shown.last_scene.link == f"http://10.9.8.7:{web.port}/join#code={code}"
        assert names(shown.last_scene) == ["Ann", "Ben", "Cat"]
        base = f"http://127.0.0.1:{web.port}/api/join"
        async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {code}"}) as s:
            async with s.get(base) as reply:
                assert reply.status == 200
                listed = (await reply.json())["players_without_phone"]
            ben = next(p["id"] for p in listed if p["name"] == "Ben")
            async with s.post(base, json={"player": ben}) as reply:
                assert reply.status == 201
        await _until(lambda: names(shown.last_scene) == ["Ann", "Cat"])
        await app.table.act(c.Move("transfer", {"from": ben, "to": "bank",
                                                "amount": 1}))  # play begins
        await _until(lambda: shown.last_scene.screen == "table")
    finally:
        app.request_stop()
        await runner
