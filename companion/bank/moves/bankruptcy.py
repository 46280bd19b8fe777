"""Bankruptcy: what a player has left goes to their creditor, coins paid without being there go
back, and the player is out; the last one left wins."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank.facts import Facts, next_seat
from companion.bank.kinds import Move
from companion.bank.moves import ending, turn
from companion.bank.touch import Touch, coins, out, touch
from companion.core.actions import ID as PLAYER
from companion.core.actions import PARTY, Action, Field
from companion.core.editions.ruleset import Debt
from companion.core.ledger import (
    BANK,
    EntryKind,
    MoveKind,
    Party,
    check_source,
    overdraft_sources,
)
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal


def bankruptcy(bank: Journal, player: object, creditor: object, *, source: str = "",
               request_id: str | None = None, game_id: int | None = None) -> MoveView:
    """The banker declares ``player`` bankrupt to ``creditor`` (a player or the Bank):
    what they have left goes to the creditor and they are out; the last player left wins.
    A player below zero had paid coins they did not have: those go back from whoever got
    them (:func:`companion.core.ledger.overdraft`), so nobody keeps coins that never
    were."""
    source = check_source(source)
    with bank.write() as db:
        replay = bank.replay(request_id, MoveKind.BANKRUPTCY, game_id, player=player,
                             creditor=creditor)
        if replay is not None:
            return bank.move_view(replay["id"])
        facts = bank.open_facts(game_id)
        if facts.rules.debt is not Debt.BANKRUPTCY:
            raise Refused(say("nobody goes bankrupt in {edition}: a player who can't pay "
                              "pays what they have", edition=Said(facts.rules.name)))
        pid = bank.in_game(facts, player)
        to = bank.party_in_game(facts, creditor, "creditor")
        if to == pid:
            raise Refused(say("a player cannot be bankrupt to themselves"))
        money = bank.money(facts.gid)
        left = money[pid]
        # A balance below zero: what was paid without being there goes back to whoever got
        # it (newest payments first; the Bank, or a player who is out, writes it off; a pile
        # gives back what it still holds: the Free Parking pot's fees).
        sources = overdraft_sources(bank.journal(facts.gid), pid) if left < 0 else []
        piles = bank.piles(facts.gid)
        from_piles: list[tuple[str, int]] = []
        back: list[tuple[Party, int]] = []
        for payee, amount, space in sources:
            taken = 0
            if space is not None:
                taken = min(amount, piles.get(space, 0))
                if taken:
                    piles[space] -= taken
                    from_piles.append((space, taken))
            if amount > taken:
                back.append((BANK if payee == BANK or payee in facts.out else payee,
                             amount - taken))
        facts.out[pid] = len(facts.out) + 1
        after = facts.current
        if facts.current == pid:  # the turn goes on to the next player still in it
            after = next_seat(facts, pid)
        remaining = facts.active
        data: dict[str, Any] = {"player": player, "creditor": creditor,
                                "coins": max(left, 0), "given_back": back,
                                **({"piles_back": from_piles} if from_piles else {}),
                                "current_before": facts.current, "current_after": after}
        money = {**money, pid: 0}  # settled: the creditor gets exactly what there was
        if to != BANK:
            money[to] += max(left, 0)
        for payee, amount in back:
            if payee != BANK:
                money[payee] -= amount
        ends = len(remaining) <= 1
        if ends:
            data.update(ending.record(bank, facts, money, remaining))
        note = f"bankrupt to {facts.name(to)}"
        move = bank.add_move(db, facts.gid, MoveKind.BANKRUPTCY, player=pid, data=data,
                             note=note, source=source, ends=ends,
                             request_id=request_id)
        if left > 0:
            bank.add_entry(db, facts.gid, move, pid, to, left, EntryKind.BANKRUPTCY,
                           f"what {facts.name(pid)} had left", source)
        for payee, amount in back:
            note = (f"{facts.name(pid)} could not pay it" if payee == BANK else
                    f"{facts.name(payee)} gives back what {facts.name(pid)} did not have")
            bank.add_entry(db, facts.gid, move, payee, pid, amount,
                           EntryKind.BANKRUPTCY, note, source)
        for space, amount in from_piles:
            bank.add_entry(db, facts.gid, move, BANK, pid, amount, EntryKind.BANKRUPTCY,
                           f"{space} gives back what {facts.name(pid)} did not have", source,
                           space=space)
        if after != facts.current:
            db.execute("UPDATE games SET current_player = ? WHERE id = ?", (after, facts.gid))
        return bank.move_view(move)


def _bankrupt_text(move: MoveView, facts: Facts) -> Said:
    """"Luigi is bankrupt to Mario: 4 coins to Mario (Bob gives back 6)"."""
    data, who = move.data, facts.name(move.player_id)
    creditor = facts.name(data.get("creditor"))
    left = data.get("coins", 0)
    back = tuple(say("{name} gives back {coins}", name=facts.name(p), coins=n)
                 for p, n in data.get("given_back", ()) if p != BANK) + tuple(
        say("{name} gives back {coins}", name=Said(space), coins=n)
        for space, n in data.get("piles_back", ()))
    if left > 0 and back:
        return say_n("{name} is bankrupt to {creditor}: {n} coin to {creditor} ({back})",
                     "{name} is bankrupt to {creditor}: {n} coins to {creditor} ({back})",
                     left, name=who, creditor=creditor, back=back)
    if left > 0:
        return say_n("{name} is bankrupt to {creditor}: {n} coin to {creditor}",
                     "{name} is bankrupt to {creditor}: {n} coins to {creditor}", left,
                     name=who, creditor=creditor)
    if back:
        return say("{name} is bankrupt to {creditor} ({back})", name=who, creditor=creditor,
                   back=back)
    return say("{name} is bankrupt to {creditor}", name=who, creditor=creditor)


def _out(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> None:
    facts.out[row["player_id"]] = len(facts.out) + 1


def _bankrupt_touches(facts: Facts, row: sqlite3.Row, data: Mapping[str, Any]) -> Touch:
    """Out of the game with everything they had (and what they paid without having it back
    from whoever got it: their balance says how much); the last one left wins; the turn
    passes on when it was theirs."""
    pid = row["player_id"]
    return touch(changes=[out(pid), *turn.passes(data)],
                 reads=[coins(pid), out(None), *turn.passes(data)])


WRITES = (bankruptcy,)
ACTIONS = (
    Action("bankruptcy", bankruptcy, route="POST /api/bankruptcy", ends=True,
           kind=MoveKind.BANKRUPTCY,
           fields=(Field("player", PLAYER, required=True),
                   Field("creditor", PARTY, "whom they owe: a player id or \"bank\"",
                         required=say("creditor is required (a player id or \"bank\")"))),
           doc="The banker declares a player bankrupt to their creditor: what they have left "
               "goes there, coins paid without having them go back, and they are out (the "
               "last player left wins)."),
)
"""The bankruptcy's request."""

MOVES = (Move(MoveKind.BANKRUPTCY, _bankrupt_text, fold=_out, ends=True, own_spaces=True,
              undone=turn.give_back, touches=_bankrupt_touches),)
