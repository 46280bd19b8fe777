"""The journal: the small engine every move writes through, as boardgame.io's game engine is.

One SQLite file holds games, players and the journal of moves and coins. Every write
validates inside one ``BEGIN IMMEDIATE`` transaction and returns only after COMMIT
(``synchronous=FULL``): an acknowledged write survives a power cut. A ``Journal`` is used from
one thread; other processes may share the file safely.

It appends moves and their entries, replays a retried request (its request id), keeps the
balances as entries are written (so a write's cost does not grow with the game; see
:meth:`Journal.balances`), reads the table's facts (who is out, Jail, points, worms, the end)
through each kind's hooks (:mod:`companion.bank.moves`) and gives consistent snapshots. It
knows no kind of move itself.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from companion.bank.facts import Facts, Player
from companion.bank.kinds import CORRECTION, Kinds
from companion.bank.store import (
    UnsureWrite,
    open_database,
    open_readonly,
    shrink_wal,
    storage_problem,
)
from companion.core.editions import Editions, editions
from companion.core.editions.ruleset import Ruleset
from companion.core.ledger import (
    BANK,
    Entry,
    EntryKind,
    MoveKind,
    Party,
    and_joined,
    check_request_id,
    is_id,
)
from companion.core.state import MoveView
from companion.exc import AgainstTheRules, Conflict, GameEnded, Refused, Unavailable, shown
from companion.i18n.said import Said, as_json, say

DB_NAME = "bank.sqlite3"
REQUEST = "request"
"""The key in a keyed move's ``data`` holding its request's fingerprint (never shown)."""

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


def fingerprint(name: str, asked: Mapping[str, object]) -> str:
    """The whole request, as a retry must repeat it: the move and every argument, as JSON
    (``true`` is not ``1``, ``2.0`` is not ``2``), hashed."""
    try:
        text = json.dumps([name, asked], sort_keys=True, default=_stable)
    except (TypeError, ValueError):  # keys that do not sort (a direct caller's): its repr
        text = repr((name, sorted(asked.items())))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _stable(value: object) -> str:
    """A value JSON has no word for: its repr, or its type's name for a sentinel whose repr
    would name its address (the same in every run, so a retry after a restart matches)."""
    if type(value).__repr__ is object.__repr__:
        return f"<{type(value).__qualname__}>"
    return repr(value)


def keyed(move: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A move that takes a ``request_id``: a retry with that id replays the first answer only
    if it asks the very same (every argument but the source): anything else is refused, 409
    naming the id. One rule for every keyed move (:meth:`Journal.replay`)."""
    signature = inspect.signature(move)
    first, *_ = signature.parameters
    assert signature.parameters["request_id"].kind is inspect.Parameter.KEYWORD_ONLY
    skip = {first, "source", "request_id"}

    @functools.wraps(move)
    def with_request(bank: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        if kwargs.get("request_id") is None:  # no key: nothing to compare
            return move(bank, *args, **kwargs)
        bound = signature.bind(bank, *args, **kwargs)
        bound.apply_defaults()
        asked = {k: v for k, v in bound.arguments.items() if k not in skip}
        outer, bank.asked = bank.asked, fingerprint(move.__name__, asked)
        try:
            return move(bank, *args, **kwargs)
        finally:
            bank.asked = outer

    return with_request


def _party(value: int | None) -> Party:
    return BANK if value is None else value


def _column(party: Party) -> int | None:
    return None if party == BANK else int(party)


def _credit(money: dict[int, int], payer: Party, payee: Party, amount: int) -> None:
    """One journal line's effect on the balances: the payer has less, the payee more."""
    if payer != BANK:
        money[int(payer)] = money.get(int(payer), 0) - amount
    if payee != BANK:
        money[int(payee)] = money.get(int(payee), 0) + amount


def entry_of(row: sqlite3.Row) -> Entry:
    return Entry(id=row["id"], game_id=row["game_id"], at=row["at"], payer=_party(row["payer"]),
                 payee=_party(row["payee"]), amount=row["amount"], kind=EntryKind(row["kind"]),
                 note=row["note"], source=row["source"], outcome_id=row["outcome_id"],
                 undoes=row["undoes"], move_id=row["move_id"],
                 space=row["space"] if "space" in row.keys() else None)  # noqa: SIM118 (a Row: `in` looks at values)


MOVES_SQL = ("SELECT m.*, (SELECT u.id FROM moves u WHERE u.undoes = m.id) AS undone_by"
             " FROM moves m")


class Journal:
    """Games, players and the journal of one bank file: the engine under every move."""

    kinds: Kinds
    """Every kind of move: its words and hooks (the bank hands them in, as a game hands its
    moves to boardgame.io's engine)."""
    asked: str | None = None
    """Inside a keyed move (:func:`keyed`): its request's fingerprint, kept with the move and
    compared when its request id comes again."""
    correcting: Mapping[str, Any] | None = None
    """Inside a banker's correction (:mod:`companion.bank.gate`): what it corrects, kept with
    every move it writes (``data["correction"]``)."""
    may_correct: bool = False
    """Inside a write the banker asked as a correction: a rule the write finds broken is
    overruled (:meth:`overrule`) instead of refusing it."""
    _handed: Facts | None = None
    """Facts read at the start of this write by the gate, for the write's own first read."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time,
                 readonly: bool = False, rulesets: Editions | None = None) -> None:
        self.path = path
        self.clock = clock
        self.editions = rulesets if rulesets is not None else editions()
        self.db = open_readonly(path) if readonly else open_database(path)
        self.readonly = readonly
        """A reading connection: it never writes (so its ``PRAGMA data_version`` changes
        with every write to the file)."""
        self._money: dict[int, dict[int, int]] = {}
        """Each game's balances as committed, kept as entries are written."""
        self._money_version: int | None = None
        """``PRAGMA data_version`` when ``_money`` was last known right: another connection's
        commit changes it, and ``_money`` is then read again."""
        self._working: dict[int, dict[int, int]] | None = None
        """Inside a write: the balances with this transaction's entries (kept at COMMIT,
        thrown away at ROLLBACK)."""
        latest = self.latest_game()
        if latest is not None:
            self.check_balances(latest)

    @classmethod
    def in_dir(cls, data_dir: Path, **kwargs: Any) -> Self:
        return cls(data_dir / DB_NAME, **kwargs)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One immediate transaction: validate and write, COMMIT before returning. The
        balances it changed are kept only if COMMIT returned: a failed write changes nothing,
        in the file or in memory. Inside a write already, it is that same transaction (a check
        and the write it guards see one journal)."""
        db = self.db
        if self._working is not None:
            yield db
            return
        db.execute("BEGIN IMMEDIATE")
        committing = False
        try:
            self._fresh()
            self._working = {}
            yield db
            db.execute("INSERT INTO table_state (id, version) VALUES (1, 1) ON CONFLICT (id)"
                       " DO UPDATE SET version = version + 1")  # the state's version
            committing = True
            db.execute("COMMIT")
            self._money.update(self._working)
        except BaseException as exc:
            if committing:  # whether COMMIT left anything in the file: read it again
                self._money.clear()
            if db.in_transaction:  # still open: nothing was committed (COMMIT can be retried)
                db.execute("ROLLBACK")
            elif committing and str(getattr(exc, "sqlite_errorname", "")).startswith(
                    "SQLITE_IOERR"):
                # An I/O error ended the transaction: its frames may be in the WAL already (a
                # failed fsync), so the write may or may not be there after a restart. (A full
                # or read-only disk refuses before the commit frame: nothing is written.)
                unsure = UnsureWrite(storage_problem(exc) or str(exc))
                unsure.sqlite_errorname = exc.sqlite_errorname  # type: ignore[attr-defined]
                raise unsure from exc
            raise
        else:
            shrink_wal(db, self.path)  # committed: the WAL is emptied once it grows
        finally:
            self._working = None
            self._handed = None

    def probe(self) -> None:
        """A small real write (the schema version, rewritten as it is): raises if the disk
        refuses writes (full, read-only, failing)."""
        with self.write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            db.execute(f"PRAGMA user_version={int(version)}")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one consistent state, even while other processes write."""
        db = self.db
        if db.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            if db.in_transaction:
                db.execute("COMMIT")

    def latest_game(self) -> int | None:
        """The game the table plays: the one started or resumed last (else the newest)."""
        row = self.db.execute("SELECT current_game FROM table_state WHERE id = 1").fetchone()
        if row is not None and row[0] is not None:
            return int(row[0])
        return self.db.execute("SELECT MAX(id) FROM games").fetchone()[0]

    def game(self, game_id: int | None) -> int:
        gid = self.latest_game() if game_id is None else game_id
        if gid is None:
            raise Refused(say("no game yet: start one first"))
        if not is_id(gid) or self.db.execute(
                "SELECT 1 FROM games WHERE id = ?", (gid,)).fetchone() is None:
            raise Refused(say("unknown game {game}", game=repr(gid)))
        return gid

    def ruleset(self, game_id: int | None = None) -> Ruleset:
        """The rules a game is played by (its edition, with the house rules it chose)."""
        gid = self.game(game_id)
        row = self.db.execute("SELECT edition, options FROM games WHERE id = ?",
                              (gid,)).fetchone()
        return self.rules_of(row["edition"], json.loads(row["options"]))

    def rules_of(self, edition: str, options: Mapping[str, Any] | None = None) -> Ruleset:
        """The rules of a game of ``edition`` (``options``: the game's, with the house-rules
        file its setup chose)."""
        if edition not in self.editions:
            raise Unavailable(say("this game is played by the edition {edition}, which this "
                                  "companion does not know (house rules taken away?): put its "
                                  "file back in [game] house_rules, or start a new game",
                                  edition=repr(edition)))
        return self.editions.played(edition, options or {})[0]

    def players(self, game_id: int | None = None) -> list[Player]:
        gid = self.game(game_id)
        return [Player(**{**dict(row), "characters": tuple(json.loads(row["characters"]))})
                for row in self.db.execute(
                    "SELECT id, game_id, seat, name, colour, card_uid, characters FROM players"
                    " WHERE game_id = ? ORDER BY seat", (gid,))]

    def player_ids(self, gid: int) -> list[int]:
        return [r[0] for r in self.db.execute(
            "SELECT id FROM players WHERE game_id = ? ORDER BY seat", (gid,))]

    def current_player(self, game_id: int | None = None) -> int | None:
        gid = self.game(game_id)
        return self.db.execute("SELECT current_player FROM games WHERE id = ?",
                               (gid,)).fetchone()[0]

    def hand(self, facts: Facts) -> None:
        """Inside a write, before the write itself: ``facts`` are the game as it stands (read
        by the gate that checked the move), the write's first read of them."""
        assert self._working is not None, "handed inside a write"
        self._handed = facts

    def facts(self, game_id: int | None) -> Facts:
        """The game as its moves left it (inside a write or a snapshot)."""
        gid = self.game(game_id)
        handed, self._handed = self._handed, None
        if handed is not None and handed.gid == gid:
            return handed
        game = self.db.execute("SELECT * FROM games WHERE id = ?", (gid,)).fetchone()
        options = json.loads(game["options"])
        facts = Facts(gid, self.rules_of(game["edition"], options), self.players(gid),
                      game["current_player"], options)
        kinds = ", ".join(f"'{k.value}'" for k in self.kinds.folded())
        # By kind: only these moves are read, however long the game (left to itself, the
        # planner walks every move of the game by moves_by_game to save the sort).
        for row in self.db.execute(
                f"SELECT * FROM moves m INDEXED BY moves_by_kind WHERE game_id = ? AND kind IN"
                f" ({kinds}) AND NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)"
                " ORDER BY id", (gid,)):
            fold = self.kinds[MoveKind(row["kind"])].fold
            if fold is not None:
                fold(facts, row, json.loads(row["data"]))
            if row["ends"]:
                facts.ending = row
        for read in self.kinds.readers():  # Jail (each player's latest), the contests
            read(self.db, facts)
        return facts

    def open_facts(self, game_id: int | None) -> Facts:
        """The game, refusing a write if it has ended (GameEnded names who won)."""
        facts = self.facts(game_id)
        if facts.ending is not None:
            data = json.loads(facts.ending["data"])
            who = and_joined([facts.name(p) for p in data.get("winners", ())])
            name = Said(facts.rules.name)
            if who is None:
                raise GameEnded(say("this game of {edition} has ended (nobody won): it is "
                                    "read-only; undo reopens it, or start a new game",
                                    edition=name))
            raise GameEnded(say("this game of {edition} has ended ({who} won): it is "
                                "read-only; undo reopens it, or start a new game",
                                edition=name, who=who))
        return facts

    def in_game(self, facts: Facts, player: object, what: str = "player") -> int:
        """A player of this game who is still in it."""
        if is_id(player) and player in facts.ids:
            if player in facts.out:
                raise Refused(say("{name} is out of the game (bankrupt)", name=facts.name(player)))
            return player  # type: ignore[return-value]
        # NOTE: {what} is the request's field: player, payer, payee, creditor, owner
        raise Refused(say("unknown {what} {value}", what=what, value=shown(player)))

    def party_in_game(self, facts: Facts, party: object, what: str) -> Party:
        return BANK if party == BANK else self.in_game(facts, party, what)

    def journal(self, game_id: int | None = None) -> list[Entry]:
        gid = self.game(game_id)
        return [entry_of(row) for row in self.db.execute(
            "SELECT * FROM entries WHERE game_id = ? ORDER BY id", (gid,))]

    def balances(self, game_id: int | None = None) -> dict[int, int]:
        """Each player's coins: the sum of the journal, kept in memory as entries are written
        (a write's cost does not grow with the game). Summed again by SQLite the first time a
        game is read, and whenever another connection has written the file since."""
        with self.snapshot():
            return self.money(self.game(game_id))

    def summed_balances(self, game_id: int | None = None) -> dict[int, int]:
        """Each player's coins, summed from the whole journal by SQLite."""
        with self.snapshot():
            gid = self.game(game_id)
            result = dict.fromkeys(self.player_ids(gid), 0)
            for pid, total in self.db.execute(
                    "SELECT party, SUM(delta) FROM ("
                    " SELECT payee AS party, amount AS delta FROM entries WHERE game_id = ?1"
                    " UNION ALL SELECT payer, -amount FROM entries WHERE game_id = ?1)"
                    " WHERE party IS NOT NULL GROUP BY party", (gid,)):
                result[pid] = total
            return result

    def check_balances(self, game_id: int | None = None) -> bool:
        """Are the balances kept in memory the full sum? (Not kept yet, as when the bank
        opens: the journal replayed through the same rule as a write.) If they ever differ,
        log an ERROR and trust the sum. True when they agree."""
        assert self._working is None, "not inside a write"
        with self.snapshot():
            gid = self.game(game_id)
            self._fresh()
            kept = self._money.get(gid)
            if kept is None:
                kept = dict.fromkeys(self.player_ids(gid), 0)
                for payer, payee, amount in self.db.execute(
                        "SELECT payer, payee, amount FROM entries WHERE game_id = ?", (gid,)):
                    _credit(kept, _party(payer), _party(payee), amount)
            summed = self.summed_balances(gid)
            self._money[gid] = summed
        if kept != summed:
            log.error("bank %s, game %d: the balances kept (%s) are not the sum of the journal "
                      "(%s): using the sum", self.path, gid, kept, summed)
            return False
        return True

    def _fresh(self) -> None:
        """Forget the balances kept if another connection has committed since (SQLite's
        ``PRAGMA data_version``; this connection's own commits leave it as it is)."""
        version = self.db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._money_version:
            self._money.clear()
            self._money_version = version

    def kept(self, gid: int) -> dict[int, int]:
        """The balances of game ``gid`` kept in memory (this write's, inside one), read by
        the full sum if they are not kept yet. Inside a transaction or a snapshot."""
        if self._working is not None:
            money = self._working.get(gid)
            if money is None:
                base = self._money.get(gid)
                money = self._working[gid] = dict(base) if base is not None \
                    else self.summed_balances(gid)
            return money
        self._fresh()  # before the sum: what is kept is never older than its version
        money = self._money.get(gid)
        if money is None:
            money = self._money[gid] = self.summed_balances(gid)
        return money

    def money(self, gid: int) -> dict[int, int]:
        return dict(self.kept(gid))

    def add_move(self, db: sqlite3.Connection, gid: int, kind: MoveKind, *,
                 player: int | None = None, data: Mapping[str, Any] | None = None,
                 note: str = "", source: str = "", ends: bool = False,
                 undoes: int | None = None, request_id: str | None = None) -> int:
        data = dict(data or {})
        if request_id is not None and self.asked is not None:
            data[REQUEST] = self.asked
        if self.correcting is not None:
            data[CORRECTION] = dict(self.correcting)
        move_id = db.execute(
            "INSERT INTO moves (game_id, at, kind, player_id, data, note, source, ends, undoes,"
            " request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (gid, self.clock(), kind.value, player, json.dumps(data), note, source,
             int(ends), undoes, check_request_id(request_id))).lastrowid
        assert move_id is not None
        return move_id

    def add_entry(self, db: sqlite3.Connection, gid: int, move: int, payer: Party,
                  payee: Party, amount: int, kind: EntryKind, note: str = "",
                  source: str = "", outcome_id: int | None = None,
                  undoes: int | None = None, space: str | None = None) -> Entry:
        """Write one journal line (inside a write) and count it in the balances kept;
        ``space``: its ``"bank"`` side is the Board's pile there."""
        assert self._working is not None, "entries are written inside a write"
        money = self.kept(gid)  # first: a first read sums the journal without this line
        now = self.clock()
        entry_id = db.execute(
            "INSERT INTO entries (game_id, at, payer, payee, amount, kind, note, source,"
            " outcome_id, undoes, move_id, space) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (gid, now, _column(payer), _column(payee), amount, kind.value, note, source,
             outcome_id, undoes, move, space)).lastrowid
        assert entry_id is not None
        _credit(money, payer, payee, amount)
        if space is not None:  # the Board's side: its pile on that space grows or shrinks
            delta = amount if payee == BANK else -amount
            db.execute("INSERT OR IGNORE INTO board_piles (game_id, space, coins, since)"
                       " VALUES (?, ?, 0, ?)", (gid, space, entry_id))
            db.execute("UPDATE board_piles SET coins = coins + ?, since = CASE WHEN coins = 0"
                       " THEN ? ELSE since END WHERE game_id = ? AND space = ?",
                       (delta, entry_id, gid, space))
        return Entry(entry_id, gid, now, payer, payee, amount, kind, note, source, outcome_id,
                     undoes, move, space)

    def move_entries(self, move_id: int) -> list[Entry]:
        return [entry_of(row) for row in self.db.execute(
            "SELECT * FROM entries WHERE move_id = ? ORDER BY id", (move_id,))]

    def overrule(self, broken: AgainstTheRules) -> None:
        """A rule this write finds broken: refused (raised), unless the banker asked for the
        write as a correction; then the journal keeps it as one (every move it writes)."""
        if not self.may_correct:
            raise broken
        self.correcting = {"rule": broken.rule, "why": as_json(broken.said)}

    def has_request(self, request_id: object) -> bool:
        """Whether a move was written for this request id already (a retry)."""
        if not isinstance(request_id, str):
            return False
        return self.db.execute("SELECT 1 FROM moves WHERE request_id = ?",
                               (request_id,)).fetchone() is not None

    def replay(self, request_id: object, kind: MoveKind | None, game_id: int | None,
               **same: object) -> sqlite3.Row | None:
        """The move an earlier try of this very request wrote, if any.

        A request id reused for another request is refused (409 naming it): another kind of
        move (``kind`` None: any), another game, or, for a keyed move (:func:`keyed`), any
        other argument. A move written before requests were kept whole is compared by
        ``same``, the fields its data kept."""
        if check_request_id(request_id) is None:
            return None
        row = self.db.execute("SELECT * FROM moves WHERE request_id = ?",
                              (request_id,)).fetchone()
        if row is None:
            return None
        data = json.loads(row["data"])
        playing = game_id if game_id is not None else self.latest_game()
        kept = data.get(REQUEST)
        if (kind is not None and row["kind"] != kind.value) or row["game_id"] != playing \
                or (kept is not None and kept != self.asked) \
                or (kept is None and any(data.get(key) != value
                                         for key, value in same.items())):
            raise Conflict(say("request id {id} was already used for another operation",
                               id=repr(request_id)))
        return row

    def board(self, game_id: int | None = None) -> dict[str, int]:
        """The coins on the board: each space's pile, by name (empty piles left out)."""
        with self.snapshot():
            return self.piles(self.game(game_id))

    def piles(self, gid: int) -> dict[str, int]:
        """The piles as kept with every line (:meth:`board_summed` checks them)."""
        rows = self.db.execute("SELECT space, coins FROM board_piles WHERE game_id = ? AND"
                               " coins > 0 ORDER BY since", (gid,)).fetchall()
        return {row["space"]: row["coins"] for row in rows}

    def board_summed(self, game_id: int | None = None) -> dict[str, int]:
        """The piles summed from the journal's lines (for tests and checks: slow)."""
        rows = self.db.execute(
            "SELECT space, SUM(CASE WHEN payee IS NULL THEN amount ELSE -amount END) AS coins"
            " FROM entries INDEXED BY entries_on_board WHERE game_id = ? AND space IS NOT NULL"
            " GROUP BY space ORDER BY MIN(id)", (self.game(game_id),)).fetchall()
        return {row["space"]: row["coins"] for row in rows if row["coins"] > 0}

    def move_view(self, move_id: int, facts: Facts | None = None) -> MoveView:
        row = self.db.execute(MOVES_SQL + " WHERE m.id = ?", (move_id,)).fetchone()
        facts = facts or self.facts(row["game_id"])
        texts = {}
        if row["kind"] == MoveKind.UNDO.value and row["undoes"] is not None:
            texts[row["undoes"]] = self.move_view(row["undoes"], facts).text
        return self.view_of(row, self.move_entries(move_id), facts, texts)

    def view_of(self, row: sqlite3.Row, entries: list[Entry], facts: Facts,
                texts: Mapping[int, str | Said]) -> MoveView:
        """A move row as a view, in words (``texts``: the words of moves it may undo)."""
        kind = MoveKind(row["kind"])
        data = json.loads(row["data"])
        data.pop(REQUEST, None)  # the request's fingerprint: the journal's, never shown
        view = MoveView(row["id"], row["game_id"], row["at"], kind, row["player_id"],
                        data, row["note"], row["source"], bool(row["ends"]),
                        row["undoes"], row["undone_by"], tuple(entries))
        if kind is MoveKind.UNDO and row["undoes"] in texts:
            return replace(view, text=say("Undo: {move}", move=texts[row["undoes"]]))
        return replace(view, text=self.kinds.describe(view, facts))
