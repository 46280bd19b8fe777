"""The lever timer: the pure state machine on a fake clock, the lever and motor on gpiozero's
MockFactory pins, the tablet's routes on a real server, and the time-up sound through ALSA."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path

import aiohttp
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.config import AudioConfig, Config, DataConfig, GameConfig, LeverConfig, WebConfig
from companion.core.lever import (
    LAST_SECONDS,
    MIN_SECONDS,
    LeverSettings,
    LeverTimer,
    Phase,
    Started,
    Stopped,
    TimeUp,
    cue,
)
from companion.daemon import Daemon
from companion.events import TimerChanged
from companion.frontends import from_config
from companion.web.server import WebFrontend, WebServer
from tests.conftest import ROOT, alsa_file_home, read_until_closed

# -- the state machine ----------------------------------------------------------------------


L = 0.05  # the lockout in these tests


def lever(timer: LeverTimer, at: float, closed: bool) -> list:
    """A clean lever edge at ``at`` and the settle check ``L`` later."""
    return timer.edge(at, closed) + timer.settle(at + L)


def pull_and_release(timer: LeverTimer, at: float, hold: float = 0.5) -> list:
    return lever(timer, at, True) + lever(timer, at + hold, False)


def test_release_after_a_pull_starts_and_the_deadline_ends_it_once() -> None:
    timer = LeverTimer(LeverSettings(seconds=14, lockout=L))
    assert timer.edge(1.0, True) == [] and timer.phase is Phase.IDLE  # not settled yet
    assert timer.settle(1.0 + L) == [] and timer.phase is Phase.HELD
    assert lever(timer, 1.4, False) == [Started(14.0, 1.4 + L + 14, "lever")]
    deadline = 1.4 + L + 14
    assert timer.remaining(deadline - 7) == pytest.approx(7.0)
    assert timer.expire(deadline - 0.01) == []
    assert timer.expire(deadline) == [TimeUp(deadline)]
    assert timer.expire(deadline + 5) == [] and timer.phase is Phase.IDLE
    assert timer.state(20.0).running is False


def test_pulling_back_while_it_runs_stops_it_and_letting_go_rearms_a_fresh_time() -> None:
    timer = LeverTimer(LeverSettings(seconds=14, lockout=L))
    pull_and_release(timer, 0.0)
    assert lever(timer, 5.0, True) == [Stopped("lever")]
    assert timer.phase is Phase.HELD and timer.remaining(5.1) == 0
    assert lever(timer, 6.0, False) == [Started(14.0, 6.0 + L + 14, "lever")]
    assert timer.runs == 2


def test_a_release_without_a_pull_does_nothing() -> None:
    timer = LeverTimer(LeverSettings(lockout=L))
    timer.start(0.0)  # the tablet started it; the lever is pulled and let go later
    assert lever(timer, 1.0, True) == [Stopped("lever")]
    held = LeverTimer(LeverSettings(lockout=L))
    lever(held, 0.0, True)
    held.start(1.0)  # the tablet starts while the lever is held back
    assert lever(held, 2.0, False) == []  # letting go does not restart it
    assert held.phase is Phase.RUNNING and held.runs == 1


@pytest.mark.parametrize(("held", "seconds"), [
    (0.5, 7.5), (1.0, 15.0), (1.5, 22.5), (2.0, 30.0), (5.0, 30.0), (0.06, MIN_SECONDS),
])
def test_wind_up_time_is_proportional_to_the_hold_and_capped(held: float, seconds: float) -> None:
    timer = LeverTimer(LeverSettings(wind_up=True, max_seconds=30, full_wind=2.0, lockout=L))
    effects = pull_and_release(timer, 10.0, hold=held)
    assert effects == [Started(pytest.approx(seconds), pytest.approx(10.0 + held + L + seconds),
                               "lever")]


def test_chatter_and_glitches_never_start_or_stop_anything() -> None:
    timer = LeverTimer(LeverSettings(seconds=10, lockout=L))
    lever(timer, 0.0, True)
    # letting go with a bouncy contact: one start, once the level has held for the lockout
    bounces = [(1.000, False), (1.003, True), (1.006, False), (1.008, True), (1.012, False)]
    effects = [e for at, closed in bounces for e in timer.edge(at, closed)]
    assert effects == [] and timer.chatter == 4
    assert timer.recheck_at() == pytest.approx(1.012 + L)
    assert timer.settle(1.03) == []  # too early: still bouncing as far as we know
    assert timer.settle(1.012 + L) == [Started(10.0, pytest.approx(11.062), "lever")]
    # a glitch on an idle lever (a spike shorter than the lockout): nothing at all
    idle = LeverTimer(LeverSettings(seconds=10, lockout=L))
    assert idle.edge(5.0, True) + idle.edge(5.001, False) + idle.settle(5.1) == []
    assert idle.phase is Phase.IDLE and idle.runs == 0
    # a blip open while the lever is held back: no start, no motor pulse
    held = LeverTimer(LeverSettings(seconds=10, lockout=L))
    lever(held, 0.0, True)
    assert held.edge(1.0, False) + held.edge(1.002, True) + held.settle(1.2) == []
    assert held.phase is Phase.HELD and held.runs == 0


def test_a_bad_time_is_refused_before_anything_changes() -> None:
    timer = LeverTimer(LeverSettings(seconds=14, lockout=L))
    timer.start(0.0, 5)
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            timer.start(1.0, bad)
    assert timer.phase is Phase.RUNNING and timer.deadline == 5.0


def test_the_tablet_starts_restarts_and_stops() -> None:
    timer = LeverTimer(LeverSettings(seconds=14))
    assert timer.stop(0.0) == []  # nothing running: nothing to stop
    assert timer.start(1.0, 30) == [Started(30.0, 31.0, "tablet")]
    assert timer.start(2.0) == [Stopped("tablet"), Started(14.0, 16.0, "tablet")]
    assert timer.stop(3.0) == [Stopped("tablet")] and timer.phase is Phase.IDLE
    with pytest.raises(ValueError):
        timer.start(4.0, 0)


def test_the_running_sound_speeds_up_in_the_last_seconds() -> None:
    assert cue(14.0, "music") == ("timer_loop", 2.0)
    assert cue(6.0, "music") == ("timer_loop", pytest.approx(1.0))  # the loop gives way at 5 s
    assert cue(14.0, "ticks") == ("timer_tick", 1.0)
    assert cue(LAST_SECONDS, "music") == ("timer_tick", 0.5)
    assert cue(1.5, "ticks") == ("timer_tick", 0.25)
    assert cue(3.0, "off")[0] is None and cue(0.0, "ticks")[0] is None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["pull", "release", "start", "stop", "tick"]),
                          st.floats(0.0, 3.0)), max_size=40),
       st.booleans())
def test_every_start_is_ended_once_and_the_motor_rule_holds(steps, wind_up) -> None:
    """Whatever the lever and the tablet do: a run ends (stop or time up) before the next one
    starts, the timer runs exactly while the last effect was a start, and no run is longer
    than allowed."""
    settings_ = LeverSettings(seconds=14, wind_up=wind_up, max_seconds=30, full_wind=2,
                              lockout=0.05)
    timer = LeverTimer(settings_)
    now, running, starts = 0.0, False, 0
    for action, gap in steps:
        now += gap
        if action == "pull":
            effects = timer.edge(now, True) + timer.settle(now + gap / 2)
        elif action == "release":
            effects = timer.edge(now, False) + timer.settle(now + gap / 2)
        elif action == "start":
            effects = timer.start(now)
        elif action == "stop":
            effects = timer.stop(now)
        else:
            effects = timer.expire(now + 20)
            now += 20
        for effect in effects:
            if isinstance(effect, Started):
                assert not running, "a second start without an end"
                assert MIN_SECONDS <= effect.duration <= 30
                running, starts = True, starts + 1
            else:
                assert running, f"{effect} without a run"
                running = False
        assert (timer.phase is Phase.RUNNING) == running
    assert timer.runs == starts


# -- the lever and motor on MockFactory pins ---------------------------------------------------


def _config(tmp_path: Path, **lever) -> Config:
    return Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                  web=WebConfig(host="127.0.0.1", port=0),
                  lever=LeverConfig(**{"seconds": 1.0, "sound": "ticks", **lever}))


async def until(predicate, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.005)


def web(app: Daemon) -> WebServer:
    server = next(f for f in app.frontends if isinstance(f, WebFrontend)).server
    assert server is not None
    return server


async def lever_flick(app: Daemon, hold: float = 0.12) -> None:
    pin = app.lever.switch.pin
    pin.drive_low()
    await asyncio.sleep(hold)
    pin.drive_high()


async def test_motor_pin_is_high_exactly_while_the_timer_runs(tmp_path: Path) -> None:
    app = Daemon(_config(tmp_path, motor_pin=22), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    motor = app.lever.motor.pin
    changes: list[TimerChanged] = []
    app.table.subscribe(lambda e: changes.append(e) if isinstance(e, TimerChanged) else None)
    assert motor.state == 0
    await lever_flick(app)
    await until(lambda: app.lever.timer.phase is Phase.RUNNING)
    assert motor.state == 1
    await until(lambda: changes and changes[-1].what == "time_up", timeout=3)  # expiry
    assert motor.state == 0
    await lever_flick(app)
    await until(lambda: motor.state == 1)
    app.lever.switch.pin.drive_low()  # pulled back while running: stop
    await until(lambda: changes[-1].what == "stopped")
    assert motor.state == 0 and changes[-1].source == "lever"
    app.lever.switch.pin.drive_high()  # ...and letting go re-arms a fresh time
    await until(lambda: changes[-1].what == "started")
    assert motor.state == 1
    app.request_stop()  # daemon shutdown while running
    await runner
    assert motor.state == 0
    assert [c.what for c in changes][-1] == "stopped" and changes[-1].source == "shutdown"


async def test_pwm_motor_runs_at_the_configured_power(tmp_path: Path) -> None:
    app = Daemon(_config(tmp_path, motor_pin=22, motor_speed=40, seconds=5.0),
                    pin_factory=MockFactory(pin_class=MockPWMPin))
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    pin = app.lever.motor.pin
    app.lever.start()
    assert pin.state == pytest.approx(0.4)
    app.lever.stop()
    assert pin.state == 0
    app.request_stop()
    await runner


async def test_lever_chatter_on_real_pin_edges_gives_one_run(tmp_path: Path) -> None:
    app = Daemon(_config(tmp_path, seconds=30.0), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    starts: list[TimerChanged] = []
    app.table.subscribe(
        lambda e: starts.append(e) if isinstance(e, TimerChanged) and e.what == "started"
        else None)
    pin = app.lever.switch.pin
    pin.drive_low()
    await asyncio.sleep(0.2)
    for _ in range(6):  # a bouncy release: edges a millisecond apart, ending released
        pin.drive_high()
        pin.drive_low()
    pin.drive_high()
    await asyncio.sleep(0.3)  # past the lockout and its recheck
    assert len(starts) == 1 and app.lever.timer.phase is Phase.RUNNING
    assert app.lever.timer.chatter >= 6
    app.request_stop()
    await runner


async def test_no_gpio_means_no_lever_but_the_tablet_still_runs_the_timer(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    app = Daemon(_config(tmp_path, motor_pin=22))
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    assert app.lever.switch is None and app.lever.motor is None
    assert "no GPIO" in caplog.text
    assert app.lever.start().running is True
    app.request_stop()
    await runner


# -- the tablet's routes -------------------------------------------------------------------------


async def test_timer_routes_and_the_websocket(tmp_path: Path) -> None:
    app = Daemon(_config(tmp_path, seconds=14.0), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    base = web(app).url.rstrip("/")
    auth = {"Authorization": f"Bearer {web(app).token}"}
    async with aiohttp.ClientSession() as s, s.ws_connect(base + "/ws") as ws:
        hello = await ws.receive_json()
        assert hello["state"]["timer"]["phase"] == "idle"
        async with s.post(base + "/api/timer/start") as r:
            assert r.status == 401 and "error" in await r.json()
        for bad in ({"seconds": 0}, {"seconds": "10"}, {"seconds": True}, {"seconds": 1e9},
                    {"secs": 5}, [1]):
            async with s.post(base + "/api/timer/start", json=bad, headers=auth) as r:
                assert r.status == 400 and "error" in await r.json(), bad
        assert app.lever.timer.phase is Phase.IDLE  # refusals changed nothing
        async with s.post(base + "/api/timer/start", json={"seconds": 20},
                          headers=auth) as r:
            body = await r.json()
            assert r.status == 200 and body["timer"]["running"] is True
            assert body["timer"]["duration"] == 20.0
        pushed = await ws.receive_json()
        assert pushed["type"] == "timer" and pushed["what"] == "started"
        assert pushed["source"] == "tablet" and 19 < pushed["timer"]["remaining"] <= 20
        async with s.get(base + "/api/state") as r:
            assert (await r.json())["timer"]["running"] is True
        async with s.post(base + "/api/timer/stop", headers=auth) as r:
            assert (await r.json())["timer"]["running"] is False
        pushed = await ws.receive_json()
        assert (pushed["what"], pushed["source"]) == ("stopped", "tablet")
        async with s.post(base + "/api/timer/stop", headers=auth) as r:
            assert r.status == 200  # stopping a stopped timer is harmless
    app.request_stop()
    await runner


async def test_wiggly_worms_edition_is_timer_only(tmp_path: Path) -> None:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                    web=WebConfig(host="127.0.0.1", port=0),
                    game=GameConfig(edition="wiggly_worms", players=("Ann", "Ben")))
    app = Daemon(config, pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    assert str(app.lever.state().label) == "Worms are moving!"
    base = web(app).url.rstrip("/")
    auth = {"Authorization": f"Bearer {web(app).token}"}
    async with aiohttp.ClientSession() as s:
        async with s.get(base + "/api/state") as r:
            state = await r.json()
        assert state["game"]["bank"] is False
        ann, ben = (p["id"] for p in state["players"])
        async with s.post(base + "/api/transfers", headers=auth,
                          json={"from": ann, "to": ben, "amount": 1}) as r:
            assert r.status == 400 and "keeps no coins" in (await r.json())["error"]
    app.request_stop()
    await runner


# -- the sound through ALSA --------------------------------------------------------------------


def _wav(name: str) -> bytes:
    with wave.open(str(ROOT / "sounds" / f"{name}.wav"), "rb") as wav:
        return wav.readframes(wav.getnframes())


@pytest.mark.alsa
def test_time_up_sounds_once_at_expiry_after_the_ticks(tmp_path: Path) -> None:
    fifo = tmp_path / "pcm.fifo"
    os.mkfifo(fifo)
    env = alsa_file_home(tmp_path / "home", fifo)
    received = bytearray()
    fd = os.open(fifo, os.O_RDWR)  # stays open across ALSA streams: no EOF in between

    reader = threading.Thread(target=read_until_closed, args=(fd, received), daemon=True)
    reader.start()
    try:
        done = subprocess.run([sys.executable, "-m", "tests.lever_child", "ticks", "2", "3.5"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        time.sleep(0.3)
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["what"] for e in events] == ["started", "time_up"]
    data = bytes(received)
    time_up, tick = _wav("time_up"), _wav("timer_tick")
    assert data.count(time_up) == 1
    ticks_before = data[: data.index(time_up)].count(tick)
    assert ticks_before >= 4  # 2 s: ticks every 0.5 s, then every 0.25 s
    assert data[data.index(time_up) + len(time_up):].count(tick) == 0  # silent afterwards


class _HeldPlayback:
    """A sound that plays until stopped (what a real device does with a long loop)."""

    def __init__(self, name: str) -> None:
        self.name, self.stopped = name, False

    def is_playing(self) -> bool:
        return not self.stopped

    def stop(self) -> None:
        self.stopped = True


class _HeldBackend:
    name = "held"

    def __init__(self) -> None:
        self.played: list[_HeldPlayback] = []

    def open(self) -> None:
        pass

    def play(self, pcm) -> _HeldPlayback:
        from companion.audio.library import SoundLibrary

        names = {id(v.data): k for k, v in SoundLibrary().sounds.items()}
        playback = _HeldPlayback(names.get(id(pcm.data), "?"))
        self.played.append(playback)
        return playback

    def close(self) -> None:
        pass


async def test_stopping_silences_the_running_sound_and_restarts_announce_each_step(
        tmp_path: Path) -> None:
    backend = _HeldBackend()
    app = Daemon(_config(tmp_path, sound="music", seconds=30.0), pin_factory=MockFactory(),
                    backend=backend)
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    changes: list[TimerChanged] = []
    app.table.subscribe(lambda e: changes.append(e) if isinstance(e, TimerChanged) else None)
    app.lever.start()
    assert [p for p in backend.played if not p.stopped]  # the music plays
    app.lever.start(20)  # a restart from the tablet: stopped, then started
    assert [c.what for c in changes] == ["started", "stopped", "started"]
    assert changes[1].state.running is False and changes[1].deadline is None
    assert changes[2].state.running is True and changes[2].duration == 20
    app.lever.stop()
    assert all(p.stopped for p in backend.played)  # silence
    app.request_stop()
    await runner


async def test_shutdown_stops_the_motor_first_even_with_a_request_stuck(tmp_path: Path) -> None:
    app = Daemon(_config(tmp_path, motor_pin=22, seconds=3600.0), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    motor = app.lever.motor.pin
    app.lever.start()
    assert motor.state == 1
    _reader, writer = await asyncio.open_connection("127.0.0.1", web(app).port)
    writer.write(b"POST /api/timer/stop HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
    await writer.drain()  # a tablet on bad Wi-Fi: the body never comes
    await asyncio.sleep(0.1)
    app.request_stop()
    await asyncio.sleep(0.05)
    assert motor.state == 0 and not runner.done()  # off before anything else is waited for
    await asyncio.wait_for(runner, 5)
    writer.close()


def test_parts_cannot_share_a_pin(tmp_path: Path) -> None:
    from tests.conftest import run_companion

    for text, key in (("[lever]\npin = 26\n", "lever.pin"),
                      ("[lever]\nmotor_pin = 27\n", "lever.motor_pin"),
                      ("[block]\npin = 22\n[lever]\nmotor_pin = 22\n", "lever.motor_pin")):
        path = tmp_path / "c.toml"
        path.write_text(text)
        done = run_companion("config", "--check", "--config", str(path))
        assert done.returncode == 2 and key in done.stderr and "already" in done.stderr
    path.write_text("[lever]\nenabled = false\npin = 26\n")  # a lever that is off claims nothing
    assert run_companion("config", "--check", "--config", str(path)).returncode == 0
