"""A gpiozero pin factory on libgpiod v2 (the ``gpiod`` module): the kernel's GPIO character
device, with edges from its edge events.

Each pin holds one line request. Edges are the kernel's own events (``edge_detection`` on the
request), read by one thread waiting on every request's descriptor with no timeout, so idle
lines cost no wakeups; each event carries the kernel's CLOCK_MONOTONIC time of the edge, which
``when_changed`` gets as its ticks (seconds, ``time.monotonic()``'s clock, as the factory's
own :meth:`ticks`). PWM is in software (:mod:`companion.gpio.soft_pwm`); bounce is the
kernel's debounce (we pass none: our debouncer is ours).

The header's chip is found by its label (a Pi 5's ``pinctrl-rp1``, a Pi 4's
``pinctrl-bcm2711``, earlier Pis' ``pinctrl-bcm2835``), else ``/dev/gpiochip0`` (gpiozero's
lgpio factory's choice off a Pi 5).
"""

from __future__ import annotations

import errno
import glob
import os
import re
import threading
from datetime import timedelta
from typing import Any

import gpiod
from gpiod.line import Bias, Direction, Edge, Value
from gpiozero.exc import (
    GPIOPinInUse,
    PinFixedPull,
    PinInvalidBounce,
    PinInvalidEdges,
    PinInvalidFunction,
    PinInvalidPin,
    PinInvalidPull,
    PinInvalidState,
    PinPWMFixedValue,
    PinSetInput,
)
from gpiozero.pins.local import LocalPiFactory, LocalPiPin

from companion.gpio.edge_watch import EdgeWatch
from companion.gpio.soft_pwm import SoftPwm

HEADER_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
"""The labels of the chips that carry the 40-pin header (Pi 5; Pi 4 and 400; Pi 3, Zero 2 W
and earlier), in the order looked for (a Pi 5 also has a ``pinctrl-bcm2712`` that is not the
header's)."""

CONSUMER = "companion"
_PULLS = {"up": Bias.PULL_UP, "down": Bias.PULL_DOWN, "floating": Bias.DISABLED}
_EDGES = {"both": Edge.BOTH, "rising": Edge.RISING, "falling": Edge.FALLING, "none": Edge.NONE}


class NoChip(OSError):
    """No gpiochip to drive the header's pins."""


def chip_number(path: str) -> int | None:
    found = re.fullmatch(r"/dev/gpiochip(\d+)", path)
    return int(found.group(1)) if found else None


def header_chip(pattern: str = "/dev/gpiochip*") -> tuple[str, str]:
    """The header's gpiochip: its path and why (its label, or the fallback to gpiochip0)."""
    labels: dict[str, str] = {}
    for path in sorted(glob.glob(pattern), key=lambda p: (chip_number(p) or 0, p)):
        try:
            if not gpiod.is_gpiochip_device(path):
                continue
            with gpiod.Chip(path) as chip:
                labels[path] = chip.get_info().label
        except OSError:
            continue
    for wanted in HEADER_LABELS:
        for path, label in labels.items():
            if label == wanted:
                return path, f"labelled {label}"
    if "/dev/gpiochip0" in labels:
        return "/dev/gpiochip0", f"labelled {labels['/dev/gpiochip0']}: no chip labelled " \
            f"{', '.join(HEADER_LABELS)}, so gpiochip0 as lgpio picks"
    if labels:
        raise NoChip(f"no gpiochip labelled {', '.join(HEADER_LABELS)} and no gpiochip0 "
                     f"(found {', '.join(labels)})")
    raise NoChip("no gpiochip can be opened (/dev/gpiochip*: none, or no permission: is the "
                 "user in the gpio group?)")


