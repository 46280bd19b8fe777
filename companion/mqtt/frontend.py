"""The house's frontend: the table on an MQTT broker for Home Assistant (or any automation).

It hears every event of the table, and on the loop's next turn (never inside a press) turns
it into an event message, the retained state the sensors read and the discovery configs of
the game being played; the link sends them when the broker is there. Its buttons press the
block and start the timer through the table, as the tablet does, one at a time from a short
queue, after the table's own presses and a few a minute (:mod:`companion.mqtt.remote`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

from companion import __version__
from companion.app import commands as c
from companion.app.contract import Table
from companion.config import MqttConfig
from companion.core.lever import TimerState
from companion.core.state import TableState
from companion.events import (
    BlockOutcome,
    CardTapped,
    Event,
    LeverPressed,
    PressIgnored,
    StateChanged,
    TimerChanged,
)
from companion.exc import CompanionError
from companion.i18n import translator
from companion.i18n.said import Said
from companion.mqtt import discovery
from companion.mqtt.link import Broker, BrokerLink
from companion.mqtt.messages import event_message, game_message, seconds_left, state_message
from companion.mqtt.remote import QUEUE, RemoteGate
from companion.mqtt.topics import Topics, hostname

log = logging.getLogger(__name__)

SOURCE = "home"
"""Presses and timers from Home Assistant's buttons, as the journal and the log name them."""


