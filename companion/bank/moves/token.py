"""Where each token stands (Gamer, Mario Kart): a token's move around the board the table
described, with the coins it scoops on the way, GO's coins, and what the space it lands on does
at once (a Warp Pipe, a Thwomp, Go to Jail), one move and one undo.

"Move your Character forward the number of spaces rolled. Collect any Coins on the spaces you
pass or land on but not on the space where you start."
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, or_current, space_name, token_key
from companion.bank.kinds import Move
from companion.bank.moves import jail as jail_moves
from companion.bank.moves import turn
from companion.bank.ring import read_ring, ring_of
from companion.bank.touch import Touch, banana, coins, drawn, jail, pile, position, touch
from companion.core.actions import ID as PLAYER
from companion.core.actions import SPACE_NUMBER, TEXT, Action, Field, Flow
from companion.core.board_ring import JAIL_CORNER, Effect, Ring, Walk
from companion.core.ledger import BANK, EntryKind, MoveKind, check_source
from companion.core.state import MoveView
from companion.exc import Refused, shown
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal

MAX_STEPS = 12
"""The most spaces one move goes: a die's 6, and more with a boost (Mario's "add up to 3
spaces", Toad's "up to 5")."""
HOW = ("roll", "warp", "place")
"""How a token moves: spaces counted (a roll, a Boost Pad, a Super Star's move), on to the
next Warp Pipe, or put on a space (no coins on the way: Luigi's Super Star, a correction)."""


def where(facts: Facts, ring: Ring, pid: int, character: str | None = None) -> int:
    """The space a player's token stands on (GO at the start; In Jail: Just Visiting); a
    player with two tokens: ``character``'s."""
    key = token_key(facts, pid, character)
    if pid in facts.jailed and key[1] is None:
        return ring.jail_corner
    return ring.at(facts.positions.get(key, 0))


def in_jail(facts: Facts, pid: int, character: str | None = None) -> bool:
    """Whether this token is In Jail: the player's (one token), or the character's that went
    there (two tokens: "one of your Characters is In Jail")."""
    key = token_key(facts, pid, character)
    if key[1] is None:
        return pid in facts.jailed
    return pid in facts.jailed and facts.positions.get(key) == JAIL_CORNER


def standing(facts: Facts, ring: Ring, pid: int) -> int | None:
    """Where a player stands for a drop: their token's space (a player with two tokens: the
    space both stand on, else None: the table names it)."""
    mine = next((p.characters for p in facts.players if p.id == pid), ())
    spaces = {where(facts, ring, pid, c) for c in mine} if len(mine) > 1 else \
        {where(facts, ring, pid)}
    return spaces.pop() if len(spaces) == 1 else None


def which_token(bank: Journal, facts: Facts, pid: int, character: object) -> str | None:
    """The character whose token moves: None for a player with one token; named (or
    refused) for a player with two."""
    mine = next((p.characters for p in facts.players if p.id == pid), ())
    if len(mine) < 2:
        return None
    if character not in mine:
        raise Refused(say("character: which of {name}'s tokens moves? ({characters})",
                          name=facts.name(pid), characters=", ".join(mine)))
    return str(character)


