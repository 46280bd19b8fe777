"""Presses the disk refused, held until the bank takes them.

A press always sounds at once; its outcome is then banked. When the disk refuses (full,
read-only, failing) or the bank can't be opened, the outcome is held: in memory, and in a small
file made ahead of need. The file is written full of zeros (and synced) while there is room, so
writing held presses into it later needs no new blocks: it still works when the SD card is full,
and a restart finds them. Two slots are written in turn, each with a sequence number and a CRC:
a power cut in the middle of a write leaves the other slot whole.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.core.outcomes import Kind, Outcome
from companion.exc import Refused
from companion.i18n.said import joined, say

log = logging.getLogger(__name__)

FILE_NAME = "held-presses"
SLOT = 32 * 1024
"""Bytes per slot: about 130 held presses (a press is ~250 bytes), hours of play at a table."""
MAGIC = b"HELD1"


@dataclass(frozen=True, slots=True)
class HeldPress:
    """One press's outcome as it will be banked: its id (banked once), when it happened, and
    the game and player it was for when it was pressed."""

    press_id: str
    at: float
    """Wall-clock time of the press (the bank's time for it)."""
    outcome: Outcome
    source: str
    game: int | None
    """The game being played at the press (None: not known, the bank was never read)."""
    player: int | None
    """The current player at the press (None: nobody was, or not known)."""
    known: bool
    """Whether ``game`` and ``player`` were known at the press; if not, the bank's latest game
    and its current player when it is banked."""
    params: Mapping[str, int | None] = field(default_factory=dict)
    """What the mode was armed with and where the table stood (a lone leader's battle has no
    teammate: None)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.press_id, "at": self.at, "mode": self.outcome.mode,
                "kind": self.outcome.kind.value, "coins": self.outcome.coins,
                "rolls": list(self.outcome.rolls), "step": self.outcome.step,
                "source": self.source, "game": self.game, "player": self.player,
                "known": self.known, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HeldPress:
        outcome = Outcome(Kind(data["kind"]), coins=int(data["coins"]),
                          rolls=tuple(int(r) for r in data["rolls"]), mode=str(data["mode"]),
                          step=int(data.get("step", 0)))
        return cls(str(data["id"]), float(data["at"]), outcome, str(data["source"]),
                   data["game"], data["player"], bool(data["known"]),
                   {str(k): None if v is None else int(v) for k, v in data["params"].items()})


class HeldFile:
    """The held presses on disk: two fixed slots in a file made while there was room."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._seq = 0
        self._next_slot = 0
        self._lines: dict[str, bytes] = {}

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def open(self) -> list[HeldPress]:
        """Open (or make) the file and return the presses it holds. Raises OSError when the
        folder can't take it (read-only, full before it was made whole) or another companion
        on this data folder has it (one writer: two would overwrite each other's slots)."""
        new = not self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise OSError(errno.EBUSY, "another companion on this data folder holds "
                                           f"{self.path.name}") from None
            found = [(self._read_slot(fd, i), i) for i in (0, 1)]  # before making it whole
            size = os.fstat(fd).st_size
            if size < 2 * SLOT:  # real blocks from where it ends, never over what it holds
                _write_all(fd, bytes(2 * SLOT - size), size)
                os.fsync(fd)
            if new:
                _sync_folder(self.path.parent)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        best = max(((slot[0], i, slot[1]) for slot, i in found if slot is not None),
                   default=None)
        if best is None:
            return []
        self._seq, slot, presses = best
        self._next_slot = 1 - slot
        return presses

    @classmethod
    def peek(cls, path: Path) -> list[HeldPress]:
        """The presses the file holds, read without taking it (tools, tests)."""
        reader = cls(path)
        fd = os.open(path, os.O_RDONLY)
        try:
            found = [slot for slot in (reader._read_slot(fd, i) for i in (0, 1)) if slot]
        finally:
            os.close(fd)
        return max(found, key=lambda slot: slot[0])[1] if found else []

    def _read_slot(self, fd: int, index: int) -> tuple[int, list[HeldPress]] | None:
        raw = os.pread(fd, SLOT, index * SLOT)
        if not raw.strip(b"\0"):
            return None  # never written (or not there yet)
        head, _, rest = raw.partition(b"\n")
        parts = head.split(b" ")
        if len(parts) != 4 or parts[0] != MAGIC:
            return None
        try:
            seq, length, crc = int(parts[1]), int(parts[2]), int(parts[3])
            payload = rest[:length]
            if len(payload) != length or zlib.crc32(payload) != crc:
                log.warning("held presses: slot %d of %s is torn; using the other", index,
                            self.path)
                return None
            return seq, [HeldPress.from_json(json.loads(line))
                         for line in payload.splitlines() if line]
        except (ValueError, KeyError, TypeError) as exc:
            log.error("held presses: slot %d of %s can't be read: %s", index, self.path, exc)
            return None

    def write(self, presses: Sequence[HeldPress]) -> bool:
        """Write these presses (all that are held) into the next slot and sync. False when
        they don't fit (the rest stay in memory only). Raises OSError on an I/O error."""
        if self._fd is None:
            return False
        lines = {p.press_id: self._lines.get(p.press_id) or _line(p) for p in presses}
        self._lines = lines  # each press is serialised once, however often it is rewritten
        payload = b"".join(lines.values())
        seq = self._seq + 1
        head = b"%s %d %d %d\n" % (MAGIC, seq, len(payload), zlib.crc32(payload))
        if len(head) + len(payload) > SLOT:
            return False
        record = head + payload
        _write_all(self._fd, record + bytes(SLOT - len(record)), self._next_slot * SLOT)
        os.fsync(self._fd)
        self._seq = seq
        self._next_slot = 1 - self._next_slot
        return True

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _write_all(fd: int, data: bytes, offset: int) -> None:
    """``pwrite`` all of ``data`` or raise (a short write is a full disk: ENOSPC)."""
    done = 0
    while done < len(data):
        n = os.pwrite(fd, data[done:], offset + done)
        if n <= 0:
            raise OSError(errno.ENOSPC, "no space left on the device")
        done += n


def _line(press: HeldPress) -> bytes:
    return json.dumps(press.to_json(), separators=(",", ":")).encode() + b"\n"


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


MAX_ID = 64
"""A press id is a uuid4's 32 hex digits; a page's copy is refused past this."""


def press_from_page(data: object) -> HeldPress:
    """A held press as a page gives it back (its copy of ``to_json``), checked field by field:
    :class:`~companion.exc.Refused` naming what is wrong; nothing else is trusted."""
    def bad(what: str) -> Refused:
        return Refused(say("a press given back has a bad {field}", field=what))

    if not isinstance(data, dict):
        raise Refused(say("each press given back must be a JSON object"))
    wanted = {"id", "at", "mode", "kind", "coins", "rolls", "step", "source", "game", "player",
              "known", "params"}
    if set(data) != wanted:
        raise Refused(say("a press given back must have exactly: {fields}",
                          fields=joined(sorted(wanted))))
    press_id, mode, source = data["id"], data["mode"], data["source"]
    for name, text, limit in (("id", press_id, MAX_ID), ("mode", mode, 40),
                               ("source", source, 80)):
        if not isinstance(text, str) or not 1 <= len(text) <= limit or not text.isprintable():
            raise bad(name)
    at = data["at"]
    if type(at) not in (int, float) or not 0 < at < 1e11:
        raise bad("at")
    try:
        kind = Kind(data["kind"])
    except (ValueError, TypeError):
        raise bad("kind") from None
    coins, step = data["coins"], data["step"]
    if type(coins) is not int or not 0 <= coins <= 1000:
        raise bad("coins")
    if type(step) is not int or not 0 <= step <= 100:
        raise bad("step")
    rolls = data["rolls"]
    if not isinstance(rolls, list) or len(rolls) > 4 or \
            any(type(r) is not int or not 1 <= r <= 12 for r in rolls):
        raise bad("rolls")
    for name in ("game", "player"):
        value = data[name]
        if value is not None and (type(value) is not int or not 1 <= value < 2**53):
            raise bad(name)
    if type(data["known"]) is not bool:
        raise bad("known")
    params = data["params"]
    if not isinstance(params, dict) or len(params) > 12 or any(
            not isinstance(k, str) or len(k) > 40 or
            (v is not None and (type(v) is not int or abs(v) >= 2**53))
            for k, v in params.items()):
        raise bad("params")
    outcome = Outcome(kind, coins=coins, rolls=tuple(rolls), mode=mode, step=step)
    return HeldPress(press_id, float(at), outcome, source, data["game"], data["player"],
                     data["known"], dict(params))
