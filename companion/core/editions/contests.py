"""Boss fights (Gamer) and Races (Mario Kart), as pure state: a deck of cards whose numbers the
table types (they are printed on the cards, not in the rulebook), and each contest folded from
what the table did, one step at a time (open, fight, pass, enter, start, a roll).

The bank keeps the steps in its journal and folds them back into a :class:`Fight` or a
:class:`Race` on every read; the press path folds one roll ahead (:meth:`Fight.rolled`,
:meth:`Race.rolled`), so the next press never waits for the disk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any

from companion.exc import Refused, shown
from companion.i18n.said import say

SIDES = 6
MAX_CARD_COINS = 100
MAX_CARD_POINTS = 500
MAX_PLACES = 4


class ContestKind(StrEnum):
    BOSS = "boss"
    RACE = "race"


@dataclass(frozen=True, slots=True)
class Deck:
    """The contest cards in play, in order, by player count (each list quoted)."""

    kind: ContestKind
    card: str
    """The cards' name: "Boss", "Grand Prix"."""
    decks: Mapping[int, tuple[int, ...]]
    quote: tuple[str, ...]
    rematch: tuple[str, ...] = ()
    """Mario Kart: the final Race's prize is a rematch of any won card."""

    def cards(self, players: int) -> tuple[int, ...]:
        return self.decks[players]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "card_name": self.card,
                "decks": {str(n): list(d) for n, d in sorted(self.decks.items())},
                "quote": list(self.quote), "rematch": list(self.rematch)}


def win_chance(required: int) -> Fraction:
    """A roll of the numbered die "equal to or higher than the required roll" wins."""
    return Fraction(SIDES + 1 - required, SIDES)


def _count(values: Mapping[str, object], key: str, lo: int, hi: int) -> int:
    value = values.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise Refused(say("{key} must be a whole number from {least} to {most} (as printed on "
                          "the card), got {value}", key=key, least=lo, most=hi,
                          value=shown(value)))
    return value


@dataclass(frozen=True, slots=True)
class BossCard:
    """A Boss card's printed numbers, typed once by the table."""

    number: int
    cost: int
    required: int
    to_card: bool
    """The roll cost goes onto the card ("some require you to pay the Boss")."""
    bonus: int
    """Coins the winner collects from the Bank (0: the card's bonus is done by hand)."""
    points: int

    @classmethod
    def typed(cls, number: int, values: Mapping[str, object]) -> BossCard:
        pay_to = values.get("pay_to", "bank")
        if pay_to not in ("bank", "card"):
            raise Refused(say("pay_to must be 'bank' or 'card', got {value}",
                              value=shown(pay_to)))
        return cls(number, _count(values, "cost", 0, MAX_CARD_COINS),
                   _count(values, "required", 1, SIDES), pay_to == "card",
                   _count(values, "bonus", 0, MAX_CARD_COINS),
                   _count(values, "points", 0, MAX_CARD_POINTS))

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "cost": self.cost, "required": self.required,
                "pay_to": "card" if self.to_card else "bank", "bonus": self.bonus,
                "points": self.points, "chance": str(win_chance(self.required))}


@dataclass(frozen=True, slots=True)
class PrixCard:
    """A Grand Prix card's printed numbers, typed once by the table."""

    number: int
    fee: int
    prizes: tuple[int, ...]
    """Coins from the Bank by place: 1st, 2nd, ..."""
    points: int

    @classmethod
    def typed(cls, number: int, values: Mapping[str, object], final: bool = False) -> PrixCard:
        """``final``: the final Race, whose prizes by place are not asked ("There is one prize
        for the final Race, and that is to choose one Grand Prix card from any player and have
        a rematch of that Race"): none typed is none (a rematch of this card asks them)."""
        prizes = values.get("prizes")
        if final and prizes in (None, []):
            return cls(number, _count(values, "fee", 0, MAX_CARD_COINS), (),
                       _count(values, "points", 0, MAX_CARD_POINTS))
        if not isinstance(prizes, list) or not 1 <= len(prizes) <= MAX_PLACES:
            raise Refused(say("prizes must list the coins for 1st, 2nd, ... place (1 to "
                              "{most}), got {value}", most=MAX_PLACES, value=shown(prizes)))
        clean = tuple(_count({"prizes": p}, "prizes", 0, MAX_CARD_COINS) for p in prizes)
        return cls(number, _count(values, "fee", 0, MAX_CARD_COINS), clean,
                   _count(values, "points", 0, MAX_CARD_POINTS))

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "fee": self.fee, "prizes": list(self.prizes),
                "points": self.points}


