"""Sound through simpleaudio (ALSA's ``default`` PCM on Linux).

We depend on ``simpleaudio-patched``: a maintained fork of simpleaudio 1.0.4 with the same
``simpleaudio`` import name that fixes the crash on Python 3.12+. Each sound is its own ALSA
stream, so overlapping sounds need a mixing device (dmix, PipeWire or PulseAudio): see
``hardware/asound.conf``.
"""

from __future__ import annotations

import logging
from typing import Any

from companion.audio.alsa_pcm import route_alsa_messages_to_logging
from companion.audio.backend import AudioError
from companion.audio.pcm import CHANNELS, RATE, SAMPLE_WIDTH, Pcm

log = logging.getLogger(__name__)

class SimpleaudioBackend:
    """Plays each sound on its own simpleaudio stream."""

    name = "simpleaudio"

    def __init__(self) -> None:
        self._sa: Any = None

    def open(self) -> None:
        try:
            import simpleaudio
        except ImportError as exc:
            raise AudioError(f"simpleaudio cannot be imported ({exc})") from exc
        route_alsa_messages_to_logging()
        self._sa = simpleaudio
        # Probe the device with 5 ms of silence: no audible click, but a real open.
        self.play(Pcm.silence(0.005)).stop()

    def play(self, pcm: Pcm) -> Any:
        if self._sa is None:
            raise AudioError("backend not opened")
        try:
            return self._sa.play_buffer(pcm.data, CHANNELS, SAMPLE_WIDTH, RATE)
        except Exception as exc:  # simpleaudio raises its own SimpleaudioError
            raise AudioError(str(exc).split("ALSA lib")[0].strip()) from exc

    def close(self) -> None:
        if self._sa is not None:
            self._sa.stop_all()
            self._sa = None