def move_token(bank: Journal, player: object = None, *, steps: object = None,
               to: object = None, how: object = "roll", character: object = None,
               source: str = "", request_id: str | None = None,
               game_id: int | None = None) -> MoveView:
    """Move ``player``'s token (None: the current player's): ``steps`` spaces forward
    (``how="roll"``), on to the next Warp Pipe (``"warp"``), or onto space ``to``
    (``"place"``); ``character``: which token, for a player with two. A roll or a warp
    scoops every pile passed or landed on, pays GO's coins when it passes GO, and does at
    once what the space landed on says: a Warp Pipe warps, a Thwomp drops, Go to Jail sends
    the player to Jail (no coins on the way)."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, None, game_id)
        if replay is not None:
            return bank.move_view(replay["id"])
        if how not in HOW:
            raise Refused(say("how must be roll, warp or place, got {value}",
                              value=shown(how)))
        for name, value, used in (("to", to, how == "place"), ("steps", steps, how == "roll")):
            if value is not None and not used:  # given, so read: never silently left aside
                raise Refused(say("{field} is not used when how is {how}: leave it out",
                                  field=name, how=how))
        facts = bank.open_facts(game_id)
        ring = ring_of(bank, facts)
        pid = bank.in_game(facts, or_current(facts, player))
        token = which_token(bank, facts, pid, character)
        if in_jail(facts, pid, token) and how != "place":
            raise Refused(say("{name} is in Jail: pay the fee or roll a 6 first",
                              name=facts.name(pid)))
        start = where(facts, ring, pid, token)
        extra = {} if token is None else {"character": token}
        if how == "place":
            if not _whole(to) or not 0 <= to < len(ring):  # type: ignore[operator]
                raise Refused(say("to must be a space's number, 0 to {most}",
                                  most=len(ring) - 1))
            walk = Walk(start, (to,) if to != start else (), False)  # type: ignore[arg-type]
            return _write(bank, db, facts, ring, pid, walk, how, None, False, source,
                          request_id, extra)
        if how == "warp":
            if ring.effect(start) is not Effect.WARP:
                raise Refused(say("{name} is not on a {space}", name=facts.name(pid),
                                  space=Said(_kind_name(ring, Effect.WARP))))
            return _write(bank, db, facts, ring, pid, ring.warp(start), how, None, True,
                          source, request_id, extra)
        if not _whole(steps) or not 1 <= steps <= MAX_STEPS:  # type: ignore[operator]
            raise Refused(say("steps must be a whole number from 1 to {most}",
                              most=MAX_STEPS))
        return _advance(bank, db, facts, ring, pid, steps, source,  # type: ignore[arg-type]
                        request_id, extra)


def rolled(bank: Journal, db: sqlite3.Connection, facts: Facts, pid: int, steps: int,
           source: str, outcome_id: int, face: str) -> MoveView | None:
    """A movement press given to ``pid``: their token moves ``steps`` (None: it can't, the
    board not described or the player In Jail: the outcome is kept, nothing moves)."""
    ring = read_ring(db, facts.rules)
    two = len(next((p.characters for p in facts.players if p.id == pid), ())) > 1
    if ring is None or in_jail(facts, pid) or two:  # two tokens: the table moves the one
        return None
    return _advance(bank, db, facts, ring, pid, steps, source, None,
                    {"outcome": outcome_id, "face": face})


def _advance(bank: Journal, db: sqlite3.Connection, facts: Facts, ring: Ring, pid: int,
             steps: int, source: str, request_id: str | None, extra: dict[str, Any]
             ) -> MoveView:
    """Forward ``steps`` spaces; a Warp Pipe landed on warps on to the next one."""
    start = where(facts, ring, pid, extra.get("character"))
    walk = ring.walk(start, steps, frozenset(facts.bananas))  # a Banana stops it
    if walk.path and walk.end in facts.bananas:  # "remove the Banana from that space"
        extra = {**extra, "banana": walk.end}
    warped = False
    if walk.path and ring.effect(walk.end) is Effect.WARP:  # "advance ... to the next"
        on = ring.warp(walk.end)
        walk = Walk(start, walk.path + on.path, walk.passed_go or on.passed_go)
        warped = bool(on.path)
    return _write(bank, db, facts, ring, pid, walk, "roll", steps, warped, source,
                  request_id, extra)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind_name(ring: Ring, effect: Effect) -> str:
    return next((k.name for k in ring.kinds.values() if k.effect is effect), effect.value)


def _write(bank: Journal, db: sqlite3.Connection, facts: Facts, ring: Ring, pid: int,
           walk: Walk, how: str, steps: object, warped: bool, source: str,
           request_id: str | None, extra: dict[str, Any] | None = None) -> MoveView:
    data: dict[str, Any] = {"player": pid, "how": how, "steps": steps, "from": walk.start,
                            "to": walk.end, "path": list(walk.path), "space": ring.label(walk.end),
                            "warped": warped, "mark": turn.outcome_mark(db, facts),
                            **(extra or {})}
    landed = ring.effect(walk.end) if walk.path else None
    if landed is Effect.TO_JAIL and how != "place":
        # "Move your Character Token to the In Jail space immediately! Do not collect 2
        # Coins for passing GO, and do not collect any Coins you pass or land on."
        data.update(turn.ends(db, facts, pid))
        move = jail_moves.jailed(bank, db, facts, pid, True, "landed on Go to Jail", source,
                                 request_id, {**data, "to": JAIL_CORNER})
        return bank.move_view(move, facts)
    scoops = how != "place"
    go = scoops and walk.passed_go and facts.rules.pass_go is not None
    data["go"] = go
    if scoops:
        data["passed"] = [ring.label(i) for i in walk.path]
    drop = ring.kind(walk.end) if landed is Effect.DROP else None
    move = bank.add_move(db, facts.gid, MoveKind.TOKEN, player=pid, data=data,
                         source=source, request_id=request_id)
    if scoops:
        piles = bank.piles(facts.gid)
        for index in walk.path:
            label = ring.label(index)
            coins_there = piles.pop(label, 0)
            if coins_there > 0:
                bank.add_entry(db, facts.gid, move, BANK, pid, coins_there, EntryKind.SCOOP,
                               f"scooped up from {label}", source, space=label)
    if go:
        assert facts.rules.pass_go is not None
        bank.add_entry(db, facts.gid, move, BANK, pid, facts.rules.pass_go.value,
                       EntryKind.PASS_GO, "passed GO", source)
    if drop is not None:
        has = bank.money(facts.gid)[pid]
        dropped = max(0, min(drop.coins, has))
        if dropped:
            bank.add_entry(db, facts.gid, move, pid, BANK, dropped, EntryKind.DROP,
                           f"dropped on {ring.label(walk.end)}", source,
                           space=ring.label(walk.end))
    return bank.move_view(move, facts)


def _token_text(move: MoveView, facts: Facts) -> str | Said:
    """"Mario moves 4 to Acorn Plains: scoops 3, GO +2"."""
    data, who = move.data, facts.name(move.player_id)
    space = space_name(data.get("space"))
    parts: list[str | Said] = []
    for e in move.entries:
        if e.kind is EntryKind.SCOOP:
            parts.append(say("scoops {coins} from {space}", coins=e.amount,
                             space=space_name(e.space)))
        elif e.kind is EntryKind.PASS_GO:
            parts.append(say("passes GO: collects {coins}", coins=e.amount))
        elif e.kind is EntryKind.DROP:
            parts.append(say("drops {coins} on {space}", coins=e.amount,
                             space=space_name(e.space)))
    if data.get("how") == "place":
        head = say("{name}'s token goes to {space}", name=who, space=space)
    elif data.get("how") == "warp" or data.get("warped"):
        head = say("{name} warps to {space}", name=who, space=space) if data.get("how") == \
            "warp" else say_n("{name} moves {n} space, warps to {space}",
                              "{name} moves {n} spaces, warps to {space}",
                              int(data.get("steps") or 0), name=who, space=space)
    else:
        head = say_n("{name} moves {n} space to {space}", "{name} moves {n} spaces to {space}",
                     int(data.get("steps") or 0), name=who, space=space)
    if data.get("banana") is not None:
        parts.insert(0, say("stops on a Banana"))
    if not parts:
        return head
    return say("{text}: {parts}", text=head, parts=tuple(parts))


def _read_positions(db: sqlite3.Connection, facts: Facts) -> None:
    """Where each token stands: its latest move, or into Jail since (In Jail). Each player's
    moves are read newest first by their index, only until each of their tokens is found:
    the same few rows however long the game."""
    board = facts.rules.board
    if board is None or not board.kinds:
        return
    for p in facts.players:
        tokens: list[str | None] = list(p.characters) if len(p.characters) > 1 else [None]
        moved = _latest(db, p.id, MoveKind.TOKEN, tokens, lambda data: True)
        jailed = _latest(db, p.id, MoveKind.JAILED, tokens, lambda data: bool(data.get("in")),
                         since=min((m for m, _ in moved.values()), default=0))
        for token in tokens:
            at = moved.get(token)
            went = jailed.get(token)
            if went is not None and (at is None or went[0] > at[0]):
                facts.positions[(p.id, token)] = JAIL_CORNER
            elif at is not None:
                facts.positions[(p.id, token)] = at[1]


def _latest(db: sqlite3.Connection, pid: int, kind: MoveKind, tokens: list[str | None],
            counts: Callable[[dict[str, Any]], bool], since: int = 0
            ) -> dict[str | None, tuple[int, int]]:
    """Each token's latest live move of ``kind`` that ``counts`` (id, the space it went to),
    newest first, stopping once every token has one or the moves are older than ``since``."""
    found: dict[str | None, tuple[int, int]] = {}
    for row in db.execute(
            "SELECT id, data FROM moves m INDEXED BY moves_by_player WHERE player_id = ? AND"
            " kind = ? AND id > ? AND NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)"
            " ORDER BY id DESC", (pid, kind.value, since)):
        data = json.loads(row["data"])
        token = data.get("character") if len(tokens) > 1 else None
        if token in tokens and token not in found and counts(data):
            found[token] = (row["id"], int(data.get("to", JAIL_CORNER)))
            if len(found) == len(tokens):
                break
    return found


def _token_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A token's move: from where it stood (so a later move of that token depends on it),
    the piles on its way (scooped whole), what the player had (a Thwomp's drop)."""
    pid = row["player_id"]
    changes, reads = drawn(row, data)
    took = [banana(data["banana"])] if data.get("banana") is not None else []
    return touch(changes=[position(pid), *changes, *took],
                 reads=[position(pid), jail(pid), coins(pid), *reads, banana(None),
                        *(pile(x) for x in data.get("passed", ()))])


