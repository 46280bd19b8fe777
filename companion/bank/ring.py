"""The board as the table described it (Gamer, Mario Kart), kept per edition from one game to
the next: read for a game's rules, and replaced when the table describes it again."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Any

from companion.core.board_ring import Ring, check_ring
from companion.core.editions.ruleset import Ruleset
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


def read_ring(db: sqlite3.Connection, rules: Ruleset) -> Ring | None:
    """The board of ``rules``' edition as the table last described it (None: not yet, or an
    edition without coins on the board). A description the edition no longer accepts (its
    house rules changed) is left out, not trusted."""
    if rules.board is None or not rules.board.kinds:
        return None
    row = db.execute("SELECT data FROM board_rings WHERE edition = ?", (rules.id,)).fetchone()
    if row is None:
        return None
    try:
        return check_ring(json.loads(row["data"]), rules.board.kinds, abilities(rules))
    except (Refused, ValueError):
        return None


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
        data = {"spaces": [s.to_json() for s in ring.spaces], "faces": list(ring.faces)}
        db.execute("INSERT INTO board_rings (edition, data, at) VALUES (?, ?, ?) ON CONFLICT"
                   " (edition) DO UPDATE SET data = excluded.data, at = excluded.at",
                   (rules.id, json.dumps(data), bank.clock()))
        return ring
