"""Jail: the fee paid to the Bank, going in or out (by the banker or by an outcome), and who is
in Jail now (each player's latest such move)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import turns
from companion.bank.facts import Facts, or_current
from companion.bank.kinds import Move
from companion.bank.moves import coins, turn
from companion.bank.touch import TURN, Fact, Touch, banana, capped, drawn, position, touch
from companion.bank.touch import jail as in_jail
from companion.core.actions import FLAG, Action, Field, Flow
from companion.core.actions import ID as PLAYER
from companion.core.editions.ruleset import Debt, JailLast
from companion.core.flow import Turn
from companion.core.ledger import BANK, Entry, EntryKind, MoveKind, check_source
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


PAY = "pay"
"""``in_jail`` left out: the player pays the fee (and, if in Jail, leaves it)."""


def pay_or_go(bank: Journal, player: object = None, in_jail: object = PAY, *,
              source: str = "", request_id: str | None = None,
              game_id: int | None = None) -> Entry | MoveView:
    """``POST /api/jail``: the jail fee (``in_jail`` left out), or into Jail (true) or out of
    it without paying (false: a Get Out of Jail Free card)."""
    if in_jail == PAY:
        return jail(bank, player, source=source, request_id=request_id, game_id=game_id)
    if not isinstance(in_jail, bool):
        raise Refused(say("in_jail must be true (goes to Jail) or false (leaves it without "
                          "paying)"))
    return set_jail(bank, player, in_jail, source=source, request_id=request_id,
                    game_id=game_id)


def jail(bank: Journal, player: object = None, *, source: str = "", request_id: str | None = None,
         game_id: int | None = None) -> Entry:
    """A player (None: the current one) pays the edition's jail fee to the Bank. Where
    payments are capped, a player who can't pay it rolls for a 6 instead (the rulebook's
    other way out)."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.JAIL, game_id, player=player)
        if replay is not None:
            return bank.move_entries(replay["id"])[0]
        facts = bank.open_facts(game_id)
        fee = facts.rules.jail_fee
        if fee is None:
            raise Refused(say("{edition} has no Jail", edition=Said(facts.rules.name)))
        pid = bank.in_game(facts, or_current(facts, player))
        if pid not in facts.jailed:  # the fee is a way out, nothing else
            raise Refused(say("{name} is not in Jail: the jail fee is only a way out of it "
                              "(send them to Jail first if they are there)",
                              name=facts.name(pid)))
        balance = bank.money(facts.gid)[pid]
        if facts.rules.debt is Debt.CAPPED and balance < fee.value:
            raise Refused(say_n("{name} has {n} coin and can't pay the jail fee of {fee}: "
                                "roll for a 6 instead",
                                "{name} has {n} coins and can't pay the jail fee of {fee}: "
                                "roll for a 6 instead",
                                balance, name=facts.name(pid), fee=fee.value))
        paid = coins.pay(bank, db, facts, MoveKind.JAIL, EntryKind.JAIL, pid, BANK, fee.value,
                         note="jail fee", source=source, request_id=request_id,
                         data={"player": player, "frees": True},
                         space=facts.pot_space("jail"))
        assert paid.entry is not None
        return paid.entry


def set_jail(bank: Journal, player: object, in_jail: object, *, source: str = "",
             request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """The banker sends a player to Jail (a Go to Jail space, a card) or lets them out
    without the fee (a Get Out of Jail Free card). A player in Jail pays no toll, can't
    battle, and presses to roll for doubles where the edition has that mode.

    Sending the current player ends their turn, in the same move (one undo for both): "Your
    turn then ends." / "Your turn is now over." / "Your turn is over." """
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.JAILED, game_id, player=player,
                             **{"in": in_jail})
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        if facts.rules.jail_fee is None:
            raise Refused(say("{edition} has no Jail", edition=Said(facts.rules.name)))
        if not isinstance(in_jail, bool):
            raise Refused(say("in_jail must be true (goes to Jail) or false (leaves it)"))
        pid = bank.in_game(facts, or_current(facts, player))
        if (pid in facts.jailed) == in_jail:
            raise Refused(say("{name} is already in Jail", name=facts.name(pid)) if in_jail
                          else say("{name} is not in Jail", name=facts.name(pid)))
        why = "sent by the banker" if in_jail else "let out by the banker"
        data: dict[str, Any] = {"player": player}
        if in_jail:
            data.update(turn.ends(db, facts, pid))
        move = jailed(bank, db, facts, pid, in_jail, why, source, request_id, data)
        return bank.move_view(move, facts)


