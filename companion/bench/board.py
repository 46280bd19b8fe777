"""Coins on the board in ``companion bench``: a Gamer state read (the piles included) after many
drops and scoops, against the same game a tenth as long (growth) and against a Gamer game of
the same length made of payments (the floor: no piles to read), interleaved in one run."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from companion.bank import Bank
from companion.bench.bank_io import interleaved_state_reads

PLAYERS = ["Mario", "Peach", "Yoshi", "Donkey Kong"]
SPACES = ["GO", "Thwomp", "Coin Block", "Warp Pipe", "Acorn Plains", "Bowser's Castle"]


def _drops_and_scoops(bank: Bank, lines: int, rng: random.Random) -> None:
    bank.new_game("gamer", PLAYERS)
    ids = [p.id for p in bank.players()]
    for _ in range(lines):
        piles = bank.board()
        if piles and rng.random() >= 0.6:  # someone passes a pile
            bank.scoop(rng.choice(ids), rng.choice(list(piles)))
        else:  # a shell: someone with coins drops one (every coin is a player's or a pile's)
            money = bank.balances()
            bank.drop(rng.choice([p for p in ids if money[p] > 0]), rng.choice(SPACES), 1)


def _payments(bank: Bank, lines: int, rng: random.Random) -> None:
    bank.new_game("gamer", PLAYERS)
    ids = [p.id for p in bank.players()]
    for _ in range(lines):
        if rng.random() < 0.5:
            bank.transfer(rng.choice(ids), "bank", 1)
        else:
            bank.transfer("bank", rng.choice(ids), 1)


def board_state_ms(data_dir: Path, lines: int = 5000, reads: int = 200) -> dict[str, Any]:
    """State reads of a Gamer game of ``lines`` drops and scoops, of one of ``lines // 10``,
    and of one of ``lines`` payments (the floor); ``growth_p50`` is long / short."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        banks = {name: Bank(folder / f"{name}.sqlite3")
                 for name in ("board", "short_board", "payments_floor")}
        _drops_and_scoops(banks["board"], lines, random.Random(1))
        _drops_and_scoops(banks["short_board"], lines // 10, random.Random(2))
        _payments(banks["payments_floor"], lines, random.Random(3))
        piles = len(banks["board"].board())
        figures = interleaved_state_reads(banks, reads)
        return {"lines": lines, "piles": piles, **figures,
                "ratio_p50": round(figures["board"]["p50"] /
                                   figures["payments_floor"]["p50"], 2),
                "growth_p50": round(figures["board"]["p50"] /
                                    figures["short_board"]["p50"], 2)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
