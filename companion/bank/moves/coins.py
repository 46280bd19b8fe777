"""Coins between players and the Bank: a payment (capped where the edition caps them), and
passing GO."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, or_current, space_name
from companion.bank.kinds import Move
from companion.bank.moves import sales
from companion.bank.touch import TURN, Touch, capped, coins, touch
from companion.core.actions import ID as PLAYER
from companion.core.actions import PARTY, TEXT, Action, Field, Flow
from companion.core.flow import Turn
from companion.core.ledger import (
    BANK,
    MAX_AMOUNT,
    Entry,
    EntryKind,
    MoveKind,
    Party,
    Payment,
    check_amount,
    check_note,
    check_source,
)
from companion.core.state import MoveView
from companion.exc import Refused, shown
from companion.i18n.said import Said, say, say_n, stored, texts

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def pay(bank: Journal, db: sqlite3.Connection, facts: Facts, move_kind: MoveKind,
        entry_kind: EntryKind, payer: Party, payee: Party, amount: int, *, note: str,
        source: str, request_id: str | None, data: Mapping[str, Any],
        outcome_id: int | None = None, subject: int | None = None,
        sold: int = 0, space: str | None = None) -> Payment:
    """Move ``amount`` (or, where payments are capped, what the payer has); ``subject`` is
    the player the move is about (default: the payer). ``sold``: the payer first sold
    Property back to the Bank for that much, in the same move. ``space``: a payment to the
    Bank that goes on that space's pile instead (a fee into the Free Parking pot)."""
    moved = amount
    if payer != BANK:
        balance = bank.money(facts.gid)[payer] + sold  # type: ignore[index]
        moved = facts.rules.payable(amount, balance)
    who = facts.name(payer)
    message: str | Said = ""
    if moved == 0:
        message = say("{name} has no coins: nothing to pay. Hang in there!", name=who)
    elif moved < amount:
        message = say("{name} had only {moved} of {asked} coins: paid {moved}", name=who,
                      moved=moved, asked=amount)
    if subject is None and payer != BANK:
        subject = int(payer)
    # A payment that moved nothing is kept too (the history says so, and a retry of the
    # same request stays answered); undo passes over it.
    move = bank.add_move(db, facts.gid, move_kind, player=subject,
                         data={**data, "asked": amount, **texts(message=message)},
                         note=note,
                         source=source, request_id=request_id)
    if sold:
        bank.add_entry(db, facts.gid, move, BANK, payer, sold, EntryKind.SALE,
                       "Property sold back to the Bank", source)
    if moved == 0:
        return Payment(None, amount, message, sold)
    entry = bank.add_entry(db, facts.gid, move, payer, payee, moved, entry_kind, note,
                           source, outcome_id=outcome_id,
                           space=space if payee == BANK and payer != BANK else None)
    return Payment(entry, amount, message, sold)


def replayed_payment(bank: Journal, row: sqlite3.Row) -> Payment:
    entries = [e for e in bank.move_entries(row["id"]) if e.kind is not EntryKind.SALE]
    data = json.loads(row["data"])
    return Payment(entries[0] if entries else None, data["asked"], stored(data, "message"),
                   data.get("sold", 0))


