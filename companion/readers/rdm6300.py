"""RDM6300 (125 kHz EM4100) frames: ``STX, 10 hex (version + 4-byte tag), 2 hex checksum, ETX``.

The checksum is the XOR of the 5 data bytes. The module sends the frame again and again while
a tag is in the field, and some modules emit an all-zero "ghost" tag: both are handled here
(repeats are the tap detector's business; ghosts are rejected). Pure: bytes in, UIDs out.
"""

from __future__ import annotations

from companion.readers.counters import Rejects

STX, ETX = 0x02, 0x03
FRAME = 14
_HEX = frozenset(b"0123456789ABCDEFabcdef")


class Rdm6300Decoder:
    """Feed it whatever the serial port delivers; it returns the UIDs of valid frames."""

    protocol = "rdm6300"
    baudrate = 9600

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.rejects = Rejects()
        self.frames = 0

    def feed(self, data: bytes) -> list[str]:
        uids = []
        self.buffer += data
        while True:
            start = self.buffer.find(STX)
            if start < 0:
                self._drop(len(self.buffer), "noise")
                return uids
            self._drop(start, "noise")
            if len(self.buffer) < FRAME:
                return uids
            frame = bytes(self.buffer[:FRAME])
            uid, problem = self._check(frame)
            if problem is None:
                del self.buffer[:FRAME]
                self.frames += 1
                uids.append(uid)
            else:
                # Not a frame from here: skip this STX and look for the next one, so a frame
                # that starts inside the garbage is still found.
                self.rejects[problem] += 1
                del self.buffer[:1]

    def _drop(self, n: int, reason: str) -> None:
        if n:
            self.rejects[reason] += n
            del self.buffer[:n]

    @staticmethod
    def _check(frame: bytes) -> tuple[str, str | None]:
        body = frame[1:13]
        if frame[13] != ETX:
            return "", "truncated"
        if not set(body) <= _HEX:
            return "", "not_hex"
        data = bytes.fromhex(body[:10].decode())
        checksum = int(body[10:12], 16)
        xor = 0
        for byte in data:
            xor ^= byte
        if xor != checksum:
            return "", "bad_checksum"
        if not any(data):
            return "", "ghost"
        return data.hex().upper(), None
