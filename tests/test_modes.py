"""Every press mode draws exactly its rulebook table: walked die by die, then 600k seeded
presses per mode fitted by chi-square, and a loaded die is caught."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from companion.core.editions import editions
from companion.core.editions.modes import Mode
from companion.core.odds import chi2_sf, min_presses, report, simulate
from companion.core.outcomes import Kind, Outcome, default_rng
from companion.exc import Refused
from tests.conftest import run_companion

CELEBRATION = editions()["celebration"]
BLOCK = CELEBRATION.mode("question_block")
RENT = CELEBRATION.mode("utility_rent")
DRAWING = [(e.id, m) for e in editions().values() for m in e.modes if m.draws]
"""Every mode of every edition that rolls a die."""


class Dice:
    """An RNG that rolls the given faces in order (to walk a table exhaustively)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return self.faces.pop(0)


# -- Celebration's Question Block: the no-sound table ------------------------------------------


@pytest.mark.parametrize("first", [1, 2])
@pytest.mark.parametrize("second", range(1, 7))
def test_one_or_two_rolls_again_for_that_many_coins(first: int, second: int) -> None:
    # "If you roll a 1 or 2: Roll the die again and collect that many coins."
    outcome = BLOCK.draw(Dice(first, second))
    assert outcome == Outcome(Kind.COINS, second, (first, second), "question_block")
    assert outcome.coin_delta == second and outcome.label == f"coins_{second}"


@pytest.mark.parametrize(("face", "kind", "delta"), [
    (3, Kind.BOWSER, -5), (4, Kind.BOWSER, -5),  # "If you roll a 3 or 4: Pay the Bank 5 coins."
    (5, Kind.POWER_UP, 0),  # "If you roll a 5: Roll the die and move again."
    (6, Kind.GAME_OVER, -10),  # "If you roll a 6: Pay the Bank 10 coins."
])
def test_the_rest_of_the_table(face: int, kind: Kind, delta: int) -> None:
    dice = Dice(face)
    outcome = BLOCK.draw(dice)
    assert outcome.kind is kind and outcome.coin_delta == delta
    assert dice.faces == []  # no second roll


def test_the_fees_come_from_the_ruleset_not_the_code() -> None:
    cheap = Mode("question_block", "Question Block", "question_block", ("house rule",),
                 default=True, fees={"bowser": 2, "game_over": 3})
    bowser, game_over = cheap.draw(Dice(3)), cheap.draw(Dice(6))
    assert (bowser.coin_delta, game_over.coin_delta) == (-2, -3)
    assert str(cheap.describe(bowser)) == "Bowser's laugh: pay the Bank 2 coins"
    assert str(cheap.instruction(game_over)) == "Pay the Bank 3 coins"


# -- the other tables --------------------------------------------------------------------------


@pytest.mark.parametrize("roll", range(1, 7))
@pytest.mark.parametrize("utilities", [1, 2])
def test_utility_rent_is_the_roll_doubled_with_both_utilities(roll: int, utilities: int) -> None:
    # "If the owner has 1 utility, pay the amount rolled. If the owner has both utilities, pay
    # double the amount rolled."
    outcome = RENT.draw(Dice(roll), {"utilities": utilities})
    assert outcome == Outcome(Kind.RENT, roll * utilities, (roll,), "utility_rent")
    assert outcome.label == f"roll_{roll}" and outcome.coin_delta == -roll * utilities


@pytest.mark.parametrize("edition", ["gamer", "mario_kart"])
@pytest.mark.parametrize("roll", range(1, 7))
def test_coin_block_and_item_box_collect_the_roll(edition: str, roll: int) -> None:
    # "roll the numbered die, and collect that many Coins from the Bank."
    mode = editions()[edition].default_mode
    outcome = mode.draw(Dice(roll))
    assert outcome == Outcome(Kind.COINS, roll, (roll,), mode.id)
    assert str(mode.headline(outcome)) == f"{roll} COIN{'S' if roll > 1 else ''}!"


MOVIE = editions()["movie"]


