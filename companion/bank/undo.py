"""Undo and redo: the journal's compensation, never a delete. A move's coins move back (or
again); what else it changed is its kind's hook (:class:`companion.bank.moves.Move`)."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from companion.bank.facts import Facts
from companion.bank.journal import REQUEST
from companion.core.ledger import REDOABLE, EntryKind, MoveKind, check_source, is_id
from companion.core.state import MoveRef, MoveView, Undone
from companion.exc import Conflict, Refused, shown
from companion.i18n.said import say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def undo(bank: Journal, *, source: str = "", request_id: str | None = None,
         game_id: int | None = None, expect: object = None) -> Undone:
    """Undo the latest move not undone yet, whole (never opening balances or undos): its
    coins move back; a bankrupt player is back in; an ended game is open again.

    Undoing a block outcome's coins also makes that outcome unassigned again, so it can be
    given to the right player; undoing a turn gives it back. ``expect``: only that move (the
    one a page showed in its Undo button), so a second tap undoes nothing more."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.UNDO, game_id)
        if replay is not None:
            if expect is not None and replay["undoes"] != expect:
                raise Conflict(say("request id {id} was already used for another "
                                   "operation", id=repr(request_id)))
            return Undone(bank.move_view(replay["id"]), bank.move_view(replay["undoes"]))
        if expect is not None and not is_id(expect):
            raise Refused(say("{key} must be a move id (a whole number from 1), got {value}",
                              key="move", value=shown(expect)))
        gid = bank.game(game_id)
        row = undo_target(bank, gid)
        if row is None:
            raise Refused(say("nothing to undo"))
        target = bank.move_view(row["id"])
        if expect is not None and expect != row["id"]:
            raise Conflict(say("the last move has changed: Undo would now undo \"{move}\"",
                               move=target.text))
        move = bank.add_move(db, gid, MoveKind.UNDO, player=row["player_id"],
                             note=f"undo: {target.text}"[:200], source=source,
                             undoes=row["id"], request_id=request_id)
        for entry in reversed(target.entries):
            if entry.outcome_id is not None:
                db.execute("UPDATE outcomes SET player_id = NULL WHERE id = ?",
                           (entry.outcome_id,))
            bank.add_entry(db, gid, move, entry.payee, entry.payer, entry.amount,
                           EntryKind.UNDO, f"undo: {target.text}"[:200], source,
                           outcome_id=entry.outcome_id, undoes=entry.id,
                           space=entry.space)
        undone = bank.kinds[MoveKind(row["kind"])].undone
        if undone is not None:  # the turn, an outcome's player: what else the move changed
            undone(db, gid, json.loads(row["data"]))
        return Undone(bank.move_view(move), bank.move_view(row["id"]))


def redo(bank: Journal, undo: object, *, source: str = "", request_id: str | None = None,
         game_id: int | None = None) -> MoveView:
    """Bring back the move that ``undo`` (the latest move, an undo) undid: its coins move
    again, or the turn passes again, as a new move (undone like any other). Only right
    after the undo: anything written since makes it stale."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, None, game_id)  # the key checked as every move's
        if replay is not None:
            if REQUEST not in json.loads(replay["data"]):  # kept before requests were whole
                undone = db.execute("SELECT undoes FROM moves WHERE id = ? AND kind = ?",
                                    (undo, MoveKind.UNDO.value)).fetchone() \
                    if is_id(undo) else None
                if undone is None or json.loads(replay["data"]).get("redoes") != \
                        undone["undoes"]:
                    raise Conflict(say("request id {id} was already used for another "
                                       "operation", id=repr(request_id)))
            return bank.move_view(replay["id"])
        if not is_id(undo):
            raise Refused(say("{key} must be a move id (a whole number from 1), got {value}",
                              key="move", value=shown(undo)))
        facts = bank.open_facts(game_id)
        latest = db.execute("SELECT * FROM moves WHERE game_id = ? ORDER BY id DESC LIMIT 1",
                            (facts.gid,)).fetchone()
        if latest is None or latest["kind"] != MoveKind.UNDO.value or latest["id"] != undo:
            raise Conflict(say("nothing to redo: Redo brings back what the last Undo "
                               "undid, before anything else is done"))
        target = bank.move_view(latest["undoes"], facts)
        if target.kind not in REDOABLE:
            raise Refused(say("{move} can't be redone: declare it again", move=target.text))
        data = {**target.data, "redoes": target.id}
        if "op" in data:  # a turn passed again: by a redo
            data["op"] = "redo"
        for entry in target.entries:  # everyone still in, or nothing moves
            for party in (entry.payer, entry.payee):
                bank.party_in_game(facts, party, "player")
        moved = bank.add_move(db, facts.gid, target.kind, player=target.player_id,
                              data=data, note=target.note, source=source,
                              request_id=request_id)
        redone = bank.kinds[target.kind].redone
        if redone is not None:  # the turn, an outcome's player: what else it changes
            redone(db, facts, target, data)
        for entry in target.entries:
            bank.add_entry(db, facts.gid, moved, entry.payer, entry.payee,
                           entry.amount, entry.kind, entry.note, source,
                           outcome_id=entry.outcome_id, space=entry.space)
            if entry.outcome_id is not None:
                db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?",
                           (target.player_id, entry.outcome_id))
        return bank.move_view(moved, facts)


def undo_target(bank: Journal, gid: int) -> sqlite3.Row | None:
    """The latest move not undone yet that undo takes (not the opening balances, not an
    undo, not a payment that moved nothing; :func:`companion.core.ledger.undo_target`).

    Walks back from the newest move, jumping from an undo to below its target: when the
    undo was written its target was the latest move not undone, so every move between the
    two is undone already (or an undo, or moved nothing). A run of undos is one step, and
    the walk never reads the rest of the game."""
    below = 2**63 - 1
    while True:
        row = bank.db.execute("SELECT * FROM moves WHERE game_id = ? AND id < ? ORDER BY"
                              " id DESC LIMIT 1", (gid, below)).fetchone()
        if row is None:
            return None
        kind = row["kind"]
        if kind == MoveKind.UNDO.value:
            below = row["id"] if row["undoes"] is None else row["undoes"]
        elif kind == MoveKind.OPENING.value or (
                kind == MoveKind.TRANSFER.value and bank.db.execute(
                    "SELECT 1 FROM entries WHERE move_id = ? LIMIT 1",
                    (row["id"],)).fetchone() is None):
            below = row["id"]
        else:
            return row


def previews(bank: Journal, facts: Facts) -> tuple[MoveRef | None, MoveRef | None, str]:
    """What Undo would undo and Redo bring back now, and the table's version: it changes
    with every move, press and turn, so a page keys a write on what it saw."""
    target = undo_target(bank, facts.gid)
    undo = None if target is None else MoveRef(target["id"], bank.move_view(
        target["id"], facts).text)
    latest = bank.db.execute("SELECT id, kind, undoes FROM moves WHERE game_id = ? ORDER"
                             " BY id DESC LIMIT 1", (facts.gid,)).fetchone()
    redo = None
    if latest is not None and latest["kind"] == MoveKind.UNDO.value:
        undone = bank.move_view(latest["undoes"], facts)
        if undone.kind in REDOABLE:
            redo = MoveRef(latest["id"], undone.text)
    counter = bank.db.execute("SELECT version FROM table_state WHERE id = 1").fetchone()
    version = f"{facts.gid}.{0 if counter is None else counter[0]}"
    return undo, redo, version

