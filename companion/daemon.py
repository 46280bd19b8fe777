"""The daemon: the wiring and the lifecycle around one asyncio loop.

It opens the parts (speaker, bank file, GPIO pins, lever and motor, status LED, outcome
light), builds the table service on them and starts the frontends it is given (the web page,
the screen, the card readers, the demo's console) with the table as their only handle.
Hardware threads hand their events to the loop; state lives in the service. A missing part is
logged and the rest carries on; SIGTERM stops everything cleanly, the motor first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from companion.app.bus import Bus
from companion.app.commands import Part
from companion.app.contract import Frontend
from companion.app.service import RETRY_S, TableService
from companion.audio.backend import AudioBackend
from companion.audio.library import SoundLibrary
from companion.audio.speaker import Speaker, make_backend
from companion.bank import DB_NAME, Bank, BankUnavailable
from companion.bank.service import BankService
from companion.config import Config
from companion.core.block import Block
from companion.core.debounce import Debouncer
from companion.core.outcomes import DieRng, default_rng
from companion.events import StorageChanged
from companion.exc import Refused
from companion.gpio.pins import PinFactoryError, open_pin_factory
from companion.handoff import Handoff
from companion.lever_control import LeverControl
from companion.systemd import Notifier

log = logging.getLogger(__name__)

SETTLE_AFTER_S = 0.003
"""How long after its sound starts a press from the pin is announced and queued for the bank:
the first PCM bytes are out in well under a millisecond, and the loop's work (the event, the
screen's frame, the bank's write) then no longer takes a CPU from the sound's start. Measured:
press_to_pcm's ratio at p50 1.13-1.19 with 3 ms, 1.20-1.24 with none; the same with 10 ms."""
OPEN_WAIT_S = 1.0
"""At start, a bank file another program holds locked is waited for this long, not SQLite's
whole busy timeout: the web answers meanwhile (healthz names the lock), the bank follows."""


