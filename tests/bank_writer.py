"""A bank writer in its own process, for tests/test_bank_durability.py.

Opens the bank file with ``Bank`` (a game must exist) and writes entries, printing one line per
acknowledged write, flushed, only after the write call returned::

    ready                          the file is open
    try <key>                      about to write (crash mode only)
    ack <key> <entry_id|-> <outcome_id|->

Modes:

* ``crash DB K [--retry K:I ...] [--count N]``: writes forever (or N times) a mix of transfers
  (with request ids) and block outcomes; op ``I`` of writer ``K`` is tagged ``wK-I`` (source,
  note and request id), so the test can tell every entry's origin. ``--retry`` first resends
  transfers a killed writer tried but never saw acknowledged, exactly as it sent them.
* ``block|web|tablet|retry DB TAG N DIR [--others T ...] [--reverse]``: prints ``ready``,
  waits for ``DIR/go``, makes N writes; after its first acknowledged write it creates
  ``DIR/TAG.first`` and waits for every ``DIR/<other>.first``, so the writers provably overlap.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from companion.bank import Bank
from companion.core.ledger import BANK, Entry, Payment
from companion.core.outcomes import Kind, Outcome
from companion.core.state import OutcomeView

COIN_MOVING = (*(Outcome(Kind.COINS, coins=k, rolls=(1, k)) for k in range(1, 7)),
               Outcome(Kind.BOWSER, 5, (3,)), Outcome(Kind.GAME_OVER, 10, (6,)))
ALL_OUTCOMES = (*COIN_MOVING, Outcome(Kind.POWER_UP, rolls=(5,)))
WAIT_LIMIT_S = 60.0


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def ack(key: str, result: Entry | Payment | OutcomeView) -> None:
    if isinstance(result, Payment):  # a transfer: in Celebration, always the whole amount
        assert result.entry is not None and not result.capped
        result = result.entry
    if isinstance(result, Entry):
        say(f"ack {key} {result.id} -")
    else:
        say(f"ack {key} {result.entry_id if result.entry_id is not None else '-'} {result.id}")


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + WAIT_LIMIT_S
    while not path.exists():
        if time.monotonic() > deadline:
            sys.exit(f"gave up waiting for {path}")
        time.sleep(0.001)


def crash_op(bank: Bank, players: list[int], k: int,
             i: int) -> Entry | Payment | OutcomeView:
    """Op ``i`` of writer ``k``: the same arguments every time it is (re)sent."""
    tag = f"w{k}-{i}"
    first, second = players
    step = i % 6
    if step == 0:
        return bank.transfer(first, second, 1 + i % 7, note=tag, source=tag, request_id=tag)
    if step == 1:
        return bank.transfer(BANK, second, 2, note=tag, source=tag, request_id=tag)
    if step == 2:
        return bank.transfer(second, BANK, 3, note=tag, source=tag, request_id=tag)
    return bank.record_outcome(ALL_OUTCOMES[(i // 6 * 3 + step) % len(ALL_OUTCOMES)],
                               source=tag)


def is_transfer(i: int) -> bool:
    return i % 6 < 3


def crash(args: argparse.Namespace) -> None:
    bank = Bank(Path(args.db))
    players = [p.id for p in bank.players()]
    say("ready")
    for spec in args.retry:
        k, i = (int(part) for part in spec.split(":"))
        assert is_transfer(i), spec
        say(f"try {k}:{i}")
        ack(f"{k}:{i}", crash_op(bank, players, k, i))
    i = 0
    while args.count is None or i < args.count:
        say(f"try {args.k}:{i}")
        ack(f"{args.k}:{i}", crash_op(bank, players, args.k, i))
        i += 1
    bank.close()


def together(args: argparse.Namespace) -> None:
    bank = Bank(Path(args.db))
    players = [p.id for p in bank.players()]
    folder = Path(args.dir)
    tag = args.tag
    say("ready")
    wait_for(folder / "go")
    order = range(args.n - 1, -1, -1) if args.reverse else range(args.n)
    for count, i in enumerate(order):
        payer, payee = players[i % len(players)], players[(i + 1) % len(players)]
        result: Entry | Payment | OutcomeView
        if args.mode == "block":
            result = bank.record_outcome(COIN_MOVING[i % len(COIN_MOVING)], source=tag)
        elif args.mode == "web":
            result = bank.transfer(payer, payee, 1 + i % 9, note=f"{tag}-{i}", source=tag,
                                   request_id=f"{tag}-{i}")
        elif args.mode == "tablet":
            rid = f"{tag}-{i}"
            result = (bank.pass_go(payee, source=tag, request_id=rid) if i % 2 else
                      bank.transfer(BANK, payer, 4, note=rid, source=tag, request_id=rid))
        else:  # retry: every retry process sends the very same requests
            rid = f"req-{i}"
            result = bank.transfer(payer, payee, 1 + i % 5, note=rid, source=tag,
                                   request_id=rid)
        ack(str(i), result)
        if count == 0:
            (folder / f"{tag}.first").touch()
            for other in args.others:
                wait_for(folder / f"{other}.first")
    bank.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    one = sub.add_parser("crash")
    one.add_argument("db")
    one.add_argument("k", type=int)
    one.add_argument("--retry", action="append", default=[])
    one.add_argument("--count", type=int)
    for mode in ("block", "web", "tablet", "retry"):
        many = sub.add_parser(mode)
        many.add_argument("db")
        many.add_argument("tag")
        many.add_argument("n", type=int)
        many.add_argument("dir")
        many.add_argument("--others", nargs="*", default=[])
        many.add_argument("--reverse", action="store_true")
    args = parser.parse_args()
    if args.mode == "crash":
        crash(args)
    else:
        together(args)


if __name__ == "__main__":
    main()
