"""Gamer, Mario Kart: the characters a player picks, and the Power-up and Super Star abilities
they use (the drops, steals, collects and scoops, one move)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, space_name
from companion.bank.kinds import Move
from companion.bank.moves.board import known_spaces
from companion.bank.moves.token import standing, where
from companion.bank.ring import read_ring
from companion.bank.touch import (
    ALL,
    Touch,
    characters,
    coins,
    jail,
    out,
    pile,
    position,
    touch,
)
from companion.core.actions import FLAG, IDS, TEXT, Action, Field, Flow
from companion.core.actions import ID as PLAYER
from companion.core.editions.powers import Effect, Powers, Use, check_targets, moves, typed_coins
from companion.core.ledger import BANK, EntryKind, MoveKind, check_source, check_space
from companion.core.state import MoveView
from companion.exc import AgainstTheRules, Refused
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def set_characters(bank: Journal, player: object, characters: object,
                   game_id: int | None = None) -> tuple[str, ...]:
    """The character tokens ``player`` plays (two players: two each); each token once at
    the table."""
    with bank.write() as db:
        facts = bank.open_facts(game_id)
        powers = _powers(facts)
        pid = bank.in_game(facts, player)
        want = powers.picks(len(facts.players))
        if not isinstance(characters, list) or len(characters) != want:
            raise Refused(say_n("characters must list {n} character for each player in "
                                "a game of {players}",
                                "characters must list {n} characters for each player in "
                                "a game of {players}", want, players=len(facts.players)))
        picked = tuple(powers.character(c).id for c in characters)
        if len(set(picked)) != len(picked):
            raise Refused(say("characters lists one character twice"))
        for other in facts.players:
            taken = set(other.characters) & set(picked)
            if other.id != pid and taken:
                name = powers.character(sorted(taken)[0]).name
                raise Refused(say("{character} is {name}'s: each character token is "
                                  "played by one player", character=Said(name),
                                  name=other.name))
        db.execute("UPDATE players SET characters = ? WHERE id = ?",
                   (json.dumps(list(picked)), pid))
        return picked


def use_ability(bank: Journal, player: object, ability: object, *, targets: object = None,
                spaces: object = None, coins: object = None, character: object = None,
                spaces_instead: object = False, source: str = "",
                request_id: str | None = None, game_id: int | None = None) -> Any:
    """``player`` uses a Power-up die face (or ``super_star``) as their character does:
    the drops, steals, collects and scoops it makes, one move. ``spaces``: where each
    player who drops stands ({id: space}; a player in Jail drops on Just Visiting)."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.ABILITY, game_id, player=player,
                             ability=ability)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        powers = _powers(facts)
        pid = bank.in_game(facts, player)
        who = next(p for p in facts.players if p.id == pid)
        used = _character(powers, who.characters, character)
        base = powers.ability(ability, used)
        how = base.for_character(used)
        others = [p for p in facts.active if p != pid]
        hit = check_targets(how, pid, targets, others)
        if base.id == "green_shell" and hit:
            _next_on_the_board(bank, facts, pid, hit, both_ways=how is not base)
        typed = typed_coins(how, coins)
        if not isinstance(spaces_instead, bool) or (spaces_instead and
                                                    not how.spaces_instead):
            raise Refused(say("spaces_instead is only for an ability that offers spaces "
                              "instead of coins"))
        board = facts.rules.board
        assert board is not None
        droppers = hit if how.effect in (Effect.DROP, Effect.DROP_GIVE) else \
            (pid,) if how.effect is Effect.DROP_UP_TO and typed else ()
        at_token: list[int] = []
        where = drop_spaces(bank, facts, droppers, spaces, at_token)
        use = Use(pid, how, hit, where, typed, spaces_instead)
        made = moves(use, bank.money(facts.gid), bank.piles(facts.gid))
        boosted = how is not base
        data = {"player": player, "ability": ability, "id": base.id, "name": base.name,
                "character": used, "boost": boosted, "targets": list(hit),
                "spaces": {str(k): v for k, v in where.items()}, "coins": typed,
                "spaces_instead": spaces_instead, "text": how.text,
                **({"at_token": at_token} if at_token else {})}
        move = bank.add_move(db, facts.gid, MoveKind.ABILITY, player=pid, data=data,
                             note=how.name if not boosted else f"{how.name} (boost)",
                             source=source, request_id=request_id)
        for m in made:
            if m.kind == "drop":
                bank.add_entry(db, facts.gid, move, m.player, BANK, m.coins,
                               EntryKind.DROP, f"{base.name}: dropped on {m.space}",
                               source, space=m.space)
            elif m.kind == "scoop":
                bank.add_entry(db, facts.gid, move, BANK, m.player, m.coins,
                               EntryKind.SCOOP, f"{base.name}: from {m.space}",
                               source, space=m.space)
            elif m.kind == "steal":
                bank.add_entry(db, facts.gid, move, m.player, m.to, m.coins,
                               EntryKind.ABILITY, base.name, source)
            else:
                bank.add_entry(db, facts.gid, move, BANK, m.player, m.coins,
                               EntryKind.ABILITY, base.name, source)
        return bank.move_view(move, facts)


