"""The display thread on real outputs: SDL's dummy video driver and a framebuffer file.

It renders only when the picture changes (counted), shows what the daemon does, and a missing
video driver is one warning while the daemon carries on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from pathlib import Path

import pygame
import pytest
from gpiozero.pins.mock import MockFactory

from companion.app.commands import GetState, Move
from companion.config import (
    AudioConfig,
    Config,
    DataConfig,
    DisplayConfig,
    GameConfig,
    WebConfig,
)
from companion.core.outcomes import Kind, Outcome
from companion.daemon import Daemon
from companion.display.frontend import ScreenFrontend
from companion.display.outputs import FramebufferOutput
from companion.display.previews import sample_state
from companion.display.scene import Scene, TimerView
from companion.display.screen import Screen
from companion.events import BlockOutcome, StateChanged
from companion.frontends import from_config
from companion.web.server import WebFrontend


@pytest.fixture(autouse=True)
def dummy_video(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def wait_for(predicate, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


@pytest.fixture
def screen():
    made: list[Screen] = []

    def make(cfg: DisplayConfig | None = None, **kwargs) -> Screen:
        s = Screen(cfg or DisplayConfig(enabled=True, idle_minutes=0), **kwargs)
        s.start()
        assert s.ready.wait(10)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def test_an_idle_screen_does_not_render_again(screen) -> None:
    s = screen()
    assert s.output_name == "sdl:dummy"
    s.post(StateChanged("pass GO", "", sample_state()))
    wait_for(lambda: s.last_scene is not None and s.last_scene.screen == "table")
    settled, woke = s.renders, s.wakeups
    time.sleep(1.0)  # an idle second: no render, and the thread does not even wake up
    assert s.renders == settled and s.wakeups == woke
    # the same state again changes nothing on the picture: still no render
    s.post(StateChanged("pass GO", "", sample_state()))
    time.sleep(0.2)
    assert s.renders == settled


def test_the_frame_on_the_sdl_display_is_the_rendered_scene(screen) -> None:
    s = screen(DisplayConfig(enabled=True, size="320x240", rotate=90, idle_minutes=0))
    s.post(StateChanged("transfer", "", sample_state(players=6, current=5)))
    wait_for(lambda: s.last_scene is not None and s.last_scene.screen == "table")
    time.sleep(0.1)
    window = pygame.display.get_surface()
    assert window.get_size() == (240, 320)  # turned for a panel mounted sideways
    expected = pygame.transform.rotate(s.surface, -90)
    assert pygame.image.tobytes(window, "RGB") == pygame.image.tobytes(expected, "RGB")


def test_an_outcome_animates_briefly_then_the_screen_sleeps(screen) -> None:
    s = screen(DisplayConfig(enabled=True, outcome_seconds=2, idle_minutes=0))
    scenes: list[Scene] = []
    s.frame_listeners.append(lambda scene, at: scenes.append(scene))
    s.post(StateChanged("pass GO", "", sample_state()))
    s.post(BlockOutcome(1, Outcome(Kind.COINS, 3, (1, 3)), 0.0, "button", True))
    wait_for(lambda: s.last_scene is not None and s.last_scene.screen == "table"
             and any(sc.screen == "outcome" for sc in scenes))
    outcome_frames = [sc for sc in scenes if sc.screen == "outcome"]
    # the entrance (16 frames at most), plus the coins lighting, never a frame per loop spin
    assert 3 <= len(outcome_frames) <= 20
    assert [f.outcome.coins_shown for f in outcome_frames][-1] == 3
    assert len(set(outcome_frames)) == len(outcome_frames)  # every render was a new picture
    settled = s.renders
    time.sleep(0.5)
    assert s.renders == settled


def test_a_countdown_renders_once_a_second_until_its_last_seconds(screen) -> None:
    s = screen()
    seen: list[Scene] = []
    s.frame_listeners.append(lambda scene, at: seen.append(scene))
    s.set_timer(TimerView(time.monotonic() + 7.6, 8.0))
    time.sleep(1.5)
    ticks = [sc.timer.seconds for sc in seen if sc.timer is not None]
    assert ticks[:2] == [8, 7] and len(ticks) <= 3
    s.set_timer(None)
    wait_for(lambda: s.last_scene is not None and s.last_scene.screen == "idle")


def test_the_idle_screen_picks_up_the_link_when_the_network_comes_up(
        screen, monkeypatch: pytest.MonkeyPatch) -> None:
    import companion.display.screen

    monkeypatch.setattr(companion.display.screen, "LINK_RECHECK", 0.2)
    links = [None]
    s = screen(DisplayConfig(enabled=True))
    s.set_link_source(lambda: links[-1])
    wait_for(lambda: s.last_scene is not None and s.last_scene.screen == "idle")
    assert s.last_scene.link is None
    links.append("http://10.1.2.3:8080/#token=abcdefghijklmnopqrstu")  # DHCP answered
    wait_for(lambda: s.last_scene.link == links[-1])  # looked at again by itself
    assert s.last_scene.address == "http://10.1.2.3:8080"


@pytest.mark.parametrize(("bpp", "stride_pad"), [(16, 64), (32, 0)])
def test_framebuffer_output_writes_pixels_in_the_panels_format(
        tmp_path: Path, bpp: int, stride_pad: int) -> None:
    w, h = 480, 320
    stride = w * bpp // 8 + stride_pad
    fb = tmp_path / "fb1"
    fb.write_bytes(bytes(stride * h))
    out = FramebufferOutput(fb, geometry=(w, h, bpp, stride))
    frame = pygame.Surface((w, h))
    frame.fill((16, 20, 46))
    frame.fill((255, 200, 20), pygame.Rect(10, 20, 30, 40))
    out.show(frame)
    out.close()
    data = fb.read_bytes()
    assert len(data) == stride * h

    def pixel(x: int, y: int) -> tuple[int, int, int]:
        at = y * stride + x * bpp // 8
        if bpp == 16:
            v = int.from_bytes(data[at:at + 2], "little")
            return ((v >> 11) << 3, ((v >> 5) & 63) << 2, (v & 31) << 3)
        b, g, r = data[at], data[at + 1], data[at + 2]
        return (r, g, b)

    tolerance = 8 if bpp == 16 else 0
    for (x, y), want in (((15, 25), (255, 200, 20)), ((100, 100), (16, 20, 46)),
                         ((w - 1, h - 1), (16, 20, 46))):
        got = pixel(x, y)
        assert all(abs(a - b) <= tolerance for a, b in zip(got, want, strict=True)), (got, want)
    if stride_pad:  # padding at the end of each line is left alone
        assert data[w * 2: stride] == bytes(stride_pad)


def test_auto_does_not_settle_for_an_invisible_driver_when_the_desktop_is_gone(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from companion.display.outputs import DisplayUnavailable, open_output

    monkeypatch.delenv("SDL_VIDEODRIVER")
    monkeypatch.setenv("DISPLAY", ":99")  # a stale desktop: SDL would fall back to offscreen
    cfg = DisplayConfig(enabled=True, framebuffer=str(tmp_path / "fb9"))
    with pytest.raises(DisplayUnavailable) as info:
        open_output(cfg)
    message = str(info.value)
    assert "unreachable" in message or "x11" in message.lower()
    assert "kmsdrm" in message and "fb9" in message  # it went on to try the panel drivers


def test_a_failing_output_ends_the_screen_cleanly(screen) -> None:
    class Broken:
        name, needs_pump = "broken", False

        def show(self, frame) -> None:
            raise OSError(5, "Input/output error")

        def pump(self) -> bool:
            return True

        def close(self) -> None:
            pass

    s = screen(open_output=Broken)
    wait_for(lambda: not s.available)
    for _ in range(100):
        s.post(StateChanged("pass GO", "", sample_state()))
    assert len(s._inbox) == 0  # nothing piles up for a screen that is gone


def test_framebuffer_that_is_missing_or_odd_is_a_clear_unavailability(tmp_path: Path) -> None:
    from companion.display.outputs import DisplayUnavailable

    with pytest.raises(DisplayUnavailable, match="fb7"):
        FramebufferOutput(tmp_path / "fb7", geometry=(480, 320, 16, 960))
    odd = tmp_path / "fb2"
    odd.write_bytes(b"")
    with pytest.raises(DisplayUnavailable, match="24 bits per pixel"):
        FramebufferOutput(odd, geometry=(480, 320, 24, 1440))


def _config(tmp_path: Path, **display) -> Config:
    return Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                  web=WebConfig(host="127.0.0.1", port=0),
                  display=DisplayConfig(enabled=True, **display),
                  game=GameConfig(players=("Mario", "Luigi", "Peach", "Yoshi")))  # named


async def _until(predicate, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_the_daemon_shows_the_press_its_player_and_the_tablet_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import companion.web.links

    monkeypatch.setattr(companion.web.links, "lan_address", lambda: "10.9.8.7")
    config = dataclasses.replace(_config(tmp_path), web=WebConfig(host="0.0.0.0", port=0))
    app = Daemon(config, pin_factory=MockFactory(), rng=_Dice([2, 4]))  # coins: 4
    frontends = from_config(config)
    runner = asyncio.ensure_future(app.run(frontends))
    await app.ready.wait()
    screen = next(f for f in frontends if isinstance(f, ScreenFrontend)).screen
    web = next(f for f in frontends if isinstance(f, WebFrontend)).server
    assert screen.ready.wait(10) and screen.available
    await _until(lambda: screen.last_scene is not None and screen.last_scene.link is not None)
    idle = screen.last_scene
    assert idle.screen == "idle"  # at start: the QR code, with the balances from the bank
    assert web is not None and idle.link == f"http://10.9.8.7:{web.port}/#token={web.token}"
    assert [(p.name, p.balance) for p in idle.players] == [
        ("Mario", 30), ("Luigi", 30), ("Peach", 30), ("Yoshi", 30)]
    await app.table.act(Move("set_current",
                             {"player": (await app.table.read(GetState())).players[1].id}))
    app.button.pin.drive_low()
    await _until(lambda: screen.last_scene.screen == "outcome"
                 and not screen.last_scene.outcome.waiting)
    face = screen.last_scene.outcome
    assert (face.kind, face.coins, face.player, face.delta, face.balance) == (
        Kind.COINS, 4, "Luigi", 4, 34)
    app.request_stop()
    await runner
    assert screen._thread is not None and not screen._thread.is_alive()  # closed with it


async def test_no_video_driver_is_one_warning_and_the_daemon_carries_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    config = _config(tmp_path, driver="kmsdrm")
    app = Daemon(config, pin_factory=MockFactory())
    frontends = from_config(config)
    runner = asyncio.ensure_future(app.run(frontends))
    await app.ready.wait()
    screen = next(f for f in frontends if isinstance(f, ScreenFrontend)).screen
    assert screen.ready.wait(10) and not screen.available
    warnings = [r for r in caplog.records if "display unavailable" in r.getMessage()]
    assert len(warnings) == 1 and "kmsdrm" in warnings[0].getMessage()
    event = app.table.press()
    assert isinstance(event, BlockOutcome)
    app.request_stop()
    await runner


def test_bad_display_config_names_the_key(tmp_path: Path) -> None:
    from tests.conftest import run_companion

    for line, key in (('size = "480"', "display.size"), ('driver = "fbcon"', "display.driver"),
                      ("rotate = 45", "display.rotate"),
                      ('fullscreen = "maybe"', "display.fullscreen")):
        path = tmp_path / "c.toml"
        path.write_text(f"[display]\n{line}\n")
        result = run_companion("config", "--check", "--config", str(path))
        assert result.returncode == 2, line
        assert key in result.stderr and "Traceback" not in result.stderr


class _Dice:
    def __init__(self, rolls: list[int]) -> None:
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        return self.rolls.pop(0)


def test_a_display_that_appears_later_is_picked_up(screen, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    import companion.display.screen
    from companion.display.outputs import DisplayUnavailable, open_output

    monkeypatch.setattr(companion.display.screen, "RETRY", 0.2)
    attempts = []

    def late_panel():
        attempts.append(time.monotonic())
        if len(attempts) < 3:  # the panel's driver is still loading
            raise DisplayUnavailable("no /dev/fb1 yet")
        return open_output(DisplayConfig(enabled=True))

    caplog.set_level(logging.WARNING)
    s = screen(open_output=late_panel)
    assert not s.available
    s.post(StateChanged("pass GO", "", sample_state()))  # news while there is no panel
    wait_for(lambda: s.available)
    wait_for(lambda: s.last_scene is not None and s.last_scene.screen == "table")
    assert len(attempts) == 3
    assert len([r for r in caplog.records if "display unavailable" in r.getMessage()]) == 1
    assert any("display is back" in r.getMessage() for r in caplog.records)
