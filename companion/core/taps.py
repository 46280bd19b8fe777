"""Taps, not streams: a card held on a reader is seen again and again; it is one tap.

The same card counts again once it was away (not seen) for ``gap`` seconds, or at once after a
reader reported an empty field (PN532 polling). Pure: the caller passes ``now``.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

MAX_CARDS = 256
"""Cards remembered at once; a reader flooding distinct UIDs cannot grow this."""


@dataclass
class TapDetector:
    gap: float = 1.0
    sightings: int = 0
    taps: int = 0
    _last_seen: OrderedDict[str, float] = field(default_factory=OrderedDict)

    def seen(self, uid: str, now: float) -> bool:
        """The reader saw ``uid``; True when that is a new tap."""
        self.sightings += 1
        last = self._last_seen.pop(uid, None)
        self._last_seen[uid] = now  # the most recent sighting goes last
        seen = self._last_seen
        while seen and (len(seen) > MAX_CARDS or now - next(iter(seen.values())) >= self.gap):
            seen.popitem(last=False)  # forget cards long gone, oldest first: O(1) each
        if last is not None and now - last < self.gap:
            return False
        self.taps += 1
        return True

    def field_empty(self) -> None:
        """The reader says no card is in its field: the next sighting is a new tap."""
        self._last_seen.clear()
