"""The screen's pure model: which picture when, and when it next changes (exact, no pygame)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.ledger import BANK, Entry, EntryKind
from companion.core.lever import LeverSettings, LeverTimer
from companion.core.outcomes import Kind, Outcome
from companion.core.state import JournalLine
from companion.display.previews import sample_state
from companion.display.scene import (
    ANIMATION_FRAMES,
    FPS,
    LAST_SECONDS,
    TIME_UP_SECONDS,
    DisplayModel,
    LogLine,
    TimerView,
    log_lines,
)
from companion.events import BlockOutcome, StateChanged

THREE = Outcome(Kind.COINS, 3, (1, 3))
IDLE_TIMER = LeverTimer(LeverSettings()).state(0.0)


def played(model: DisplayModel, outcome: Outcome, at: float, *, player: int | None = 2,
           balance: int = 30, bank_after: float | None = None) -> None:
    model.apply(BlockOutcome(1, outcome, at, "button", True, ping_period=0.3), at)
    balances = (32, balance, -3, 41)
    state = sample_state(current=player or 0, balances=balances, outcome=outcome,
                         outcome_player=player)
    model.apply(StateChanged("outcome", "", state), at if bank_after is None else bank_after)


def test_an_outcome_shows_who_got_it_and_their_new_balance_then_gives_way() -> None:
    model = DisplayModel(outcome_seconds=8, idle_after=None)
    model.apply(BlockOutcome(1, THREE, 10.0, "button", True), 10.0)
    waiting = model.scene(10.0)
    assert waiting.screen == "outcome" and waiting.outcome is not None
    assert waiting.outcome.waiting and waiting.outcome.player is None
    state = sample_state(current=2, balances=(32, 30, -3, 41), outcome=THREE,
                         outcome_player=2)
    model.apply(StateChanged("outcome", "", state), 10.002)
    face = model.scene(10.5).outcome
    assert face is not None and not face.waiting
    assert (face.player, face.delta, face.balance) == ("Luigi", 3, 30)
    assert model.scene(17.99).screen == "outcome"
    after = model.scene(18.0)
    assert after.screen == "table" and after.title == "Luigi's turn"
    assert [(p.name, p.balance) for p in after.players] == [
        ("Mario", 32), ("Luigi", 30), ("Peach", -3), ("Yoshi", 41)]


def test_unassigned_outcome_says_so_and_unbanked_outcome_moves_no_coins() -> None:
    model = DisplayModel()
    played(model, Outcome(Kind.BOWSER, 5, (3,)), 0.0, player=None)
    face = model.scene(1.0).outcome
    assert face is not None and face.player is None and not face.waiting and face.banked
    offline = DisplayModel(bank_online=False)
    offline.apply(BlockOutcome(1, THREE, 0.0, "button", True), 0.0)
    face = offline.scene(1.0).outcome
    assert face is not None and not face.banked and not face.waiting and face.delta == 0


def test_coins_light_up_one_per_ping_and_the_entrance_settles() -> None:
    model = DisplayModel(idle_after=None)
    played(model, Outcome(Kind.COINS, 4, (2, 4)), 0.0)
    shown = [model.scene(t).outcome.coins_shown for t in (0.0, 0.29, 0.3, 0.61, 0.9, 5.0)]
    assert shown == [1, 1, 2, 3, 4, 4]
    assert model.scene(0.0).outcome.frame == 0
    assert model.scene(5.0).outcome.frame == ANIMATION_FRAMES
    assert model.next_change(0.0) == 1 / FPS
    # settled: nothing changes until the outcome gives way to the table
    assert model.next_change(5.0) == 8.0


def test_countdown_ticks_by_the_second_turns_urgent_then_times_up() -> None:
    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("transfer", "", sample_state()), 0.0)
    model.set_timer(TimerView(deadline=14.0, duration=14.0), 0.0)
    start = model.scene(0.0)
    assert start.screen == "timer" and start.timer.seconds == 14 and not start.timer.urgent
    assert model.next_change(0.0) == 1.0
    assert model.scene(8.99).timer.seconds == 6
    urgent = model.scene(14.0 - LAST_SECONDS)
    assert urgent.timer.urgent and urgent.timer.seconds == LAST_SECONDS
    flashes = {model.scene(t).timer.flash for t in (9.1, 9.6)}
    assert flashes == {True, False}
    assert model.next_change(9.1) == 9.5
    up = model.scene(14.0)
    assert up.timer.time_up
    assert model.scene(14.0 + TIME_UP_SECONDS).screen == "table"
    assert model.next_change(14.0 + TIME_UP_SECONDS) is None


def test_stopping_early_clears_the_countdown_but_expiry_keeps_times_up() -> None:
    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("transfer", "", sample_state()), 0.0)
    model.set_timer(TimerView(10.0, 10.0), 0.0)
    model.set_timer(None, 3.0)
    assert model.scene(3.0).screen == "table"
    model.set_timer(TimerView(20.0, 10.0), 10.0)
    model.set_timer(None, 20.5)  # the daemon reports the end: "time's up" stays a moment
    assert model.scene(20.5).timer.time_up


def test_an_outcome_during_the_countdown_keeps_a_strip_until_the_last_seconds() -> None:
    model = DisplayModel(idle_after=None)
    model.set_timer(TimerView(15.0, 15.0), 0.0)
    played(model, THREE, 1.0)
    during = model.scene(2.0)
    assert during.screen == "outcome" and during.timer is not None
    assert during.timer.seconds == 13
    assert model.scene(10.5).screen == "timer"  # last seconds win over the outcome


def test_idle_at_start_and_after_quiet_minutes_with_the_link_shown() -> None:
    model = DisplayModel(idle_after=600.0)
    model.set_link("http://10.0.0.5:8080/#token=abcdefghijklmnopqr")
    first = model.scene(0.0)
    assert first.screen == "idle" and first.address == "http://10.0.0.5:8080"
    model.apply(StateChanged("pass GO", "", sample_state()), 5.0)
    assert model.scene(6.0).screen == "table"
    assert model.next_change(6.0) == 605.0
    assert model.scene(605.0).screen == "idle"
    never = DisplayModel(idle_after=None)
    never.apply(StateChanged("pass GO", "", sample_state()), 5.0)
    assert never.scene(1e9).screen == "table" and never.next_change(1e9) is None


def test_log_shows_both_sides_of_a_payment_and_marks_undone_lines() -> None:
    names = sample_state(players=2)
    rent = Entry(1, 1, 0.0, 1, 2, 4, EntryKind.TRANSFER, "rent")
    both = log_lines(JournalLine(rent), names)
    assert both == [LogLine("Luigi", 4, "rent"), LogLine("Mario", -4, "rent")]
    fee = Entry(2, 1, 0.0, 2, BANK, 5, EntryKind.BLOCK)
    bowser = log_lines(JournalLine(fee, undone_by=7, outcome_kind="bowser"), names)
    assert bowser == [LogLine("Luigi", -5, "Bowser", undone=True)]
    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("transfer", "", sample_state()), 0.0)
    log = model.scene(1.0).log
    assert log[0] == LogLine("Luigi", 3, "coins")
    assert len(log) == 4


@settings(max_examples=1000, deadline=None)
@given(
    events=st.lists(st.tuples(
        st.sampled_from(["press", "bank", "timer", "stop"]),
        st.floats(0, 40, allow_nan=False),
        st.sampled_from([Outcome(Kind.COINS, k, (1, k)) for k in (1, 3, 6)]
                        + [Outcome(k, 0, (6,)) for k in (Kind.BOWSER, Kind.POWER_UP,
                                                         Kind.GAME_OVER)]),
        st.floats(1, 20, allow_nan=False)), max_size=6),
    probes=st.lists(st.floats(0, 120, allow_nan=False), min_size=1, max_size=8),
    fractions=st.lists(st.floats(0, 1, exclude_max=True), min_size=1, max_size=6),
    soon=st.floats(0, 3, allow_nan=False),
)
def test_the_scene_never_changes_before_next_change_says(events, probes, fractions,
                                                         soon) -> None:
    """What lets the screen sleep: between ``now`` and ``next_change(now)`` the picture holds."""
    model = DisplayModel(idle_after=30.0)
    clock = 0.0
    pending = sorted(events, key=lambda e: e[1])
    probes = probes + [e[1] + soon for e in events]  # look soon after each event too
    for now in sorted(probes):
        while pending and pending[0][1] <= now:
            kind, at, outcome, seconds = pending.pop(0)
            if kind == "press":
                played(model, outcome, at)
            elif kind == "bank":
                model.apply(StateChanged("pass GO", "", sample_state()), at)
            elif kind == "timer":
                model.set_timer(TimerView(at + seconds, seconds), at)
            else:
                model.set_timer(None, at)
        clock = now
        scene = model.scene(clock)
        later = model.next_change(clock)
        horizon = clock + 200.0 if later is None else later
        assert later is None or later > clock
        for f in fractions:
            t = clock + (horizon - clock) * f
            if t < horizon - 1e-9:  # float rounding at the boundary itself is no missed frame
                assert model.scene(t) == scene, (clock, t, later)


def test_a_boundary_that_rounds_onto_now_still_schedules_the_next_frame() -> None:
    """(8.45 - 8.0) * 20 is 8.999... in floating point: the scene must call that frame 9, as
    next_change does, and not skip to the end of the outcome."""
    model = DisplayModel(idle_after=None)
    played(model, Outcome(Kind.COINS, 1, (1, 1)), 8.0)
    assert model.scene(8.45).outcome.frame == 9
    assert model.next_change(8.45) == 8.0 + 10 / 20


def test_an_outcome_given_on_the_tablet_meanwhile_shows_its_player() -> None:
    model = DisplayModel(idle_after=None)
    played(model, THREE, 0.0, player=None)
    assert model.scene(1.0).outcome.player is None
    state = sample_state(current=3, balances=(32, 27, 0, 41), outcome=THREE,
                         outcome_player=3)
    model.apply(StateChanged("assign", "", state), 2.0)
    face = model.scene(2.5).outcome
    assert (face.player, face.balance) == ("Peach", 0)


def test_the_state_at_start_shows_balances_on_the_idle_screen() -> None:
    model = DisplayModel(idle_after=600.0)
    model.set_state(sample_state())
    idle = model.scene(0.0)
    assert idle.screen == "idle" and [p.name for p in idle.players][:2] == ["Mario", "Luigi"]


def test_an_unknown_card_shows_new_card_for_a_few_seconds() -> None:
    from companion.display.scene import NEW_CARD_SECONDS
    from companion.events import CardTapped

    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("transfer", "", sample_state()), 0.0)
    model.apply(CardTapped("04A224B9", "unknown", "new card", {}), 1.0)
    assert model.scene(1.5).screen == "card" and model.scene(1.5).title == "04A224B9"
    assert model.next_change(1.5) == 1.0 + NEW_CARD_SECONDS
    assert model.scene(1.0 + NEW_CARD_SECONDS).screen == "table"
    model.apply(CardTapped("04A224B9", "player", "Luigi is current", {}), 10.0)
    assert model.scene(10.5).screen == "table"


def test_the_daemons_timer_events_drive_the_countdown() -> None:
    from companion.events import TimerChanged

    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("transfer", "", sample_state()), 0.0)
    model.apply(TimerChanged("started", "lever", 14.0, 14.0, "Worms are moving!", IDLE_TIMER), 0.0)
    running = model.scene(1.0)
    assert running.screen == "timer" and running.timer.seconds == 13
    assert running.timer.label == "Worms are moving!"
    model.apply(TimerChanged("stopped", "tablet", None, None, "", IDLE_TIMER), 2.0)
    assert model.scene(2.0).screen == "table"
