"""One player's own history, a page at a time: the moves that moved their coins (or were theirs
and moved none: a payment or a block outcome with nothing to pay) and their block outcomes
that move no coins, newest first.

Two streams, each paged by its own id (``before``: a move, ``outcomes_before``: an outcome), so
no line is ever shown twice or skipped whatever the clock did; a page shows them merged by
time. Each stream is read through its own index, a page's worth, however long the game."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.bank import mistakes
from companion.bank.journal import MOVES_SQL
from companion.bank.moves.block import outcome_view
from companion.bank.pages import page_limit, views
from companion.core.ledger import MoveKind, is_id
from companion.core.state import MoveView, OutcomeView, UndoRequestView
from companion.exc import Refused, shown
from companion.i18n.said import say

if TYPE_CHECKING:
    from companion.bank.journal import Journal

PAGE = 20
"""Lines on a page of a player's history, by default."""
MOVES = ("SELECT move_id FROM entries WHERE payer = ?1 AND move_id < ?2"
         " UNION SELECT move_id FROM entries WHERE payee = ?1 AND move_id < ?2"
         f" UNION SELECT id FROM moves WHERE player_id = ?1 AND kind = '{MoveKind.BLOCK.value}'"
         " AND id < ?2"
         f" UNION SELECT id FROM moves WHERE player_id = ?1 AND kind = '{MoveKind.TRANSFER.value}'"
         " AND id < ?2 ORDER BY 1 DESC LIMIT ?3")
"""A player's moves below a move id, newest first: each arm walks an index in order and they
are merged (``MERGE (UNION)``: no sort of the player's whole history)."""
OUTCOMES = ("SELECT id FROM outcomes INDEXED BY outcomes_coinless WHERE player_id = ?1 AND"
            " coins = 0 AND id < ?2 ORDER BY id DESC LIMIT ?3")
"""A player's outcomes that move no coins (those that do are among their moves)."""


@dataclass(frozen=True, slots=True)
class SeatPage:
    """A page of one player's history, newest first, and what their phone offers with it."""

    player: int
    game_id: int
    items: tuple[MoveView | OutcomeView, ...]
    coins: dict[int, int]
    """Each move's coins for this player (+ received, - paid)."""
    next_before: int
    next_outcomes_before: int
    """The cursors of the next older page (give both back)."""
    more: bool
    """Older lines are there."""
    latest_payment: int | None
    """Their latest payment not undone: the one "that was a mistake" may be said of."""
    requests: tuple[UndoRequestView, ...]
    """Their own requests, newest first (at most :data:`companion.bank.mistakes.MINE`)."""

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "game": self.game_id,
                "items": [{"type": "move", **item.to_json(), "coins": self.coins[item.id]}
                          if isinstance(item, MoveView) else
                          {"type": "outcome", **item.to_json()} for item in self.items],
                "next_before": self.next_before,
                "next_outcomes_before": self.next_outcomes_before, "more": self.more,
                "latest_payment": self.latest_payment,
                "requests": [r.to_json() for r in self.requests]}


def _cursor(key: str, value: object) -> int | None:
    if value is None or is_id(value):
        return value  # type: ignore[return-value]
    raise Refused(say("{key} must be an id (a whole number from 1), got {value}", key=key,
                      value=shown(value)))


def seat_page(bank: Journal, player: int, *, before: object = None,
              outcomes_before: object = None, limit: object = PAGE) -> SeatPage:
    """A page of ``player``'s history below the two cursors (None: from the newest)."""
    move_top = _cursor("before", before)
    outcome_top = _cursor("outcomes_before", outcomes_before)
    size = page_limit(limit)
    with bank.snapshot():
        db = bank.db
        row = db.execute("SELECT game_id FROM players WHERE id = ?",
                         (player,)).fetchone() if is_id(player) else None
        if row is None:
            raise Refused(say("unknown player {value}", value=shown(player)))
        facts = bank.facts(row["game_id"])
        if move_top is None:  # from the newest now: a later page never shows newer lines
            move_top = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM moves").fetchone()[0]
        if outcome_top is None:
            outcome_top = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM outcomes"
                                     ).fetchone()[0]
        ids = [r[0] for r in db.execute(MOVES, (player, move_top, size + 1))]
        rows = db.execute(MOVES_SQL + " WHERE m.id IN (SELECT value FROM json_each(?))",
                          (json.dumps(ids),)).fetchall()
        moves = views(bank, rows, facts)
        outcomes = [outcome_view(bank, r[0], facts)
                    for r in db.execute(OUTCOMES, (player, outcome_top, size + 1))]
        latest = mistakes.latest_payment(bank, player)
        requests = mistakes.player_requests(bank, facts, player)
    merged = sorted([*moves, *outcomes], reverse=True,
                    key=lambda v: (v.at, isinstance(v, MoveView), v.id))
    shown_items = tuple(merged[:size])
    coins = {m.id: sum(e.amount if e.payee == player else -e.amount
                       for e in m.entries if player in (e.payer, e.payee))
             for m in shown_items if isinstance(m, MoveView)}
    return SeatPage(
        player, facts.gid, shown_items, coins,
        min((v.id for v in shown_items if isinstance(v, MoveView)), default=move_top),
        min((v.id for v in shown_items if isinstance(v, OutcomeView)), default=outcome_top),
        len(merged) > size, latest, requests)
