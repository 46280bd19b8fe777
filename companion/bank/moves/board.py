"""Coins on the board (Gamer, Mario Kart): a drop on a space's pile, a scoop of a whole pile."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, space_name
from companion.bank.kinds import Move
from companion.bank.moves.token import standing
from companion.bank.ring import read_ring
from companion.bank.touch import Touch, coins, jail, pile, position, touch
from companion.core.actions import ID as PLAYER
from companion.core.actions import TEXT, Action, Field, Flow
from companion.core.ledger import BANK, EntryKind, MoveKind, check_amount, check_source, check_space
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say, say_n, stored, texts

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def board_facts(bank: Journal, game_id: int | None) -> tuple[Facts, Any]:
    facts = bank.open_facts(game_id)
    board = facts.rules.board
    if board is None:
        raise Refused(say("{edition} has no coins on the board",
                          edition=Said(facts.rules.name)))
    return facts, board


def known_spaces(bank: Journal, facts: Facts) -> tuple[tuple[str, ...], str]:
    """The spaces' names a drop or a scoop knows, one spelling each: the described board's
    (once it is), else the rulebook's, and the piles' already down; and where a player in
    Jail drops."""
    board = facts.rules.board
    assert board is not None
    ring = read_ring(bank.db, facts.rules)
    if ring is not None:  # described: its spaces (and the piles already down) only
        return (*ring.labels(), *bank.piles(facts.gid)), ring.label(ring.jail_corner)
    return (*board.spaces, *bank.piles(facts.gid)), board.jail_space


def standing_on(bank: Journal, facts: Facts, pid: int) -> str:
    """The label of the space ``pid``'s token stands on (refused: the board is not described,
    so the space must be named)."""
    ring = read_ring(bank.db, facts.rules)
    if ring is None:
        raise Refused(say("space: where does {name} stand? (the board is not described yet, "
                          "so the companion doesn't know)", name=facts.name(pid)))
    space = standing(facts, ring, pid)
    if space is None:
        raise Refused(say("space: which of {name}'s tokens drops? (they stand on two "
                          "spaces)", name=facts.name(pid)))
    return ring.label(space)


def drop(bank: Journal, player: object, space: object, coins: object, *, source: str = "",
         request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """``player`` drops ``coins`` on ``space`` (a Thwomp, a shell, POW, Lightning): they
    leave the player for the pile there. A player never drops more than they have: they
    drop what they have ("Then drop or give any Coins you still owe"). A player in Jail
    drops on Just Visiting. ``space`` None: where their token stands."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.DROP, game_id, player=player,
                             typed=space, asked=coins)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts, _board = board_facts(bank, game_id)
        pid = bank.in_game(facts, player)
        n = check_amount(coins)
        at_token = space is None
        if at_token:  # where the token stands, once the board is described
            space = standing_on(bank, facts, pid)
        known, jail_space = known_spaces(bank, facts)
        where = check_space(space, known)
        if pid in facts.jailed and where != jail_space:
            raise Refused(say("{name} is in Jail: a player in Jail drops coins on {space}",
                              name=facts.name(pid), space=jail_space))
        moved = max(0, min(n, bank.money(facts.gid)[pid]))
        message = "" if moved == n else (
            say("{name} has no coins: nothing to drop", name=facts.name(pid)) if moved == 0
            else say("{name} had only {moved} of {asked} coins: dropped {moved}",
                     name=facts.name(pid), moved=moved, asked=n))
        move = bank.add_move(db, facts.gid, MoveKind.DROP, player=pid, data={
            "player": player, "space": where, "typed": space, "asked": coins,
            **({"at_token": True} if at_token else {}),
            **texts(message=message)},
                             source=source, request_id=request_id)
        if moved:
            bank.add_entry(db, facts.gid, move, pid, BANK, moved, EntryKind.DROP,
                           f"dropped on {where}", source, space=where)
        return bank.move_view(move, facts)


