"""Tokens on the board in ``companion bench``: a token's move (the walk, the piles it scoops,
GO's coins, in one write) late in a long Mario Kart game with Bananas on the board, against a
floor: a plain payment written by the same bank in the same game, interleaved in one run."""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bank import Bank
from companion.bench.stats import summary
from companion.core.ledger import BANK

PLAYERS = ["Mario", "Luigi", "Peach", "Toad"]
KINDS = ["property", None, "item_box", "property", "boost_pad", "property", None, "thwomp",
         "property", "super_star"]
"""A 40-space board: GO, then these ten kinds four times over (Just Visiting, Free Parking and
Go to Jail on the corners)."""


def board(spaces: int = 40) -> dict[str, Any]:
    layout: list[dict[str, Any]] = [{"kind": "go", "name": "GO"}]
    for i in range(1, spaces):
        corner = {spaces // 4: "just_visiting", spaces // 2: "free_parking",
                  3 * spaces // 4: "go_to_jail"}.get(i)
        layout.append({"kind": corner or KINDS[i % len(KINDS)], "name": ""})
    return {"spaces": layout, "faces": ["spiny_shell", "green_shell", "lightning", "coins",
                                        "banana", "banana"]}


def _play(bank: Bank, turns: int, rng: random.Random) -> None:
    """A game of ``turns`` token moves, drops on the way and Bananas now and then."""
    bank.new_game("mario_kart", PLAYERS)
    bank.describe_board(board())
    ids = [p.id for p in bank.players()]
    for i in range(turns):
        who = ids[i % len(ids)]
        state = bank.state()
        me = state.player(who)
        assert me is not None
        if me.in_jail:
            bank.set_jail(who, False)
        bank.move_token(who, steps=rng.randint(1, 6))
        if rng.random() < 0.3:  # a shell: another player drops where they stand
            other = rng.choice([p for p in ids if p != who])
            if bank.balances()[other] > 0:
                bank.drop(other, None, 1)
        if rng.random() < 0.1 and len(state.bananas) < 4:
            free = [s for s in range(1, 40) if s not in state.bananas]
            bank.place_banana(rng.choice(free), player=who)
        bank.next_player()  # Next: the turn passes, as at the table


def token_move_ms(data_dir: Path, turns: int = 2_000, rounds: int = 60) -> dict[str, Any]:
    """A token's move in a game of ``turns`` moves, and the floor's payment, in turn."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-", dir=data_dir))
    try:
        bank = Bank(folder / "bank.sqlite3")
        rng = random.Random(7)
        _play(bank, turns, rng)
        ids = [p.id for p in bank.players()]
        moves: list[float] = []
        floor: list[float] = []
        for i in range(rounds + rounds // 4):  # the first quarter warms the caches
            who = ids[i % len(ids)]
            if bank.state().player(who).in_jail:  # type: ignore[union-attr]
                bank.set_jail(who, False)
            start = time.perf_counter()
            bank.move_token(who, steps=rng.randint(1, 6))
            took = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            bank.transfer(BANK, who, 1, note="bench")
            bare = (time.perf_counter() - start) * 1000
            if i >= rounds // 4:
                moves.append(took)
                floor.append(bare)
        bank.close()
        ours, base = summary(moves, rounds), summary(floor, rounds)
        return {"turns": turns, "move": ours, "payment_floor": base,
                "ratio_p50": round(ours["p50"] / base["p50"], 2) if base["p50"] else None}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
