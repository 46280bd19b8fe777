"""The screen's pure model: which picture when, and when it next changes (exact, no pygame)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.bank import Bank
from companion.core.editions import editions
from companion.core.ledger import BANK, Entry, EntryKind
from companion.core.lever import LeverSettings, LeverTimer
from companion.core.outcomes import Kind, Outcome
from companion.core.state import JournalLine, ModeView
from companion.display.previews import sample_state
from companion.display.scene import (
    ANIMATION_FRAMES,
    FPS,
    LAST_SECONDS,
    TIME_UP_SECONDS,
    DisplayModel,
    LogLine,
    Scene,
    TimerView,
    log_lines,
)
from companion.events import BlockOutcome, StateChanged

THREE = Outcome(Kind.COINS, 3, (1, 3))
IDLE_TIMER = LeverTimer(LeverSettings()).state(0.0)


def played(model: DisplayModel, outcome: Outcome, at: float, *, player: int | None = 2,
           balance: int = 30, bank_after: float | None = None,
           ping_start: float = 0.0) -> None:
    model.apply(BlockOutcome(1, outcome, at, "button", True, ping_period=0.3,
                             ping_start=ping_start), at)
    balances = (32, balance, -3, 41)
    movie = editions()["movie"].find_mode(outcome.mode) is not None  # the Movie's own modes
    state = sample_state(current=player or 0, balances=balances, outcome=outcome,
                         outcome_player=player, edition="movie" if movie else "celebration")
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
                                                         Kind.GAME_OVER)]
                        + [Outcome(Kind.SUPER_STAR, 4, (4,), "super_star"),
                           Outcome(Kind.DICE, 0, (3, 3), "turn", 1)]),
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
            if kind == "press":  # a Super Star pings after its dice and fanfare
                played(model, outcome, at,
                       ping_start=1.3 if outcome.kind is Kind.SUPER_STAR else 0.0)
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


MOVIE_BATTLE = {"leader": 1, "teammate": 3, "step": 2}


def test_a_won_battle_shows_its_leader_and_teammate_and_both_dice() -> None:
    model = DisplayModel(idle_after=None)
    won = Outcome(Kind.BATTLE_WON, 2, (4, 5), "battle", 2)
    model.apply(BlockOutcome(1, won, 0.0, "button", True), 0.0)
    waiting = model.scene(0.5).outcome
    assert waiting is not None and waiting.teammate is None and waiting.rolls == (4, 5)
    state = sample_state(current=1, balances=(34, 27, 12, 41), outcome=won, outcome_player=1,
                         edition="movie", params=MOVIE_BATTLE)
    model.apply(StateChanged("outcome", "", state), 0.01)
    face = model.scene(1.0).outcome
    assert face is not None and (face.player, face.balance) == ("Mario", 34)
    assert (face.teammate, face.teammate_balance) == ("Peach", 12)
    assert face.delta == 2 and face.banked and face.tracked and face.step == 2


def test_a_roll_that_moves_no_coins_is_still_kept_for_its_player() -> None:
    """The Movie's turn roll moves no coins, but who rolled it counts (doubles, Jail)."""
    model = DisplayModel(idle_after=None)
    played(model, Outcome(Kind.DICE, 0, (2, 2), "turn", 1), 0.0)
    face = model.scene(1.0).outcome
    assert face is not None and face.tracked and not face.banked and face.player == "Luigi"
    assert face.rolls == (2, 2) and face.step == 1
    offline = DisplayModel(bank_online=False)
    offline.apply(BlockOutcome(1, Outcome(Kind.DICE, 0, (2, 5), "turn"), 0.0, "button", True),
                  0.0)
    face = offline.scene(1.0).outcome
    assert face is not None and not face.tracked and not face.waiting


def test_a_super_star_lights_a_coin_per_ping_after_its_dice() -> None:
    model = DisplayModel(idle_after=None)
    played(model, Outcome(Kind.SUPER_STAR, 5, (5,), "super_star"), 0.0, ping_start=1.5)
    shown = [model.scene(t).outcome.coins_shown for t in (0.0, 1.49, 1.5, 1.8, 2.75, 6.0)]
    assert shown == [0, 0, 1, 2, 5, 5]
    assert model.next_change(1.0) == 1.5  # settled, and the first ping is next
    assert model.next_change(1.5) == 1.8
    piranha = DisplayModel(idle_after=None)  # pays: no coins light up
    played(piranha, Outcome(Kind.PIRANHA, 4, (4,), "piranha"), 0.0, ping_start=1.5)
    assert piranha.scene(3.0).outcome.coins_shown == 0
    assert piranha.next_change(1.0) == 8.0


