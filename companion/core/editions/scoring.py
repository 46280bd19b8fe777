"""Standings: who is ahead, by the edition's own rule for winning (pure)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.editions.ruleset import End, Ruleset


@dataclass(frozen=True, slots=True)
class Seat:
    """What the standings need to know of one player."""

    id: int
    coins: int
    out_order: int | None = None
    """None while in the game; 1 for the first player to go bankrupt, 2 for the next, ..."""
    points: int = 0
    """Points printed on cards, typed in (Property, Boss and Grand Prix cards)."""
    cards: int = 0
    worms: int = 0


@dataclass(frozen=True, slots=True)
class Standing:
    player: int
    rank: int
    coins: int | None
    points: int | None
    total: int | None
    cards: int | None
    worms: int | None
    out: bool

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "rank": self.rank, "coins": self.coins,
                "points": self.points, "total": self.total, "cards": self.cards,
                "worms": self.worms, "out": self.out}


def standings(rules: Ruleset, seats: Sequence[Seat]) -> tuple[Standing, ...]:
    """Every player in order, best first; equals share a rank (1, 1, 3)."""
    key: Callable[[Seat], tuple[int, ...]]
    if rules.end is End.POINTS:
        assert rules.scoring is not None
        scoring = rules.scoring

        def total(s: Seat) -> int:
            return s.points + scoring.coin_points(s.coins)

        def key(s: Seat) -> tuple[int, ...]:  # "the player with the most cards wins" a tie
            return (-total(s), -s.cards)

        def row(s: Seat, rank: int) -> Standing:
            return Standing(s.id, rank, s.coins, s.points, total(s), s.cards, None, False)
    elif rules.end is End.WORMS:
        def key(s: Seat) -> tuple[int, ...]:
            return (-s.worms,)

        def row(s: Seat, rank: int) -> Standing:
            return Standing(s.id, rank, None, None, None, None, s.worms, False)
    else:
        def key(s: Seat) -> tuple[int, ...]:  # in the game by coins; then the last out first
            return (0, -s.coins) if s.out_order is None else (1, -s.out_order)

        def row(s: Seat, rank: int) -> Standing:
            return Standing(s.id, rank, s.coins, None, None, None, None,
                            s.out_order is not None)
    ordered = sorted(seats, key=lambda s: (key(s), s.id))
    result: list[Standing] = []
    for i, seat in enumerate(ordered):
        tied = i > 0 and key(ordered[i - 1]) == key(seat)
        result.append(row(seat, result[-1].rank if tied else i + 1))
    return tuple(result)


def winners(rules: Ruleset, seats: Sequence[Seat]) -> tuple[int, ...]:
    """Who wins if the game ends now: the last player in the game, the best score (the most
    cards breaking a tie; a tie in both is shared), or whoever found all their worms."""
    if rules.end is End.LAST_PLAYER:
        return tuple(s.id for s in seats if s.out_order is None)
    if rules.end is End.WORMS:
        target = rules.worms.value if rules.worms is not None else 0
        return tuple(s.id for s in seats if s.worms >= target)
    return tuple(s.player for s in standings(rules, seats) if s.rank == 1)
