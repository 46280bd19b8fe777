"""Card readers emulated on pseudo-terminal pairs: the companion opens the pty's slave end as
its serial port (pyserial, as with a USB adapter) and the emulator speaks on the master end."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

from companion.readers.pn532 import (
    ACK,
    GET_FIRMWARE_VERSION,
    HOST,
    IN_LIST_PASSIVE_TARGET,
    RF_CONFIGURATION,
    SAM_CONFIGURATION,
    Pn532Decoder,
    Reply,
    reply_frame,
)


class Pty:
    """A pty pair; ``path`` is what a serial port would be (or a symlink to it)."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.device = os.ttyname(self.slave)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def read(self, timeout: float = 0.05) -> bytes:
        import select

        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:
            return b""

    def close(self) -> None:
        """The reader vanishes (USB unplugged): both ends go away."""
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def rdm6300_frame(uid_hex: str) -> bytes:
    """STX + 10 hex + checksum (XOR of the 5 bytes, 2 hex) + ETX."""
    data = bytes.fromhex(uid_hex)
    xor = 0
    for byte in data:
        xor ^= byte
    return b"\x02" + data.hex().upper().encode() + f"{xor:02X}".encode() + b"\x03"


@contextlib.contextmanager
def linked(pty: Pty, link: Path) -> Iterator[Path]:
    """``link`` -> the pty's device, as udev's stable symlink would point at the adapter."""
    tmp = link.with_name(link.name + ".new")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    tmp.symlink_to(pty.device)
    tmp.replace(link)
    yield link


class Pn532Emulator:
    """Answers the host's command frames like a PN532 in HSU mode: ACK, then the reply.

    ``cards`` is what the field holds at each InListPassiveTarget: a UID (hex) or None.
    ``garbage`` is written before every reply (noise on the line).
    """

    def __init__(self, pty: Pty, cards: list[str | None], garbage: bytes = b"",
                 swallow_at: int | None = None) -> None:
        self.pty = pty
        self.swallow_at = swallow_at
        """Before the answer to this poll (0-based), send a header that looks like the start
        of a long frame: the host's decoder waits for bytes that never make a frame."""
        self.polls = 0
        self.cards = list(cards)
        self.garbage = garbage
        self.commands: list[int] = []
        self.decoder = Pn532Decoder(tfi=HOST)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Pn532Emulator:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(2)

    @property
    def polls_left(self) -> int:
        return len(self.cards)

    def _run(self) -> None:
        while not self._stop.is_set():
            data = self.pty.read()
            for item in self.decoder.feed(data):
                if isinstance(item, Reply):
                    self._answer(item.code, item.data)

    def _answer(self, code: int, data: bytes) -> None:
        self.commands.append(code)
        self.pty.write(ACK)
        time.sleep(0.002)
        if code == SAM_CONFIGURATION:
            reply = b""
        elif code == GET_FIRMWARE_VERSION:
            reply = bytes([0x32, 0x01, 0x06, 0x07])
        elif code == RF_CONFIGURATION:
            reply = b""
        elif code == IN_LIST_PASSIVE_TARGET:
            if self.polls == self.swallow_at:
                self.pty.write(b"\x00\xff\x40\xc0")
            self.polls += 1
            uid = self.cards.pop(0) if self.cards else None
            if uid is None:
                reply = b"\x00"
            else:
                raw = bytes.fromhex(uid)
                reply = bytes([1, 1, 0x00, 0x04, 0x08, len(raw)]) + raw
        else:
            return
        self.pty.write(self.garbage + reply_frame(code + 1, reply))
