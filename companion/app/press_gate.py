"""Where a press from the block's own thread meets the table: its sound starts right there.

The loop keeps a :class:`Plan` on offer: the next press's outcome, drawn ahead with the
block's dice (:mod:`companion.core.dice_ahead`), its sound, and the table it was drawn for. A
press on the pin's thread takes that plan under the gate's lock, starts its sound at once and
leaves the rest (the event, the history, the bank) to the loop. The loop withdraws the plan,
settling every press taken on it first, before anything that could change what a press means;
so a press that sounded always counts, and counts as the table stood when it was pressed.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from companion.audio.pcm import Pcm
from companion.audio.speaker import Priority, Speaker
from companion.core.block import Block
from companion.core.dice_ahead import DiceAhead
from companion.core.editions.modes import Mode
from companion.core.outcomes import Outcome
from companion.core.state import TableState


@dataclass(frozen=True, slots=True)
class Plan:
    """The next press, as the loop last saw the table: its outcome is already drawn."""

    mode: Mode
    params: Mapping[str, int]
    state: TableState | None
    player: str | None
    outcome: Outcome
    sound: Pcm
    seconds: float
    """How long the block is busy with it (its sound, as the block times it)."""
    dice: tuple[tuple[int, int, int], ...]
    """The dice the outcome read (given back if no press takes it)."""


@dataclass(frozen=True, slots=True)
class Taken:
    """A press drawn, or ignored while the last outcome sounds, and not yet on the loop."""

    plan: Plan
    at: float
    source: str
    number: int
    """The block's press count with it."""
    played: bool | None
    """Whether its sound started; None: the block was still sounding, the press is ignored."""

    @property
    def counts(self) -> bool:
        return self.played is not None


class PressGate:
    """The block's busy time, its dice and the speaker, for presses from any thread."""

    def __init__(self, block: Block, speaker: Speaker) -> None:
        self.block = block
        self.speaker = speaker
        self.dice = DiceAhead(block.rng)
        """The loop draws every outcome with these (never the pin's thread)."""
        self._lock = threading.Lock()
        self._plan: Plan | None = None
        self._taken: list[Taken] = []
        self._handed = 0
        """Presses :meth:`take` handed to the loop and not yet pressed there: until they are,
        later presses go to the loop too (presses count in the order they were made)."""

    def offer(self, plan: Plan | None) -> None:
        """The loop, after :meth:`withdraw`: the next press is ``plan`` (None: the loop
        decides each press)."""
        with self._lock:
            self._plan = plan

    def take(self, at: float, source: str) -> Taken | None:
        """Any thread: press on the plan on offer, sounding at once; None when there is none
        (hand the press to the loop, which calls :meth:`reached_loop` before it presses). The
        loop settles a press taken here with :meth:`withdraw`."""
        with self._lock:
            plan = self._plan
            if plan is None or self._handed:  # an earlier press waits for the loop: after it
                self._handed += 1
                return None
            taken = self._press(plan, at, source)
            if taken.counts:
                self._plan = None  # its dice are read: the loop offers the next
            self._taken.append(taken)
            return taken

    def reached_loop(self) -> None:
        """The loop: a press :meth:`take` handed over is pressed now (or dropped)."""
        with self._lock:
            self._handed = max(0, self._handed - 1)

    def press(self, plan: Plan, at: float, source: str) -> Taken:
        """The loop: press on ``plan``, drawn just now (after :meth:`withdraw`)."""
        with self._lock:
            taken = self._press(plan, at, source)
        if not taken.counts:
            self.dice.give_back(plan.dice)
        return taken

    def withdraw(self) -> list[Taken]:
        """The loop: the plan on offer is withdrawn (its dice given back, unread), and the
        presses taken meanwhile are returned, oldest first, to settle."""
        with self._lock:
            plan, self._plan = self._plan, None
            taken, self._taken = self._taken, []
        if plan is not None:
            self.dice.give_back(plan.dice)
        return taken

    def _press(self, plan: Plan, at: float, source: str) -> Taken:
        if not self.block.take(at, plan.seconds):
            return Taken(plan, at, source, self.block.presses, None)
        return Taken(plan, at, source, self.block.presses,
                     self.speaker.play(plan.sound, Priority.OUTCOME))
