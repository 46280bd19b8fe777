"""Tally presses of a mode and test them against its exact odds (Pearson's chi-square)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from companion.core.editions.modes import Mode
from companion.core.outcomes import DieRng


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom (closed forms)."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if x <= 0:
        return 1.0
    half = x / 2.0
    if df % 2 == 0:
        # Q = exp(-x/2) * sum_{i < df/2} (x/2)^i / i!
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    # Odd df: Q = erfc(sqrt(x/2)) + exp(-x/2) * sum_{i=1}^{(df-1)/2} (x/2)^(i-1/2) / Gamma(i+1/2)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) / math.gamma(1.5)
    for i in range(1, (df - 1) // 2 + 1):
        if i > 1:
            term *= half / (i - 0.5)
        total += math.exp(-half) * term
    return min(1.0, total)


@dataclass(frozen=True)
class OddsReport:
    """Observed counts for N presses of one mode, its exact odds and the fit between them."""

    edition: str
    mode: str
    presses: int
    observed: dict[str, int]
    expected: dict[str, Fraction]
    chi_square: float
    p_value: float
    groups: dict[str, tuple[int, Fraction]] = field(default_factory=dict)
    """Classes worth their own line (the turn roll's doubles): observed count, exact odds."""

    @property
    def degrees_of_freedom(self) -> int:
        return len(self.expected) - 1

    def to_json(self) -> dict[str, object]:
        """The JSON shape printed by ``companion odds --json``."""
        return {
            "edition": self.edition,
            "mode": self.mode,
            "presses": self.presses,
            "observed": dict(self.observed),
            "expected": {label: float(p) for label, p in self.expected.items()},
            "expected_exact": {label: str(p) for label, p in self.expected.items()},
            "chi_square": self.chi_square,
            "degrees_of_freedom": self.degrees_of_freedom,
            "p_value": self.p_value,
            "groups": {name: {"observed": count, "expected": float(p),
                              "expected_exact": str(p)}
                       for name, (count, p) in self.groups.items()},
        }


def min_presses(expected: dict[str, Fraction]) -> int:
    """Presses for at least 5 expected in every class (chi-square's validity rule)."""
    return math.ceil(5 / min(expected.values()))


def report(edition: str, mode: Mode, observed: Counter[str] | dict[str, int],
           params: dict[str, int] | None = None) -> OddsReport:
    """Compare observed outcome counts with the mode's exact odds (``params``: a Boss's
    required roll, for the won and lost lines)."""
    expected = mode.odds()
    if not expected:
        raise ValueError(f"{mode.name} draws nothing: there are no odds to test")
    unknown = set(observed) - set(expected)
    if unknown:
        raise ValueError(f"unknown outcome labels: {sorted(unknown)}")
    counts = {label: int(observed.get(label, 0)) for label in expected}
    presses = sum(counts.values())
    if presses <= 0:
        raise ValueError("need at least one press")
    chi = 0.0
    for label, p in expected.items():
        mean = presses * float(p)
        chi += (counts[label] - mean) ** 2 / mean
    groups = {name: (sum(counts[label] for label in labels), p)
              for name, (labels, p) in mode.groups(params).items()}
    return OddsReport(edition, mode.id, presses, counts, expected, chi,
                      chi2_sf(chi, len(expected) - 1), groups)


def simulate(edition: str, mode: Mode, rng: DieRng, presses: int,
             params: dict[str, int] | None = None) -> OddsReport:
    """Play ``mode`` ``presses`` times with ``rng`` and report the fit (a battle, two presses,
    counts once: its odds are those of the pair)."""
    tally: Counter[str] = Counter(mode.settle(rng, params).label for _ in range(presses))
    return report(edition, mode, tally, params)