def _token_redone(db: sqlite3.Connection, facts: Facts, target: MoveView,
                  data: Mapping[str, Any]) -> None:
    """Redo of a press's move: the outcome is the player's again (never given twice)."""
    if data.get("outcome") is not None:
        db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?",
                   (target.player_id, data["outcome"]))


WRITES = (move_token,)
ACTIONS = (
    Action("move_token", move_token, route="POST /api/tokens", event="token",
           kind=MoveKind.TOKEN, flow=Flow("move_token"),
           fields=(Field("player", PLAYER, "default: the current player"),
                   Field("steps", {"type": "integer", "minimum": 1, "maximum": MAX_STEPS},
                         "a roll: forward that many spaces"),
                   Field("to", SPACE_NUMBER, "with how place: onto that space"),
                   Field("how", {"enum": list(HOW)}, "roll (default), warp or place"),
                   Field("character", TEXT, "which token, for a player with two")),
           doc="Gamer, Mario Kart on a described board: a token moves, scooping the piles on "
               "its way, GO's coins, and what the space it lands on does (a Warp Pipe, a "
               "Thwomp, Go to Jail)."),
)
"""The tokens' requests."""

MOVES = (Move(MoveKind.TOKEN, _token_text, redoable=True, read=_read_positions, own_spaces=True,
              undone=jail_moves.unassign, redone=_token_redone, touches=_token_touches),)
