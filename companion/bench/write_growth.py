"""Child process of ``companion bench``: does a write cost more as the game grows?

``--writes`` transfers (100000 by default) through the path a tablet write takes: the transfer
through :class:`companion.bank.Bank`, then the state the service reads after every write
(``TableService._write``), timed together, in one game in a file on the data folder's disk,
after ``--warmup`` untimed writes in another game of the same file (the process, the file and
its WAL warmed up: the first 1000 writes then measure a short game, not a cold start). Prints
JSON: ``write_cost_growth`` (p99 of the last 1000 writes over p99 of the first 1000) and
``journal_page_bytes`` (a page of the tablet's journal against the whole journal the page used
to read after every change, at 20000 moves).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.app import commands as c
from companion.app.service import _journal
from companion.bank import Bank
from companion.bench.stats import percentile
from companion.core.ledger import BANK

WINDOW = 1000
PAGE_AT = 20_000
"""Moves in the game when the journal's sizes are taken."""


def _journal_sizes(bank: Bank, moves: int) -> dict[str, Any]:
    """``GET /api/journal?limit=100`` against ``GET /api/journal`` (the whole game), as the
    API answers them (the same code, as JSON)."""
    sizes: dict[str, Any] = {"moves": moves}
    for name, query in (("page", c.GetJournal(limit=100)), ("whole", c.GetJournal())):
        start = time.perf_counter()
        body = json.dumps({"game": None, **_journal(bank, query)})
        sizes[f"{name}_ms"] = round((time.perf_counter() - start) * 1000, 2)
        sizes[f"{name}_bytes"] = len(body.encode())
    sizes["ratio"] = round(sizes["whole_bytes"] / sizes["page_bytes"], 1)
    return sizes


def measure(data_dir: Path, writes: int, warmup: int = 1000) -> dict[str, Any]:
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        bank = Bank(folder / "bank.sqlite3")
        bank.new_game("celebration", ["Warm", "Up"])
        warm, up = (p.id for p in bank.players())
        for i in range(warmup):
            bank.transfer(warm, up, 1 + i % 7, note="warm-up", source="bench")
            bank.state()
        began = time.perf_counter()
        bank.new_game("celebration", ["Mario", "Luigi", "Peach", "Yoshi"])
        ids = [p.id for p in bank.players()]
        parties = [*ids, BANK]
        samples: list[float] = []
        sizes: dict[str, Any] | None = None
        for i in range(writes):
            payer = parties[i % 5]
            payee = parties[(i + 1 + i // 5) % 5]
            if payee == payer:
                payee = parties[(i + 2) % 5]
            start = time.perf_counter()
            bank.transfer(payer, payee, 1 + i % 7, note="rent", source="bench")
            bank.state()
            samples.append((time.perf_counter() - start) * 1000)
            if i + 2 == PAGE_AT:  # the opening and PAGE_AT - 1 transfers
                aside = time.perf_counter()
                sizes = _journal_sizes(bank, PAGE_AT)
                began += time.perf_counter() - aside  # not a write's time
        seconds = time.perf_counter() - began
        if sizes is None:
            sizes = _journal_sizes(bank, writes + 1)
        checked = bank.check_balances()
        bank.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    window = min(WINDOW, max(1, writes // 2))
    first, last = sorted(samples[:window]), sorted(samples[-window:])
    p99_first, p99_last = percentile(first, 0.99), percentile(last, 0.99)
    return {
        "write_cost_growth": {
            "writes": writes, "window": window, "warmup": warmup,
            "first_1000_p99_ms": round(p99_first, 3), "last_1000_p99_ms": round(p99_last, 3),
            "ratio": round(p99_last / p99_first, 2),
            "p50_first": round(percentile(first, 0.5), 3),
            "p50_last": round(percentile(last, 0.5), 3),
            "seconds": round(seconds, 1),
            "balances_checked": checked, "disk": str(data_dir)},
        "journal_page_bytes": sizes,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=100_000)
    parser.add_argument("--warmup", type=int, default=1000)
    parser.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args()
    print(json.dumps(measure(args.dir, args.writes, args.warmup)))


if __name__ == "__main__":
    main()
