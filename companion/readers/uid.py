"""Card UIDs as the companion writes them: upper-case hex, no separators."""

from __future__ import annotations

HEX = frozenset("0123456789ABCDEF")
MIN_BYTES, MAX_BYTES = 4, 10


def normal_uid(text: str) -> str | None:
    """``"04:a2 24 b9"`` -> ``"04A224B9"``; None unless it is 4-10 bytes of hex."""
    clean = text.replace(":", "").replace(" ", "").replace("-", "").upper()
    if not (MIN_BYTES * 2 <= len(clean) <= MAX_BYTES * 2 and len(clean) % 2 == 0
            and set(clean) <= HEX):
        return None
    return clean
