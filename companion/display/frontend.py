"""The small screen as a frontend: it reads the table's state once, then draws every event."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from companion.app.commands import GetHealth, GetState
from companion.app.contract import Table
from companion.config import DisplayConfig
from companion.display.screen import Screen
from companion.events import StorageChanged
from companion.exc import CompanionError

log = logging.getLogger(__name__)


class ScreenFrontend:
    """Starts the display thread and feeds it the table's events.

    ``link`` says where to read the tablet link for the idle screen's QR code, ``join`` a
    game's join link (by its id) for the join screen's; ``on_quit`` is
    called (from the display thread) when a desktop window is closed; ``language`` is the
    table's (``[table] language``): the screen's words are in it."""

    name = "screen"
    needed_at_table = True

    def __init__(self, cfg: DisplayConfig, *, link: Callable[[], str | None] | None = None,
                 join: Callable[[int], str | None] | None = None,
                 on_quit: Callable[[], None] | None = None, language: str = "en") -> None:
        self.screen = Screen(cfg, on_quit=on_quit, language=language)
        self._link = link
        self._join = join
        self._unsubscribe: Callable[[], None] | None = None

    async def start(self, table: Table) -> None:
        health = await table.read(GetHealth())
        self.screen.set_bank_online(health.has_bank)
        self.screen.post(StorageChanged("start", health.storage))
        if health.has_bank:
            with contextlib.suppress(CompanionError):  # a bank down now: its state comes later
                self.screen.set_state(await table.read(GetState()))
        self._unsubscribe = table.subscribe(self.screen.post)
        self.screen.start()
        if self._link is not None:
            self.screen.set_link_source(self._link)
        if self._join is not None:
            self.screen.set_join_source(self._join)

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.screen.close()

    @property
    def healthy(self) -> bool:
        return True  # a panel that is not there yet is waited for (and logged), not an error

    def status(self) -> str:
        return f"screen {self.screen.output_name or 'waiting'}"
