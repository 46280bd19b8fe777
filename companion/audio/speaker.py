"""The speaker: one place that plays sounds, survives a missing or busy device, and keeps
outcome sounds ahead of background sounds."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from enum import IntEnum

from companion.audio.backend import AudioBackend, Playback
from companion.audio.pcm import Pcm

log = logging.getLogger(__name__)

PRUNE_AT = 8
"""Finished sounds are forgotten when this many are remembered (after a play, never before)."""


class Priority(IntEnum):
    """Who wins when the device cannot play two sounds at once."""

    BACKGROUND = 0  # lever-timer ticks and music
    SPEECH = 1  # a spoken outcome or turn: stopped by the next press
    OUTCOME = 2  # the block's answer: never dropped for a background sound


@dataclass
class Speaker:
    """Plays through a backend; never raises. Logs one warning when sound is lost, one when back."""

    backend: AudioBackend
    told_elsewhere: bool = False
    """No device at the start is told to the user by the caller (the demo's welcome), so it
    is logged at INFO, not as a warning before the welcome."""
    available: bool = field(default=False, init=False)
    failures: int = field(default=0, init=False)
    _warned: bool = field(default=False, init=False)
    _active: list[tuple[Priority, Playback]] = field(default_factory=list, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def open(self) -> bool:
        """Open the device; False (with one warning) if there is none. The daemon carries on."""
        try:
            self.backend.open()
        except Exception as exc:  # AudioError, or whatever a driver raises (pygame.error, ...)
            message = (f"no audio output via {self.backend.name}: {exc}; carrying on without "
                       "sound (screen and tablet still show outcomes)")
            if self.told_elsewhere:
                log.info("%s", message)
                self._warned, self.available = True, False
            else:
                self._warn(message)
            return False
        self.available = True
        log.info("audio output via %s", self.backend.name)
        return True

    def play(self, pcm: Pcm, priority: Priority = Priority.OUTCOME) -> bool:
        """Start ``pcm``; True if it is playing. A busy device drops background sounds first.
        Safe from any thread (the block's press plays on the pin's thread)."""
        with self._lock:
            try:
                playback = self.backend.play(pcm)  # first: nothing comes before the sound
            except Exception as first:  # a lost device must never lose the outcome
                self._active = [(p, pb) for p, pb in self._active if _still_playing(pb)]
                lower = [pb for p, pb in self._active if p < priority]
                if not lower:
                    return self._failed(first)
                for pb in lower:
                    pb.stop()
                self._active = [(p, pb) for p, pb in self._active if p >= priority]
                try:
                    playback = self.backend.play(pcm)
                except Exception as second:
                    return self._failed(second)
            if self._warned:
                log.warning("audio output is back via %s", self.backend.name)
                self._warned = False
            self.available = True
            if len(self._active) >= PRUNE_AT:
                self._active = [(p, pb) for p, pb in self._active if _still_playing(pb)]
            self._active.append((priority, playback))
            return True

    @property
    def busy(self) -> bool:
        """Something is still playing."""
        with self._lock:
            return any(_still_playing(pb) for _, pb in self._active)

    @property
    def fault(self) -> str | None:
        """What the open backend says is wrong (its writer down, and why), or None."""
        return getattr(self.backend, "fault", None)

    @property
    def health(self) -> tuple[bool, str]:
        """(sound works, a line saying how) for ``/healthz`` and ``doctor``."""
        fault = self.fault
        restarts = getattr(self.backend, "writer_restarts", 0)
        again = f"; its writer was started again {restarts} times" if restarts else ""
        if not self.available:
            return False, "no sound card: outcomes are shown, not heard"
        if fault is not None:
            return False, f"{self.backend.name}: {fault}, starting it again{again}"
        return True, self.backend.name + again

    def stop(self, priority: Priority | None = None) -> None:
        """Stop the sounds of one priority (default: all)."""
        with self._lock:
            for p, playback in self._active:
                if priority is None or p == priority:
                    playback.stop()
            self._active = [(p, pb) for p, pb in self._active
                            if priority is not None and p != priority]

    def close(self) -> None:
        self.stop()
        try:
            self.backend.close()
        except Exception as exc:  # closing is best effort
            log.debug("closing %s: %s", self.backend.name, exc)

    def _failed(self, exc: Exception) -> bool:
        self.failures += 1
        self._warn(f"could not play a sound via {self.backend.name}: {exc}")
        return False

    def _warn(self, message: str) -> None:
        if self._warned:
            log.debug("%s", message)
        else:
            log.warning("%s", message)
            self._warned = True
        self.available = False


def _still_playing(playback: Playback) -> bool:
    try:
        return playback.is_playing()
    except Exception:  # a backend's handle that broke is simply finished
        return False


def make_backend(name: str, device: str = "default") -> AudioBackend:
    """The backend named in config: ``stream`` (on ALSA ``device``), ``simpleaudio``,
    ``pygame`` or ``null``."""
    if name == "stream":
        from companion.audio.stream_backend import StreamBackend

        return StreamBackend(device)
    if name == "simpleaudio":
        from companion.audio.simpleaudio_backend import SimpleaudioBackend

        return SimpleaudioBackend()
    if name == "pygame":
        from companion.audio.pygame_backend import PygameBackend

        return PygameBackend()
    if name == "null":
        from companion.audio.null_backend import NullBackend

        return NullBackend()
    raise ValueError(f"unknown audio backend {name!r}")