def test_the_movie_table_shows_jail_bowser_on_go_and_the_doubles_so_far() -> None:
    doubles = ModeView("turn", "Turn roll", True, {}, "Turn roll: doubles 1 of 3")
    state = sample_state(edition="movie", current=1, jailed=(2, 3), out=(3,),
                         bowser_waits=True, doubles=1, mode=doubles)
    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("outcome", "", state), 0.0)
    table = model.scene(1.0)
    assert table.screen == "table" and table.bowser_waits
    assert [p.in_jail for p in table.players] == [False, True, False, False]  # out: not shown
    assert table.mode == "Turn roll: doubles 1 of 3"  # the default mode, with doubles to say
    model.apply(StateChanged("next", "", sample_state(edition="movie", current=2)), 2.0)
    plain = model.scene(3.0)
    assert plain.mode is None and not plain.bowser_waits
    assert not any(p.in_jail for p in plain.players)


def test_bowsers_win_ends_the_game_with_no_winner() -> None:
    model = DisplayModel(idle_after=None)
    model.apply(StateChanged("bowser wins", "", sample_state(
        edition="movie", balances=(12, 0, 7, 3), out=(2,), ended=True, bowser_won=True)), 0.0)
    scene = model.scene(1.0)
    assert scene.screen == "winner" and scene.bowser_won and scene.title == "BOWSER WINS"
    assert not any(row.winner for row in scene.standings)
    last = DisplayModel(idle_after=None)  # the last player with coins: a winner, not Bowser
    last.apply(StateChanged("end", "", sample_state(
        edition="movie", balances=(12, 0, 0, 0), out=(2, 3, 4), ended=True)), 0.0)
    scene = last.scene(1.0)
    assert scene.title == "Mario wins!" and not scene.bowser_won


def test_the_log_says_the_movies_coins_in_words() -> None:
    names = sample_state(players=3, edition="movie")
    toll = Entry(1, 1, 0.0, 3, BANK, 1, EntryKind.TOLL, "Bowser's toll")
    assert log_lines(JournalLine(toll), names) == [LogLine("Peach", -1, "Bowser's toll")]
    for kind, why in (("battle_won", "beat Bowser"), ("piranha", "Piranha Plant"),
                      ("super_star", "Super Star"), ("jail_paid", "jail fee")):
        entry = Entry(2, 1, 0.0, BANK, 1, 2, EntryKind.BLOCK)
        assert log_lines(JournalLine(entry, outcome_kind=kind), names)[0].why == why


def test_the_table_carries_the_coins_on_the_board_and_only_piles_of_coins() -> None:
    """Gamer, Mario Kart: the board's piles, oldest first, on the table scene (a pile of no
    coins is left out); none in a game without them, none on other screens."""
    model = DisplayModel(idle_after=None)
    board = (("Thwomp", 4), ("Item Box", 0), ("Coin Block", 1))
    model.apply(StateChanged("drop", "", sample_state(players=3, edition="mario_kart",
                                                      board=board)), 0.0)
    assert model.scene(1.0).board == (("Thwomp", 4), ("Coin Block", 1))
    model.apply(StateChanged("scoop", "", sample_state(players=3, edition="mario_kart")), 2.0)
    assert model.scene(3.0).board == ()
    model.apply(StateChanged("transfer", "", sample_state()), 4.0)
    assert model.scene(5.0).board == ()
    model.apply(BlockOutcome(1, THREE, 6.0, "button", True), 6.0)
    assert model.scene(6.5).screen == "outcome" and model.scene(6.5).board == ()


# -- Boss fights and Races, from a real bank --------------------------------------------------

BOSS_CARD = {"cost": 2, "required": 4, "pay_to": "card", "bonus": 3, "points": 20}
PRIX_CARD = {"fee": 1, "prizes": [5, 2], "points": 30}


def bank_in(tmp_path: Path, edition: str, names: list[str]) -> Bank:
    bank = Bank.in_dir(tmp_path)
    bank.new_game(edition, names)
    return bank


