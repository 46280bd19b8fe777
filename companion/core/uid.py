"""Card UIDs as the companion writes them: upper-case hex, no separators. One parser for the
config, the tablet's API and the ``lines`` reader protocol."""

from __future__ import annotations

import hashlib
import re
import secrets

MIN_BYTES, MAX_BYTES = 4, 10
_LOG_KEY = secrets.token_bytes(16)
"""Key of the log's card fingerprints: made at start, never stored, so a fingerprint cannot be
turned back into its UID (4-byte UIDs are few enough to try all) nor matched across restarts."""
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


MAX_TARGET = 24
"""A card's target is a player's name (at most 24 characters) or ``action:NAME``."""


def parse_card_map(entries: tuple[str, ...] | list[str],
                   actions: tuple[str, ...]) -> dict[str, str]:
    """``["04A224B9 = Mario", "0A1B2C3D4E = action:next_player"]`` -> UID -> name or
    ``action:NAME``. ValueError names the first bad entry (a bad UID, an unknown action, a card
    listed twice)."""
    result: dict[str, str] = {}
    for entry in entries:
        uid, eq, target = (part.strip() for part in entry.partition("="))
        clean = normal_uid(uid)
        if not eq or clean is None or not target:
            raise ValueError(f"each entry must look like \"04A224B9 = Mario\" or \"0A1B2C3D4E "
                             f"= action:next_player\" (a UID of 4-10 bytes of hex), got "
                             f"{entry[:60]!r}")
        if clean in result:
            raise ValueError(f"card {clean} is listed twice")
        if target.startswith("action:") and target[7:] not in actions:
            raise ValueError(f"unknown action {target[7:][:40]!r}; known: {', '.join(actions)}")
        if len(target) > MAX_TARGET or not target.isprintable():
            raise ValueError(f"a player name is 1-{MAX_TARGET} printable characters, got "
                             f"{target[:40]!r}")
        result[clean] = target
    return result


def fingerprint(uid: str) -> str:
    """How the log names a card: ``"card#3fa9c1"``, a keyed hash of ``uid`` (the API treats UIDs
    as secret: a UID in the journal could be copied onto a blank tag). The same card gets the
    same fingerprint until the daemon restarts."""
    digest = hashlib.blake2b(uid.encode(), key=_LOG_KEY, digest_size=3).hexdigest()
    return f"card#{digest}"
