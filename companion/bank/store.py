"""The bank's SQLite file: schema, durable settings, and recovery from a broken file.

WAL mode with ``synchronous=FULL``: a commit that returned is on disk. The journal table is
append-only (triggers refuse UPDATE and DELETE). A file that fails ``PRAGMA integrity_check``,
or is not a database at all, is moved aside with a clear log line and a fresh one is started:
the daemon never crash-loops on a bad file.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import sqlite3
import time
from pathlib import Path

from companion.exc import Unavailable
from companion.i18n.said import Said, say

log = logging.getLogger(__name__)

SCHEMA_VERSION = 11
BUSY_TIMEOUT_S = 10.0
WAL_CHECKPOINT_BYTES = 128 * 1024
"""A write that leaves the write-ahead log larger than this copies it into the bank file and
empties it (a checkpoint that truncates: the card gets the space back at once)."""
WAL_LIMIT_BYTES = 256 * 1024
"""When that can't be done now, SQLite's own checkpoint comes at this size, and the log is cut
back to it."""

BASE_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    edition TEXT NOT NULL,
    created_at REAL NOT NULL,
    current_player INTEGER REFERENCES players(id),
    options TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    colour TEXT NOT NULL,
    card_uid TEXT,
    UNIQUE (game_id, seat)
);
CREATE TABLE IF NOT EXISTS outcomes (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    mode TEXT NOT NULL,
    kind TEXT NOT NULL,
    coins INTEGER NOT NULL CHECK (coins BETWEEN 0 AND 10000),
    rolls TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL,
    player_id INTEGER REFERENCES players(id),
    press_id TEXT UNIQUE
);
CREATE TABLE IF NOT EXISTS moves (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    player_id INTEGER REFERENCES players(id),
    data TEXT NOT NULL DEFAULT '{}',
    note TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    ends INTEGER NOT NULL DEFAULT 0 CHECK (ends IN (0, 1)),
    undoes INTEGER UNIQUE REFERENCES moves(id),
    request_id TEXT UNIQUE
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    payer INTEGER REFERENCES players(id),  -- NULL is the bank
    payee INTEGER REFERENCES players(id),  -- NULL is the bank
    amount INTEGER NOT NULL CHECK (amount BETWEEN 1 AND 10000),
    kind TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    outcome_id INTEGER REFERENCES outcomes(id),
    undoes INTEGER UNIQUE REFERENCES entries(id),
    move_id INTEGER NOT NULL REFERENCES moves(id),
    CHECK (payer IS NOT payee)
);
CREATE TABLE IF NOT EXISTS card_actions (
    uid TEXT PRIMARY KEY,
    action TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_game ON entries (game_id, id);
CREATE INDEX IF NOT EXISTS entries_by_move ON entries (move_id);
CREATE INDEX IF NOT EXISTS moves_by_game ON moves (game_id, id);
CREATE INDEX IF NOT EXISTS outcomes_by_game ON outcomes (game_id, id);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS moves_no_update BEFORE UPDATE ON moves
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS moves_no_delete BEFORE DELETE ON moves
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""
"""The journal's tables, triggers and first indexes, as a new file gets them (press ids
included: a new file is born at the latest schema)."""

FLAT_COST_INDEXES = """
CREATE INDEX IF NOT EXISTS entries_by_outcome ON entries (outcome_id) WHERE outcome_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS moves_by_kind ON moves (game_id, kind, id);
CREATE INDEX IF NOT EXISTS outcomes_unassigned ON outcomes (game_id, id) WHERE player_id IS NULL;
"""
"""Schema 4: they keep a write's cost flat however long the game: the state after a write finds
the outcome's entry, the facts (who is out, points, worms) and the unassigned outcomes without
reading the whole journal."""

TABLE_STATE = """
CREATE TABLE IF NOT EXISTS table_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    current_game INTEGER REFERENCES games(id),
    version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS player_links (
    player_id INTEGER PRIMARY KEY REFERENCES players(id),
    token_hash TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
"""
"""Schema 5: the game the table plays (an earlier one can be resumed; without a row: the
newest) with a version every write bumps, and each player's own phone link (a hash of its
token; deleting the row revokes it)."""

MOVIE_INDEXES = """
CREATE INDEX IF NOT EXISTS outcomes_by_kind ON outcomes (game_id, kind, id);
"""
"""Schema 6: the Movie's state finds the latest battle won without reading every outcome."""

