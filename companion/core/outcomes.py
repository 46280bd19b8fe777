"""What one press of the block gave: a die's verdict, already priced by the edition's ruleset.

The tables that draw outcomes, with their exact odds and the rulebook lines they come from,
are the press modes in :mod:`companion.core.editions.modes`; this module is only the result.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol


class Kind(StrEnum):
    """What the outcome asks of the table; the values are the names used in JSON."""

    COINS = "coins"
    """Collect ``coins`` from the Bank."""
    BOWSER = "bowser"
    """Bowser's laugh: pay the Bank ``coins``."""
    POWER_UP = "power_up"
    """Roll the die and move again: no coins."""
    GAME_OVER = "game_over"
    """The Game Over tune: pay the Bank ``coins``."""
    ROLL = "roll"
    """A plain die roll, shown and heard: no coins."""
    RENT = "rent"
    """Utility rent: the payer pays the owner ``coins``."""


PAYS_THE_BANK = frozenset({Kind.BOWSER, Kind.GAME_OVER})


class DieRng(Protocol):
    """The only thing a press needs from a random number generator."""

    def randint(self, a: int, b: int) -> int: ...


@dataclass(frozen=True, slots=True)
class Outcome:
    """One press: its kind, the coins it moves (its size; the kind says which way), the dice
    that decided it and the press mode that drew it."""

    kind: Kind
    coins: int = 0
    rolls: tuple[int, ...] = ()
    mode: str = "question_block"

    @property
    def label(self) -> str:
        """The outcome class in odds tables: ``coins_3``, ``bowser``, ``roll_4``, ..."""
        if self.kind is Kind.COINS:
            return f"coins_{self.coins}"
        if self.kind in (Kind.ROLL, Kind.RENT):
            return f"roll_{self.rolls[-1]}"
        return self.kind.value

    @property
    def coin_delta(self) -> int:
        """Coins the player it applies to gains (negative: pays)."""
        if self.kind is Kind.COINS:
            return self.coins
        if self.kind in PAYS_THE_BANK or self.kind is Kind.RENT:
            return -self.coins
        return 0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view; ``coins`` appears only where coins move."""
        data: dict[str, Any] = {"kind": self.kind.value, "mode": self.mode,
                                "rolls": list(self.rolls), "label": self.label}
        if self.coins or self.kind is Kind.COINS:
            data["coins"] = self.coins
        return data


def default_rng() -> random.SystemRandom:
    """The production RNG: the operating system's entropy, never a fixed seed."""
    return random.SystemRandom()
