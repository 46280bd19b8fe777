"""Wiggly Worms: the worms a player has found; the first to find all of theirs wins."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.bank.moves import ending
from companion.bank.touch import Touch
from companion.bank.touch import worms as found
from companion.core.actions import COUNT, Action, Field
from companion.core.actions import ID as PLAYER
from companion.core.ledger import MoveKind, check_count, check_source
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def set_worms(bank: Journal, player: object, found: object, *, source: str = "",
              request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """Wiggly Worms: how many of their worms a player has found; the first to find all of
    them wins, and the game ends."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.WORMS, game_id, player=player,
                             found=found)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        if facts.rules.worms is None:
            raise Refused(say("{edition} has no worms to find", edition=Said(facts.rules.name)))
        target = worm_target(facts)
        pid = bank.in_game(facts, player)
        n = check_count(found, "found", target)
        facts.worms[pid] = n
        data: dict[str, Any] = {"player": player, "found": n}
        ends = n == target
        if ends:
            data.update(ending.record(bank, facts, bank.money(facts.gid), [pid]))
        move = bank.add_move(db, facts.gid, MoveKind.WORMS, player=pid, data=data,
                             note=f"{n} of {target} worms", source=source,
                             ends=ends, request_id=request_id)
        return bank.move_view(move)


def worm_target(facts: Facts) -> int:
    """The worms each player of this game has to find: their colour's cards, or their share
    of the deck when the cards were dealt."""
    return facts.rules.worm_target(len(facts.players), bool(facts.options.get("dealt")))


def _worms_text(move: MoveView, facts: Facts) -> str | Said:
    return say_n("{name} has found {n} worm", "{name} has found {n} worms",
                 move.data["found"], name=facts.name(move.player_id))


def _found(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> None:
    facts.worms[row["player_id"]] = data["found"]


def _worms_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """The worms the player has found (the latest typed counts; all of them ends the game,
    which reads the whole table)."""
    return Touch(changes=frozenset({found(row["player_id"])}))


WRITES = (set_worms,)
ACTIONS = (
    Action("set_worms", set_worms, route="POST /api/worms", event="worms", ends=True,
           kind=MoveKind.WORMS,
           fields=(Field("player", PLAYER), Field("found", COUNT, "worms found")),
           doc="Wiggly Worms: how many of their worms a player has found; all of them wins "
               "and ends the game."),
)
"""The worms' request."""

MOVES = (Move(MoveKind.WORMS, _worms_text, fold=_found, ends=True, touches=_worms_touches),)
