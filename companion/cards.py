"""Cards on the daemon's loop: a tap becomes "that player is current" or an action, and every
tap lands in the recent-activity feed (tablet, screen, ``GET /api/activity``).

The reader thread (:mod:`companion.readers.port`) does the serial work and the tap detection
and hands each tap to the loop; what the card means is looked up in the bank (cards linked on
the tablet) and then the config (``[reader] cards``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from companion.bank import Bank
from companion.config import ReaderConfig
from companion.core.ledger import LedgerError
from companion.events import CardTapped, Event

log = logging.getLogger(__name__)

ACTIVITY = 50
"""Taps kept in the activity feed."""
MAX_PENDING = 16
"""Taps being handled at once; beyond that (a reader flooding UIDs) taps are dropped and
counted, so the bank and the tablet keep up."""

ACTION_WORDS = {"next_player": "next player", "pass_go": "pass GO", "press": "press the block",
                "timer": "start/stop the timer", "undo": "undo"}


class CardDesk:
    """Turns taps into bank changes and actions; keeps the activity feed."""

    def __init__(self, cfg: ReaderConfig, app: Any, *, emit: Callable[[Event], None]) -> None:
        self.cfg = cfg
        self.app = app  # the Companion: bank access (act), press, lever
        self.emit = emit
        self.named = cfg.card_map()
        self.activity: deque[dict[str, Any]] = deque(maxlen=ACTIVITY)
        self.reader: Any = None
        self.dropped = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        if not self.cfg.enabled:
            return
        from companion.readers.port import SerialReader

        self.reader = SerialReader(self.cfg.port, self.cfg.protocol, baudrate=self.cfg.baudrate,
                                   tap_gap=self.cfg.tap_gap_ms / 1000,
                                   on_tap=self._tap_from_thread)
        self.reader.start()

    def close(self) -> None:
        self._loop = None
        if self.reader is not None:
            self.reader.stop()

    async def drain(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- taps --------------------------------------------------------------------------------

    def _tap_from_thread(self, uid: str, _at: float) -> None:
        loop = self._loop
        if loop is not None and not self.app.closed:
            with contextlib.suppress(RuntimeError):  # the loop closed: shutting down
                loop.call_soon_threadsafe(self.tap, uid, "reader")

    def tap(self, uid: str, source: str = "reader") -> asyncio.Task[dict[str, Any]]:
        """Handle a tap of ``uid`` (on the loop); the task's result is the activity line."""
        if len(self._tasks) >= MAX_PENDING or self._loop is None:
            self.dropped += 1
            if self.dropped in (1, 100) or self.dropped % 1000 == 0:
                log.warning("card reader floods taps: %d dropped so far", self.dropped)
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            future.set_result({"uid": uid, "kind": "dropped"})
            return future  # type: ignore[return-value]
        task = asyncio.ensure_future(self._handle(uid, source))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _handle(self, uid: str, source: str) -> dict[str, Any]:
        kind, did = "unknown", "new card"
        try:
            meaning = await self._bank(lambda bank: bank.card_meaning(uid, self.named))
            kind = meaning[0]
            if kind == "unmatched":
                did = f"card of {meaning[1]}, who is not in this game: link it on the tablet"
            elif kind == "player":
                player = meaning[1]
                await self.app.act(f"card {uid}", lambda bank: bank.set_current(player))
                name = await self._bank(lambda bank: _name(bank, player))
                did = f"{name} is current"
            elif kind == "action":
                did = await self._action(str(meaning[1]), uid)
        except LedgerError as exc:
            kind = "error" if kind == "unknown" else kind
            did = f"refused: {exc}"
        except Exception:
            log.exception("card %s: handling the tap failed", uid)
            kind, did = "error", "failed (see the log)"
        entry = {"at": time.time(), "uid": uid, "source": source, "kind": kind, "did": did}
        self.activity.appendleft(entry)
        log.info("card %s: %s", uid, did)
        self.emit(CardTapped(uid, kind, did, entry))
        return entry

    async def _action(self, action: str, uid: str) -> str:
        app = self.app
        source = f"card:{uid}"[:40]
        if action == "next_player":
            pid = await app.act("next player", lambda bank: bank.next_player())
            return f"next player: {await self._bank(lambda bank: _name(bank, pid))}"
        if action == "pass_go":
            def pass_go(bank: Bank) -> object:
                current = bank.current_player()
                if current is None:
                    raise LedgerError("nobody is current")
                return bank.pass_go(current, source=source)

            await app.act("pass GO", pass_go)
            return "pass GO"
        if action == "undo":
            await app.act("undo", lambda bank: bank.undo(source=source))
            return "undo"
        if action == "press":
            event = app.press(source="card")
            return "pressed the block" if hasattr(event, "outcome") else \
                "press ignored: the block is still sounding"
        if action == "timer":
            if app.lever.timer.phase.value == "running":
                app.lever.stop(source="card")
                return "timer stopped"
            app.lever.start(source="card")
            return "timer started"
        raise LedgerError(f"unknown card action {action!r}")

    def _bank(self, fn: Callable[[Bank], Any]) -> Awaitable[Any]:
        if self.app.bank is None:
            raise LedgerError("the bank is unavailable")
        return self.app.bank.call(fn)

    # -- views -------------------------------------------------------------------------------

    def new_cards(self, linked: set[str]) -> list[str]:
        """Cards tapped recently that mean nobody here (unknown, or the config's name for
        someone not in this game) and are still not linked on the tablet, newest first."""
        seen: list[str] = []
        for entry in self.activity:
            uid = entry["uid"]
            if entry["kind"] in ("unknown", "unmatched") and uid not in linked \
                    and uid not in seen:
                seen.append(uid)
        return seen

    def reader_status(self) -> dict[str, Any] | None:
        return None if self.reader is None else self.reader.status.to_json()


def _name(bank: Bank, player: object) -> str:
    for p in bank.players():
        if p.id == player:
            return p.name
    return f"player {player}"
