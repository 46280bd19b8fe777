"""A PN532 NFC module in HSU (UART) mode, as the NXP PN532 User Manual describes it.

Frames (host -> PN532 uses TFI 0xD4, PN532 -> host 0xD5)::

    00 | 00 FF | LEN | LCS | TFI PD0..PDn | DCS | 00     LEN + LCS = 0, TFI + PD.. + DCS = 0
    ACK  = 00 00 FF 00 FF 00          NACK = 00 00 FF FF 00 00
    application error = 00 00 FF 01 FF 7F 81 00

Each command is answered by an ACK, then a reply whose command code is one more than the
command's. The session wakes the chip (HSU wake-up: 0x55 0x55 and zeros), configures the SAM,
limits the passive activation retries (so a poll returns when no card is there), then polls
with InListPassiveTarget for one ISO14443A target and reads its NFCID1 (the UID).

:class:`Pn532Decoder` is pure (bytes in, frames out); :class:`Pn532Session` talks to anything
with pyserial's ``read``/``write``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from companion.readers.counters import Rejects

HOST, CHIP = 0xD4, 0xD5
START = b"\x00\xff"
ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
WAKE = b"\x55\x55" + bytes(14)
"""HSU wake-up: the chip leaves its low-power state on 0x55, then needs some idle bytes."""

SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
GET_FIRMWARE_VERSION = 0x02
IN_LIST_PASSIVE_TARGET = 0x4A
MAX_LEN = 64
"""No reply we ask for is longer; a longer LEN is noise."""


def frame(code: int, params: bytes = b"") -> bytes:
    """A host -> PN532 normal information frame for command ``code``."""
    body = bytes([HOST, code]) + params
    n = len(body)
    return b"\x00" + START + bytes([n, -n & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0x00])


def reply_frame(code: int, params: bytes = b"") -> bytes:
    """A PN532 -> host frame (what the chip sends; the test emulator uses it)."""
    body = bytes([CHIP, code]) + params
    n = len(body)
    return b"\x00" + START + bytes([n, -n & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0x00])


@dataclass(frozen=True, slots=True)
class Ack:
    pass


@dataclass(frozen=True, slots=True)
class Nack:
    pass


@dataclass(frozen=True, slots=True)
class AppError:
    pass


@dataclass(frozen=True, slots=True)
class Reply:
    code: int
    data: bytes


Item = Ack | Nack | AppError | Reply


class Pn532Decoder:
    """Finds frames in a byte stream; anything that does not check out is counted and skipped."""

    def __init__(self, tfi: int = CHIP) -> None:
        self.tfi = tfi
        self.buffer = bytearray()
        self.rejects = Rejects()

    def feed(self, data: bytes) -> list[Item]:
        self.buffer += data
        items: list[Item] = []
        while True:
            at = self.buffer.find(START)
            if at < 0:
                keep = 1 if self.buffer.endswith(b"\x00") else 0  # a start code may be split
                self._skip(len(self.buffer) - keep)
                return items
            self._skip(at)
            if len(self.buffer) < 4:
                return items
            length, lcs = self.buffer[2], self.buffer[3]
            if (length, lcs) == (0x00, 0xFF):
                items.append(Ack())
                self._consume(4)
                continue
            if (length, lcs) == (0xFF, 0x00):
                items.append(Nack())
                self._consume(4)
                continue
            if (length + lcs) & 0xFF or length == 0 or length > MAX_LEN:
                self._bad("bad_length")
                continue
            if len(self.buffer) < 4 + length + 1:
                return items
            body = bytes(self.buffer[4:4 + length])
            dcs = self.buffer[4 + length]
            if (sum(body) + dcs) & 0xFF:
                self._bad("bad_checksum")
                continue
            self._consume(4 + length + 1)
            if body == b"\x7f":
                items.append(AppError())
            elif body[0] != self.tfi or len(body) < 2:
                self.rejects["wrong_direction"] += 1
            else:
                items.append(Reply(body[1], body[2:]))

    def _skip(self, n: int) -> None:
        if n > 0:
            self.rejects["noise"] += n
            del self.buffer[:n]

    def _consume(self, n: int) -> None:
        del self.buffer[:n]
        if self.buffer[:1] == b"\x00":  # the postamble
            del self.buffer[:1]

    def _bad(self, reason: str) -> None:
        self.rejects[reason] += 1
        del self.buffer[:2]  # past this start code; a real frame may begin inside


class Port(Protocol):
    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...


class Pn532Error(RuntimeError):
    """The chip did not answer as the manual says (timeout, NACK, error frame)."""


class Pn532Session:
    """Commands and polling over a serial port (with a short read timeout set on it)."""

    protocol = "pn532"
    baudrate = 115200

    def __init__(self, port: Port, *, clock: Callable[[], float] = time.monotonic,
                 ack_timeout: float = 0.2, reply_timeout: float = 1.0,
                 should_stop: Callable[[], bool] = lambda: False) -> None:
        self.port = port
        self.should_stop = should_stop
        self.clock = clock
        self.ack_timeout = ack_timeout
        self.reply_timeout = reply_timeout
        self.decoder = Pn532Decoder()
        self.firmware: str | None = None
        self.frames = 0
        self._pending: list[Item] = []

    @property
    def rejects(self) -> Rejects:
        return self.decoder.rejects

    def setup(self) -> None:
        """Wake the chip and prepare it for polling ISO14443A cards."""
        self.port.write(WAKE)
        self.command(SAM_CONFIGURATION, b"\x01\x14\x01")  # normal mode, 1 s timeout, IRQ
        ic, ver, rev, _support = self.command(GET_FIRMWARE_VERSION)[:4]
        self.firmware = f"PN5{ic:02x} v{ver}.{rev}"
        # MaxRetries: MxRtyATR 0xFF, MxRtyPSL 0x01, MxRtyPassiveActivation 2: a poll with no
        # card in the field answers "0 targets" instead of waiting forever.
        self.command(RF_CONFIGURATION, b"\x05\xff\x01\x02")

    def poll(self) -> str | None:
        """One InListPassiveTarget (1 target, 106 kbps type A): the UID, or None."""
        data = self.command(IN_LIST_PASSIVE_TARGET, b"\x01\x00")
        if not data or data[0] == 0:
            return None
        # NbTg, Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1...
        if len(data) < 6 or len(data) < 6 + data[5] or not 4 <= data[5] <= 10:
            self.decoder.rejects["bad_target"] += 1
            return None
        self.frames += 1
        return data[6:6 + data[5]].hex().upper()

    def command(self, code: int, params: bytes = b"") -> bytes:
        """Send a command; its reply's data (after the reply code).

        Whatever is still waiting from before (a late ACK or reply of a command that timed
        out) is thrown away first, so an answer is never taken for the next command's."""
        self._forget()
        self.port.write(frame(code, params))
        self._wait(lambda item: isinstance(item, Ack), self.ack_timeout, f"ACK for 0x{code:02x}")
        reply = self._wait(lambda item: isinstance(item, Reply) and item.code == code + 1,
                           self.reply_timeout, f"reply to 0x{code:02x}")
        assert isinstance(reply, Reply)
        return reply.data

    def abort(self) -> None:
        """An ACK from the host aborts the command in progress (user manual, HSU)."""
        self.port.write(ACK)
        self._forget()

    def _forget(self) -> None:
        self._pending.clear()
        if self.decoder.buffer:
            self.decoder.rejects["stale"] += 1
            self.decoder.buffer.clear()
        reset = getattr(self.port, "reset_input_buffer", None)
        if reset is not None:
            reset()

    def _wait(self, wanted: Callable[[Item], bool], timeout: float, what: str) -> Item:
        deadline = self.clock() + timeout
        while True:
            while self._pending:  # frames already read stay for the next wait
                item = self._pending.pop(0)
                if wanted(item):
                    return item
                if isinstance(item, Nack | AppError):
                    raise Pn532Error(f"{type(item).__name__} while waiting for {what}")
                # anything else is stale (an answer to an aborted command): dropped
            if self.clock() >= deadline:
                raise Pn532Error(f"no {what} within {timeout:.1f} s")
            if self.should_stop():
                raise Pn532Error("stopping")
            self._pending = self.decoder.feed(self.port.read(64))
