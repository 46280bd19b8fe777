"""Which of the house's button commands reach the table: the table's own block comes first.

Anyone on the LAN who can publish to ``<prefix>/command/press`` can press the block. So a
remote press is refused for a quiet time after any press at the table (its button, the
tablet, a phone), the house's buttons are limited to a few commands a minute, and what goes
through waits in a short queue; the rest is dropped and counted. A flood is said once in the
log (again only after a quiet minute) and on ``/healthz``'s mqtt line."""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

WINDOW_S = 60.0
"""The rate counts commands in the last minute."""
FLOOD_OVER_S = 60.0
"""A flood is over once nothing was dropped for this long: the next drop is said again."""
QUEUE = 8
"""Commands let through and not yet handed to the table, at most; more are dropped."""


@dataclass
class RemoteGate:
    """Counts, the last table press and the rate of each button; times are the loop's."""

    per_minute: int
    quiet_s: float
    table_pressed_at: float | None = None
    heard: int = 0
    """Commands heard (let through or not)."""
    quiet_refused: int = 0
    """Remote presses refused within the quiet time after a table press."""
    over_rate: int = 0
    """Commands beyond ``per_minute``."""
    overflow: int = 0
    """Commands let through that found the queue full."""
    _recent: dict[str, deque[float]] = field(default_factory=dict)
    _flood_at: float | None = None
    _said_quiet_at: float | None = None

    @property
    def dropped(self) -> int:
        """Commands dropped as a flood: over the rate, or beyond the queue."""
        return self.over_rate + self.overflow

    def table_pressed(self, now: float) -> None:
        """A press at the table (any source but the house's): remote presses wait."""
        self.table_pressed_at = now

    def admit(self, name: str, now: float) -> bool:
        """Whether the command ``name`` (``press``, ``timer``) heard at ``now`` goes on."""
        self.heard += 1
        recent = self._recent.setdefault(name, deque())
        while recent and now - recent[0] >= WINDOW_S:
            recent.popleft()
        if len(recent) >= self.per_minute:
            self.over_rate += 1
            self._flooded(now, f"more than {self.per_minute} a minute")
            return False
        recent.append(now)
        if name == "press" and self.table_pressed_at is not None and \
                now - self.table_pressed_at < self.quiet_s:
            self.quiet_refused += 1
            if self._said_quiet_at is None or now - self._said_quiet_at >= WINDOW_S:
                self._said_quiet_at = now
                log.info("MQTT: a remote press was refused: the table pressed %.0f s ago (the "
                         "house's press button waits %.0f s after a press at the table)",
                         now - self.table_pressed_at, self.quiet_s)
            return False
        return True

    def full(self, now: float) -> None:
        """A command let through found the queue full: dropped."""
        self.overflow += 1
        self._flooded(now, f"more than {QUEUE} waiting")

    def _flooded(self, now: float, why: str) -> None:
        if self._flood_at is None or now - self._flood_at >= FLOOD_OVER_S:
            log.warning("MQTT: the house's buttons are flooding (%s): the rest are dropped "
                        "and counted on /healthz (%d so far)", why, self.dropped)
        self._flood_at = now

    def status(self) -> str:
        """For the mqtt line of ``/healthz``: empty until a flood is seen."""
        if not self.dropped:
            return ""
        return f"remote presses flooding: {self.dropped} dropped"