class HomeFrontend:
    """``[mqtt]``: the table's events, sensors and buttons on the broker."""

    name = "mqtt"
    needed_at_table = False
    """A dead broker changes nothing at the table: the status LED stays steady."""

    def __init__(self, config: MqttConfig, *, language: str = "en",
                 link: Callable[[], str | None] | None = None, host: str | None = None,
                 version: str = "") -> None:
        self.config = config
        self.host = host or hostname()
        self.topics = Topics.for_host(config.prefix, config.discovery_prefix, self.host)
        self.link = BrokerLink(Broker(config.host, config.port, config.tls, config.ca_file,
                                      config.username, config.password_file),
                               self.topics, discovery=config.discovery,
                               on_command=self._command, on_connect=self._connected)
        self._page = link
        self._version = version or __version__
        self._tr = translator(language)
        self._table: Table | None = None
        self._state: TableState | None = None
        self._timer: tuple[TimerState, float] | None = None
        self._last_card: str | None = None
        self._announced: object = None
        self._inbox: deque[Event] = deque()
        self._unsubscribe: Callable[[], None] | None = None
        self.remote = RemoteGate(config.remote_presses_per_minute,
                                 config.quiet_after_table_press_s)
        """The house's buttons: the table's presses first, a few a minute."""
        self._commands: asyncio.Queue[str] | None = None
        self.most_pending = 0
        """The most commands ever waiting for the table at once (at most :data:`QUEUE`)."""
        self._worker: asyncio.Future[None] | None = None
        self._runner: asyncio.Future[None] | None = None
        self._ticker: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- the frontend contract -----------------------------------------------------------

    async def start(self, table: Table) -> None:
        self._table = table
        self._loop = asyncio.get_running_loop()
        self._commands = asyncio.Queue(QUEUE)
        self._worker = asyncio.ensure_future(self._work(table))
        self._unsubscribe = table.subscribe(self._heard)
        try:
            state = await table.read(c.GetState())
        except CompanionError as exc:  # no bank yet: the state follows with its first write
            log.warning("MQTT: no table state yet (%s)", exc)
        else:
            self._show(state)
        log.info("MQTT: %s as %s (topics under %s/)", self.config.host, self.topics.node,
                 self.topics.prefix)
        self._runner = asyncio.ensure_future(self.link.run())

    async def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for task in (self._ticker, self._worker):
            if task is not None:
                task.cancel()
        await self.link.close()
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner

    @property
    def healthy(self) -> bool:
        return self.link.connected

    def status(self) -> str:
        flood = self.remote.status()
        return self.link.status() + (f"; {flood}" if flood else "")

    # -- the table's events --------------------------------------------------------------

    def _heard(self, event: Event) -> None:
        """On the bus (a press may be in progress): queued, handled on the loop's next turn;
        a press at the table holds the house's press button back from now on."""
        if isinstance(event, BlockOutcome | PressIgnored | LeverPressed) and \
                event.source != SOURCE and self._loop is not None:
            self.remote.table_pressed(self._loop.time())
        if not self._inbox and self._loop is not None:
            self._loop.call_soon(self._handle_all)
        self._inbox.append(event)

    def _handle_all(self) -> None:
        while self._inbox:
            event = self._inbox.popleft()
            try:
                self._handle(event)
            except Exception:
                log.exception("MQTT: could not handle %r", event)

    def _handle(self, event: Event) -> None:
        if isinstance(event, CardTapped):
            did = event.did
            self._last_card = did.render(self._tr) if isinstance(did, Said) else did
        if isinstance(event, TimerChanged):
            self._timer = (event.state, _now())
            self._tick_while(event.state.running)
        message = event_message(event, self._state)
        if message is not None:
            self._send(message)
        if isinstance(event, StateChanged):
            self._show(event.state)
        elif isinstance(event, CardTapped | TimerChanged) and self._state is not None:
            self._publish_state()

    def _send(self, message: dict[str, Any]) -> None:
        self.link.send(self.topics.event, json.dumps(message, ensure_ascii=False))

    def _show(self, state: TableState) -> None:
        """A new table: its game's event (started, won), its entities and its state."""
        before, self._state = self._state, state
        news = game_message(before, state)
        if news is not None:
            self._send(news)
        if state.timer is not None and self._timer is None:
            self._timer = (state.timer, _now())
            self._tick_while(state.timer.running)
        if self.config.discovery and state.game.rules is not None:
            self._announce(state)
        self._publish_state()

    def _announce(self, state: TableState) -> None:
        """The device's entities for this game and its players; the ones no longer wanted
        are removed. Worked out again only when the game or its players change."""
        assert state.game.rules is not None
        page = self._page() if self._page is not None else None
        key = (state.game.id, state.game.edition, state.game.bank, page,
               tuple((p.name, p.worms is not None) for p in state.players))
        if key == self._announced:
            return
        self._announced = key
        wanted = discovery.configs(state, state.game.rules, self.topics,
                                   discovery.Device(self.host, self._version, page), self._tr)
        for topic in [t for t in self.link.retained if self.topics.is_config(t)]:
            if topic not in wanted:
                self.link.forget(topic)
        for topic, payload in wanted.items():
            self.link.retain(topic, payload)

    def _publish_state(self) -> None:
        if self._state is None:
            return
        seconds = 0
        if self._timer is not None:
            timer, read_at = self._timer
            seconds = seconds_left(timer, _now() - read_at)
        self.link.retain(self.topics.state, json.dumps(
            state_message(self._state, seconds, self._last_card, self._tr),
            ensure_ascii=False))

    def _connected(self) -> None:
        """Connected (again): what happened meanwhile is in the republished state."""
        self._publish_state()

    # -- the timer's seconds -------------------------------------------------------------

    def _tick_while(self, running: bool) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if running:
            self._ticker = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        """While the timer runs: the state each whole second, for the seconds-left sensor."""
        while self._timer is not None:
            timer, read_at = self._timer
            left = timer.remaining - (_now() - read_at)
            if left <= 0:
                return
            await asyncio.sleep(left - int(left - 1e-9) + 0.01)  # past the next second
            self._publish_state()

    # -- the buttons ---------------------------------------------------------------------

    def _command(self, name: str) -> None:
        """A button's command heard: queued for the table if the gate lets it through and
        there is room (never a task of its own: a flood can't pile up on the loop)."""
        queue = self._commands
        if queue is None:
            return
        now = _now()
        if not self.remote.admit(name, now):
            return
        try:
            queue.put_nowait(name)
        except asyncio.QueueFull:
            self.remote.full(now)
            return
        self.most_pending = max(self.most_pending, queue.qsize())

    @property
    def pending(self) -> int:
        """Commands waiting for the table now."""
        return self._commands.qsize() if self._commands is not None else 0

    async def _work(self, table: Table) -> None:
        """The queued commands, one at a time, through the table as the tablet's are."""
        assert self._commands is not None
        while True:
            name = await self._commands.get()
            command: c.Command[Any] = c.Press() if name == "press" else c.StartTimer()
            try:
                result = await table.act(command, source=SOURCE)
            except CompanionError as exc:
                log.warning("MQTT: a button's command was refused: %s", exc)
            except Exception:
                log.exception("MQTT: a button's command failed")
            else:  # the table's log already says a press was ignored, and why
                if isinstance(getattr(result, "event", None), PressIgnored):
                    log.debug("MQTT: the press button was ignored: %s", result.event.reason)


def _now() -> float:
    return asyncio.get_running_loop().time()