def _next_on_the_board(bank: Journal, facts: Facts, pid: int, hit: tuple[int, ...], *,
                       both_ways: bool) -> None:
    """The Green Shell hits "the next player on the board, from your position" (tied: the
    table chooses one); a boost that hits "a player in front of OR behind you", the nearest
    either way. Checked where the companion knows where every token stands (one each, on a
    described board); another target is the banker's correction."""
    ring = read_ring(bank.db, facts.rules)
    tokens = {p.id: len(p.characters) for p in facts.players}
    if ring is None or any(tokens[p] > 1 for p in (pid, *facts.active)):
        return
    others = {p: ring.at(where(facts, ring, p)) for p in facts.active if p != pid}
    me = ring.at(where(facts, ring, pid))
    near = ring.nearest(me, others)
    if both_ways:
        near |= ring.nearest(me, others, behind=True)
    if set(hit) <= near:
        return
    names = tuple(facts.name(p) for p in sorted(near, key=facts.ids.index))
    bank.overrule(AgainstTheRules(
        say("the Green Shell hits the next player on the board from {name}'s space: "
            "{targets}", name=facts.name(pid), targets=names) if not both_ways else
        say("the Green Shell hits the nearest player in front of or behind {name}: "
            "{targets}", name=facts.name(pid), targets=names),
        "green_shell", facts.rules.lines.get("green_shell", ())))


def drop_spaces(bank: Journal, facts: Facts, droppers: tuple[int, ...], spaces: object,
                at_token: list[int] | None = None) -> dict[int, str]:
    """Where each dropping player stands: named in ``spaces``, else where their token
    stands once the board is described; Just Visiting for a player in Jail ("drop them on
    the Just Visiting space")."""
    if spaces is None:
        spaces = {}
    if not isinstance(spaces, dict):
        raise Refused(say("spaces must map each player who drops to the space they stand "
                          "on"))
    known, jail_space = known_spaces(bank, facts)
    ring = read_ring(bank.db, facts.rules)
    at_token = [] if at_token is None else at_token  # who drops where their token stands
    where: dict[int, str] = {}
    for pid in droppers:
        typed = spaces.get(str(pid), spaces.get(pid))  # type: ignore[call-overload]
        if pid in facts.jailed:
            if typed is not None and check_space(typed, known) != jail_space:
                raise Refused(say("{name} is in Jail: they drop on {space}",
                                  name=facts.name(pid), space=jail_space))
            where[pid] = jail_space
        elif typed is None and ring is not None and standing(facts, ring, pid) is not None:
            where[pid] = ring.label(standing(facts, ring, pid))  # type: ignore[arg-type]
            at_token.append(pid)
        elif typed is None:
            raise Refused(say("spaces: where does {name} stand? (they drop their coins "
                              "there)", name=facts.name(pid)))
        else:
            where[pid] = check_space(typed, known)
    return where


def _powers(facts: Facts) -> Powers:
    if facts.rules.powers is None:
        raise Refused(say("{edition} has no characters or abilities",
                          edition=Said(facts.rules.name)))
    return facts.rules.powers


def _character(powers: Powers, mine: tuple[str, ...], character: object) -> str | None:
    """The character taking this turn: named, or the player's only one."""
    if character is None:
        if len(mine) > 1:
            raise Refused(say("character: which of their characters is taking this turn?"))
        return mine[0] if mine else None
    picked = powers.character(character).id
    if picked not in mine:
        raise Refused(say("{character} is not one of this player's characters",
                          character=Said(powers.character(picked).name)))
    return picked


