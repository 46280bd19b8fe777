"""PCM buffers in the companion's one canonical format, and WAV reading into it.

Everything is played as 44.1 kHz, signed 16-bit little-endian, mono: one format means
sounds can be joined (coin pings), mixed by ALSA's dmix and compared byte for byte in tests.
User-supplied WAVs in other PCM formats are converted when loaded.
"""

from __future__ import annotations

import array
import sys
from dataclasses import dataclass
from pathlib import Path

RATE = 44100
CHANNELS = 1
SAMPLE_WIDTH = 2
FRAME_BYTES = CHANNELS * SAMPLE_WIDTH


class SoundFileError(ValueError):
    """A sound file that cannot be used (not a WAV, unsupported encoding, empty)."""


@dataclass(frozen=True, slots=True)
class Pcm:
    """Raw audio in the canonical format."""

    data: bytes

    def __post_init__(self) -> None:
        if len(self.data) % FRAME_BYTES:
            raise ValueError("PCM data must hold whole frames")

    @property
    def frames(self) -> int:
        return len(self.data) // FRAME_BYTES

    @property
    def seconds(self) -> float:
        return self.frames / RATE

    @classmethod
    def silence(cls, seconds: float) -> Pcm:
        return cls(bytes(round(seconds * RATE) * FRAME_BYTES))

    def __add__(self, other: Pcm) -> Pcm:
        return Pcm(self.data + other.data)

    def padded_to(self, seconds: float) -> Pcm:
        """This sound followed by silence up to ``seconds`` (never truncated)."""
        missing = round(seconds * RATE) - self.frames
        return self if missing <= 0 else Pcm(self.data + bytes(missing * FRAME_BYTES))


MAX_SECONDS = 30.0
"""Longer user sounds are refused: the block's sounds are short, and loading must stay quick."""

_PCM, _FLOAT, _EXTENSIBLE = 0x0001, 0x0003, 0xFFFE


@dataclass(frozen=True, slots=True)
class _Format:
    tag: int
    channels: int
    rate: int
    bits: int


def _chunks(blob: bytes) -> dict[bytes, bytes]:
    """The RIFF/WAVE chunks of a file (first of each id); raises SoundFileError if malformed."""
    if len(blob) < 12 or blob[:4] != b"RIFF" or blob[8:12] != b"WAVE":
        raise SoundFileError("not a RIFF/WAVE file")
    chunks: dict[bytes, bytes] = {}
    pos = 12
    while pos + 8 <= len(blob):
        cid = blob[pos : pos + 4]
        size = int.from_bytes(blob[pos + 4 : pos + 8], "little")
        body = blob[pos + 8 : pos + 8 + size]  # a short last chunk is taken as it is
        chunks.setdefault(cid, body)
        pos += 8 + size + (size & 1)
    return chunks


def _parse_format(fmt: bytes) -> _Format:
    if len(fmt) < 16:
        raise SoundFileError("fmt chunk too short")
    tag = int.from_bytes(fmt[0:2], "little")
    channels = int.from_bytes(fmt[2:4], "little")
    rate = int.from_bytes(fmt[4:8], "little")
    bits = int.from_bytes(fmt[14:16], "little")
    if tag == _EXTENSIBLE:
        if len(fmt) < 26:
            raise SoundFileError("extensible fmt chunk too short")
        tag = int.from_bytes(fmt[24:26], "little")  # first two bytes of the sub-format GUID
    if tag not in (_PCM, _FLOAT):
        raise SoundFileError(f"unsupported WAV encoding 0x{tag:04x} (use PCM or float)")
    if tag == _PCM and bits not in (8, 16, 24, 32):
        raise SoundFileError(f"unsupported sample size {bits} bits")
    if tag == _FLOAT and bits not in (32, 64):
        raise SoundFileError(f"unsupported float sample size {bits} bits")
    if not 1 <= channels <= 8:
        raise SoundFileError(f"unsupported channel count {channels}")
    if not 4000 <= rate <= 192000:
        raise SoundFileError(f"unsupported sample rate {rate} Hz")
    return _Format(tag, channels, rate, bits)


def _decode(raw: bytes, fmt: _Format) -> array.array:
    """Samples of any supported encoding as signed 16-bit (all channels interleaved)."""
    width = fmt.bits // 8
    raw = raw[: len(raw) - len(raw) % (width * fmt.channels)]  # whole frames only
    if fmt.tag == _FLOAT:
        floats = array.array("f" if width == 4 else "d", raw)
        if sys.byteorder == "big":
            floats.byteswap()
        # Clamp first (inf, overs), NaN becomes silence.
        return array.array("h", (round(max(-1.0, min(1.0, v)) * 32767.0) if v == v else 0
                                 for v in floats))
    if width == 2:
        out = array.array("h", raw)
        if sys.byteorder == "big":
            out.byteswap()
        return out
    if width == 1:  # 8-bit WAV is unsigned
        return array.array("h", ((b - 128) << 8 for b in raw))
    return array.array(
        "h",
        (int.from_bytes(raw[i : i + width], "little", signed=True) >> (8 * (width - 2))
         for i in range(0, len(raw), width)),
    )


def _downmix(samples: array.array, channels: int) -> array.array:
    if channels == 1:
        return samples
    return array.array(
        "h",
        (sum(samples[i : i + channels]) // channels
         for i in range(0, len(samples) - channels + 1, channels)),
    )


def _resample(samples: array.array, rate: int) -> array.array:
    """Linear-interpolation resampling to ``RATE`` (fine for effects; give 44.1 kHz for best)."""
    if rate == RATE or not samples:
        return samples
    n_out = max(1, round(len(samples) * RATE / rate))
    step = rate / RATE
    last = len(samples) - 1
    out = array.array("h", bytes(2 * n_out))
    for i in range(n_out):
        pos = i * step
        k = int(pos)
        if k >= last:
            out[i] = samples[last]
        else:
            frac = pos - k
            out[i] = round(samples[k] + (samples[k + 1] - samples[k]) * frac)
    return out


def read_wav(path: Path) -> Pcm:
    """Read a WAV file (PCM 8/16/24/32-bit or float, plain or extensible, any channels and
    common rate) and convert it to the canonical format. Anything unusable: SoundFileError."""
    try:
        size = path.stat().st_size
        if size > 64 * 1024 * 1024:
            raise SoundFileError(f"too large ({size} bytes)")
        chunks = _chunks(path.read_bytes())
        if b"fmt " not in chunks or b"data" not in chunks:
            raise SoundFileError("missing fmt or data chunk")
        fmt = _parse_format(chunks[b"fmt "])
        raw = chunks[b"data"]
        frame_bytes = fmt.bits // 8 * fmt.channels
        if len(raw) // frame_bytes == 0:
            raise SoundFileError("holds no audio")
        if len(raw) // frame_bytes > MAX_SECONDS * fmt.rate:
            raise SoundFileError(f"longer than {MAX_SECONDS:.0f} s")
        samples = _resample(_downmix(_decode(raw, fmt), fmt.channels), fmt.rate)
    except SoundFileError as exc:
        raise SoundFileError(f"{path}: {exc}") from None
    except OSError as exc:
        raise SoundFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if sys.byteorder == "big":
        samples.byteswap()
    return Pcm(samples.tobytes())
