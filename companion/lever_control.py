"""The lever timer in the daemon: the lever switch and motor (gpiozero), the running sounds and
the countdown's deadline, all driven from the event loop around the pure
:class:`companion.core.lever.LeverTimer`.

Edges come from gpiozero's thread and are handed to the loop; the timer's effects switch the
motor, play the sounds and tell the listeners (screen, tablet) with a :class:`TimerChanged`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.audio.library import SoundLibrary
from companion.audio.speaker import Priority, Speaker
from companion.config import LeverConfig
from companion.core.lever import (
    Effect,
    LeverSettings,
    LeverTimer,
    Phase,
    Started,
    Stopped,
    TimerState,
    TimeUp,
    cue,
)
from companion.events import Event, TimerChanged
from companion.handoff import Handoff
from companion.i18n.said import Said

log = logging.getLogger(__name__)

def settings_from(cfg: LeverConfig) -> LeverSettings:
    return LeverSettings(seconds=cfg.seconds, wind_up=cfg.wind_up,
                         max_seconds=cfg.max_seconds, full_wind=cfg.wind_up_hold_ms / 1000,
                         lockout=cfg.debounce_ms / 1000)


class LeverControl:
    """Owns the lever's timer, switch and motor on the daemon's loop."""

    def __init__(self, cfg: LeverConfig, *, speaker: Speaker, library: SoundLibrary,
                 emit: Callable[[Event], None], clock: Callable[[], float]) -> None:
        self.cfg = cfg
        self.timer = LeverTimer(settings_from(cfg))
        self.speaker = speaker
        self.library = library
        self.emit = emit
        self.clock = clock
        self.switch: Any = None
        self.motor: Any = None
        self.label: str | Said = "Time is running"
        """What the countdown is called on the screen and the tablet (the game's words)."""
        self._handoff = Handoff("lever edge")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self._cue: asyncio.TimerHandle | None = None
        self._recheck: asyncio.TimerHandle | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self, loop: asyncio.AbstractEventLoop, pin_factory: Any) -> None:
        """Claim the lever switch and the motor pin; a missing one is a warning."""
        from gpiozero.exc import GPIOZeroError

        from companion.gpio.lever_switch import LeverSwitch
        from companion.gpio.motor import Motor

        self._loop = loop
        self._handoff.open(loop)
        cfg = self.cfg
        if cfg.enabled and pin_factory is not None:
            try:
                self.switch = LeverSwitch(cfg.pin, pin_factory=pin_factory,
                                          when_changed=self._edge_from_thread, clock=self.clock)
            except (GPIOZeroError, OSError, RuntimeError) as exc:
                log.warning("lever switch on BCM %d unavailable: %s; the tablet can still run "
                            "the timer", cfg.pin, exc)
        if cfg.motor_pin >= 0 and pin_factory is not None:
            try:
                self.motor = Motor(cfg.motor_pin, pin_factory=pin_factory,
                                   active_high=cfg.motor_active_high, power=cfg.motor_speed)
            except (GPIOZeroError, OSError, RuntimeError) as exc:
                log.warning("motor output on BCM %d unavailable: %s; the timer runs without "
                            "it", cfg.motor_pin, exc)

    def close(self) -> None:
        """Stop a running countdown (motor off, sound off) and release the pins."""
        if self.running:
            self._apply(self.timer.stop(self.clock(), "shutdown"))
        self._output("motor off", self.motor.off if self.motor is not None else None)
        self._cancel()
        if self._recheck is not None:
            self._recheck.cancel()
        self._loop = None
        self._handoff.close()
        if self.motor is not None:
            self._output("motor release", self.motor.close)
            self.motor = None
        if self.switch is not None:
            self._output("lever release", self.switch.close)
            self.switch = None

    # -- inputs ------------------------------------------------------------------------------

    def _edge_from_thread(self, at: float, closed: bool) -> None:
        self._handoff(self.edge, at, closed)

    def edge(self, at: float, closed: bool) -> None:
        """A raw lever edge (on the loop)."""
        if self._loop is None:
            return
        self._apply(self.timer.edge(at, closed))
        self._schedule_settle()

    def _schedule_settle(self) -> None:
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None
        if self._loop is not None and self.timer.unsettled:
            delay = max(0.0, self.timer.recheck_at() - self.clock())
            self._recheck = self._loop.call_later(delay + 0.001, self._settle)

    def _settle(self) -> None:
        """The lever's level has had time to settle: read it and let the timer decide."""
        self._recheck = None
        if self._loop is None:
            return
        now = self.clock()
        if self.switch is not None:  # the pin's level now, in case an edge was missed
            self._apply(self.timer.edge(now, self.switch.is_closed))
        else:
            self._apply(self.timer.settle(now))
        self._schedule_settle()

    def start(self, seconds: float | None = None, source: str = "tablet") -> TimerState:
        self._apply(self.timer.start(self.clock(), seconds, source))
        return self.state()

    def stop(self, source: str = "tablet") -> TimerState:
        self._apply(self.timer.stop(self.clock(), source))
        return self.state()

    def toggle(self, source: str) -> TimerState:
        """Stop a running countdown, else start one (a card, a press that acts as a lever)."""
        return self.stop(source) if self.running else self.start(source=source)

    @property
    def running(self) -> bool:
        return self.timer.phase is Phase.RUNNING

    @property
    def quiet(self) -> bool:
        """No countdown runs and the lever has settled."""
        return self.timer.phase is Phase.IDLE and not self.timer.unsettled

    def state(self) -> TimerState:
        return replace(self.timer.state(self.clock()), label=self.label,
                       lever=self.switch is not None, motor=self.motor is not None)

    def set_label(self, label: str | Said) -> None:
        """What the countdown is called in the game being played."""
        self.label = label

    # -- effects -----------------------------------------------------------------------------

    def _apply(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Started):
                self._started(effect)
            elif isinstance(effect, Stopped):
                self._stopped(effect)
            elif isinstance(effect, TimeUp):
                self._time_up()

    def _started(self, effect: Started) -> None:
        self._cancel()
        if self._loop is not None:  # the end is scheduled before any hardware is touched
            self._expiry = self._loop.call_later(max(0.0, effect.deadline - self.clock()),
                                                 self._expire)
        self._output("motor on", self.motor.on if self.motor is not None else None)
        log.info("timer started (%s): %.1f s", effect.source, effect.duration)
        self._output("running sound", self._play_cue)
        self._announce("started", effect.source, effect)

    def _stopped(self, effect: Stopped) -> None:
        self._cancel()
        self._output("motor off", self.motor.off if self.motor is not None else None)
        self._output("sound off", lambda: self.speaker.stop(Priority.BACKGROUND))
        log.info("timer stopped (%s)", effect.reason)
        self._announce("stopped", effect.reason, None)

    def _time_up(self) -> None:
        self._cancel()
        self._output("motor off", self.motor.off if self.motor is not None else None)
        self._output("sound off", lambda: self.speaker.stop(Priority.BACKGROUND))
        self._output("time-up sound", lambda: self.speaker.play(self.library.sounds["time_up"],
                                                                Priority.OUTCOME))
        log.info("timer: time's up")
        self._announce("time_up", "timer", None)

    @staticmethod
    def _output(what: str, action: Callable[[], object] | None) -> None:
        """One hardware step; a failing one is logged and never skips the next."""
        if action is None:
            return
        try:
            action()
        except Exception:
            log.exception("lever timer: %s failed", what)

    def _expire(self) -> None:
        self._expiry = None
        self._apply(self.timer.expire(max(self.clock(), self.timer.deadline or 0.0)))

    def _play_cue(self) -> None:
        self._cue = None
        if self._loop is None:
            return
        name, wait = cue(self.timer.remaining(self.clock()), self.cfg.sound)
        if name is not None:
            self.speaker.stop(Priority.BACKGROUND)
            self.speaker.play(self.library.sounds[name], Priority.BACKGROUND)
        if wait != float("inf"):
            self._cue = self._loop.call_later(wait, self._play_cue)

    def _cancel(self) -> None:
        for handle in (self._expiry, self._cue):
            if handle is not None:
                handle.cancel()
        self._expiry = self._cue = None

    def _announce(self, what: str, source: str, started: Started | None) -> None:
        """Tell the listeners about this one effect, with the state as it was right after it
        (a restart is "stopped", not running, then "started" with the new deadline)."""
        state = self.state()
        if started is None:
            state = replace(state, phase=Phase.HELD if state.lever_held else Phase.IDLE,
                            remaining=0.0, duration=None)
            self.emit(TimerChanged(what, source, None, None, self.label, state))
            return
        state = replace(state, phase=Phase.RUNNING, duration=started.duration,
                        remaining=round(max(0.0, started.deadline - self.clock()), 3))
        self.emit(TimerChanged(what, source, started.deadline, started.duration, self.label,
                               state))
