"""The outcome light's shows, as plain data: what colour, from when, for how long. No clock, no
pins: the caller says when a show starts and plays it (:mod:`companion.gpio.light`).

A show is a tuple of :class:`Step` s, each a colour held ``seconds`` from ``at`` (seconds after
the show starts); between and after the steps the light is off (or shows what lies beneath:
an outcome plays over the lever timer's countdown, see :func:`frame`).

What each outcome shows:

- **collects** (coins, a Super Star, a won battle): one gold flash per coin, the k-th at
  ``ping_start + k * coin_period``: in step with the coin pings of its sound;
- **power-up**: green, held while its sound plays;
- **pays and losses** (Bowser, a Piranha Plant, rent, the Jail fee, a lost battle, third
  doubles): red, held while its sound plays;
- **Game Over**: purple, held while its sound plays;
- **any other roll** (a die, the Movie's two dice, a battle's first die, Jail tries, Boss and
  Race rolls): one short white flash.

The lever timer's countdown is green, amber from half its time, and blinks red in its last
seconds; time up is one long red flash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.core.lever import LAST_SECONDS
from companion.core.outcomes import COLLECTS, Kind, Outcome

Colour = tuple[float, float, float]
"""Red, green, blue, each 0.0-1.0 (the share of full power)."""

OFF: Colour = (0.0, 0.0, 0.0)
GOLD: Colour = (1.0, 0.6, 0.0)
GREEN: Colour = (0.0, 1.0, 0.0)
AMBER: Colour = (1.0, 0.25, 0.0)
RED: Colour = (1.0, 0.0, 0.0)
PURPLE: Colour = (0.6, 0.0, 1.0)
WHITE: Colour = (1.0, 1.0, 1.0)

COIN_FLASH_S = 0.15
"""How long a coin's gold flash lasts (at most half the time between two pings)."""
DEFAULT_COIN_PERIOD = 0.30
MAX_FLASHES = 60
"""A show never flashes more coins than this (the sound's pings stop long before)."""
HOLD_MIN_S = 1.0
HOLD_MAX_S = 4.0
"""A held colour lasts as long as the outcome's sound, within these bounds."""
HOLD_DEFAULT_S = 1.5
"""A held colour's length when the sound's is not known (no sound played)."""
ROLL_FLASH_S = 0.2
"""The short white flash of a plain roll."""
BLINK_S = 0.25
"""The countdown's last seconds: red on this long, off this long."""
TIME_UP_S = 1.0
"""Time up: red this long, then off."""

RED_FOR = frozenset({Kind.BOWSER, Kind.PIRANHA, Kind.RENT, Kind.JAIL_PAID, Kind.BATTLE_LOST,
                     Kind.THIRD_DOUBLES})
"""Kinds shown red: the player pays (the Bank or another player) or goes to Jail."""


@dataclass(frozen=True, slots=True)
class Step:
    """``colour`` from ``at`` seconds after the show starts, for ``seconds``."""

    at: float
    colour: Colour
    seconds: float

    @property
    def end(self) -> float:
        return self.at + self.seconds


Show = tuple[Step, ...]


def dim(colour: Colour, brightness: float) -> Colour:
    """``colour`` at ``brightness`` (0.0-1.0), rounded so that equal shows compare equal."""
    r, g, b = (round(c * brightness, 4) for c in colour)
    return (r, g, b)


def _t(seconds: float) -> float:
    return round(seconds, 6)


def hold_seconds(sound_seconds: float) -> float:
    """How long a held colour lasts for an outcome whose sound lasts ``sound_seconds``."""
    if sound_seconds <= 0:
        return HOLD_DEFAULT_S
    return min(HOLD_MAX_S, max(HOLD_MIN_S, sound_seconds))


def plan(outcome: Outcome, coin_period: float, ping_start: float, brightness: float,
         sound_seconds: float = 0.0) -> Show:
    """The show for one press's outcome; t = 0 is when its sound starts."""
    kind = outcome.kind
    if kind in COLLECTS:
        period = coin_period if coin_period > 0 else DEFAULT_COIN_PERIOD
        flash = _t(min(COIN_FLASH_S, period / 2))
        gold = dim(GOLD, brightness)
        start = max(0.0, ping_start)
        return tuple(Step(_t(start + k * period), gold, flash)
                     for k in range(min(max(0, outcome.coins), MAX_FLASHES)))
    hold = _t(hold_seconds(sound_seconds))
    if kind is Kind.GAME_OVER:
        return (Step(0.0, dim(PURPLE, brightness), hold),)
    if kind is Kind.POWER_UP:
        return (Step(0.0, dim(GREEN, brightness), hold),)
    if kind in RED_FOR:
        return (Step(0.0, dim(RED, brightness), hold),)
    return (Step(0.0, dim(WHITE, brightness), ROLL_FLASH_S),)


def countdown(remaining: float, duration: float | None, brightness: float) -> Show:
    """The lever timer's colours from now (t = 0) until its end, ``remaining`` seconds away:
    green, amber once half of ``duration`` has gone, and red blinking in the last
    :data:`~companion.core.lever.LAST_SECONDS`."""
    if remaining <= 0:
        return ()
    total = duration if duration and duration > 0 else remaining
    amber_below = max(total / 2, LAST_SECONDS)  # remaining seconds where amber begins
    red_below = min(LAST_SECONDS, remaining)
    steps: list[Step] = []
    green_s = remaining - min(remaining, amber_below)
    if green_s > 0:
        steps.append(Step(0.0, dim(GREEN, brightness), _t(green_s)))
    amber_s = min(remaining, amber_below) - red_below
    if amber_s > 0:
        steps.append(Step(_t(green_s), dim(AMBER, brightness), _t(amber_s)))
    red = dim(RED, brightness)
    at = remaining - red_below
    while at < remaining - 1e-9:
        steps.append(Step(_t(at), red, _t(min(BLINK_S, remaining - at))))
        at += 2 * BLINK_S
    return tuple(steps)


def time_up(brightness: float) -> Show:
    """The lever timer ran out: one long red flash."""
    return (Step(0.0, dim(RED, brightness), TIME_UP_S),)


def end_of(show: Sequence[Step]) -> float:
    """When the last step of a show ends (0.0 for an empty one)."""
    return max((s.end for s in show), default=0.0)


Layer = tuple[float, Sequence[Step]]
"""A show with the moment it started (on the player's clock)."""


def frame(layers: Sequence[Layer | None], now: float) -> tuple[Colour, float | None]:
    """The colour at ``now`` of shows laid over each other (the first layer on top, a gap in
    it shows the next) and the next moment anything may change (None: nothing will)."""
    colour: Colour | None = None
    wake: float | None = None
    for layer in layers:
        if layer is None:
            continue
        start, show = layer
        for step in show:
            begin, end = start + step.at, start + step.end
            if colour is None and begin <= now < end:
                colour = step.colour
            for edge in (begin, end):
                if edge > now and (wake is None or edge < wake):
                    wake = edge
    return colour or OFF, wake
