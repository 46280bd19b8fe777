"""Spoken outcomes in ``companion bench``: from the end of an outcome's sound to the voice's
first call to the audio backend (a breath of ``GAP_S`` is meant), with the players' lines
rendered ahead, against the floor: the bare event loop calling the same backend with the same
PCM after the same delay (interleaved)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from companion.audio.null_backend import NullBackend
from companion.audio.pcm import Pcm
from companion.audio.speaker import Speaker
from companion.bench.stats import summary
from companion.core.editions import editions
from companion.core.outcomes import Kind, Outcome
from companion.core.state import GameView, PlayerView, TableState
from companion.events import BlockOutcome, StateChanged
from companion.i18n import LANGUAGES, translator
from companion.speech.announcer import GAP_S, Announcer
from companion.speech.lines import outcome_line, outcomes_of
from companion.speech.voice import Voice, espeak_available

SOUND_S = 0.05
"""The outcome's sound in the bench: short, so many rounds fit in a second or two."""


@dataclass
class _Timed(NullBackend):
    """The null backend, noting when each play was asked for."""

    times: list[float] = field(default_factory=list)

    def play(self, pcm: Pcm) -> Any:
        self.times.append(time.perf_counter())
        return super().play(pcm)


def _state() -> TableState:
    game = GameView(1, "celebration", "Celebration", True, True)
    players = tuple(PlayerView(i, name, "#ffffff", i, 30, i == 1, None)
                    for i, name in enumerate(("Mario", "Luigi", "Peach", "Yoshi"), 1))
    return TableState(game, players, 1, None, (), ())


async def _run(rounds: int, language: str) -> dict[str, Any]:
    state = _state()
    backend = _Timed()
    speaker = Speaker(backend)
    speaker.open()
    voice = Voice(LANGUAGES[language])
    announcer = Announcer(speaker, voice, translator(language),
                          likely=lambda: outcomes_of(editions()["celebration"].default_mode))
    announcer.heard(StateChanged("game", "", state))  # renders the players' lines ahead
    outcome = Outcome(Kind.COINS, 3, (1, 3))
    line = outcome_line(announcer.words, outcome, "Mario")
    assert line is not None
    for _ in range(500):
        if voice.ready(line) is not None:
            break
        await asyncio.sleep(0.02)
    pcm = voice.ready(line)
    loop = asyncio.get_running_loop()
    voice_ms: list[float] = []
    floor_ms: list[float] = []
    for i in range(rounds):
        start = time.perf_counter()
        if i % 2 == 0:
            announcer.heard(BlockOutcome(i, outcome, 0.0, "bench", True, sound_seconds=SOUND_S,
                                         player=1))
            target = voice_ms
        else:
            loop.call_later(SOUND_S + GAP_S, speaker.play, pcm)
            target = floor_ms
        before = len(backend.times)
        while len(backend.times) == before:
            await asyncio.sleep(0.001)
        target.append((backend.times[-1] - (start + SOUND_S)) * 1000)
    announcer.close()
    return {"voice": summary(voice_ms, len(voice_ms)), "floor": summary(floor_ms,
                                                                        len(floor_ms))}


def voice_after_outcome_ms(rounds: int = 200) -> dict[str, Any]:
    """The voice's start after its outcome's sound ends (ms), against the bare loop."""
    if not espeak_available():
        return {"available": False, "why": "espeak-ng is not installed"}
    figures = asyncio.run(_run(rounds, "en"))
    voice, floor = figures["voice"], figures["floor"]
    return {"available": True, **figures,
            "ratio_p50": round(voice["p50"] / floor["p50"], 2) if floor["p50"] else None,
            "target_ms": 100}