BOARD = """
ALTER TABLE entries ADD COLUMN space TEXT;
CREATE INDEX IF NOT EXISTS entries_on_board ON entries (game_id, space) WHERE space IS NOT NULL;
CREATE TABLE IF NOT EXISTS board_piles (
    game_id INTEGER NOT NULL REFERENCES games(id),
    space TEXT NOT NULL,
    coins INTEGER NOT NULL CHECK (coins >= 0),
    since INTEGER NOT NULL,
    PRIMARY KEY (game_id, space)
);
"""
"""Schema 7: coins on the board (Gamer, Mario Kart): a line whose ``NULL`` side is the pile on
``space``, not the Bank; ``board_piles`` keeps each pile's sum as the lines are written (in
the same transaction), so reading the board never sums the game's lines."""

CONTESTS = """
ALTER TABLE players ADD COLUMN characters TEXT NOT NULL DEFAULT '[]';
CREATE TABLE IF NOT EXISTS contest_cards (
    edition TEXT NOT NULL,
    number INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (edition, number)
);
"""
"""Schema 8 (Gamer, Mario Kart): the characters each player picked, and the numbers printed on
each Boss and Grand Prix card as the table typed them, kept from one game to the next."""

SEATS = """
CREATE TABLE IF NOT EXISTS undo_requests (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    player_id INTEGER NOT NULL REFERENCES players(id),
    move_id INTEGER NOT NULL UNIQUE REFERENCES moves(id),
    at REAL NOT NULL,
    settled_at REAL,
    answer TEXT CHECK (answer IN ('keep'))
);
CREATE INDEX IF NOT EXISTS undo_requests_open ON undo_requests (game_id, id) WHERE answer IS NULL;
CREATE INDEX IF NOT EXISTS undo_requests_by_player ON undo_requests (player_id, id);
CREATE INDEX IF NOT EXISTS entries_by_payer ON entries (payer, move_id) WHERE payer IS NOT NULL;
CREATE INDEX IF NOT EXISTS entries_by_payee ON entries (payee, move_id) WHERE payee IS NOT NULL;
CREATE INDEX IF NOT EXISTS moves_by_player ON moves (player_id, kind, id)
    WHERE player_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS outcomes_coinless ON outcomes (player_id, id) WHERE coins = 0;
"""
"""Schema 9 (a player's phone is their own seat): a player's "that was a mistake" about their
own payment, kept until the banker keeps it (``answer``) or the payment is undone (read from
the journal: nothing here changes then); and the indexes that read one player's history a
page at a time however long the game: the lines they paid or were paid, their moves, their
outcomes that moved no coins."""

RINGS = """
CREATE TABLE IF NOT EXISTS board_rings (
    edition TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    at REAL NOT NULL
);
"""
"""Schema 10 (Gamer, Mario Kart): the board as the table described it (its spaces from GO, the
Power-up die's faces), one per edition, kept from one game to the next like the Boss cards."""

TURNS = """
CREATE INDEX IF NOT EXISTS outcomes_by_player ON outcomes (player_id, id)
    WHERE player_id IS NOT NULL;
"""
"""Schema 11 (who may act, and when): the index that finds whether the current player was given
a press this turn however long the game (the turn's moment, read with every state)."""

SCHEMA = (BASE_SCHEMA + FLAT_COST_INDEXES + TABLE_STATE + MOVIE_INDEXES + BOARD + CONTESTS
          + SEATS + RINGS + TURNS)
"""The whole schema, as a new file gets it."""

