"""Who holds each Property's deed (Gamer, Mario Kart, on the described board): bought at the
price on the space or won at auction (paid to the Bank), traded, or sold back to the Bank; one
move each. The final score and a rent's owner are read from it.

"Want to buy it? Pay the price on the space, and take the Title Deed card." "The highest bidder
wins the auction, and payment goes to the Bank." "At any time on your turn, you may offer to
buy, sell, or trade Property with other players."
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import turns
from companion.bank.facts import Facts, space_name
from companion.bank.kinds import Move
from companion.bank.ring import ring_of
from companion.bank.touch import Touch, capped, deed, touch
from companion.core.actions import ID as PLAYER
from companion.core.actions import SPACE_NUMBER, Action, Field, Flow
from companion.core.board_ring import MAX_DEED_POINTS, Effect, Ring
from companion.core.flow import Turn
from companion.core.ledger import BANK, EntryKind, MoveKind, check_source
from companion.core.state import MoveView
from companion.exc import AgainstTheRules, Refused, shown
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def hold_deed(bank: Journal, space: object, player: object, *, price: object = None,
              source: str = "", request_id: str | None = None,
              game_id: int | None = None) -> MoveView:
    """``player`` takes the deed of Property ``space`` (a space's number on the described
    board); ``price`` paid to the Bank with it (bought, or the winning bid of an auction),
    else none (a trade: its coins are a payment of their own). ``player`` None: the deed goes
    back to the Bank."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.DEED, game_id)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        ring = ring_of(bank, facts)
        if not isinstance(space, int) or isinstance(space, bool) or not 0 <= space < len(ring) \
                or ring.effect(space) is not Effect.PROPERTY:
            raise Refused(say("space must be the number of a Property on the board, got {value}",
                              value=shown(space)))
        label = ring.label(space)
        pid = None if player is None else bank.in_game(facts, player)
        holder = facts.holders.get(space)
        if pid == holder:
            raise Refused(say("{space}'s deed is {name}'s already", space=space_name(label),
                              name=facts.name(pid)) if pid is not None else
                          say("{space}'s deed is the Bank's already", space=space_name(label)))
        paid = 0
        if price is not None:
            if pid is None or holder is not None:
                raise Refused(say("a price is paid for a deed the Bank holds, by a player"))
            _where_landed(bank, facts, ring, space)
            if not isinstance(price, int) or isinstance(price, bool) or \
                    not 0 <= price <= MAX_DEED_POINTS:
                raise Refused(say("price must be a whole number from 0 to {most}",
                                  most=MAX_DEED_POINTS))
            has = bank.money(facts.gid)[pid]
            if has < price:  # "Don't want to buy it or can't afford it? ... auction"
                raise Refused(say("{name} has {coins} coins and can't pay {price}: the "
                                  "Property goes up for auction", name=facts.name(pid),
                                  coins=has, price=price))
            paid = price
        move = bank.add_move(db, facts.gid, MoveKind.DEED, player=pid,
                             data={"space": space, "label": label, "player": pid,
                                   "from": holder, "price": price}, source=source,
                             request_id=request_id)
        if paid:
            assert pid is not None
            bank.add_entry(db, facts.gid, move, pid, BANK, paid, EntryKind.TRANSFER,
                           f"bought {label}", source)
        return bank.move_view(move, facts)


def _where_landed(bank: Journal, facts: Facts, ring: Ring, space: int) -> None:
    """A deed bought at a price (or won at its auction) is the Property the current player
    landed on ("When you land on a Property that no one owns, you must buy it or auction
    it"), where the companion knows where their token landed this turn."""
    landed, _rolled = turns.landed(bank.db, facts)
    if landed is None or ring.at(landed) == space:
        return
    who = facts.name(facts.current)
    bank.overrule(AgainstTheRules(
        say("{name} landed on {landed}: the Property for sale now is that one, not {space}",
            name=who, landed=space_name(ring.label(ring.at(landed))),
            space=space_name(ring.label(space))),
        "buy_where_landed", facts.rules.lines.get("buy_where_landed", ())))


def _read_holders(db: sqlite3.Connection, facts: Facts) -> None:
    """Who holds each deed: the latest move of it, a deed's or a sale's (a game has few)."""
    board = facts.rules.board
    if board is None or not board.kinds:
        return
    for row in db.execute(
            "SELECT kind, data FROM moves m INDEXED BY moves_by_kind WHERE game_id = ? AND"
            " kind IN (?, ?) AND NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)"
            " ORDER BY id", (facts.gid, MoveKind.DEED.value, MoveKind.SALE.value)):
        data = json.loads(row["data"])
        if row["kind"] == MoveKind.SALE.value:  # sold back to the Bank to pay
            for space in data.get("deeds", ()):
                facts.holders.pop(int(space), None)
        elif data["player"] is None:
            facts.holders.pop(int(data["space"]), None)
        else:
            facts.holders[int(data["space"])] = int(data["player"])


def _deed_text(move: MoveView, facts: Facts) -> Said:
    data = move.data
    space = space_name(data.get("label"))
    if data.get("player") is None:
        return say("{space}'s deed goes back to the Bank", space=space)
    who = facts.name(data["player"])
    if data.get("price") is not None:
        return say("{name} buys {space} for {price}", name=who, space=space,
                   price=data["price"])
    if data.get("from") is not None:
        return say("{space}'s deed goes from {from_name} to {name}", space=space,
                   from_name=facts.name(data["from"]), name=who)
    return say("{name} takes {space}'s deed", name=who, space=space)


def _deed_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A deed changes hands: judged on who held it, and on what the buyer had."""
    buyer = [] if data.get("price") is None else capped(facts, data.get("player"))
    return touch(changes=[deed(data.get("space"))], reads=[deed(data.get("space")), *buyer])


def _deed_flow(facts: Facts, turn: Callable[[], Turn], args: Mapping[str, Any]) -> str | None:
    """Bought (a price: the lander, or an auction's winner), traded between players ("At any
    time on your turn"), or back to the Bank (a sale to pay a debt: any time)."""
    if args.get("player") is None:
        return None
    if args.get("price") is not None:
        return "buy"
    return "trade"


def _sides(facts: Facts, args: Mapping[str, Any]) -> tuple[object, ...]:
    """A trade's two sides (the holder and the taker); a purchase's buyer."""
    space = args.get("space")
    holder = facts.holders.get(space) if isinstance(space, int) else None
    return tuple(p for p in (holder, args.get("player")) if p is not None)


WRITES = (hold_deed,)
ACTIONS = (
    Action("hold_deed", hold_deed, route="POST /api/deeds", event="deed", kind=MoveKind.DEED,
           flow=Flow(_deed_flow, actors=_sides, names=("buy", "trade")),
           fields=(Field("space", SPACE_NUMBER, "a Property of the described board",
                         required=True),
                   Field("player", {"oneOf": [PLAYER, {"type": "null"}]},
                         "the player who takes the deed; null: back to the Bank",
                         required=True),
                   Field("price", {"type": "integer", "minimum": 0}, "paid to the Bank: "
                         "bought at the price on the space, or an auction's winning bid")),
           doc="Gamer, Mario Kart on a described board: a Property's deed bought or won at "
               "auction (the price paid to the Bank), traded (no price: its coins are a "
               "payment of their own), or back to the Bank."),
)
"""The deeds' requests."""

MOVES = (Move(MoveKind.DEED, _deed_text, redoable=True, read=_read_holders, touches=_deed_touches),)