def card_from_json(kind: ContestKind, data: Mapping[str, Any],
                   final: bool = False) -> BossCard | PrixCard:
    """A card as a contest's open move keeps it (``final``: the final Race, not its rematch)."""
    if kind is ContestKind.BOSS:
        return BossCard.typed(data["number"], data)
    return PrixCard.typed(data["number"], data, final)


def seat_order(seats: Sequence[int], first: int) -> tuple[int, ...]:
    """Everyone from ``first``, to the left (seat order)."""
    i = seats.index(first)
    return tuple(seats[i:]) + tuple(seats[:i])


@dataclass(frozen=True, slots=True)
class Fight:
    """A Boss fight: from the player who flipped the card, each in turn fights (pays the roll
    cost, then the block rolls) or passes for good, until one wins or all have passed."""

    card: BossCard
    order: tuple[int, ...]
    """Who may fight, from the flipper to the left (players in Jail left out)."""
    final: bool = False
    up: int | None = None
    """Whose choice it is now (None: the fight is over)."""
    fighter: int | None = None
    """Paid, waiting for the block's roll."""
    passed: frozenset[int] = frozenset()
    rolls: tuple[tuple[int, int], ...] = ()
    winner: int | None = None
    pot: int = 0
    """Coins paid onto the card."""

    @classmethod
    def opened(cls, card: BossCard, order: tuple[int, ...], final: bool = False) -> Fight:
        return cls(card, order, final, order[0] if order else None)

    @property
    def over(self) -> bool:
        return self.up is None and self.fighter is None

    @property
    def got_away(self) -> bool:
        return self.over and self.winner is None

    def _next(self, after: int, passed: frozenset[int]) -> int | None:
        """The next player to the left who has not passed (``after`` again if only they)."""
        ring = seat_order(self.order, after)
        return next((p for p in (*ring[1:], ring[0]) if p not in passed), None)

    def _check_up(self, player: int) -> None:
        if self.over:
            raise Refused(say("the fight with Boss {number} is over", number=self.card.number))
        if self.fighter is not None:
            raise Refused(say("a fighter has paid: press the block for their roll first"))
        if player != self.up:
            raise Refused(say("player {player} can't choose now: player {up} fights or "
                              "passes first", player=player, up=self.up))

    def fight(self, player: int) -> Fight:
        self._check_up(player)
        return replace(self, fighter=player, up=None,
                       pot=self.pot + (self.card.cost if self.card.to_card else 0))

    def passes(self, player: int) -> Fight:
        self._check_up(player)
        passed = self.passed | {player}
        return replace(self, passed=passed, up=self._next(player, passed))

    def rolled(self, roll: int) -> Fight:
        """The fighter's roll: a win ends the fight; a loss gives the next player their
        choice (the loser may fight again when it comes round)."""
        if self.fighter is None:
            raise Refused(say("nobody has paid to fight: nothing to roll for"))
        fighter = self.fighter
        rolls = (*self.rolls, (fighter, roll))
        if roll >= self.card.required:
            return replace(self, fighter=None, up=None, rolls=rolls, winner=fighter)
        return replace(self, fighter=None, rolls=rolls, up=self._next(fighter, self.passed))

    def to_json(self) -> dict[str, Any]:
        return {"kind": "boss", "card": self.card.to_json(), "order": list(self.order),
                "final": self.final, "up": self.up, "fighter": self.fighter,
                "passed": sorted(self.passed),
                "rolls": [{"player": p, "roll": r} for p, r in self.rolls],
                "winner": self.winner, "pot": self.pot, "over": self.over,
                "got_away": self.got_away}


@dataclass(frozen=True, slots=True)
class Standing:
    """Where a race stands: places decided, who rolls next, the round being rolled."""

    places: tuple[int, ...]
    roller: int | None
    round: tuple[tuple[int, int], ...]
    tied: tuple[int, ...]
    """The players re-rolling for a place now (empty: the first round)."""


