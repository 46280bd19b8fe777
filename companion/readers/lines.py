"""One UID per line, for a microcontroller in front of the reader (Arduino + MFRC522 and the
like): ``04A224B9``, ``UID: 04 A2 24 B9`` or ``uid:04:a2:24:b9``, ended by ``\\n`` (``\\r``
ignored). Anything else is counted and ignored; so is the first line after the port opens
(it may be the tail of a line). Pure: bytes in, UIDs out."""

from __future__ import annotations

from companion.core.uid import normal_uid
from companion.readers.counters import Rejects

MAX_LINE = 64
"""Longer lines are not UIDs: dropped up to their end, never buffered without limit."""


class LinesDecoder:
    protocol = "lines"
    baudrate = 9600

    def __init__(self, *, synced: bool = False) -> None:
        self.buffer = bytearray()
        # Opened mid-line, the first line may be the tail of a longer UID: it is skipped.
        self.overlong = not synced
        self.rejects = Rejects()
        self.frames = 0

    def feed(self, data: bytes) -> list[str]:
        uids = []
        self.buffer += data
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > MAX_LINE:  # a flood without newlines
                    if not self.overlong:
                        self.rejects["overlong"] += 1
                    self.overlong = True
                    self.buffer.clear()
                return uids
            line = bytes(self.buffer[:end])
            del self.buffer[: end + 1]
            if self.overlong:  # the tail of an overlong line, or the line the port opened in
                self.overlong = False
                continue
            uid = self._uid(line)
            if uid is not None:
                self.frames += 1
                uids.append(uid)

    def _uid(self, line: bytes) -> str | None:
        text = line.strip(b"\r\t ")
        if not text:
            return None  # blank lines are harmless
        if len(text) > MAX_LINE:
            self.rejects["overlong"] += 1
            return None
        try:
            decoded = text.decode("ascii")
        except UnicodeDecodeError:
            self.rejects["not_ascii"] += 1
            return None
        if decoded[:4].lower() == "uid:":
            decoded = decoded[4:]
        uid = normal_uid(decoded.strip())
        if uid is None:
            self.rejects["not_a_uid"] += 1
        return uid
