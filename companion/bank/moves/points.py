"""Points games: the points printed on a player's cards, typed in."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.bank.ring import ring_of
from companion.bank.touch import Touch, deed
from companion.bank.touch import points as typed
from companion.core.actions import COUNT, SPACE_NUMBER, Action, Field
from companion.core.actions import ID as PLAYER
from companion.core.board_ring import Effect
from companion.core.ledger import MAX_POINTS, MoveKind, check_count, check_source
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def set_points(bank: Journal, player: object, points: object = None, cards: object = None, *,
               deeds: object = None, source: str = "", request_id: str | None = None,
               game_id: int | None = None) -> MoveView:
    """Points games: the points printed on a player's cards (Property, Boss or Grand Prix)
    and how many cards they hold (a tie goes to the most), typed in; or the Property deeds
    they hold (``deeds``: spaces of the described board), each counted at the points the
    table typed for it once."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.POINTS, game_id, player=player,
                             points=points, cards=cards)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        scoring = facts.rules.scoring
        if scoring is None:
            raise Refused(say("{edition} is not won on points: nothing to type in",
                              edition=Said(facts.rules.name)))
        pid = bank.in_game(facts, player)
        held: list[int] = []
        if deeds is not None:
            if points is not None or cards is not None:
                raise Refused(say("send the deeds a player holds, or their points and cards: "
                                  "not both"))
            held = _deeds(bank, facts, pid, deeds)
            ring = ring_of(bank, facts)
            p = sum(ring.spaces[i].points or 0 for i in held)
            n = len(held)
        else:
            p = check_count(points, "points", MAX_POINTS)
            n = check_count(cards, "cards", scoring.max_cards.value)
        data: dict[str, Any] = {"player": player, "points": p, "cards": n}
        if deeds is not None:
            data["deeds"] = held
        move = bank.add_move(db, facts.gid, MoveKind.POINTS, player=pid, data=data,
                             note=f"{p} points, {n} cards", source=source,
                             request_id=request_id)
        return bank.move_view(move)


def _deeds(bank: Journal, facts: Facts, pid: int, deeds: object) -> list[int]:
    """The deeds a player holds: Property spaces of the described board, each with the points
    on its deed typed, none held by another player."""
    ring = ring_of(bank, facts)
    if not isinstance(deeds, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in deeds):
        raise Refused(say("deeds must list the spaces' numbers of the Properties the player "
                          "holds"))
    if len(set(deeds)) != len(deeds):
        raise Refused(say("deeds lists one Property twice"))
    for d in deeds:
        if not 0 <= d < len(ring) or ring.effect(d) is not Effect.PROPERTY:
            raise Refused(say("deeds: space {n} is not a Property of the board", n=d))
        if ring.spaces[d].points is None:
            raise Refused(say("type the points printed on {space}'s deed first (once: they "
                              "are kept)", space=Said(ring.label(d))))
        holder = facts.holders.get(d)  # who holds it now, else who counted it last
        other = holder if holder is not None and holder != pid else None if holder == pid \
            else next((o for o, mine in facts.deeds.items() if d in mine and o != pid), None)
        if other is not None:
            raise Refused(say("{space} is {name}'s deed", space=Said(ring.label(d)),
                              name=facts.name(other)))
    return sorted(deeds)


def _points_text(move: MoveView, facts: Facts) -> str | Said:
    return say("{name}: {points} points, {cards} cards", name=facts.name(move.player_id),
               points=move.data["points"], cards=move.data["cards"])


def _typed(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> None:
    facts.points[row["player_id"]] = (data["points"], data["cards"])
    facts.deeds[row["player_id"]] = tuple(data.get("deeds", ()))


def _points_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """The player's points as typed (the latest typed counts); deeds are judged on the
    deeds the others hold."""
    reads = frozenset({typed(None), *(deed(d) for d in data["deeds"])}) \
        if "deeds" in data else frozenset()
    return Touch(changes=frozenset({typed(row["player_id"])}), reads=reads)


WRITES = (set_points,)
ACTIONS = (
    Action("set_points", set_points, route="POST /api/points", event="points",
           kind=MoveKind.POINTS,
           fields=(Field("player", PLAYER),
                   Field("points", COUNT, "the points printed on their Property cards"),
                   Field("cards", COUNT, "how many Property cards they hold"),
                   Field("deeds", {"type": "array", "items": SPACE_NUMBER},
                         "instead: the Property deeds they hold on the described board")),
           doc="Gamer, Mario Kart: the points on a player's Property cards and how many, "
               "typed in; or the deeds they hold on the described board (the Boss and Grand "
               "Prix cards are counted by the companion)."),
)
"""The points' request."""

MOVES = (Move(MoveKind.POINTS, _points_text, fold=_typed, touches=_points_touches),)
