"""The small screen as a frontend: it reads the table's state once, then draws every event;
when a game ends it reads that game's coins over the evening once, for the screen's chart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from companion.app.commands import GetCoins, GetHealth, GetState
from companion.app.contract import Table
from companion.config import DisplayConfig
from companion.core.state import TableState
from companion.display.screen import Screen
from companion.events import Event, StateChanged, StorageChanged
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
        self._table: Table | None = None
        self._coins_of: tuple[int, str] | None = None
        """The ended game (and its state's version) whose coins were read for the chart."""
        self._reads: set[asyncio.Task[None]] = set()

    async def start(self, table: Table) -> None:
        self._table = table
        health = await table.read(GetHealth())
        self.screen.set_bank_online(health.has_bank)
        self.screen.post(StorageChanged("start", health.storage))
        if health.has_bank:
            with contextlib.suppress(CompanionError):  # a bank down now: its state comes later
                state = await table.read(GetState())
                self.screen.set_state(state)
                self._read_coins(state)
        self._unsubscribe = table.subscribe(self._heard)
        self.screen.start()
        if self._link is not None:
            self.screen.set_link_source(self._link)
        if self._join is not None:
            self.screen.set_join_source(self._join)

    def _heard(self, event: Event) -> None:
        self.screen.post(event)
        if isinstance(event, StateChanged):
            self._read_coins(event.state)

    def _read_coins(self, state: TableState) -> None:
        """A game that has just ended: read its coins over the evening once (not on every
        state: only at the end, and again if an undo reopened it and it ended anew)."""
        if not state.ended or not state.game.bank:
            return
        key = (state.game.id, state.version)
        if key == self._coins_of or self._table is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # told from another thread: the next state on the loop reads it
            return
        self._coins_of = key
        task = loop.create_task(self._coins(self._table, state.game.id))
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def _coins(self, table: Table, game: int) -> None:
        try:
            self.screen.set_coins(await table.read(GetCoins(game)))
        except CompanionError as exc:  # the chart is a nicety: the standings still show
            log.warning("screen: could not read game %d's coins for the chart: %s", game, exc)
            self._coins_of = None

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._reads):
            task.cancel()
        self.screen.close()

    @property
    def healthy(self) -> bool:
        return True  # a panel that is not there yet is waited for (and logged), not an error

    def status(self) -> str:
        return f"screen {self.screen.output_name or 'waiting'}"