def roll_from_jail(bank: Journal, player: object, six: object, *, source: str = "",
                   request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """``player`` in Jail rolled the table's own die for a 6 (Celebration, Gamer, Mario Kart):
    a 6 frees them and they move with it; a miss ends their turn; the last miss is the
    edition's way out (:class:`~companion.core.editions.ruleset.JailRolls`). One move, with
    its fee and the turn it passes."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.JAIL_TRY, game_id, player=player, six=six)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        rolls = facts.rules.jail_rolls
        if rolls is None:
            raise Refused(say("{edition} has no Jail", edition=Said(facts.rules.name))
                          if facts.rules.jail_fee is None else
                          say("in {edition} the block rolls for doubles from Jail: press it",
                              edition=Said(facts.rules.name)))
        if not isinstance(six, bool):
            raise Refused(say("six must be true (rolled a 6) or false (missed)"))
        pid = bank.in_game(facts, or_current(facts, player))
        if pid not in facts.jailed:
            raise Refused(say("{name} is not in Jail", name=facts.name(pid)))
        tried = turns.jail_tries(db, facts, pid) + 1
        last = not six and tried >= rolls.tries
        data: dict[str, Any] = {"player": player, "six": six, "try": tried, "tries": rolls.tries,
                                "out": six or last, "last": rolls.last.value if last else None}
        if not six and not (last and rolls.last is JailLast.PAY):
            data.update(turn.ends(db, facts, pid))  # "If you fail to roll a 6, your turn ends"
        move = bank.add_move(db, facts.gid, MoveKind.JAIL_TRY, player=pid, data=data,
                             note=f"try {tried} of {rolls.tries}", source=source,
                             request_id=request_id)
        fee = facts.rules.jail_fee
        if last and rolls.last is JailLast.PAY and fee is not None:
            # "pay 5 coins and use your last roll to move": the fee, and the turn goes on
            owed = facts.rules.payable(fee.value, bank.money(facts.gid)[pid])
            if owed:
                bank.add_entry(db, facts.gid, move, pid, BANK, owed, EntryKind.JAIL,
                               "jail fee", source, space=facts.pot_space("jail"))
        return bank.move_view(move, facts)


def jailed(bank: Journal, db: sqlite3.Connection, facts: Facts, pid: int, in_jail: bool, why: str,
           source: str, request_id: str | None, data: Mapping[str, Any]) -> int:
    """Write a player's way into or out of Jail (their tries count from here)."""
    mark = db.execute("SELECT COALESCE(MAX(id), 0) FROM outcomes WHERE game_id = ?",
                      (facts.gid,)).fetchone()[0]
    return bank.add_move(db, facts.gid, MoveKind.JAILED, player=pid,
                         data={**data, "in": in_jail, "why": why, "mark": mark},
                         source=source, request_id=request_id)


def _fee_text(move: MoveView, facts: Facts) -> str | Said:
    who, paid = facts.name(move.player_id), sum(e.amount for e in move.entries)
    if move.data.get("frees"):
        return say("{name} paid the jail fee: {coins} and is out of Jail", name=who,
                   coins=paid)
    return say("{name} paid the jail fee: {coins}", name=who, coins=paid)


def _jailed_text(move: MoveView, facts: Facts) -> Said:
    """A player into Jail (and whose turn it is then) or out of it (and what they paid)."""
    data = move.data
    who, paid = facts.name(move.player_id), sum(e.amount for e in move.entries)
    why = Said(data["why"]) if data.get("why") else None  # a few English words, kept in data
    if data.get("in"):
        after = facts.name(data["current_after"]) \
            if data.get("current_after") is not None else None
        if why is not None and after is not None:
            return say("{name} goes to Jail ({why}); {next}'s turn", name=who, why=why,
                       next=after)
        if why is not None:
            return say("{name} goes to Jail ({why})", name=who, why=why)
        if after is not None:
            return say("{name} goes to Jail; {next}'s turn", name=who, next=after)
        return say("{name} goes to Jail", name=who)
    if why is not None and paid:
        return say("{name} is out of Jail ({why}), paid {coins}", name=who, why=why,
                   coins=paid)
    if why is not None:
        return say("{name} is out of Jail ({why})", name=who, why=why)
    if paid:
        return say("{name} is out of Jail, paid {coins}", name=who, coins=paid)
    return say("{name} is out of Jail", name=who)


def _read_jailed(db: sqlite3.Connection, facts: Facts) -> None:
    """Who is in Jail: each player's latest move into or out of it (a fee paid frees; a roll
    for a 6 frees when it says so), and the move that sent them. Only each player's latest
    two are read (SQLite walks the rest in C): a game of many trips to Jail reads no more in
    Python than a game of one."""
    live = "NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)"
    for row in db.execute(
            "SELECT id, player_id, kind, data FROM moves WHERE id IN (SELECT MAX(id) FROM"
            " moves m INDEXED BY moves_by_kind WHERE game_id = ? AND kind IN (?, ?, ?) AND"
            f" {live} GROUP BY player_id)",
            (facts.gid, MoveKind.JAILED.value, MoveKind.JAIL.value, MoveKind.JAIL_TRY.value)):
        data = json.loads(row["data"])
        if row["kind"] == MoveKind.JAIL.value or data.get("out") or data.get("in") is False:
            continue
        sent = row["id"]
        if row["kind"] == MoveKind.JAIL_TRY.value:  # still in after a miss: who sent them
            sent = db.execute(f"SELECT id, data FROM moves m INDEXED BY moves_by_kind WHERE"
                              f" game_id = ? AND kind = ? AND player_id = ? AND id < ? AND"
                              f" {live} ORDER BY id DESC LIMIT 1",
                              (facts.gid, MoveKind.JAILED.value, row["player_id"], row["id"])
                              ).fetchone()
            data, sent = json.loads(sent["data"]), sent["id"]
        facts.jailed[row["player_id"]] = data.get("mark", 0)
        facts.jailed_by[row["player_id"]] = sent


def unassign(db: sqlite3.Connection, gid: int, data: Mapping[str, Any]) -> None:
    """Undo of a move an outcome made (sent to Jail, let out, a contest's roll): the outcome
    is unassigned again, like a block outcome's coins, so its try or doubles no longer
    count."""
    if data.get("outcome") is not None:
        db.execute("UPDATE outcomes SET player_id = NULL WHERE id = ?", (data["outcome"],))


def _jailed_undone(db: sqlite3.Connection, gid: int, data: Mapping[str, Any]) -> None:
    unassign(db, gid, data)
    turn.give_back(db, gid, data)


def _jailed_redone(db: sqlite3.Connection, facts: Facts, target: MoveView,
                   data: Mapping[str, Any]) -> None:
    turn.pass_again(db, facts, data)
    if data.get("outcome") is not None:
        db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?",
                   (target.player_id, data["outcome"]))


