"""The bank's SQLite file: schema, durable settings, and recovery from a broken file.

WAL mode with ``synchronous=FULL``: a commit that returned is on disk. The journal table is
append-only (triggers refuse UPDATE and DELETE). A file that fails ``PRAGMA integrity_check``,
or is not a database at all, is moved aside with a clear log line and a fresh one is started:
the daemon never crash-loops on a bad file.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 10.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    edition TEXT NOT NULL,
    created_at REAL NOT NULL,
    current_player INTEGER REFERENCES players(id)
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
    kind TEXT NOT NULL CHECK (kind IN ('coins', 'bowser', 'power_up', 'game_over')),
    coins INTEGER NOT NULL CHECK (coins BETWEEN 0 AND 6),
    rolls TEXT NOT NULL,
    source TEXT NOT NULL,
    player_id INTEGER REFERENCES players(id)
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    payer INTEGER REFERENCES players(id),  -- NULL is the bank
    payee INTEGER REFERENCES players(id),  -- NULL is the bank
    amount INTEGER NOT NULL CHECK (amount BETWEEN 1 AND 10000),
    kind TEXT NOT NULL CHECK (kind IN ('opening', 'block', 'pass_go', 'transfer', 'undo')),
    note TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    outcome_id INTEGER REFERENCES outcomes(id),
    undoes INTEGER UNIQUE REFERENCES entries(id),
    request_id TEXT UNIQUE,
    CHECK (payer IS NOT payee)
);
CREATE INDEX IF NOT EXISTS entries_by_game ON entries (game_id, id);
CREATE INDEX IF NOT EXISTS outcomes_by_game ON outcomes (game_id, id);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""


class BankUnavailable(RuntimeError):
    """The bank file can neither be opened nor replaced (e.g. the data folder is read-only)."""


def connect(path: Path) -> sqlite3.Connection:
    """A connection with the durable settings; autocommit mode, explicit transactions."""
    db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
    db.row_factory = sqlite3.Row
    mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if mode != "wal":
        raise sqlite3.DatabaseError(f"cannot switch to WAL mode (got {mode})")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


def _check_and_migrate(db: sqlite3.Connection) -> None:
    result = [row[0] for row in db.execute("PRAGMA integrity_check")]
    if result != ["ok"]:
        raise sqlite3.DatabaseError("integrity_check: " + "; ".join(result[:3]))
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise sqlite3.DatabaseError(f"made by a newer companion (schema {version})")
    db.executescript(SCHEMA)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


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


def open_database(path: Path) -> sqlite3.Connection:
    """Open (or create) the bank file; a broken one is moved aside and replaced."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BankUnavailable(f"cannot create the data folder {path.parent}: {exc}") from exc
    db: sqlite3.Connection | None = None
    try:
        db = connect(path)
        _check_and_migrate(db)
        return db
    except sqlite3.DatabaseError as exc:
        if db is not None:
            db.close()
        if isinstance(exc, sqlite3.OperationalError) and "unable to open" in str(exc):
            raise BankUnavailable(f"cannot open {path}: {exc}") from exc
        try:
            moved = _move_aside(path)
        except OSError as move_exc:
            raise BankUnavailable(f"{path} is unreadable ({exc}) and cannot be moved aside "
                                  f"({move_exc})") from exc
        log.error("bank file %s is unreadable (%s); moved it to %s and started a fresh bank",
                  path, exc, moved)
    try:
        db = connect(path)
        _check_and_migrate(db)
    except sqlite3.DatabaseError as exc:
        raise BankUnavailable(f"cannot start a fresh bank at {path}: {exc}") from exc
    return db
