"""The null backend: plays nothing, remembers what it was asked to play (the test double)."""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.audio.pcm import Pcm


@dataclass
class _Silent:
    stopped: bool = False

    def is_playing(self) -> bool:
        return False

    def stop(self) -> None:
        self.stopped = True


@dataclass
class NullBackend:
    """Accepts every sound and drops it; ``played`` keeps them in order."""

    name: str = "null"
    played: list[Pcm] = field(default_factory=list)

    def open(self) -> None:
        return None

    def play(self, pcm: Pcm) -> _Silent:
        self.played.append(pcm)
        return _Silent()

    def close(self) -> None:
        return None
