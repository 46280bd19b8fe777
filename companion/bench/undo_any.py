"""Undo of an older move for ``companion bench``: the check a history line makes before it offers
Undo (``GET /api/moves/{id}/undo``), for a move far back in a long game, against a floor: the
bare SQLite read of the same moves and entries after it, interleaved in the same run."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bank import Bank
from companion.bench.stats import summary
from companion.core.ledger import BANK

FLOOR_SQL = ("SELECT m.*, e.payer, e.payee, e.amount, e.space FROM moves m"
             " LEFT JOIN entries e ON e.move_id = m.id WHERE m.game_id = ? AND m.id > ?"
             " ORDER BY m.id")
"""The floor: every move after the one asked about, with its coins (what any check must read)."""


def undo_check_ms(data_dir: Path, moves: int = 2_000, back: int = 1_000,
                  rounds: int = 40) -> dict[str, Any]:
    """A game of ``moves`` fixed payments; the check for the payment ``back`` moves from the
    end, and the floor's read of the moves after it, in turn, ``rounds`` times each."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        bank = Bank(folder / "bank.sqlite3")
        gid = bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
        ids = [p.id for p in bank.players()]
        made = []
        for i in range(moves):
            paid = bank.transfer(ids[i % 3], ids[(i + 1) % 3] if i % 5 else BANK, 1 + i % 4,
                                 note="bench")
            assert paid.entry is not None and paid.entry.move_id is not None
            made.append(paid.entry.move_id)
        target = made[-back]
        check: list[float] = []
        floor: list[float] = []
        for i in range(rounds + rounds // 4):  # the first quarter warms the caches
            start = time.perf_counter()
            found = bank.check_undo(target)
            took = (time.perf_counter() - start) * 1000
            assert found.undoable, found  # fixed payments: nothing after it depends on it
            start = time.perf_counter()
            bank.db.execute(FLOOR_SQL, (gid, target)).fetchall()
            bare = (time.perf_counter() - start) * 1000
            if i >= rounds // 4:
                check.append(took)
                floor.append(bare)
        bank.close()
        ours, base = summary(check, rounds), summary(floor, rounds)
        return {"moves": moves, "back": back, "check": ours, "floor": base,
                "ratio_p50": round(ours["p50"] / base["p50"], 2) if base["p50"] else None}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
