"""The bank for the event loop: one writer thread owns the SQLite connection.

Every operation runs on that thread in order, so the loop never blocks on an fsync and two
writers in this process can never interleave. Other processes (``companion export``, a second
tool) share the file through SQLite's own locking.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from companion.bank.bank import Bank
from companion.core.editions import Editions

T = TypeVar("T")


class BankService:
    """Runs ``Bank`` operations on its own thread; ``await service.call(lambda b: ...)``."""

    def __init__(self, path: Path, rulesets: Editions | None = None) -> None:
        self.path = path
        self.rulesets = rulesets
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bank")
        self._bank: Bank | None = None

    def open(self) -> Bank:
        """Open the file on the writer thread (blocking: at start-up only)."""
        self._bank = self._executor.submit(Bank, self.path, rulesets=self.rulesets).result()
        return self._bank

    def run(self, fn: Callable[[Bank], T]) -> T:
        """Run ``fn`` on the writer thread and wait (for start-up and tools, not the loop)."""
        return self._executor.submit(self._with_bank, fn).result()

    def call(self, fn: Callable[[Bank], T]) -> asyncio.Future[T]:
        """Queue ``fn(bank)`` on the writer thread now (order is kept); await the result."""
        return asyncio.wrap_future(self._executor.submit(self._with_bank, fn))

    def _with_bank(self, fn: Callable[[Bank], T]) -> T:
        if self._bank is None:
            raise RuntimeError("the bank is not open")
        return fn(self._bank)

    def close(self) -> None:
        """Finish every queued write, then close the file (on the writer thread, in order)."""
        if self._bank is not None:
            self._executor.submit(self._close_bank).result()
        self._executor.shutdown(wait=True)

    def _close_bank(self) -> None:
        if self._bank is not None:
            self._bank.close()
            self._bank = None
