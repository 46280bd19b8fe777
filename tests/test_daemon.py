"""The daemon on real mock pins and a real event loop: press -> outcome -> sound -> listeners."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from companion.app.commands import Move
from companion.audio.backend import AudioError
from companion.audio.null_backend import NullBackend
from companion.audio.pcm import Pcm
from companion.audio.speaker import Priority, Speaker
from companion.bank import Bank
from companion.bank.service import BankService
from companion.config import AudioConfig, Config, DataConfig, GameConfig
from companion.core.editions import editions
from companion.daemon import SETTLE_AFTER_S, Daemon
from companion.events import BlockOutcome, Event, PressIgnored, StateChanged
from companion.exc import Refused, Unavailable
from companion.frontends import from_config
from tests.conftest import spawn_companion, wait_for_line


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def make_app(first: Callable[[Event], None] | None = None,
             **kwargs: object) -> tuple[Daemon, NullBackend, list[Event], Clock]:
    backend = NullBackend()
    clock = Clock()
    app = Daemon(Config(audio=AudioConfig(backend="null")), pin_factory=MockFactory(),
                 rng=random.Random(7), backend=backend, clock=clock, **kwargs)  # type: ignore[arg-type]
    events: list[Event] = []
    if first is not None:
        app.table.subscribe(first)
    app.table.subscribe(lambda e: None if isinstance(e, StateChanged) else events.append(e))
    return app, backend, events, clock


async def settle() -> None:
    """Until a press from the pin has settled on the loop: its hand-over runs, then the
    settling timer (due before this sleep's, which is scheduled after it)."""
    for _ in range(3):
        await asyncio.sleep(0)
    await asyncio.sleep(SETTLE_AFTER_S)
    for _ in range(3):
        await asyncio.sleep(0)


async def test_pin_press_reaches_the_loop_and_plays_the_outcome() -> None:
    app, backend, events, clock = make_app()
    app.start(asyncio.get_running_loop())
    app.button.pin.drive_low()
    await settle()
    assert len(events) == 1 and isinstance(events[0], BlockOutcome)
    outcome = events[0].outcome
    assert events[0].at == clock.now and events[0].source == "button"
    assert backend.played == [app.table.library.for_outcome(outcome)]
    assert outcome == editions()["celebration"].default_mode.draw(random.Random(7))
    app.close()


async def test_press_from_the_gpio_thread_is_handled_on_the_loop_thread() -> None:
    app, backend, events, _ = make_app()
    app.start(asyncio.get_running_loop())
    loop_thread = threading.get_ident()
    seen_on: list[int] = []
    app.table.subscribe(lambda _e: seen_on.append(threading.get_ident()))
    pin = app.button.pin
    worker = threading.Thread(target=pin.drive_low)  # like gpiozero's edge-callback thread
    worker.start()
    worker.join()
    for _ in range(100):
        if events:
            break
        await asyncio.sleep(0.01)
    assert len(events) == 1 and isinstance(events[0], BlockOutcome)
    assert seen_on and set(seen_on) == {loop_thread} != {worker.ident}
    assert len(backend.played) == 1
    app.close()


async def test_presses_racing_shutdown_are_dropped_not_played() -> None:
    app, backend, events, clock = make_app()
    app.start(asyncio.get_running_loop())
    pin = app.button.pin
    pin.drive_low()  # queued on the loop, not yet run ...
    app.close()  # ... when the daemon stops
    await settle()
    assert events == [] and backend.played == []
    app._press_from_thread(clock())  # a late edge from a GPIO thread after close
    await settle()
    assert events == [] and backend.played == []
    with pytest.raises(RuntimeError, match="stopped"):
        app.table.press(source="tablet")


async def test_press_while_sounding_is_ignored_then_accepted_after() -> None:
    app, backend, events, clock = make_app()
    app.start(asyncio.get_running_loop())
    pin = app.button.pin
    pin.drive_low()
    await settle()
    first = events[0]
    assert isinstance(first, BlockOutcome)
    length = app.table.library.seconds(first.outcome)
    assert length > 0.1
    clock.now += 0.2
    pin.drive_high()
    clock.now += length / 2
    pin.drive_low()  # a clean press, but the outcome is still sounding
    await settle()
    assert isinstance(events[1], PressIgnored)
    clock.now += length
    pin.drive_high()
    clock.now += 0.2
    pin.drive_low()
    await settle()
    assert isinstance(events[2], BlockOutcome) and events[2].number == 2
    assert len(backend.played) == 2
    assert app.table.block.ignored == 1
    app.close()


async def test_a_failing_listener_does_not_lose_the_outcome(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(_event: Event) -> None:
        raise RuntimeError("display fell off")

    app, _backend, events, _ = make_app(first=broken)
    app.start(asyncio.get_running_loop())
    with caplog.at_level(logging.ERROR):
        event = app.table.press(source="tablet")
    assert isinstance(event, BlockOutcome) and events == [event]
    assert "a listener failed" in caplog.text
    app.close()


async def test_button_unavailable_warns_and_carries_on(caplog: pytest.LogCaptureFixture) -> None:
    factory = MockFactory()
    first = Daemon(Config(), pin_factory=factory, backend=NullBackend())
    second = Daemon(Config(), pin_factory=factory, backend=NullBackend())
    loop = asyncio.get_running_loop()
    first.start(loop)
    with caplog.at_level(logging.WARNING):
        second.start(loop)  # BCM 26 is taken: like a pin in use by another program
    assert second.button is None
    assert "block button on BCM 26 unavailable" in caplog.text
    assert isinstance(second.table.press(source="tablet"), BlockOutcome)
    first.close()
    second.close()


async def test_run_returns_on_request_stop_and_releases_the_pin() -> None:
    factory = MockFactory()
    app = Daemon(Config(), pin_factory=factory, backend=NullBackend())
    task = asyncio.create_task(app.run())
    await settle()
    assert app.button is not None
    app.request_stop()
    await asyncio.wait_for(task, 5)
    assert app.button is None
    # The pin is free again: a new daemon on the same GPIO can claim it.
    again = Daemon(Config(), pin_factory=factory, backend=NullBackend())
    again.start(asyncio.get_running_loop())
    assert again.button is not None
    again.close()


class BusyDevice:
    """A device that, like a bare ALSA ``hw`` PCM, takes one stream at a time."""

    name = "busy-hw"

    def __init__(self) -> None:
        self.streams: list[list[bool]] = []

    def open(self) -> None:
        return None

    def play(self, pcm: Pcm) -> object:
        if any(s[0] for s in self.streams):
            raise AudioError("Device or resource busy")
        state = [True]
        self.streams.append(state)

        class Handle:
            def is_playing(self) -> bool:
                return state[0]

            def stop(self) -> None:
                state[0] = False

        return Handle()

    def close(self) -> None:
        return None


def test_outcome_preempts_background_sound_on_a_single_stream_device() -> None:
    device = BusyDevice()
    speaker = Speaker(device)
    assert speaker.open()
    sound = Pcm.silence(0.01)
    assert speaker.play(sound, Priority.BACKGROUND)
    assert not speaker.play(sound, Priority.BACKGROUND)  # background never preempts
    assert speaker.play(sound, Priority.OUTCOME)  # the outcome stops the music and plays
    assert [s[0] for s in device.streams] == [False, True]
    assert not speaker.play(sound, Priority.OUTCOME)  # an outcome does not cut an outcome
    assert speaker.failures == 2


def test_any_driver_exception_is_a_failed_play_not_a_crash() -> None:
    class LostDevice(BusyDevice):
        def play(self, pcm: Pcm) -> object:
            raise OSError("device unplugged")  # what pygame/SDL may raise, not AudioError

    speaker = Speaker(LostDevice())
    speaker.open()
    assert speaker.play(Pcm.silence(0.01)) is False
    assert speaker.failures == 1 and not speaker.available


def test_speaker_warns_once_and_says_when_sound_is_back(caplog: pytest.LogCaptureFixture) -> None:
    device = BusyDevice()
    speaker = Speaker(device)
    speaker.open()
    sound = Pcm.silence(0.01)
    with caplog.at_level(logging.DEBUG):
        speaker.play(sound)
        for _ in range(3):
            speaker.play(sound)
        speaker.stop()
        speaker.play(sound)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert "could not play" in warnings[0] and "back" in warnings[1]


@pytest.mark.parametrize("screen_first", [False, True])
def test_pygame_backend_mixes_overlapping_sounds(tmp_path: Path, screen_first: bool) -> None:
    """pygame.mixer on SDL's disk driver (a real, real-time paced audio sink); also after the
    screen imported pygame without its mixer (:mod:`companion.sdl`)."""
    out = tmp_path / "sdl.raw"
    env = {**os.environ, "SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": str(out),
           "PYGAME_HIDE_SUPPORT_PROMPT": "1", "SDL_VIDEODRIVER": "dummy"}
    first = "from companion.sdl import pygame\nassert not pygame.mixer\n" \
        if screen_first else ""
    script = first + """
import time
from companion.audio.library import SoundLibrary
from companion.audio.pygame_backend import PygameBackend
from companion.audio.speaker import Priority, Speaker
lib = SoundLibrary()
speaker = Speaker(PygameBackend())
assert speaker.open()
assert speaker.play(lib.sounds["timer_loop"], Priority.BACKGROUND)
time.sleep(0.1)
assert speaker.play(lib.sounds["bowser"], Priority.OUTCOME)
print(sum(pb.is_playing() for _, pb in speaker._active))
speaker.close()
"""
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"  # both sounding at once
    assert out.stat().st_size > 0


@pytest.mark.parametrize(("command", "factory_from"), [
    (["demo", "--audio", "null"], "config"),
    (["run"], "config"),
    (["run"], "env"),
])
def test_sigterm_stops_the_daemon_cleanly(
    tmp_path: Path, command: list[str], factory_from: str
) -> None:
    config = tmp_path / "companion.toml"
    factory = 'pin_factory = "mock"' if factory_from == "config" else ""
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\n{factory}\n'
                      f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock" if factory_from == "env" else "lgpio"}
    is_demo = command[0] == "demo"
    with spawn_companion(*command, "--config", str(config), env=env) as proc:
        # The mock pin came from the config or the environment:
        if is_demo:
            wait_for_line(proc.stdout, "Question Block demo:")
        else:
            wait_for_line(proc.stderr, "companion ready (button: BCM 26, lever: BCM 27, "
                                       "motor: none, audio: null, bank: ")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert ("bye: 0 presses" in out) if is_demo else ("companion stopped" in err)


async def test_outcomes_land_in_the_bank_for_the_current_player(tmp_path: Path) -> None:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                    game=GameConfig(edition="celebration", players=("Ann", "Bob")))
    app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(3),
                    backend=NullBackend())
    changes: list[StateChanged] = []
    app.table.subscribe(lambda e: changes.append(e) if isinstance(e, StateChanged) else None)
    app.start(asyncio.get_running_loop())
    event = app.table.press(source="tablet")
    await app.table.drain()
    assert isinstance(event, BlockOutcome)
    state = changes[-1].state
    ann = state.players[0]
    assert ann.name == "Ann" and ann.balance == 30 + event.outcome.coin_delta
    assert state.last_outcome is not None and state.last_outcome.outcome == event.outcome
    assert state.last_outcome.source == "tablet"
    app.close()
    # A restart keeps the game and its coins: no new game, nothing lost.
    again = Daemon(config, pin_factory=MockFactory(), backend=NullBackend())
    again.start(asyncio.get_running_loop())
    assert again.bank is not None
    assert again.bank.run(lambda b: (b.latest_game(), b.balances()[ann.id])) == (
        state.game.id, ann.balance)
    again.close()


