"""Each player's coins over a game, move by move: the series the end-of-game chart draws (on
the page, on the small screen) and the export carries. Pure: computed from the journal's
entries, once, when asked (never per state broadcast).

The series starts with the coins every player holds after the opening balances (zero where
the game opened with none), then has one point after each move that changed somebody's
coins, in the journal's order (an undo is a move too: its compensating entries bring the
coins back, as the table saw them go and come back). A move that moved nothing a player holds
(a note, a turn, coins between the Bank and a Board pile) adds no point.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.core.ledger import BANK, Entry, EntryKind


@dataclass(frozen=True, slots=True)
class CoinPoint:
    """Every player's coins after one move (``move`` None: the start, after the opening)."""

    move: int | None
    at: float | None
    """When that move was made (None: a game that opened with nothing moved)."""
    coins: tuple[int, ...]
    """In the order of :attr:`CoinSeries.players`."""


@dataclass(frozen=True, slots=True)
class PlayerLine:
    """One player's line: their coins at each point, and the four figures a reader wants."""

    player: int
    coins: tuple[int, ...]

    @property
    def start(self) -> int:
        return self.coins[0]

    @property
    def high(self) -> int:
        return max(self.coins)

    @property
    def low(self) -> int:
        return min(self.coins)

    @property
    def end(self) -> int:
        return self.coins[-1]

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "coins": list(self.coins), "start": self.start,
                "high": self.high, "low": self.low, "end": self.end}


@dataclass(frozen=True, slots=True)
class CoinSeries:
    """A game's coins over the evening: one point per move that changed them."""

    game_id: int
    players: tuple[int, ...]
    points: tuple[CoinPoint, ...]

    def lines(self) -> tuple[PlayerLine, ...]:
        """One line per player, in the players' order."""
        return tuple(PlayerLine(p, tuple(point.coins[i] for point in self.points))
                     for i, p in enumerate(self.players))

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game_id, "moves": [p.move for p in self.points],
                "at": [p.at for p in self.points],
                "players": [line.to_json() for line in self.lines()]}


def coin_series(game_id: int, players: Sequence[int], entries: Iterable[Entry]) -> CoinSeries:
    """Every player's coins after each move of the game, from its entries (oldest first).

    The entries of one move are taken together (a bankruptcy's several payments are one
    step); the opening balances make the first point."""
    order = tuple(players)
    index = {p: i for i, p in enumerate(order)}
    coins = [0] * len(order)
    points: list[CoinPoint] = [CoinPoint(None, None, tuple(coins))]
    for move, group in _moves(entries):
        for e in group:
            if e.payer != BANK and e.payer in index:
                coins[index[e.payer]] -= e.amount
            if e.payee != BANK and e.payee in index:
                coins[index[e.payee]] += e.amount
        now = tuple(coins)
        opening = all(e.kind is EntryKind.OPENING for e in group)
        if opening and len(points) == 1:  # the opening balances: the start
            points[0] = CoinPoint(None, group[-1].at, now)
        elif now != points[-1].coins:
            points.append(CoinPoint(move, group[-1].at, now))
    return CoinSeries(game_id, order, tuple(points))


def _moves(entries: Iterable[Entry]) -> Iterable[tuple[int | None, list[Entry]]]:
    """The entries in runs of one move each (an entry without a move is a run of its own)."""
    run: list[Entry] = []
    for e in entries:
        if run and (e.move_id is None or e.move_id != run[-1].move_id):
            yield run[-1].move_id, run
            run = []
        run.append(e)
    if run:
        yield run[-1].move_id, run