@pytest.mark.parametrize(("red", "black"), list(itertools.product(range(1, 7), repeat=2)))
def test_the_movie_turn_rolls_both_dice_and_bowser_moves_the_black(red: int, black: int) -> None:
    turn = MOVIE.default_mode
    outcome = turn.draw(Dice(red, black), {"doubles": 0})
    assert outcome.rolls == (red, black) and outcome.total == red + black
    assert outcome.kind is Kind.DICE and outcome.coin_delta == 0
    assert outcome.doubles == (red == black) and outcome.step == (1 if red == black else 0)
    assert f"Bowser moves {black} (black die), then you move {red + black}" in \
        str(turn.instruction(outcome))
    assert ("another turn" in str(turn.instruction(outcome))) == (red == black)


def test_the_third_doubles_in_a_row_is_jail_and_a_miss_breaks_the_run() -> None:
    turn = MOVIE.default_mode
    assert turn.fees["doubles_limit"] == 3
    second = turn.draw(Dice(4, 4), {"doubles": 1})
    assert second.kind is Kind.DICE and second.step == 2
    third = turn.draw(Dice(2, 2), {"doubles": 2})
    assert third.kind is Kind.THIRD_DOUBLES and third.step == 3 and third.label == "dice_2_2"
    assert "Jail" in str(turn.instruction(third)) and "GO" in str(turn.instruction(third))
    assert turn.draw(Dice(2, 5), {"doubles": 2}).kind is Kind.DICE


@pytest.mark.parametrize(("first", "second", "won"), [(1, 6, True), (3, 3, False),
                                                      (6, 1, True), (1, 5, False)])
def test_a_battle_is_two_presses_and_seven_or_more_wins(first: int, second: int,
                                                        won: bool) -> None:
    battle = MOVIE.mode("battle")
    leader = battle.draw(Dice(first), {})
    assert leader.kind is Kind.BATTLE_ROLL and leader.rolls == (first,) and leader.coins == 0
    result = battle.draw(Dice(second), {"first": first})
    assert result.rolls == (first, second)
    assert result.kind is (Kind.BATTLE_WON if won else Kind.BATTLE_LOST)
    assert result.coins == (2 if won else 0) and result.coin_delta == (2 if won else 0)
    assert battle.odds() == {"won": Fraction(21, 36), "lost": Fraction(15, 36)}


def test_piranha_pays_and_super_star_collects_the_red_die() -> None:
    for roll in range(1, 7):
        bite = MOVIE.mode("piranha").draw(Dice(roll))
        star = MOVIE.mode("super_star").draw(Dice(roll))
        assert (bite.kind, bite.coins, bite.coin_delta) == (Kind.PIRANHA, roll, -roll)
        assert (star.kind, star.coins, star.coin_delta) == (Kind.SUPER_STAR, roll, roll)


def test_rolling_out_of_jail_three_tries_then_pay_one_and_move() -> None:
    jail = MOVIE.mode("jail")
    assert jail.automatic and not jail.default and jail.fees == {"tries": 3, "fee": 1}
    free = jail.draw(Dice(5, 5), {"tries": 2})
    assert free.kind is Kind.JAIL_FREE and free.label == "doubles" and free.coin_delta == 0
    stay = jail.draw(Dice(1, 2), {"tries": 0})
    assert stay.kind is Kind.JAIL_STAY and stay.step == 1 and "2 tries left" in \
        str(jail.instruction(stay))
    paid = jail.draw(Dice(1, 2), {"tries": 2})
    assert (paid.kind, paid.coins, paid.coin_delta, paid.step) == (Kind.JAIL_PAID, 1, -1, 3)
    # "Each time the players roll the dice to move they will use the black die to move Bowser"
    assert str(jail.instruction(paid)) == \
        "Pay the Bank 1 coin. Bowser moves 2 (black die), then you move 3"
    assert str(jail.instruction(free)) == \
        "Out of Jail with the doubles. Bowser moves 5 (black die), then you move 10"
    # "Bowser stays on the GO space until all of the players have completed their next turn"
    waiting = jail.draw(Dice(5, 5), {"tries": 0, "bowser_waits": 1})
    assert waiting.bowser_waits and str(jail.instruction(waiting)) == \
        "Out of Jail with the doubles. Bowser waits on GO: you move 10"
    turn = MOVIE.mode("turn")
    rolled = turn.draw(Dice(3, 4), {"doubles": 0, "bowser_waits": 1})
    assert rolled.bowser_waits and str(turn.instruction(rolled)) == \
        "Bowser waits on GO: you move 7"
    assert str(turn.instruction(turn.draw(Dice(3, 4), {"doubles": 0}))) == \
        "Bowser moves 4 (black die), then you move 7"
    assert jail.odds() == {"doubles": Fraction(1, 6), "no_doubles": Fraction(5, 6)}


