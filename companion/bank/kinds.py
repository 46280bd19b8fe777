"""What the journal knows of a kind of move: its words and its hooks (:class:`Move`), and the
table of every kind (:class:`Kinds`) that :class:`~companion.bank.bank.Bank` hands it."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.bank.facts import Facts
from companion.bank.touch import Touch
from companion.core.ledger import MoveKind, and_joined
from companion.core.state import MoveView
from companion.i18n.said import Said, say, say_n

Words = Callable[[MoveView, Facts], "str | Said"]
CORRECTION = "correction"
"""The key in a move's ``data`` that says the banker made it as a correction, out of the
rules of its moment or its player (``rule``: the rule it was made against; ``why``: the
refusal it overrode): the history says so."""


@dataclass(frozen=True, slots=True)
class Move:
    """What the journal needs to know of one kind of move."""

    kind: MoveKind
    describe: Words
    """The move in words, with names (an ending's winners are added after)."""
    fold: Callable[[Facts, sqlite3.Row, Mapping[str, Any]], None] | None = None
    """Its effect on the table's facts: each move of its kind not undone, oldest first."""
    read: Callable[[sqlite3.Connection, Facts], None] | None = None
    """Its facts read by its own query (the latest per player, a contest's fold)."""
    ends: bool = False
    """It may end the game (then the facts keep it as the ending)."""
    names_winners: bool = True
    """An ending of this kind says who won."""
    undone: Callable[[sqlite3.Connection, int, Mapping[str, Any]], None] | None = None
    """What undoing it changes besides its coins (the turn, an outcome's player)."""
    redone: Callable[[sqlite3.Connection, Facts, MoveView, Mapping[str, Any]], None] | None \
        = None
    """What bringing it back changes besides its coins."""
    redoable: bool = False
    """Redo brings it back right after its undo (coins, a turn). A bankruptcy, points, worms
    or the end are declared again instead (they were judged on the table as it was)."""
    own_spaces: bool = False
    """Its words name the board's spaces its coins went to (a drop, a scoop, an ability, a
    payment); any other move's fee put on the Free Parking pot is said after its words."""

    touches: Callable[[Facts, sqlite3.Row, Mapping[str, Any]], Touch] | None = None
    """The facts it changed and read besides its coins (:mod:`companion.bank.touch`), from its
    row (with ``outcome_kind`` and ``outcome_params`` when an outcome made it) and ``data``.
    None: it may have touched anything, so it depends on every move before it and every move
    after it depends on it."""


class Kinds:
    """Every kind of move, by its :class:`MoveKind` (one :class:`Move` each)."""

    def __init__(self, moves: Iterable[Move]) -> None:
        self._moves = {m.kind: m for m in moves}
        missing = set(MoveKind) - set(self._moves)
        if missing:
            raise ValueError(f"no Move for {sorted(missing)}")

    def __getitem__(self, kind: MoveKind) -> Move:
        return self._moves[kind]

    def folded(self) -> tuple[MoveKind, ...]:
        """The kinds the facts read move by move: those with a fold, or that may end a game."""
        return tuple(m.kind for m in self._moves.values() if m.fold is not None or m.ends)

    def readers(self) -> tuple[Callable[[sqlite3.Connection, Facts], None], ...]:
        return tuple(m.read for m in self._moves.values() if m.read is not None)

    def describe(self, move: MoveView, facts: Facts) -> str | Said:
        """A move in words, with names; an ending says who won."""
        kind = self._moves[move.kind]
        text = kind.describe(move, facts)
        piles = [] if kind.own_spaces else [e.space for e in move.entries
                                            if e.space is not None and e.undoes is None]
        if piles:  # a fee into the Free Parking pot: "... · on Free Parking"
            text = say("{text} · {note}", text=text,
                       note=say("on {space}", space=Said(piles[0])))
        if move.data.get(CORRECTION):  # the banker's, out of its rule: said so
            text = say("Correction: {text}", text=text)
        if not move.ends or not kind.names_winners:
            return text
        won = [facts.name(p) for p in move.data.get("winners", ())]
        names = and_joined(won)
        if names is None:
            return say("{text}: nobody wins", text=text)
        return say_n("{text}: {names} wins!", "{text}: {names} win!", len(won), text=text,
                     names=names)
