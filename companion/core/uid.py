"""Card UIDs as the companion writes them: upper-case hex, no separators. One parser for the
config, the tablet's API and the ``lines`` reader protocol."""

from __future__ import annotations

import re

MIN_BYTES, MAX_BYTES = 4, 10
_PLAIN = re.compile(r"[0-9A-Fa-f]+")
_GROUPED = re.compile(r"[0-9A-Fa-f]{2}(?:[ :-][0-9A-Fa-f]{2})+")


def normal_uid(text: str) -> str | None:
    """``"04:a2 24 b9"`` or ``"04A224B9"`` -> ``"04A224B9"``; None unless it is 4-10 bytes of
    hex. With separators every byte must be two digits (``"4 A2 2 B9"`` from an Arduino that
    drops leading zeros is refused, not misread). An all-zero UID is a reader glitch."""
    if not text.isascii():
        return None
    if _PLAIN.fullmatch(text):
        clean = text
    elif _GROUPED.fullmatch(text):
        clean = re.sub(r"[ :-]", "", text)
    else:
        return None
    if not (MIN_BYTES * 2 <= len(clean) <= MAX_BYTES * 2 and len(clean) % 2 == 0):
        return None
    if not clean.strip("0"):
        return None
    return clean.upper()
