"""The table service: the one :class:`companion.app.contract.Table` every frontend uses.

It owns what happens at the table on the event loop: a press draws and sounds at once and
banks the outcome on the bank's writer thread; a command becomes a bank operation (in order,
one at a time) or a lever-timer change; every change is published on the bus with the table's
new state. The hardware around it (pins, the speaker's device, the bank file) is the daemon's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

from companion.app import commands as c
from companion.app.bus import Bus
from companion.app.card_taps import CardTaps
from companion.app.contract import Command, Query
from companion.audio.library import SoundLibrary
from companion.audio.speaker import Priority, Speaker
from companion.bank.bank import Bank
from companion.bank.service import BankService
from companion.core.block import Block
from companion.core.ledger import Entry
from companion.core.lever import TimerState
from companion.core.state import OutcomeView, TableState
from companion.events import BankChanged, BlockOutcome, Event, Listener, PressIgnored
from companion.exc import Refused, Unavailable
from companion.presets import all_presets

log = logging.getLogger(__name__)
T = TypeVar("T")


class Lever(Protocol):
    """The lever timer as the service drives it (:class:`companion.lever_control.LeverControl`
    on the Pi: the lever switch, the motor and the running sounds)."""

    @property
    def running(self) -> bool: ...

    @property
    def quiet(self) -> bool: ...

    def start(self, seconds: float | None = None, source: str = "tablet") -> TimerState: ...

    def stop(self, source: str = "tablet") -> TimerState: ...

    def toggle(self, source: str) -> TimerState: ...

    def state(self) -> TimerState: ...

    def note_edition(self, edition: str) -> None: ...


class TableService:
    """Presses, commands, reads and events for one table."""

    def __init__(self, *, block: Block, library: SoundLibrary, speaker: Speaker,
                 lever: Lever, bus: Bus, clock: Callable[[], float],
                 bank: BankService | None = None,
                 card_names: Mapping[str, str] | None = None) -> None:
        self.block = block
        self.library = library
        self.speaker = speaker
        self.lever = lever
        self.bus = bus
        self.clock = clock
        self.bank = bank
        self.cards = CardTaps(card_names or {}, bus.publish)
        self.closed = False
        self._tasks: set[asyncio.Future[Any]] = set()

    # -- the contract ----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self.bus.subscribe(listener)

    def press(self, source: str = "button", at: float | None = None) -> Event:
        """Press the block (on the loop): draw, sound and announce the outcome; bank it."""
        if self.closed:
            raise RuntimeError("the companion is stopped")
        at = self.clock() if at is None else at
        outcome = self.block.press(at)
        if outcome is None:
            event: Event = PressIgnored(at, source)
            log.info("press ignored (%s): the last outcome is still sounding", source)
        else:
            played = self.speaker.play(self.library.for_outcome(outcome), Priority.OUTCOME)
            event = BlockOutcome(self.block.presses, outcome, at, source, played,
                                 self.library.coin_period)
            log.info("press %d (%s): %s", event.number, source, outcome.describe())
            if self.bank is not None:
                self._background(self._write(
                    "outcome", lambda bank: bank.record_outcome(outcome, source=source)))
        self.bus.publish(event)
        return event

    def act(self, command: Command[T], *, source: str = "tablet",
            request_id: str | None = None) -> Awaitable[T]:
        """Carry out a command. A bank command is queued on the writer thread at once (so a
        ``close()`` right after still writes it); await the answer."""
        if isinstance(command, c.StartTimer | c.StopTimer | c.ToggleTimer):
            return _done(self._timer(command, source))
        if isinstance(command, c.Tap):
            return self.cards.tap(self, command.uid, source)  # type: ignore[return-value]
        return self._write(command.action,
                           lambda bank: _bank_operation(bank, command, source, request_id))

    async def read(self, query: Query[T]) -> T:
        result: Any
        match query:
            case c.GetState():
                result = (await self._bank(lambda bank: bank.state())).with_timer(
                    self.lever.state())
            case c.GetJournal(game=game):
                result = await self._bank(lambda bank: bank.journal_json(game))
            case c.GetTimer():
                result = self.lever.state()
            case c.GetEditions():
                result = [p.to_json() for p in all_presets().values()]
            case c.CardMeaning(uid=uid, named=named):
                result = await self._bank(lambda bank: bank.card_meaning(uid, dict(named)))
            case c.GetActivity():
                linked: set[str] = set()
                actions: dict[str, str] = {}
                if self.bank is not None:  # without a bank, the taps still show
                    linked, actions = await self._bank(_linked_cards)
                result = {"activity": list(self.cards.feed),
                          "new_cards": self.cards.new_cards(linked), "card_actions": actions}
            case c.GetHealth():
                result = self.health()
            case _:
                raise TypeError(f"unknown query {query!r}")
        return result  # type: ignore[no-any-return]

    # -- the rest of the service (the daemon's side) ---------------------------------------

    def health(self) -> c.Health:
        now = self.clock()
        quiet = not self.block.is_sounding(now) and self.lever.quiet and not self.speaker.busy
        return c.Health(bank=self.bank is not None, sound=self.speaker.available,
                        presses=self.block.presses, ignored=self.block.ignored, quiet=quiet)

    async def drain(self) -> None:
        """Wait for the bank writes under way (a press's outcome)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def close(self) -> None:
        """Later presses are refused; queued bank writes still finish (the bank closes last)."""
        self.closed = True

    def publish(self, event: Event) -> None:
        self.bus.publish(event)

    # -- inside ----------------------------------------------------------------------------

    def _timer(self, command: Command[Any], source: str) -> Any:
        if isinstance(command, c.StartTimer):
            return self.lever.start(_seconds(command.seconds), source=source)
        if isinstance(command, c.StopTimer):
            return self.lever.stop(source=source)
        return self.lever.toggle(source)

    def _bank(self, fn: Callable[[Bank], T]) -> asyncio.Future[T]:
        if self.bank is None:
            raise Unavailable("the bank is unavailable")
        return self.bank.call(fn)

    def _write(self, action: str, fn: Callable[[Bank], T]) -> Awaitable[T]:
        """Queue a bank write and the state after it; listeners get the new state."""
        if self.bank is None:
            raise Unavailable("the bank is unavailable")

        def run(bank: Bank) -> tuple[T, TableState]:
            result = fn(bank)
            return result, bank.state()

        return self._announce(action, self.bank.call(run))

    async def _announce(self, action: str,
                        pending: asyncio.Future[tuple[T, TableState]]) -> T:
        try:
            result, state = await pending
        except Refused:
            raise
        except Exception:
            log.exception("bank %s failed", action)
            raise
        state = state.with_timer(self.lever.state())
        self.lever.note_edition(state.game.edition)
        summary = describe_result(result, state)
        log.info("bank %s: %s", action, summary)
        self.bus.publish(BankChanged(action, summary, state))
        return result

    def _background(self, pending: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(pending)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background bank write failed: %s", task.exception())


MAX_TIMER_SECONDS = 3600


def _seconds(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not 1 <= value <= MAX_TIMER_SECONDS:
        raise Refused(f"seconds must be a number from 1 to {MAX_TIMER_SECONDS} (or left out "
                      "for the configured time)")
    return float(value)


async def _done(value: T) -> T:
    return value


def _bank_operation(bank: Bank, command: Command[Any], source: str,
                    request_id: str | None) -> Any:
    """Carry out a bank command on the writer thread."""
    match command:
        case c.Transfer(payer=payer, payee=payee, amount=amount, note=note):
            return bank.transfer(payer, payee, amount, note=note, source=source,
                                 request_id=request_id)
        case c.PassGo(player=player):
            if player is c.CURRENT:
                player = bank.current_player()
                if player is None:
                    raise Refused("nobody is current: make a player current first")
            return bank.pass_go(player, source=source, request_id=request_id)
        case c.Undo():
            return bank.undo(source=source, request_id=request_id)
        case c.SetCurrent(player=player):
            return bank.set_current(player)
        case c.NextPlayer():
            return bank.next_player()
        case c.NewGame(edition=edition, players=players, colours=colours):
            return bank.new_game(edition, players, colours)  # type: ignore[arg-type]
        case c.Assign(outcome=outcome, player=player):
            return bank.assign_outcome(outcome, player, source=source)
        case c.LinkCard(uid=uid, player=player):
            return bank.set_card(player, uid)
        case c.SetCardAction(uid=uid, card_action=action):
            return bank.set_card_action(uid, action)
    raise TypeError(f"unknown command {command!r}")


def _linked_cards(bank: Bank) -> tuple[set[str], dict[str, str]]:
    actions = bank.card_actions()
    linked = {p.card_uid for p in bank.players() if p.card_uid} if bank.latest_game() else set()
    return linked | set(actions), actions


def describe_result(result: object, state: TableState) -> str:
    """One line about a bank write, with names instead of ids."""
    if isinstance(result, OutcomeView):
        if result.player_id is None:
            return f"outcome #{result.id} is unassigned (nobody is current)"
        player = state.player(result.player_id)
        delta = result.outcome.coin_delta
        sign = f"+{delta}" if delta > 0 else str(delta)
        balance = player.balance if player is not None else None
        money = f"{sign} -> {balance} coins" if delta else "no coins"
        return f"{state.name_of(result.player_id)} {money}"
    if isinstance(result, Entry):
        return (f"{state.name_of(result.payer)} pays {state.name_of(result.payee)} "
                f"{result.amount} ({result.kind.value}{': ' + result.note if result.note else ''})")
    if isinstance(result, int) and state.player(result) is not None:
        return f"{state.name_of(result)} is current"
    if result is None:
        return "nobody is current"
    return str(result)
