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
    DICE = "dice"
    """The Movie's turn roll: ``rolls`` = (red, black); move the total, Bowser the black."""
    THIRD_DOUBLES = "third_doubles"
    """Doubles for the third time in a row: straight to Jail, no GO coins."""
    BATTLE_ROLL = "battle_roll"
    """The leader's die in a battle with Bowser: the teammate's press decides it."""
    BATTLE_WON = "battle_won"
    """Both dice make 7 or more: leader and teammate each collect ``coins``."""
    BATTLE_LOST = "battle_lost"
    """6 or less: the leader goes to Jail."""
    PIRANHA = "piranha"
    """Piranha Plant: pay the Bank the red die, ``coins``."""
    SUPER_STAR = "super_star"
    """Super Star: collect the red die, ``coins``."""
    JAIL_FREE = "jail_free"
    """Doubles from Jail: out, and move with them."""
    JAIL_STAY = "jail_stay"
    """No doubles from Jail, a try left: stay."""
    JAIL_PAID = "jail_paid"
    """No doubles on the last try: pay the Bank ``coins`` and move with the roll."""
    BOSS_WON = "boss_won"
    """The fighter's roll reached the Boss's required roll: they win the card."""
    BOSS_LOST = "boss_lost"
    """Less than the required roll: the next player fights or passes."""
    RACE_ROLL = "race_roll"
    """A racer's roll: places follow the rolls."""
    MOVE = "move"
    """Gamer, Mario Kart: both dice, ``rolls`` = (numbered die, Power-up face 1-6): the token
    moves that many spaces and the face's ability is offered."""


PAYS_THE_BANK = frozenset({Kind.BOWSER, Kind.GAME_OVER, Kind.PIRANHA, Kind.JAIL_PAID})
COLLECTS = frozenset({Kind.COINS, Kind.SUPER_STAR, Kind.BATTLE_WON})
"""Kinds whose ``coins`` the player collects from the Bank (a won battle: the teammate too)."""
CONTEST_ROLLS = frozenset({Kind.BOSS_WON, Kind.BOSS_LOST, Kind.RACE_ROLL})
"""A Boss fight's or a Race's roll: the contest moves on, no coins from the press itself."""
TWO_DICE = frozenset({Kind.DICE, Kind.THIRD_DOUBLES, Kind.JAIL_FREE, Kind.JAIL_STAY,
                      Kind.JAIL_PAID})
"""Kinds whose ``rolls`` are the red and the black die, thrown together."""


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
    step: int = 0
    """Which one in a row it is: the doubles of this turn, the try out of Jail (1, 2, 3)."""
    bowser_waits: bool = False
    """The Movie: Bowser waits on GO ("until all of the players have completed their next
    turn"), so this roll's black die does not move him."""

    @property
    def label(self) -> str:
        """The outcome class in odds tables: ``coins_3``, ``bowser``, ``roll_4``, ..."""
        if self.kind is Kind.COINS:
            return f"coins_{self.coins}"
        if self.kind in (Kind.ROLL, Kind.RENT, Kind.BOSS_WON, Kind.BOSS_LOST, Kind.RACE_ROLL):
            return f"roll_{self.rolls[-1]}"
        if self.kind in (Kind.DICE, Kind.THIRD_DOUBLES):
            return f"dice_{self.rolls[0]}_{self.rolls[1]}"
        if self.kind in (Kind.JAIL_FREE, Kind.JAIL_STAY, Kind.JAIL_PAID):
            return "doubles" if self.kind is Kind.JAIL_FREE else "no_doubles"
        if self.kind is Kind.BATTLE_ROLL:
            return f"battle_roll_{self.rolls[0]}"
        if self.kind in (Kind.BATTLE_WON, Kind.BATTLE_LOST):
            return "won" if self.kind is Kind.BATTLE_WON else "lost"
        if self.kind is Kind.PIRANHA:
            return f"piranha_{self.coins}"
        if self.kind is Kind.SUPER_STAR:
            return f"star_{self.coins}"
        if self.kind is Kind.MOVE:
            return f"move_{self.rolls[0]}_face_{self.rolls[1]}"
        return self.kind.value

    @property
    def doubles(self) -> bool:
        """Two dice thrown together show the same face."""
        return self.kind in TWO_DICE and self.rolls[0] == self.rolls[1]

    @property
    def total(self) -> int:
        """What the dice add up to (the spaces a player moves; a battle's score)."""
        return sum(self.rolls)

    @property
    def coin_delta(self) -> int:
        """Coins the player it applies to gains (negative: pays)."""
        if self.kind in COLLECTS:
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
        if self.kind in TWO_DICE:
            data.update(red=self.rolls[0], black=self.rolls[1], total=self.total,
                        doubles=self.doubles)
        if self.step:
            data["step"] = self.step
        if self.bowser_waits:
            data["bowser_waits"] = True
        return data


def default_rng() -> random.SystemRandom:
    """The production RNG: the operating system's entropy, never a fixed seed."""
    return random.SystemRandom()
