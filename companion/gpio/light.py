"""The outcome light: an RGB LED (gpiozero ``RGBLED``) or an RGB strip behind three drivers,
beside the block, playing the shows of :mod:`companion.core.light_show`.

One small thread plays two layers: an outcome's show on top of the lever timer's countdown (a
gap between coin flashes shows the countdown beneath). A new outcome replaces the one playing;
a new countdown replaces the old one. :meth:`OutcomeLight.close` turns the light off and
releases its pins. Shows are timed on this module's own monotonic clock, from the moment the
event is heard (the outcome's sound starts then), never on the daemon's injectable clock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from gpiozero import RGBLED
from gpiozero.exc import PinPWMUnsupported

from companion.core import light_show
from companion.core.light_show import OFF, Colour, Layer, Step
from companion.events import BlockOutcome, TimerChanged

log = logging.getLogger(__name__)

_OUTCOME, _TIMER = 0, 1


def on_off(colour: Colour) -> Colour:
    """A colour for a light without PWM: each channel fully on or off (the strongest channel
    and any at least a third of it are on; gold is then yellow, amber red)."""
    top = max(colour)
    r, g, b = (1.0 if top > 0 and c >= top / 3 else 0.0 for c in colour)
    return (r, g, b)


class OutcomeLight:
    """Owns the RGB LED's three pins and the thread that plays shows on them."""

    def __init__(self, red: int, green: int, blue: int, *, pin_factory: Any,
                 brightness: float = 0.6, active_high: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.brightness = brightness
        self.pins = (red, green, blue)
        self._clock = clock
        try:
            self.device = RGBLED(red, green, blue, active_high=active_high, pwm=True,
                                 pin_factory=pin_factory)
            self.pwm = True
        except PinPWMUnsupported:  # e.g. gpiozero's plain mock pins: colours on or off
            self.device = RGBLED(red, green, blue, active_high=active_high, pwm=False,
                                 pin_factory=pin_factory)
            self.pwm = False
        self._layers: list[Layer | None] = [None, None]
        self._shown: Colour = OFF
        self._closed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="outcome-light", daemon=True)
        self._thread.start()

    # -- what to show --------------------------------------------------------------------

    def play(self, show: Sequence[Step]) -> None:
        """Play an outcome's show from now, in place of the one playing."""
        self._set(_OUTCOME, show)

    def countdown(self, show: Sequence[Step]) -> None:
        """Show the lever timer from now (beneath any outcome), in place of the last one."""
        self._set(_TIMER, show)

    def stop_countdown(self) -> None:
        self._set(_TIMER, None)

    def heard(self, event: object) -> None:
        """A bus listener: each outcome's show, the lever timer's colours."""
        if self._closed:
            return
        b = self.brightness
        if isinstance(event, BlockOutcome):
            self.play(light_show.plan(event.outcome, event.ping_period, event.ping_start, b,
                                      event.sound_seconds))
        elif isinstance(event, TimerChanged):
            if event.what == "started":
                self.countdown(light_show.countdown(event.state.remaining,
                                                    event.duration or event.state.duration, b))
            elif event.what == "time_up":
                self.countdown(light_show.time_up(b))
            else:  # stopped
                self.stop_countdown()

    @property
    def colour(self) -> Colour:
        """What the light shows now."""
        return self._shown

    @property
    def idle(self) -> bool:
        """Nothing is playing or left to play."""
        with self._changed:
            _, wake = light_show.frame(self._layers, self._clock())
            return wake is None

    # -- lifecycle -----------------------------------------------------------------------

    def off(self) -> None:
        """Stop every show and turn the light off now."""
        with self._changed:
            self._layers = [None, None]
            self._write(OFF)
            self._changed.notify_all()

    def close(self) -> None:
        """Off, the thread ended and the pins released."""
        with self._changed:
            if self._closed:
                return
            self._closed = True
            self._layers = [None, None]
            self._changed.notify_all()
        self._thread.join(timeout=2)
        try:
            self._write(OFF)
        finally:
            self.device.close()

    # -- the player ----------------------------------------------------------------------

    def _set(self, index: int, show: Sequence[Step] | None) -> None:
        with self._changed:
            if self._closed:
                return
            self._layers[index] = None if not show else (self._clock(), tuple(show))
            self._changed.notify_all()

    def _run(self) -> None:
        with self._changed:
            while not self._closed:
                now = self._clock()
                colour, wake = light_show.frame(self._layers, now)
                try:
                    self._write(colour)
                except Exception:  # a pin that fails once must not end the light for good
                    log.exception("outcome light: setting %s failed", colour)
                if wake is None:
                    self._layers = [None, None]  # every show has ended
                self._changed.wait(None if wake is None else max(0.0, wake - now))

    def _write(self, colour: Colour) -> None:
        if colour == self._shown:
            return
        self.device.value = colour if self.pwm else on_off(colour)
        self._shown = colour
