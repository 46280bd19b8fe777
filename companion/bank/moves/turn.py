"""The turn: whose it is, passed by Next, a tile, a card, time-up (one move each, undone in
order), and the hooks of moves that pass it with them (going to Jail, bankruptcy)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, next_seat
from companion.bank.kinds import Move
from companion.bank.touch import TURN, Fact, Touch, jail, out, touch
from companion.core.actions import ID as PLAYER
from companion.core.actions import Action, Field
from companion.core.ledger import MoveKind, check_source, is_id
from companion.core.state import MoveView
from companion.exc import Conflict, Refused, shown
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal

ANYONE = object()
"""Next from whoever is current."""


def set_current(bank: Journal, player: object, game_id: int | None = None, *, source: str = "",
                request_id: str | None = None) -> int | None:
    """Make ``player`` (an id, or None for nobody) current: a turn move, undone in order
    (none when they already are)."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.TURN, game_id, op="current", to=player)
        if replay is not None:
            return json.loads(replay["data"])["to"]  # type: ignore[no-any-return]
        facts = bank.open_facts(game_id)
        current = None if player is None else bank.in_game(facts, player)
        pass_turn(bank, db, facts, current, source, request_id, "current")
    return current


def pass_turn(bank: Journal, db: sqlite3.Connection, facts: Facts, to: int | None, source: str,
              request_id: str | None, op: str) -> None:
    """``op``: how the turn passed (current, next), so a request id is replayed only for
    the same kind of request."""
    if to == facts.current:
        return
    mark = outcome_mark(db, facts)
    bank.add_move(db, facts.gid, MoveKind.TURN, player=to,
                  data={"from": facts.current, "to": to, "op": op, "mark": mark},
                  source=source, request_id=request_id)
    db.execute("UPDATE games SET current_player = ? WHERE id = ?", (to, facts.gid))


def next_player(bank: Journal, game_id: int | None = None, *, after: object = ANYONE,
                source: str = "", request_id: str | None = None) -> int:
    """Pass the turn to the next seat still in the game (the first if nobody is
    current). ``after``: only from that player (the one a page showed as current), so a
    second tap of Next, or two pages at once, pass the turn once."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.TURN, game_id, op="next")
        if replay is not None:
            return json.loads(replay["data"])["to"]  # type: ignore[no-any-return]
        facts = bank.open_facts(game_id)
        if after is not ANYONE and after is not None and not is_id(after):  # not 2.0, not true
            raise Refused(say("unknown {what} {value}", what="player", value=shown(after)))
        if after is not ANYONE and after != facts.current:
            if facts.current is None:
                raise Conflict(say("the turn has already passed: nobody is current now"))
            raise Conflict(say("the turn has already passed: {name} is current now",
                               name=facts.name(facts.current)))
        nxt = next_seat(facts, facts.current)
        pass_turn(bank, db, facts, nxt, source, request_id, "next")
    return nxt


def _turn_text(move: MoveView, facts: Facts) -> str | Said:
    data = move.data
    if data.get("to") is None:
        return say("Nobody's turn (was {name})", name=facts.name(data.get("from")))
    if data.get("from") is None:
        return say("{name}'s turn", name=facts.name(data.get("to")))
    return say("Turn: {before} -> {after}", before=facts.name(data.get("from")),
               after=facts.name(data.get("to")))


def _turn_undone(db: sqlite3.Connection, gid: int, data: Mapping[str, Any]) -> None:
    db.execute("UPDATE games SET current_player = ? WHERE id = ?", (data["from"], gid))


def ends(db: sqlite3.Connection, facts: Facts, player: int) -> dict[str, Any]:
    """``player``'s turn ends with the move being written (going to Jail, a missed roll from
    it): the next seat still in is current, and the move keeps ``current_before`` and
    ``current_after`` so that its undo gives the turn back. Nothing when it is not their
    turn, or nobody else is left."""
    if player != facts.current or len(facts.active) < 2:
        return {}
    after = next_seat(facts, player)
    db.execute("UPDATE games SET current_player = ? WHERE id = ?", (after, facts.gid))
    return {"current_before": player, "current_after": after, "mark": outcome_mark(db, facts)}


def outcome_mark(db: sqlite3.Connection, facts: Facts) -> int:
    """The game's latest outcome id: a turn that begins now counts the presses after it."""
    return int(db.execute("SELECT COALESCE(MAX(id), 0) FROM outcomes WHERE game_id = ?",
                          (facts.gid,)).fetchone()[0])


def give_back(db: sqlite3.Connection, gid: int, data: Mapping[str, Any]) -> None:
    """Undo of a move that passed the turn with it (``current_before``, ``current_after``):
    the turn goes back, unless it has moved on since."""
    if data.get("current_after") == data.get("current_before"):
        return
    current = db.execute("SELECT current_player FROM games WHERE id = ?", (gid,)).fetchone()[0]
    if current == data["current_after"]:
        db.execute("UPDATE games SET current_player = ? WHERE id = ?",
                   (data["current_before"], gid))


def pass_again(db: sqlite3.Connection, facts: Facts, data: Mapping[str, Any]) -> None:
    """Redo of a move that passed the turn with it: it passes again (if nobody moved it)."""
    if facts.current == data.get("current_before") and data.get("current_after") is not None:
        db.execute("UPDATE games SET current_player = ? WHERE id = ?",
                   (data["current_after"], facts.gid))


def _turn_redone(db: sqlite3.Connection, facts: Facts, target: MoveView,
                 data: Mapping[str, Any]) -> None:
    to = data["to"]
    if to is not None and to in facts.out:
        raise Refused(say("{name} is out of the game (bankrupt)", name=facts.name(to)))
    db.execute("UPDATE games SET current_player = ? WHERE id = ?", (to, facts.gid))


def _turn_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """The turn, passed from whoever had it to the next seat still in the game; a player who
    stays in Jail ("jail") passes it by their roll from Jail."""
    stays = jail(data.get("from")) if data.get("op") == "jail" else None
    return touch(changes=[TURN], reads=[TURN, out(None), stays])


def passes(data: Mapping[str, Any]) -> list[Fact]:
    """The turn, for a move that passed it with it (``current_before``, ``current_after``)."""
    after = data.get("current_after")
    return [TURN] if after is not None and after != data.get("current_before") else []


def _current(player: int | None, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    return {"current_player": player}, 200


WRITES = (set_current, next_player)
ACTIONS = (
    Action("set_current", set_current, route="POST /api/current", event="current player",
           kind=MoveKind.TURN, answer=_current, answers="Current",
           fields=(Field("player", {"oneOf": [PLAYER, {"type": "null"}]},
                         "null: nobody", required=say(
                             "player is required (an id, or null for nobody)")),),
           doc="Make a player current (a turn move; none when they already are)."),
    Action("next_player", next_player, route="POST /api/next", event="next player",
           kind=MoveKind.TURN, answer=_current, answers="Current",
           fields=(Field("from", PLAYER, "only if that player is still current (a second "
                         "tap passes nothing: 409)", arg="after"),),
           doc="The next player still in the game becomes current (a turn move)."),
)
"""The turn's requests."""

MOVES = (Move(MoveKind.TURN, _turn_text, redoable=True, undone=_turn_undone, redone=_turn_redone,
              touches=_turn_touches),)