async def test_bank_action_errors_change_nothing_and_reach_the_caller(tmp_path: Path) -> None:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)))
    app = Daemon(config, pin_factory=MockFactory(), backend=NullBackend())
    app.start(asyncio.get_running_loop())
    with pytest.raises(Refused, match="nothing to undo"):
        await app.table.act(Move("undo"))
    assert app.bank is not None
    first = app.bank.run(lambda bank: bank.players()[0].id)
    with pytest.raises(Refused, match="cannot pay themselves"):
        await app.table.act(Move("transfer", {"from": first, "to": first, "amount": 3}))
    assert len(app.bank.run(lambda b: b.journal())) == 4  # opening balances only
    app.close()


async def test_unusable_data_folder_holds_presses_and_recovers_when_it_is_usable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(blocker)),
                    game=GameConfig(players=("Ann", "Bob")))  # named: not awaiting a setup
    app = Daemon(config, pin_factory=MockFactory(), backend=NullBackend())
    with caplog.at_level(logging.ERROR):
        app.start(asyncio.get_running_loop())
    assert app.bank is not None and not app.bank.is_open
    assert "bank unavailable" in caplog.text
    health = app.table.health()
    assert not health.ok and not health.bank
    assert "cannot create the data folder" in health.parts[0].detail
    event = app.table.press(source="tablet")
    assert isinstance(event, BlockOutcome)  # the block still answers at once
    await app.table.drain()
    assert app.bank.status().held == 1 and not app.bank.status().kept  # no folder to keep it
    with pytest.raises(Unavailable, match="cannot create the data folder"):
        await app.table.act(Move("undo"))
    blocker.unlink()  # the folder can be made now
    assert await app.bank.recover()
    assert app.table.health().ok and app.bank.status().held == 0
    outcomes = app.bank.run(lambda bank: bank.outcomes())
    assert [o.outcome for o in outcomes] == [event.outcome]
    assert outcomes[0].player_id is not None  # the game started on recovery: its current player
    app.close()


