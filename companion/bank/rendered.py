"""The journal as ``GET /api/journal`` sends it, its JSON rendered once per move and coin line.

Putting a move into words and JSON is what a journal read costs (a page of 500 moves: tens of
milliseconds of the interpreter, which the loop and the writer thread then wait for). A move
never changes once written but for who undid it, and its words depend only on its row, its
entries and the game's facts (names, who is out, the board...): so its JSON is kept, with
``undone_by`` and the facts it was rendered with, and a read renders only the moves it has not
seen, or that were undone since, or all of them again once the facts changed. An undo is
rendered every time (its words are those of its target, told differently when the target is
itself an undo on another page). Coin lines are kept the same way, with ``undone_by``.

The bytes are the same as ``json.dumps`` of the page (:func:`companion.bank.pages.move_page`)
or of the whole journal would give; they are made on the reading thread, so the loop only
sends them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.bank.facts import Facts
from companion.bank.journal import MOVES_SQL, entry_of
from companion.bank.pages import PAGE, latest_move, page_bounds, views
from companion.core.ledger import MoveKind

if TYPE_CHECKING:
    from companion.bank.journal import Journal

UNDO = MoveKind.UNDO.value
IDS_SQL = ("SELECT m.id, m.kind, (SELECT u.id FROM moves u WHERE u.undoes = m.id) AS undone_by"
           " FROM moves m")
"""What a read needs to know of a move to tell whether its kept JSON still holds."""
ANSWERS = 8
"""Reads whose answers are kept as they were sent (a page or the whole journal, the latest
asked), each for as long as nothing is written."""
PER_PIECE = 200
"""Moves or coin lines per piece of a whole journal as it is sent (the loop serves others
between pieces)."""
MOST = 5000
"""Moves (and as many coin lines) kept at most; past it the oldest are dropped (about 0.7 kB
each: a few MB for a long game). A whole journal longer than that is not kept either."""


@dataclass(frozen=True, slots=True)
class _Whole:
    """The last whole journal read: up to which coin line and move, and their JSON."""

    gid: int
    last_entry: int
    last_move: int
    entries: list[str]
    moves: list[str]
    entry_pieces: list[bytes]
    move_pieces: list[bytes]
    """Their JSON joined in pieces of :data:`PER_PIECE` (the loop sends one at a time)."""


class RenderedJournal:
    """``page()`` and ``whole()``: the journal's JSON, as bytes, from the moves' kept JSON.
    Thread-safe (reads run on the reading thread, or on the writer's while it is down)."""

    def __init__(self, most: int = MOST) -> None:
        self.most = most
        self.rendered = 0
        """Moves put into words so far (a kept one read again is not counted)."""
        self._lock = threading.Lock()
        self._facts: Facts | None = None
        self._moves: dict[int, tuple[int | None, str]] = {}  # id: (undone_by, JSON)
        self._entries: dict[int, tuple[int | None, str]] = {}
        self._whole: _Whole | None = None
        self._answers: dict[tuple[object, ...], tuple[object, int, list[bytes]]] = {}
        """A read's key -> the connection and its version it was answered at, the answer."""
        self.repeated = 0
        """Reads answered as they were last time (nothing written since)."""

    def page(self, bank: Journal, game_id: int | None = None, *, before: object = None,
             after: object = None, limit: object = None) -> bytes:
        """As ``json.dumps(move_page(...).to_json())``."""
        sql, bound, size = page_bounds(before, after, PAGE if limit is None else limit)
        with self._lock, bank.snapshot():
            key = ("page", game_id, before, after, limit)
            version = self._version(bank)
            same = self._same(key, bank, version)
            if same is not None:
                return same[0]
            facts = self._facts_of(bank, game_id)
            rows = bank.db.execute(IDS_SQL + " WHERE m.game_id = ?" + sql,
                                   (facts.gid, bound, size + 1)).fetchall()
            more = len(rows) > size
            rows = rows[:size]
            latest = latest_move(bank, facts.gid)
            moves = self._moves_json(bank, rows, facts)
            last = rows[-1]["id"] if more else None
            body = (f'{{"game": {facts.gid}, "moves": [{", ".join(moves)}], "next_before": '
                    f'{_dump(last if after is None else None)}, "next_after": '
                    f'{_dump(last if after is not None else None)}, "latest": '
                    f'{_dump(latest)}}}').encode()
            self._keep(key, bank, version, [body])
        return body

    def whole(self, bank: Journal, game_id: int | None = None) -> list[bytes]:
        """As ``json.dumps({"game": game_id, "entries": ..., "moves": ...})`` of the whole
        game (coin lines and moves oldest first), in pieces to send one after another."""
        with self._lock, bank.snapshot():
            key = ("whole", game_id)
            version = self._version(bank)
            same = self._same(key, bank, version)
            if same is not None:
                return same
            facts = self._facts_of(bank, game_id)
            whole = self._whole_json(bank, facts)
            pieces = [f'{{"game": {_dump(game_id)}, "entries": ['.encode(), *whole.entry_pieces,
                      b'], "moves": [', *whole.move_pieces, b"]}"]
            if whole is self._whole:  # a long game's whole journal is not kept
                self._keep(key, bank, version, pieces)
        return pieces

    @staticmethod
    def _version(bank: Journal) -> int | None:
        """What a reading connection has seen of the file (its ``PRAGMA data_version``,
        which any other connection's write changes); None for the writer's own, which its
        own writes would not change."""
        if not bank.readonly:
            return None
        version: int = bank.db.execute("PRAGMA data_version").fetchone()[0]
        return version

    def _same(self, key: tuple[object, ...], bank: Journal,
              version: int | None) -> list[bytes] | None:
        """The answer to this very read, if nothing was written since it was made."""
        found = self._answers.get(key)
        if found is None or version is None or found[0] is not bank.db or found[1] != version:
            return None
        self.repeated += 1
        return found[2]

    def _keep(self, key: tuple[object, ...], bank: Journal, version: int | None,
              pieces: list[bytes]) -> None:
        if version is None:
            return
        self._answers.pop(key, None)
        self._answers[key] = (bank.db, version, pieces)  # the newest last
        while len(self._answers) > ANSWERS:
            del self._answers[next(iter(self._answers))]

    def _facts_of(self, bank: Journal, game_id: int | None) -> Facts:
        facts = bank.facts(game_id)
        if facts != self._facts:  # another game, or one its moves changed: words may differ
            self._moves.clear()
            self._entries.clear()
            self._whole = None
            self._facts = facts
        return facts

    def _whole_json(self, bank: Journal, facts: Facts) -> _Whole:
        """The JSON of the game's coin lines and moves: the last whole journal's and what was
        written since (moves and lines are never changed nor deleted; only an undo changes
        an earlier one's ``undone_by``: then all of it is looked at again)."""
        last = self._whole
        entry_sql, move_sql = "SELECT id, undoes FROM entries WHERE game_id = ?", \
            IDS_SQL + " WHERE m.game_id = ?"
        if last is not None and last.gid == facts.gid:
            entry_rows = bank.db.execute(entry_sql + " AND id > ? ORDER BY id",
                                         (facts.gid, last.last_entry)).fetchall()
            move_rows = bank.db.execute(move_sql + " AND m.id > ? ORDER BY m.id",
                                        (facts.gid, last.last_move)).fetchall()
            if all(row["undoes"] is None for row in entry_rows) and \
                    all(row["kind"] != UNDO for row in move_rows):
                return self._keep_whole(
                    facts.gid, entry_rows, move_rows,
                    last.entries + self._entries_json(bank, entry_rows),
                    last.moves + self._moves_json(bank, move_rows, facts), last)
        entry_rows = bank.db.execute(entry_sql + " ORDER BY id", (facts.gid,)).fetchall()
        move_rows = bank.db.execute(move_sql + " ORDER BY m.id", (facts.gid,)).fetchall()
        return self._keep_whole(facts.gid, entry_rows, move_rows,
                                self._entries_json(bank, entry_rows),
                                self._moves_json(bank, move_rows, facts), None)

    def _keep_whole(self, gid: int, entry_rows: Sequence[sqlite3.Row],
                    move_rows: Sequence[sqlite3.Row], entries: list[str], moves: list[str],
                    last: _Whole | None) -> _Whole:
        """The whole journal's JSON in pieces (those of ``last`` that were full, kept),
        kept for the next read unless the game is long."""
        whole = _Whole(
            gid, entry_rows[-1]["id"] if entry_rows else last.last_entry if last else 0,
            move_rows[-1]["id"] if move_rows else last.last_move if last else 0,
            entries, moves, _pieces(entries, last.entry_pieces if last else [],
                                    len(last.entries) if last else 0),
            _pieces(moves, last.move_pieces if last else [], len(last.moves) if last else 0))
        long = len(moves) > self.most or len(entries) > 2 * self.most
        self._whole = None if long else whole  # a long game's words are not all kept
        return whole

    def _moves_json(self, bank: Journal, rows: Sequence[sqlite3.Row],
                    facts: Facts) -> list[str]:
        """The JSON of these moves (``rows`` of :data:`IDS_SQL`), in their order."""
        out: dict[int, str] = {}
        missing = []
        for row in rows:
            kept = self._moves.get(row["id"])
            if kept is not None and kept[0] == row["undone_by"] and row["kind"] != UNDO:
                out[row["id"]] = kept[1]
            else:
                missing.append(row["id"])
        if missing:
            full = bank.db.execute(MOVES_SQL + " WHERE m.id IN (SELECT value FROM json_each(?))"
                                   " ORDER BY m.id", (json.dumps(missing),)).fetchall()
            for view in views(bank, full, facts):
                text = json.dumps(view.to_json())
                out[view.id] = text
                if view.kind is not MoveKind.UNDO:
                    self._moves[view.id] = (view.undone_by, text)
            self.rendered += len(full)
            _trim(self._moves, self.most)
        return [out[row["id"]] for row in rows]

    def _entries_json(self, bank: Journal, rows: Sequence[sqlite3.Row]) -> list[str]:
        """The JSON of these coin lines (``id`` and ``undoes``, in order: the game's, or the
        ones after the last whole journal, which undid none of the earlier ones), as
        :func:`pages.journal_json` gives them."""
        undone_by = {row["undoes"]: row["id"] for row in rows if row["undoes"] is not None}
        out: dict[int, str] = {}
        missing = []
        for row in rows:
            kept = self._entries.get(row["id"])
            if kept is not None and kept[0] == undone_by.get(row["id"]):
                out[row["id"]] = kept[1]
            else:
                missing.append(row["id"])
        if missing:
            for row in bank.db.execute(
                    "SELECT * FROM entries WHERE id IN (SELECT value FROM json_each(?))",
                    (json.dumps(missing),)):
                by = undone_by.get(row["id"])
                text = json.dumps(entry_of(row).to_json(by))
                out[row["id"]] = text
                self._entries[row["id"]] = (by, text)
            _trim(self._entries, self.most)
        return [out[row["id"]] for row in rows]


def _dump(value: int | None) -> str:
    return json.dumps(value)


def _pieces(items: list[str], kept: list[bytes], kept_items: int) -> list[bytes]:
    """``items`` joined with ", ", in pieces of :data:`PER_PIECE`: those of ``kept`` that
    were full (the pieces of the first ``kept_items`` of them) as they are, the rest now."""
    kept = kept[:kept_items // PER_PIECE]  # full pieces only: the last one grows
    return kept + [((", " if start else "") + ", ".join(items[start:start + PER_PIECE])).encode()
                   for start in range(len(kept) * PER_PIECE, len(items), PER_PIECE)]


def _trim(kept: dict[int, tuple[int | None, str]], most: int) -> None:
    """Drop the oldest past ``most``."""
    if len(kept) > most:
        for key in sorted(kept)[:len(kept) - most]:
            del kept[key]