def standing(entrants: Sequence[int], rolls: Sequence[int]) -> Standing:
    """Places from the rolls, in the order they were asked for: everyone rolls once, from the
    flipper to the left; the highest is 1st; "If there's a tie for any position, tied players
    re-roll until one player wins for that position" (every tie, one place at a time)."""
    todo: list[tuple[int, ...]] = [tuple(entrants)] if entrants else []
    places: list[int] = []
    it = iter(rolls)
    first = True
    while todo:
        group = todo.pop(0)
        if len(group) == 1:
            places.append(group[0])
            continue
        got: list[tuple[int, int]] = []
        for player in group:
            roll = next(it, None)
            if roll is None:
                return Standing(tuple(places), player, tuple(got), () if first else group)
            got.append((player, roll))
        first = False
        values = sorted({r for _p, r in got}, reverse=True)
        todo[:0] = [tuple(p for p, r in got if r == v) for v in values]
    return Standing(tuple(places), None, (), ())


@dataclass(frozen=True, slots=True)
class Race:
    """A Race: players enter (paying the fee), then roll in turn from the flipper; places
    follow the rolls, ties re-roll; prizes by place; the winner keeps the card."""

    card: PrixCard
    order: tuple[int, ...]
    """Who may race, from the flipper to the left (players in Jail left out)."""
    final: bool = False
    rematch: bool = False
    """The final Race's prize: a rematch of a won card (its prizes, its card)."""
    entrants: tuple[int, ...] = ()
    started: bool = False
    rolls: tuple[int, ...] = ()
    players_rolled: tuple[int, ...] = field(default=())
    now: Standing | None = field(default=None, compare=False, repr=False)
    """The standing, worked out once per step (:meth:`start`, :meth:`rolled`)."""

    @property
    def standing(self) -> Standing:
        if self.now is not None:
            return self.now
        entrants = tuple(p for p in self.order if p in self.entrants)
        return standing(entrants, self.rolls) if self.started else Standing((), None, (), ())

    def _moved(self, **changes: Any) -> Race:
        """This race changed, with its standing worked out once for the new state."""
        started = changes.get("started", self.started)
        rolls = changes.get("rolls", self.rolls)
        entrants = tuple(p for p in self.order if p in self.entrants)
        now = standing(entrants, rolls) if started else None
        return replace(self, **changes, now=now)

    @property
    def over(self) -> bool:
        return self.started and self.standing.roller is None

    @property
    def winner(self) -> int | None:
        places = self.standing.places
        return places[0] if self.over and places else None

    def enter(self, player: int) -> Race:
        if self.started:
            raise Refused(say("the race has started: entries are closed"))
        if player not in self.order:
            raise Refused(say("player {player} can't race now (in Jail, or not in the game)",
                              player=player))
        if player in self.entrants:
            raise Refused(say("they have entered already"))
        return replace(self, entrants=(*self.entrants, player), now=None)

    def start(self) -> Race:
        if self.started:
            raise Refused(say("the race has started already"))
        if not self.entrants:
            raise Refused(say("nobody has entered: close the race to discard the card"))
        return self._moved(started=True)

    def rolled(self, roll: int) -> Race:
        roller = self.standing.roller
        if roller is None:
            raise Refused(say("nobody is to roll in this race"))
        return self._moved(rolls=(*self.rolls, roll),
                           players_rolled=(*self.players_rolled, roller))

    def prizes(self) -> list[tuple[int, int]]:
        """(player, coins) by place, once the race is over (the final Race: none)."""
        if not self.over or (self.final and not self.rematch):
            return []
        return [(p, coins) for p, coins in zip(self.standing.places, self.card.prizes,
                                                strict=False) if coins]

    def to_json(self) -> dict[str, Any]:
        now = self.standing
        return {"kind": "race", "card": self.card.to_json(), "order": list(self.order),
                "final": self.final, "rematch": self.rematch,
                "entrants": [p for p in self.order if p in self.entrants],
                "started": self.started, "places": list(now.places), "roller": now.roller,
                "round": [{"player": p, "roll": r} for p, r in now.round],
                "tied": list(now.tied),
                "rolls": [{"player": p, "roll": r}
                          for p, r in zip(self.players_rolled, self.rolls, strict=True)],
                "over": self.over, "winner": self.winner,
                "prizes": [{"player": p, "coins": c} for p, c in self.prizes()]}


Contest = Fight | Race
