"""What a move touches besides the coins it moves: the table's facts it changes and the facts
(and balances) it was judged on. Undo of an earlier move is refused while a later move touches
what it changed (:mod:`companion.bank.depends`).

A fact is ``(name, key)``: ``("turn", "")``, ``("jail", 3)``, ``("pile", "Coin Block")``; a
``None`` key stands for every fact of that name (``("jail", None)``: anyone's Jail), and
:data:`EVERYTHING` for every fact there is. ``("coins", p)`` and ``("pile", space)`` are
balances: a move *reads* one when its amounts (or whether it was allowed) came from it; the
coins a move moves are its entries', never declared.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.bank.facts import Facts
from companion.core.editions.ruleset import Debt
from companion.core.ledger import BANK, Entry

Fact = tuple[str, object]

TURN: Fact = ("turn", "")
"""Whose turn it is."""
CONTEST: Fact = ("contest", "")
"""The Boss fights or Races: every step builds on the ones before."""
BOWSER: Fact = ("bowser", "")
"""The Movie: Bowser beaten, waiting on GO."""
END: Fact = ("end", "")
"""The game's end."""
EVERYTHING: Fact = ("*", None)


def jail(player: object) -> Fact:
    """Whether ``player`` is in Jail, and their tries out of it (None: anyone's)."""
    return ("jail", player)


def out(player: object) -> Fact:
    """Whether ``player`` is still in the game (None: who is)."""
    return ("out", player)


def coins(player: object) -> Fact:
    """``player``'s balance (None: anyone's)."""
    return ("coins", player)


def pile(space: object) -> Fact:
    """The coins on a space of the board (None: every pile)."""
    return ("pile", space)


def outcome(outcome_id: object) -> Fact:
    """Which player a block outcome was given to."""
    return ("outcome", outcome_id)


def points(player: object) -> Fact:
    return ("points", player)


def worms(player: object) -> Fact:
    return ("worms", player)


def position(player: object) -> Fact:
    """Where ``player``'s token stands on the board (None: anyone's)."""
    return ("position", player)


def banana(space: object) -> Fact:
    """A Banana on a space of the board (None: any, and how many there are)."""
    return ("banana", space)


def deed(space: object) -> Fact:
    """Who holds the deed of a space (None: any deed)."""
    return ("deed", space)


def characters(player: object) -> Fact:
    return ("characters", player)


@dataclass(frozen=True, slots=True)
class Touch:
    """The facts one move changed and the facts it read (beyond its coin entries)."""

    changes: frozenset[Fact] = frozenset()
    reads: frozenset[Fact] = frozenset()

    @property
    def touched(self) -> frozenset[Fact]:
        return self.changes | self.reads


ALL = Touch(frozenset({EVERYTHING}), frozenset({EVERYTHING}))
"""A kind that declares nothing: it may have changed or read anything."""


def touch(changes: Iterable[Fact | None] = (), reads: Iterable[Fact | None] = ()) -> Touch:
    """A :class:`Touch` from facts (``None`` left out, for facts that may not apply)."""
    return Touch(frozenset(f for f in changes if f is not None),
                 frozenset(f for f in reads if f is not None))


def capped(facts: Facts, *payers: object) -> list[Fact]:
    """The balances a payment read where payments are capped at what a player has."""
    if facts.rules.debt is not Debt.CAPPED:
        return []
    return [coins(p) for p in payers if isinstance(p, int) and not isinstance(p, bool)]


def drawn(row: sqlite3.Row, data: Mapping[str, Any]) -> tuple[list[Fact], list[Fact]]:
    """What a move a block outcome made touched through the outcome: which player it was
    given to (changed), Bowser beaten (changed) or waiting (read), and the other players it
    was armed with, still in (read: a teammate or an owner who is out gets nothing)."""
    if data.get("outcome") is None:
        return [], []
    keys = row.keys()
    kind = row["outcome_kind"] if "outcome_kind" in keys else None
    params = json.loads(row["outcome_params"] or "{}") if "outcome_params" in keys else {}
    changes = [outcome(data["outcome"]), *([BOWSER] if kind == "battle_won" else [])]
    reads = [*([BOWSER] if params.get("bowser_waits") else []),
             *(out(params[k]) for k in ("teammate", "owner") if params.get(k) is not None)]
    return changes, reads


def moved(entries: Iterable[Entry]) -> frozenset[Fact]:
    """The balances a move's entries changed: each player's, each pile's (not the Bank)."""
    found: set[Fact] = set()
    for e in entries:
        for side in (e.payer, e.payee):
            if side != BANK:
                found.add(coins(side))
            elif e.space is not None:
                found.add(pile(e.space))
    return frozenset(found)


def meets(a: Fact, b: Fact) -> bool:
    """The same fact, or one of them stands for it (a ``None`` key, :data:`EVERYTHING`)."""
    if a == EVERYTHING or b == EVERYTHING:
        return True
    return a[0] == b[0] and (a[1] is None or b[1] is None or a[1] == b[1])


def overlap(these: Iterable[Fact], those: Iterable[Fact]) -> Fact | None:
    """A fact both touch, as a reader is told it (None: none). Either standing for
    :data:`EVERYTHING` overlaps anything, even nothing; else the one with a key ("Luigi's
    coins" rather than anyone's)."""
    mine, theirs = tuple(these), tuple(those)
    if EVERYTHING in mine or EVERYTHING in theirs:
        return EVERYTHING
    for a in mine:
        for b in theirs:
            if meets(a, b):
                return a if a[1] is not None else b
    return None