class Daemon:
    """One table's companion. Everything hardware-shaped can be passed in (pin factory, RNG,
    audio backend, clock), so tests and the demo run the very same object as the Pi."""

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
        self.rulesets = config.game.rulesets()
        self.bus = Bus()
        library = SoundLibrary(config.sounds_dir)
        self.speaker = Speaker(backend or make_backend(config.audio.backend, config.audio.device))
        self.lever = LeverControl(config.lever, speaker=self.speaker, library=library,
                                  emit=self.bus.publish, clock=clock)
        self.table = TableService(block=Block(rng or default_rng(), library.seconds),
                                  library=library, speaker=self.speaker, lever=self.lever,
                                  bus=self.bus, clock=clock,
                                  card_names=config.reader.card_map(),
                                  rulesets=self.rulesets, edition=config.game.edition)
        self.button: Any = None
        self.status_led: Any = None
        self.light: Any = None
        """The outcome light (:class:`companion.gpio.light.OutcomeLight`), when fitted."""
        self._light_unsubscribe: Callable[[], None] | None = None
        self.announcer: Any = None
        """Spoken outcomes (:class:`companion.speech.announcer.Announcer`), when enabled."""
        self._voice_unsubscribe: Callable[[], None] | None = None
        self.frontends: list[Frontend] = []
        self.ready = asyncio.Event()
        self.notifier = Notifier()
        self.closed = False
        self._pin_factory = pin_factory
        self._presses = Handoff("press")
        self._stopping: asyncio.Event | None = None

    @property
    def bank(self) -> BankService | None:
        return self.table.bank

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Open the outputs and inputs. A missing part is logged and the rest carries on."""
        if self._stopping is None:
            self._stopping = asyncio.Event()
        self.speaker.open()
        self.table.bank = self._open_bank()
        factory = self._open_pin_factory()
        self._presses.open(loop)
        self.button = self._open_button(factory)
        self.lever.open(loop, factory)
        self.status_led = self._open_led(factory)
        self.light = self._open_light(factory)
        if self.light is not None:
            self._light_unsubscribe = self.bus.subscribe(self.light.heard)
        self.announcer = self._open_voice()
        if self.announcer is not None:
            self._voice_unsubscribe = self.bus.subscribe(self.announcer.heard)
        self.table.parts = self._parts
        self.table.load()
        log.info("companion ready (button: %s, lever: %s, motor: %s, audio: %s, bank: %s)",
                 f"BCM {self.config.block.pin}" if self.button else "none",
                 f"BCM {self.config.lever.pin}" if self.lever.switch else "none",
                 f"BCM {self.config.lever.motor_pin}" if self.lever.motor else "none",
                 self.speaker.backend.name if self.speaker.available else "none",
                 self.bank.path if self.bank and self.bank.is_open else "unavailable")

    def _open_bank(self) -> BankService:
        """The bank; one that can't be opened now is tried again every few seconds (presses
        meanwhile are sounded, shown and held)."""
        game = self.config.game

        def ensure_game(bank: Bank) -> None:
            names = game.first_players()
            gid = bank.ensure_game(game.edition, list(names), pending=game.awaits_setup)
            if gid is not None:
                log.info("started game %d (%s) for %s%s", gid, game.edition, ", ".join(names),
                         ": it awaits the table's setup on the tablet" if game.awaits_setup
                         else "")

        service = BankService(self.config.data_dir / DB_NAME, self.rulesets,
                              prepare=ensure_game)
        try:
            service.open(wait=OPEN_WAIT_S)
        except (BankUnavailable, Refused, sqlite3.Error, OSError) as exc:
            log.error("bank unavailable: %s; presses are sounded, shown and held until it "
                      "can be opened (tried every %g s)", exc, RETRY_S)
        return service

    def _open_pin_factory(self) -> Any:
        if self._pin_factory is not None:
            return self._pin_factory
        try:
            choice = open_pin_factory(self.config.gpio.pin_factory)
            log.info("GPIO: %s", choice)
            return choice.factory
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

    def _open_voice(self) -> Any:
        """Spoken outcomes ([speech] enabled); without espeak-ng: a warning, and silence."""
        if not self.config.speech.enabled:
            return None
        from companion.i18n import LANGUAGES, translator
        from companion.speech.announcer import Announcer
        from companion.speech.lines import outcomes_of
        from companion.speech.voice import Voice, espeak_available

        code = self.config.table.language
        if not espeak_available():
            log.warning("speech is on but espeak-ng is not installed (apt install espeak-ng): "
                        "carrying on without the voice")
            return None
        log.info("speech on: %s", LANGUAGES[code].name)
        announcer = Announcer(self.speaker, Voice(LANGUAGES[code]), translator(code),
                              self.table.library.sounds["time_up"].seconds,
                              lambda: outcomes_of(self.table.rules().default_mode))
        announcer.table = lambda: self.table.state  # whom an outcome is for, as the press read
        self.table.speaking = lambda: announcer.pending
        return announcer

    def _open_light(self, factory: Any) -> Any:
        """The outcome light; a missing one is a warning (the block plays on without it)."""
        cfg = self.config.light
        if not cfg.fitted:
            return None
        pins = f"BCM {cfg.red}, {cfg.green}, {cfg.blue}"
        if factory is None:
            log.warning("outcome light on %s unavailable: no GPIO", pins)
            return None
        from gpiozero.exc import GPIOZeroError

        from companion.gpio.light import OutcomeLight

        try:
            light = OutcomeLight(cfg.red, cfg.green, cfg.blue, pin_factory=factory,
                                 brightness=cfg.brightness, active_high=cfg.active_high)
        except (GPIOZeroError, OSError, RuntimeError) as exc:
            log.warning("outcome light on %s unavailable: %s; carrying on without it", pins,
                        exc)
            return None
        log.info("outcome light on %s (%s)", pins,
                 "PWM" if light.pwm else "no PWM: colours on or off")
        return light

    def _show_status(self) -> None:
        """The LED: steady when every part is up, blinking when one is missing."""
        led = self.status_led
        if led is None:
            return
        degraded = not self.table.health().ok or self.button is None or \
            not self.speaker.available or \
            not all(f.healthy for f in self.frontends if f.needed_at_table)
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

    def _parts(self) -> tuple[Part, ...]:
        """The hardware as ``/healthz`` and the doctor report it (none is required: the
        companion carries on without each)."""
        cfg = self.config
        return (Part("button", self.button is not None,
                     f"BCM {cfg.block.pin}" if self.button else "none: press on the tablet"),
                Part("lever", self.lever.switch is not None,
                     f"BCM {cfg.lever.pin}" if self.lever.switch else "none"),
                *((Part("light", self.light is not None,
                        f"BCM {cfg.light.red}, {cfg.light.green}, {cfg.light.blue}"
                        if self.light is not None else "unavailable"),)
                  if cfg.light.fitted else ()),
                *(Part(f.name, f.healthy, f.status()) for f in self.frontends))

    def _storage_heard(self, event: object) -> None:
        if isinstance(event, StorageChanged):
            self._show_status()
            self.notifier.status(self.status_line())

    def status_line(self) -> str:
        """One line for ``systemctl status``: what is up."""
        parts = [f"button {'BCM ' + str(self.config.block.pin) if self.button else 'none'}",
                 f"lever {'BCM ' + str(self.config.lever.pin) if self.lever.switch else 'none'}",
                 f"audio {self.speaker.backend.name if self.speaker.available else 'none'}",
                 f"bank {'ok' if self.table.health().bank else 'NOT SAVING'}",
                 *(f.status() for f in self.frontends)]
        return "ready: " + ", ".join(parts)

    def request_stop(self) -> None:
        """Ask ``run`` to return (safe from signal handlers on the loop)."""
        if self._stopping is not None:
            self._stopping.set()

    def request_stop_from_thread(self) -> None:
        """Ask ``run`` to return, from any thread (a closed display window)."""
        self._presses(self.request_stop)

    async def run(self, frontends: Sequence[Frontend] = ()) -> None:
        """Run the frontends until SIGTERM/SIGINT or :meth:`request_stop`, then shut down
        cleanly: the motor first, then the frontends (last started, first stopped), the bank's
        queued writes, and every part."""
        loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            # Not possible off the main thread; the caller then stops us with request_stop().
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.request_stop)
        self.start(loop)
        watchdog: asyncio.Future[None] | None = None
        started: list[Frontend] = []
        try:
            for frontend in frontends:
                await frontend.start(self.table)
                started.append(frontend)
                self.frontends.append(frontend)
            self.ready.set()
            self._show_status()
            self.notifier.ready(self.status_line())
            watchdog = asyncio.ensure_future(self.notifier.watchdog())
            keeper = asyncio.ensure_future(self.table.keep_bank())
            unsubscribe = self.bus.subscribe(self._storage_heard)
            await self._stopping.wait()
            unsubscribe()
            keeper.cancel()
            self.notifier.stopping()
            log.info("stopping")
            self.lever.close()  # the motor stops first, whatever else shutting down takes
        finally:
            if watchdog is not None:
                watchdog.cancel()
            for frontend in reversed(started):  # the card readers stop before the last writes
                await _stop_safely(frontend)
            with contextlib.suppress(Exception):
                await self.table.drain()
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
            self.close()

    def close(self) -> None:
        """Release the button and stop every sound; later presses are dropped."""
        if self.closed:
            return
        self.closed = True
        self._presses.close()
        self.table.close()
        # The motor first; then every part, each on its own (one failing never keeps the
        # others, least of all the bank, from closing).
        _safely("lever", self.lever.close)  # motor off, running sound off
        if self._voice_unsubscribe is not None:
            self._voice_unsubscribe()
            self._voice_unsubscribe = None
            _safely("voice", self.announcer.close)
        if self._light_unsubscribe is not None:
            self._light_unsubscribe()
            self._light_unsubscribe = None
        if self.light is not None:
            _safely("outcome light", self.light.close)  # off, pins released
            self.light = None
        if self.status_led is not None:
            _safely("status LED", self.status_led.off)
            _safely("status LED", self.status_led.close)
            self.status_led = None
        if self.button is not None:
            _safely("button", self.button.close)
            self.button = None
        _safely("speaker", self.speaker.close)
        if self.bank is not None:
            _safely("bank", self.bank.close)  # finishes queued writes first
        health = self.table.health()
        log.info("companion stopped after %d presses (%d ignored while sounding)",
                 health.presses, health.ignored)

    # -- the block button ----------------------------------------------------------------

    def _press_from_thread(self, at: float) -> None:
        """The pin's thread: the outcome sounds right here when the loop has the next press's
        plan on offer (the loop settles the rest); otherwise the loop presses."""
        taken = self.table.gate.take(at, "button")
        if taken is None:
            if not self._presses(self._press_on_loop, at):
                self.table.gate.reached_loop()  # dropped: the daemon is stopping
        else:  # an ignored press (no sound) is told at once
            self._presses(self._settle_soon if taken.counts else self.table.settle)

    def _settle_soon(self) -> None:
        """The rest of a press that sounded on the pin's thread, once its first sound is out:
        the loop's work (the event, the screen, the bank's write on its thread) must not take
        the CPU from the sound's start. Anything that reads or changes the table meanwhile
        settles it first, and so does shutting down."""
        asyncio.get_running_loop().call_later(SETTLE_AFTER_S, self.table.settle)

    def _press_on_loop(self, at: float) -> None:
        self.table.gate.reached_loop()
        if not self.closed:
            self.table.press("button", at)


async def _stop_safely(frontend: Frontend) -> None:
    try:
        await frontend.stop()
    except Exception:
        log.exception("stopping the %s failed", frontend.name)


def _safely(part: str, close: Callable[[], object]) -> None:
    try:
        close()
    except Exception:
        log.exception("closing the %s failed", part)
