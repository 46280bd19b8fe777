"""Mario Kart's Banana tokens on the board: dropped on a space (a Banana rolled, Luigi's boost),
they stop the next token that reaches the space and go back to the pile.

"When you reach a space with a Banana, no matter who dropped it, you must stop and carry out the
action of that space. [...] After you land on a Banana and stop, remove the Banana from that
space and place it in the Banana pile." "At any given time, a space can have only one Banana on
it, and there can be a total of only four Bananas on the board."
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, or_current, space_name
from companion.bank.kinds import Move
from companion.bank.ring import ring_of
from companion.bank.touch import Touch, banana, touch
from companion.core.actions import FLAG, SPACE_NUMBER, Action, Field, Flow
from companion.core.actions import ID as PLAYER
from companion.core.flow import Turn
from companion.core.ledger import MoveKind, check_source
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def place_banana(bank: Journal, space: object, *, on: object = True, player: object = None,
                 source: str = "", request_id: str | None = None,
                 game_id: int | None = None) -> MoveView:
    """A Banana onto space ``space`` (its number on the described board), dropped by
    ``player`` (None: the current player), or back to the pile (``on`` false)."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.BANANA, game_id)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        board = facts.rules.board
        if board is None or not board.bananas:
            raise Refused(say("{edition} has no Bananas", edition=Said(facts.rules.name)))
        ring = ring_of(bank, facts)
        if not isinstance(on, bool):
            raise Refused(say("on must be true (a Banana dropped) or false (back to the "
                              "pile)"))
        if not isinstance(space, int) or isinstance(space, bool) or \
                not 0 <= space < len(ring):
            raise Refused(say("space must be a space's number, 0 to {most}",
                              most=len(ring) - 1))
        pid = bank.in_game(facts, or_current(facts, player)) if on else None
        label = ring.label(space)
        if on and space in facts.bananas:
            raise Refused(say("{space} has a Banana already: a space has only one",
                              space=space_name(label)))
        if on and len(facts.bananas) >= board.bananas:
            raise Refused(say("there are {n} Bananas on the board already: the most there "
                              "can be", n=board.bananas))
        if not on and space not in facts.bananas:
            raise Refused(say("there is no Banana on {space}", space=space_name(label)))
        after = sorted(facts.bananas | {space} if on else facts.bananas - {space})
        move = bank.add_move(db, facts.gid, MoveKind.BANANA, player=pid,
                             data={"space": space, "label": label, "on": on, "after": after},
                             source=source, request_id=request_id)
        return bank.move_view(move, facts)


def _read_bananas(db: sqlite3.Connection, facts: Facts) -> None:
    """The Bananas on the board: as the latest Banana move left them (each keeps the spaces
    with one after it), less those a token stopped on since. A few rows however long the
    game: the moves since the latest Banana dropped or picked up."""
    board = facts.rules.board
    if board is None or not board.bananas:
        return
    live = "NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)"
    last = db.execute(
        f"SELECT id, data FROM moves m INDEXED BY moves_by_kind WHERE game_id = ? AND kind = ?"
        f" AND {live} ORDER BY id DESC LIMIT 1", (facts.gid, MoveKind.BANANA.value)).fetchone()
    if last is None:
        return
    down = set(json.loads(last["data"])["after"])
    for row in db.execute(  # a token's move, or its way into Jail, stopped on one since
            f"SELECT json_extract(data, '$.banana') AS taken FROM moves m INDEXED BY"
            f" moves_by_kind WHERE game_id = ? AND kind IN (?, ?) AND id > ? AND {live} AND"
            f" json_extract(data, '$.banana') IS NOT NULL",
            (facts.gid, MoveKind.TOKEN.value, MoveKind.JAILED.value, last["id"])):
        down.discard(row["taken"])
    facts.bananas.update(down)


def _banana_text(move: MoveView, facts: Facts) -> Said:
    data = move.data
    space = space_name(data.get("label"))
    if data.get("on"):
        return say("{name} drops a Banana on {space}", name=facts.name(move.player_id),
                   space=space)
    return say("The Banana on {space} goes back to the pile", space=space)


def _banana_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A Banana on a space (or off it): judged on the Bananas there were (four at most)."""
    return touch(changes=[banana(data.get("space"))], reads=[banana(None)])


def _banana_flow(facts: Facts, turn: Callable[[], Turn], args: Mapping[str, Any]) -> str | None:
    """A Banana dropped is the current player's (a Banana rolled); one back to the pile is
    the banker's."""
    return None if args.get("on") is False else "place_banana"


WRITES = (place_banana,)
ACTIONS = (
    Action("place_banana", place_banana, route="POST /api/bananas", event="banana",
           kind=MoveKind.BANANA, flow=Flow(_banana_flow, names=("place_banana",)),
           fields=(Field("space", SPACE_NUMBER, required=True),
                   Field("on", FLAG, "false: the Banana goes back to the pile"),
                   Field("player", PLAYER, "who dropped it (default: the current player)")),
           doc="Mario Kart: a Banana dropped on a space of the described board (one a space, "
               "four at most), or back to the pile."),
)
"""The Bananas' requests."""

MOVES = (Move(MoveKind.BANANA, _banana_text, redoable=True, read=_read_bananas,
              touches=_banana_touches),)
