"""The card reader as a frontend: each tap on the reader beside the block becomes a ``Tap``
command for the table (which looks up what the card means and does it).

The reader thread (:mod:`companion.readers.port`) does the serial work and the tap detection
and hands each tap to the loop; a reader flooding taps is cut short here, so the bank and the
tablet keep up.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from companion.app import commands as c
from companion.app.contract import Table
from companion.config import ReaderConfig
from companion.handoff import Handoff
from companion.tasks import wait_all

log = logging.getLogger(__name__)

MAX_PENDING = 16
"""Taps being handled at once; beyond that taps are dropped and counted."""


class CardReader:
    """Hands taps from the serial reader to the table."""

    name = "cards"
    needed_at_table = True

    def __init__(self, cfg: ReaderConfig) -> None:
        self.cfg = cfg
        self.reader: Any = None
        self.dropped = 0
        self.table: Table | None = None
        self._handoff = Handoff("card tap")
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self, table: Table) -> None:
        self.table = table
        self._handoff.open(asyncio.get_running_loop())
        if not self.cfg.enabled:
            return
        from companion.readers.port import SerialReader

        self.reader = SerialReader(self.cfg.port, self.cfg.protocol, baudrate=self.cfg.baudrate,
                                   tap_gap=self.cfg.tap_gap_ms / 1000,
                                   on_tap=self._tap_from_thread)
        self.reader.start()

    async def stop(self) -> None:
        """No new taps; the taps under way finish (their writes reach the bank)."""
        self._handoff.close()
        if self.reader is not None:
            self.reader.stop()
        await wait_all(self._tasks)

    @property
    def healthy(self) -> bool:
        return True  # a reader that is not plugged in is waited for (and logged)

    def status(self) -> str:
        if self.reader is None:
            return "reader off"
        return f"reader {'connected' if self.reader.status.connected else 'waiting'}"

    def _tap_from_thread(self, uid: str, _at: float) -> None:
        self._handoff(self.tap, uid)

    def tap(self, uid: str) -> asyncio.Future[dict[str, Any]]:
        """Hand a tap of ``uid`` to the table (on the loop); the feed's line for it."""
        loop = asyncio.get_running_loop()
        if len(self._tasks) >= MAX_PENDING or self.table is None:
            self.dropped += 1
            if self.dropped in (1, 100) or self.dropped % 1000 == 0:
                log.warning("card reader floods taps: %d dropped so far", self.dropped)
            future: asyncio.Future[dict[str, Any]] = loop.create_future()
            future.set_result({"uid": uid, "kind": "dropped"})
            return future
        task = asyncio.ensure_future(self.table.act(c.Tap(uid), source="reader"))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def reader_status(self) -> dict[str, Any] | None:
        """For ``GET /api/activity``: the port, whether it is connected, what it ignored."""
        return None if self.reader is None else self.reader.status.to_json()
