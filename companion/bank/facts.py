"""A game as its journal left it, and the journal in words: what the bank's writes and views
share (who is out, points and worms typed in, the end; the next seat; a move as a sentence)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.bank.contests import Contests
from companion.core.editions.ruleset import Ruleset
from companion.core.editions.scoring import Seat
from companion.core.ledger import BANK, THE_BANK, MoveKind, and_joined
from companion.core.state import MoveView
from companion.exc import Refused
from companion.i18n.said import Said, say, say_n, stored

FACTS = (MoveKind.BANKRUPTCY, MoveKind.POINTS, MoveKind.WORMS, MoveKind.END,
         MoveKind.BOWSER_WINS)
JAIL_MOVES = (MoveKind.JAILED, MoveKind.JAIL)
"""Moves that put a player in Jail or let them out (a fee paid in Jail frees; one paid
outside leaves them out): each player's latest one says where they are."""
"""Moves that change what a player or the game is, besides coins."""


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    game_id: int
    seat: int
    name: str
    colour: str
    card_uid: str | None
    characters: tuple[str, ...] = ()


@dataclass
class Facts:
    """One game as its moves left it, read inside one transaction or snapshot."""

    gid: int
    rules: Ruleset
    players: list[Player]
    current: int | None
    options: dict[str, Any]
    out: dict[int, int] = field(default_factory=dict)
    """Player -> the order they went out in (1 = first)."""
    points: dict[int, tuple[int, int]] = field(default_factory=dict)
    worms: dict[int, int] = field(default_factory=dict)
    jailed: dict[int, int] = field(default_factory=dict)
    """Player in Jail -> the last outcome id when they went in (their tries come after it)."""
    ending: sqlite3.Row | None = None
    contests: Contests | None = None
    """Gamer, Mario Kart: the Boss fights or Races so far, and the cards won."""

    @property
    def ids(self) -> list[int]:
        return [p.id for p in self.players]

    @property
    def active(self) -> list[int]:
        return [p.id for p in self.players if p.id not in self.out]

    def name(self, party: object) -> str | Said:
        if party == BANK:
            return THE_BANK
        for p in self.players:
            if p.id == party:
                return p.name
        return say("player {id}", id=str(party))

    def seats(self, money: Mapping[int, int]) -> list[Seat]:
        """What the standings need: the points typed in (Property cards) and, counted by the
        companion, the Boss or Grand Prix cards each player won."""
        won = self.contests.won if self.contests is not None else {}
        seats = []
        for p in self.players:
            points, cards = self.points.get(p.id, (0, 0))
            cards_won = won.get(p.id, ())
            seats.append(Seat(p.id, money.get(p.id, 0), self.out.get(p.id),
                              points + sum(c.points for c in cards_won),
                              cards + len(cards_won), self.worms.get(p.id, 0)))
        return seats


def or_current(facts: Facts, player: object) -> object:
    """``player``, or the current player when it is left out (None)."""
    if player is not None:
        return player
    if facts.current is None:
        raise Refused(say("nobody is current: make a player current first"))
    return facts.current


def next_seat(facts: Facts, after: int | None) -> int:
    """The next player in seat order still in the game (the first if ``after`` is None)."""
    ids = facts.ids
    start = ids.index(after) + 1 if after in ids else 0
    for i in range(len(ids)):
        candidate = ids[(start + i) % len(ids)]
        if candidate not in facts.out:
            return candidate
    raise Refused(say("nobody is left in the game"))


