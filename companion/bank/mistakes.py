"""A player's "that was a mistake": their own latest payment, sent to the banker to undo.

A request is kept (``undo_requests``) until the banker keeps the payment (its ``answer``) or
the payment is undone, by any means: that is read from the journal (an undo of the move),
never written here, so no way of undoing can leave a request open."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from companion.bank.facts import Facts
from companion.bank.journal import MOVES_SQL
from companion.core.ledger import MoveKind, is_id
from companion.core.state import UndoRequestView
from companion.exc import Conflict, Refused, shown
from companion.i18n.said import say

if TYPE_CHECKING:
    from companion.bank.journal import Journal

KEEP = "keep"
"""The banker's one answer here (undoing it is Undo's)."""
REQUESTS_SQL = ("SELECT r.*, (SELECT u.at FROM moves u WHERE u.undoes = r.move_id) AS undone_at"
                " FROM undo_requests r")
MINE = 10
"""A player's own requests a phone is shown, newest first."""


def latest_payment(bank: Journal, player: int) -> int | None:
    """The move of ``player``'s latest payment not undone (a transfer from their coins that
    moved some), or None."""
    row = bank.db.execute(
        "SELECT m.id FROM moves m INDEXED BY moves_by_player WHERE m.player_id = ? AND"
        " m.kind = ? AND NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id) AND EXISTS"
        " (SELECT 1 FROM entries e WHERE e.move_id = m.id) ORDER BY m.id DESC LIMIT 1",
        (player, MoveKind.TRANSFER.value)).fetchone()
    return None if row is None else int(row[0])


def ask(bank: Journal, player: int, move: object) -> tuple[UndoRequestView, bool]:
    """``player`` says their payment ``move`` was a mistake: the request, and whether it is
    new (asking again about the same payment is the same request)."""
    with bank.write() as db:
        if not is_id(move):
            raise Refused(say("{key} must be a move id (a whole number from 1), got {value}",
                              key="move", value=shown(move)))
        facts = bank.facts(None)
        row = db.execute(MOVES_SQL + " WHERE m.id = ? AND m.game_id = ?",
                         (move, facts.gid)).fetchone()
        if row is None:
            raise Refused(say("unknown move {value}", value=shown(move)))
        moved = db.execute("SELECT 1 FROM entries WHERE move_id = ? LIMIT 1",
                           (move,)).fetchone()
        if row["kind"] != MoveKind.TRANSFER.value or moved is None:
            raise Refused(say("move {id} is not a payment: only a payment can be sent back as "
                              "a mistake", id=str(move)))
        if row["player_id"] != player:
            raise Refused(say("move {id} is not your payment: a phone sends back only its own "
                              "player's payments", id=str(move)))
        found = db.execute(REQUESTS_SQL + " WHERE r.move_id = ?", (move,)).fetchone()
        if found is not None:
            return view(bank, found, facts), False
        if row["undone_by"] is not None:
            raise Conflict(say("that payment was undone already"))
        if latest_payment(bank, player) != move:
            raise Conflict(say("only your latest payment can be sent back as a mistake"))
        new = db.execute("INSERT INTO undo_requests (game_id, player_id, move_id, at) VALUES"
                         " (?, ?, ?, ?)", (facts.gid, player, move, bank.clock())).lastrowid
        made = db.execute(REQUESTS_SQL + " WHERE r.id = ?", (new,)).fetchone()
        return view(bank, made, facts), True


def answer(bank: Journal, request: object, reply: object = KEEP) -> UndoRequestView:
    """The banker keeps the payment a request was about (again: the same answer)."""
    if reply != KEEP:
        raise Refused(say("answer must be \"keep\" (Undo undoes the payment), got {value}",
                          value=shown(reply)))
    with bank.write() as db:
        facts = bank.facts(None)
        row = db.execute(REQUESTS_SQL + " WHERE r.id = ? AND r.game_id = ?",
                         (request, facts.gid)).fetchone() if is_id(request) else None
        if row is None:
            raise Refused(say("unknown request {value}", value=shown(request)))
        if row["undone_at"] is not None:
            raise Conflict(say("that payment was undone already: nothing to keep"))
        if row["answer"] is None:
            db.execute("UPDATE undo_requests SET answer = ?, settled_at = ? WHERE id = ?",
                       (KEEP, bank.clock(), row["id"]))
            row = db.execute(REQUESTS_SQL + " WHERE r.id = ?", (row["id"],)).fetchone()
        return view(bank, row, facts)


def open_requests(bank: Journal, facts: Facts) -> tuple[UndoRequestView, ...]:
    """The requests of a game the banker has not answered and whose payment stands, oldest
    first (for the table's state)."""
    rows = bank.db.execute(
        "SELECT r.*, NULL AS undone_at FROM undo_requests r INDEXED BY undo_requests_open"
        " WHERE r.game_id = ? AND r.answer IS NULL AND NOT EXISTS"
        " (SELECT 1 FROM moves u WHERE u.undoes = r.move_id) ORDER BY r.id",
        (facts.gid,)).fetchall()
    return tuple(view(bank, row, facts) for row in rows)


def player_requests(bank: Journal, facts: Facts, player: int,
                    limit: int = MINE) -> tuple[UndoRequestView, ...]:
    """A player's own requests, newest first, however they were settled."""
    rows = bank.db.execute(REQUESTS_SQL + " WHERE r.player_id = ? ORDER BY r.id DESC LIMIT ?",
                           (player, limit)).fetchall()
    return tuple(view(bank, row, facts) for row in rows)


def view(bank: Journal, row: sqlite3.Row, facts: Facts) -> UndoRequestView:
    """A request row (with ``undone_at``) as the pages see it."""
    undone = row["undone_at"] is not None
    status = "undone" if undone else "kept" if row["answer"] == KEEP else "open"
    return UndoRequestView(row["id"], row["player_id"], row["move_id"], row["at"],
                           bank.move_view(row["move_id"], facts).text, status,
                           row["undone_at"] if undone else row["settled_at"])
