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
from collections.abc import Awaitable, Iterator
from typing import TYPE_CHECKING

from companion.app import commands as c
from companion.app.contract import Table
from companion.config import Config
from companion.core.state import TableState
from companion.daemon import Daemon
from companion.events import (
    SOUNDING,
    BlockOutcome,
    CardTapped,
    Event,
    PressIgnored,
    StateChanged,
    StorageChanged,
    TimerChanged,
)
from companion.exc import CompanionError
from companion.i18n import Translator, translator
from companion.i18n.said import Said, say, say_n, words

if TYPE_CHECKING:
    from companion.web.server import WebServer

PRESS_HOLD = 0.06
"""How long the demo 'finger' holds the button down."""

HELP = say("""Question Block demo: press Enter or Space to press the block, q to quit.
  1-6 make that player current, 0 nobody (outcomes wait, unassigned), n next player,
  g pass GO, u undo the last move, l pull the lever back and let go (timer).""")

NO_SOUND = say("no sound on this machine: outcomes are shown here and on the tablet "
               "(companion doctor says why)")

LEVER_HOLD = 0.4
"""How long the demo holds the lever back (wind-up mode gives time in proportion)."""


def describe(event: Event, tr: Translator | None = None) -> str | None:
    """One line for the terminal (None: nothing worth a line), in ``tr``'s language (None:
    English)."""
    if isinstance(event, BlockOutcome):
        if event.sound_played:
            return words(say("press {number}: {description}", number=event.number,
                             description=event.description), tr)
        return words(say("press {number}: {description}  (no sound)", number=event.number,
                         description=event.description), tr)
    if isinstance(event, StateChanged):
        bank = words(say("bank: {summary}", summary=event.summary), tr)
        if event.state.ended and event.action != "mode":
            return f"  {bank}\n  " + words(say("game over: {standings}",
                                                standings=standings_line(event.state, tr)), tr)
        return f"  {bank}\n  {_what(event.state, tr)}"
    if isinstance(event, TimerChanged):
        if event.what == "started":
            return words(say("timer: {seconds} s ({source}): {label}",
                             seconds=f"{event.duration:.0f}", source=event.source,
                             label=_word(event.label)), tr)
        return words(say("timer: time's up!") if event.what == "time_up" else
                     say("timer: stopped ({source})", source=event.source), tr)
    if isinstance(event, CardTapped):
        return words(say("card {uid}: {did}", uid=event.uid, did=event.did), tr)
    if isinstance(event, PressIgnored):
        if event.reason == SOUNDING:
            return words(say("press ignored: {reason} (the Hasbro unit does the same)",
                             reason=_word(event.reason)), tr)
        return words(say("press ignored: {reason}", reason=_word(event.reason)), tr)
    if isinstance(event, StorageChanged):
        return "  " + words(say("bank: {summary}",
                                summary=event.storage.warning or event.summary), tr)
    return None


def _word(text: str | Said) -> str | Said:
    """A fixed line of the core given as plain text (the timer's label): looked up in the
    catalog."""
    return Said(text) if isinstance(text, str) and text else text


def _what(state: TableState, tr: Translator | None = None) -> str:
    """``coins: Mario 33 | ...`` (or worms), in ``tr``'s language."""
    line = balances_line(state, tr)
    return words(say("coins: {balances}", balances=line) if state.game.bank else
                 say("worms: {balances}", balances=line), tr)


def standings_line(state: TableState, tr: Translator | None = None) -> str:
    """``1. Mario 150 | 2. Luigi 120``: the final standings."""
    parts = []
    for row in state.standings:
        score = row.total if row.total is not None else row.worms if row.worms is not None \
            else row.coins
        parts.append(f"{row.rank}. {words(state.name_of(row.player), tr)} {score}")
    return " | ".join(parts)


def balances_line(state: TableState, tr: Translator | None = None) -> str:
    """``Mario 33 | *Luigi 30 | Peach -2 (owes)``; the current player starred."""
    parts = []
    for p in state.players:
        star = "*" if p.current else ""
        if p.out:
            parts.append(words(say("{name} (out)", name=p.name), tr))
        elif p.worms is not None:
            parts.append(star + words(say_n("{name} {n} worm", "{name} {n} worms", p.worms,
                                            name=p.name), tr))
        elif p.owes:
            parts.append(star + words(say("{name} {balance} (owes)", name=p.name,
                                          balance=p.balance), tr))
        else:
            parts.append(f"{star}{p.name} {p.balance}")
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
    if config.game.awaits_setup:  # a demo's game is played, not set up: the setup's stand-ins
        # are its players (a press goes to the current one, as at a table), in a scratch folder
        # or the one it was given
        players = config.game.first_players()
        config = dataclasses.replace(config, game=dataclasses.replace(config.game, players=players))
    try:
        return await _run_demo(config, seed=seed, auto=auto)
    finally:
        if scratch is not None:
            scratch.cleanup()


def _tablet_links(server: WebServer, tr: Translator) -> None:
    """The tablet link on this machine, and one for a phone on the network with its QR code
    (in a terminal), as ``companion link`` prints it."""
    print("  " + words(say("tablet on this computer: {link}", link=server.tablet_link), tr),
          flush=True)
    lan = server.lan_link()
    if lan is None:  # no network, or served on loopback only
        return
    print("  " + words(say("from a phone or tablet on this network: {link}", link=lan), tr),
          flush=True)
    if sys.stdout.isatty():
        import segno

        segno.make(lan, error="m").terminal(compact=True)


