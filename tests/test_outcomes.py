"""The block's odds are exactly the rulebook's no-sound table."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from companion.core.odds import chi2_sf, report, simulate
from companion.core.outcomes import EXPECTED, LABELS, Kind, Outcome, default_rng, draw
from tests.conftest import run_companion


class Dice:
    """An RNG that rolls the given faces in order (to walk the table exhaustively)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return self.faces.pop(0)


@pytest.mark.parametrize("first", [1, 2])
@pytest.mark.parametrize("second", range(1, 7))
def test_one_or_two_rolls_again_for_that_many_coins(first: int, second: int) -> None:
    outcome = draw(Dice(first, second))
    assert outcome == Outcome(Kind.COINS, coins=second, rolls=(first, second))
    assert outcome.coin_delta == second
    assert outcome.label == f"coins_{second}"


@pytest.mark.parametrize(("face", "kind", "delta"), [
    (3, Kind.BOWSER, -5), (4, Kind.BOWSER, -5), (5, Kind.POWER_UP, 0), (6, Kind.GAME_OVER, -10),
])
def test_the_rest_of_the_table(face: int, kind: Kind, delta: int) -> None:
    dice = Dice(face)
    outcome = draw(dice)
    assert outcome.kind is kind and outcome.coin_delta == delta and outcome.coins == 0
    assert dice.faces == []  # no second roll


def test_expected_table_is_the_exact_enumeration_of_the_dice() -> None:
    weights: Counter[str] = Counter()
    for first, second in itertools.product(range(1, 7), repeat=2):
        weights[draw(Dice(first, second)).label] += Fraction(1, 36)  # type: ignore[assignment]
    assert dict(weights) == EXPECTED
    assert sum(EXPECTED.values()) == 1
    assert EXPECTED["coins_3"] == Fraction(1, 18) and EXPECTED["bowser"] == Fraction(1, 3)


def test_chi2_survival_matches_published_critical_values() -> None:
    # Upper 5 % and 1 % points of the chi-square distribution (standard tables).
    assert chi2_sf(15.507, 8) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(20.090, 8) == pytest.approx(0.01, abs=1e-4)
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(11.345, 3) == pytest.approx(0.01, abs=1e-4)
    assert chi2_sf(0.0, 8) == 1.0


def test_600k_seeded_presses_fit_all_nine_classes() -> None:
    result = simulate(random.Random(20261122), 600_000)
    assert result.presses == 600_000
    assert set(result.observed) == set(LABELS)
    assert result.p_value > 0.001, result
    for label, p in EXPECTED.items():  # every class within 5 standard errors
        n, q = 600_000, float(p)
        assert abs(result.observed[label] - n * q) < 5 * (n * q * (1 - q)) ** 0.5


def test_the_fit_test_catches_a_loaded_block() -> None:
    class NoSixes(random.Random):
        def randint(self, a: int, b: int) -> int:
            return super().randint(a, b - 1) if b == 6 else super().randint(a, b)

    result = simulate(NoSixes(1), 60_000)
    assert result.observed["game_over"] == 0
    assert result.p_value < 1e-9


def test_default_rng_is_os_entropy_not_a_seed() -> None:
    rng = default_rng()
    assert isinstance(rng, random.SystemRandom)
    with pytest.raises(NotImplementedError):
        rng.getstate()  # SystemRandom has no state to seed or replay
    a = [draw(default_rng()).label for _ in range(200)]
    b = [draw(default_rng()).label for _ in range(200)]
    assert a != b


def test_report_rejects_unknown_labels_and_empty_tallies() -> None:
    with pytest.raises(ValueError, match="unknown"):
        report({"coins_7": 3})
    with pytest.raises(ValueError, match="at least one"):
        report({})


def test_odds_command_prints_the_documented_json_shape() -> None:
    done = run_companion("odds", "--presses", "5000", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["presses"] == 5000
    assert list(data["observed"]) == list(LABELS)
    assert sum(data["observed"].values()) == 5000
    assert data["expected"] == {k: float(v) for k, v in EXPECTED.items()}
    assert 0.0 <= data["p_value"] <= 1.0


def test_odds_command_table_and_bad_presses() -> None:
    done = run_companion("odds", "--presses", "2000")
    assert done.returncode == 0
    assert "coins_6" in done.stdout and "p-value" in done.stdout
    for presses in ("0", "89", "many"):
        bad = run_companion("odds", "--presses", presses)
        assert bad.returncode == 2
        assert "--presses" in bad.stderr and "Traceback" not in bad.stderr
    assert "must be at least 90" in bad.stderr or "not a whole number" in bad.stderr