def _ability_text(move: MoveView, facts: Facts) -> Said:
    """"Mario: POW (boost): Luigi drops 2 on Thwomp, Peach drops 1 on GO"."""
    data = move.data
    who = facts.name(move.player_id)
    named = data.get("name", move.note)
    ability: str | Said = Said(str(named)) if "name" in data and named else str(named)
    parts: list[str | Said] = []
    for e in move.entries:
        if e.space is not None and e.payee == BANK:
            parts.append(say("{name} drops {coins} on {space}", name=facts.name(e.payer),
                             coins=e.amount, space=space_name(e.space)))
        elif e.space is not None:
            parts.append(say("scoops {coins} from {space}", coins=e.amount,
                             space=space_name(e.space)))
        elif e.payer == BANK:
            parts.append(say_n("collects {n} coin", "collects {n} coins", e.amount))
        else:
            parts.append(say("takes {coins} from {name}", coins=e.amount,
                             name=facts.name(e.payer)))
    if not parts:
        parts.append(say("more spaces instead of coins") if data.get("spaces_instead") else
                     Said(str(data["text"])) if data.get("text") else say("no coins moved"))
    if data.get("boost"):
        return say("{name}: {ability} (boost): {parts}", name=who, ability=ability,
                   parts=tuple(parts))
    return say("{name}: {ability}: {parts}", name=who, ability=ability, parts=tuple(parts))



def _ability_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """An ability as the player's character uses it: its drops, steals and drops up to a
    number take what each player has at most, where they stand (Jail); its targets are
    players still in; a Star's scoop takes every pile."""
    pid, targets = row["player_id"], data.get("targets") or ()
    powers = facts.rules.powers
    try:
        used = powers.ability(data.get("ability"), data.get("character")) \
            .for_character(data.get("character")) if powers is not None else None
    except Refused:
        used = None
    if used is None:  # an ability this edition no longer knows: it may have read anything
        return ALL
    scoops = [pile(None)] if used.effect is Effect.SCOOP_ALL else []
    return touch(reads=[characters(pid), coins(pid), jail(pid), out(None), *scoops,
                        *(f for t in targets for f in (coins(t), jail(t))),
                        *(position(t) for t in data.get("at_token", ()))])


def _characters(picked: tuple[str, ...], fields: Mapping[str, Any]) -> tuple[Any, int]:
    return {"player": fields.get("player"), "characters": list(picked)}, 200


WRITES = (set_characters, use_ability)
ACTIONS = (
    Action("set_characters", set_characters, route="POST /api/characters",
           event="characters", keyed=False, answer=_characters, answers="Characters",
           fields=(Field("player", PLAYER, required=True),
                   Field("characters", {"type": "array", "items": TEXT},
                         "ids or names of the ruleset's characters (two players: two each)",
                         required=True)),
           doc="Gamer, Mario Kart: the character tokens a player plays."),
    Action("use_ability", use_ability, route="POST /api/abilities", event="ability",
           kind=MoveKind.ABILITY, flow=Flow("use_ability"),
           fields=(Field("player", PLAYER, required=True),
                   Field("ability", TEXT, "a Power-up face (powers.abilities) or super_star",
                         required=True),
                   Field("targets", IDS, "the players hit (a shell, a Blooper)"),
                   Field("spaces", {"type": "object", "additionalProperties": TEXT},
                         "where each player who drops stands, by their id"),
                   Field("coins", {"type": "integer", "minimum": 0},
                         "Mario's roll, Peach's rent, Toad's drop"),
                   Field("character", TEXT, "which one takes the turn, for a player with two"),
                   Field("spaces_instead", FLAG, "spaces instead of coins (Mario Kart's "
                         "Mario)")),
           doc="A Power-up face the table rolled, or the character's Super Star, as that "
               "character uses it (its boost, if any): its drops, steals, collects and "
               "scoops, one move."),
)
"""The characters' requests."""

MOVES = (Move(MoveKind.ABILITY, _ability_text, redoable=True, own_spaces=True,
              touches=_ability_touches),)
