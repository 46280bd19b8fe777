"""The table service: the one :class:`companion.app.contract.Table` every frontend uses.

It owns what happens at the table on the event loop: a press is read by the edition's press
mode (the armed one, else the default), sounds at once and is banked on the bank's writer
thread; a command becomes a bank operation (in order, one at a time) or a lever-timer change;
every change is published on the bus with the table's new state. The rules all come from the
game's ruleset. The hardware around it (pins, the speaker's device, the bank file) is the
daemon's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from companion.app import commands as c
from companion.app.bus import Bus
from companion.app.card_taps import CardTaps
from companion.app.contract import Command, Query
from companion.app.press_gate import Plan, PressGate, Taken
from companion.audio.library import SoundLibrary
from companion.audio.speaker import Priority, Speaker
from companion.bank.bank import PAGE, Bank
from companion.bank.board_file import board_file
from companion.bank.gate import perform
from companion.bank.held import HeldPress
from companion.bank.moves import ACTIONS
from companion.bank.rendered import RenderedJournal
from companion.bank.ring import face_params
from companion.bank.seat import PAGE as SEAT_PAGE
from companion.bank.service import BankService
from companion.bank.store import StorageError
from companion.core.block import Block
from companion.core.board_ring import Effect as SpaceEffect
from companion.core.editions import Editions, editions
from companion.core.editions.modes import BY_CARD, Mode, check_arming
from companion.core.editions.ruleset import Ruleset
from companion.core.ledger import BANK, Entry, Payment
from companion.core.lever import TimerState
from companion.core.outcomes import Kind, Outcome
from companion.core.reasons import reason
from companion.core.setup import offer
from companion.core.state import (
    ModeView,
    MoveView,
    OutcomeView,
    StorageView,
    TableState,
    Undone,
)
from companion.events import (
    SOUNDING,
    BlockOutcome,
    Event,
    LeverPressed,
    Listener,
    PressIgnored,
    StateChanged,
    StorageChanged,
    TimerChanged,
)
from companion.exc import (
    CompanionError,
    GameEnded,
    Refused,
    SavedBeforeFailure,
    Unavailable,
    shown,
)
from companion.i18n.said import Said, say, say_n
from companion.tasks import wait_all

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

    def set_label(self, label: str | Said) -> None: ...


@dataclass(frozen=True, slots=True)
class Armed:
    """A press mode armed for the next press, in one game."""

    game: int | None
    mode: str
    params: Mapping[str, int] = field(default_factory=dict)


RETRY_S = 2.0
"""While the bank has a problem, how often it is tried again (the issue asks for 10 s)."""
WORMS_LABEL = say("Worms are moving!")
TIMER_LABEL = say("Time is running")


class TableService:
    """Presses, commands, reads and events for one table."""

    def __init__(self, *, block: Block, library: SoundLibrary, speaker: Speaker,
                 lever: Lever, bus: Bus, clock: Callable[[], float],
                 bank: BankService | None = None,
                 card_names: Mapping[str, str] | None = None,
                 rulesets: Editions | None = None, edition: str = "celebration") -> None:
        self.block = block
        self.library = library
        self.speaker = speaker
        self.gate = PressGate(block, speaker)
        """Presses from the block's own thread: sounded there, settled on the loop."""
        self._replan_due = False
        self.lever = lever
        self.bus = bus
        self.clock = clock
        self.bank = bank
        self.rendered = RenderedJournal()
        """The journal's JSON, kept per move for ``GET /api/journal``."""
        self.editions = rulesets if rulesets is not None else editions()
        self.edition = edition
        """The edition to play when there is no bank (no game to ask)."""
        self.actions = ACTIONS
        """Every move the table takes, declared once (:mod:`companion.bank.moves`): the web's
        routes and the API's description are made from it."""
        self.cards = CardTaps(card_names or {}, bus.publish)
        self.state: TableState | None = None
        """The table as of the last change: the press reads its mode and whether it ended."""
        self.armed: Armed | None = None
        self.closed = False
        self._enders = 0
        """Writes under way that may end the game (presses wait for them)."""
        self._tasks: set[asyncio.Future[Any]] = set()
        self._press_task: asyncio.Future[OutcomeView | None] | None = None
        """The bank write of the latest press (a frontend that waits for it awaits this)."""
        self._storage = StorageView()
        self._unbanked: dict[str, tuple[int | None, Outcome, int | None]] = {}
        """Presses drawn and not in the bank yet (on their way, or held while the disk
        refuses): every state the bank sends is shown with them, so the doubles run, the tries
        from Jail and whose turn it is stay as the table played them."""
        self._held_presses: set[str] = set()
        self._press_ids: dict[int, str] = {}
        self.parts: Callable[[], tuple[c.Part, ...]] = tuple
        self.speaking: Callable[[], bool] = lambda: False
        """A spoken line is due (the daemon's voice, when on): the table is not quiet yet."""
        """The hardware's parts for ``/healthz`` (the daemon's; none by default)."""
        bus.subscribe(self._heard)

    # -- the contract ----------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self.bus.subscribe(listener)

    def press(self, source: str = "button", at: float | None = None) -> Event:
        """Press the block (on the loop): read it by the press mode, sound and announce the
        outcome at once, then bank it."""
        if self.closed:
            raise RuntimeError("the companion is stopped")
        at = self.clock() if at is None else at
        self._settle()
        plan = self._plan()
        if isinstance(plan, Said):
            return self._ignored(at, source, plan)
        if plan is None:  # the block is a second lever
            timer = self.lever.toggle(source)
            event: Event = LeverPressed(at, source, timer.running)
            self.bus.publish(event)
            return event
        return self._finish(self.gate.press(plan, at, source))

    def settle(self) -> None:
        """On the loop, after a press sounded on the pin's thread (:attr:`gate`): its event,
        its place in the table and its bank write."""
        if not self.closed:
            self._settle()

    def _plan(self) -> Plan | Said | None:
        """What a press would mean now: its plan, why it would be ignored, or None when the
        block is a second lever."""
        if self.state is not None and self.state.ended:
            return say("the game has ended: undo reopens it, or start a new game")
        if self._enders:
            return say("a move that may end the game is being written: press again")
        rules = self.rules()
        mode, params = self._mode(rules)
        idle = self._nothing_to_roll(rules, mode)
        if idle is not None:
            return idle
        if params.get("teammate") == BY_CARD:
            return say("the battle waits for its teammate: tap their card, or pick them on "
                       "the tablet")
        if not mode.draws:
            return None
        state = self.state
        player = params.get("leader", params.get("player", _current(state)))
        outcome, dice = self.gate.dice.throw(lambda rng: mode.draw(rng, params))
        sound = self.library.for_outcome(outcome)
        race = state.race if state is not None else None
        if outcome.kind is Kind.RACE_ROLL and race is not None and \
                race.standing.roller is not None and race.rolled(outcome.rolls[-1]).over:
            sound = sound + self.library.sounds["race_finish"]
        return Plan(mode, params, state, player, outcome, sound,
                    self.block.sound_seconds(outcome), dice)

    def _finish(self, taken: Taken) -> Event:
        """A drawn press on the loop: announced, in the table's state, queued for the bank."""
        if not taken.counts:
            return self._ignored(taken.at, taken.source, SOUNDING)
        plan = taken.plan
        mode, params, state, player = plan.mode, plan.params, plan.state, plan.player
        outcome, sound = plan.outcome, plan.sound
        event = BlockOutcome(taken.number, outcome, taken.at, taken.source, taken.played,
                             self.library.coin_period, self.library.ping_start(outcome),
                             mode.headline(outcome), mode.instruction(outcome, params),
                             mode.describe(outcome, params), round(sound.seconds, 3), player)
        log.info("press %d (%s): %s", event.number, taken.source, event.description)
        self.armed = None  # a mode is for one press: back to the edition's default
        if outcome.kind is Kind.BATTLE_ROLL and state is not None:  # the teammate's die next
            self.armed = Armed(state.game.id, mode.id, {**params, "first": outcome.rolls[0]})
        if state is not None:  # the doubles, the Jail: as the bank will have them
            self.state = state.pressed(outcome, player)
        if self.bank is not None:
            held = HeldPress(uuid.uuid4().hex, time.time(), outcome, taken.source,
                             None if state is None else state.game.id,
                             _current(state), state is not None,
                             {k: v for k, v in params.items() if v is None or type(v) is int})
            self._unbanked[held.press_id] = (held.game, outcome, player)
            self._press_ids[taken.number] = held.press_id  # for its answer (the last few)
            while len(self._press_ids) > 16:
                del self._press_ids[next(iter(self._press_ids))]
            # Queued on the writer thread now (a close() right after still banks it).
            self._press_task = self._background(self._bank_press(held,
                                                                 self.bank.bank_press(held)))
        self.bus.publish(event)
        return event

    def _settle(self) -> None:
        """Before anything that may change what a press means: the presses that sounded on
        the pin's thread take their place first, and the plan on offer is withdrawn (the next
        is offered once the loop is free again)."""
        for taken in self.gate.withdraw():
            self._finish(taken)
        if self._replan_due or self.closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: every press goes through the loop's press()
            return
        self._replan_due = True
        loop.call_soon(self._replan)

    def _replan(self) -> None:
        """Offer the pin's thread what the next press means, as the table now stands."""
        self._replan_due = False
        for taken in self.gate.withdraw():  # sounded since the last settle
            self._finish(taken)
        plan = None if self.closed else self._plan()
        self.gate.offer(plan if isinstance(plan, Plan) else None)

    async def _bank_press(self, held: HeldPress, pending: asyncio.Future[
            tuple[OutcomeView | None, TableState | None]]) -> OutcomeView | None:
        """A press's outcome banked; when the disk refuses, it is held (and said so)."""
        assert self.bank is not None
        try:
            view, state = await pending
        except Exception:
            self._unbanked.pop(held.press_id, None)
            log.exception("press %s can't be banked", held.press_id)
            raise
        if view is None:
            self._held_presses.add(held.press_id)
            self._storage_changed(say("press not saved yet: {problem}",
                                      problem=self.bank.problem))
            return None
        self._unbanked.pop(held.press_id, None)  # the state after it has it
        if state is not None:  # else banked, and the next read shows it
            self._announced("outcome", view, state)
        if not self._storage.ok:
            self._storage_changed(say("saved"))
        return view

    async def _pressed(self, event: Event) -> c.Pressed:
        """A frontend's press, answered once its outcome is saved or held."""
        if not isinstance(event, BlockOutcome) or self.bank is None:
            return c.Pressed(event, getattr(event, "outcome", None))
        task = self._press_task
        assert task is not None
        record = await asyncio.shield(task)
        if record is None:
            storage = self.bank.status()
            return c.Pressed(event, event.outcome, held=self.bank.problem or say("saving"),
                             press_id=self._press_ids.get(event.number), on_disk=storage.kept)
        return c.Pressed(event, event.outcome, saved=True, record=record,
                         press_id=self._press_ids.get(event.number))

    async def _given_back(self, presses: tuple[HeldPress, ...]) -> dict[str, str]:
        """A page's copies of held presses: banked once each, or held here again."""
        if self.bank is None:
            raise Unavailable(say("the bank is unavailable"))
        self._settle()
        answer = await self.bank.give_back(presses)
        banked = sum(1 for how in answer.values() if how == "banked")
        if any(how == "banked" for p, how in answer.items()
               if p not in self._held_presses):  # news: banked from a page's copy
            with contextlib.suppress(CompanionError):
                state = await self._bank(lambda bank: bank.state())
                self._announced("storage", say_n(
                    "{n} press kept by a tablet is in the bank", "{n} presses kept by a "
                    "tablet are in the bank", banked), state)
        self._storage_changed(say("presses given back"))
        return answer

    def _storage_changed(self, summary: str | Said) -> None:
        """Tell every frontend how the bank stands (held presses, a problem, all well)."""
        assert self.bank is not None
        self._settle()
        storage = self.bank.status()
        if storage == self._storage:
            return
        self._storage = storage
        if self.state is not None:
            self.state = self.state.with_storage(storage)
        log.info("storage: %s (%s)", summary, storage.warning or "all saved")
        self.bus.publish(StorageChanged(summary, storage))

    async def keep_bank(self) -> None:
        """While the bank has a problem or presses are held, try again every few seconds: it
        re-opens by itself, banks what was held, and everyone hears it is back."""
        while not self.closed:
            await asyncio.sleep(RETRY_S)
            if self.bank is None or self.closed:
                continue
            status = self.bank.status()
            # (a bank that opened after the start gave up waiting for it: its state is read)
            if status.ok and not status.held and (self.state is not None or self._storage.ok):
                if not self._storage.ok or self._storage.held:
                    self._storage_changed(say("saved"))
                continue
            if not await self.bank.recover():
                self._storage_changed(say("still not saved"))
                continue
            try:
                state = await self._bank(lambda bank: bank.state())
            except CompanionError as exc:
                log.warning("the bank is back but its state can't be read: %s", exc)
                continue
            held = status.held
            summary = say_n("the bank is back: {n} held press saved",
                            "the bank is back: {n} held presses saved", held) if held else \
                say("the bank is back")
            self._announced("storage", summary, state)
            self._storage_changed(summary)

    def _ignored(self, at: float, source: str, reason: str | Said) -> Event:
        event = PressIgnored(at, source, reason)
        log.info("press ignored (%s): %s", source, reason)
        self.bus.publish(event)
        return event

    def act(self, command: Command[T], *, source: str = "tablet",
            request_id: str | None = None) -> Awaitable[T]:
        """Carry out a command. A bank command is queued on the writer thread at once (so a
        ``close()`` right after still writes it); await the answer."""
        if isinstance(command, c.Press):
            return self._pressed(self.press(source))  # type: ignore[return-value]
        if isinstance(command, c.StartTimer | c.StopTimer | c.ToggleTimer):
            return _done(self._timer(command, source))
        if isinstance(command, c.Tap):
            return self.cards.tap(self, command.uid, source)  # type: ignore[return-value]
        if isinstance(command, c.ArmMode):
            return self._arm(command)  # type: ignore[return-value]
        if isinstance(command, c.GiveBack):
            return self._given_back(command.presses)  # type: ignore[return-value]
        self._settle()  # a press that already sounded is banked before this write
        if isinstance(command, c.Move):
            return self._move(command, source, request_id)  # type: ignore[return-value]
        pending = self._write(command.action,
                              lambda bank: _bank_operation(bank, command, source, request_id),
                              _summary(command), request_id=request_id)
        return pending

    def _move(self, command: c.Move, source: str, request_id: str | None) -> Awaitable[Any]:
        """A move of the moves table: through the gate (its fields, who may make it and
        when), on the writer thread. One that may end the game holds presses back until
        it is written."""
        action = self.actions.get(command.name)
        if action is None:
            raise Refused(say("unknown move {value}", value=shown(command.name)))
        fields = dict(command.fields)
        pending = self._write(action.said_as, lambda bank: perform(
            bank, action, fields, source=source, request_id=request_id), action.summary,
                              request_id=request_id)
        return self._ending(pending) if action.ends else pending

    def _ending(self, pending: Awaitable[T]) -> asyncio.Future[T]:
        """A write that may end the game: presses wait for it from now on (a press drawn
        meanwhile could not be banked in a game that just ended)."""
        self._enders += 1
        task = asyncio.ensure_future(pending)
        task.add_done_callback(self._ended)
        return task

    def _ended(self, _task: asyncio.Future[Any]) -> None:
        self._enders -= 1
        self._settle()

    async def read(self, query: Query[T]) -> T:
        result: Any
        match query:
            case c.GetState():
                result = self._dress(await self._bank(lambda bank: bank.state()))
                self.state = result
            case c.GetJournal():
                result = await self._read_bank(lambda bank: _journal(bank, query))
            case c.JournalJSON(game=game, before=before, after=after, limit=limit):
                rendered = self.rendered
                result = await self._read_bank(lambda bank: rendered.whole(bank, game) if not
                                               query.paged else [rendered.page(
                                                   bank, game, before=before, after=after,
                                                   limit=limit)])
            case c.CanUndo(move=move):
                result = await self._read_bank(lambda bank: bank.check_undo(move))
            case c.ExportGame(game=game, fmt=fmt):
                from companion.bank.export import export_journal

                result = await self._read_bank(lambda bank: export_journal(bank, game, fmt))
            case c.ExportBoard():
                result = await self._read_bank(board_file)
            case c.GetCoins(game=game):
                from companion.bank.export import game_coins

                result = await self._read_bank(lambda bank: game_coins(bank, game))
            case c.GetRules():
                result = self.rules().to_json()
            case c.GetTimer():
                result = self.lever.state()
            case c.GetEditions():
                result = [r.summary() for r in self.editions.values()]
            case c.GetSetup():
                last = None if self.bank is None else \
                    await self._read_bank(lambda bank: bank.last_players())
                result = offer(self.editions, last, self.edition)
            case c.GetGames():
                result = await self._read_bank(lambda bank: bank.game_list())
            case c.CardMeaning(uid=uid, named=named):
                result = await self._bank(lambda bank: bank.card_meaning(uid, dict(named)))
            case c.GetActivity():
                linked: set[str] = set()
                actions: dict[str, str] = {}
                if self.bank is not None:  # without a bank, the taps still show
                    with contextlib.suppress(StorageError):
                        linked, actions = await self._bank(_linked_cards)
                result = {"activity": list(self.cards.feed),
                          "new_cards": self.cards.new_cards(linked), "card_actions": actions}
            case c.GetHealth():
                result = self.health()
            case c.PlayerForToken(token=token):
                result = await self._bank(lambda bank: bank.player_for_token(token))
            case c.GetSeat(player=player, before=before, outcomes_before=below, limit=limit):
                size = SEAT_PAGE if limit is None else limit
                result = await self._read_bank(lambda bank: bank.seat_page(
                    player, before=before, outcomes_before=below, limit=size).to_json())
            case _:
                raise TypeError(f"unknown query {query!r}")
        return result  # type: ignore[no-any-return]

    # -- the rest of the service (the daemon's side) ---------------------------------------

    def load(self) -> None:
        """Read the table's state at start-up (blocking: before the loop serves anyone)."""
        self._settle()  # and offer the first press's plan once the loop runs
        if self.bank is None:
            return
        self._storage = self.bank.status()
        if not self.bank.is_open:
            return
        try:
            self.state = self._dress(self.bank.run(lambda bank: bank.state()))
        except CompanionError as exc:  # e.g. a game of an edition no longer known
            log.warning("the latest game can't be shown: %s", exc)
            self.state = None

    def rules(self) -> Ruleset:
        """The ruleset of the game being played (with the house-rules file it chose)."""
        if self.state is not None and self.state.game.rules is not None:
            return self.state.game.rules
        edition = self.state.game.edition if self.state is not None else self.edition
        return self.editions.get_edition(edition)

    def health(self) -> c.Health:
        now = self.clock()
        quiet = not self.block.is_sounding(now) and self.lever.quiet and \
            not self.speaker.busy and not self.speaking()
        storage = self.bank.status() if self.bank is not None else StorageView(
            False, "no bank is configured")
        if storage.ok:
            detail = "ok" + (f", {storage.held} presses held" if storage.held else "")
        else:
            detail = str(storage.problem or "unavailable")  # health: English, for monitoring
            if storage.held:
                detail += f" ({storage.held} press{'es' if storage.held != 1 else ''} held)"
        sound, said = self.speaker.health
        parts = (c.Part("bank", storage.ok, detail, required=True),
                 c.Part("sound", sound, said),
                 *self.parts())
        return c.Health(bank=storage.ok, sound=sound,
                        presses=self.block.presses, ignored=self.block.ignored, quiet=quiet,
                        storage=storage, has_bank=self.bank is not None, parts=parts)

    async def drain(self) -> None:
        """Wait for the bank writes under way (a press's outcome, a turn passed at time-up),
        a press that sounded on the pin's thread included."""
        if not self.closed:
            self._settle()
        await wait_all(self._tasks)

    def close(self) -> None:
        """Later presses are refused; queued bank writes still finish (the bank closes last)."""
        self._settle()  # a press that sounded is banked
        self.closed = True
        self.gate.offer(None)

    # -- press modes -----------------------------------------------------------------------

    def _mode(self, rules: Ruleset) -> tuple[Mode, Mapping[str, Any]]:
        """What the next press means: the armed mode while it still fits the game, else the
        edition's default."""
        armed = self.armed
        state = self.state
        if armed is not None:
            mode = rules.find_mode(armed.mode)
            game = state.game.id if state is not None else None
            active = tuple(p.id for p in state.active) if state is not None else ()
            jailed = {p.id for p in state.active if p.in_jail} if state is not None else set()
            still = mode is not None and armed.game == game and all(
                armed.params.get(k) in active for k in ("payer", "owner", "leader")
                if k in armed.params) and armed.params.get("teammate") in (None, BY_CARD,
                                                                           *active) and \
                not jailed & {armed.params.get("leader"), armed.params.get("teammate")}
            if still and mode is not None:
                return mode, armed.params
            self.armed = None  # a new game, a player armed with went out or to Jail
        default = rules.default_mode
        contest = self._contest_mode(rules)
        if contest is not None:
            return contest
        current = state.current if state is not None else None
        jail = rules.mode_for_table("jail_roll")
        if current is not None and current.in_jail and jail is not None:
            # a press rolls for doubles
            return jail, {"tries": current.jail_tries, **_waits(state)}
        if default.table == "two_dice" and state is not None:
            return default, {"doubles": state.doubles, **_waits(state)}
        move = rules.mode_for_table("move_roll")
        ring = state.ring if state is not None else None
        if move is not None and ring is not None and ring.faces and current is not None \
                and not current.in_jail and not state.turn_rolled \
                and state.landed is None:  # type: ignore[union-attr]
            # the turn's roll: both dice, the token moves (once a turn)
            return move, face_params(rules, ring.faces)
        return default, {}

    def _nothing_to_roll(self, rules: Ruleset, mode: Mode) -> Said | None:
        """Gamer, Mario Kart on a described board, once the current player's token has moved
        this turn: a press is the roll of the space it landed on, once ("Coin Block When you
        land here, roll the numbered die"); anywhere else there is nothing to roll."""
        state = self.state
        if state is None or mode.table != "coin_roll" or state.ring is None or \
                state.landed is None or state.current is None:
            return None
        name, space = state.current.name, Said(state.ring.label(state.ring.at(state.landed)))
        if state.ring.effect(state.ring.at(state.landed)) is not SpaceEffect.COIN_ROLL:
            return say("{name} landed on {space}: a press rolls for a {mode} only", name=name,
                       space=space, mode=Said(mode.name))
        if state.space_rolled:
            return say("{name} has rolled for this {mode} already", name=name,
                       mode=Said(mode.name))
        return None

    def _contest_mode(self, rules: Ruleset) -> tuple[Mode, Mapping[str, int]] | None:
        """A Boss fighter who has paid, or a racer whose roll is due: the press is theirs."""
        state = self.state
        if state is None or state.ended:
            return None
        fight, race = state.fight, state.race
        if fight is not None and fight.fighter is not None:
            mode = rules.mode_for_table("boss_roll")
            if mode is not None:
                return mode, {"required": fight.card.required, "player": fight.fighter}
        if race is not None and race.standing.roller is not None:
            mode = rules.mode_for_table("race_roll")
            if mode is not None:
                return mode, {"player": race.standing.roller}
        return None

    def mode_view(self) -> ModeView:
        rules = self.rules()
        mode, params = self._mode(rules)
        name = Said(mode.name)  # the edition's word for the mode (its TOML)
        hint: str | Said = Said(mode.hint) if mode.hint else ""
        text: str | Said = name
        state = self.state
        if "payer" in params and state is not None:
            text = say_n("{mode}: {payer} pays {owner}, {n} utility",
                         "{mode}: {payer} pays {owner}, {n} utilities", params["utilities"],
                         mode=name, payer=state.name_of(params["payer"]),
                         owner=state.name_of(params["owner"]))
        elif "leader" in params and state is not None:
            leader = state.name_of(params["leader"])
            mate = params.get("teammate")
            if mate == BY_CARD:
                return ModeView(mode.id, mode.name, False, dict(params),
                                say("{mode}: {leader} leads; tap the teammate's card",
                                    mode=name, leader=leader), hint)
            if "first" in params:
                roller = state.name_of(mate) if mate is not None else leader
                text = say("{mode}: {leader} rolled {first}; {roller} presses for the second "
                           "die", mode=name, leader=leader, first=params["first"],
                           roller=roller)
            elif mate is not None:
                text = say("{mode}: {leader} leads with {teammate}; {leader} presses first",
                           mode=name, leader=leader, teammate=state.name_of(mate))
            else:
                text = say("{mode}: {leader} leads alone; {leader} presses first", mode=name,
                           leader=leader)
        elif mode.table in ("boss_roll", "race_roll") and state is not None:
            who = state.name_of(params["player"])
            text = (say("{name} fights: a press rolls, {required} or more wins", name=who,
                        required=params["required"])
                    if mode.table == "boss_roll" else
                    say("{name} rolls for the race: press", name=who))
            return ModeView(mode.id, mode.name, False, {}, text, hint)
        elif mode.automatic and state is not None and state.current is not None:
            text = say("{name} is in Jail: a press rolls for doubles (try {attempt} of "
                       "{tries})", name=state.current.name,
                       attempt=int(params.get("tries", 0)) + 1, tries=mode.fees["tries"])
        elif mode.table == "two_dice" and params.get("doubles"):
            text = say("{mode}: doubles {doubles} of {limit}", mode=name,
                       doubles=params["doubles"], limit=mode.fees["doubles_limit"])
        shown_params = {k: v for k, v in params.items()
                        if k not in ("doubles", "tries", "bowser_waits")}
        return ModeView(mode.id, mode.name, mode.default and not mode.automatic, shown_params,
                        text, hint)

    async def _arm(self, command: c.ArmMode) -> ModeView:
        state = await self.read(c.GetState())
        if state.ended:
            raise GameEnded(say("the game has ended: there is no next press to arm"))
        mode = self.rules().mode(command.mode)
        if mode.automatic:
            raise Refused(say("{mode} is not armed by hand: a player in Jail rolls for doubles "
                              "by pressing (send them to Jail with /api/jail)",
                              mode=Said(mode.name)))
        given = dict(command.params)
        given.pop("first", None)  # a battle starts with the leader's die
        params = check_arming(mode, given, tuple(p.id for p in state.active),
                              frozenset(p.id for p in state.active if p.in_jail))
        armed = self.armed
        if armed is not None and armed.game == state.game.id and armed.mode == mode.id and \
                {k: v for k, v in armed.params.items() if k != "first"} == params:
            return self.mode_view()  # the same battle again (a retry): its first die stays
        self._settle()
        state = self.state or state  # with a press that sounded meanwhile
        self.armed = None if mode.default else Armed(state.game.id, mode.id, params)
        view = self.mode_view()
        self.state = state.with_mode(view)
        log.info("mode: the next press is %s", view.text)
        self.bus.publish(StateChanged("mode", say("next press: {mode}", mode=view.text),
                                      self.state))
        return view

    # -- inside ----------------------------------------------------------------------------

    def _dress(self, state: TableState) -> TableState:
        """The bank's state with what only the service knows: the presses not in the bank yet,
        the timer and the press mode."""
        self._settle()
        if self._held_presses and self.bank is not None:  # banked since (the keeper, or a
            still = self.bank.held_ids()                     # write that banks them first)
            for press_id in self._held_presses - still:
                self._unbanked.pop(press_id, None)
            self._held_presses &= still
        for game, outcome, player in self._unbanked.values():
            if game == state.game.id:
                state = state.pressed(outcome, player)
        self.state = state
        self.lever.set_label(WORMS_LABEL if self.rules().worms is not None else TIMER_LABEL)
        return state.with_timer(self.lever.state()).with_mode(self.mode_view()).with_storage(
            self._storage)

    def _heard(self, event: Event) -> None:
        """Time-up passes the turn where the rules say so; when everyone plays at once, the
        lever goes to the next player ("When the timer runs out, a different player slides
        the lever"): the current player is who slides it."""
        if not isinstance(event, TimerChanged) or event.what != "time_up" or self.closed:
            return
        state = self.state
        if state is None or state.ended or self.bank is None:
            return
        if self.rules().turn_quote:
            self._background(self.act(c.Move("next_player"), source="timer"))

    def _timer(self, command: Command[Any], source: str) -> Any:
        if isinstance(command, c.StartTimer):
            return self.lever.start(_seconds(command.seconds), source=source)
        if isinstance(command, c.StopTimer):
            return self.lever.stop(source=source)
        return self.lever.toggle(source)

    def _bank(self, fn: Callable[[Bank], T]) -> asyncio.Future[T]:
        if self.bank is None:
            raise Unavailable(say("the bank is unavailable"))
        return self.bank.call(fn)

    async def _read_bank(self, fn: Callable[[Bank], T]) -> T:
        """A heavy read, off the writer thread: it never holds up a write or a press."""
        if self.bank is None:
            raise Unavailable(say("the bank is unavailable"))
        return await self.bank.read(fn)

    def _write(self, action: str, fn: Callable[[Bank], T],
               summary: Callable[[T, TableState], str | Said] | None = None, *,
               request_id: str | None = None) -> Awaitable[T]:
        """Queue a bank write and the state after it; listeners get the new state (with
        ``summary``'s line about it, if given)."""
        if self.bank is None:
            raise Unavailable(say("the bank is unavailable"))
        return self._announce(action, self.bank.write(fn, request_id=request_id), summary)

    async def _announce(self, action: str,
                        pending: asyncio.Future[tuple[T, TableState | None]],
                        summary: Callable[[T, TableState], str | Said] | None = None) -> T:
        try:
            result, state = await pending
        except (StorageError, SavedBeforeFailure) as exc:  # the caller hears why, so does everyone
            self._storage_changed(
                say("{action} saved, then the disk failed", action=action) if exc.saved else
                say("{action} not saved", action=action) if exc.saved is False else
                say("{action} may not be saved", action=action))
            raise
        except CompanionError:  # refused, ended, unavailable: the caller hears why
            raise
        except Exception:
            log.exception("bank %s failed", action)
            raise
        if state is not None:  # else the write stands, and the next read shows it
            self._announced(action, result, state,
                            None if summary is None else summary(result, state))
        return result

    def _announced(self, action: str, result: object, state: TableState,
                   summary: str | Said | None = None) -> None:
        """Listeners get the new state after a write, with one line about it."""
        self._settle()
        just_won = self.state is not None and not self.state.ended and \
            self.state.game.id == state.game.id
        state = self._dress(state)
        if state.ended and just_won:  # not an ended game resumed
            self.speaker.play(self.library.sounds["bowser" if state.bowser_won else "fanfare"],
                              Priority.OUTCOME)
        elif action == "toll" and isinstance(result, MoveView) and result.entries:
            self.speaker.play(self.library.sounds["toll"], Priority.OUTCOME)
        elif isinstance(result, MoveView) and action in ("drop", "scoop", "ability", "contest",
                                                         "token"):
            fight = state.fight
            sound = self.library.sounds["boss_lost"] if fight is not None and \
                fight.got_away and result.data.get("action") == "pass" else \
                self.library.for_move(result.kind.value, result.data, bool(result.entries))
            if sound is not None:
                self.speaker.play(sound, Priority.OUTCOME)
        summary = summary or describe_result(result, state)
        log.info("bank %s: %s", action, summary)
        given = result if isinstance(result, OutcomeView) and result.assigned else None
        self.bus.publish(StateChanged(action, summary, state, given))

    def _background(self, pending: Awaitable[T]) -> asyncio.Future[T]:
        task = asyncio.ensure_future(pending)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Future[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background bank write failed: %s", task.exception())


MAX_TIMER_SECONDS = 3600


def _current(state: TableState | None) -> int | None:
    """Whom a press is for: the current player; nobody while a fresh install awaits its setup
    (its players are stand-ins: the bank keeps the press for who starts)."""
    if state is None or state.game.setup_pending:
        return None
    return state.current_player


def _seconds(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not 1 <= value <= MAX_TIMER_SECONDS:
        raise Refused(say("seconds must be a number from 1 to {most} (or left out for the "
                          "configured time)", most=MAX_TIMER_SECONDS))
    return float(value)


async def _done(value: T) -> T:
    return value


def _waits(state: TableState) -> dict[str, int]:
    """The Movie: while Bowser waits on GO a turn's roll does not move him."""
    return {"bowser_waits": 1} if state.bowser_waits else {}


def _bank_operation(bank: Bank, command: Command[Any], source: str,
                    request_id: str | None) -> Any:
    """Carry out a bank command that is not a move of the journal (a card, a phone link, a
    player's "that was a mistake") on the writer thread."""
    match command:
        case c.LinkCard(uid=uid, player=player):
            return bank.set_card(player, uid)
        case c.SetCardAction(uid=uid, card_action=action):
            return bank.set_card_action(uid, action)
        case c.LinkPlayer(player=player):
            return bank.link_player(player)
        case c.JoinPlayer(player=player, game=game):
            return bank.join_player(player, game)
        case c.UnlinkPlayer(player=player):
            return bank.unlink_player(player)
        case c.AskUndo(player=player, move=move):
            request, new = bank.ask_undo(player, move)
            return c.Asked(request, new)
        case c.AnswerRequest(request=request, answer=answer):
            return bank.answer_request(request, answer)
    raise TypeError(f"unknown command {command!r}")


def _summary(command: Command[Any]) -> Callable[[Any, TableState], str | Said] | None:
    """The line about a write whose answer is not one of the table's moves: a game started or
    resumed, a card or a phone linked (never the card's UID or the phone's token)."""
    if isinstance(command, c.LinkCard):
        return lambda _uid, state: say("a card now means {name}",
                                       name=state.name_of(command.player))
    if isinstance(command, c.SetCardAction):
        return lambda _uid, _state: say("a card now does {action}", action=command.card_action)
    if isinstance(command, c.LinkPlayer):  # never the token: the phone's key
        return lambda _token, state: say("{name} has a phone link",
                                         name=state.name_of(command.player))
    if isinstance(command, c.JoinPlayer):
        return lambda _token, state: say("{name}'s phone joined",
                                         name=state.name_of(command.player))
    if isinstance(command, c.AskUndo):
        return lambda asked, state: say("{name} says this was a mistake: {move}",
                                        name=state.name_of(asked.request.player_id),
                                        move=asked.request.text)
    if isinstance(command, c.AnswerRequest):
        return lambda kept, _state: say("the banker keeps {move}", move=kept.text)
    if isinstance(command, c.UnlinkPlayer):
        return lambda had, state: (say("{name}'s phone link is turned off",
                                       name=state.name_of(command.player)) if had else
                                   say("{name} had no phone link",
                                       name=state.name_of(command.player)))
    return None


def _journal(bank: Bank, query: c.GetJournal) -> dict[str, Any]:
    """A page of moves (each with its entries), or the whole game with its coin lines."""
    if query.paged:
        limit = PAGE if query.limit is None else query.limit
        page = bank.move_page(query.game, before=query.before, after=query.after, limit=limit)
        return page.to_json()
    with bank.snapshot():
        return {"entries": bank.journal_json(query.game),
                "moves": [m.to_json() for m in bank.moves(query.game)]}


def _linked_cards(bank: Bank) -> tuple[set[str], dict[str, str]]:
    actions = bank.card_actions()
    linked = {p.card_uid for p in bank.players() if p.card_uid} if bank.latest_game() else set()
    return linked | set(actions), actions


def describe_result(result: object, state: TableState) -> str | Said:
    """One line about a write, with names instead of ids."""
    if isinstance(result, OutcomeView):
        if result.player_id is None:
            return say("nobody is current: the outcome waits for a player (give it on the "
                       "tablet)")
        player = state.player(result.player_id)
        name = state.name_of(result.player_id)
        delta = result.outcome.coin_delta if result.entry_id is not None else 0
        if not delta:
            return say("{name} no coins", name=name)
        sign = f"+{delta}" if delta > 0 else str(delta)
        balance = player.balance if player is not None else None
        if balance is None:
            return say("{name} {delta}", name=name, delta=sign)  # its balance is not known
        return say_n("{name} {delta} -> {balance} coin", "{name} {delta} -> {balance} coins",
                     abs(balance), name=name, delta=sign, balance=balance)
    if isinstance(result, Payment):
        if result.entry is None:
            return result.message
        text = describe_result(result.entry, state)
        return say("{text} ({why})", text=text, why=result.message) if result.message \
            else text
    if isinstance(result, Entry):
        payee = Said(result.space) if result.space is not None and result.payee == BANK \
            else state.name_of(result.payee)  # a fee into the Free Parking pot
        paid = say("{payer} pays {payee} {amount}", payer=state.name_of(result.payer),
                   payee=payee, amount=result.amount)
        why = reason(result)  # "passed GO", the banker's note; a payment may have none
        return say("{text} ({why})", text=paid, why=why) if why else paid
    if isinstance(result, MoveView | Undone):
        return result.move.text if isinstance(result, Undone) else result.text
    if isinstance(result, bool):
        return say("everyone plays at once: on") if result else \
            say("everyone plays at once: off")
    if isinstance(result, int) and state.player(result) is not None:
        return say("{name} is current", name=state.name_of(result))
    if result is None:
        return say("nobody is current")
    return str(result)
