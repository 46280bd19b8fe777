"""PCM buffers in the companion's one canonical format, and WAV reading into it.

Everything is played as 44.1 kHz, signed 16-bit little-endian, mono: one format means
sounds can be joined (coin pings), mixed by ALSA's dmix and compared byte for byte in tests.
User-supplied WAVs in other PCM formats are converted when loaded.
"""

from __future__ import annotations

import array
import sys
import wave
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


def _to_int16(raw: bytes, width: int) -> array.array:
    """Decode little-endian PCM samples of ``width`` bytes to signed 16-bit."""
    if width == 2:
        out = array.array("h", raw)
        if sys.byteorder == "big":
            out.byteswap()
        return out
    if width == 1:  # 8-bit WAV is unsigned
        return array.array("h", ((b - 128) << 8 for b in raw))
    if width in (3, 4):
        step = width
        return array.array(
            "h",
            (int.from_bytes(raw[i : i + step], "little", signed=True) >> (8 * (step - 2))
             for i in range(0, len(raw) - step + 1, step)),
        )
    raise SoundFileError(f"unsupported sample width {width * 8} bits")


def _downmix(samples: array.array, channels: int) -> array.array:
    if channels == 1:
        return samples
    return array.array(
        "h",
        (sum(samples[i : i + channels]) // channels
         for i in range(0, len(samples) - channels + 1, channels)),
    )


def _resample(samples: array.array, rate: int) -> array.array:
    """Linear-interpolation resampling to ``RATE`` (good enough for short effects)."""
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
    """Read a PCM WAV file and convert it to the canonical format."""
    try:
        with wave.open(str(path), "rb") as wav:
            channels, width, rate = wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
            raw = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise SoundFileError(f"{path}: not a PCM WAV file ({exc})") from exc
    if not raw:
        raise SoundFileError(f"{path}: holds no audio")
    if rate < 4000 or rate > 192000:
        raise SoundFileError(f"{path}: unsupported sample rate {rate} Hz")
    samples = _resample(_downmix(_to_int16(raw, width), channels), rate)
    if sys.byteorder == "big":
        samples.byteswap()
    return Pcm(samples.tobytes())