def scoop(bank: Journal, player: object, space: object, *, source: str = "",
          request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """``player`` passed or landed on ``space``: they scoop up its whole pile. Where the
    Free Parking pot is on (a house rule), landing on Free Parking scoops the pot."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.SCOOP, game_id, player=player,
                             typed=space)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        board, pot = facts.rules.board, facts.pot
        if board is None and pot is None:
            raise Refused(say("{edition} has no coins on the board",
                              edition=Said(facts.rules.name)))
        pid = bank.in_game(facts, player)
        piles = bank.piles(facts.gid)
        if board is not None:
            where = check_space(space, (*piles, *known_spaces(bank, facts)[0]))
        else:
            assert pot is not None
            where = check_space(space, (pot.space,))
            if where != pot.space:
                raise Refused(say("in {edition} only {space} has coins on it (the house "
                                  "rule's pot)", edition=Said(facts.rules.name),
                                  space=Said(pot.space)))
        pile = piles.get(where, 0)
        if pile <= 0:
            raise Refused(say("there are no coins on {space}", space=where))
        move = bank.add_move(db, facts.gid, MoveKind.SCOOP, player=pid, data={
            "player": player, "space": where, "typed": space}, source=source,
                             request_id=request_id)
        bank.add_entry(db, facts.gid, move, BANK, pid, pile, EntryKind.SCOOP,
                       f"scooped up from {where}", source, space=where)
        return bank.move_view(move, facts)


def _board_text(move: MoveView, facts: Facts) -> str | Said:
    """A drop on a space, or a scoop of its pile."""
    data, who = move.data, facts.name(move.player_id)
    coins = sum(e.amount for e in move.entries)
    space = space_name(data.get("space"))
    if not move.entries:
        return stored(data, "message") or say("{name}: no coins moved", name=who)
    if move.kind is MoveKind.SCOOP:
        return say_n("{name} scoops up {n} coin from {space}",
                     "{name} scoops up {n} coins from {space}", coins, name=who, space=space)
    asked = data.get("asked", coins)
    if asked > coins:
        return say_n("{name} drops {n} coin on {space} (had only {n} of {asked})",
                     "{name} drops {n} coins on {space} (had only {n} of {asked})", coins,
                     name=who, space=space, asked=asked)
    return say_n("{name} drops {n} coin on {space}", "{name} drops {n} coins on {space}",
                 coins, name=who, space=space)


def _drop_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A drop: what the player had at most, where they stood (Just Visiting from Jail)."""
    pid = row["player_id"]
    return touch(reads=[coins(pid), jail(pid), position(pid) if data.get("at_token") else None])


def _scoop_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A scoop takes the whole pile: as much as was on it."""
    return touch(reads=[pile(data.get("space"))])


WRITES = (drop, scoop)
ACTIONS = (
    Action("drop", drop, route="POST /api/drops", kind=MoveKind.DROP, flow=Flow("drop"),
           fields=(Field("player", PLAYER, required=True),
                   Field("space", TEXT, "a space's name as printed on the board; left out: "
                         "where the player's token stands (once the board is described)"),
                   Field("coins", {"type": "integer", "minimum": 1}, required=True)),
           doc="Gamer, Mario Kart: coins from a player onto the board's pile on a space (a "
               "Thwomp, a shell, POW, Lightning); a player drops what they have at most; a "
               "player in Jail drops on Just Visiting."),
    Action("scoop", scoop, route="POST /api/scoops", kind=MoveKind.SCOOP, flow=Flow("scoop"),
           fields=(Field("player", PLAYER, required=True),
                   Field("space", TEXT, "the space's name", required=True)),
           doc="The player passed or landed on a space and scoops up its whole pile (the Free "
               "Parking pot, where that house rule is on)."),
)
"""The board's requests."""

MOVES = (Move(MoveKind.DROP, _board_text, redoable=True, own_spaces=True, touches=_drop_touches),
         Move(MoveKind.SCOOP, _board_text, redoable=True, own_spaces=True, touches=_scoop_touches))
