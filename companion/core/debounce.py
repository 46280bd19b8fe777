"""Our own button debounce (gpiozero's MockPin ignores ``bounce_time``, so we own it).

A press is reported on the *first* press edge, for the lowest latency, and only when the
contact is trustworthy:

* the line must have been released without interruption for ``settle`` seconds before the
  edge (chatter while pressing or releasing never looks like a new press), and
* at least ``lockout`` seconds must have passed since the last accepted press (contacts can
  still bounce up to ~80 ms after a press).

Holding the button produces one press. Pure: the caller passes the edge timestamps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class Debouncer:
    """Turns raw press/release edges (with timestamps in seconds) into clean presses."""

    lockout: float = 0.080
    settle: float = 0.020
    _last_accepted: float = field(default=-math.inf, init=False)
    _released_since: float | None = field(default=-math.inf, init=False)
    rejected: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.lockout < 0 or self.settle < 0:
            raise ValueError("lockout and settle must be >= 0")

    def press_edge(self, now: float) -> bool:
        """The line went to 'pressed' at ``now``; return True if this is a new press."""
        released_since = self._released_since
        self._released_since = None
        ok = (
            released_since is not None
            and now - released_since >= self.settle
            and now - self._last_accepted >= self.lockout
        )
        if ok:
            self._last_accepted = now
        else:
            self.rejected += 1
        return ok

    def release_edge(self, now: float) -> None:
        """The line went to 'released' at ``now``."""
        self._released_since = now
