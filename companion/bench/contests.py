"""Boss fights and Races in ``companion bench``: a state read of a Gamer game with seven Boss
fights played and the eighth open, and of a Mario Kart game with seven Races run and the
eighth rolling, each against a game of the same length made of payments alone (the floor: no
contests to fold), interleaved in one run. Every state read folds the game's contest moves."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from companion.bank import Bank
from companion.bench.bank_io import interleaved_state_reads
from companion.core.outcomes import Kind, Outcome

PLAYERS = ["Mario", "Peach", "Yoshi", "Donkey Kong"]
BOSS = {"cost": 1, "required": 5, "pay_to": "card", "bonus": 2, "points": 20}
PRIX = {"fee": 1, "prizes": [3, 2, 1], "points": 20}


def _payments(bank: Bank, edition: str, lines: int, rng: random.Random) -> None:
    bank.new_game(edition, PLAYERS)
    ids = [p.id for p in bank.players()]
    for _ in range(lines):
        bank.transfer("bank", rng.choice(ids), 1)


def _fights(bank: Bank, rng: random.Random) -> None:
    """Seven Boss fights to a winner (each fighter loses a few times first), the eighth open."""
    for number in range(8):
        bank.contest("boss", "open", card=BOSS)
        ids = list(bank.state().fight.order)  # type: ignore[union-attr]
        rolls = 0
        while bank.state().fight.winner is None and number < 7:  # type: ignore[union-attr]
            fight = bank.state().fight
            assert fight is not None and fight.up is not None
            bank.contest("boss", "fight", player=fight.up)
            rolls += 1
            won = rolls > 3 and rng.random() < 0.5
            bank.record_outcome(Outcome(Kind.BOSS_WON if won else Kind.BOSS_LOST, 0,
                                        (6 if won else 2,), "boss"),
                                params={"player": fight.up})
        if number < 7:
            bank.contest("boss", "close")
        else:
            bank.contest("boss", "pass", player=ids[0])


def _races(bank: Bank, rng: random.Random) -> None:
    """Seven Races of four with ties, the eighth rolling."""
    for number in range(8):
        bank.contest("race", "open", card=PRIX)
        for pid in bank.state().race.order:  # type: ignore[union-attr]
            bank.contest("race", "enter", player=pid)
        bank.contest("race", "start")
        while True:
            race = bank.state().race
            assert race is not None
            roller = race.standing.roller
            if roller is None or (number == 7 and len(race.rolls) > 5):
                break
            bank.record_outcome(Outcome(Kind.RACE_ROLL, 0, (rng.randint(3, 6),), "race"),
                                params={"player": roller})
        if number < 7:
            bank.contest("race", "close")


def contest_state_ms(data_dir: Path, lines: int = 3000, reads: int = 200) -> dict[str, Any]:
    """State reads of a Gamer and a Mario Kart game of ``lines`` payments and a deck's worth
    of contests, against the same games without contests (``ratio_p50``: contests / floor)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        banks = {name: Bank(folder / f"{name}.sqlite3")
                 for name in ("fights", "fights_floor", "races", "races_floor")}
        for name, bank in banks.items():
            _payments(bank, "gamer" if name.startswith("fights") else "mario_kart", lines,
                      random.Random(len(name)))
        _fights(banks["fights"], random.Random(4))
        _races(banks["races"], random.Random(5))
        moves = {name: len(bank.moves()) for name, bank in banks.items()}
        figures = interleaved_state_reads(banks, reads)
        return {"lines": lines, "moves": moves, **figures,
                "fights_ratio_p50": round(figures["fights"]["p50"] /
                                          figures["fights_floor"]["p50"], 2),
                "races_ratio_p50": round(figures["races"]["p50"] /
                                         figures["races_floor"]["p50"], 2)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