class Console:
    """The demo's own frontend: prints every event, and reads the keyboard (or a pipe)."""

    name = "console"
    needed_at_table = True
    healthy = True

    def __init__(self, tr: Translator | None = None) -> None:
        self.table: Table | None = None
        self._unsubscribe: object = None
        self.tr = tr
        """The table's language (None: English)."""

    async def start(self, table: Table) -> None:
        self.table = table
        self._unsubscribe = table.subscribe(self._show)

    def _show(self, event: Event) -> None:
        line = describe(event, self.tr)
        if line is not None:
            print(line, flush=True)

    async def stop(self) -> None:
        if callable(self._unsubscribe):
            self._unsubscribe()

    def status(self) -> str:
        return "demo console"


async def _run_demo(config: Config, *, seed: int | None, auto: int | None) -> int:
    from gpiozero.pins.mock import MockFactory

    from companion.frontends import from_config
    from companion.web.server import WebFrontend

    rng = random.Random(seed) if seed is not None else None
    factory = MockFactory()
    app = Daemon(config, pin_factory=factory, rng=rng)
    app.speaker.told_elsewhere = True  # in the welcome, not as a warning before it
    tr = translator(config.table.language)
    console = Console(tr)
    frontends = [*from_config(config, on_quit=app.request_stop_from_thread,
                              any_port_if_taken=True), console]
    web = next((f for f in frontends if isinstance(f, WebFrontend)), None)
    table = app.table
    loop = asyncio.get_running_loop()
    runner = asyncio.create_task(app.run(frontends))
    ready = asyncio.ensure_future(app.ready.wait())
    await asyncio.wait([ready, runner], return_when=asyncio.FIRST_COMPLETED)

    def finger(pin_number: int, hold: float) -> None:
        """Press a mock pin down and let it go: the same path as a real button or lever."""
        pin = factory.pin(pin_number)
        pin.drive_low()
        loop.call_later(hold, pin.drive_high)

    def lever() -> None:
        if app.lever.switch is None:
            background.add(loop.create_task(table.act(c.StartTimer(), source="keyboard")))
            return
        finger(config.lever.pin, LEVER_HOLD)

    def press() -> None:
        if app.button is None:
            table.press(source="keyboard")
            return
        finger(config.block.pin, PRESS_HOLD)

    async def wait_quiet() -> None:
        while not (await table.read(c.GetHealth())).quiet:
            await asyncio.sleep(0.05)
        await asyncio.sleep(PRESS_HOLD + 0.05)

    async def goodbye() -> int:
        health = await table.read(c.GetHealth())
        print(words(say_n("bye: {n} press, {ignored} ignored while sounding",
                          "bye: {n} presses, {ignored} ignored while sounding",
                          health.presses, ignored=health.ignored), tr), flush=True)
        return 0

    background: set[asyncio.Task[object]] = set()
    if auto is not None:
        for _ in range(auto):
            press()
            await asyncio.sleep(PRESS_HOLD)
            await wait_quiet()
        app.request_stop()
        await runner
        return await goodbye()

    interactive = sys.stdin.isatty()
    print(words(HELP, tr), flush=True)
    if not app.speaker.available:
        print("  " + words(NO_SOUND, tr), flush=True)
    if web is not None and web.server is not None:
        _tablet_links(web.server, tr)
    seen: list[TableState] = []  # the table as last heard: which player a seat key means
    if app.bank is not None:
        seen.append(await table.read(c.GetState()))
        print(f"  {_what(seen[-1], tr)}", flush=True)
    table.subscribe(lambda event: seen.__setitem__(slice(None), [event.state])
                    if isinstance(event, StateChanged) else None)
    fd = sys.stdin.fileno()

    def bank_key(ch: str) -> None:
        """Ask the table (on the loop, in typing order with the presses' pin edges)."""
        players = seen[-1].players if seen else ()
        command: c.Command[object]
        if ch == "n":
            command = c.Move("next_player")
        elif ch == "g":
            command = c.Move("pass_go")
        elif ch == "u":
            command = c.Move("undo")
        elif ch == "0":
            command = c.Move("set_current", {"player": None})
        elif int(ch) > len(players):
            print("  " + words(say("bank: there is no player {key}", key=ch), tr), flush=True)
            return
        else:
            command = c.Move("set_current", {"player": players[int(ch) - 1].id})
        try:
            pending = table.act(command, source="keyboard")
        except CompanionError as exc:
            print("  " + words(say("bank: {error}", error=exc.said), tr), flush=True)
            return
        background.add(loop.create_task(_answer(pending)))

    async def _answer(pending: Awaitable[object]) -> None:
        try:
            await pending
        except CompanionError as exc:
            print("  " + words(say("bank: {error}", error=exc.said), tr), flush=True)

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
                loop.call_soon(press)  # in typing order with the keys before it
            elif ch in "lL":
                lever()
            elif ch in "ngu0123456" and app.bank is not None:
                loop.call_soon(bank_key, ch)  # in typing order with the presses before it

    async def _stop_when_quiet() -> None:
        await asyncio.gather(*[t for t in background if t is not asyncio.current_task()],
                             return_exceptions=True)
        await wait_quiet()
        app.request_stop()

    ctx = _cbreak(fd) if interactive else contextlib.nullcontext()
    with ctx:
        try:
            loop.add_reader(fd, on_input)
        except (PermissionError, ValueError, OSError):
            # A regular file or /dev/null can't be watched: no keys, run until a signal.
            print(words(say("(no keyboard: stdin is not a terminal or pipe; stop with Ctrl-C or "
                            "SIGTERM)"), tr), flush=True)
        try:
            await runner
        finally:
            with contextlib.suppress(ValueError, OSError):
                loop.remove_reader(fd)
            for task in background:
                task.cancel()
    return await goodbye()
