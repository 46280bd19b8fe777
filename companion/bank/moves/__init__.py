"""The table's moves, one kind to a module, as boardgame.io splits a game into moves.

Each module holds its kind's writes (functions of the journal that :class:`Bank` binds as its
methods: they check, then write through :class:`~companion.bank.journal.Journal`) and its
:class:`~companion.bank.kinds.Move`: its words, its effect on the table's facts and what
undoing or redoing it changes besides its coins. The journal knows no kind but through
:data:`KINDS`.
"""

from __future__ import annotations

from companion.bank.facts import Facts
from companion.bank.kinds import Kinds, Move
from companion.bank.moves import (
    ability,
    banana,
    bankruptcy,
    block,
    board,
    bowser,
    coins,
    contest,
    deed,
    ending,
    jail,
    points,
    token,
    turn,
    worms,
)
from companion.core.ledger import MoveKind
from companion.core.state import MoveView
from companion.i18n.said import Said, say


def _undo_text(move: MoveView, facts: Facts) -> str | Said:
    """An undo read alone (the journal tells it in its target's words when it has them)."""
    return move.note[:1].upper() + move.note[1:] if move.note else say("Undo")


KINDS = Kinds((*coins.MOVES, *turn.MOVES, *jail.MOVES, *block.MOVES, *bowser.MOVES,
               *board.MOVES, *ability.MOVES, *contest.MOVES, *bankruptcy.MOVES, *points.MOVES,
               *token.MOVES, *banana.MOVES, *deed.MOVES, *worms.MOVES, *ending.MOVES,
               Move(MoveKind.UNDO, _undo_text)))
"""Every kind of move the bank writes."""
