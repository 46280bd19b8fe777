"""The end of a game: the record every ending keeps (who won, the standings as counted), and the
points games' final score."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.bank.touch import Touch
from companion.core.actions import FLAG, Action, Field
from companion.core.editions.ruleset import End
from companion.core.editions.scoring import standings, winners
from companion.core.ledger import MoveKind, check_source
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def record(bank: Journal, facts: Facts, money: Mapping[int, int],
           winning: Sequence[int]) -> dict[str, Any]:
    """The record of an end: who won and the final standings."""
    table = standings(facts.rules, facts.seats(money))
    return {"winners": list(winning), "standings": [s.to_json() for s in table]}


def end_game(bank: Journal, *, early: object = False, source: str = "",
             request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """Points games end with the final Boss fight or Race ("The game ends immediately when
    the final Boss Fight is over" / "... final Race is over"): closing it ends the game by
    itself. Ending sooner, while cards remain, is a house rule the table names (``early``):
    the highest score then wins. Other editions end by their own rule, not by decree."""
    if not isinstance(early, bool):
        raise Refused(say("early must be true (the house rule: end before the last card) or "
                          "false"))
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.END, game_id)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        rules = facts.rules
        if rules.end is not End.POINTS:
            name = Said(rules.name)
            raise Refused({
                End.LAST_PLAYER: say("{edition} ends when every other player has gone "
                                     "bankrupt, not when the banker says so", edition=name),
                End.WORMS: say("{edition} ends when a player has found all their worms, "
                               "not when the banker says so", edition=name)}[rules.end])
        found = facts.contests
        left = 0 if found is None else found.left
        if left and not early:
            raise Refused(say_n("{edition} ends when its final {card} card has been played, "
                                "and {n} card is still to play: play it, or end now by the "
                                "house rule (early)",
                                "{edition} ends when its final {card} card has been played, "
                                "and {n} cards are still to play: play them, or end now by "
                                "the house rule (early)", left, edition=Said(rules.name),
                                card=Said(found.deck.card) if found else ""))
        money = bank.money(facts.gid)
        data = record(bank, facts, money, winners(rules, facts.seats(money)))
        if left:
            data["early"] = left  # the house rule, and how many cards were left
        move = bank.add_move(db, facts.gid, MoveKind.END, data=data,
                             note="final score", source=source, ends=True,
                             request_id=request_id)
        return bank.move_view(move)


def _end_text(move: MoveView, facts: Facts) -> str | Said:
    if move.data.get("early"):
        return say("The final score (house rule: ended before the last card)")
    return say("The final score")


def _end_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """The final score: an end, which reads the whole table (every move that ends a game
    does, :func:`companion.bank.depends.touch_of`)."""
    return Touch()


WRITES = (end_game,)
ACTIONS = (
    Action("end_game", end_game, route="POST /api/end", event="end", ends=True,
           kind=MoveKind.END,
           fields=(Field("early", FLAG, "the house rule: end while cards remain"),),
           doc="Gamer, Mario Kart end by themselves when the last card closes; while cards "
               "remain, early ends now by the house rule: the final score."),
)
"""The end's request."""

MOVES = (Move(MoveKind.END, _end_text, ends=True, touches=_end_touches),)
