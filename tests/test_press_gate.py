"""A press from the block's own thread sounds right there; the table settles it on the loop.

Real mock pins (pressed from a thread of their own, like gpiozero's edge thread on a Pi), a real
event loop and a real SQLite bank: nothing the rules need is lost on the fast path.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from companion.app import commands as c
from companion.audio.null_backend import NullBackend
from companion.bank import Bank
from companion.config import AudioConfig, Config, DataConfig, GameConfig
from companion.core.block import Block
from companion.core.dice_ahead import DiceAhead
from companion.core.editions import editions
from companion.daemon import Daemon
from companion.events import BlockOutcome, Event, PressIgnored
from companion.i18n import translator
from companion.i18n.said import words

CELEBRATION = editions()["celebration"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Scripted:
    """Dice that roll what the test says, in order (and say when they run out)."""

    def __init__(self, rolls: list[int]) -> None:
        self.rolls = list(rolls)
        self.read = 0

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        self.read += 1
        return self.rolls.pop(0)


async def started(tmp_path: Path, rng: object) -> tuple[Daemon, NullBackend, list[Event], Clock]:
    """A daemon on mock pins and a real bank (players Ann and Bob), its next press on offer."""
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                    game=GameConfig(edition="celebration", players=("Ann", "Bob")))
    backend = NullBackend()
    clock = Clock()
    app = Daemon(config, pin_factory=MockFactory(), rng=rng,  # type: ignore[arg-type]
                 backend=backend, clock=clock)
    events: list[Event] = []
    app.table.subscribe(lambda e: events.append(e) if isinstance(
        e, BlockOutcome | PressIgnored) else None)
    app.start(asyncio.get_running_loop())
    await until(lambda: on_offer(app))
    return app, backend, events, clock


async def until(done: Callable[[], bool]) -> None:
    for _ in range(400):
        if done():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("never happened")


def press_on_a_thread(app: Daemon, clock: Clock) -> None:
    """One clean press and release from a thread of its own, while the loop cannot run."""
    pin = app.button.pin

    def press() -> None:
        pin.drive_low()
        clock.now += 0.05
        pin.drive_high()
        clock.now += 0.05  # the next press is a clean one (past the debounce)

    worker = threading.Thread(target=press)
    worker.start()
    worker.join()


def on_offer(app: Daemon) -> bool:
    return app.table.gate._plan is not None


# -- the dice, thrown ahead ------------------------------------------------------------------


def test_dice_given_back_are_read_first_and_in_order() -> None:
    rng = Scripted([1, 2, 3, 4, 5])
    dice = DiceAhead(rng)
    (first, second), thrown = dice.throw(lambda d: (d.randint(1, 6), d.randint(1, 6)))
    assert (first, second) == (1, 2) and thrown == ((1, 6, 1), (1, 6, 2))
    dice.give_back(thrown)
    assert dice.kept == 2
    assert [dice.randint(1, 6) for _ in range(3)] == [1, 2, 3]
    assert rng.read == 3 and dice.kept == 0


def test_outcomes_drawn_ahead_and_given_back_are_the_outcomes_drawn_at_the_press() -> None:
    """However often a draw is made ahead and given back, the outcomes used are exactly those
    that drawing at each press would give: the same dice, in the same order."""
    mode = CELEBRATION.default_mode
    direct = random.Random(11)
    expected = [mode.draw(direct) for _ in range(300)]
    dice = DiceAhead(random.Random(11))
    chooser = random.Random(5)
    used = []
    while len(used) < 300:
        outcome, thrown = dice.throw(lambda d: mode.draw(d))
        if chooser.random() < 0.6:  # the table changed first: the plan is withdrawn
            dice.give_back(thrown)
        else:
            used.append(outcome)
    assert used == expected


def test_the_block_takes_a_press_unless_the_last_outcome_still_sounds() -> None:
    block = Block(random.Random(1))
    assert block.take(10.0, 1.5)  # sounds until 11.5
    assert not block.take(11.4, 0.2) and block.is_sounding(11.4)
    assert block.take(11.5, 0.0) and not block.is_sounding(11.5)
    assert (block.presses, block.ignored) == (2, 1)


# -- the daemon --------------------------------------------------------------------------------


async def test_a_pin_press_sounds_on_the_pins_thread_before_the_loop_runs(
        tmp_path: Path) -> None:
    app, backend, events, clock = await started(tmp_path, random.Random(7))
    press_on_a_thread(app, clock)  # the loop is blocked in this test's thread meanwhile
    assert len(backend.played) == 1 and events == []  # heard at once, settled later
    await until(lambda: bool(events))
    (event,) = events
    assert isinstance(event, BlockOutcome) and event.source == "button"
    assert event.outcome == CELEBRATION.default_mode.draw(random.Random(7))
    assert backend.played == [app.table.library.for_outcome(event.outcome)]
    await app.table.drain()
    assert app.bank is not None
    assert [o.outcome for o in app.bank.run(lambda b: b.outcomes())] == [event.outcome]
    app.close()


async def test_every_press_is_one_outcome_one_sound_and_the_dice_of_drawing_at_the_press(
        tmp_path: Path) -> None:
    app, backend, events, clock = await started(tmp_path, random.Random(21))
    for i in range(12):
        await until(lambda: on_offer(app))
        if i % 3 == 1:  # a tablet reads the table: the plan is withdrawn and drawn again
            await app.table.read(c.GetState())
            await until(lambda: on_offer(app))
        press_on_a_thread(app, clock)
        press_on_a_thread(app, clock)  # pressed again while the outcome sounds: ignored
        await until(lambda i=i: len(events) == 2 * (i + 1))
        clock.now += 20  # past any outcome's sound
    outcomes = [e.outcome for e in events if isinstance(e, BlockOutcome)]
    assert len(outcomes) == 12 and sum(isinstance(e, PressIgnored) for e in events) == 12
    assert len(backend.played) == 12  # never a sound for an ignored press
    direct = random.Random(21)
    mode = CELEBRATION.default_mode
    assert outcomes == [mode.draw(direct) for _ in range(12)]
    await app.table.drain()
    assert app.bank is not None
    assert [o.outcome for o in app.bank.run(lambda b: b.outcomes())] == outcomes[::-1]
    app.close()


async def test_a_press_that_sounded_counts_for_whoever_was_current_when_it_was_pressed(
        tmp_path: Path) -> None:
    app, _backend, events, clock = await started(tmp_path, Scripted([1, 2] + [6] * 20))
    state = await app.table.read(c.GetState())
    ann, bob = (p.id for p in state.players)
    await until(lambda: on_offer(app))
    press_on_a_thread(app, clock)  # Ann is current: 1 -> roll again, 2 coins
    await app.table.act(c.Move("next_player"))  # the tablet passes the turn before the loop settled
    await app.table.drain()
    (event,) = events
    assert isinstance(event, BlockOutcome) and event.outcome.coins == 2
    assert app.bank is not None
    outcomes = app.bank.run(lambda b: b.outcomes())
    assert [o.player_id for o in outcomes] == [ann]
    balances = app.bank.run(lambda b: b.balances())
    assert (balances[ann], balances[bob]) == (32, 30)
    assert app.bank.run(lambda b: b.state()).current_player == bob
    app.close()


async def test_no_sound_for_a_press_while_a_game_ending_write_is_under_way(
        tmp_path: Path) -> None:
    app, backend, events, clock = await started(tmp_path, random.Random(4))
    state = await app.table.read(c.GetState())
    await until(lambda: on_offer(app))
    ending = app.table.act(c.Move("bankruptcy", {"player": state.players[1].id,
                                                 "creditor": "bank"}))  # Ann is the last left
    press_on_a_thread(app, clock)  # the plan was withdrawn when the write was queued
    assert backend.played == []
    await ending
    await until(lambda: bool(events))
    assert [type(e) for e in events] == [PressIgnored]
    sounds = app.table.library.sounds
    assert backend.played == [sounds["fanfare"]]  # the game's end only
    assert app.bank is not None and app.bank.run(lambda b: b.outcomes()) == []
    after = app.table.press(source="tablet")  # the game has ended: said in any language
    assert isinstance(after, PressIgnored) and backend.played == [sounds["fanfare"]]
    assert str(after.reason) == "the game has ended: undo reopens it, or start a new game"
    assert words(after.reason, translator("de")).startswith("Das Spiel ist vorbei")
    app.close()


async def test_arming_a_mode_after_the_next_press_was_drawn_reads_the_same_dice(
        tmp_path: Path) -> None:
    app, backend, events, clock = await started(tmp_path, random.Random(9))
    await until(lambda: on_offer(app))  # drawn ahead as a Question Block press ...
    state = await app.table.read(c.GetState())
    ann, bob = (p.id for p in state.players)
    await app.table.act(c.ArmMode("utility_rent", {"payer": ann, "owner": bob,
                                                   "utilities": 1}))
    await until(lambda: on_offer(app))
    press_on_a_thread(app, clock)  # ... but pressed as rent: the dice it would have read
    await until(lambda: bool(events))
    (event,) = events
    assert isinstance(event, BlockOutcome)
    rent = CELEBRATION.mode("utility_rent")
    assert event.outcome == rent.draw(random.Random(9), {"payer": ann, "owner": bob,
                                                        "utilities": 1})
    assert backend.played == [app.table.library.for_outcome(event.outcome)]
    app.close()


async def test_a_press_that_sounded_is_banked_when_the_daemon_stops_at_once(
        tmp_path: Path) -> None:
    app, backend, events, clock = await started(tmp_path, random.Random(3))
    press_on_a_thread(app, clock)
    app.close()  # before the loop settled it
    assert len(backend.played) == 1 and len(events) == 1
    bank = Bank.in_dir(tmp_path)
    event = events[0]
    assert isinstance(event, BlockOutcome)
    assert [o.outcome for o in bank.outcomes()] == [event.outcome]
    bank.close()
    clock.now += 20
    late = threading.Thread(target=app._press_from_thread, args=(clock(),))
    late.start()  # an edge from the pin's thread after the stop: nothing
    late.join()
    await asyncio.sleep(0.05)
    assert len(backend.played) == 1 and len(events) == 1


async def test_presses_count_in_the_order_they_were_made_when_one_waits_for_the_loop(
        tmp_path: Path) -> None:
    """A press handed to the loop (no plan was on offer) and, before the loop pressed it, a
    second press on the pin's thread just as the next plan is offered: the first counts, the
    second is the one pressed while it sounds. (It was the other way round: the second sounded
    on the thread, and the first, pressed on the loop with its earlier time, was ignored.)"""
    app, backend, events, clock = await started(tmp_path, random.Random(13))
    gate, offer = app.table.gate, app.table.gate.offer
    second: list[float] = []

    def offer_then_press(plan: object) -> None:
        offer(plan)  # type: ignore[arg-type]
        if plan is not None and not second:  # the pin's thread presses right now
            second.append(clock.now)
            press_on_a_thread(app, clock)

    gate.offer = offer_then_press  # type: ignore[method-assign]
    app.table.settle()  # the plan is withdrawn; the next is offered on the loop's next turn
    first = clock.now
    press_on_a_thread(app, clock)  # no plan on offer: handed to the loop
    await until(lambda: len(events) == 2)
    assert [(type(e), e.at) for e in events] == [(BlockOutcome, first),
                                                 (PressIgnored, second[0])]
    (sounded,) = backend.played
    assert isinstance(events[0], BlockOutcome)
    assert sounded == app.table.library.for_outcome(events[0].outcome)
    await app.table.drain()
    assert app.bank is not None
    assert [o.outcome for o in app.bank.run(lambda b: b.outcomes())] == [events[0].outcome]
    app.close()
