"""The mixer: sounds placed on one timeline of frames, rendered span by span.

Pure and hardware-free. The stream backend owns one always-open PCM and asks the mixer for
the frames it writes; frames are counted from the stream's first, so a sound "starts at frame
N" and can be stopped "at frame M" even after its frames were written (the backend rewinds
what the card has not played and renders the span again).
"""

from __future__ import annotations

import array
import sys
from dataclasses import dataclass

from companion.audio.pcm import FRAME_BYTES, Pcm

_BIG_ENDIAN = sys.byteorder == "big"


@dataclass(eq=False, slots=True)
class Voice:
    """One sound on the timeline: frames ``start`` to ``end`` (``end`` moves in when stopped)."""

    pcm: Pcm
    start: int
    end: int

    def playing_at(self, frame: int) -> bool:
        """The card's position ``frame`` has not yet passed this sound's last frame."""
        return frame < self.end


class Mixer:
    """Voices on the timeline; ``render`` sums whatever overlaps a span, clipped to 16 bits."""

    def __init__(self) -> None:
        self.voices: list[Voice] = []

    def add(self, pcm: Pcm, at: int) -> Voice:
        """Place ``pcm`` so that its first frame is frame ``at``."""
        voice = Voice(pcm, at, at + pcm.frames)
        self.voices.append(voice)
        return voice

    @staticmethod
    def stop(voice: Voice, at: int) -> None:
        """Cut ``voice`` from frame ``at`` on (never lengthens it, never before its start)."""
        voice.end = max(voice.start, min(voice.end, at))

    def forget_before(self, frame: int) -> None:
        """Drop voices that end before ``frame`` (the earliest frame a rewind can reach)."""
        self.voices = [v for v in self.voices if v.end > frame]

    def active(self, frame: int) -> bool:
        """Some voice still has frames at or after ``frame``."""
        return any(v.end > frame for v in self.voices)

    def render(self, start: int, frames: int) -> bytes:
        """Frames ``start`` to ``start + frames`` as canonical PCM: silence where nothing plays."""
        stop = start + frames
        parts = [(v, max(start, v.start), min(stop, v.end)) for v in self.voices
                 if v.start < stop and v.end > start]
        if not parts:
            return bytes(frames * FRAME_BYTES)
        if len(parts) == 1:  # the common case: one sound, copied as it is
            voice, a, b = parts[0]
            body = voice.pcm.data[(a - voice.start) * FRAME_BYTES:(b - voice.start) * FRAME_BYTES]
            return b"".join((bytes((a - start) * FRAME_BYTES), body,
                             bytes((stop - b) * FRAME_BYTES)))
        total = [0] * frames
        for voice, a, b in parts:
            samples = _samples(voice.pcm.data[(a - voice.start) * FRAME_BYTES:
                                              (b - voice.start) * FRAME_BYTES])
            offset = a - start
            for i, sample in enumerate(samples, offset):
                total[i] += sample
        if max(total) > 32767 or min(total) < -32768:
            total = [32767 if s > 32767 else -32768 if s < -32768 else s for s in total]
        out = array.array("h", total)
        if _BIG_ENDIAN:
            out.byteswap()
        return out.tobytes()


def _samples(data: bytes) -> array.array:
    out = array.array("h", data)
    if _BIG_ENDIAN:
        out.byteswap()
    return out
