"""The display task: a thread that owns pygame's video side and sleeps until something changes.

The daemon's loop hands it events (:meth:`Screen.post`), timer changes, the tablet link and
the players' join links;
the thread feeds them to the pure :class:`DisplayModel` and renders only when the scene
differs from the one on the panel, waking otherwise only when the model says the picture
will change (an animation frame, a countdown second, going idle).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from companion.config import DisplayConfig
from companion.core.coin_series import CoinSeries
from companion.core.state import TableState
from companion.display.scene import DisplayModel, Scene, TimerView
from companion.events import Event

log = logging.getLogger(__name__)

LINK_RECHECK = 30.0
"""Seconds between looks at the tablet link while it is on show (the network may come up
after the daemon, or DHCP may hand out a new address)."""
RETRY = 10.0
"""Seconds between attempts to open a display that was not there."""
PUMP_INTERVAL = 0.25
"""Seconds between reads of a desktop window's events."""

FrameListener = Callable[[Scene, float], None]


class Screen:
    """Renders the companion's scenes on one output, from its own thread, in the table's
    ``language``."""

    def __init__(self, cfg: DisplayConfig, *, clock: Callable[[], float] = time.monotonic,
                 open_output: Callable[[], Any] | None = None,
                 on_quit: Callable[[], None] | None = None, language: str = "en") -> None:
        self.cfg = cfg
        self.clock = clock
        self.size = cfg.pixels
        self.model = DisplayModel(
            outcome_seconds=float(cfg.outcome_seconds),
            idle_after=cfg.idle_minutes * 60.0 if cfg.idle_minutes else None,
            language=language)
        self.renders = 0
        self.wakeups = 0
        """Times the thread woke up (a render or not): an idle screen stays at zero."""
        self.output_name: str | None = None
        self._dead = False
        self.frame_listeners: list[FrameListener] = []
        self.ready = threading.Event()
        """Set once the output is open (or known to be missing)."""
        self._open_output = open_output or self._default_output
        self._on_quit = on_quit
        self._inbox: deque[Callable[[float], None]] = deque()
        self._wake = threading.Condition()
        self._closed = False
        self._link_source: Callable[[], str | None] | None = None
        self._join_source: Callable[[int], str | None] | None = None
        self._thread: threading.Thread | None = None
        self.last_scene: Scene | None = None
        self.surface: Any = None

    def _default_output(self) -> Any:
        """The configured output (pygame is imported here, on the display's thread: the
        daemon's start does not wait for it)."""
        from companion.display.outputs import open_output

        return open_output(self.cfg)

    # -- from the daemon (any thread) --------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="display", daemon=True)
        self._thread.start()

    def post(self, event: Event) -> None:
        """A daemon event (block outcome, bank change): a listener on the table."""
        self._send(lambda now: self.model.apply(event, now))

    def set_timer(self, timer: TimerView | None) -> None:
        self._send(lambda now: self.model.set_timer(timer, now))

    def set_link_source(self, source: Callable[[], str | None] | None) -> None:
        """Where to read the tablet link for the idle screen's QR code."""
        self._link_source = source
        self._send(lambda now: self._refresh_link(now))

    def set_join_source(self, source: Callable[[int], str | None] | None) -> None:
        """Where to read a game's join link (by its id) for the join screen's QR code."""
        self._join_source = source
        self._send(lambda now: self._refresh_join())

    def set_state(self, state: TableState) -> None:
        """The bank's state at start-up (balances on the idle screen; not activity)."""
        self._send(lambda now: self.model.set_state(state))

    def set_coins(self, series: CoinSeries) -> None:
        """An ended game's coins over the evening: the winner screen turns to its chart."""
        self._send(lambda now: self.model.set_coins(series, now))

    def set_bank_online(self, online: bool) -> None:
        self._send(lambda now: setattr(self.model, "bank_online", online))

    def close(self, timeout: float = 2.0) -> None:
        with self._wake:
            self._closed = True
            self._wake.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def available(self) -> bool:
        return self.output_name is not None

    def _send(self, change: Callable[[float], None]) -> None:
        if self._dead:  # no screen (missing or failed): nothing to remember
            return
        with self._wake:
            self._inbox.append(change)
            self._wake.notify()

    # -- the thread ------------------------------------------------------------------------

    def _run(self) -> None:
        output = self._open_with_retries()
        if output is None:
            return
        self.output_name = output.name
        log.info("display: %s at %dx%d", output.name, *self.size)
        self.ready.set()
        try:
            self._loop(output)
        except Exception:
            log.exception("the display failed; carrying on without it")
            self._dead = True
            self.output_name = None
            with self._wake:
                self._inbox.clear()
        finally:
            try:
                output.close()
            except Exception:
                log.debug("closing the display output failed", exc_info=True)

    def _open_with_retries(self) -> Any:
        """Open the output; if there is none yet (a panel driver that loads after boot), warn
        once and try again every RETRY seconds, keeping the model up to date meanwhile."""
        from companion.display.outputs import DisplayUnavailable

        warned = False
        while True:
            try:
                from companion.sdl import pygame

                output = self._open_output()
                self.surface = pygame.Surface(self.size)
                if warned:
                    log.warning("display is back: %s", output.name)
                return output
            except ImportError as exc:
                log.warning("display unavailable (%s); carrying on without the screen", exc)
                self._dead = True
                self.ready.set()
                return None
            except DisplayUnavailable as exc:
                if not warned:
                    log.warning("display unavailable (%s); carrying on without the screen, "
                                "trying again every %.0f s (see hardware/display.md)", exc,
                                RETRY)
                    warned = True
                self.ready.set()
            retry_at = self.clock() + RETRY
            while self.clock() < retry_at:  # wait, keeping what the screen will show current
                with self._wake:
                    if not self._closed and not self._inbox:
                        self._wake.wait(max(0.0, retry_at - self.clock()))
                    if self._closed:
                        self._dead = True
                        return None
                    changes = list(self._inbox)
                    self._inbox.clear()
                now = self.clock()
                for change in changes:
                    change(now)

    def _loop(self, output: Any) -> None:
        next_link_look = 0.0
        self._draw(output, self.clock())
        while True:
            with self._wake:
                while not self._inbox and not self._closed:
                    now = self.clock()
                    wake_at = self.model.next_change(now)
                    waits = [] if wake_at is None else [wake_at - now]
                    if output.needs_pump:
                        waits.append(PUMP_INTERVAL)
                    if self._looks_for_links():
                        waits.append(next_link_look - now)
                    timeout = min(waits) if waits else None
                    if timeout is not None and timeout <= 0:
                        break
                    # a hair late rather than early: an early wake would find nothing new
                    self._wake.wait(None if timeout is None else timeout + 0.001)
                    if timeout is not None:
                        break
                if self._closed:
                    return
                changes = list(self._inbox)
                self._inbox.clear()
            self.wakeups += 1
            now = self.clock()
            for change in changes:
                change(now)
            state = self.model.state
            if state is not None and state.game.id != self.model.join_game:
                self._refresh_join()  # a new game: a new join code
            if self._looks_for_links() and now >= next_link_look:
                self._refresh_link(now)
                self._refresh_join()
                next_link_look = now + LINK_RECHECK
            if output.needs_pump and not output.pump() and self._on_quit is not None:
                self._on_quit()
            self._draw(output, now)

    def _looks_for_links(self) -> bool:
        """The links on show (or about to be) are looked at again now and then."""
        return bool((self._link_source and self._showing("idle"))
                    or (self._join_source and self.model.joining))

    def _refresh_join(self) -> None:
        state = self.model.state
        if self._join_source is None or state is None:
            return
        try:
            self.model.set_join_link(state.game.id, self._join_source(state.game.id))
        except Exception:  # the join code is a nicety; never let it stop the screen
            log.exception("could not work out the join link")

    def _showing(self, screen: str) -> bool:
        return self.last_scene is not None and self.last_scene.screen == screen

    def _refresh_link(self, now: float) -> None:
        if self._link_source is None:
            return
        try:
            self.model.set_link(self._link_source())
        except Exception:  # the link is a nicety; never let it stop the screen
            log.exception("could not work out the tablet link")

    def _draw(self, output: Any, now: float) -> None:
        from companion.display.render import render

        scene = self.model.scene(now)
        if scene == self.last_scene:
            return
        render(scene, self.surface)
        output.show(self.surface)
        self.renders += 1
        self.last_scene = scene
        shown = self.clock()
        for listener in list(self.frame_listeners):
            listener(scene, shown)