MIGRATIONS: dict[int, str] = {
    2: """
CREATE TABLE IF NOT EXISTS card_actions (
    uid TEXT PRIMARY KEY,
    action TEXT NOT NULL,
    at REAL NOT NULL
);
""",
    3: """
CREATE TABLE moves (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    player_id INTEGER REFERENCES players(id),
    data TEXT NOT NULL DEFAULT '{}',
    note TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    ends INTEGER NOT NULL DEFAULT 0 CHECK (ends IN (0, 1)),
    undoes INTEGER UNIQUE REFERENCES moves(id),
    request_id TEXT UNIQUE
);
-- Every schema-2 entry was its own move (a game's opening balances are one): the move keeps
-- the entry's id, so an undo's target (the entry it undid) is the target's move too, request
-- ids stay unique, and a retried request still finds what it asked for.
INSERT INTO moves (id, game_id, at, kind, player_id, data, note, source, undoes, request_id)
    SELECT id, game_id, at, kind,
           CASE kind WHEN 'transfer' THEN payer WHEN 'undo' THEN NULL
                ELSE COALESCE(payee, payer) END,
           CASE kind
                WHEN 'transfer' THEN json_object('payer', COALESCE(payer, 'bank'),
                                                 'payee', COALESCE(payee, 'bank'),
                                                 'note', note, 'asked', amount, 'message', '')
                WHEN 'pass_go' THEN json_object('player', payee, 'asked', amount,
                                                'message', '')
                ELSE '{}' END,
           note, source, undoes, request_id
    FROM entries WHERE kind != 'opening'
    UNION ALL
    SELECT MIN(id), game_id, MIN(at), 'opening', NULL, json_object('coins', MAX(amount)),
           'opening balances', 'new game', NULL, NULL
    FROM entries WHERE kind = 'opening' GROUP BY game_id
    ORDER BY 1;
CREATE TABLE entries_v3 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    payer INTEGER REFERENCES players(id),
    payee INTEGER REFERENCES players(id),
    amount INTEGER NOT NULL CHECK (amount BETWEEN 1 AND 10000),
    kind TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    outcome_id INTEGER REFERENCES outcomes(id),
    undoes INTEGER UNIQUE REFERENCES entries(id),
    move_id INTEGER NOT NULL REFERENCES moves(id),
    CHECK (payer IS NOT payee)
);
INSERT INTO entries_v3 (id, game_id, at, payer, payee, amount, kind, note, source, outcome_id,
                        undoes, move_id)
    SELECT id, game_id, at, payer, payee, amount, kind, note, source, outcome_id, undoes,
           CASE kind WHEN 'opening' THEN (SELECT MIN(o.id) FROM entries o WHERE
                                          o.game_id = entries.game_id AND o.kind = 'opening')
                ELSE id END
    FROM entries ORDER BY id;
DROP TABLE entries;
ALTER TABLE entries_v3 RENAME TO entries;
-- Schema 2 priced Bowser (5) and Game Over (10) when it banked them, and only in Celebration
-- (its preset; the other editions moved no coins on a press): the outcome now carries its price.
CREATE TABLE outcomes_v3 (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    mode TEXT NOT NULL,
    kind TEXT NOT NULL,
    coins INTEGER NOT NULL CHECK (coins BETWEEN 0 AND 10000),
    rolls TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL,
    player_id INTEGER REFERENCES players(id)
);
INSERT INTO outcomes_v3 (id, game_id, at, mode, kind, coins, rolls, source, player_id)
    SELECT o.id, o.game_id, o.at, 'question_block', o.kind,
           CASE WHEN g.edition != 'celebration' AND o.kind != 'coins' THEN 0
                WHEN o.kind = 'bowser' THEN 5 WHEN o.kind = 'game_over' THEN 10
                ELSE o.coins END,
           o.rolls, o.source, o.player_id
    FROM outcomes o JOIN games g ON g.id = o.game_id ORDER BY o.id;
DROP TABLE outcomes;
ALTER TABLE outcomes_v3 RENAME TO outcomes;
ALTER TABLE games ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
CREATE INDEX IF NOT EXISTS entries_by_game ON entries (game_id, id);
CREATE INDEX IF NOT EXISTS entries_by_move ON entries (move_id);
CREATE INDEX IF NOT EXISTS moves_by_game ON moves (game_id, id);
CREATE INDEX IF NOT EXISTS outcomes_by_game ON outcomes (game_id, id);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS moves_no_update BEFORE UPDATE ON moves
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS moves_no_delete BEFORE DELETE ON moves
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
""",
    # A press carries its own id, so an outcome held while the disk refused it (and kept in the
    # held-presses file) is banked once however often it is retried, across restarts too.
    4: """
ALTER TABLE outcomes ADD COLUMN press_id TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS outcomes_by_press ON outcomes (press_id);
""" + FLAT_COST_INDEXES,
    5: TABLE_STATE,
    6: MOVIE_INDEXES,
    7: BOARD,
    8: CONTESTS,
    9: SEATS,
    10: RINGS,
    11: TURNS,
}
"""Schema changes by the version they bring, applied in place to an older file (version 1 is
the first schema). A new file gets :data:`SCHEMA` whole."""


