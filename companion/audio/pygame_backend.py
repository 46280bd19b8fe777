"""Sound through pygame.mixer (SDL), which mixes overlapping sounds itself.

The second backend, for where simpleaudio cannot serve."""

from __future__ import annotations

import importlib
import logging
from typing import Any

from companion.audio.backend import AudioError
from companion.audio.pcm import CHANNELS, RATE, Pcm

log = logging.getLogger(__name__)


class _ChannelPlayback:
    def __init__(self, channel: Any, sound: Any) -> None:
        self._channel = channel
        self._sound = sound

    def is_playing(self) -> bool:
        return bool(self._channel.get_busy()) and self._channel.get_sound() is self._sound

    def stop(self) -> None:
        if self.is_playing():
            self._channel.stop()


class PygameBackend:
    """pygame.mixer at the canonical format; 16 channels mixed in software."""

    name = "pygame"

    def __init__(self, buffer_frames: int = 512) -> None:
        self._buffer_frames = buffer_frames
        self._mixer: Any = None

    def open(self) -> None:
        try:
            from companion.sdl import load_pygame

            pygame = load_pygame()
            mixer = importlib.import_module("pygame.mixer")
        except ImportError as exc:
            raise AudioError(f"pygame.mixer cannot be imported ({exc})") from exc
        try:
            mixer.init(frequency=RATE, size=-16, channels=CHANNELS,
                              buffer=self._buffer_frames, allowedchanges=0)
        except pygame.error as exc:
            raise AudioError(f"pygame.mixer could not open an audio device: {exc}") from exc
        mixer.set_num_channels(16)
        self._mixer = mixer

    def play(self, pcm: Pcm) -> _ChannelPlayback:
        if self._mixer is None:
            raise AudioError("backend not opened")
        sound = self._mixer.Sound(buffer=pcm.data)
        channel = sound.play()
        if channel is None:
            raise AudioError("no free pygame mixer channel")
        return _ChannelPlayback(channel, sound)

    def close(self) -> None:
        if self._mixer is not None:
            self._mixer.stop()
            self._mixer.quit()
            self._mixer = None
