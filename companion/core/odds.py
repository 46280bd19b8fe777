"""Tally presses and test them against the rulebook's table (Pearson's chi-square)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from companion.core.outcomes import EXPECTED, LABELS, DieRng, draw


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
    """Observed counts for N presses, the rulebook's probabilities and the fit between them."""

    presses: int
    observed: dict[str, int]
    chi_square: float
    p_value: float

    def to_json(self) -> dict[str, object]:
        """The JSON shape printed by ``companion odds --json``."""
        return {
            "presses": self.presses,
            "observed": dict(self.observed),
            "expected": {label: float(p) for label, p in EXPECTED.items()},
            "chi_square": self.chi_square,
            "p_value": self.p_value,
        }


def report(observed: Counter[str] | dict[str, int]) -> OddsReport:
    """Compare observed outcome counts with the rulebook's table."""
    counts = {label: int(observed.get(label, 0)) for label in LABELS}
    unknown = set(observed) - set(LABELS)
    if unknown:
        raise ValueError(f"unknown outcome labels: {sorted(unknown)}")
    presses = sum(counts.values())
    if presses <= 0:
        raise ValueError("need at least one press")
    chi = 0.0
    for label, p in EXPECTED.items():
        expected = presses * float(p)
        chi += (counts[label] - expected) ** 2 / expected
    return OddsReport(presses, counts, chi, chi2_sf(chi, len(LABELS) - 1))


def simulate(rng: DieRng, presses: int) -> OddsReport:
    """Press the block ``presses`` times with ``rng`` and report the fit."""
    tally: Counter[str] = Counter(draw(rng).label for _ in range(presses))
    return report(tally)
