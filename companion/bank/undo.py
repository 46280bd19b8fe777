"""Undo and redo: the journal's compensation, never a delete. A move's coins move back (or
again); what else it changed is its kind's hook (:class:`companion.bank.moves.Move`)."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Any

from companion.bank import depends
from companion.bank.facts import Facts
from companion.bank.journal import MOVES_SQL, REQUEST
from companion.core.ledger import EntryKind, MoveKind, check_source, is_id
from companion.core.state import MoveRef, MoveView, UndoCheck, Undone
from companion.exc import Blocked, Conflict, Refused, shown
from companion.i18n.said import say

if TYPE_CHECKING:
    from companion.bank.journal import Journal

OLDER = "older"
"""In an undo's data: it undid a move that was not the latest not undone (the moves after it
stand), so the walk back to the latest (:func:`undo_target`) can't jump over them."""
STALE = "stale"
"""In an undo's data: the first move after its target that changed what the target was judged
on (``[move, fact name, fact key]``), so Redo can't make it again as it was."""


def undo(bank: Journal, *, move: object = None, source: str = "",
         request_id: str | None = None, game_id: int | None = None) -> Undone:
    """Undo a move, whole: its coins move back; what else it changed is given back (the
    turn, a Jail, an outcome's player, a bankrupt player back in, an ended game open again).

    ``move``: that move, if no later move depends on it (:mod:`companion.bank.depends`: 409
    naming the nearest, ``blocked_by`` all of them); already undone, 409. Left out: the
    latest move not undone yet. Never the opening balances or an undo."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.UNDO, game_id)
        if replay is not None:
            if move is not None and replay["undoes"] != move:
                raise Conflict(say("request id {id} was already used for another "
                                   "operation", id=repr(request_id)))
            return Undone(bank.move_view(replay["id"]), bank.move_view(replay["undoes"]))
        gid = bank.game(game_id)
        latest = undo_target(bank, gid)
        if move is None and latest is None:
            raise Refused(say("nothing to undo"))
        row = latest if move is None else _undoable(bank, gid, move)
        assert row is not None
        facts = bank.facts(gid)
        target = bank.move_view(row["id"], facts)
        older = latest is None or latest["id"] != row["id"]  # later moves stand
        after = depends.later(bank, facts, depends.step(bank, row["id"]), since=True) \
            if older else depends.Later(())
        if after.dependents:
            raise Blocked(depends.blocked(bank, facts, target.text, after.dependents),
                          tuple(d.id for d in after.dependents))
        data: dict[str, Any] = {OLDER: True} if older else {}
        if after.changed is not None:
            data[STALE] = [after.changed.id, *after.changed.fact]
        undone = bank.add_move(db, gid, MoveKind.UNDO, player=row["player_id"], data=data,
                               note=f"undo: {target.text}"[:200], source=source,
                               undoes=row["id"], request_id=request_id)
        for entry in reversed(target.entries):
            if entry.outcome_id is not None:
                db.execute("UPDATE outcomes SET player_id = NULL WHERE id = ?",
                           (entry.outcome_id,))
            bank.add_entry(db, gid, undone, entry.payee, entry.payer, entry.amount,
                           EntryKind.UNDO, f"undo: {target.text}"[:200], source,
                           outcome_id=entry.outcome_id, undoes=entry.id,
                           space=entry.space)
        hook = bank.kinds[MoveKind(row["kind"])].undone
        if hook is not None:  # the turn, an outcome's player: what else the move changed
            hook(db, gid, json.loads(row["data"]))
        return Undone(bank.move_view(undone), bank.move_view(row["id"]))


def _move_id(move: object) -> int:
    if not is_id(move):
        raise Refused(say("{key} must be a move id (a whole number from 1), got {value}",
                          key="move", value=shown(move)))
    return move  # type: ignore[return-value]


def _undoable(bank: Journal, gid: int, move: object) -> sqlite3.Row:
    """Move ``move`` of game ``gid``, if it is one undo may take (not yet undone)."""
    row = bank.db.execute(MOVES_SQL + " WHERE m.id = ? AND m.game_id = ?",
                          (_move_id(move), gid)).fetchone()
    if row is None:
        raise Refused(say("unknown move {value}", value=shown(move)))  # or another game's
    kind = MoveKind(row["kind"])
    if kind is MoveKind.OPENING:
        raise Refused(say("the opening balances can't be undone"))
    if kind is MoveKind.UNDO:
        raise Refused(say("an undo can't be undone: Redo brings back what it undid, right "
                          "after it"))
    if row["undone_by"] is not None:
        raise Conflict(say("\"{move}\" is already undone", move=bank.move_view(move).text))
    if kind is MoveKind.TRANSFER and not bank.move_entries(row["id"]):
        raise Refused(say("\"{move}\" moved no coins: nothing to undo",
                          move=bank.move_view(move).text))
    return row


def check_undo(bank: Journal, move: object, game_id: int | None = None) -> UndoCheck:
    """Whether move ``move`` can be undone now and, if not, why (the moves that depend on
    it, nearest first): what ``undo(move=...)`` would answer, without writing. A move id
    that is no move of this game is refused (400)."""
    with bank.snapshot():
        gid = bank.game(game_id)
        mid = _move_id(move)
        try:
            _undoable(bank, gid, mid)
        except Conflict as exc:  # already undone
            return UndoCheck(mid, False, (), exc.said)
        except Refused as exc:
            if bank.db.execute("SELECT 1 FROM moves WHERE id = ? AND game_id = ?",
                               (mid, gid)).fetchone() is None:
                raise  # no such move: bad input
            return UndoCheck(mid, False, (), exc.said)  # the opening, an undo, no coins
        latest = undo_target(bank, gid)
        if latest is not None and latest["id"] == mid:  # nothing stands after it
            return UndoCheck(mid, True)
        facts = bank.facts(gid)
        found = depends.later(bank, facts, depends.step(bank, mid)).dependents
        if not found:
            return UndoCheck(mid, True)
        return UndoCheck(mid, False, tuple(d.id for d in found), depends.blocked(
            bank, facts, bank.move_view(mid, facts).text, found))


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
        if not bank.kinds[target.kind].redoable:
            raise Refused(say("{move} can't be redone: declare it again", move=target.text))
        stale = json.loads(latest["data"]).get(STALE)
        if stale:  # an older move undone: what it was judged on has moved on since
            move, *fact = stale
            raise Conflict(depends.stale(bank, facts, target.text,
                                         depends.Dependent(move, (fact[0], fact[1]))))
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

    Walks back from the newest move, jumping from an undo to below its target when that
    target was the latest move not undone (every move between the two is undone already, or
    an undo, or moved nothing); an undo of an older move (``older`` in its data) is stepped
    over alone. A run of undos is one step, and the walk never reads the rest of the game."""
    below = 2**63 - 1
    while True:
        row = bank.db.execute("SELECT * FROM moves WHERE game_id = ? AND id < ? ORDER BY"
                              " id DESC LIMIT 1", (gid, below)).fetchone()
        if row is None:
            return None
        kind = row["kind"]
        if kind == MoveKind.UNDO.value:
            jumps = row["undoes"] is not None and not json.loads(row["data"]).get(OLDER)
            below = row["undoes"] if jumps else row["id"]
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
    latest = bank.db.execute("SELECT id, kind, undoes, data FROM moves WHERE game_id = ? ORDER"
                             " BY id DESC LIMIT 1", (facts.gid,)).fetchone()
    redo = None
    if latest is not None and latest["kind"] == MoveKind.UNDO.value:
        undone = bank.move_view(latest["undoes"], facts)
        if bank.kinds[undone.kind].redoable and not json.loads(latest["data"]).get(STALE):
            redo = MoveRef(latest["id"], undone.text)
    counter = bank.db.execute("SELECT version FROM table_state WHERE id = 1").fetchone()
    version = f"{facts.gid}.{0 if counter is None else counter[0]}"
    return undo, redo, version

