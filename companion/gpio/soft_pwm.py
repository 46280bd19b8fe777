"""Software PWM for lines that have no PWM of their own (a gpiod line): one thread toggles every
line whose duty is strictly between 0 and 1, and sleeps while none is. Good for an LED's
brightness and a motor driver's input; not for servos (the timing is Python's)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

Write = Callable[[bool], None]


@dataclass
class _Line:
    write: Write
    period: float
    duty: float
    level: bool = False
    due: float = 0.0


class SoftPwm:
    def __init__(self, name: str = "soft-pwm") -> None:
        self._name = name
        self._lines: dict[object, _Line] = {}
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def set(self, key: object, write: Write, frequency: float, duty: float) -> None:
        """Drive ``write`` at ``frequency`` Hz with ``duty`` (0..1); 0 and 1 are steady levels."""
        with self._changed:
            line = self._lines.get(key)
            if line is None:
                line = self._lines[key] = _Line(write, 1 / frequency, duty)
            line.write, line.period, line.duty = write, 1 / frequency, duty
            if duty <= 0 or duty >= 1:
                line.level = duty >= 1
                write(line.level)
            elif self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            line.due = time.monotonic()  # the new duty from now
            self._changed.notify_all()

    def stop(self, key: object) -> None:
        """The line left alone again (at the level it has)."""
        with self._changed:
            self._lines.pop(key, None)
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._lines.clear()
            self._changed.notify_all()
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)

    def _run(self) -> None:
        """Toggles what is due, outside the lock (a pin's own lock is taken by its write)."""
        while True:
            due: list[tuple[Write, bool]] = []
            with self._changed:
                if self._closed:
                    return
                now = time.monotonic()
                wake: float | None = None
                for line in self._lines.values():
                    if not 0 < line.duty < 1:
                        continue
                    if line.due <= now:
                        line.level = not line.level
                        due.append((line.write, line.level))
                        held = line.period * (line.duty if line.level else 1 - line.duty)
                        # late (a busy machine): on from now, never catching up
                        line.due = line.due + held if line.due + held > now else now + held
                    wake = line.due if wake is None else min(wake, line.due)
                if not due:
                    self._changed.wait(None if wake is None else wake - now)
            for write, level in due:
                write(level)