async def test_a_press_right_before_close_is_still_banked(tmp_path: Path) -> None:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)))
    app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(3),
                    backend=NullBackend())
    app.start(asyncio.get_running_loop())
    event = app.table.press(source="tablet")
    app.close()  # no drain: the write was already queued on the writer thread
    assert isinstance(event, BlockOutcome)
    bank = Bank.in_dir(tmp_path)
    assert [o.outcome for o in bank.outcomes()] == [event.outcome]
    bank.close()


async def test_closing_the_bank_service_finishes_every_queued_write(tmp_path: Path) -> None:
    service = BankService(tmp_path / "bank.sqlite3")
    bank = service.open()
    service.run(lambda b: b.new_game("celebration", ["Ann", "Bob"]))
    ann = service.run(lambda b: b.players()[0].id)
    pending = [service.call(lambda b: b.transfer(ann, "bank", 1)) for _ in range(50)]
    service.close()  # right away: the 50 writes are still queued
    paid = await asyncio.gather(*pending)  # every one written, none failed
    assert len({p.entry.id for p in paid}) == 50
    reopened = Bank(tmp_path / "bank.sqlite3")
    assert reopened.balances()[ann] == 30 - 50
    assert bank is not reopened
    reopened.close()


def test_run_serves_the_api_and_carries_on_when_the_port_is_taken(tmp_path: Path) -> None:
    import socket
    import urllib.request

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    busy_port = taken.getsockname()[1]
    config = tmp_path / "companion.toml"
    for port, expect in ((0, "web: the tablet API is at"), (busy_port, "carrying on without")):
        config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                          f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                          f"port = {port}\n")
        with spawn_companion("run", "--config", str(config)) as proc:
            seen = wait_for_line(proc.stderr, expect)
            if port == 0:
                url = seen.split("web: the tablet API is at ")[1].split()[0]
                with urllib.request.urlopen(url, timeout=10) as reply:
                    assert json.loads(reply.read())["players"][0]["name"] == "Mario"
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
    taken.close()


async def test_status_led_is_on_when_ready_blinks_when_degraded_and_off_after(
        tmp_path: Path) -> None:
    from companion.config import GpioConfig, WebConfig

    for backend, steady in ((NullBackend(), True), (_NoDevice(), False)):
        config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                        web=WebConfig(host="127.0.0.1", port=0),
                        gpio=GpioConfig(status_led_pin=23))
        app = Daemon(config, pin_factory=MockFactory(), backend=backend)
        runner = asyncio.ensure_future(app.run(from_config(config)))
        await app.ready.wait()
        led = app.status_led
        pin = led.pin
        await asyncio.sleep(0.7)
        if steady:
            assert led.is_lit and pin.state == 1
        else:  # no audio device: blinking, so the owner knows to run companion doctor
            seen = set()
            for _ in range(15):
                seen.add(pin.state)
                await asyncio.sleep(0.1)
            assert seen == {0, 1}
        app.request_stop()
        await runner
        assert pin.state == 0


class _NoDevice(NullBackend):
    def open(self) -> None:
        raise AudioError("no sound card")