class Table:
    """The screen's model fed by a real bank: each step is a bank write, then its state."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self.model = DisplayModel(idle_after=None)
        self.now = 0.0
        self.changed("start")

    def changed(self, action: str) -> None:
        self.now += 10.0  # past any outcome on show
        self.model.apply(StateChanged(action, "", self.bank.state()), self.now)

    def contest(self, kind: str, action: str, **kwargs: object) -> Scene:
        self.bank.contest(kind, action, **kwargs)
        self.changed(action)
        return self.scene()

    def press(self, kind: Kind, roll: int, mode: str) -> Scene:
        """The block rolls for whoever the contest waits on; returns the outcome on show."""
        state = self.bank.state()
        player = state.fight.fighter if state.fight is not None else state.race.standing.roller
        outcome = Outcome(kind, 0, (roll,), mode)
        self.now += 10.0
        texts = editions()[state.game.edition].mode(mode)
        self.model.apply(BlockOutcome(1, outcome, self.now, "button", True,
                                      headline=texts.headline(outcome),
                                      instruction=texts.instruction(outcome)), self.now)
        self.bank.record_outcome(outcome, params={"player": player})
        self.model.apply(StateChanged("outcome", "", self.bank.state()), self.now)
        return self.model.scene(self.now + 1.0)

    def scene(self) -> Scene:
        return self.model.scene(self.now + 1.0)


def test_a_boss_fight_shows_the_card_whose_choice_the_rolls_and_the_winner(
        tmp_path: Path) -> None:
    bank = bank_in(tmp_path, "gamer", ["Mario", "Luigi", "Peach"])
    table = Table(bank)
    assert table.scene().screen == "table" and table.scene().fight is None
    scene = table.contest("boss", "open", card=BOSS_CARD)
    face = scene.fight
    assert scene.screen == "fight" and scene.title == "BOSS 3" and face is not None
    assert (face.required, face.chance, face.cost, face.to_card, face.pot, face.bonus,
            face.points) == (4, "1/2", 2, True, 0, 3, 20)
    assert face.up == "Mario" and face.fighter is None and face.winner is None
    assert [(r.name, r.rolls, r.up, r.grey) for r in face.rows] == [
        ("Mario", (), True, False), ("Luigi", (), False, False), ("Peach", (), False, False)]

    face = table.contest("boss", "fight", player=1).fight
    assert face is not None and face.fighter == "Mario" and face.up is None and face.pot == 2
    assert face.rows[0].status == "fights" and face.rows[0].up and face.rows[0].balance == 8

    shown = table.press(Kind.BOSS_LOST, 2, "boss")  # the roll's own screen first
    assert shown.screen == "outcome" and shown.outcome is not None
    assert (shown.outcome.kind, shown.outcome.roll, shown.outcome.player) == (
        Kind.BOSS_LOST, 2, "Mario")
    assert shown.outcome.headline == "ROLLED 2: NOT ENOUGH" and shown.outcome.tracked
    table.changed("after")
    face = table.scene().fight
    assert face is not None and face.up == "Luigi" and face.rows[0].rolls == (2,)

    face = table.contest("boss", "pass", player=2).fight
    assert face is not None and face.up == "Peach"
    assert (face.rows[1].grey, face.rows[1].status) == (True, "passed")
    table.contest("boss", "fight", player=3)
    won = table.press(Kind.BOSS_WON, 5, "boss")
    assert won.outcome is not None and won.outcome.kind is Kind.BOSS_WON
    assert won.outcome.player == "Peach" and won.outcome.roll == 5
    table.changed("after")
    face = table.scene().fight
    assert face is not None and face.winner == "Peach" and not face.got_away and face.pot == 4
    peach = face.rows[2]
    assert (peach.rolls, peach.status, peach.winner, peach.balance) == ((5,), "WINS", True,
                                                                        10 - 2 + 3 + 4)

    scene = table.contest("boss", "close")  # the table again, the bonus in its coin log
    assert scene.screen == "table" and scene.fight is None
    assert any(line.who == "Peach" and line.why == "Boss 3: bonus" for line in scene.log)
    bank.end_game(early=True)  # the house rule: the Boss deck is not played out
    table.changed("end")
    scene = table.scene()
    assert scene.screen == "winner" and scene.title == "Peach wins!"
    final = bank.state()
    assert final.standings[0].player == 3 and final.standings[0].points == 20  # the card's
    assert [(row.name, row.score) for row in scene.standings] == [  # points, in the totals
        (final.name_of(s.player), f"{s.total} points") for s in final.standings]
    assert scene.standings[0].name == "Peach" and scene.standings[0].winner


def test_a_boss_that_everyone_passes_gets_away(tmp_path: Path) -> None:
    table = Table(bank_in(tmp_path, "gamer", ["Mario", "Luigi"]))
    table.contest("boss", "open", card={**BOSS_CARD, "pay_to": "bank", "required": 1})
    face = table.scene().fight
    assert face is not None and face.chance == "sure" and not face.to_card
    table.contest("boss", "pass", player=1)
    face = table.contest("boss", "pass", player=2).fight
    assert face is not None and face.got_away and face.winner is None and face.up is None
    assert all(row.grey for row in face.rows)


def test_a_race_shows_entries_rolls_the_tie_and_the_places(tmp_path: Path) -> None:
    bank = bank_in(tmp_path, "mario_kart", ["Mario", "Luigi", "Peach", "Toad"])
    table = Table(bank)
    scene = table.contest("race", "open", card=PRIX_CARD)
    face = scene.race
    assert scene.screen == "race" and scene.title == "GRAND PRIX 1" and face is not None
    assert (face.fee, face.prizes, face.points, face.started, face.final) == (
        1, (5, 2), 30, False, False)
    assert [r.grey for r in face.rows] == [True] * 4
    for pid in (1, 2, 4):
        face = table.contest("race", "enter", player=pid).race
    assert face is not None
    assert [(r.name, r.status, r.grey) for r in face.rows] == [
        ("Mario", "entered", False), ("Luigi", "entered", False), ("Peach", "", True),
        ("Toad", "entered", False)]
    face = table.contest("race", "start").race
    assert face is not None and face.started and face.roller == "Mario"
    assert [r.name for r in face.rows] == ["Mario", "Luigi", "Toad"]  # the entrants

    roll = table.press(Kind.RACE_ROLL, 5, "race")
    assert roll.outcome is not None and roll.outcome.kind is Kind.RACE_ROLL
    assert (roll.outcome.roll, roll.outcome.player) == (5, "Mario")
    for r in (3, 5):
        table.press(Kind.RACE_ROLL, r, "race")
    table.changed("after")
    face = table.scene().race
    assert face is not None and face.tied == ("Mario", "Toad") and face.roller == "Mario"
    assert [(r.name, r.rolls, r.status, r.up) for r in face.rows] == [
        ("Mario", (5,), "re-roll", True), ("Luigi", (3,), "", False),
        ("Toad", (5,), "re-roll", False)]

    table.press(Kind.RACE_ROLL, 2, "race")
    table.press(Kind.RACE_ROLL, 6, "race")
    table.changed("after")
    face = table.scene().race
    assert face is not None and face.over and face.winner == "Toad" and face.roller is None
    assert [(r.name, r.place, r.prize, r.rolls) for r in face.rows] == [
        ("Toad", 1, 5, (5, 6)), ("Mario", 2, 2, (5, 2)), ("Luigi", 3, 0, (3,))]
    assert face.rows[0].winner and face.rows[0].balance == 10 - 1 + 5
    assert not face.rematch_due
    assert table.contest("race", "close").screen == "table"


def final_race(tmp_path: Path) -> Table:
    """A two-player Mario Kart game at its final Race, won by Luigi (every card before it
    raced by Mario alone)."""
    bank = bank_in(tmp_path, "mario_kart", ["Mario", "Luigi"])
    while not bank.state().next_card.final:  # type: ignore[union-attr]
        bank.contest("race", "open", card=PRIX_CARD)
        bank.contest("race", "enter", player=1)
        bank.contest("race", "start")
        bank.record_outcome(Outcome(Kind.RACE_ROLL, 0, (3,), "race"), params={"player": 1})
        bank.contest("race", "close")
    table = Table(bank)
    table.contest("race", "open", card=PRIX_CARD)
    for pid in (1, 2):
        table.contest("race", "enter", player=pid)
    table.contest("race", "start")
    table.press(Kind.RACE_ROLL, 2, "race")
    table.press(Kind.RACE_ROLL, 6, "race")
    table.changed("after")
    return table


def test_the_final_race_names_itself_and_its_rematch(tmp_path: Path) -> None:
    table = final_race(tmp_path)
    face = table.scene().race
    assert face is not None and face.final and not face.rematch and face.over
    assert face.winner == "Luigi" and face.rematch_due
    assert all(row.prize == 0 for row in face.rows)  # the final Race's prize is the rematch
    face = table.contest("race", "open", rematch=1).race
    assert face is not None and face.rematch and face.final and not face.rematch_due
