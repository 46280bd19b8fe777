"""The block's dice, thrown before the press that reads them.

A press must answer at once, and drawing from the operating system's entropy on a cold CPU
takes longer than starting a sound. So the next press's outcome is drawn ahead, on the loop,
with these dice. When the table changes first (a mode armed, a turn passed, doubles), that
outcome is never shown: its dice are given back and read, in the same order, by the next
draw. Every press therefore reads the dice it would have read had it drawn at the press: one
outcome per press, the odds of its table exactly, and a scripted RNG in a test still gives the
press the values it scripted.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TypeVar

from companion.core.outcomes import DieRng

T = TypeVar("T")


class DiceAhead:
    """A :class:`DieRng` that reads given-back dice before throwing new ones."""

    def __init__(self, rng: DieRng) -> None:
        self.rng = rng
        self._kept: deque[tuple[int, int, int]] = deque()
        self._thrown: list[tuple[int, int, int]] | None = None

    def randint(self, a: int, b: int) -> int:
        if self._kept and self._kept[0][:2] != (a, b):
            self._kept.clear()  # a die of another size: not ours to reuse
        value = self._kept.popleft()[2] if self._kept else self.rng.randint(a, b)
        if self._thrown is not None:
            self._thrown.append((a, b, value))
        return value

    def throw(self, draw: Callable[[DieRng], T]) -> tuple[T, tuple[tuple[int, int, int], ...]]:
        """``draw(self)``, and the dice it read (to :meth:`give_back` if it is not used)."""
        self._thrown = []
        try:
            return draw(self), tuple(self._thrown)
        finally:
            self._thrown = None

    def give_back(self, dice: tuple[tuple[int, int, int], ...]) -> None:
        """The dice of a draw that was not used: the next draws read them first, in order."""
        self._kept.extendleft(reversed(dice))

    @property
    def kept(self) -> int:
        """Dice given back and not read yet."""
        return len(self._kept)