def move_text(move: MoveView, facts: Facts) -> str | Said:
    """A move in words, with names."""
    who = facts.name(move.player_id)
    data = move.data
    coins = sum(e.amount for e in move.entries)
    kind = move.kind
    text: str | Said
    if kind is MoveKind.OPENING:
        return say_n("Everyone starts with {n} coin", "Everyone starts with {n} coins",
                     data.get("coins", coins))
    if kind is MoveKind.TRANSFER and move.entries:
        e = move.entries[0]
        payer, payee = facts.name(e.payer), facts.name(e.payee)
        if data.get("asked", e.amount) > e.amount:
            text = say("{payer} pays {payee} {amount} of {asked}", payer=payer, payee=payee,
                       amount=e.amount, asked=data["asked"])
        else:
            text = say("{payer} pays {payee} {amount}", payer=payer, payee=payee,
                       amount=e.amount)
        return say("{text} · {note}", text=text, note=move.note) if move.note else text
    if kind is MoveKind.TRANSFER:
        found = stored(data, "message") or move.note
        return found if found else say("no coins moved")
    if kind is MoveKind.BLOCK and move.entries:
        e = move.entries[0]
        payer_is_bank = e.payer == BANK
        whose = facts.name(e.payee if payer_is_bank else e.payer)
        note = stored(data, "note") or e.note  # its Said (in any language) when kept
        if note:
            return say("{name}: {note}", name=whose, note=note)
        if payer_is_bank:
            return say("{name} +{amount}", name=whose, amount=e.amount)
        return say("{name} -{amount}", name=whose, amount=e.amount)
    if kind is MoveKind.TURN:
        if data.get("to") is None:
            return say("Nobody's turn (was {name})", name=facts.name(data.get("from")))
        if data.get("from") is None:
            return say("{name}'s turn", name=facts.name(data.get("to")))
        return say("Turn: {before} -> {after}", before=facts.name(data.get("from")),
                   after=facts.name(data.get("to")))
    if kind is MoveKind.PASS_GO:
        return say("{name} passed GO: +{coins}", name=who, coins=coins)
    if kind is MoveKind.JAIL:
        if data.get("frees"):
            return say("{name} paid the jail fee: {coins} and is out of Jail", name=who,
                       coins=coins)
        return say("{name} paid the jail fee: {coins}", name=who, coins=coins)
    if kind is MoveKind.JAILED:
        return _jailed_text(move, facts, who, coins)
    if kind in (MoveKind.DROP, MoveKind.SCOOP):
        space = _space(data.get("space"))
        if not move.entries:
            return stored(data, "message") or say("{name}: no coins moved", name=who)
        if kind is MoveKind.SCOOP:
            return say_n("{name} scoops up {n} coin from {space}",
                         "{name} scoops up {n} coins from {space}", coins, name=who,
                         space=space)
        asked = data.get("asked", coins)
        if asked > coins:
            return say_n("{name} drops {n} coin on {space} (had only {n} of {asked})",
                         "{name} drops {n} coins on {space} (had only {n} of {asked})", coins,
                         name=who, space=space, asked=asked)
        return say_n("{name} drops {n} coin on {space}", "{name} drops {n} coins on {space}",
                     coins, name=who, space=space)
    if kind is MoveKind.ABILITY:
        return _ability_text(move, facts)
    if kind is MoveKind.CONTEST:
        text = _contest_text(move, facts)
        if not move.ends:
            return text
    elif kind is MoveKind.TOLL:
        names = tuple(facts.name(e.payer) for e in move.entries)
        each = move.entries[0].amount if move.entries else 0
        if len(move.entries) == 1:
            return say_n("Bowser's toll: {names} pays {n} coin",
                         "Bowser's toll: {names} pays {n} coins", each, names=names)
        return say_n("Bowser's toll: {names} each pay {n} coin",
                     "Bowser's toll: {names} each pay {n} coins", each, names=names)
    elif kind is MoveKind.BANKRUPTCY:
        text = _bankrupt_text(move, facts, who)
    elif kind is MoveKind.POINTS:
        text = say("{name}: {points} points, {cards} cards", name=who, points=data["points"],
                   cards=data["cards"])
    elif kind is MoveKind.WORMS:
        text = say_n("{name} has found {n} worm", "{name} has found {n} worms", data["found"],
                     name=who)
    elif kind is MoveKind.END:
        text = say("The final score")
    elif kind is MoveKind.BOWSER_WINS:
        return say("Every deed is on its Game Over side: Bowser wins, everyone loses")
    elif kind is MoveKind.UNDO:
        return move.note[:1].upper() + move.note[1:] if move.note else say("Undo")  # _move_view
    else:
        text = move.note or kind.value
    if move.ends:
        won = [facts.name(p) for p in data.get("winners", ())]
        names = and_joined(won)
        if names is None:
            return say("{text}: nobody wins", text=text)
        return say_n("{text}: {names} wins!", "{text}: {names} win!", len(won), text=text,
                     names=names)
    return text


