"""A write's cost does not grow with the game: balances kept in memory (and checked against the
full sum), every query of the write path and of the state on an index, and the work SQLite does
for a write the same in a short game and a long one."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest

from companion.bank import Bank
from companion.bank import journal as bank_module
from companion.core.ledger import BANK, balances
from companion.core.outcomes import Kind, Outcome


def long_game(path: Path, moves: int) -> Path:
    """A Celebration game of ``moves`` transfers (written in bulk, then the file is closed)."""
    bank = Bank(path)
    gid = bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
    ids = [p.id for p in bank.players()]
    bank.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    first = 1 + db.execute("SELECT MAX(id) FROM moves").fetchone()[0]
    rows = [(first + i, ids[i % 3], ids[(i + 1) % 3], 1 + i % 5) for i in range(moves)]
    db.executemany("INSERT INTO moves (id, game_id, at, kind, player_id, note) VALUES"
                   " (?, ?, ?, 'transfer', ?, 'rent')", [(m, gid, 1.0 + m, a)
                                                          for m, a, _, _ in rows])
    db.executemany("INSERT INTO entries (game_id, at, payer, payee, amount, kind, note, move_id)"
                   " VALUES (?, ?, ?, ?, ?, 'transfer', 'rent', ?)",
                   [(gid, 1.0 + m, a, b, n, m) for m, a, b, n in rows])
    db.execute("COMMIT")
    db.close()
    return path


def opcodes(bank: Bank, work: Callable[[], Any]) -> int:
    """How many SQLite virtual-machine steps ``work`` takes (the work done, not the time)."""
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        return 0

    bank.db.set_progress_handler(tick, 1)
    try:
        work()
    finally:
        bank.db.set_progress_handler(None, 1)
    return count


def ids(bank: Bank) -> list[int]:
    return [p.id for p in bank.players()]


def test_the_balances_kept_are_the_full_sum(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
    mario, luigi, peach = ids(bank)
    bank.transfer(mario, luigi, 7)
    bank.record_outcome(Outcome(Kind.GAME_OVER, 10, (6,)))
    bank.pass_go(peach)
    bank.undo()
    bank.bankruptcy(luigi, peach)
    assert bank.balances() == bank.summed_balances() == balances(bank.journal(), ids(bank))
    assert bank.check_balances()
    bank.close()


def test_a_write_that_fails_after_its_entry_changes_no_balance(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi"])
    mario, luigi = ids(bank)
    before = bank.balances()
    written = bank.add_entry

    def then_fail(*args: Any, **kwargs: Any) -> Any:
        written(*args, **kwargs)
        raise OSError("the SD card went away")

    with patch.object(bank, "add_entry", then_fail), pytest.raises(OSError):
        bank.transfer(mario, luigi, 5)
    assert bank.balances() == before == bank.summed_balances()
    bank.transfer(mario, luigi, 5)
    assert bank.balances() == {mario: 25, luigi: 35} == bank.summed_balances()
    bank.close()


def test_a_commit_that_fails_forgets_the_balances_kept(tmp_path: Path) -> None:
    """COMMIT refused (here a deferred reference check): nothing is written, and the balances
    are read again from the file."""
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi"])
    mario, luigi = ids(bank)
    written = bank.add_entry

    def broken_reference(db: sqlite3.Connection, *args: Any, **kwargs: Any) -> Any:
        db.execute("PRAGMA defer_foreign_keys = ON")
        db.execute("UPDATE games SET current_player = 999999")  # checked only at COMMIT
        return written(db, *args, **kwargs)

    with patch.object(bank, "add_entry", broken_reference), \
            pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        bank.transfer(mario, luigi, 5)
    assert bank._money == {}
    assert bank.balances() == {mario: 30, luigi: 30} == bank.summed_balances()
    bank.close()


def test_another_connection_s_writes_are_seen(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite3"
    bank = Bank(path)
    bank.new_game("celebration", ["Mario", "Luigi"])
    mario, luigi = ids(bank)
    assert bank.balances() == {mario: 30, luigi: 30}
    tool = Bank(path)  # e.g. a companion CLI subcommand on the same file
    tool.transfer(mario, luigi, 4)
    tool.close()
    assert bank.balances() == {mario: 26, luigi: 34}
    bank.transfer(luigi, BANK, 1)  # a write after it starts from the file, not the memory
    assert bank.balances() == {mario: 26, luigi: 33} == bank.summed_balances()
    bank.close()


def test_a_difference_is_logged_and_the_sum_trusted(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "bank.sqlite3"
    bank = Bank(path)
    gid = bank.new_game("celebration", ["Mario", "Luigi"])
    mario, luigi = ids(bank)
    bank.transfer(mario, luigi, 3)
    bank.close()
    with caplog.at_level(logging.ERROR):
        # At opening: the journal replayed through the write's rule against SQLite's sum.
        with patch.object(bank_module, "_credit", lambda money, *_: None):
            opened = Bank(path)
        assert "are not the sum of the journal" in caplog.text
        assert opened.balances() == {mario: 27, luigi: 33}
        caplog.clear()
        assert opened.check_balances()
        opened._money[gid][mario] += 1  # as if a write had been counted wrong
        assert not opened.check_balances()
        assert "are not the sum of the journal" in caplog.text
        assert opened.balances() == {mario: 27, luigi: 33}
    opened.close()


# -- the cost of a write -----------------------------------------------------------------------


def statements(bank: Bank, work: Callable[[], Any]) -> list[str]:
    seen: list[str] = []
    bank.db.set_trace_callback(seen.append)
    try:
        work()
    finally:
        bank.db.set_trace_callback(None)
    return [sql for sql in dict.fromkeys(seen)
            if sql.split()[0].upper() in ("SELECT", "UPDATE", "DELETE")]


def test_every_query_of_a_write_and_the_state_is_on_an_index(tmp_path: Path) -> None:
    bank = Bank(long_game(tmp_path / "bank.sqlite3", 500))
    mario, luigi, _ = ids(bank)
    bank.record_outcome(Outcome(Kind.COINS, coins=3))
    bank.set_jail(luigi, True)  # the fee is a way out of Jail
    for work in (lambda: bank.transfer(mario, luigi, 2), bank.undo,
                 lambda: bank.record_outcome(Outcome(Kind.COINS, coins=3)),
                 lambda: bank.pass_go(mario), lambda: bank.jail(luigi), bank.state):
        for sql in statements(bank, work):
            plan = [row[3] for row in bank.db.execute("EXPLAIN QUERY PLAN " + sql)]
            scans = [step for step in plan if step.startswith("SCAN")]
            assert not scans, (sql, plan)
            if "kind IN ('bankruptcy'" in sql:  # the facts: by kind, not every move
                assert any("moves_by_kind" in step for step in plan), plan
            assert "SUM(" not in sql  # balances come from memory
    bank.close()


@pytest.mark.parametrize("work", ["transfer", "undo", "outcome"])
def test_a_write_and_its_state_cost_the_same_in_a_long_game(tmp_path: Path, work: str) -> None:
    def write(bank: Bank) -> object:
        mario, luigi, _ = ids(bank)
        if work == "transfer":
            return bank.transfer(mario, luigi, 2)
        if work == "undo":
            return bank.undo()
        return bank.record_outcome(Outcome(Kind.COINS, coins=3))

    costs = []
    for moves in (100, 5000):
        bank = Bank(long_game(tmp_path / f"bank-{moves}.sqlite3", moves))
        write(bank)  # a first one of its kind
        costs.append(opcodes(bank, lambda b=bank: (write(b), b.state())))
        bank.close()
    short, long = costs
    assert long <= short * 1.05, costs


def test_a_run_of_undos_costs_the_same_for_each(tmp_path: Path) -> None:
    bank = Bank(long_game(tmp_path / "bank.sqlite3", 200))
    costs = [opcodes(bank, bank.undo) for _ in range(60)]
    assert max(costs) <= costs[0] * 1.05, costs
    mario, luigi, _ = ids(bank)
    for _ in range(30):  # do, undo, do, undo ...: the walk back jumps over each pair
        bank.transfer(mario, luigi, 1)
        bank.undo()
    assert opcodes(bank, bank.undo) <= costs[0] * 1.05 + 30 * 50  # a small step per pair
    bank.close()