class BankUnavailable(Unavailable):
    """The bank file cannot be used now (locked, read-only folder, newer schema, I/O error).
    The file is left exactly as it is."""


class StorageError(BankUnavailable):
    """The disk refused a write (full, read-only, failing) or the file is locked: nothing was
    written, and the message says why in words a person at the table understands."""


class UnsureWrite(StorageError):
    """The disk failed while a write was being committed: it may or may not be in the file
    (SQLite promises no more). Reading the journal afterwards tells which."""

    saved = None


LOCKED = say("the bank file is locked by another program")
_PROBLEMS = (
    ("SQLITE_FULL", say("the SD card is full: free some space (the companion keeps trying)")),
    ("SQLITE_READONLY", say("the data folder is read-only: the companion can't write the bank")),
    ("SQLITE_IOERR", say("the SD card could not be written (an I/O error): it may be failing")),
    ("SQLITE_CANTOPEN", say("the bank file can't be opened (is the data folder there?)")),
    ("SQLITE_BUSY", LOCKED),
    ("SQLITE_LOCKED", LOCKED),
    ("SQLITE_PERM", say("the companion has no permission to write the bank file")),
)
_ERRNOS = {errno.ENOSPC: _PROBLEMS[0][1], errno.EDQUOT: _PROBLEMS[0][1],
           errno.EROFS: _PROBLEMS[1][1], errno.EACCES: _PROBLEMS[6][1],
           errno.EPERM: _PROBLEMS[6][1], errno.EIO: _PROBLEMS[2][1]}


def storage_problem(exc: BaseException) -> str | Said | None:
    """What a storage failure means, in words (None: not a storage failure)."""
    if isinstance(exc, StorageError):
        return exc.said
    if isinstance(exc, sqlite3.Error):
        name = getattr(exc, "sqlite_errorname", "") or ""
        for prefix, words in _PROBLEMS:
            if name.startswith(prefix):
                return words
        return None
    if isinstance(exc, OSError):
        return _ERRNOS.get(exc.errno or 0, say("the data folder can't be used: {why}",
                                               why=exc.strerror or ""))
    return None


def is_locked(path: Path) -> bool:
    """Whether another connection holds the bank's write lock now (asked without waiting)."""
    if not path.exists():
        return False
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("ROLLBACK")
        finally:
            db.close()
    except sqlite3.Error as exc:
        return str(getattr(exc, "sqlite_errorname", "")).startswith(("SQLITE_BUSY",
                                                                      "SQLITE_LOCKED"))
    return False


def folder_problem(folder: Path) -> Said | None:
    """Why the data folder can't take writes, if it can't (read-only, not ours, full)."""
    try:
        stats = os.statvfs(folder)
    except OSError as exc:
        return say("the data folder {folder} can't be used: {why}", folder=str(folder),
                   why=exc.strerror or "")
    if stats.f_flag & os.ST_RDONLY:
        return say("the data folder {folder} is read-only (a failing SD card is often "
                   "remounted read-only)", folder=str(folder))
    if not os.access(folder, os.W_OK):
        return say("the companion may not write to the data folder {folder} (permissions)",
                   folder=str(folder))
    if stats.f_bavail == 0:
        return _PROBLEMS[0][1]
    return None


class BrokenBankFile(sqlite3.DatabaseError):
    """The file is damaged or not a database: it is moved aside."""


