"""The journal read as moves, in words: the whole game (export), a page of it (the tablet), the
latest lines (screens)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts
from companion.bank.journal import MOVES_SQL, entry_of
from companion.core.ledger import Entry, is_id
from companion.core.state import JournalLine, MoveView
from companion.exc import Refused, shown
from companion.i18n.said import say

if TYPE_CHECKING:
    from companion.bank.journal import Journal

RECENT = 8
"""Journal lines in ``state().recent``: what a screen's log shows."""
PAGE = 100
MAX_PAGE = 500
"""Moves in one page of the journal (:meth:`Bank.move_page`): by default, and at most."""


@dataclass(frozen=True, slots=True)
class MovePage:
    """One page of a game's journal (:meth:`Bank.move_page`): ``moves`` newest first below
    ``before``, or oldest first after ``after``; each with its entries, in words."""

    game_id: int
    moves: tuple[MoveView, ...]
    next_before: int | None
    """``before`` for the next older page (None: no older moves, or an ``after`` page)."""
    next_after: int | None
    """``after`` for the newer moves this page had no room for (None: it reaches the latest,
    or a ``before`` page)."""
    latest: int | None
    """The game's newest move (None: none yet)."""

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game_id, "moves": [m.to_json() for m in self.moves],
                "next_before": self.next_before, "next_after": self.next_after,
                "latest": self.latest}


def page_limit(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_PAGE:
        return value
    raise Refused(say("limit must be a whole number from 1 to {most}, got {value}",
                      most=MAX_PAGE, value=shown(value)))


def moves(bank: Journal, game_id: int | None = None) -> list[MoveView]:
    """The whole journal as moves (what the table did), oldest first, in two queries (for
    export and tools; the tablet reads it by pages: :meth:`move_page`)."""
    with bank.snapshot():
        facts = bank.facts(game_id)
        entries: dict[int, list[Entry]] = {}
        for row in bank.db.execute("SELECT * FROM entries WHERE game_id = ? ORDER BY id",
                                   (facts.gid,)):
            entries.setdefault(row["move_id"], []).append(entry_of(row))
        texts: dict[int, str] = {}  # an undo is told in the words of what it undid
        views = []
        for row in bank.db.execute(MOVES_SQL + " WHERE m.game_id = ? ORDER BY m.id",
                                   (facts.gid,)).fetchall():
            view = bank.view_of(row, entries.get(row["id"], []), facts, texts)
            texts[view.id] = view.text
            views.append(view)
        return views


def move_page(bank: Journal, game_id: int | None = None, *, before: object = None,
              after: object = None, limit: object = PAGE) -> MovePage:
    """A page of the journal as moves: up to ``limit`` moves below move ``before``
    (default: the newest ones), newest first; or after move ``after`` (0: from the
    start), oldest first, to catch up. An undo is told in the words of its target
    even when the target is on another page. A few indexed queries, however long the
    game."""
    sql, bound, size = page_bounds(before, after, limit)
    with bank.snapshot():
        facts = bank.facts(game_id)
        rows = bank.db.execute(MOVES_SQL + " WHERE m.game_id = ?" + sql,
                               (facts.gid, bound, size + 1)).fetchall()
        more = len(rows) > size
        rows = rows[:size]
        latest = latest_move(bank, facts.gid)
        shown_views = {view.id: view for view in views(bank, rows, facts)}
    last = rows[-1]["id"] if more else None
    return MovePage(facts.gid, tuple(shown_views[row["id"]] for row in rows),
                    last if after is None else None, last if after is not None else None,
                    latest)


def page_bounds(before: object, after: object, limit: object) -> tuple[str, int, int]:
    """A page's query checked: the SQL after ``WHERE m.game_id = ?``, its bound and the page's
    size (it asks for one more row, to know whether there are more)."""
    if before is not None and after is not None:
        raise Refused(say("give before or after, not both"))
    if before is not None and not is_id(before):
        raise Refused(say("before must be a move id (a whole number from 1), got {value}",
                          value=shown(before)))
    if after is not None and not (is_id(after) or (type(after) is int and after == 0)):
        raise Refused(say("after must be a move id (a whole number from 0), got {value}",
                          value=shown(after)))
    size = page_limit(limit)
    if after is None:
        top = before if isinstance(before, int) else 2**63 - 1
        return " AND m.id < ? ORDER BY m.id DESC LIMIT ?", top, size
    assert isinstance(after, int)
    return " AND m.id > ? ORDER BY m.id LIMIT ?", after, size


def latest_move(bank: Journal, gid: int) -> int | None:
    """The game's newest move (None: none yet)."""
    latest: int | None = bank.db.execute("SELECT MAX(id) FROM moves WHERE game_id = ?",
                                         (gid,)).fetchone()[0]
    return latest


def views(bank: Journal, rows: Sequence[sqlite3.Row], facts: Facts) -> list[MoveView]:
    """These moves in words, oldest first, with their entries; the moves their undos
    undid are read by id (in words too) when they are not among them."""
    rows = sorted(rows, key=lambda row: row["id"])
    ids = {row["id"] for row in rows}
    targets = sorted({row["undoes"] for row in rows if row["undoes"] is not None} - ids)
    extra = bank.db.execute(
        MOVES_SQL + " WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id",
        (json.dumps(targets),)).fetchall() if targets else []
    entries: dict[int, list[Entry]] = {}
    for row in bank.db.execute(
            "SELECT * FROM entries WHERE move_id IN (SELECT value FROM json_each(?))"
            " ORDER BY id", (json.dumps(sorted(ids | set(targets))),)):
        entries.setdefault(row["move_id"], []).append(entry_of(row))
    texts = {row["id"]: bank.view_of(row, entries.get(row["id"], []), facts, {}).text
             for row in extra}
    views = []
    for row in rows:
        view = bank.view_of(row, entries.get(row["id"], []), facts, texts)
        texts[view.id] = view.text
        views.append(view)
    return views


def recent(bank: Journal, gid: int, limit: int = RECENT) -> tuple[JournalLine, ...]:
    """The latest journal lines, newest first, with the block outcome's kind (screens)."""
    rows = bank.db.execute(
        "SELECT e.*, o.kind AS outcome_kind,"
        " (SELECT u.id FROM entries u WHERE u.undoes = e.id) AS undone_by"
        " FROM entries e LEFT JOIN outcomes o ON o.id = e.outcome_id"
        " WHERE e.game_id = ? ORDER BY e.id DESC LIMIT ?", (gid, limit)).fetchall()
    return tuple(JournalLine(entry_of(row), row["undone_by"], row["outcome_kind"])
                 for row in rows)


def journal_json(bank: Journal, game_id: int | None = None) -> list[dict[str, Any]]:
    with bank.snapshot():
        entries = bank.journal(game_id)
    undone_by = {e.undoes: e.id for e in entries if e.undoes is not None}
    return [e.to_json(undone_by.get(e.id)) for e in entries]
