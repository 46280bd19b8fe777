"""Points games: the points printed on a player's cards, typed in."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.bank.touch import Touch
from companion.bank.touch import points as typed
from companion.core.ledger import MAX_POINTS, MoveKind, check_count, check_source
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def set_points(bank: Journal, player: object, points: object, cards: object, *, source: str = "",
               request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """Points games: the points printed on a player's cards (Property, Boss or Grand Prix)
    and how many cards they hold (a tie goes to the most), typed in."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.POINTS, game_id, player=player,
                             points=points, cards=cards)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        scoring = facts.rules.scoring
        if scoring is None:
            raise Refused(say("{edition} is not won on points: nothing to type in",
                              edition=Said(facts.rules.name)))
        pid = bank.in_game(facts, player)
        p = check_count(points, "points", MAX_POINTS)
        n = check_count(cards, "cards", scoring.max_cards.value)
        move = bank.add_move(db, facts.gid, MoveKind.POINTS, player=pid,
                             data={"player": player, "points": p, "cards": n},
                             note=f"{p} points, {n} cards", source=source,
                             request_id=request_id)
        return bank.move_view(move)


def _points_text(move: MoveView, facts: Facts) -> str | Said:
    return say("{name}: {points} points, {cards} cards", name=facts.name(move.player_id),
               points=move.data["points"], cards=move.data["cards"])


def _typed(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> None:
    facts.points[row["player_id"]] = (data["points"], data["cards"])


def _points_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """The player's points as typed (the latest typed counts)."""
    return Touch(changes=frozenset({typed(row["player_id"])}))


MOVES = (Move(MoveKind.POINTS, _points_text, fold=_typed, touches=_points_touches),)