_BROKEN = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def _is_broken(exc: sqlite3.Error) -> bool:
    return isinstance(exc, BrokenBankFile) or getattr(exc, "sqlite_errorname", "") in _BROKEN


def connect(path: Path) -> sqlite3.Connection:
    """A connection with the durable settings; autocommit mode, explicit transactions."""
    db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
    try:
        db.row_factory = sqlite3.Row
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:  # SQLite does not use the busy handler for a journal-mode change
            try:
                mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorname != "SQLITE_BUSY" or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)
        if mode != "wal":
            raise BankUnavailable(say("cannot switch {path} to WAL mode (got {mode})",
                                      path=str(path), mode=str(mode)))
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        # The WAL is bounded (SQLite's own checkpoint comes at 4 MB: more than a small card
        # has free): shrink_wal after each write empties it past WAL_CHECKPOINT_BYTES; these
        # are the backstop when it can't (a reader in another process holds it).
        page = db.execute("PRAGMA page_size").fetchone()[0]
        db.execute(f"PRAGMA wal_autocheckpoint={max(1, WAL_LIMIT_BYTES // page)}")
        db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
    except BaseException:
        db.close()
        raise
    return db


def shrink_wal(db: sqlite3.Connection, path: Path) -> None:
    """After a write: a write-ahead log past WAL_CHECKPOINT_BYTES is copied into the bank and
    truncated to nothing. Never waits: a reader or writer in another process makes it wait for
    a later write. A checkpoint the disk refuses (full) leaves the log as it is, whole."""
    try:
        if os.stat(f"{path}-wal").st_size <= WAL_CHECKPOINT_BYTES:
            return
    except OSError:
        return
    try:
        db.execute("PRAGMA busy_timeout=0")
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    except sqlite3.Error as exc:
        log.debug("bank %s: the WAL could not be emptied now: %s", path, exc)


def _check_and_migrate(db: sqlite3.Connection, path: Path) -> None:
    result = [row[0] for row in db.execute("PRAGMA integrity_check")]
    if result != ["ok"]:
        raise BrokenBankFile("integrity_check: " + "; ".join(result[:3]))
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise BankUnavailable(say("{path} was written by a newer companion (schema {version}); "
                                  "upgrade this one or point [data] dir elsewhere",
                                  path=str(path), version=version))
    if version == SCHEMA_VERSION:
        return  # nothing to write: opening never takes the write lock
    # A new or older file. Take the write lock and look again: another process may be creating
    # or upgrading it now. Tables are rebuilt with their references switched off (SQLite's own
    # recipe; the pragma has no effect inside a transaction) and checked before COMMIT.
    db.execute("PRAGMA foreign_keys=OFF")
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            if db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]:
                raise BrokenBankFile("a database, but not a companion bank (foreign tables)")
            for statement in _statements(SCHEMA):
                db.execute(statement)
        elif version < SCHEMA_VERSION:
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _statements(MIGRATIONS[step]):
                    db.execute(statement)
            broken = db.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise BrokenBankFile(f"upgrading left {len(broken)} broken references")
            log.info("bank %s upgraded from schema %d to %d", path, version, SCHEMA_VERSION)
        elif version > SCHEMA_VERSION:
            raise BankUnavailable(say("{path} was written by a newer companion (schema "
                                      "{version})", path=str(path), version=version))
        if version < SCHEMA_VERSION:
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    finally:
        db.execute("PRAGMA foreign_keys=ON")


