"""The event bus: every event reaches every listener, on the loop, one failing listener never
keeps the others from hearing it."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from companion.events import Event, Listener

log = logging.getLogger(__name__)


class Bus:
    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: Event) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("a listener failed on %r", event)
