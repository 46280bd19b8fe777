"""A note in the history: what the table did that the companion counts nothing for (a Get Out
of Jail Free card traded, a house rule used), in the banker's words, about a player or the
table. No coins and no facts: undone and redone like any move."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.bank.touch import Touch
from companion.core.actions import ID, TEXT, Action, Field
from companion.core.ledger import MoveKind, check_note, check_source
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def write_note(bank: Journal, text: object, player: object = None, *, source: str = "",
               request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """A line in the history (1-200 printable characters), about ``player`` if named."""
    source = check_source(source)
    words = check_note(text)
    if not words.strip():
        raise Refused(say("{key} is required", key="text"))
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.NOTE, game_id)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        pid = None if player is None else bank.in_game(facts, player)
        move = bank.add_move(db, facts.gid, MoveKind.NOTE, player=pid,
                             data={"text": words}, note=words, source=source,
                             request_id=request_id)
        return bank.move_view(move, facts)


def _note_text(move: MoveView, facts: Facts) -> str | Said:
    text = str(move.data.get("text", move.note))
    return text if move.player_id is None else say("{name}: {note}",
                                                   name=facts.name(move.player_id), note=text)


def _nothing(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A note changes and reads nothing."""
    return Touch()


WRITES = (write_note,)
ACTIONS = (
    Action("write_note", write_note, route="POST /api/notes", event="note",
           kind=MoveKind.NOTE,
           fields=(Field("text", TEXT, "what the table did, 1-200 characters", required=True),
                   Field("player", ID, "whom it is about (left out: the table)")),
           doc="A note in the history, in the banker's words: what the table did that the "
               "companion counts nothing for. Undone and redone like any move."),
)
"""The note's request."""

MOVES = (Move(MoveKind.NOTE, _note_text, redoable=True, touches=_nothing),)
