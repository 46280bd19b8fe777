"""Property sold back to the Bank to pay (Gamer, Mario Kart), where the companion knows who holds
which deed (the board described): a payer short of coins who holds Property sells first, and
the deeds sold go back to the Bank with the payment, one move.

"If you do not have enough Coins, you must sell Property you own back to the Bank for face
value or to other players for an agreed-upon price. Then drop or give any Coins you still
owe." "Pay the price on the space, and take the Title Deed card."
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, space_name
from companion.bank.ring import ring_of
from companion.bank.touch import Touch, capped, coins, deed, touch
from companion.core.editions.ruleset import Debt
from companion.core.ledger import BANK, MAX_AMOUNT, Party
from companion.exc import AgainstTheRules, Refused, shown
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def held(facts: Facts, pid: int) -> list[int]:
    """The spaces whose deeds ``pid`` holds (known on a described board only)."""
    return sorted(space for space, holder in facts.holders.items() if holder == pid)


def check_deeds(bank: Journal, facts: Facts, payer: Party, deeds: object) -> list[int]:
    """The Property a payer sold back to the Bank: spaces of the described board whose deeds
    they hold, each once."""
    if payer == BANK:
        raise Refused(say("deeds are for a player who sells Property to pay, not the Bank"))
    ring = ring_of(bank, facts)
    if not isinstance(deeds, list) or not deeds or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in deeds):
        raise Refused(say("deeds must list the spaces' numbers of the Property sold back to "
                          "the Bank, got {value}", value=shown(deeds)))
    if len(set(deeds)) != len(deeds):
        raise Refused(say("deeds lists one Property twice"))
    for space in deeds:
        if facts.holders.get(space) != payer:
            label = ring.label(space) if 0 <= space < len(ring) else str(space)
            raise Refused(say("{space} is not {name}'s deed", space=space_name(label),
                              name=facts.name(payer)))
    return list(deeds)


def which(bank: Journal, facts: Facts, pid: int, spaces: Sequence[int]) -> Said:
    """A sale that names no deed, from a player the companion knows holds some."""
    ring = ring_of(bank, facts)
    return say("deeds: which Property does {name} sell back to the Bank? ({spaces})",
               name=facts.name(pid),
               spaces=tuple(say("{space} ({n})", space=space_name(ring.label(s)), n=s)
                            for s in spaces))


def face_value(bank: Journal, facts: Facts, spaces: Sequence[int]) -> int:
    """What the Bank pays for ``spaces``: the prices typed for them ("face value", the price
    on the space); refused naming one whose price the table has not typed."""
    ring = ring_of(bank, facts)
    total = 0
    for space in spaces:
        price = ring.spaces[space].price
        if price is None:
            raise Refused(say("sold: type the face value of {space} (its price is not typed)",
                              space=space_name(ring.label(space))))
        total += price
    if not 1 <= total <= MAX_AMOUNT:
        raise Refused(say("sold: type the face value of the Property sold back"))
    return total


def sell_first(bank: Journal, facts: Facts, pid: int, owed: int,
               still_held: Sequence[int]) -> None:
    """Where payments are capped, a player who can't pay ``owed`` (what the Bank's payment
    for a sale does not cover) and still holds Property sells it first: refused naming it,
    unless the banker makes the payment as a correction."""
    has = bank.money(facts.gid)[pid]
    if facts.rules.debt is not Debt.CAPPED or not still_held or has >= owed:
        return
    ring = ring_of(bank, facts)
    bank.overrule(AgainstTheRules(say_n(
        "{name} has {n} coin of {amount} and holds {spaces}: sell Property first (back to "
        "the Bank for face value, or to another player), then pay",
        "{name} has {n} coins of {amount} and holds {spaces}: sell Property first (back to "
        "the Bank for face value, or to another player), then pay", has,
        name=facts.name(pid), amount=owed,
        spaces=tuple(space_name(ring.label(s)) for s in still_held)),
        "sell_first", facts.rules.lines.get("sell_first", facts.rules.debt_quote)))


def record(bank: Journal, facts: Facts, spaces: Sequence[int]) -> dict[str, Any]:
    """What the move keeps of a sale: the spaces and their labels."""
    ring = ring_of(bank, facts)
    return {"deeds": list(spaces), "labels": [ring.label(s) for s in spaces]}


def touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A sale and its payment: the deeds change hands (judged on who held them), and the
    payer's coins were short."""
    payer = data.get("payer")
    spaces = data.get("deeds") or ()
    return touch(changes=[deed(s) for s in spaces],
                 reads=[*(deed(s) for s in spaces), coins(payer), *capped(facts, payer)])
