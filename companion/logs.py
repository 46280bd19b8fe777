"""Logging that a flood cannot turn into a flood of log lines.

asyncio and aiohttp log one record (often with a traceback) per failing connection; thousands
of clients make thousands of records a second (issue 13: 15 MB of journal in 15 s).
:class:`RateLimit` lets the first few records of each kind through per window, then drops the
rest and says once how many it dropped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_S = 10.0
"""The window the limit counts in: short enough that a recovered problem is heard of again soon."""
PER_WINDOW = 5
"""Records of one kind let through per window: enough to see what is going on."""
LIMITED = ("asyncio", "aiohttp", "companion.web.guard", "companion.cards",
           "companion.readers", "companion.app.card_taps", "companion.mqtt",
           "companion.web", "companion.lever_control")
"""Loggers (and their children) limited: the ones a network flood, a reader spewing taps or
a stranger publishing to the broker (fake discovery configs, a flood of commands) makes talk.
``companion.web``: every line a request can cause (a refused phone-link or join-code write, a
500's traceback); ``companion.lever_control``: the timer's started and stopped lines, which a
flood of timer commands makes."""
MAX_KINDS = 1000
"""Kinds remembered at once: messages with ever-new text cannot grow the table without end."""

log = logging.getLogger(__name__)


@dataclass
class _Window:
    start: float
    passed: int = 0
    dropped: int = 0


class RateLimit(logging.Filter):
    """At most ``per_window`` records per ``window`` seconds for each logger and message
    template (its first line: asyncio puts details on the next ones); the rest are dropped,
    and the first record of that kind after the window says how many were.

    Put it on a handler: a handler's filter sees records from child loggers too."""

    def __init__(self, prefixes: tuple[str, ...] = LIMITED, *, window: float = WINDOW_S,
                 per_window: int = PER_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.prefixes = prefixes
        self.window = window
        self.per_window = per_window
        self.clock = clock
        self.dropped_total = 0
        self._kinds: dict[tuple[str, str], _Window] = {}
        self._lock = threading.Lock()

    def _limited(self, name: str) -> bool:
        return any(name == p or name.startswith(p + ".") for p in self.prefixes)

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._limited(record.name):
            return True
        key = (record.name, str(record.msg).split("\n", 1)[0][:200])
        now = self.clock()
        with self._lock:
            kind = self._kinds.get(key)
            dropped_before = 0
            if kind is None or now - kind.start >= self.window:
                if kind is not None:
                    dropped_before = kind.dropped
                    del self._kinds[key]  # re-inserted last: the dict stays oldest-first
                elif len(self._kinds) >= MAX_KINDS:
                    self._kinds.pop(next(iter(self._kinds)))
                kind = self._kinds[key] = _Window(now)
            drop, first_drop = kind.passed >= self.per_window, False
            if drop:
                kind.dropped += 1
                self.dropped_total += 1
                first_drop = kind.dropped == 1
            else:
                kind.passed += 1
        if drop:
            if first_drop:  # said once per window, so a reader knows lines are missing
                log.warning("suppressing more messages like this from %s for up to %.0f s: %s",
                            record.name, self.window, key[1][:120])
            return False
        if dropped_before:
            # Through this module's logger: not limited, and one line of its own.
            log.warning("suppressed %d similar messages from %s in %.0f s: %s", dropped_before,
                        record.name, self.window, key[1][:120])
        return True


def install_rate_limit(handler: logging.Handler) -> RateLimit:
    """Limit the noisy loggers on ``handler`` (the daemon's one log handler)."""
    limit = RateLimit()
    handler.addFilter(limit)
    return limit