def _try_text(move: MoveView, facts: Facts) -> Said:
    """"Luigi rolled a 6: out of Jail (try 2 of 3)", "Luigi missed a 6 (try 1 of 3): stays in
    Jail; Peach's turn"."""
    data, who = move.data, facts.name(move.player_id)
    n, of = data.get("try", 1), data.get("tries", 1)
    after = data.get("current_after")
    if data.get("six"):
        return say("{name} rolled a 6: out of Jail (try {n} of {tries})", name=who, n=n,
                   tries=of)
    if data.get("last") == JailLast.PAY.value:
        return say("{name} missed a 6 (try {n} of {tries}): pays {coins} and moves out of Jail",
                   name=who, n=n, tries=of, coins=sum(e.amount for e in move.entries))
    if data.get("last") == JailLast.FREE.value:
        if after is None:
            return say("{name} missed a 6 (try {n} of {tries}): leaves Jail for free and moves "
                       "next turn", name=who, n=n, tries=of)
        return say("{name} missed a 6 (try {n} of {tries}): leaves Jail for free and moves "
                   "next turn; {next}'s turn", name=who, n=n, tries=of, next=facts.name(after))
    if after is None:
        return say("{name} missed a 6 (try {n} of {tries}): stays in Jail", name=who, n=n,
                   tries=of)
    return say("{name} missed a 6 (try {n} of {tries}): stays in Jail; {next}'s turn", name=who,
               n=n, tries=of, next=facts.name(after))


