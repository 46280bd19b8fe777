"""Spoken outcomes ([speech] enabled): after an outcome's sound, the voice says what happened
in the table's language; whose turn it is when the turn passes; the lever timer's last ten
seconds and time up. Through the daemon's speaker, below the outcome sounds: the next press
stops a line still being said, and never waits for one.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future

from companion.audio.pcm import Pcm
from companion.audio.speaker import Priority, Speaker
from companion.core.outcomes import Outcome
from companion.core.state import TableState
from companion.events import BlockOutcome, Event, StateChanged, TimerChanged
from companion.i18n import Translator
from companion.speech.lines import outcome_line, seconds_line, time_up_line, turn_line
from companion.speech.voice import Voice

log = logging.getLogger(__name__)

GAP_S = 0.04
"""A breath between an outcome's sound and its words."""
WARNING_S = 10
"""The lever timer's warning: "10 seconds left"."""
TURNS = ("next player", "current player")
"""Writes that pass the turn (their action names): the voice says whose turn it is."""


class Announcer:
    """Says lines on the loop, rendered ahead by the :class:`Voice`."""

    def __init__(self, speaker: Speaker, voice: Voice, words: Translator,
                 time_up_seconds: float = 0.0,
                 likely: Callable[[], tuple[Outcome, ...]] = tuple) -> None:
        self.speaker = speaker
        self.voice = voice
        self.words = words
        self.time_up_seconds = time_up_seconds
        self.likely = likely
        """The outcomes worth rendering ahead for each player: the edition's default mode's,
        priced by its ruleset (the daemon's; others are rendered when said)."""
        self.state: TableState | None = None
        self.table: Callable[[], TableState | None] = lambda: None
        """The table as the service has it now (the daemon's), for a press before any
        state was announced."""
        self._timer: int | None = None
        """The token of the timer's warning while it is due."""
        self._lines: dict[int, asyncio.TimerHandle] = {}
        """Lines due to be said, by token (gone once said or stopped)."""
        self._said = 0
        """Bumped by each new line: a render finishing late for an older one is dropped."""
        self._prepared: tuple[str, ...] = ()
        self.spoken: list[str] = []
        """Every line said, in order (the log and the tests read it)."""

    def heard(self, event: Event) -> None:
        """A bus listener (on the loop)."""
        if isinstance(event, BlockOutcome):
            self.stop()
            name = self._name(event.player)
            line = outcome_line(self.words, event.outcome, name)
            if line is not None:
                self._say_after(event.sound_seconds + GAP_S, line)
        elif isinstance(event, StateChanged):
            before, self.state = self.state, event.state
            self._prepare(event.state)
            current = event.state.current
            if event.action in TURNS and current is not None and (
                    before is None or before.current_player != current.id):
                self._say_after(0.0, turn_line(self.words, current.name,
                                               lever=event.state.game.simultaneous),
                                interrupt=False)
        elif isinstance(event, TimerChanged):
            self._timer_changed(event)

    def _name(self, player: int | None) -> str | None:
        state = self.state or self.table()
        found = state.player(player) if state is not None else None
        return found.name if found is not None else None

    def _timer_changed(self, event: TimerChanged) -> None:
        if self._timer is not None:  # a warning still due: the timer stopped or restarted
            handle = self._lines.pop(self._timer, None)
            if handle is not None:
                handle.cancel()
            self._timer = None
        if event.what == "started" and event.state.remaining > WARNING_S:
            line = seconds_line(self.words, WARNING_S)
            self.voice.prepare([line])
            self._say_after(event.state.remaining - WARNING_S, line, interrupt=False)
            self._timer = self._said
        elif event.what == "time_up":  # a restart or stop before it is said cancels it too
            self._say_after(self.time_up_seconds + GAP_S, time_up_line(self.words),
                            interrupt=False)
            self._timer = self._said

    def _say_after(self, delay: float, line: str, *, interrupt: bool = True) -> None:
        if interrupt:
            self._cancel_lines()
        self._said += 1
        self._lines[self._said] = asyncio.get_running_loop().call_later(delay, self._say, line,
                                                                        self._said)

    def _cancel_lines(self, *, timer_too: bool = False) -> None:
        """Lines due are cancelled; the lever timer's own (its warning, time up) stay unless
        ``timer_too``: only the timer's events (or the end) cancel those."""
        keep = self._timer if not timer_too else None
        for token, handle in list(self._lines.items()):
            if token != keep:
                handle.cancel()
                del self._lines[token]

    @property
    def pending(self) -> bool:
        """A line is due, or waits for its rendering (the demo waits for it to be said)."""
        return bool(self._lines)

    def _say(self, line: str, token: int) -> None:
        pcm = self.voice.ready(line)
        if pcm is not None:
            self._lines.pop(token, None)
            self._play(line, pcm)
            return
        loop = asyncio.get_running_loop()  # not rendered ahead: said when it is, if still due
        pending = self.voice.get(line)

        def rendered(done: Future[Pcm | None]) -> None:
            if not loop.is_closed():  # the daemon may have stopped meanwhile
                loop.call_soon_threadsafe(self._late, line, token, done)

        pending.add_done_callback(rendered)

    def _late(self, line: str, token: int, done: Future[Pcm | None]) -> None:
        pcm = None if done.cancelled() or done.exception() is not None else done.result()
        if self._lines.pop(token, None) is not None and pcm is not None:
            self._play(line, pcm)

    def _play(self, line: str, pcm: Pcm) -> None:
        self.spoken.append(line)
        log.info("said: %s", line)
        self.speaker.play(pcm, Priority.SPEECH)

    def _prepare(self, state: TableState) -> None:
        """Render ahead what the current players will hear most: their turn and every outcome
        of the edition's default press (coins, Bowser, Game Over, a power-up ...)."""
        names = tuple(p.name for p in state.active)
        if names == self._prepared:
            return
        self._prepared = names
        t = self.words
        likely = self.likely()
        lines: list[str] = []
        for name in names:
            lines.append(turn_line(t, name, lever=bool(state.game.simultaneous)))
            for outcome in likely:
                said = outcome_line(t, outcome, name)
                if said is not None:
                    lines.append(said)
        self.voice.prepare(lines)

    def stop(self) -> None:
        """The next press: a line still to come or being said stops."""
        self._cancel_lines()
        self._said += 1
        self.speaker.stop(Priority.SPEECH)

    def close(self) -> None:
        self._cancel_lines(timer_too=True)
        self.stop()
        self.voice.close()

