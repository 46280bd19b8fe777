"""Latency summaries for the benchmark children."""

from __future__ import annotations


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of already sorted values."""
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def summary(values: list[float], n: int) -> dict[str, float | int]:
    """``n`` attempts, of which ``values`` (ms) arrived: p50, p99, max and how many were lost."""
    if not values:
        return {"n": n, "lost": n}
    values = sorted(values)
    return {"n": n, "p50": round(percentile(values, 0.5), 3),
            "p99": round(percentile(values, 0.99), 3), "max": round(values[-1], 3),
            "lost": n - len(values)}