def transfer(bank: Journal, payer: object, payee: object, amount: object, *, note: object = "",
             sold: object = None, deeds: object = None, reason: object = None,
             source: str = "", request_id: str | None = None,
             game_id: int | None = None) -> Payment:
    """Move coins between a player and the bank or another player. Where the edition caps
    payments, a player pays what they have ("Hang in there!").

    ``reason``: a payment the ruleset names (its ``reasons``: a tax, the Movie's Continue
    cost), its note by default; a fee or tax to the Bank goes on the Free Parking pot while
    that house rule is on.

    ``sold``: a payer who has too few coins first sells Property back to the Bank for its
    face value, typed by the table ("If you do not have enough Coins, you must sell Property
    you own back to the Bank for face value ... Then drop or give any Coins you still owe"):
    the Bank pays them that, and they pay, in one move. Where the companion knows who holds
    which deed (Gamer, Mario Kart on a described board), ``deeds`` names the Property sold
    (their deeds go back to the Bank; ``sold`` left out: the prices typed for them), and a
    payer short of coins who still holds Property sells first (:mod:`.sales`).

    ``request_id`` makes a retried request harmless: the same id returns the first one.
    """
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.SALE if deeds is not None else
                             MoveKind.TRANSFER, game_id, payer=payer, payee=payee,
                             asked=amount, note=note, **({} if sold is None else {"sold": sold}))
        if replay is not None:
            return replayed_payment(bank, replay)
        facts = bank.open_facts(game_id)
        if not facts.rules.coins:
            raise Refused(say("{edition} keeps no coins", edition=Said(facts.rules.name)))
        a = bank.party_in_game(facts, payer, "payer")
        b = bank.party_in_game(facts, payee, "payee")
        if a == b:
            raise Refused(say("the bank cannot pay itself") if a == BANK else
                          say("a player cannot pay themselves"))
        n = check_amount(amount)
        text = check_note(note)
        why = None if reason is None else facts.rules.reason(reason)
        if why is not None and not text:
            text = why.note
        held = [] if a == BANK else sales.held(facts, int(a))
        spaces = [] if deeds is None else sales.check_deeds(bank, facts, a, deeds)
        if held and sold is not None and not spaces:
            raise Refused(sales.which(bank, facts, int(a), held))
        if spaces and sold is None:
            sold = sales.face_value(bank, facts, spaces)
        sale = 0 if sold is None else _check_sold(bank, facts, a, n, sold)
        if a != BANK:
            sales.sell_first(bank, facts, int(a), n - sale, [s for s in held
                                                             if s not in spaces])
        return pay(bank, db, facts, MoveKind.SALE if spaces else MoveKind.TRANSFER,
                   EntryKind.TRANSFER, a, b, n, note=text, source=source,
                   request_id=request_id, sold=sale,
                   data={"payer": payer, "payee": payee, "note": text,
                         **({"sold": sale} if sale else {}),
                         **(sales.record(bank, facts, spaces) if spaces else {}),
                         **({"reason": why.id} if why is not None else {})},
                   space=None if why is None else facts.pot_space(why.id))


def _check_sold(bank: Journal, facts: Facts, payer: Party, amount: int, sold: object) -> int:
    """What a payer sold back to the Bank to pay ``amount``: a whole number of coins, only
    from a player who has too few."""
    if not isinstance(sold, int) or isinstance(sold, bool) or not 1 <= sold <= MAX_AMOUNT:
        raise Refused(say("sold must be the face value of the Property sold back to the Bank, "
                          "1 to {most} coins, got {value}", most=MAX_AMOUNT, value=shown(sold)))
    if payer == BANK:
        raise Refused(say("sold is for a player who sells Property to pay, not the Bank"))
    has = bank.money(facts.gid)[int(payer)]
    if has >= amount:
        raise Refused(say_n("{name} has {n} coin, enough to pay {amount}: nothing to sell",
                            "{name} has {n} coins, enough to pay {amount}: nothing to sell",
                            has, name=facts.name(payer), amount=amount))
    return sold


