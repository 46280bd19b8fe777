"""Undo and redo: a move undone whole (its compensating entries), and brought back right after
(:mod:`companion.bank.undo` holds the rule; here, its words and its requests)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.bank import undo
from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.core.actions import ID, Action, Field
from companion.core.ledger import MoveKind
from companion.core.state import MoveView
from companion.i18n.said import Said, say


def _undo_text(move: MoveView, facts: Facts) -> str | Said:
    """An undo read alone (the journal tells it in its target's words when it has them)."""
    return move.note[:1].upper() + move.note[1:] if move.note else say("Undo")


def _redone(move: MoveView, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    return {"move": move.to_json()}, 201


WRITES = (undo.undo, undo.redo, undo.check_undo)
ACTIONS = (
    Action("undo", undo.undo, route="POST /api/undo", kind=MoveKind.UNDO, answers="Undone",
           fields=(Field("move", ID, "that move (the state's undo.move, or any move of the "
                         "history); left out: the latest move not undone"),),
           doc="Undo a move, whole, if no later move depends on it (409 naming them, with "
               "blocked_by); 409 when it is undone already."),
    Action("redo", undo.redo, route="POST /api/redo", answer=_redone, answers="Redone",
           fields=(Field("move", ID, "the undo to take back (the state's redo.move)",
                         arg="undo", required=say("move is required: the undo to take back "
                                                  "(the state's redo.move)")),),
           doc="Bring back what that undo undid (coins, or a turn), only right after it."),
)
"""Undo's requests."""

MOVES = (Move(MoveKind.UNDO, _undo_text),)
