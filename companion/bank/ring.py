"""The board as the table described it (Gamer, Mario Kart), kept per edition from one game to
the next: read for a game's rules, and replaced when the table describes it again."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts
from companion.core.board_ring import Effect, Ring, check_ring
from companion.core.editions.ruleset import Ruleset
from companion.core.ledger import MoveKind
from companion.exc import Refused
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def abilities(rules: Ruleset) -> tuple[str, ...]:
    """The Power-up die's abilities (the faces the table types), Super Stars left out."""
    powers = rules.powers
    return () if powers is None else tuple(dict.fromkeys(a.id for a in powers.abilities
                                                         if not a.star))


def face_params(rules: Ruleset, faces: tuple[str, ...]) -> dict[str, Any]:
    """A movement press's params: the Power-up die's faces as the table typed them, and
    their names in the edition's words."""
    powers = rules.powers
    names = {a.id: a.name for a in powers.abilities if not a.star} if powers else {}
    return {"faces": list(faces), "face_names": [names.get(f, f) for f in faces]}


def ring_of(bank: Journal, facts: Facts) -> Ring:
    """The board the table described for this game's edition (refused: not yet)."""
    ring = read_ring(bank.db, facts.rules)
    if ring is None:
        if facts.rules.board is None or not facts.rules.board.kinds:
            raise Refused(say("{edition} has no board with tokens",
                              edition=Said(facts.rules.name)))
        raise Refused(say("describe the board first (its spaces from GO): the companion "
                          "doesn't know where the spaces are"))
    return ring


def read_ring(db: sqlite3.Connection, rules: Ruleset) -> Ring | None:
    """The board of ``rules``' edition as the table last described it (None: not yet, or an
    edition without coins on the board). A description the edition no longer accepts (its
    house rules changed) is left out, not trusted."""
    if rules.board is None or not rules.board.kinds:
        return None
    row = db.execute("SELECT data FROM board_rings WHERE edition = ?", (rules.id,)).fetchone()
    if row is None:
        return None
    key = (row["data"], tuple((k.id, k.effect, k.coins) for k in rules.board.kinds.values()),
           abilities(rules))
    if key not in _PARSED:
        try:
            ring = check_ring(json.loads(row["data"]), rules.board.kinds, abilities(rules))
        except (Refused, ValueError):
            ring = None
        while len(_PARSED) >= _KEEP:
            del _PARSED[next(iter(_PARSED))]
        _PARSED[key] = ring
    return _PARSED[key]


_KEEP = 8
_PARSED: dict[tuple[Any, ...], Ring | None] = {}
"""Descriptions read and checked, by their text and the edition's kinds: a state read does
not check the same board again."""


def describe_board(bank: Journal, board: object, game_id: int | None = None) -> Ring:
    """The table describes its board (the current game's edition): its spaces from GO and the
    Power-up die's faces; kept for every later game of that edition."""
    with bank.write() as db:
        facts = bank.facts(game_id)
        rules = facts.rules
        if rules.board is None or not rules.board.kinds:
            raise Refused(say("{edition} has no board to describe",
                              edition=Said(rules.name)))
        ring = check_ring(board, rules.board.kinds, abilities(rules))
        _still_fits(db, facts, read_ring(db, rules), ring)
        keep(bank, rules, ring)
        return ring


def keep(bank: Journal, rules: Ruleset, ring: Ring) -> None:
    """``ring`` kept as ``rules``' edition's board (inside a write), replacing the one before."""
    data = {"spaces": [s.to_json() for s in ring.spaces], "faces": list(ring.faces)}
    bank.db.execute("INSERT INTO board_rings (edition, data, at) VALUES (?, ?, ?) ON CONFLICT"
                    " (edition) DO UPDATE SET data = excluded.data, at = excluded.at",
                    (rules.id, json.dumps(data), bank.clock()))


def _still_fits(db: sqlite3.Connection, facts: Facts, before: Ring | None, ring: Ring) -> None:
    """A board described again in a game whose tokens, Bananas or deeds are on it keeps its
    spaces where they are: the same number of spaces, and a Property held stays one (names,
    kinds otherwise, numbers and faces may be corrected at any time)."""
    if before is None:
        return
    on_it = db.execute(
        "SELECT 1 FROM moves m WHERE game_id = ? AND kind IN (?, ?, ?) AND NOT EXISTS (SELECT 1"
        " FROM moves u WHERE u.undoes = m.id) LIMIT 1",
        (facts.gid, MoveKind.TOKEN.value, MoveKind.BANANA.value, MoveKind.DEED.value)
    ).fetchone() is not None
    if on_it and len(ring) != len(before):
        raise Refused(say("this game's tokens are on the board: it keeps its {n} spaces (start "
                          "a new game to describe another board)", n=len(before)))
    for space in facts.holders:
        if space < len(ring) and ring.effect(space) is not Effect.PROPERTY:
            raise Refused(say("space {n} is a Property a player holds: it stays one",
                              n=space))
