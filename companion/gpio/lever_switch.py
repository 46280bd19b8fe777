"""The lever's switch: a gpiozero input (a button without its hold thread) reporting both
edges with their time.

Debouncing happens in the pure :class:`companion.core.lever.LeverTimer`, which also decides
when to look at the settled level again (``is_closed``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from companion.gpio.edge_time import EdgeClock, StampedButton


class LeverSwitch:
    """Calls ``when_changed(timestamp, closed)`` on every raw edge (from gpiozero's thread), the
    timestamp the edge's own where the factory has it (as :class:`BlockButton`)."""

    def __init__(self, pin: int, *, pin_factory: Any,
                 when_changed: Callable[[float, bool], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._when_changed = when_changed
        self._button = StampedButton(pin, pull_up=True, bounce_time=None,
                                     pin_factory=pin_factory)
        self._edge_time = EdgeClock(self._button.pin_factory, clock)
        self._button.when_activated = lambda: self._edge(True)
        self._button.when_deactivated = lambda: self._edge(False)

    def _edge(self, closed: bool) -> None:
        self._when_changed(self._edge_time(self._button), closed)

    @property
    def pin(self) -> Any:
        return self._button.pin

    @property
    def is_closed(self) -> bool:
        """The raw level now: True while the lever is held back."""
        return bool(self._button.is_active)

    def close(self) -> None:
        self._button.close()
