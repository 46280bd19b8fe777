"""Taps, not streams: a card held on a reader is seen again and again; it is one tap.

The same card counts again once it was away (not seen) for ``gap`` seconds, or at once after a
reader reported an empty field (PN532 polling). Pure: the caller passes ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TapDetector:
    gap: float = 1.0
    sightings: int = 0
    taps: int = 0
    _last_seen: dict[str, float] = field(default_factory=dict)

    def seen(self, uid: str, now: float) -> bool:
        """The reader saw ``uid``; True when that is a new tap."""
        self.sightings += 1
        last = self._last_seen.get(uid)
        self._last_seen[uid] = now
        if len(self._last_seen) > 64:  # forget cards long gone (a reader that floods UIDs)
            self._last_seen = {u: t for u, t in self._last_seen.items() if now - t < self.gap}
        if last is not None and now - last < self.gap:
            return False
        self.taps += 1
        return True

    def field_empty(self) -> None:
        """The reader says no card is in its field: the next sighting is a new tap."""
        self._last_seen.clear()
