"""The outcome light: the pure shows exactly, then the real gpiozero RGBLED on mock PWM pins
(order, colours and counts of what the pins did; timings only through the pure shows), the
daemon lighting it on a press and turning it off on close, and its config."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from gpiozero import RGBLED
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion import cli
from companion.audio.null_backend import NullBackend
from companion.config import AudioConfig, Config, ConfigError, LightConfig, from_dict, load
from companion.core import light_show
from companion.core.light_show import (
    AMBER,
    GOLD,
    GREEN,
    OFF,
    PURPLE,
    RED,
    WHITE,
    Step,
    countdown,
    dim,
    frame,
    plan,
)
from companion.core.outcomes import Kind, Outcome
from companion.daemon import Daemon
from companion.events import BlockOutcome, Event
from companion.gpio.light import OutcomeLight, on_off

PINS = (12, 13, 16)
GOLD_60 = (0.6, 0.36, 0.0)


# -- the pure shows --------------------------------------------------------------------------

def test_coins_3_is_three_gold_flashes_in_step_with_the_pings() -> None:
    assert plan(Outcome(Kind.COINS, 3), 0.30, 0.0, 1.0) == (
        Step(0.0, GOLD, 0.15), Step(0.3, GOLD, 0.15), Step(0.6, GOLD, 0.15))
    # After a block's bump (ping_start), with a slower ping and a dimmer light:
    assert plan(Outcome(Kind.COINS, 3, mode="coin_block"), 0.4, 0.25, 0.6) == (
        Step(0.25, GOLD_60, 0.15), Step(0.65, GOLD_60, 0.15), Step(1.05, GOLD_60, 0.15))
    # Pings closer than two flashes: each flash is half a period, so they stay apart.
    assert plan(Outcome(Kind.COINS, 2), 0.2, 0.0, 1.0) == (
        Step(0.0, GOLD, 0.1), Step(0.2, GOLD, 0.1))


def test_every_collect_flashes_gold_once_per_coin() -> None:
    star = plan(Outcome(Kind.SUPER_STAR, 4, (4,)), 0.3, 1.2, 1.0)
    assert [s.at for s in star] == [1.2, 1.5, 1.8, 2.1] and {s.colour for s in star} == {GOLD}
    won = plan(Outcome(Kind.BATTLE_WON, 5, (4, 3)), 0.3, 0.0, 1.0)
    assert len(won) == 5 and {s.colour for s in won} == {GOLD}
    assert plan(Outcome(Kind.COINS, 0), 0.3, 0.0, 1.0) == ()
    assert len(plan(Outcome(Kind.COINS, 500), 0.3, 0.0, 1.0)) == light_show.MAX_FLASHES


def test_bowser_is_red_held_while_its_sound_plays() -> None:
    assert plan(Outcome(Kind.BOWSER, 5), 0.3, 0.0, 1.0, sound_seconds=2.5) == (
        Step(0.0, RED, 2.5),)
    assert plan(Outcome(Kind.BOWSER, 5), 0.3, 0.0, 0.5, sound_seconds=0.4) == (
        Step(0.0, (0.5, 0.0, 0.0), 1.0),)   # at least a second, to be seen
    assert plan(Outcome(Kind.BOWSER, 5), 0.3, 0.0, 1.0, sound_seconds=9.0) == (
        Step(0.0, RED, 4.0),)   # at most four
    assert plan(Outcome(Kind.BOWSER, 5), 0.3, 0.0, 1.0) == (Step(0.0, RED, 1.5),)  # unknown


@pytest.mark.parametrize(("outcome", "colour", "seconds"), [
    (Outcome(Kind.POWER_UP), GREEN, 2.0),
    (Outcome(Kind.GAME_OVER, 10), PURPLE, 2.0),
    (Outcome(Kind.PIRANHA, 3, (3,)), RED, 2.0),
    (Outcome(Kind.RENT, 8, (4,)), RED, 2.0),
    (Outcome(Kind.JAIL_PAID, 5, (1, 2)), RED, 2.0),
    (Outcome(Kind.BATTLE_LOST, 0, (1, 2)), RED, 2.0),
    (Outcome(Kind.ROLL, 0, (4,)), WHITE, 0.2),
    (Outcome(Kind.DICE, 0, (2, 5)), WHITE, 0.2),
    (Outcome(Kind.RACE_ROLL, 0, (6,)), WHITE, 0.2),
])
def test_each_kind_has_its_colour(outcome: Outcome, colour: tuple[float, float, float],
                                  seconds: float) -> None:
    assert plan(outcome, 0.3, 0.0, 0.5, sound_seconds=2.0) == (
        Step(0.0, dim(colour, 0.5), seconds),)


def test_brightness_scales_every_channel() -> None:
    assert dim(GOLD, 0.6) == GOLD_60
    assert dim(PURPLE, 0.0) == OFF
    assert dim(WHITE, 1.0) == WHITE


def test_the_countdown_goes_green_amber_then_blinks_red() -> None:
    show = countdown(14.0, 14.0, 1.0)
    assert show[:2] == (Step(0.0, GREEN, 7.0), Step(7.0, AMBER, 2.0))
    blinks = show[2:]
    assert [s.at for s in blinks] == [9.0, 9.5, 10.0, 10.5, 11.0, 11.5, 12.0, 12.5, 13.0, 13.5]
    assert {(s.colour, s.seconds) for s in blinks} == {(RED, 0.25)}
    assert light_show.end_of(show) == 13.75
    # Started late (a tablet's timer with 3 s left): only the red blinks, from now.
    assert countdown(3.0, 14.0, 1.0) == (Step(0.0, RED, 0.25), Step(0.5, RED, 0.25),
                                         Step(1.0, RED, 0.25), Step(1.5, RED, 0.25),
                                         Step(2.0, RED, 0.25), Step(2.5, RED, 0.25))
    # A short countdown: half of it is inside the last seconds, so no amber.
    assert [s.colour for s in countdown(8.0, 8.0, 1.0)][:2] == [GREEN, RED]
    assert countdown(8.0, 8.0, 1.0)[0] == Step(0.0, GREEN, 3.0)
    assert countdown(0.0, 14.0, 1.0) == ()


def test_an_outcome_plays_over_the_countdown() -> None:
    coins = (7.5, plan(Outcome(Kind.COINS, 2), 0.3, 0.0, 1.0))
    timer = (0.0, countdown(14.0, 14.0, 1.0))
    assert frame([coins, timer], 6.0) == (GREEN, 7.0)
    assert frame([coins, timer], 7.55) == (GOLD, 7.65)
    assert frame([coins, timer], 7.7) == (AMBER, 7.8)       # between flashes: beneath
    assert frame([coins, timer], 8.0) == (AMBER, 9.0)
    assert frame([coins, timer], 9.3) == (OFF, 9.5)         # between red blinks
    assert frame([None, timer], 20.0) == (OFF, None)          # all over
    assert frame([None, None], 0.0) == (OFF, None)


def test_a_light_without_pwm_shows_each_channel_on_or_off() -> None:
    assert on_off(GOLD_60) == (1.0, 1.0, 0.0)
    assert on_off(dim(AMBER, 0.6)) == (1.0, 0.0, 0.0)
    assert on_off(dim(PURPLE, 0.6)) == (1.0, 0.0, 1.0)
    assert on_off(OFF) == OFF


# -- the RGB LED on mock PWM pins --------------------------------------------------------------

@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.close()


def states(factory: MockFactory, pin: int) -> list[float]:
    return [float(s.state) for s in factory.pin(pin).states]


def expected(show: Sequence[Step], channel: int, idle: float = 0.0) -> list[float]:
    """What one channel's pin goes through for a show of separate steps: each lit step turns
    it on, and off again."""
    seen = [idle]
    for step in show:
        if step.colour[channel] > 0:
            seen += [step.colour[channel], idle]
    return seen


def wait_until_idle(light: OutcomeLight, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not light.idle:
        assert time.monotonic() < deadline, "the show never ended"
        time.sleep(0.02)
    time.sleep(0.05)  # the player writes the last "off"


def test_coins_3_on_the_pins_is_three_gold_flashes(factory: MockFactory) -> None:
    light = OutcomeLight(*PINS, pin_factory=factory, brightness=0.6)
    try:
        assert light.pwm
        show = plan(Outcome(Kind.COINS, 3), 0.30, 0.0, 0.6)
        light.play(show)
        wait_until_idle(light)
        assert states(factory, 12) == [0.0, 0.6, 0.0, 0.6, 0.0, 0.6, 0.0]
        assert states(factory, 13) == [0.0, 0.36, 0.0, 0.36, 0.0, 0.36, 0.0]
        assert states(factory, 16) == [0.0]
        assert states(factory, 12) == expected(show, 0)
        assert light.colour == OFF
    finally:
        light.close()


def test_bowser_on_the_pins_is_one_red(factory: MockFactory) -> None:
    light = OutcomeLight(*PINS, pin_factory=factory, brightness=0.6)
    try:
        show = plan(Outcome(Kind.BOWSER, 5), 0.30, 0.0, 0.6, sound_seconds=1.0)
        assert show == (Step(0.0, (0.6, 0.0, 0.0), 1.0),)
        light.play(show)
        time.sleep(0.2)
        assert light.colour == (0.6, 0.0, 0.0)
        wait_until_idle(light)
        assert states(factory, 12) == [0.0, 0.6, 0.0]
        assert states(factory, 13) == [0.0] and states(factory, 16) == [0.0]
    finally:
        light.close()


def test_a_new_outcome_replaces_the_one_playing(factory: MockFactory) -> None:
    light = OutcomeLight(*PINS, pin_factory=factory, brightness=1.0)
    try:
        light.play(plan(Outcome(Kind.COINS, 10), 0.30, 0.0, 1.0))
        time.sleep(0.05)  # the first flash is on
        light.play(plan(Outcome(Kind.BOWSER, 5), 0.30, 0.0, 1.0, sound_seconds=1.0))
        wait_until_idle(light)
        assert states(factory, 13) == [0.0, 0.6, 0.0]     # one gold flash, cut short
        assert states(factory, 12) == [0.0, 1.0, 0.0]     # gold's red stays on as Bowser's
        assert states(factory, 16) == [0.0]
    finally:
        light.close()


def test_the_countdown_shows_beneath_and_stops(factory: MockFactory) -> None:
    light = OutcomeLight(*PINS, pin_factory=factory, brightness=1.0)
    try:
        light.countdown(countdown(14.0, 14.0, 1.0))
        time.sleep(0.1)
        assert light.colour == GREEN
        light.play(plan(Outcome(Kind.BOWSER, 5), 0.30, 0.0, 1.0, sound_seconds=1.0))
        time.sleep(0.1)
        assert light.colour == RED
        light.stop_countdown()
        light.off()
        assert light.colour == OFF and states(factory, 13)[-1] == 0.0
        assert states(factory, 13) == [0.0, 1.0, 0.0]
        assert states(factory, 12) == [0.0, 1.0, 0.0]
    finally:
        light.close()


def test_close_turns_it_off_and_releases_the_pins(factory: MockFactory) -> None:
    light = OutcomeLight(*PINS, pin_factory=factory, brightness=1.0)
    light.play(plan(Outcome(Kind.GAME_OVER, 10), 0.30, 0.0, 1.0, sound_seconds=4.0))
    time.sleep(0.1)
    assert light.colour == PURPLE
    light.close()
    assert [states(factory, p)[-1] for p in PINS] == [0.0, 0.0, 0.0]
    assert not light._thread.is_alive()
    light.play(plan(Outcome(Kind.POWER_UP), 0.3, 0.0, 1.0))  # ignored once closed
    RGBLED(*PINS, pin_factory=factory).close()  # the pins are free again
    light.close()  # twice is fine


def test_a_common_anode_led_is_lit_by_a_low_pin(factory: MockFactory) -> None:
    light = OutcomeLight(*PINS, pin_factory=factory, brightness=1.0, active_high=False)
    try:
        assert [states(factory, p)[-1] for p in PINS] == [1.0, 1.0, 1.0]  # off
        light.play(plan(Outcome(Kind.POWER_UP), 0.3, 0.0, 1.0, sound_seconds=1.0))
        time.sleep(0.1)
        assert [states(factory, p)[-1] for p in PINS] == [1.0, 0.0, 1.0]  # green
    finally:
        light.close()
    # Off (high), then released: an input, which lights nothing either.
    assert [states(factory, p)[-2:] for p in PINS] == [[1.0, 0.0]] * 3
    assert [factory.pin(p).function for p in PINS] == ["input"] * 3


def test_pins_without_pwm_show_colours_on_or_off() -> None:
    factory = MockFactory()  # plain MockPin: no PWM, as in the demo
    light = OutcomeLight(*PINS, pin_factory=factory, brightness=0.6)
    try:
        assert not light.pwm
        light.play(plan(Outcome(Kind.COINS, 2), 0.30, 0.0, 0.6))
        wait_until_idle(light)
        assert states(factory, 12) == [0.0, 1.0, 0.0, 1.0, 0.0]   # gold: yellow
        assert states(factory, 13) == [0.0, 1.0, 0.0, 1.0, 0.0]
        assert states(factory, 16) == [0.0]
    finally:
        light.close()
        factory.close()


# -- in the daemon -----------------------------------------------------------------------------

def lit_config(tmp_path: Path, **light: Any) -> Config:
    from companion.config import DataConfig

    return Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                  light=LightConfig(red=PINS[0], green=PINS[1], blue=PINS[2], **light))


async def wait_idle(light: OutcomeLight) -> None:
    for _ in range(500):
        if light.idle:
            await asyncio.sleep(0.05)
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the show never ended")


async def test_the_daemon_lights_a_press_and_turns_off_on_close(
        tmp_path: Path, factory: MockFactory) -> None:
    app = Daemon(lit_config(tmp_path, brightness=0.5), pin_factory=factory,
                 rng=random.Random(7), backend=NullBackend(), clock=lambda: 50.0)
    outcomes: list[Event] = []
    app.bus.subscribe(lambda e: outcomes.append(e) if isinstance(e, BlockOutcome) else None)
    app.start(asyncio.get_running_loop())
    try:
        assert app.light is not None and app.light.pwm
        assert {p.name: p.ok for p in app.table.parts()}["light"] is True
        app.button.pin.drive_low()
        for _ in range(50):
            if outcomes:
                break
            await asyncio.sleep(0.01)
        event = outcomes[0]
        assert isinstance(event, BlockOutcome)
        show = plan(event.outcome, event.ping_period, event.ping_start, 0.5,
                    event.sound_seconds)
        await wait_idle(app.light)
        assert [states(factory, p) for p in PINS] == [expected(show, c) for c in range(3)]
        assert any(len(states(factory, p)) > 1 for p in PINS)  # it lit
        # The lever timer: green while it runs, off when stopped.
        app.lever.start(10.0)
        await asyncio.sleep(0.1)
        assert app.light.colour == dim(GREEN, 0.5)
        app.lever.stop()
        await asyncio.sleep(0.1)
        assert app.light.colour == OFF
        app.lever.start(10.0)
        await asyncio.sleep(0.1)
    finally:
        light = app.light
        app.close()
    assert app.light is None and light is not None and not light._thread.is_alive()
    assert [states(factory, p)[-1] for p in PINS] == [0.0, 0.0, 0.0]
    RGBLED(*PINS, pin_factory=factory).close()  # released


async def test_time_up_flashes_red(tmp_path: Path, factory: MockFactory) -> None:
    app = Daemon(lit_config(tmp_path, brightness=1.0), pin_factory=factory,
                 rng=random.Random(7), backend=NullBackend())
    app.start(asyncio.get_running_loop())
    try:
        app.lever.start(1.0)
        await asyncio.sleep(0.1)
        assert app.light.colour == RED   # a 1 s countdown is all last seconds
        await asyncio.sleep(1.1)         # time up: red for a second
        assert app.light.colour == RED and not app.lever.running
        await wait_idle(app.light)
        assert app.light.colour == OFF
    finally:
        app.close()


async def test_no_light_section_no_light(tmp_path: Path, factory: MockFactory) -> None:
    from companion.config import DataConfig

    app = Daemon(Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path))),
                 pin_factory=factory, backend=NullBackend())
    app.start(asyncio.get_running_loop())
    try:
        assert app.light is None and "light" not in {p.name for p in app.table.parts()}
    finally:
        app.close()


async def test_a_light_that_cannot_be_had_is_a_warning(
        tmp_path: Path, factory: MockFactory, caplog: pytest.LogCaptureFixture) -> None:
    taken = RGBLED(*PINS, pin_factory=factory)  # another program holds the pins
    app = Daemon(lit_config(tmp_path), pin_factory=factory, backend=NullBackend())
    with caplog.at_level(logging.WARNING):
        app.start(asyncio.get_running_loop())
    try:
        assert app.light is None and app.button is not None  # the rest carries on
        assert "outcome light on BCM 12, 13, 16 unavailable" in caplog.text
        assert {p.name: p.ok for p in app.table.parts()}["light"] is False
    finally:
        app.close()
        taken.close()


async def test_no_gpio_at_all_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           caplog: pytest.LogCaptureFixture) -> None:
    from companion import daemon
    from companion.gpio.pins import PinFactoryError

    def no_gpio(name: str = "") -> Any:
        raise PinFactoryError("not a Pi")

    monkeypatch.setattr(daemon, "open_pin_factory", no_gpio)
    app = Daemon(lit_config(tmp_path), backend=NullBackend())
    with caplog.at_level(logging.WARNING):
        app.start(asyncio.get_running_loop())
    try:
        assert app.light is None
        assert "outcome light on BCM 12, 13, 16 unavailable: no GPIO" in caplog.text
    finally:
        app.close()


# -- config ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "key", "words"), [
    ("[light]\nbrightness = 1.5\n", "light.brightness", "between 0.0 and 1.0"),
    ("[light]\nbrightness = -0.1\n", "light.brightness", "between 0.0 and 1.0"),
    ("[light]\nbrightness = nan\n", "light.brightness", "between 0.0 and 1.0"),
    ('[light]\nbrightness = "bright"\n', "light.brightness", "must be a number"),
    ('[light]\nactive_high = "yes"\n', "light.active_high", "true or false"),
    ("[light]\nred = 40\ngreen = 5\nblue = 6\n", "light.red", "between 0 and 27"),
    ('[light]\nred = "12"\n', "light.red", "must be an integer"),
    ("[light]\nred = 12\n", "light.green", "needs red, green and blue"),
    ("[light]\nred = 12\ngreen = 13\n", "light.blue", "needs red, green and blue"),
    ("[light]\nred = 26\ngreen = 13\nblue = 16\n", "light.red", "already block.pin"),
    ("[light]\nred = 12\ngreen = 27\nblue = 16\n", "light.green", "already lever.pin"),
    ("[gpio]\nstatus_led_pin = 16\n[light]\nred = 12\ngreen = 13\nblue = 16\n", "light.blue",
     "already gpio.status_led_pin"),
    ("[light]\nred = 12\ngreen = 12\nblue = 16\n", "light.green", "already light.red"),
    ("[light]\nwhite = 5\n", "light.white", "allowed in [light]: red, green, blue"),
])
def test_bad_light_config_exits_2_naming_the_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str,
        words: str) -> None:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    assert cli.main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("companion: config error:"), err
    assert key in err and words in err, err


def test_light_config_loads_and_defaults_to_none(tmp_path: Path) -> None:
    assert not Config().light.fitted
    path = tmp_path / "companion.toml"
    path.write_text("[light]\nred = 12\ngreen = 13\nblue = 16\nbrightness = 1\n"
                    "active_high = false\n")
    light = load(path).light
    assert light == LightConfig(red=12, green=13, blue=16, brightness=1.0, active_high=False)
    assert light.fitted
    with pytest.raises(ConfigError) as info:
        from_dict({"light": {"red": 12, "blue": 16}})
    assert info.value.key == "light.green"
