"""What reading a body by the one JSON reader costs (:mod:`companion.web.body`): a transfer's
body and a described board's (the biggest a page sends), against the bare ``json.loads`` of the
same bytes (the floor), interleaved in one run; and checking a press given back against its
table (:meth:`companion.core.editions.modes.Mode.could_draw`)."""

from __future__ import annotations

import json
import time
from typing import Any

from companion.bench.stats import percentile


def _bodies() -> dict[str, bytes]:
    spaces = [{"kind": "property", "name": f"Space {i}", "points": i % 7, "price": 60 + i,
               "rent": [2, 4, 6]} for i in range(40)]
    return {"transfer": json.dumps({"from": 1, "to": 2, "amount": 7, "note": "rent"}).encode(),
            "board": json.dumps({"spaces": spaces, "faces": ["coins"] * 6}).encode()}


def _timed(fn: Any, raw: bytes, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn(raw)
    return (time.perf_counter() - start) / repeat * 1e6


def json_body_us(rounds: int = 30, repeat: int = 200) -> dict[str, Any]:
    """Microseconds per body read, p50 of ``rounds`` interleaved rounds, and the ratio to the
    floor; microseconds per press checked against its table."""
    from companion.core.editions import editions
    from companion.core.outcomes import default_rng
    from companion.web.body import parse

    figures: dict[str, Any] = {}
    for name, raw in _bodies().items():
        ours, floor = [], []
        for _ in range(rounds):
            ours.append(_timed(parse, raw, repeat))
            floor.append(_timed(json.loads, raw, repeat))
        p50, base = percentile(sorted(ours), 0.5), percentile(sorted(floor), 0.5)
        figures[name] = {"bytes": len(raw), "reader_us": round(p50, 2),
                         "json_loads_us": round(base, 2), "ratio": round(p50 / base, 2)}
    mode = editions()["celebration"].mode("question_block")
    rng = default_rng()
    outcomes = [mode.draw(rng) for _ in range(repeat)]
    start = time.perf_counter()
    for outcome in outcomes:
        mode.could_draw(outcome)
    figures["press_given_back_check_us"] = round(
        (time.perf_counter() - start) / repeat * 1e6, 2)
    return figures
