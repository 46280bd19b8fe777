"""Press modes: what one press of the block means, as a table with exact odds.

Each mode draws from a die (an RNG passed in: the OS's entropy in the daemon, a seeded one in
tests), prices the result from the edition's data and says it in words. Which modes an edition
has, their names, fees and rulebook lines are data (the edition's TOML); the tables are here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from companion.core.outcomes import DieRng, Kind, Outcome
from companion.exc import Refused, shown

SIDES = 6
"""Every die in these games is a six-sided numbered die."""

TABLES = ("question_block", "coin_roll", "die_roll", "utility_rent", "lever")
"""The tables a mode can use:

- ``question_block``: Celebration's no-sound table: 1-2 roll again and collect that many,
  3-4 Bowser (pay the Bank), 5 power-up, 6 Game Over (pay the Bank);
- ``coin_roll``: roll the numbered die and collect that many coins (Coin Block, Item Box);
- ``die_roll``: a plain roll, shown and heard, no coins;
- ``utility_rent``: roll; the payer pays the owner the roll, doubled with both utilities;
- ``lever``: no dice: a press starts or stops the lever timer."""


@dataclass(frozen=True, slots=True)
class Mode:
    """One press mode of one edition."""

    id: str
    name: str
    table: str
    quote: tuple[str, ...]
    default: bool = False
    fees: Mapping[str, int] = field(default_factory=dict)
    """Amounts the table needs (``bowser``, ``game_over``), each from the rulebook."""
    hint: str = ""
    """What the screen tells the players to do, where a press is not a die (the lever)."""

    @property
    def draws(self) -> bool:
        """False for the lever: a press draws nothing."""
        return self.table != "lever"

    @property
    def moves_coins(self) -> bool:
        return self.table in ("question_block", "coin_roll", "utility_rent")

    @property
    def needs(self) -> tuple[str, ...]:
        """What arming this mode takes besides its name."""
        return ("payer", "owner", "utilities") if self.table == "utility_rent" else ()

    # -- the table ---------------------------------------------------------------------------

    def odds(self) -> dict[str, Fraction]:
        """Each outcome class and its exact probability (they sum to 1)."""
        die = Fraction(1, SIDES)
        if self.table == "question_block":
            return {**{f"coins_{k}": Fraction(2, SIDES) * die for k in range(1, SIDES + 1)},
                    "bowser": Fraction(2, SIDES), "power_up": die, "game_over": die}
        if self.table == "coin_roll":
            return {f"coins_{k}": die for k in range(1, SIDES + 1)}
        if self.table in ("die_roll", "utility_rent"):
            return {f"roll_{k}": die for k in range(1, SIDES + 1)}
        return {}

    def draw(self, rng: DieRng, params: Mapping[str, Any] | None = None) -> Outcome:
        """Roll and read the table (``params``: what the mode was armed with)."""
        return _DRAWS[self.table](self, rng, params or {})

    # -- in words ------------------------------------------------------------------------------

    def headline(self, outcome: Outcome) -> str:
        """A few words, big on the screen: ``3 COINS!``, ``BOWSER!``, ``RENT 8``."""
        kind = outcome.kind
        if kind is Kind.COINS:
            return f"{outcome.coins} COIN{'S' if outcome.coins != 1 else ''}!"
        if kind is Kind.ROLL:
            return f"ROLLED {outcome.rolls[-1]}"
        if kind is Kind.RENT:
            return f"RENT {outcome.coins}"
        return {Kind.BOWSER: "BOWSER!", Kind.POWER_UP: "POWER-UP!",
                Kind.GAME_OVER: "GAME OVER"}[kind]

    def instruction(self, outcome: Outcome) -> str:
        """What the player is told to do, as the rulebook says it."""
        kind, coins = outcome.kind, outcome.coins
        if kind is Kind.COINS:
            return f"Collect {coins} coin{'s' if coins != 1 else ''} from the Bank"
        if kind in (Kind.BOWSER, Kind.GAME_OVER):
            return f"Pay the Bank {coins} coins"
        if kind is Kind.POWER_UP:
            return "Roll the die and move again"
        if kind is Kind.RENT:
            return f"Pay the owner {coins} coin{'s' if coins != 1 else ''}"
        return f"The die says {outcome.rolls[-1]}"

    def describe(self, outcome: Outcome) -> str:
        """One line for the log and the demo: what was heard and what to do."""
        kind, coins = outcome.kind, outcome.coins
        if self.table == "question_block":
            if kind is Kind.COINS:
                s = "" if coins == 1 else "s"
                return f"{coins} coin ping{s}: collect {coins} coin{s}"
            if kind is Kind.BOWSER:
                return f"Bowser's laugh: pay the Bank {coins} coins"
            if kind is Kind.POWER_UP:
                return "Power-up ring: roll the die and move again"
            return f"Game Over tune: pay the Bank {coins} coins"
        if kind is Kind.RENT:
            roll = outcome.rolls[-1]
            times = coins // roll
            how = f"{roll}" if times == 1 else f"{roll} x {times}"
            return f"{self.name}: rolled {roll}, rent {how} = {coins} coins"
        return f"{self.name}: rolled {outcome.rolls[-1]}" + (
            f", collect {coins} coin{'s' if coins != 1 else ''}" if kind is Kind.COINS else "")

    def to_json(self) -> dict[str, Any]:
        data = {"id": self.id, "name": self.name, "default": self.default,
                "table": self.table, "draws": self.draws, "moves_coins": self.moves_coins,
                "needs": list(self.needs), "fees": dict(self.fees), "quote": list(self.quote),
                "odds": {label: str(p) for label, p in self.odds().items()},
                "hint": self.hint}
        if self.table == "utility_rent":
            data["max_utilities"] = MAX_UTILITIES
        return data


def _question_block(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    first = rng.randint(1, SIDES)
    if first <= 2:
        second = rng.randint(1, SIDES)
        return Outcome(Kind.COINS, second, (first, second), mode.id)
    if first <= 4:
        return Outcome(Kind.BOWSER, mode.fees["bowser"], (first,), mode.id)
    if first == 5:
        return Outcome(Kind.POWER_UP, 0, (first,), mode.id)
    return Outcome(Kind.GAME_OVER, mode.fees["game_over"], (first,), mode.id)


def _coin_roll(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    roll = rng.randint(1, SIDES)
    return Outcome(Kind.COINS, roll, (roll,), mode.id)


def _die_roll(mode: Mode, rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    return Outcome(Kind.ROLL, 0, (rng.randint(1, SIDES),), mode.id)


def _utility_rent(mode: Mode, rng: DieRng, params: Mapping[str, Any]) -> Outcome:
    roll = rng.randint(1, SIDES)
    return Outcome(Kind.RENT, roll * int(params.get("utilities", 1)), (roll,), mode.id)


def _lever(mode: Mode, _rng: DieRng, _params: Mapping[str, Any]) -> Outcome:
    raise Refused(f"{mode.name} draws nothing: a press starts or stops the timer")


_DRAWS = {"question_block": _question_block, "coin_roll": _coin_roll, "die_roll": _die_roll,
          "utility_rent": _utility_rent, "lever": _lever}
"""Each table's draw: one die (two for the Question Block's coins), read as the rulebook says."""

MAX_UTILITIES = 2
"""The board has two utilities."""


def check_rent(params: Mapping[str, object], players: tuple[int, ...]) -> dict[str, int]:
    """Utility rent's arming: ``payer`` and ``owner`` (two different players still in the
    game) and ``utilities`` (1 or 2, how many the owner has)."""
    payer, owner, utilities = params.get("payer"), params.get("owner"), params.get("utilities")
    for name, who in (("payer", payer), ("owner", owner)):
        if not isinstance(who, int) or isinstance(who, bool) or who not in players:
            raise Refused(f"{name} must be a player still in the game, got {shown(who)}")
    if payer == owner:
        raise Refused("the payer cannot own the utility: pick the owner")
    if not isinstance(utilities, int) or isinstance(utilities, bool) or \
            not 1 <= utilities <= MAX_UTILITIES:
        raise Refused(f"utilities must be 1 or {MAX_UTILITIES} (how many the owner has), got "
                      f"{shown(utilities)}")
    return {"payer": payer, "owner": owner, "utilities": utilities}  # type: ignore[dict-item]
