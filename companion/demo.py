"""``companion demo``: the real daemon on a laptop, with mock GPIO pins and the keyboard as the
block. Each key press drives the mock pin low and high again, so the press travels the same
path as on the Pi: pin edge -> debounce -> event loop -> dice -> speaker."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import random
import sys
import termios
import tty
from collections.abc import Iterator

from companion.config import Config
from companion.daemon import Companion
from companion.events import BlockOutcome, Event

PRESS_HOLD = 0.06
"""How long the demo 'finger' holds the button down."""


def describe(event: Event) -> str:
    """One line for the terminal."""
    if isinstance(event, BlockOutcome):
        sound = "" if event.sound_played else "  (no sound)"
        return f"press {event.number}: {event.outcome.describe()}{sound}"
    return "press ignored: the block is still sounding (the Hasbro unit does the same)"


@contextlib.contextmanager
def _cbreak(fd: int) -> Iterator[None]:
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


async def run_demo(config: Config, *, seed: int | None = None, auto: int | None = None,
                   audio: str | None = None) -> int:
    """Run the demo until 'q', EOF on a pipe, Ctrl-C or SIGTERM."""
    from gpiozero.pins.mock import MockFactory

    if audio:
        config = dataclasses.replace(config, audio=dataclasses.replace(config.audio, backend=audio))
    rng = random.Random(seed) if seed is not None else None
    app = Companion(config, pin_factory=MockFactory(), rng=rng)
    app.listeners.append(lambda event: print(describe(event), flush=True))
    loop = asyncio.get_running_loop()
    runner = asyncio.create_task(app.run())
    await asyncio.sleep(0)  # let run() start the app

    def press() -> None:
        if app.button is None:
            app.press(source="keyboard")
            return
        pin = app.button.pin
        pin.drive_low()
        loop.call_later(PRESS_HOLD, pin.drive_high)

    async def wait_quiet() -> None:
        while app.block.is_sounding(app.clock()):
            await asyncio.sleep(0.05)
        await asyncio.sleep(PRESS_HOLD + 0.05)

    def goodbye() -> int:
        block = app.block
        print(f"bye: {block.presses} presses, {block.ignored} ignored while sounding", flush=True)
        return 0

    if auto is not None:
        for _ in range(auto):
            press()
            await asyncio.sleep(PRESS_HOLD)
            await wait_quiet()
        app.request_stop()
        await runner
        return goodbye()

    background: set[asyncio.Task[None]] = set()
    interactive = sys.stdin.isatty()
    print("Question Block demo: press Enter or Space to press the block, q to quit.", flush=True)
    fd = sys.stdin.fileno()

    def on_input() -> None:
        data = os.read(fd, 1024)
        if not data:
            loop.remove_reader(fd)
            # End of a scripted session: let the last sound finish, then stop.
            background.add(loop.create_task(_stop_when_quiet()))
            return
        for ch in data.decode(errors="ignore"):
            if ch in "qQ":
                app.request_stop()
                return
            if ch in " \n\r" and (interactive or ch == "\n"):
                press()

    async def _stop_when_quiet() -> None:
        await wait_quiet()
        app.request_stop()

    ctx = _cbreak(fd) if interactive else contextlib.nullcontext()
    with ctx:
        try:
            loop.add_reader(fd, on_input)
        except (PermissionError, ValueError, OSError):
            # A regular file or /dev/null can't be watched: no keys, run until a signal.
            print("(no keyboard: stdin is not a terminal or pipe; stop with Ctrl-C or SIGTERM)",
                  flush=True)
        try:
            await runner
        finally:
            with contextlib.suppress(ValueError, OSError):
                loop.remove_reader(fd)
    return goodbye()
