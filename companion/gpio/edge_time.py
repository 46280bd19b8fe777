"""When an edge happened: the time the pin factory stamped on it, where that is
``time.monotonic()``'s clock, else the clock when the callback runs.

Our gpiod factory hands gpiozero the kernel's CLOCK_MONOTONIC time of each edge event as its
ticks (seconds); gpiozero's local Pi factories (lgpio, rpigpio, native) and its mock pins also
count ticks in ``time.monotonic()`` seconds. A tick that is not plausibly on that clock (in the
future, or older than :data:`MAX_AGE_S`) is not used."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gpiozero import DigitalInputDevice
from gpiozero.pins.local import LocalPiFactory
from gpiozero.pins.mock import MockFactory

MAX_AGE_S = 10.0


class StampedButton(DigitalInputDevice):
    """A button as gpiozero's ``DigitalInputDevice`` (``when_activated`` is a press with
    ``pull_up``), keeping the ticks of the edge its callbacks are called for. Not gpiozero's
    ``Button``: its hold thread wakes ten times a second, held or not."""

    edge_ticks: float | None = None

    def _pin_changed(self, ticks: Any, state: Any) -> None:
        self.edge_ticks = ticks
        super()._pin_changed(ticks, state)


def monotonic_ticks(factory: Any) -> bool:
    """The factory's ticks are seconds on ``time.monotonic()``'s clock."""
    return isinstance(factory, LocalPiFactory | MockFactory)


class EdgeClock:
    """The time of the edge a :class:`StampedButton` reports, on ``clock``'s scale: its ticks
    when ``clock`` is ``time.monotonic`` and the factory stamps on that clock, else ``clock()``."""

    def __init__(self, factory: Any, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.stamped = clock is time.monotonic and monotonic_ticks(factory)

    def __call__(self, button: StampedButton) -> float:
        now = self._clock()
        ticks = button.edge_ticks
        if self.stamped and isinstance(ticks, float) and now - MAX_AGE_S <= ticks <= now:
            return ticks
        return now
