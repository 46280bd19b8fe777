"""The Movie's table in ``companion bench``: what the doubles run, the Jail tries and Bowser
on GO cost a state read, against a Celebration game of the same length read the same way (the
floor: the bank's state without the Movie's reads), interleaved, in one run."""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bank import Bank
from companion.bench.bank_io import _percentiles
from companion.core.editions import editions

PLAYERS = ["Mario", "Luigi", "Peach", "Yoshi"]


def _play_movie(bank: Bank, presses: int, rng: random.Random) -> None:
    """Turn rolls (doubles give another turn), a battle, a toll and a trip to Jail now and
    then: the moves a Movie table makes (a new game, or the one under way)."""
    rules = editions()["movie"]
    turn, battle, jail = rules.mode("turn"), rules.mode("battle"), rules.mode("jail")
    if bank.latest_game() is None:
        bank.new_game("movie", PLAYERS)
    ids = [p.id for p in bank.players()]
    if bank.current_player() is None:
        bank.set_current(ids[0])
    for i in range(presses):
        state = bank.state()
        current = state.current
        assert current is not None
        if i % 40 == 7:
            mate = next(p for p in ids if p != current.id and not state.player(p).in_jail)
            if not current.in_jail:
                params = {"leader": current.id, "teammate": mate}
                first = battle.draw(rng, params)
                bank.record_outcome(first, params=params)
                bank.record_outcome(battle.draw(rng, {**params, "first": first.rolls[0]}),
                                    params=params)
            continue
        if i % 25 == 3 and not state.bowser_waits:  # (waiting on GO, he passes nobody)
            free = [p.id for p in state.active if not p.in_jail]
            bank.toll(free[:2])
        if current.in_jail:
            outcome = jail.draw(rng, {"tries": current.jail_tries})
        else:
            outcome = turn.draw(rng, {"doubles": state.doubles})
        bank.record_outcome(outcome)
        if not outcome.doubles:
            bank.next_player()


def _play_celebration(bank: Bank, presses: int, rng: random.Random) -> None:
    block = editions()["celebration"].default_mode
    bank.new_game("celebration", PLAYERS)
    bank.set_current(bank.players()[0].id)
    for _ in range(presses):
        bank.state()
        bank.record_outcome(block.draw(rng))
        bank.next_player()


def movie_state_ms(data_dir: Path, presses: int = 3000, reads: int = 200) -> dict[str, Any]:
    """A Movie game's state read after ``presses`` presses against a Celebration game's of the
    same length (the floor) and against a Movie game a tenth as long (growth), all three read
    interleaved in one run."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        banks = {name: Bank(folder / f"{name}.sqlite3")
                 for name in ("movie", "celebration_floor", "early_movie")}
        _play_movie(banks["movie"], presses, random.Random(2))
        _play_celebration(banks["celebration_floor"], presses, random.Random(3))
        _play_movie(banks["early_movie"], presses // 10, random.Random(1))
        times: dict[str, list[float]] = {name: [] for name in banks}
        for i in range(reads + reads // 4):  # the first quarter warms the caches
            for name, bank in banks.items():
                took = _timed(bank)
                if i >= reads // 4:
                    times[name].append(took)
        figures = {name: _percentiles(samples) for name, samples in times.items()}
        moves = banks["movie"].db.execute(
            "SELECT COUNT(*) FROM moves").fetchone()[0]
        for bank in banks.values():
            bank.close()
        return {"presses": presses, "movie_moves": moves, **figures,
                "ratio_p50": round(figures["movie"]["p50"] /
                                   figures["celebration_floor"]["p50"], 2),
                "growth_p50": round(figures["movie"]["p50"] / figures["early_movie"]["p50"], 2)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _timed(bank: Bank) -> float:
    start = time.perf_counter()
    bank.state()
    return (time.perf_counter() - start) * 1000