class GpiodFactory(LocalPiFactory):
    """gpiozero's pins on libgpiod v2. ``chip``: a gpiochip's path (default: the header's)."""

    def __init__(self, chip: str | None = None) -> None:
        super().__init__()
        path, why = (chip, "asked for") if chip else header_chip()
        self._chip: gpiod.Chip | None = gpiod.Chip(path)
        info = self._chip.get_info()
        self.chip_path, self.chip_label, self.chip_lines = path, info.label, info.num_lines
        self.chip_reason = why
        try:
            self._get_revision()  # refuse a board that is not a Pi, as the other local factories
        except Exception:
            self._chip.close()
            raise
        self.pin_class = GpiodPin
        self.edges = EdgeWatch()
        self.pwm = SoftPwm()

    @property
    def chip(self) -> int | None:
        """The gpiochip's number (as gpiozero's lgpio factory has it)."""
        return chip_number(self.chip_path)

    def request(self, offset: int, settings: gpiod.LineSettings) -> gpiod.LineRequest:
        if self._chip is None:
            raise PinInvalidPin("the pin factory is closed")
        if offset >= self.chip_lines:
            raise PinInvalidPin(f"GPIO{offset} is not on {self.chip_path} "
                                f"({self.chip_lines} lines)")
        try:
            return self._chip.request_lines({offset: settings}, consumer=CONSUMER)
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise
            holder = self._chip.get_line_info(offset).consumer or "another program"
            raise GPIOPinInUse(f"GPIO{offset} is in use by {holder}") from exc

    def close(self) -> None:
        super().close()  # every pin's line released
        self.edges.close()
        self.pwm.close()
        if self._chip is not None:
            self._chip.close()
            self._chip = None