def pass_go(bank: Journal, player: object = None, *, source: str = "",
            request_id: str | None = None, game_id: int | None = None) -> Entry:
    """The bank pays the edition's GO salary to ``player`` (None: the current player)."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.PASS_GO, game_id, player=player)
        if replay is not None:
            return bank.move_entries(replay["id"])[0]
        facts = bank.open_facts(game_id)
        if facts.rules.pass_go is None:
            raise Refused(say("{edition} pays nothing for passing GO",
                              edition=Said(facts.rules.name)))
        pid = bank.in_game(facts, or_current(facts, player))
        paid = pay(bank, db, facts, MoveKind.PASS_GO, EntryKind.PASS_GO, BANK, pid,
                   facts.rules.pass_go.value, note="passed GO", source=source,
                   request_id=request_id, data={"player": player}, subject=pid)
        assert paid.entry is not None
        return paid.entry


def _transfer_text(move: MoveView, facts: Facts) -> str | Said:
    data = move.data
    paid = [e for e in move.entries if e.kind is not EntryKind.SALE]
    if data.get("sold"):
        then = _paid_text(move, paid[0], facts) if paid else \
            (stored(data, "message") or say("no coins moved"))
        if data.get("labels"):
            return say("{name} sells {spaces} back to the Bank for {sold}, then: {then}",
                       name=facts.name(data.get("payer")), sold=data["sold"], then=then,
                       spaces=tuple(space_name(x) for x in data["labels"]))
        return say("{name} sells Property back to the Bank for {sold}, then: {then}",
                   name=facts.name(data.get("payer")), sold=data["sold"], then=then)
    if not paid:
        found = stored(data, "message") or move.note
        return found if found else say("no coins moved")
    return _paid_text(move, paid[0], facts)


def _paid_text(move: MoveView, e: Entry, facts: Facts) -> str | Said:
    data = move.data
    payer = facts.name(e.payer)
    payee = space_name(e.space) if e.space is not None else facts.name(e.payee)
    text: str | Said
    if data.get("asked", e.amount) > e.amount:
        text = say("{payer} pays {payee} {amount} of {asked}", payer=payer, payee=payee,
                   amount=e.amount, asked=data["asked"])
    else:
        text = say("{payer} pays {payee} {amount}", payer=payer, payee=payee, amount=e.amount)
    return say("{text} · {note}", text=text, note=move.note) if move.note else text


def _pass_go_text(move: MoveView, facts: Facts) -> str | Said:
    return say("{name} passed GO: +{coins}", name=facts.name(move.player_id),
               coins=sum(e.amount for e in move.entries))


def _transfer_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """A payment changes nothing but coins; it read the payer's balance where payments are
    capped, or when Property was sold first (only a payer short of coins sells)."""
    payer = data.get("payer")
    sold = [coins(payer)] if data.get("sold") and payer != BANK else []
    return touch(reads=(*capped(facts, payer), *sold))


def _pass_go_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """The Bank pays GO: to the current player when none was named."""
    return touch(reads=[TURN] if data.get("player") is None else [])


def _payment(paid: Payment, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    """201 with the entry; 200 when the payer had nothing, so nothing moved."""
    return paid.to_json(), 201 if paid.entry is not None else 200


def _transfer_flow(facts: Facts, turn: Callable[[], Turn], args: Mapping[str, Any]) -> str:
    """A payment the ruleset names by its reason (a tax, the Continue cost) has the moment
    its rule says, any other payment none. The Movie's Continue cost of deeds just acquired
    from a bankrupt player is paid at once ("The one exception is that you can also pay the
    Continue cost when you acquire a Title Deed from a bankrupted player")."""
    reason = args.get("reason")
    if not isinstance(reason, str) or not reason.isidentifier():
        return "transfer"
    acquired = f"{reason}_acquired"
    if acquired in facts.rules.flow and args.get("payer") in turn().acquired:
        return acquired
    return reason


def _payer(facts: Facts, args: Mapping[str, Any]) -> tuple[object, ...]:
    return () if args.get("payer") == BANK else (args.get("payer"),)


WRITES = (transfer, pass_go)
ACTIONS = (
    Action("transfer", transfer, route="POST /api/transfers", answer=_payment,
           answers="Payment", kind=MoveKind.TRANSFER, flow=Flow(_transfer_flow, actors=_payer,
                                                              names=("transfer",), reasons=True),
           fields=(Field("from", PARTY, "a player id, or \"bank\"", arg="payer"),
                   Field("to", PARTY, "a player id, or \"bank\"", arg="payee"),
                   Field("amount", {"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT}),
                   Field("note", TEXT, "the banker's note (at most 200 characters)"),
                   Field("sold", {"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT},
                         "a payer short of coins first sold Property back to the Bank for "
                         "this face value"),
                   Field("deeds", {"type": "array", "items": {"type": "integer",
                                                              "minimum": 0}},
                         "on a described board: the spaces of the Property sold back (their "
                         "deeds go back to the Bank)"),
                   Field("reason", TEXT, "a payment the ruleset names (its reasons' ids: "
                         "tax, continue_cost)")),
           doc="A payment: the payer pays the payee; where the edition caps payments, what "
               "they have. 201 with the entry and asked, capped, message, sold; 200 with "
               "amount 0 when nothing moved."),
    Action("pass_go", pass_go, route="POST /api/go", event="pass GO", kind=MoveKind.PASS_GO,
           answers="Entry", flow=Flow("pass_go"),
           fields=(Field("player", PLAYER, "default: the current player"),),
           doc="The Bank pays a player the edition's GO salary."),
)
"""The payments' requests (the opening balances are the new game's)."""

MOVES = (Move(MoveKind.TRANSFER, _transfer_text, redoable=True, own_spaces=True,
              touches=_transfer_touches),
         Move(MoveKind.SALE, _transfer_text, redoable=True, own_spaces=True, touches=sales.touches),
         Move(MoveKind.PASS_GO, _pass_go_text, redoable=True, touches=_pass_go_touches))
