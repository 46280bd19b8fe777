"""Heavy reads (the whole journal, the games list) on a thread and connection of their own.

The writer thread (:class:`companion.bank.service.BankService`) banks every press and write
in order; a read queued behind it would wait for them, and a long one (a whole journal of
thousands of moves) would hold up every write after it. SQLite's WAL mode lets a second
connection read one consistent snapshot while the writer writes, so reads go here: they
never delay a write, and a write never waits for them. The connection is read-only
(:func:`companion.bank.store.open_readonly`): it never creates, migrates or writes.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from companion.bank.bank import Bank
from companion.bank.store import BankUnavailable, StorageError, storage_problem
from companion.core.editions import Editions

log = logging.getLogger(__name__)
T = TypeVar("T")


class NotUpgraded(BankUnavailable):
    """The file is older than this companion (the writer upgrades it when it opens it)."""


class BankReader:
    """``await reader.call(lambda bank: ...)``: ``fn`` runs on the reading thread, inside one
    snapshot of a read-only connection (opened at the first read, again after a failure)."""

    def __init__(self, path: Path, rulesets: Editions | None = None) -> None:
        self.path = path
        self.rulesets = rulesets
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bank-read")
        self._bank: Bank | None = None

    def call(self, fn: Callable[[Bank], T]) -> asyncio.Future[T]:
        return asyncio.wrap_future(self._executor.submit(self._run, fn))

    def _open(self) -> Bank:
        if self._bank is None:
            bank = Bank(self.path, readonly=True, rulesets=self.rulesets)
            if not bank.db.execute("PRAGMA database_list").fetchone()["file"]:
                bank.close()  # an older file, read through a copy in memory: no new writes
                raise NotUpgraded(self.path)
            self._bank = bank
        return self._bank

    def _run(self, fn: Callable[[Bank], T]) -> T:
        try:
            bank = self._open()
            with bank.snapshot():
                return fn(bank)
        except sqlite3.Error as exc:
            self._drop()
            raise StorageError(storage_problem(exc) or str(exc)) from exc
        except StorageError:
            self._drop()
            raise

    def _drop(self) -> None:
        if self._bank is not None:
            try:
                self._bank.close()
            except sqlite3.Error:
                log.debug("closing the failed read connection", exc_info=True)
            self._bank = None

    def close(self) -> None:
        """Close the connection once the reads queued are done."""
        self._executor.submit(self._drop).result()
        self._executor.shutdown(wait=True)
