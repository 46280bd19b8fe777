"""The Movie's Bowser: the toll he takes from the players he passes, and his win when every deed
is on its Game Over side."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import turns
from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.bank.moves import ending
from companion.bank.touch import Touch, capped, jail, touch
from companion.core.actions import IDS, Action, Field, Flow
from companion.core.ledger import BANK, EntryKind, MoveKind, check_source
from companion.core.state import MoveView
from companion.exc import AgainstTheRules, Refused
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def toll(bank: Journal, players: object, *, source: str = "", request_id: str | None = None,
         game_id: int | None = None) -> MoveView:
    """Bowser passed ``players``: each pays the Bank the edition's toll, one move (one
    undo). A player in Jail pays none (the rulebook); the page leaves out those on Free
    Parking."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.TOLL, game_id, players=players)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        toll = facts.rules.toll
        if toll is None:
            raise Refused(say("there is no Bowser's toll in {edition}",
                              edition=Said(facts.rules.name)))
        if not isinstance(players, list) or not players:
            raise Refused(say("players must be a non-empty list of the players Bowser passed"))
        if turns.bowser_waits(db, facts):  # he does not move, so he passes nobody
            bank.overrule(AgainstTheRules(
                say("Bowser waits on GO until every player has completed their next turn: "
                    "he passes nobody"), "bowser_waits", facts.rules.lines.get(
                        "bowser_waits", ())))
        payers: list[int] = []
        for player in players:
            pid = bank.in_game(facts, player)
            if pid in payers:
                raise Refused(say("{name} is listed twice", name=facts.name(pid)))
            if pid in facts.jailed:
                raise Refused(say("{name} is in Jail and pays no toll", name=facts.name(pid)))
            payers.append(pid)
        move = bank.add_move(db, facts.gid, MoveKind.TOLL, data={
            "players": players, "coins": toll.value}, note="Bowser's toll", source=source,
                             request_id=request_id)
        money = bank.money(facts.gid)
        for pid in payers:
            amount = facts.rules.payable(toll.value, money[pid])
            if amount:
                bank.add_entry(db, facts.gid, move, pid, BANK, amount, EntryKind.TOLL,
                               "Bowser's toll", source, space=facts.pot_space("toll"))
        return bank.move_view(move, facts)


def bowser_wins(bank: Journal, *, source: str = "", request_id: str | None = None,
                game_id: int | None = None) -> MoveView:
    """Every Title Deed is on its Game Over side: Bowser wins, every player loses, the
    game ends (undo reopens it)."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.BOWSER_WINS, game_id)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        if not facts.rules.bowser_wins:
            raise Refused(say("Bowser can't win {edition}", edition=Said(facts.rules.name)))
        data = {**ending.record(bank, facts, bank.money(facts.gid), []), "bowser": True}
        move = bank.add_move(db, facts.gid, MoveKind.BOWSER_WINS, data=data,
                             note="Bowser wins", source=source, ends=True,
                             request_id=request_id)
        return bank.move_view(move, facts)


def _toll_text(move: MoveView, facts: Facts) -> str | Said:
    names = tuple(facts.name(e.payer) for e in move.entries)
    each = move.entries[0].amount if move.entries else 0
    if len(move.entries) == 1:
        return say_n("Bowser's toll: {names} pays {n} coin",
                     "Bowser's toll: {names} pays {n} coins", each, names=names)
    return say_n("Bowser's toll: {names} each pay {n} coin",
                 "Bowser's toll: {names} each pay {n} coins", each, names=names)


def _bowser_wins_text(move: MoveView, facts: Facts) -> str | Said:
    return say("Every deed is on its Game Over side: Bowser wins, everyone loses")


def _toll_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """Each player passed pays, none in Jail (capped: what they have)."""
    players = data.get("players") or ()
    return touch(reads=[*(jail(p) for p in players), *capped(facts, *players)])


def _nothing(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """Bowser's win is the end (which reads the whole table): nothing besides."""
    return Touch()


def _passed(facts: Facts, args: Mapping[str, Any]) -> tuple[object, ...]:
    players = args.get("players")
    return tuple(players) if isinstance(players, list) else (None,)


WRITES = (toll, bowser_wins)
ACTIONS = (
    Action("toll", toll, route="POST /api/toll", kind=MoveKind.TOLL,
           flow=Flow("toll", actors=_passed),
           fields=(Field("players", IDS, "the players Bowser passed", required=say(
               "players is required: the ids of the players Bowser passed")),),
           doc="The Movie: Bowser passed these players: each pays the Bank his toll, one "
               "move and one undo."),
    Action("bowser_wins", bowser_wins, route="POST /api/bowser-wins", event="bowser wins",
           ends=True, kind=MoveKind.BOWSER_WINS,
           doc="The Movie: every deed is on its Game Over side: Bowser wins, every player "
               "loses, the game ends (undo reopens it)."),
)
"""Bowser's requests."""

MOVES = (Move(MoveKind.TOLL, _toll_text, redoable=True, touches=_toll_touches),
         Move(MoveKind.BOWSER_WINS, _bowser_wins_text, ends=True, names_winners=False,
              touches=_nothing))
