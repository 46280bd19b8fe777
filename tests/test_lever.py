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
from companion.daemon import Companion
from companion.events import TimerChanged
from tests.conftest import ROOT, alsa_file_home

# -- the state machine ----------------------------------------------------------------------


def pull_and_release(timer: LeverTimer, at: float, hold: float = 0.5) -> list:
    return timer.edge(at, True) + timer.edge(at + hold, False)


def test_release_after_a_pull_starts_and_the_deadline_ends_it_once() -> None:
    timer = LeverTimer(LeverSettings(seconds=14))
    assert timer.edge(1.0, True) == [] and timer.phase is Phase.HELD
    assert timer.edge(1.4, False) == [Started(14.0, 15.4, "lever")]
    assert timer.remaining(8.4) == pytest.approx(7.0)
    assert timer.expire(15.39) == []
    assert timer.expire(15.4) == [TimeUp(15.4)]
    assert timer.expire(20.0) == [] and timer.phase is Phase.IDLE
    assert timer.state(20.0)["running"] is False


def test_pulling_back_while_it_runs_stops_it_and_letting_go_rearms_a_fresh_time() -> None:
    timer = LeverTimer(LeverSettings(seconds=14))
    pull_and_release(timer, 0.0)
    assert timer.edge(5.0, True) == [Stopped("lever")]
    assert timer.phase is Phase.HELD and timer.remaining(5.0) == 0
    assert timer.edge(6.0, False) == [Started(14.0, 20.0, "lever")]
    assert timer.runs == 2


def test_a_release_without_a_pull_does_nothing() -> None:
    timer = LeverTimer()
    timer.start(0.0)  # the tablet started it; the lever is let go later
    assert timer.edge(1.0, True) == [Stopped("lever")]
    timer2 = LeverTimer()
    timer2._closed = True  # the lever was already back when the daemon started
    assert timer2.edge(3.0, False) == []


@pytest.mark.parametrize(("held", "seconds"), [
    (0.5, 7.5), (1.0, 15.0), (1.5, 22.5), (2.0, 30.0), (5.0, 30.0), (0.01, MIN_SECONDS),
])
def test_wind_up_time_is_proportional_to_the_hold_and_capped(held: float, seconds: float) -> None:
    timer = LeverTimer(LeverSettings(wind_up=True, max_seconds=30, full_wind=2.0, lockout=0))
    effects = pull_and_release(timer, 10.0, hold=held)
    assert effects == [Started(pytest.approx(seconds), pytest.approx(10.0 + held + seconds),
                               "lever")]


def test_chatter_is_ignored_and_the_settled_level_is_read_again() -> None:
    timer = LeverTimer(LeverSettings(seconds=10, lockout=0.05))
    assert timer.edge(0.0, True) == []
    # letting go with a bouncy contact: one start, the bounces are counted and ignored
    bounces = [(1.000, False), (1.003, True), (1.006, False), (1.008, True), (1.012, False)]
    effects = [e for at, closed in bounces for e in timer.edge(at, closed)]
    assert effects == [Started(10.0, 11.0, "lever")]
    assert timer.chatter == 4
    assert timer.recheck_at() == pytest.approx(1.05)
    assert timer.edge(1.05, False) == []  # settled open: nothing more
    # a flick so quick that its release fell inside the lockout: the recheck catches it
    flick = LeverTimer(LeverSettings(seconds=10, lockout=0.05))
    assert flick.edge(0.0, True) == [] and flick.edge(0.02, False) == []
    assert flick.phase is Phase.HELD
    assert flick.edge(flick.recheck_at(), False) == [Started(10.0, 10.05, "lever")]


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
    settings_ = LeverSettings(seconds=14, wind_up=wind_up, max_seconds=30, full_wind=2)
    timer = LeverTimer(settings_)
    now, running, starts = 0.0, False, 0
    for action, gap in steps:
        now += gap
        if action == "pull":
            effects = timer.edge(now, True)
        elif action == "release":
            effects = timer.edge(now, False)
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


async def lever_flick(app: Companion, hold: float = 0.12) -> None:
    pin = app.lever.switch.pin
    pin.drive_low()
    await asyncio.sleep(hold)
    pin.drive_high()


async def test_motor_pin_is_high_exactly_while_the_timer_runs(tmp_path: Path) -> None:
    app = Companion(_config(tmp_path, motor_pin=22), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run())
    await app.ready.wait()
    motor = app.lever.motor.pin
    changes: list[TimerChanged] = []
    app.listeners.append(lambda e: changes.append(e) if isinstance(e, TimerChanged) else None)
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
    app = Companion(_config(tmp_path, motor_pin=22, motor_speed=40, seconds=5.0),
                    pin_factory=MockFactory(pin_class=MockPWMPin))
    runner = asyncio.ensure_future(app.run())
    await app.ready.wait()
    pin = app.lever.motor.pin
    app.lever.start()
    assert pin.state == pytest.approx(0.4)
    app.lever.stop()
    assert pin.state == 0
    app.request_stop()
    await runner


async def test_lever_chatter_on_real_pin_edges_gives_one_run(tmp_path: Path) -> None:
    app = Companion(_config(tmp_path, seconds=30.0), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run())
    await app.ready.wait()
    starts: list[TimerChanged] = []
    app.listeners.append(
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
    app = Companion(_config(tmp_path, motor_pin=22))
    runner = asyncio.ensure_future(app.run())
    await app.ready.wait()
    assert app.lever.switch is None and app.lever.motor is None
    assert "no GPIO" in caplog.text
    assert app.lever.start()["running"] is True
    app.request_stop()
    await runner


# -- the tablet's routes -------------------------------------------------------------------------


async def test_timer_routes_and_the_websocket(tmp_path: Path) -> None:
    app = Companion(_config(tmp_path, seconds=14.0), pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run())
    await app.ready.wait()
    base = app.web.url.rstrip("/")
    auth = {"Authorization": f"Bearer {app.web.token}"}
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
    app = Companion(config, pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run())
    await app.ready.wait()
    assert app.lever.state()["label"] == "Worms are moving!"
    base = app.web.url.rstrip("/")
    auth = {"Authorization": f"Bearer {app.web.token}"}
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

    def drain() -> None:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
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
