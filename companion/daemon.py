"""The daemon: one asyncio loop; hardware threads hand their events to it; state lives here."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from companion.audio.backend import AudioBackend
from companion.audio.library import SoundLibrary
from companion.audio.speaker import Priority, Speaker, make_backend
from companion.bank import DB_NAME, Bank, BankUnavailable
from companion.bank.service import BankService
from companion.cards import CardDesk
from companion.config import Config
from companion.core.block import QuestionBlock
from companion.core.debounce import Debouncer
from companion.core.ledger import LedgerError
from companion.core.outcomes import DieRng, default_rng
from companion.events import BankChanged, BlockOutcome, Event, Listener, PressIgnored
from companion.gpio.pins import PinFactoryError, make_pin_factory
from companion.lever_control import LeverControl
from companion.systemd import Notifier

log = logging.getLogger(__name__)
T = TypeVar("T")


class Companion:
    """Wires the block button, the block's rules and the speaker around one event loop.

    Everything hardware-shaped can be passed in (pin factory, RNG, audio backend, clock), so
    tests and the demo run the very same object as the Pi.
    """

    def __init__(
        self,
        config: Config,
        *,
        pin_factory: Any = None,
        rng: DieRng | None = None,
        backend: AudioBackend | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.clock = clock
        self.library = SoundLibrary(config.sounds_dir)
        self.block = QuestionBlock(rng or default_rng(), self.library.seconds)
        self.speaker = Speaker(backend or make_backend(config.audio.backend))
        self.listeners: list[Listener] = []
        self.button: Any = None
        self.status_led: Any = None
        self.lever = LeverControl(config.lever, speaker=self.speaker, library=self.library,
                                  emit=self._emit, clock=clock)
        self.cards = CardDesk(config.reader, self, emit=self._emit)
        self.bank: BankService | None = None
        self.web: Any = None
        self.screen: Any = None
        self.web_any_port_if_taken = False  # the demo's choice: a free port beats no page
        self.ready = asyncio.Event()
        self.notifier = Notifier()
        self.closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pin_factory = pin_factory
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Open the outputs and inputs. A missing part is logged and the rest carries on."""
        self._loop = loop
        if self._stopping is None:
            self._stopping = asyncio.Event()
        self.speaker.open()
        self.bank = self._open_bank()
        factory = self._open_pin_factory()
        self.button = self._open_button(factory)
        self.lever.open(loop, factory)
        self.status_led = self._open_led(factory)
        state = self.bank.run(lambda bank: bank.state()) if self.bank is not None else None
        if state is not None:
            self.lever.note_state(state)
        self.screen = self._open_screen(state)
        self.cards.open(loop)
        log.info("companion ready (button: %s, lever: %s, motor: %s, audio: %s, bank: %s)",
                 f"BCM {self.config.block.pin}" if self.button else "none",
                 f"BCM {self.config.lever.pin}" if self.lever.switch else "none",
                 f"BCM {self.config.lever.motor_pin}" if self.lever.motor else "none",
                 self.speaker.backend.name if self.speaker.available else "none",
                 self.bank.path if self.bank else "none")

    def _open_bank(self) -> BankService | None:
        service = BankService(self.config.data_dir / DB_NAME)
        game = self.config.game

        def ensure_game(bank: Bank) -> None:
            gid = bank.ensure_game(game.edition, list(game.players))
            if gid is not None:
                log.info("started game %d (%s) for %s", gid, game.edition,
                         ", ".join(game.players))

        try:
            service.open()
            service.run(ensure_game)
        except (BankUnavailable, LedgerError, sqlite3.Error, OSError) as exc:
            log.error("bank unavailable: %s; outcomes are sounded and logged but not banked",
                      exc)
            service.close()
            return None
        return service

    def _open_pin_factory(self) -> Any:
        try:
            return self._pin_factory or make_pin_factory(self.config.gpio.pin_factory)
        except PinFactoryError as exc:
            log.warning("no GPIO: %s; carrying on without the block button, lever and motor "
                        "(the tablet and the demo still press and run the timer)", exc)
            return None

    def _open_led(self, factory: Any) -> Any:
        pin = self.config.gpio.status_led_pin
        if pin < 0 or factory is None:
            return None
        from gpiozero import LED
        from gpiozero.exc import GPIOZeroError

        try:
            return LED(pin, pin_factory=factory)
        except (GPIOZeroError, OSError, RuntimeError) as exc:
            log.warning("status LED on BCM %d unavailable: %s", pin, exc)
            return None

    def _show_status(self) -> None:
        """The LED: steady when every part is up, blinking when one is missing."""
        led = self.status_led
        if led is None:
            return
        degraded = (self.button is None or self.bank is None or not self.speaker.available
                    or (self.config.web.enabled and self.web is None))
        if degraded:
            led.blink(on_time=0.5, off_time=0.5)
        else:
            led.on()

    def _open_button(self, factory: Any) -> Any:
        from gpiozero.exc import GPIOZeroError

        from companion.gpio.block_button import BlockButton

        cfg = self.config.block
        if factory is None:
            return None
        try:
            return BlockButton(
                cfg.pin,
                pin_factory=factory,
                debouncer=Debouncer(lockout=cfg.debounce_ms / 1000, settle=cfg.release_ms / 1000),
                when_pressed=self._press_from_thread,
                clock=self.clock,
            )
        except (GPIOZeroError, OSError, RuntimeError) as exc:
            log.warning("block button on BCM %d unavailable: %s; carrying on without it "
                        "(presses from the tablet or demo still work)", cfg.pin, exc)
            return None

    def _open_screen(self, state: dict[str, Any] | None) -> Any:
        if not self.config.display.enabled:
            return None
        from companion.display.screen import Screen

        screen = Screen(self.config.display, coin_period=self.library.coin_period,
                        on_quit=self._quit_from_thread)
        screen.set_bank_online(self.bank is not None)
        if state is not None:
            screen.set_state(state)
        self.listeners.append(screen.post)
        screen.start()
        return screen

    def _quit_from_thread(self) -> None:
        loop = self._loop
        if loop is not None:
            log.info("the display window was closed: stopping")
            loop.call_soon_threadsafe(self.request_stop)

    async def _start_web(self) -> Any:
        cfg = self.config.web
        if not cfg.enabled:
            return None
        from companion.web.server import start_web
        from companion.web.token import load_or_create_token

        try:
            token = load_or_create_token(cfg.token, self.config.data_dir)
            try:
                server = await start_web(self, cfg.host, cfg.port, token)
            except OSError:
                if not self.web_any_port_if_taken:
                    raise
                log.info("port %d is taken; serving on a free port instead", cfg.port)
                server = await start_web(self, cfg.host, 0, token)
        except OSError as exc:
            log.warning("web server on %s:%d unavailable: %s; carrying on without it",
                        cfg.host, cfg.port, exc)
            return None
        log.info("web: the tablet API is at %sapi/state", server.url)
        # The token is the tablet's key: not in the journal (readable by the adm group).
        log.info("web: the tablet link (with its token) is on the screen's QR code and from "
                 "`companion link`")
        log.debug("web: tablet link: %s", server.tablet_link)
        return server

    def status_line(self) -> str:
        """One line for ``systemctl status``: what is up."""
        parts = [f"button {'BCM ' + str(self.config.block.pin) if self.button else 'none'}",
                 f"lever {'BCM ' + str(self.config.lever.pin) if self.lever.switch else 'none'}",
                 f"audio {self.speaker.backend.name if self.speaker.available else 'none'}",
                 f"bank {'ok' if self.bank else 'unavailable'}",
                 f"web {self.web.url if self.web else 'off'}"]
        return "ready: " + ", ".join(parts)

    def request_stop(self) -> None:
        """Ask ``run`` to return (safe from signal handlers on the loop)."""
        if self._stopping is not None:
            self._stopping.set()

    async def run(self) -> None:
        """Run until SIGTERM/SIGINT or :meth:`request_stop`, then shut down cleanly."""
        loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            # Not possible off the main thread; the caller then stops us with request_stop().
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.request_stop)
        self.start(loop)
        watchdog: asyncio.Future[None] | None = None
        try:
            self.web = await self._start_web()
            if self.screen is not None and self.web is not None:
                self.screen.set_link_source(self.web.lan_link)
            self.ready.set()
            self._show_status()
            self.notifier.ready(self.status_line())
            watchdog = asyncio.ensure_future(self.notifier.watchdog())
            await self._stopping.wait()
            self.notifier.stopping()
            log.info("stopping")
            self.lever.close()  # the motor stops first, whatever else shutting down takes
            self.cards.close()  # no new taps while the last writes finish
            await self.drain()
        finally:
            if watchdog is not None:
                watchdog.cancel()
            if self.web is not None:
                await self.web.stop()
                self.web = None
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
            self.close()

    def close(self) -> None:
        """Release the button and stop every sound; later presses are dropped."""
        if self.closed:
            return
        self.closed = True
        self._loop = None
        # The motor first; then every part, each on its own (one failing never keeps the
        # others, least of all the bank, from closing).
        _safely("lever", self.lever.close)  # motor off, running sound off
        if self.status_led is not None:
            _safely("status LED", self.status_led.off)
            _safely("status LED", self.status_led.close)
            self.status_led = None
        if self.button is not None:
            _safely("button", self.button.close)
            self.button = None
        _safely("reader", self.cards.close)
        _safely("speaker", self.speaker.close)
        if self.screen is not None:
            _safely("screen", self.screen.close)
            self.screen = None
        if self.bank is not None:
            _safely("bank", self.bank.close)  # finishes queued writes first
        log.info("companion stopped after %d presses (%d ignored while sounding)",
                 self.block.presses, self.block.ignored)

    # -- the block -----------------------------------------------------------------------

    def _press_from_thread(self, at: float) -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._press_on_loop, at)
        except RuntimeError:  # the loop closed between the check and the call: shutting down
            log.debug("press at %.3f dropped: the daemon is stopping", at)

    def _press_on_loop(self, at: float) -> None:
        if not self.closed:
            self.press(at, "button")

    def press(self, at: float | None = None, source: str = "button") -> Event:
        """Press the block (on the loop): draw, sound and announce the outcome."""
        if self.closed:
            raise RuntimeError("the companion is stopped")
        at = self.clock() if at is None else at
        outcome = self.block.press(at)
        if outcome is None:
            event: Event = PressIgnored(at, source)
            log.info("press ignored (%s): the last outcome is still sounding", source)
        else:
            played = self.speaker.play(self.library.for_outcome(outcome), Priority.OUTCOME)
            event = BlockOutcome(self.block.presses, outcome, at, source, played)
            log.info("press %d (%s): %s", event.number, source, outcome.describe())
            if self.bank is not None:
                self._spawn(self.act(
                    "outcome", lambda bank: bank.record_outcome(outcome, source=source)))
        self._emit(event)
        return event

    def _emit(self, event: Event) -> None:
        if isinstance(event, BankChanged):
            self.lever.note_state(event.state)
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception:
                log.exception("a listener failed on %r", event)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background bank write failed: %s", task.exception())

    async def drain(self) -> None:
        """Wait for bank writes (and card taps) already under way."""
        await self.cards.drain()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def act(self, action: str, fn: Callable[[Bank], T]) -> Awaitable[T]:
        """Queue a bank operation on the writer thread at once (so a ``close()`` right after
        still writes it); await it for the result. Listeners get the new state.

        LedgerError (bad input) reaches the awaiting caller and changes nothing.
        """
        if self.bank is None:
            raise LedgerError("the bank is unavailable")

        def run(bank: Bank) -> tuple[T, dict[str, Any]]:
            result = fn(bank)
            return result, bank.state()

        return self._announce(action, self.bank.call(run))

    async def _announce(self, action: str,
                        pending: asyncio.Future[tuple[T, dict[str, Any]]]) -> T:
        try:
            result, state = await pending
        except LedgerError:
            raise
        except Exception:
            log.exception("bank %s failed", action)
            raise
        summary = describe_result(result, state)
        log.info("bank %s: %s", action, summary)
        self._emit(BankChanged(action, summary, state))
        return result


def _safely(part: str, close: Callable[[], object]) -> None:
    try:
        close()
    except Exception:
        log.exception("closing the %s failed", part)


def describe_result(result: object, state: dict[str, Any]) -> str:
    """One line about a bank write, with names instead of ids."""
    from companion.bank.bank import OutcomeRecord
    from companion.core.ledger import BANK, Entry

    names = {p["id"]: p["name"] for p in state["players"]}
    coins = {p["id"]: p["balance"] for p in state["players"]}

    def who(party: object) -> str:
        return "the Bank" if party == BANK else names.get(party, f"player {party}")

    if isinstance(result, OutcomeRecord):
        if result.player_id is None:
            return f"outcome #{result.id} is unassigned (nobody is current)"
        pid = result.player_id
        delta = result.outcome.coin_delta
        sign = f"+{delta}" if delta > 0 else str(delta)
        money = f"{sign} -> {coins.get(pid)} coins" if delta else "no coins"
        return f"{names.get(pid)} {money}"
    if isinstance(result, Entry):
        return (f"{who(result.payer)} pays {who(result.payee)} {result.amount} "
                f"({result.kind.value}{': ' + result.note if result.note else ''})")
    if isinstance(result, int) and result in names:
        return f"{names[result]} is current"
    return str(result)
