"""Which later moves depend on a move: what undoing it (or bringing it back) must leave alone.

A later move that stands (neither undone nor an undo) depends on a move if it touched a fact
that move changed (the turn, a player's Jail, a contest...), or read a balance whose coins the
move moved (a capped payment, a scoop, a bankruptcy): each kind says what it touches
(:mod:`companion.bank.touch`). A payment that moved nothing depends on nothing (undo passes
over it, as it always has). One pass over the moves after it, however long the game before.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from companion.bank.facts import Facts, space_name
from companion.bank.journal import Journal, entry_of
from companion.bank.touch import ALL, END, EVERYTHING, Fact, Touch, moved, overlap
from companion.core.editions.contests import ContestKind
from companion.core.ledger import Entry, MoveKind
from companion.i18n.said import Said, say, say_n

STEPS_SQL = (
    "SELECT m.*, (SELECT u.id FROM moves u WHERE u.undoes = m.id) AS undone_by,"
    " EXISTS (SELECT 1 FROM entries e WHERE e.move_id = m.id) AS moved,"
    " o.kind AS outcome_kind, o.params AS outcome_params"
    " FROM moves m LEFT JOIN outcomes o ON o.id = json_extract(m.data, '$.outcome')")
"""A move's row as its kind's ``touches`` reads it (with the outcome that made it)."""


@dataclass(frozen=True, slots=True)
class Dependent:
    """A later move that depends on a move, and through which fact."""

    id: int
    fact: Fact


def step(bank: Journal, move_id: int) -> sqlite3.Row:
    row: sqlite3.Row = bank.db.execute(STEPS_SQL + " WHERE m.id = ?", (move_id,)).fetchone()
    return row


def touch_of(bank: Journal, facts: Facts, row: sqlite3.Row) -> Touch:
    """What a move touched: its kind's word (:attr:`~companion.bank.kinds.Move.touches`; a
    kind that says nothing touched everything); a move that ended the game read it all."""
    hook = bank.kinds[MoveKind(row["kind"])].touches
    found = ALL if hook is None else hook(facts, row, json.loads(row["data"]))
    if row["ends"]:
        return Touch(found.changes | {END}, found.reads | {EVERYTHING})
    return found


def _stands(row: sqlite3.Row) -> bool:
    """A move that still counts: not undone, not an undo, not a payment that moved nothing."""
    return row["undone_by"] is None and row["kind"] != MoveKind.UNDO.value and not (
        row["kind"] == MoveKind.TRANSFER.value and not row["moved"])


def _between(bank: Journal, gid: int, after: int) -> list[sqlite3.Row]:
    """The moves of game ``gid`` after move ``after`` that stand, oldest first."""
    rows = bank.db.execute(STEPS_SQL + " WHERE m.game_id = ? AND m.id > ? ORDER BY m.id",
                           (gid, after)).fetchall()
    return [row for row in rows if _stands(row)]


@dataclass(frozen=True, slots=True)
class Later:
    """What the moves after a move make of it."""

    dependents: tuple[Dependent, ...]
    """Those that touched what it changed (undo waits for them), nearest first."""
    changed: Dependent | None = None
    """The first that changed what it touched, a balance it read included (after its undo,
    Redo can't make it again as it was): asked for with ``since``."""


def later(bank: Journal, facts: Facts, row: sqlite3.Row, *, since: bool = False) -> Later:
    """One pass over the standing moves after move ``row`` (:data:`STEPS_SQL`)."""
    mine = touch_of(bank, facts, row)
    changed = mine.changes | moved(bank.move_entries(row["id"]))
    after = _between(bank, facts.gid, row["id"])
    entries: dict[int, list[Entry]] = {}
    if since and after and any(f[0] in ("coins", "pile", "*") for f in mine.touched):
        for e in bank.db.execute(  # the balances they moved: only if it read some
                "SELECT * FROM entries WHERE game_id = ? AND move_id > ?",
                (facts.gid, row["id"])):
            entries.setdefault(e["move_id"], []).append(entry_of(e))
    found, first = [], None
    for other in after:
        theirs = touch_of(bank, facts, other)
        met = overlap(theirs.touched, changed)
        if met is not None:
            found.append(Dependent(other["id"], met))
        if since and first is None:
            met = overlap(theirs.changes | moved(entries.get(other["id"], ())), mine.touched)
            if met is not None:
                first = Dependent(other["id"], met)
    return Later(tuple(found), first)


def what(fact: Fact, facts: Facts) -> str | Said:
    """A fact in words: what a later move depends on. (A fact of anyone's, ``None`` for its
    key, is never told: the move that changed one changed someone's.)"""
    name, key = fact
    if name == "turn":
        return say("whose turn it is")
    if name == "outcome":
        return say("the block's outcome")
    if name == "contest":
        deck = facts.rules.contest
        return say("the Boss fight") if deck is not None and deck.kind is ContestKind.BOSS \
            else say("the Race")
    if name == "bowser":
        return say("Bowser waiting on GO")
    if name == "end":
        return say("the end of the game")
    if name == "pile" and key is not None:
        return say("the coins on {space}", space=space_name(key))
    if name == "banana":
        return say("the Bananas on the board")
    if name == "deed":
        return say("who holds the deeds")
    who = facts.name(key)
    if key is None:
        return say("the whole table")
    if name == "jail":
        return say("whether {name} is in Jail", name=who)
    if name == "out":
        return say("whether {name} is still in the game", name=who)
    if name == "coins":
        return say("{name}'s coins", name=who)
    if name == "points":
        return say("{name}'s points", name=who)
    if name == "position":
        return say("where {name}'s token stands", name=who)
    if name == "worms":
        return say("{name}'s worms", name=who)
    return say("the whole table")


def blocked(bank: Journal, facts: Facts, target: str | Said,
            found: Sequence[Dependent]) -> Said:
    """Why a move can't be undone: the nearest move that depends on it, by its words."""
    first = found[0]
    later = bank.move_view(first.id, facts).text
    why = what(first.fact, facts)
    if len(found) == 1:
        return say("can't undo \"{move}\": \"{later}\" (move {id}) came after it and depends on "
                   "{what}: undo that first", move=target, later=later, id=first.id, what=why)
    return say_n("can't undo \"{move}\": \"{later}\" (move {id}) came after it and depends on "
                 "{what}, and {n} more move after it: undo those first",
                 "can't undo \"{move}\": \"{later}\" (move {id}) came after it and depends on "
                 "{what}, and {n} more moves after it: undo those first", len(found) - 1,
                 move=target, later=later, id=first.id, what=why)


def stale(bank: Journal, facts: Facts, target: str | Said, first: Dependent) -> Said:
    """Why an undone move can't be brought back as it was: the first move since that changed
    what it touched."""
    return say("\"{move}\" can't be redone: \"{later}\" (move {id}) came after it and changed "
               "{what}: declare it again", move=target,
               later=bank.move_view(first.id, facts).text, id=first.id,
               what=what(first.fact, facts))
