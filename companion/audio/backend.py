"""The small contract every audio backend keeps, so simpleaudio, pygame and null are swappable."""

from __future__ import annotations

from typing import Protocol

from companion.audio.pcm import Pcm

BACKENDS = ("stream", "simpleaudio", "pygame", "null")
"""The backends ``[audio] backend`` can name."""


class AudioError(RuntimeError):
    """A backend could not open the device or start a sound."""


class Playback(Protocol):
    """A sound that was started."""

    def is_playing(self) -> bool: ...

    def stop(self) -> None: ...


class AudioBackend(Protocol):
    """Plays canonical PCM (44.1 kHz, s16le, mono). Overlapping ``play`` calls must be allowed."""

    name: str

    def open(self) -> None:
        """Prepare the device; raise AudioError if no output can be had."""

    def play(self, pcm: Pcm) -> Playback:
        """Start ``pcm`` without blocking; raise AudioError if it cannot start."""

    def close(self) -> None:
        """Stop everything and release the device."""
