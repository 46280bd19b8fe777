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
import tempfile
import termios
import tty
from collections.abc import Iterator

from companion.bank import Bank
from companion.config import Config
from companion.core.ledger import LedgerError
from companion.daemon import Companion
from companion.events import BankChanged, BlockOutcome, Event, TimerChanged

PRESS_HOLD = 0.06
"""How long the demo 'finger' holds the button down."""

HELP = """Question Block demo: press Enter or Space to press the block, q to quit.
  1-6 make that player current, 0 nobody (outcomes wait, unassigned), n next player,
  g pass GO, u undo the last coin movement, l pull the lever back and let go (timer)."""

LEVER_HOLD = 0.4
"""How long the demo holds the lever back (wind-up mode gives time in proportion)."""


def describe(event: Event) -> str:
    """One line for the terminal."""
    if isinstance(event, BlockOutcome):
        sound = "" if event.sound_played else "  (no sound)"
        return f"press {event.number}: {event.outcome.describe()}{sound}"
    if isinstance(event, BankChanged):
        return f"  bank: {event.summary}\n  coins: {balances_line(event.state)}"
    if isinstance(event, TimerChanged):
        if event.what == "started":
            return f"timer: {event.duration:.0f} s ({event.source}): {event.label}"
        return "timer: time's up!" if event.what == "time_up" else \
            f"timer: stopped ({event.source})"
    return "press ignored: the block is still sounding (the Hasbro unit does the same)"


def balances_line(state: dict[str, object]) -> str:
    """``Mario 33 | *Luigi 30 | Peach -2 (owes)``; the current player starred."""
    parts = []
    for p in state["players"]:  # type: ignore[attr-defined]
        star = "*" if p["current"] else ""
        owes = " (owes)" if p["owes"] else ""
        parts.append(f"{star}{p['name']} {p['balance']}{owes}")
    return " | ".join(parts)


@contextlib.contextmanager
def _cbreak(fd: int) -> Iterator[None]:
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


async def run_demo(config: Config, *, seed: int | None = None, auto: int | None = None,
                   audio: str | None = None, display: str = "auto") -> int:
    """Run the demo until 'q', EOF on a pipe, Ctrl-C or SIGTERM.

    ``display``: "on" shows the small screen (a window on a desktop), "off" never, "auto" (when
    there is a desktop to put the window on, or when the config turns it on)."""
    from companion.display import has_desktop

    show = {"on": True, "off": False}.get(display, config.display.enabled or has_desktop())
    config = dataclasses.replace(config, display=dataclasses.replace(config.display,
                                                                     enabled=show))
    if audio:
        config = dataclasses.replace(config, audio=dataclasses.replace(config.audio, backend=audio))
    scratch = None
    if not config.data.dir:  # a demo keeps its bank in a scratch folder unless told otherwise
        scratch = tempfile.TemporaryDirectory(prefix="companion-demo-")
        config = dataclasses.replace(config, data=dataclasses.replace(config.data,
                                                                      dir=scratch.name))
    try:
        return await _run_demo(config, seed=seed, auto=auto)
    finally:
        if scratch is not None:
            scratch.cleanup()


async def _run_demo(config: Config, *, seed: int | None, auto: int | None) -> int:
    from gpiozero.pins.mock import MockFactory

    rng = random.Random(seed) if seed is not None else None
    app = Companion(config, pin_factory=MockFactory(), rng=rng)
    app.web_any_port_if_taken = True
    app.listeners.append(lambda event: print(describe(event), flush=True))
    loop = asyncio.get_running_loop()
    runner = asyncio.create_task(app.run())
    ready = asyncio.ensure_future(app.ready.wait())
    await asyncio.wait([ready, runner], return_when=asyncio.FIRST_COMPLETED)

    def lever() -> None:
        if app.lever.switch is None:
            app.lever.start(source="keyboard")
            return
        pin = app.lever.switch.pin
        pin.drive_low()
        loop.call_later(LEVER_HOLD, pin.drive_high)

    def press() -> None:
        if app.button is None:
            app.press(source="keyboard")
            return
        pin = app.button.pin
        pin.drive_low()
        loop.call_later(PRESS_HOLD, pin.drive_high)

    async def wait_quiet() -> None:
        while (app.block.is_sounding(app.clock()) or app.lever.timer.phase != "idle"
               or app.lever.timer.unsettled
               or app.speaker.busy):
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
    print(HELP, flush=True)
    if app.web is not None:
        print(f"  tablet: {app.web.tablet_link}  (from another device: this machine's address)",
              flush=True)
    if app.bank is not None:
        state = app.bank.run(lambda bank: bank.state())
        print(f"  coins: {balances_line(state)}", flush=True)
    fd = sys.stdin.fileno()

    async def bank_key(ch: str) -> None:
        try:
            if ch == "n":
                await app.act("next player", lambda bank: bank.next_player())
            elif ch == "g":

                def pass_go(bank: Bank) -> object:
                    current = bank.current_player()
                    if current is None:
                        raise LedgerError("nobody is current: press 1-6 first")
                    return bank.pass_go(current, source="keyboard")

                await app.act("pass GO", pass_go)
            elif ch == "u":
                await app.act("undo", lambda bank: bank.undo(source="keyboard"))
            elif ch == "0":
                await app.act("nobody current", lambda bank: bank.set_current(None))
            else:
                seat = int(ch) - 1

                def make_current(bank: Bank) -> int | None:
                    players = bank.players()
                    if seat >= len(players):
                        raise LedgerError(f"there is no player {seat + 1}")
                    return bank.set_current(players[seat].id)

                await app.act("current player", make_current)
        except LedgerError as exc:
            print(f"  bank: {exc}", flush=True)

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
            elif ch in "lL":
                lever()
            elif ch in "ngu0123456" and app.bank is not None:
                background.add(loop.create_task(bank_key(ch)))

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