def _whose(data: Mapping[str, Any]) -> list[Fact]:
    """The turn, read when the move was about the current player (no player named)."""
    return [TURN] if data.get("player") is None else []


def _fee_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """The fee frees a player in Jail (where payments are capped, only one who has it)."""
    pid = row["player_id"]
    return touch(changes=[in_jail(pid)],
                 reads=[in_jail(pid), *capped(facts, pid), *_whose(data)])


def _try_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A roll for a 6 counts among the player's tries (and may free them, pay the fee, pass
    the turn)."""
    pid = row["player_id"]
    return touch(changes=[in_jail(pid), *turn.passes(data)],
                 reads=[in_jail(pid), *capped(facts, pid), *_whose(data), *turn.passes(data)])


def _jailed_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """Into Jail or out of it (by the banker, or an outcome on the player's turn), passing the
    turn when it was theirs."""
    pid = row["player_id"]
    changes, reads = drawn(row, data)
    token = [position(pid)] if data.get("in") else []
    if data.get("banana") is not None:  # a token stopped on a Banana on Go to Jail
        token.append(banana(data["banana"]))
    return touch(changes=[in_jail(pid), *turn.passes(data), *changes, *token],
                 reads=[in_jail(pid), *_whose(data), *turn.passes(data), *reads, *token])


def _jailed(facts: Facts, args: Mapping[str, Any]) -> bool | None:
    """Whether the player a request names (else the current one) is in Jail (None: no
    player of this game: the write refuses it)."""
    player = args.get("player")
    player = facts.current if player is None else player
    return None if player not in facts.ids else player in facts.jailed


def _jail_flow(facts: Facts, turn: Callable[[], Turn], args: Mapping[str, Any]) -> str | None:
    """The fee and a Get Out of Jail Free card are for the start of the jailed player's turn;
    going to Jail, their turn. A request the write refuses anyway (the fee for a player not
    in Jail, Jail for one in it) has no moment to wait for: the write says why."""
    way, jailed = args.get("in_jail", PAY), _jailed(facts, args)
    if way is True:
        return None if jailed else "go_to_jail"
    if not jailed:
        return None
    return "jail" if way == PAY else "jail_free"


def _roll_flow(facts: Facts, turn: Callable[[], Turn], args: Mapping[str, Any]) -> str | None:
    """A roll for a 6 at the start of the jailed player's turn (one not in Jail: the write
    says so)."""
    return "roll_from_jail" if _jailed(facts, args) else None


WRITES = (jail, set_jail, roll_from_jail)
ACTIONS = (
    Action("jail", pay_or_go, route="POST /api/jail", kind=MoveKind.JAIL,
           flow=Flow(_jail_flow, names=("jail", "go_to_jail", "jail_free")), answers="Jail",
           fields=(Field("player", PLAYER, "default: the current player"),
                   Field("in_jail", FLAG, "true: goes to Jail (a Go to Jail space, a card); "
                         "false: leaves it without paying (a Get Out of Jail Free card); left "
                         "out: pays the jail fee and leaves Jail")),
           doc="The jail fee, paid to the Bank to leave Jail; or into Jail, or out of it "
               "without paying. Sending the current player passes the turn in the same "
               "move."),
    Action("roll_from_jail", roll_from_jail, route="POST /api/jail/roll", event="jail_roll",
           kind=MoveKind.JAIL_TRY, flow=Flow(_roll_flow, names=("roll_from_jail",)),
           fields=(Field("player", PLAYER, "default: the current player"),
                   Field("six", FLAG, "whether they rolled a 6", required=True)),
           doc="A player in Jail rolled the table's die for a 6 (Celebration, Gamer, Mario "
               "Kart): out with a 6; a miss ends the turn; the last miss is the edition's way "
               "out."),
)
"""The jail's requests."""

MOVES = (Move(MoveKind.JAIL, _fee_text, redoable=True, touches=_fee_touches),
         Move(MoveKind.JAIL_TRY, _try_text, redoable=True, undone=turn.give_back,
              redone=lambda db, facts, target, data: turn.pass_again(db, facts, data),
              touches=_try_touches),
         Move(MoveKind.JAILED, _jailed_text, redoable=True, read=_read_jailed,
              undone=_jailed_undone, redone=_jailed_redone, touches=_jailed_touches))
