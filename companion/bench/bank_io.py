"""Bank figures for ``companion bench``: acknowledged write latency, moves against the bare
library, and loading a long game."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bank import Bank
from companion.bank.gate import perform
from companion.bank.moves import ACTIONS
from companion.core.ledger import BANK


def _percentiles(samples: list[float]) -> dict[str, Any]:
    samples = sorted(samples)

    def at(q: float) -> float:
        return round(samples[min(len(samples) - 1, round(q * (len(samples) - 1)))], 3)

    return {"n": len(samples), "p50": at(0.5), "p99": at(0.99), "max": round(samples[-1], 3)}


def interleaved_state_reads(banks: dict[str, Bank], reads: int) -> dict[str, Any]:
    """Each bank's ``state()`` read ``reads`` times, the banks in turn (interleaved, so a
    noisy machine slows them alike); the first quarter more warms the caches. Closes them."""
    times: dict[str, list[float]] = {name: [] for name in banks}
    for i in range(reads + reads // 4):
        for name, bank in banks.items():
            start = time.perf_counter()
            bank.state()
            if i >= reads // 4:
                times[name].append((time.perf_counter() - start) * 1000)
    for bank in banks.values():
        bank.close()
    return {name: _percentiles(samples) for name, samples in times.items()}


def write_latency_ms(data_dir: Path, writes: int = 300) -> dict[str, Any]:
    """Transfer -> COMMIT returned (WAL, synchronous=FULL), on the data folder's own disk."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        bank = Bank(folder / "bank.sqlite3")
        bank.new_game("celebration", ["Mario", "Luigi"])
        mario, luigi = (p.id for p in bank.players())
        samples = []
        for i in range(writes):
            payer, payee = (mario, luigi) if i % 2 else (BANK, mario)
            start = time.perf_counter()
            bank.transfer(payer, payee, 1 + i % 7, note="bench")
            samples.append((time.perf_counter() - start) * 1000)
        bank.close()
        return {**_percentiles(samples), "disk": str(data_dir)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def load_game_ms(data_dir: Path, entries: int = 10_000) -> dict[str, Any]:
    """Open the file (integrity check included), then the state and the whole journal, for a
    game of ``entries`` journal lines; then the same game's moves in words, against a floor."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        path = folder / "bank.sqlite3"
        bank = Bank(path)
        gid = bank.new_game("celebration", ["Mario", "Luigi", "Peach", "Yoshi"])
        ids = [p.id for p in bank.players()]
        db = bank.db  # bulk set-up in one transaction; only the load below is timed
        db.execute("BEGIN")
        first = 1 + db.execute("SELECT MAX(id) FROM moves").fetchone()[0]
        rows = [(first + i, gid, 1.0 + i, ids[i % 4], ids[(i + 1) % 4], 1 + i % 9)
                for i in range(entries - len(ids))]
        db.executemany("INSERT INTO moves (id, game_id, at, kind, player_id, note, source)"
                       " VALUES (?, ?, ?, 'transfer', ?, 'rent', 'bench')",
                       [(m, g, at, payer) for m, g, at, payer, _, _ in rows])
        db.executemany(
            "INSERT INTO entries (game_id, at, payer, payee, amount, kind, note, source,"
            " move_id) VALUES (?, ?, ?, ?, ?, 'transfer', 'rent', 'bench', ?)",
            [(g, at, payer, payee, amount, m) for m, g, at, payer, payee, amount in rows])
        db.execute("COMMIT")
        bank.close()
        start = time.perf_counter()
        bank = Bank(path)
        state = bank.state()
        journal = bank.journal_json()
        elapsed = (time.perf_counter() - start) * 1000
        assert len(journal) == entries and len(state.players) == 4
        moves = _moves_vs_rows(bank, path, gid, entries)
        bank.close()
        return {"entries": entries, "ms": round(elapsed, 1), "moves_in_words": moves}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _moves_vs_rows(bank: Bank, path: Path, gid: int, entries: int,
                   rounds: int = 7) -> dict[str, Any]:
    """The whole journal as moves (every move in words, with its entries: what the export,
    and before paging the tablet after every change, reads) against the bare library fetching
    the same rows, interleaved; p50 ms and ratio."""
    bare = sqlite3.connect(path)
    times: dict[str, list[float]] = {"rows": [], "moves": []}
    try:
        for _ in range(rounds):
            start = time.perf_counter()
            rows = [bare.execute(f"SELECT * FROM {table} WHERE game_id = ?", (gid,)).fetchall()
                    for table in ("moves", "entries")]
            times["rows"].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            moves = bank.moves(gid)
            times["moves"].append((time.perf_counter() - start) * 1000)
            assert len(moves) == len(rows[0]) and len(rows[1]) == entries
    finally:
        bare.close()
    p50 = {name: _percentiles(values)["p50"] for name, values in times.items()}
    return {"moves": len(moves), "rows_p50": p50["rows"], "moves_p50": p50["moves"],
            "ratio_p50": round(p50["moves"] / p50["rows"], 2)}


FLOOR_SCHEMA = ("CREATE TABLE entries (id INTEGER PRIMARY KEY, game INTEGER, at REAL, payer"
                " INTEGER, payee INTEGER, amount INTEGER, note TEXT)")


def _floor(db: sqlite3.Connection, i: int) -> float:
    """The bare library doing a bank write's job: one row, committed (WAL, synchronous=FULL)."""
    start = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO entries (game, at, payer, payee, amount, note) VALUES (?, ?, ?, ?,"
               " ?, ?)", (1, time.time(), 1, 2, 1 + i % 7, "bench"))
    db.execute("COMMIT")
    return (time.perf_counter() - start) * 1000


def moves_vs_sqlite(data_dir: Path, rounds: int = 100) -> dict[str, Any]:
    """Kinds of bank move, each against the bare floor in the same run, interleaved: a
    transfer, a bankruptcy, and the bankruptcy that ends a game (the winner and the standings
    worked out and recorded); a transfer and pass GO straight to the bank and through the gate
    every request passes (:func:`companion.bank.gate.perform`). Times are until COMMIT
    returned; ratios are move / floor at p50, and the gate's gated / straight."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        bank = Bank(folder / "bank.sqlite3")
        bare = sqlite3.connect(folder / "floor.sqlite3", isolation_level=None)
        bare.execute("PRAGMA journal_mode=WAL")
        bare.execute("PRAGMA synchronous=FULL")
        bare.execute(FLOOR_SCHEMA)
        times: dict[str, list[float]] = {"floor": [], "transfer": [], "bankruptcy": [],
                                         "game_end": [], "transfer_gated": [],
                                         "pass_go": [], "pass_go_gated": []}
        for i in range(rounds):
            bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
            mario, luigi, peach = (p.id for p in bank.players())
            moves = (("transfer", bank.transfer, (mario, luigi, 3)),
                     ("transfer_gated", perform, (bank, ACTIONS["transfer"], {
                         "from": mario, "to": luigi, "amount": 3})),
                     ("pass_go", bank.pass_go, (mario,)),
                     ("pass_go_gated", perform, (bank, ACTIONS["pass_go"], {"player": mario})),
                     ("bankruptcy", bank.bankruptcy, (mario, luigi)),
                     ("game_end", bank.bankruptcy, (luigi, peach)))
            for name, move, args in moves:
                times["floor"].append(_floor(bare, i))
                start = time.perf_counter()
                move(*args)
                times[name].append((time.perf_counter() - start) * 1000)
            assert bank.state().ended
        bank.close()
        bare.close()
        result: dict[str, Any] = {name: _percentiles(values) for name, values in times.items()}
        floor = result["floor"]["p50"]
        result["ratio_p50"] = {name: round(result[name]["p50"] / floor, 2)
                               for name in ("transfer", "bankruptcy", "game_end",
                                            "transfer_gated", "pass_go", "pass_go_gated")}
        # The gate (the fields, who may make it and when, one transaction) against the bare
        # write it guards: a payment (any time: no turn read) and pass GO (the current
        # player's, in their turn: the turn read from the journal).
        result["gate_ratio_p50"] = {
            "transfer": round(result["transfer_gated"]["p50"] / result["transfer"]["p50"], 2),
            "pass_go": round(result["pass_go_gated"]["p50"] / result["pass_go"]["p50"], 2)}
        result["disk"] = str(data_dir)
        return result
    finally:
        shutil.rmtree(folder, ignore_errors=True)