class GpiodPin(LocalPiPin):
    """One header pin: its settings, and the line request that holds them while it is used."""

    _factory: GpiodFactory

    def __init__(self, factory: GpiodFactory, info: Any) -> None:
        super().__init__(factory, info)
        self._lock = threading.RLock()
        self._req: gpiod.LineRequest | None = None
        self._reset()
        self._apply()

    def _reset(self) -> None:
        self._function = "input"
        self._pull = self._info.pull or "floating"
        self._edges = "both"
        self._bounce: float | None = None
        self._level = False
        self._pwm: tuple[float, float] | None = None  # frequency, duty
        self._pwm_turn = 0
        self._watching = False

    # -- the line request ------------------------------------------------------------------

    def _settings(self) -> gpiod.LineSettings:
        if self._function == "output":
            return gpiod.LineSettings(direction=Direction.OUTPUT,
                                      output_value=Value.ACTIVE if self._level else
                                      Value.INACTIVE)
        return gpiod.LineSettings(
            direction=Direction.INPUT, bias=_PULLS[self._pull],
            edge_detection=_EDGES[self._edges] if self._watching else Edge.NONE,
            debounce_period=timedelta(seconds=self._bounce or 0))

    def _apply(self) -> None:
        with self._lock:
            settings = self._settings()
            if self._req is None:
                self._req = self._factory.request(self._number, settings)
                os.set_blocking(self._req.fd, False)  # a read finds the events or none
            else:
                self._req.reconfigure_lines({self._number: settings})
            if self._watching and self._function == "input":
                self._factory.edges.watch(self._req.fd, self._read_events)

    def _request(self) -> gpiod.LineRequest:
        if self._req is None:  # used again after close(): as new
            self._apply()
        assert self._req is not None
        return self._req

    def close(self) -> None:
        """The line released (a pin used again later is requested afresh)."""
        with self._lock:
            self._factory.pwm.stop(self)
            req, self._req = self._req, None
            if req is not None:
                self._factory.edges.unwatch(req.fd)
                req.release()
            self._reset()
            self._when_changed = None

    # -- function, state, pull -------------------------------------------------------------

    def _get_function(self) -> str:
        return self._function

    def _set_function(self, value: str) -> None:
        if value not in ("input", "output"):
            raise PinInvalidFunction(f'invalid function "{value}" for pin {self!r}')
        with self._lock:
            self._stop_pwm()
            self._function = value
            self._apply()

    def output_with_state(self, state: Any) -> None:
        with self._lock:
            self._stop_pwm()
            self._function, self._level = "output", bool(state)
            self._apply()

    def input_with_pull(self, pull: str) -> None:
        self._check_pull(pull, input_now=True)
        with self._lock:
            self._stop_pwm()
            self._function, self._pull = "input", pull
            self._apply()

    def _get_state(self) -> float | bool:
        with self._lock:
            if self._pwm is not None:
                return self._pwm[1]
            return self._request().get_value(self._number) == Value.ACTIVE

    def _set_state(self, value: Any) -> None:
        with self._lock:
            if self._pwm is not None:
                if not 0 <= value <= 1:
                    raise PinInvalidState(f'invalid state "{value}" for pin {self!r}')
                self._pwm = (self._pwm[0], float(value))
                self._start_pwm()
            elif self._function == "input":
                raise PinSetInput(f"cannot set state of pin {self!r}")
            else:
                self._write(bool(value))

    def _write(self, level: bool) -> None:
        with self._lock:
            self._level = level
            self._request().set_value(self._number, Value.ACTIVE if level else Value.INACTIVE)

    def _start_pwm(self) -> None:
        """The PWM thread takes this duty; a toggle it decided on before is dropped."""
        assert self._pwm is not None
        self._pwm_turn += 1
        turn = self._pwm_turn
        self._factory.pwm.set(self, lambda level: self._pwm_write(level, turn), *self._pwm)

    def _pwm_write(self, level: bool, turn: int) -> None:
        with self._lock:
            if self._pwm is not None and turn == self._pwm_turn:
                self._write(level)

    def _check_pull(self, value: str, input_now: bool = False) -> None:
        if not input_now and self._function != "input":
            raise PinFixedPull(f"cannot set pull on non-input pin {self!r}")
        if value not in _PULLS:
            raise PinInvalidPull(f'invalid pull "{value}" for pin {self!r}')
        if self._info.pull not in (value, ""):
            raise PinFixedPull(f"{self!r} has a physical pull-{self._info.pull} resistor")

    def _get_pull(self) -> str:
        return self._pull

    def _set_pull(self, value: str) -> None:
        self._check_pull(value)
        with self._lock:
            self._pull = value
            self._apply()

    # -- PWM (software) --------------------------------------------------------------------

    def _get_frequency(self) -> float | None:
        return None if self._pwm is None else self._pwm[0]

    def _set_frequency(self, value: float | None) -> None:
        with self._lock:
            if value is None or value <= 0:
                self._stop_pwm()
                return
            if self._function != "output":
                raise PinPWMFixedValue(f"cannot start PWM on pin {self!r}")
            duty = 0.0 if self._pwm is None else self._pwm[1]
            self._pwm = (float(value), duty)
            self._start_pwm()

    def _stop_pwm(self) -> None:
        if self._pwm is not None:
            self._factory.pwm.stop(self)
            self._pwm = None
            self._pwm_turn += 1
            self._write(False)

    # -- edges -----------------------------------------------------------------------------

    def _get_bounce(self) -> float | None:
        return self._bounce

    def _set_bounce(self, value: float | None) -> None:
        if value is not None and value < 0:
            raise PinInvalidBounce("bounce must be 0 or greater")
        with self._lock:
            self._bounce = value or None
            if self._function == "input":
                self._apply()

    def _get_edges(self) -> str:
        return self._edges

    def _set_edges(self, value: str) -> None:
        if value not in _EDGES:
            raise PinInvalidEdges(f'invalid edge specification "{value}" for pin {self!r}')
        with self._lock:
            self._edges = value
            if self._watching and self._function == "input":
                self._apply()

    def _enable_event_detect(self) -> None:
        with self._lock:
            self._watching = True
            self._apply()

    def _disable_event_detect(self) -> None:
        with self._lock:
            self._watching = False
            if self._req is not None:
                self._factory.edges.unwatch(self._req.fd)
                self._apply()

    def _read_events(self) -> None:
        """On the watch thread: the events waiting, each to ``when_changed`` with its kernel
        time in seconds (CLOCK_MONOTONIC) and the level it left."""
        with self._lock:
            req = self._req
            if req is None or not self._watching:
                return
            try:
                events = req.read_edge_events()
            except BlockingIOError:  # none waiting (a descriptor reused since epoll saw it)
                return
        for event in events:
            if self._when_changed is None:
                return
            rising = event.event_type is gpiod.EdgeEvent.Type.RISING_EDGE
            self._call_when_changed(event.timestamp_ns / 1e9, int(rising))