def test_the_turn_rolls_doubles_group_is_one_in_six() -> None:
    (labels, p), = MOVIE.default_mode.groups().values()
    assert p == Fraction(1, 6) and labels == {f"dice_{k}_{k}" for k in range(1, 7)}


def test_the_worms_lever_draws_nothing() -> None:
    lever = editions()["wiggly_worms"].default_mode
    assert not lever.draws and lever.odds() == {}
    with pytest.raises(Refused, match="draws nothing"):
        lever.draw(Dice(1))


@pytest.mark.parametrize(("edition", "mode"), DRAWING, ids=[f"{e}-{m.id}" for e, m in DRAWING])
def test_each_modes_odds_are_the_exact_enumeration_of_its_dice(edition: str, mode: Mode) -> None:
    weights: Counter[str] = Counter()
    for first, second in itertools.product(range(1, 7), repeat=2):
        dice = Dice(first, second)
        label = mode.settle(dice, {"utilities": 2}).label
        weights[label] += Fraction(1, 36) if not dice.faces else Fraction(1, 6) / 6
    assert dict(weights) == mode.odds()
    assert sum(mode.odds().values()) == 1


def test_the_question_blocks_exact_odds() -> None:
    odds = BLOCK.odds()
    assert odds["coins_3"] == Fraction(1, 18) and odds["bowser"] == Fraction(1, 3)
    assert odds["power_up"] == odds["game_over"] == Fraction(1, 6)
    assert min_presses(odds) == 90 and min_presses(RENT.odds()) == 30


# -- the fit, 600k presses a mode ----------------------------------------------------------------


def test_chi2_survival_matches_published_critical_values() -> None:
    # Upper 5 % and 1 % points of the chi-square distribution (standard tables).
    assert chi2_sf(15.507, 8) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(20.090, 8) == pytest.approx(0.01, abs=1e-4)
    assert chi2_sf(11.070, 5) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(11.345, 3) == pytest.approx(0.01, abs=1e-4)
    assert chi2_sf(0.0, 8) == 1.0


@pytest.mark.parametrize(("edition", "mode"), DRAWING, ids=[f"{e}-{m.id}" for e, m in DRAWING])
def test_600k_seeded_presses_fit_every_class(edition: str, mode: Mode) -> None:
    n = 600_000
    result = simulate(edition, mode, random.Random(20261122), n, {"utilities": 2})
    assert result.presses == n and set(result.observed) == set(mode.odds())
    assert result.p_value > 0.001, result
    for label, p in mode.odds().items():  # every class within 5 standard errors
        q = float(p)
        assert abs(result.observed[label] - n * q) < 5 * (n * q * (1 - q)) ** 0.5


class NoSixes(random.Random):
    def randint(self, a: int, b: int) -> int:
        return super().randint(a, b - 1) if b == 6 else super().randint(a, b)


@pytest.mark.parametrize(("edition", "mode"), DRAWING, ids=[f"{e}-{m.id}" for e, m in DRAWING])
def test_the_fit_test_catches_a_loaded_die(edition: str, mode: Mode) -> None:
    result = simulate(edition, mode, NoSixes(1), 60_000, {"utilities": 1})
    assert result.p_value < 1e-9


def test_default_rng_is_os_entropy_not_a_seed() -> None:
    rng = default_rng()
    assert isinstance(rng, random.SystemRandom)
    with pytest.raises(NotImplementedError):
        rng.getstate()  # SystemRandom has no state to seed or replay
    a = [BLOCK.draw(default_rng()).label for _ in range(200)]
    b = [BLOCK.draw(default_rng()).label for _ in range(200)]
    assert a != b


