"""The Question Block's outcomes, drawn exactly as the rulebook's no-sound table.

Rulebook (Monopoly: Super Mario Celebration, "playing without sound"): roll the die;
1 or 2 -> roll again and collect that many coins; 3 or 4 -> pay the Bank 5 coins;
5 -> roll the die and move again; 6 -> pay the Bank 10 coins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Protocol


class Kind(StrEnum):
    """What the block did; the values are the names used in JSON and in sound files."""

    COINS = "coins"
    BOWSER = "bowser"
    POWER_UP = "power_up"
    GAME_OVER = "game_over"


BOWSER_FEE = 5
GAME_OVER_FEE = 10


class DieRng(Protocol):
    """The only thing the block needs from a random number generator."""

    def randint(self, a: int, b: int) -> int: ...


@dataclass(frozen=True, slots=True)
class Outcome:
    """One press of the block: its kind, coins won (coins only) and the dice that decided it."""

    kind: Kind
    coins: int = 0
    rolls: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        """The outcome class name used in odds tables: ``coins_3``, ``bowser``, ..."""
        return f"coins_{self.coins}" if self.kind is Kind.COINS else self.kind.value

    @property
    def coin_delta(self) -> int:
        """Coins the current player gains (negative: pays the Bank)."""
        if self.kind is Kind.COINS:
            return self.coins
        if self.kind is Kind.BOWSER:
            return -BOWSER_FEE
        if self.kind is Kind.GAME_OVER:
            return -GAME_OVER_FEE
        return 0

    def describe(self) -> str:
        """What a player at the table is told to do."""
        if self.kind is Kind.COINS:
            s = "" if self.coins == 1 else "s"
            return f"{self.coins} coin ping{s}: collect {self.coins} coin{s}"
        if self.kind is Kind.BOWSER:
            return f"Bowser's laugh: pay the Bank {BOWSER_FEE} coins"
        if self.kind is Kind.POWER_UP:
            return "Power-up ring: roll the die and move again"
        return f"Game Over tune: pay the Bank {GAME_OVER_FEE} coins"

    def to_json(self) -> dict[str, object]:
        """A JSON-ready view; ``coins`` appears only for coin outcomes."""
        data: dict[str, object] = {"kind": self.kind.value, "rolls": list(self.rolls)}
        if self.kind is Kind.COINS:
            data["coins"] = self.coins
        return data


def draw(rng: DieRng) -> Outcome:
    """Roll the table's die (and the second die for coins) and return the outcome."""
    first = rng.randint(1, 6)
    if first <= 2:
        second = rng.randint(1, 6)
        return Outcome(Kind.COINS, coins=second, rolls=(first, second))
    if first <= 4:
        return Outcome(Kind.BOWSER, rolls=(first,))
    if first == 5:
        return Outcome(Kind.POWER_UP, rolls=(first,))
    return Outcome(Kind.GAME_OVER, rolls=(first,))


def default_rng() -> random.SystemRandom:
    """The production RNG: the operating system's entropy, never a fixed seed."""
    return random.SystemRandom()


LABELS: tuple[str, ...] = (
    *(f"coins_{k}" for k in range(1, 7)),
    Kind.BOWSER.value,
    Kind.POWER_UP.value,
    Kind.GAME_OVER.value,
)

EXPECTED: dict[str, Fraction] = {
    **{f"coins_{k}": Fraction(1, 18) for k in range(1, 7)},
    Kind.BOWSER.value: Fraction(1, 3),
    Kind.POWER_UP.value: Fraction(1, 6),
    Kind.GAME_OVER.value: Fraction(1, 6),
}
"""Exact probability of each outcome class, straight from the rulebook's table."""
