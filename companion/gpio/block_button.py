"""The Question Block's button: a gpiozero input (a button without its hold thread) with our
own debounce."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from companion.core.debounce import Debouncer
from companion.gpio.edge_time import EdgeClock, StampedButton


class BlockButton:
    """Calls ``when_pressed(timestamp)`` once per real press (internal pull-up, pressed = low);
    the timestamp is the edge's own (the kernel's, on the gpiod factory) where the factory stamps
    edges on ``clock``'s scale (:mod:`companion.gpio.edge_time`), else ``clock()`` when heard.

    gpiozero's own ``bounce_time`` is not used (MockPin ignores it, and it drops the leading
    edge on some factories); every raw edge goes through :class:`Debouncer`. The callback runs
    on gpiozero's thread: hand it to the event loop with ``call_soon_threadsafe``.
    """

    def __init__(
        self,
        pin: int,
        *,
        pin_factory: Any,
        debouncer: Debouncer,
        when_pressed: Callable[[float], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.debouncer = debouncer
        self.when_pressed = when_pressed
        self._lock = threading.Lock()
        self._button = StampedButton(pin, pull_up=True, bounce_time=None,
                                     pin_factory=pin_factory)
        self._edge_time = EdgeClock(self._button.pin_factory, clock)
        self._button.when_activated = self._pressed_edge
        self._button.when_deactivated = self._released_edge

    @property
    def pin(self) -> Any:
        """The underlying gpiozero pin (a MockPin in tests and the demo)."""
        return self._button.pin

    @property
    def is_pressed(self) -> bool:
        return bool(self._button.is_active)

    def _pressed_edge(self) -> None:
        now = self._edge_time(self._button)
        with self._lock:
            accepted = self.debouncer.press_edge(now)
        if accepted:
            self.when_pressed(now)

    def _released_edge(self) -> None:
        now = self._edge_time(self._button)
        with self._lock:
            self.debouncer.release_edge(now)

    def close(self) -> None:
        self._button.close()
