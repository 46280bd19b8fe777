"""The sound library: our built-in WAVs, user overrides, and each outcome's finished sound."""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path

from companion.audio.pcm import Pcm, SoundFileError, read_wav
from companion.core.outcomes import Kind, Outcome

log = logging.getLogger(__name__)

SOUND_NAMES: tuple[str, ...] = (
    "coin",
    "power_up",
    "bowser",
    "game_over",
    "timer_tick",
    "timer_loop",
    "time_up",
)

COIN_PERIOD = 0.30
"""Seconds from one coin ping's start to the next: slow enough for a child to count."""
MIN_COIN_GAP = 0.15
"""Silence kept between two pings even when a user's coin.wav is long."""


def builtin_path(name: str) -> Path:
    """Where the packaged WAV for ``name`` lives."""
    return Path(str(resources.files("companion.builtin_sounds").joinpath(f"{name}.wav")))


class SoundLibrary:
    """Loads every sound once (override folder first, then built-in) and renders outcomes.

    A WAV named like a built-in sound (``coin.wav``, ``bowser.wav``, ...) in ``override_dir``
    replaces it; a broken override is logged and the built-in sound is used instead.
    """

    def __init__(self, override_dir: Path | None = None) -> None:
        self.override_dir = override_dir
        self.sources: dict[str, Path] = {}
        self.sounds: dict[str, Pcm] = {name: self._load(name) for name in SOUND_NAMES}
        self._outcomes: dict[str, Pcm] = {}
        ping = self.sounds["coin"]
        period = max(COIN_PERIOD, ping.seconds + MIN_COIN_GAP)
        self.coin_period = period
        """Seconds from one coin ping to the next (screens light a coin per ping)."""
        for k in range(1, 7):
            pcm = Pcm(b"".join(ping.padded_to(period).data for _ in range(k - 1)) + ping.data)
            self._outcomes[f"coins_{k}"] = pcm
        for kind in (Kind.BOWSER, Kind.POWER_UP, Kind.GAME_OVER):
            self._outcomes[kind.value] = self.sounds[kind.value]

    def _load(self, name: str) -> Pcm:
        if self.override_dir is not None:
            candidate = self.override_dir / f"{name}.wav"
            if candidate.is_file():
                try:
                    pcm = read_wav(candidate)
                except (SoundFileError, OSError) as exc:
                    log.warning("ignoring sound override %s: %s; using the built-in sound",
                                candidate, exc)
                else:
                    log.info("sound %r from %s", name, candidate)
                    self.sources[name] = candidate
                    return pcm
        path = builtin_path(name)
        self.sources[name] = path
        return read_wav(path)

    def for_outcome(self, outcome: Outcome) -> Pcm:
        """The finished sound of an outcome (``coins`` k: k pings, evenly spaced)."""
        return self._outcomes[outcome.label]

    def seconds(self, outcome: Outcome) -> float:
        """How long the outcome sounds."""
        return self.for_outcome(outcome).seconds