def test_report_rejects_unknown_labels_and_empty_tallies() -> None:
    with pytest.raises(ValueError, match="unknown"):
        report("celebration", BLOCK, {"coins_7": 3})
    with pytest.raises(ValueError, match="at least one"):
        report("celebration", BLOCK, {})
    with pytest.raises(ValueError, match="draws nothing"):
        report("wiggly_worms", editions()["wiggly_worms"].default_mode, {"x": 1})


# -- companion odds ------------------------------------------------------------------------------


def test_odds_command_prints_the_documented_json_shape() -> None:
    done = run_companion("odds", "--presses", "5000", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["edition"], data["mode"], data["presses"]) == ("celebration", "question_block",
                                                                5000)
    assert list(data["observed"]) == list(BLOCK.odds()) and sum(data["observed"].values()) == 5000
    assert data["expected"] == {k: float(v) for k, v in BLOCK.odds().items()}
    assert data["expected_exact"]["bowser"] == "1/3"
    assert 0.0 <= data["p_value"] <= 1.0 and data["degrees_of_freedom"] == 8


@pytest.mark.parametrize(("edition", "mode", "classes"), [
    ("celebration", "utility_rent", [f"roll_{k}" for k in range(1, 7)]),
    ("gamer", "coin_block", [f"coins_{k}" for k in range(1, 7)]),
    ("mario_kart", "item_box", [f"coins_{k}" for k in range(1, 7)]),
    ("movie", "piranha", [f"piranha_{k}" for k in range(1, 7)]),
    ("movie", "super_star", [f"star_{k}" for k in range(1, 7)]),
])
def test_odds_command_for_every_edition_and_mode(edition: str, mode: str,
                                                 classes: list[str]) -> None:
    done = run_companion("odds", "--edition", edition, "--mode", mode, "--presses", "3000",
                         "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data["observed"]) == classes == list(data["expected"])
    assert set(data["expected_exact"].values()) == {"1/6"}


def test_odds_command_for_the_movies_own_modes() -> None:
    turn = json.loads(run_companion("odds", "--edition", "movie", "--mode", "turn",
                                    "--presses", "3600", "--json").stdout)
    assert len(turn["expected"]) == 36 and set(turn["expected_exact"].values()) == {"1/36"}
    assert turn["groups"]["doubles"]["expected_exact"] == "1/6"
    assert turn["groups"]["doubles"]["observed"] == sum(
        turn["observed"][f"dice_{k}_{k}"] for k in range(1, 7))
    battle = json.loads(run_companion("odds", "--edition", "movie", "--mode", "battle",
                                      "--presses", "2000", "--json").stdout)
    assert battle["expected_exact"] == {"won": "7/12", "lost": "5/12"}  # 21/36 and 15/36
    assert sum(battle["observed"].values()) == 2000
    jail = json.loads(run_companion("odds", "--edition", "movie", "--mode", "jail",
                                    "--presses", "600", "--json").stdout)
    assert jail["expected_exact"] == {"doubles": "1/6", "no_doubles": "5/6"}
    text = run_companion("odds", "--edition", "movie", "--mode", "battle", "--presses", "100")
    assert "a whole battle" in text.stdout and text.returncode == 0


def test_odds_list_shows_every_editions_modes_with_exact_odds() -> None:
    done = run_companion("odds", "--list")
    assert done.returncode == 0, done.stderr
    for edition in editions().values():
        assert f"{edition.id}: {edition.name}" in done.stdout
        for mode in edition.modes:
            assert f"{mode.id}: {mode.name}" in done.stdout
    assert "bowser        1/3" in done.stdout and "coins_1      1/18" in done.stdout
    as_json = json.loads(run_companion("odds", "--list", "--json").stdout)
    assert as_json["gamer"]["modes"][0]["odds"]["coins_6"] == "1/6"


def test_odds_command_bad_input_is_one_line_and_exit_2() -> None:
    for args, words in ((["--presses", "89"], "at least 90"),
                        (["--mode", "utility_rent", "--presses", "29"], "at least 30"),
                        (["--edition", "chess"], "unknown edition 'chess'"),
                        (["--edition", "movie", "--mode", "question_block"],
                         "has no 'question_block' mode"),
                        (["--edition", "wiggly_worms"], "draws nothing"),
                        (["--presses", "many"], "not a whole number")):
        bad = run_companion("odds", *args)
        assert bad.returncode == 2, args
        assert words in bad.stderr and "Traceback" not in bad.stderr, bad.stderr


@pytest.mark.parametrize("required", range(1, 7))
def test_a_boss_roll_wins_at_the_required_roll_or_more(required: int) -> None:
    boss = editions()["gamer"].mode("boss")
    for face in range(1, 7):
        outcome = boss.draw(Dice(face), {"required": required})
        assert outcome.kind is (Kind.BOSS_WON if face >= required else Kind.BOSS_LOST)
        assert outcome.label == f"roll_{face}"
    won, lost = boss.groups({"required": required}).values()
    assert won[1] == Fraction(7 - required, 6) and won[1] + lost[1] == 1
    assert won[0] == {f"roll_{k}" for k in range(required, 7)}


def test_odds_command_for_a_boss_fight_and_a_race() -> None:
    boss = json.loads(run_companion("odds", "--edition", "gamer", "--mode", "boss",
                                    "--required", "5", "--presses", "3000", "--json").stdout)
    assert boss["groups"]["won"]["expected_exact"] == "1/3"
    assert boss["groups"]["won"]["observed"] == boss["observed"]["roll_5"] + \
        boss["observed"]["roll_6"]
    race = json.loads(run_companion("odds", "--edition", "mario_kart", "--mode", "race",
                                    "--presses", "600", "--json").stdout)
    assert set(race["expected_exact"].values()) == {"1/6"} and race["groups"] == {}
    for args, words in ((["--edition", "gamer", "--mode", "boss"], "needs --required"),
                        (["--edition", "gamer", "--mode", "coin_block", "--required", "3"],
                         "--required is for a Boss fight"),
                        (["--edition", "gamer", "--mode", "boss", "--required", "7"],
                         "invalid choice")):
        bad = run_companion("odds", *args)
        assert bad.returncode == 2 and words in bad.stderr and "Traceback" not in bad.stderr


def test_the_movement_press_reads_both_dice_and_the_faces_the_table_typed() -> None:
    move = editions()["gamer"].mode("move")
    odds = move.odds()
    assert len(odds) == 36 and set(odds.values()) == {Fraction(1, 36)} and sum(odds.values()) == 1
    faces = ["red_shell", "coins", "blooper", "pow", "coins", "green_shell"]
    groups = move.groups({"faces": faces})
    assert {name: p for name, (_labels, p) in groups.items()} == {
        "red_shell": Fraction(1, 6), "coins": Fraction(1, 3), "blooper": Fraction(1, 6),
        "pow": Fraction(1, 6), "green_shell": Fraction(1, 6)}
    assert groups["coins"][0] == {f"move_{k}_face_{f}" for k in range(1, 7) for f in (2, 5)}
    assert move.groups() == {}  # the faces not typed: no ability lines
    assert editions()["mario_kart"].mode("move").table == "move_roll"


def test_odds_command_for_the_movement_press() -> None:
    faces = "spiny_shell,green_shell,lightning,coins,banana,banana"
    moved = json.loads(run_companion("odds", "--edition", "mario_kart", "--mode", "move",
                                     "--faces", faces, "--presses", "3600", "--json").stdout)
    assert len(moved["expected"]) == 36 and set(moved["expected_exact"].values()) == {"1/36"}
    assert moved["groups"]["banana"]["expected_exact"] == "1/3"
    assert moved["groups"]["banana"]["observed"] == sum(
        moved["observed"][f"move_{k}_face_{f}"] for k in range(1, 7) for f in (5, 6))
    for args, words in ((["--faces", "coins,coins"], "6 faces"),
                        (["--faces", "spiny_shell,green_shell,lightning,coins,coins,coins"],
                         "'banana' is on no face"),
                        (["--mode", "race", "--faces", faces], "--faces is for the movement")):
        bad = run_companion("odds", "--edition", "mario_kart", *(
            args if "--mode" in args else ["--mode", "move", *args]))
        assert bad.returncode == 2 and words in bad.stderr and "Traceback" not in bad.stderr
