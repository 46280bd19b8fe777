"""Sound through simpleaudio (ALSA's ``default`` PCM on Linux).

We depend on ``simpleaudio-patched``: a maintained fork of simpleaudio 1.0.4 with the same
``simpleaudio`` import name that fixes the crash on Python 3.12+. Each sound is its own ALSA
stream, so overlapping sounds need a mixing device (dmix, PipeWire or PulseAudio): see
``hardware/asound.conf``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from typing import Any

from companion.audio.backend import AudioError
from companion.audio.pcm import CHANNELS, RATE, SAMPLE_WIDTH, Pcm

log = logging.getLogger(__name__)

_ALSA_HANDLER_TYPE = ctypes.CFUNCTYPE(
    None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p
)


def _log_alsa(file: bytes, line: int, func: bytes, err: int, fmt: bytes) -> None:
    log.debug("alsa-lib %s:%d %s: %s", file.decode(errors="replace"), line,
              func.decode(errors="replace"), fmt.decode(errors="replace"))


_alsa_handler = _ALSA_HANDLER_TYPE(_log_alsa)


def _route_alsa_messages_to_logging() -> None:
    """alsa-lib prints its errors on stderr; send them to our log at DEBUG instead."""
    name = ctypes.util.find_library("asound")
    if not name:
        return
    try:
        ctypes.CDLL(name).snd_lib_error_set_handler(_alsa_handler)
    except (OSError, AttributeError):  # pragma: no cover - exotic libasound
        log.debug("could not install the alsa-lib error handler")


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
        _route_alsa_messages_to_logging()
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