def _statements(script: str) -> list[str]:
    """Split a schema script into statements (triggers hold ';' inside BEGIN ... END)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements


def _move_aside(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if part.exists():
            part.rename(Path(f"{target}{suffix}"))
    return target


class OpenFolder(OSError):
    """The data folder is open to other users and cannot be closed up (not ours)."""


def make_data_dir(folder: Path) -> None:
    """Make the data folder (and its parents) for the companion's user alone (0700), whatever
    the umask: it holds the bank and the table token. One that is already there open to
    others (an older companion's, made by hand under umask 022: 0755) is closed up to 0700;
    one that is not ours to close up is :class:`OpenFolder`, saying why."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    found = folder.stat()
    if not found.st_mode & 0o077:
        return
    was = oct(found.st_mode & 0o777)[2:]
    if found.st_uid != os.geteuid():
        raise OpenFolder(f"the data folder {folder} is open to other users ({was}) and is not "
                         "this user's to close up: chmod 700 it, or set [data] dir to a "
                         "folder of the companion's own")
    try:
        folder.chmod(0o700)
    except OSError as exc:  # a read-only card: the bank says what is wrong with it
        if folder not in _UNCLOSED:
            _UNCLOSED.add(folder)
            log.warning("the data folder %s is open to other users (%s) and can't be made "
                        "0700 now: %s", folder, was, exc.strerror or exc)
        return
    log.warning("the data folder %s was open to other users (%s): made it 0700 (the bank "
                "and the table token are for the companion alone)", folder, was)


_UNCLOSED: set[Path] = set()
"""Data folders said to be open and not closable (read-only): said once, not at each retry."""


def _private(path: Path) -> None:
    """The bank file for its user alone (0600), made so before SQLite makes it (SQLite's own
    default is 0644 under the usual umask): its -wal and -shm take the file's mode. A file
    left readable to others by an older companion is closed up."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):  # not ours, or gone: leave it
                part = Path(f"{path}{suffix}")
                if part.stat().st_mode & 0o077:
                    part.chmod(0o600)
    except OSError:  # a folder that takes no file: SQLite says why, as before
        pass


def open_database(path: Path) -> sqlite3.Connection:
    """Open (or create) the bank file; a broken one is moved aside and replaced."""
    try:
        make_data_dir(path.parent)
        _private(path)
    except OSError as exc:
        raise BankUnavailable(say("cannot create the data folder {path}: {error}",
                                  path=str(path.parent), error=str(exc))) from exc
    db: sqlite3.Connection | None = None
    try:
        db = connect(path)
        _check_and_migrate(db, path)
        return db
    except BankUnavailable:
        if db is not None:
            db.close()
        raise
    except sqlite3.Error as exc:
        if db is not None:
            db.close()
        if not _is_broken(exc):  # locked, busy, I/O error ...: never touch the file
            raise StorageError(folder_problem(path.parent) or storage_problem(exc)
                               or say("cannot open {path}: {error}", path=str(path),
                                      error=str(exc))) from exc
        try:
            moved = _move_aside(path)
        except OSError as move_exc:
            raise BankUnavailable(say("{path} is unreadable ({error}) and cannot be moved "
                                      "aside ({problem})", path=str(path), error=str(exc),
                                      problem=str(move_exc))) from exc
        log.error("bank file %s is unreadable (%s); moved it to %s and started a fresh bank",
                  path, exc, moved)
    try:
        _private(path)
        db = connect(path)
        _check_and_migrate(db, path)
    except sqlite3.Error as exc:
        raise BankUnavailable(say("cannot start a fresh bank at {path}: {error}", path=str(path),
                                  error=str(exc))) from exc
    return db


def open_readonly(path: Path) -> sqlite3.Connection:
    """Open an existing bank for reading only (export, tools): never creates, migrates or
    moves anything. A file from an older companion is read through an upgraded copy in
    memory; the file itself stays as it is."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                             isolation_level=None, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise BankUnavailable(say("cannot open {path}: {error}", path=str(path),
                                  error=str(exc))) from exc
    db.row_factory = sqlite3.Row
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if not 1 <= version <= SCHEMA_VERSION:
            raise BankUnavailable(say("{path} is not a companion bank (schema {version})",
                                      path=str(path), version=version))
        db.execute("SELECT COUNT(*) FROM games").fetchone()
        if version < SCHEMA_VERSION:
            copy = sqlite3.connect(":memory:", isolation_level=None)
            copy.row_factory = sqlite3.Row
            db.backup(copy)
            db.close()
            db = copy
            _check_and_migrate(db, path)
    except sqlite3.Error as exc:
        db.close()
        raise BankUnavailable(say("cannot read {path}: {error}", path=str(path),
                                  error=str(exc))) from exc
    except BankUnavailable:
        db.close()
        raise
    return db