def _space(name: object) -> str | Said:
    """A board space in words: the edition's spaces are in the catalogs (one typed at the
    table is not, and stays as typed)."""
    return Said(name) if isinstance(name, str) and name else ""


def _jailed_text(move: MoveView, facts: Facts, who: str | Said, coins: int) -> Said:
    """A player into Jail (and whose turn it is then) or out of it (and what they paid)."""
    data = move.data
    why = Said(data["why"]) if data.get("why") else None  # a few English words, kept in data
    if data.get("in"):
        turn = facts.name(data["current_after"]) \
            if data.get("current_after") is not None else None
        if why is not None and turn is not None:
            return say("{name} goes to Jail ({why}); {next}'s turn", name=who, why=why,
                       next=turn)
        if why is not None:
            return say("{name} goes to Jail ({why})", name=who, why=why)
        if turn is not None:
            return say("{name} goes to Jail; {next}'s turn", name=who, next=turn)
        return say("{name} goes to Jail", name=who)
    if why is not None and coins:
        return say("{name} is out of Jail ({why}), paid {coins}", name=who, why=why,
                   coins=coins)
    if why is not None:
        return say("{name} is out of Jail ({why})", name=who, why=why)
    if coins:
        return say("{name} is out of Jail, paid {coins}", name=who, coins=coins)
    return say("{name} is out of Jail", name=who)


def _bankrupt_text(move: MoveView, facts: Facts, who: str | Said) -> Said:
    """"Luigi is bankrupt to Mario: 4 coins to Mario (Bob gives back 6)"."""
    data = move.data
    creditor = facts.name(data.get("creditor"))
    left = data.get("coins", 0)
    back = tuple(say("{name} gives back {coins}", name=facts.name(p), coins=n)
                 for p, n in data.get("given_back", ()) if p != BANK)
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
                             coins=e.amount, space=_space(e.space)))
        elif e.space is not None:
            parts.append(say("scoops {coins} from {space}", coins=e.amount,
                             space=_space(e.space)))
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


def _contest_text(move: MoveView, facts: Facts) -> str | Said:
    """A step of a Boss fight or a Race in words."""
    data, who = move.data, facts.name(move.player_id)
    card = move.note.split(":")[0].removeprefix("rematch of ")
    paid = sum(e.amount for e in move.entries if e.payer != BANK)
    got = sum(e.amount for e in move.entries if e.payer == BANK)
    action = data.get("action")
    if action == "open":
        return _opened_text(data, who, card)
    if action == "fight":
        return say("{name} fights {card} (pays {coins})", name=who, card=card, coins=paid) \
            if paid else say("{name} fights {card}", name=who, card=card)
    if action == "pass":
        return say("{name} passes on {card}", name=who, card=card)
    if action == "enter":
        return say("{name} enters {card} (pays {coins})", name=who, card=card, coins=paid) \
            if paid else say("{name} enters {card}", name=who, card=card)
    if action == "start":
        return say("{card}: the race starts; prizes {coins}", card=card, coins=got) if got \
            else say("{card}: the race starts", card=card)
    if action == "roll":
        prizes = tuple(say("{name} +{coins}", name=facts.name(e.payee), coins=e.amount)
                       for e in move.entries)
        if prizes:
            return say("{name} rolls {roll} ({card}): {prizes}", name=who,
                       roll=data.get("roll"), card=card, prizes=prizes)
        return say("{name} rolls {roll} ({card})", name=who, roll=data.get("roll"), card=card)
    if action == "close":
        return say("{card} is done", card=card)
    return move.note or say("contest")


def _opened_text(data: Mapping[str, Any], who: str | Said, card: str) -> Said:
    """A contest card flipped: the fight or race opens (its rematch, or the final one)."""
    fight = data.get("kind") == "boss"
    if data.get("rematch"):
        return say("{name} flips the rematch of {card}: the fight opens", name=who, card=card) \
            if fight else say("{name} flips the rematch of {card}: the race opens", name=who,
                              card=card)
    if data.get("final"):
        return say("{name} flips {card}: the fight opens (the final one)", name=who,
                   card=card) if fight else \
            say("{name} flips {card}: the race opens (the final one)", name=who, card=card)
    return say("{name} flips {card}: the fight opens", name=who, card=card) if fight else \
        say("{name} flips {card}: the race opens", name=who, card=card)
