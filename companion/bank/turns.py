"""The Movie's table as its journal left it: whose turn began when (a turn move, or a turn that
ended in Jail), the doubles run of the current player, the tries made from Jail and whether
Bowser waits on GO. Read on every state, so each read is bounded by what it looks for (an
index, a limit), never by the length of the game."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from companion.bank.facts import Facts
from companion.core.flow import Turn
from companion.core.ledger import MoveKind
from companion.core.outcomes import Kind

MAX_TOKEN_MOVES = 50
"""The token moves of one turn read for a pass of GO (a turn makes a few)."""


def live_moves(db: sqlite3.Connection, gid: int, kind: MoveKind, after: int = 0,
               player: int | None = None, limit: int = 1) -> list[sqlite3.Row]:
    """At most ``limit`` moves of ``kind`` (of ``player``) after move ``after``, not
    undone, newest first."""
    sql = ("SELECT * FROM moves m INDEXED BY moves_by_kind WHERE game_id = ? AND kind = ?"
           " AND id > ? AND NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)")
    args: list[Any] = [gid, kind.value, after]
    if player is not None:
        sql += " AND player_id = ?"
        args.append(player)
    return db.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()


def jail_tries(db: sqlite3.Connection, facts: Facts, player: int) -> int:
    """Tries out of Jail ``player`` made since going in (0 when not in Jail): the block's
    rolls for doubles (the Movie), or the table's die for a 6 (Celebration, Gamer, Mario
    Kart), counted the same way."""
    if player not in facts.jailed:
        return 0
    if facts.rules.jail_rolls is not None:
        return len(live_moves(db, facts.gid, MoveKind.JAIL_TRY, facts.jailed_by[player],
                              player, limit=facts.rules.jail_rolls.tries))
    mode = facts.rules.mode_for_table("jail_roll")
    if mode is None:
        return 0
    return int(db.execute(
        "SELECT COUNT(*) FROM outcomes INDEXED BY outcomes_by_game WHERE game_id = ? AND"
        " id > ? AND player_id = ? AND mode = ?",
        (facts.gid, facts.jailed[player], player, mode.id)).fetchone()[0])


def doubles(db: sqlite3.Connection, facts: Facts) -> int:
    """Doubles the current player has rolled in a row since their turn began."""
    mode = facts.rules.mode_for_table("two_dice")
    who = facts.current
    if mode is None or who is None or who in facts.jailed:
        return 0
    turns = turn_passes(db, facts.gid, 1)
    jailed = live_moves(db, facts.gid, MoveKind.JAILED, player=who)
    mark = max([json.loads(r["data"]).get("mark", 0) for r in turns + jailed] or [0])
    streak = 0
    for row in db.execute(
            "SELECT kind, rolls FROM outcomes INDEXED BY outcomes_by_game WHERE game_id = ?"
            " AND id > ? AND player_id = ? AND mode = ? ORDER BY id DESC LIMIT ?",
            (facts.gid, mark, who, mode.id, mode.fees["doubles_limit"])):
        rolls = json.loads(row["rolls"])
        if row["kind"] != Kind.DICE.value or rolls[0] != rolls[1]:
            break
        streak += 1
    return streak


def turn_passes(db: sqlite3.Connection, gid: int, limit: int,
                after: int = 0) -> list[sqlite3.Row]:
    """The latest ``limit`` times the turn passed after move ``after``, newest first: a
    turn move (Next, a tile, a card, time-up), going to Jail ("Your turn then ends") or a
    missed roll from Jail ("If you fail to roll a 6, your turn ends")."""
    turns = live_moves(db, gid, MoveKind.TURN, after=after, limit=limit)
    floor = turns[-1]["id"] if len(turns) == limit else after
    jails = [r for kind in (MoveKind.JAILED, MoveKind.JAIL_TRY)
             for r in live_moves(db, gid, kind, after=floor, limit=2**31)
             if json.loads(r["data"]).get("current_after") is not None]
    return sorted(turns + jails, key=lambda r: r["id"], reverse=True)[:limit]


def bowser_waits(db: sqlite3.Connection, facts: Facts) -> bool:
    """Bowser was beaten and waits on GO "until all of the players have completed their
    next turn": every player still in, the one who beat him too (the FAQ's reading), so
    until the turn has passed once more than there are players. Only the battles won
    since that many turns are read (by their index), however long the game."""
    if facts.rules.mode_for_table("battle") is None:
        return False
    players = len(facts.active)
    turns = turn_passes(db, facts.gid, players + 1)
    since = json.loads(turns[-1]["data"]).get("mark", 0) if len(turns) > players else 0
    for battle in db.execute(
            "SELECT id FROM outcomes INDEXED BY outcomes_by_kind WHERE game_id = ? AND"
            " kind = ? AND id > ? ORDER BY id DESC", (facts.gid, Kind.BATTLE_WON.value,
                                                      since)):
        move = db.execute(
            "SELECT m.id FROM entries e JOIN moves m ON m.id = e.move_id WHERE"
            " e.outcome_id = ? AND e.kind = 'block' AND NOT EXISTS (SELECT 1 FROM moves u"
            " WHERE u.undoes = m.id) ORDER BY m.id DESC LIMIT 1", (battle["id"],)
        ).fetchone()
        if move is not None:
            return len(turn_passes(db, facts.gid, players + 1, after=move["id"])) <= \
                players
    return False


def contest_due(db: sqlite3.Connection, facts: Facts) -> bool:
    """Gamer, Mario Kart: the current player passed GO this turn and no card has been flipped
    since ("At the end of your turn, if you landed on or passed GO, flip over the top Boss
    card"); not from Jail ("Do not flip over a Boss card")."""
    found, who = facts.contests, facts.current
    if found is None or who is None or who in facts.jailed or found.current is not None or \
            found.next_number is None:
        return False
    turn = turn_passes(db, facts.gid, 1)
    since = turn[0]["id"] if turn else 0
    go = [m["id"] for m in live_moves(db, facts.gid, MoveKind.PASS_GO, after=since,
                                      player=who)]
    go += [m["id"] for m in live_moves(db, facts.gid, MoveKind.TOKEN, after=since, player=who,
                                       limit=MAX_TOKEN_MOVES) if json.loads(m["data"]).get("go")]
    return bool(go) and not live_moves(db, facts.gid, MoveKind.CONTEST, after=max(go))


def rolled_to_move(db: sqlite3.Connection, facts: Facts) -> bool:
    """Gamer, Mario Kart: the current player's token moved by a press this turn ("Roll both
    dice" once a turn): the next press is the space's roll (a Coin Block's), not a move."""
    who = facts.current
    if who is None or facts.rules.mode_for_table("move_roll") is None:
        return False
    turn = turn_passes(db, facts.gid, 1)
    moved = live_moves(db, facts.gid, MoveKind.TOKEN, after=turn[0]["id"] if turn else 0,
                       player=who, limit=MAX_TOKEN_MOVES)
    return any(json.loads(m["data"]).get("outcome") is not None for m in moved)


ROLLED = (MoveKind.TOKEN, MoveKind.PASS_GO, MoveKind.JAIL_TRY)
"""The current player's moves that show they have rolled this turn: their token moved, they
passed GO, they rolled for a 6 from Jail (a press given to them shows it too, and Bowser moved
on their roll: a toll). The turn counts these (a move made once a turn is one of them)."""


def turn_of(db: sqlite3.Connection, facts: Facts) -> Turn:
    """The current player's turn as the journal tells it: when it began, whether they have
    rolled, which of the moves a turn counts were made for them since, whether they passed
    GO in it. Each a lookup on an index: the same few rows however long the game."""
    who = facts.current
    jailed = dict(facts.jailed_by)
    passes = turn_passes(db, facts.gid, 1)
    past = past_outcomes(db, facts, passes[0] if passes else None)
    if who is None:
        return Turn(None, jailed=jailed, past_outcomes=past)
    began = passes[0]["id"] if passes else 0
    live = "NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)"
    made = {kind.value for kind in ROLLED if db.execute(
        f"SELECT 1 FROM moves m INDEXED BY moves_by_player WHERE player_id = ? AND kind = ? AND"
        f" id > ? AND {live} LIMIT 1", (who, kind.value, began)).fetchone() is not None}
    if db.execute(f"SELECT 1 FROM moves m INDEXED BY moves_by_kind WHERE game_id = ? AND"
                  f" kind = ? AND id > ? AND {live} LIMIT 1",
                  (facts.gid, MoveKind.TOLL.value, began)).fetchone() is not None:
        made.add(MoveKind.TOLL.value)  # Bowser moved on this turn's roll
    latest = db.execute("SELECT id, at FROM outcomes INDEXED BY outcomes_by_player WHERE"
                        " player_id = ? ORDER BY id DESC LIMIT 1", (who,)).fetchone()
    pressed = False
    if latest is not None and passes:
        mark = json.loads(passes[0]["data"]).get("mark")
        # (a pass written before it kept the outcomes' mark: by the clock)
        pressed = latest["id"] > mark if mark is not None else latest["at"] > passes[0]["at"]
    elif latest is not None:
        pressed = True  # the game's first turn, a press given to them
    acquired = frozenset(
        row[0] for row in db.execute(
            f"SELECT json_extract(data, '$.creditor') FROM moves m INDEXED BY moves_by_kind"
            f" WHERE game_id = ? AND kind = ? AND id > ? AND {live}",
            (facts.gid, MoveKind.BANKRUPTCY.value, began)) if isinstance(row[0], int))
    return Turn(who, began, pressed or bool(made), frozenset(made), contest_due(db, facts),
                jailed, acquired, past)


def past_outcomes(db: sqlite3.Connection, facts: Facts, latest: sqlite3.Row | None) -> int:
    """The outcomes up to this id belong to turns that have passed: those before the turn's
    latest pass (its ``mark``), but for the press that passed it itself (a Go to Jail, a stay
    in Jail: "Your turn then ends"), which is the news its turn began with."""
    if latest is None:
        return 0
    data = json.loads(latest["data"])
    mark = data.get("mark")
    if mark is None:  # a pass written before passes kept the outcomes' mark: by the clock
        row = db.execute("SELECT MAX(id) FROM outcomes INDEXED BY outcomes_by_game WHERE"
                         " game_id = ? AND at <= ?", (facts.gid, latest["at"])).fetchone()
        return int(row[0] or 0)
    own = data.get("outcome") == mark or data.get("op") == "jail"
    return int(mark) - 1 if own else int(mark)


def landed(db: sqlite3.Connection, facts: Facts) -> tuple[int | None, bool]:
    """Gamer, Mario Kart: where the current player's token landed this turn (its latest move
    in the turn; None: it has not moved this turn), and whether the space's roll (a Coin
    Block's, an Item Box's) was made since: a press given to them after it (the move keeps
    the latest outcome's id as its ``mark``; a move's own press is its ``outcome``)."""
    who = facts.current
    mode = facts.rules.default_mode
    if who is None or facts.rules.mode_for_table("move_roll") is None:
        return None, False
    turn = turn_passes(db, facts.gid, 1)
    moved = live_moves(db, facts.gid, MoveKind.TOKEN, after=turn[0]["id"] if turn else 0,
                       player=who)
    if not moved:
        return None, False
    data = json.loads(moved[0]["data"])
    mark = data.get("mark", data.get("outcome"))
    if mark is None:  # moved before moves kept their mark: by the clock
        rolled = db.execute("SELECT 1 FROM outcomes INDEXED BY outcomes_by_game WHERE"
                            " game_id = ? AND at > ? AND player_id = ? AND mode = ? LIMIT 1",
                            (facts.gid, moved[0]["at"], who, mode.id)).fetchone()
    else:
        rolled = db.execute("SELECT 1 FROM outcomes INDEXED BY outcomes_by_game WHERE"
                            " game_id = ? AND id > ? AND player_id = ? AND mode = ? LIMIT 1",
                            (facts.gid, mark, who, mode.id)).fetchone()
    return int(data["to"]), rolled is not None
