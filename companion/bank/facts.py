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
from companion.core.ledger import BANK, MoveKind
from companion.core.state import MoveView
from companion.exc import Refused

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

    def name(self, party: object) -> str:
        if party == BANK:
            return "the Bank"
        return next((p.name for p in self.players if p.id == party), f"player {party}")

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
        raise Refused("nobody is current: make a player current first")
    return facts.current


def next_seat(facts: Facts, after: int | None) -> int:
    """The next player in seat order still in the game (the first if ``after`` is None)."""
    ids = facts.ids
    start = ids.index(after) + 1 if after in ids else 0
    for i in range(len(ids)):
        candidate = ids[(start + i) % len(ids)]
        if candidate not in facts.out:
            return candidate
    raise Refused("nobody is left in the game")


def move_text(move: MoveView, facts: Facts) -> str:
    """A move in words, with names."""
    who = facts.name(move.player_id)
    data = move.data
    coins = sum(e.amount for e in move.entries)
    kind = move.kind
    if kind is MoveKind.OPENING:
        return f"Everyone starts with {data.get('coins', coins)} coins"
    if kind is MoveKind.TRANSFER and move.entries:
        e = move.entries[0]
        text = f"{facts.name(e.payer)} pays {facts.name(e.payee)} {e.amount}"
        if data.get("asked", e.amount) > e.amount:
            text += f" of {data['asked']}"
        return text + (f" · {move.note}" if move.note else "")
    if kind is MoveKind.TRANSFER:
        return str(data.get("message") or move.note or "no coins moved")
    if kind is MoveKind.BLOCK and move.entries:
        e = move.entries[0]
        payer_is_bank = e.payer == BANK
        whose = facts.name(e.payee if payer_is_bank else e.payer)
        return f"{whose}: {e.note}" if e.note else f"{whose} {'+' if payer_is_bank else '-'}" \
                                                   f"{e.amount}"
    if kind is MoveKind.TURN:
        if data.get("to") is None:
            return f"Nobody's turn (was {facts.name(data.get('from'))})"
        if data.get("from") is None:
            return f"{facts.name(data.get('to'))}'s turn"
        return f"Turn: {facts.name(data.get('from'))} -> {facts.name(data.get('to'))}"
    if kind is MoveKind.PASS_GO:
        return f"{who} passed GO: +{coins}"
    if kind is MoveKind.JAIL:
        return f"{who} paid the jail fee: {coins}" + (" and is out of Jail"
                                                      if data.get("frees") else "")
    if kind is MoveKind.JAILED:
        why = f" ({data['why']})" if data.get("why") else ""
        paid = f", paid {coins}" if coins else ""
        turn = f"; {facts.name(data['current_after'])}'s turn" \
            if data.get("current_after") is not None else ""
        return (f"{who} goes to Jail{why}{turn}" if data.get("in") else
                f"{who} is out of Jail{why}{paid}")
    if kind in (MoveKind.DROP, MoveKind.SCOOP):
        space = data.get("space", "")
        if not move.entries:
            return str(data.get("message") or f"{who}: no coins moved")
        verb = "drops" if kind is MoveKind.DROP else "scoops up"
        where = "on" if kind is MoveKind.DROP else "from"
        text = f"{who} {verb} {coins} coin{'s' if coins != 1 else ''} {where} {space}"
        asked = data.get("asked", coins)
        return text + (f" (had only {coins} of {asked})" if kind is MoveKind.DROP and
                       asked > coins else "")
    if kind is MoveKind.ABILITY:
        return _ability_text(move, facts)
    if kind is MoveKind.CONTEST:
        text = _contest_text(move, facts)
        if not move.ends:
            return text
    elif kind is MoveKind.TOLL:
        names = ", ".join(facts.name(e.payer) for e in move.entries)
        each = move.entries[0].amount if move.entries else 0
        verb = "pays" if len(move.entries) == 1 else "each pay"
        return f"Bowser's toll: {names} {verb} {each} coin{'s' if each != 1 else ''}"
    elif kind is MoveKind.BANKRUPTCY:
        creditor = facts.name(data.get("creditor"))
        left = data.get("coins", 0)
        text = f"{who} is bankrupt to {creditor}" + (
            f": {left} coins to {creditor}" if left > 0 else "")
        back = [f"{facts.name(p)} gives back {n}" for p, n in data.get("given_back", ())
                if p != BANK]
        if back:
            text += f" ({', '.join(back)})"
    elif kind is MoveKind.POINTS:
        text = f"{who}: {data['points']} points, {data['cards']} cards"
    elif kind is MoveKind.WORMS:
        text = f"{who} has found {data['found']} worm{'s' if data['found'] != 1 else ''}"
    elif kind is MoveKind.END:
        text = "The final score"
    elif kind is MoveKind.BOWSER_WINS:
        return "Every deed is on its Game Over side: Bowser wins, everyone loses"
    elif kind is MoveKind.UNDO:
        return move.note[:1].upper() + move.note[1:] if move.note else "Undo"  # see _move_view
    else:
        text = move.note or kind.value
    if move.ends:
        won = [facts.name(p) for p in data.get("winners", ())]
        text += f": {' and '.join(won)} win{'s' if len(won) == 1 else ''}!" if won else \
            ": nobody wins"
    return text


def _coins(n: int) -> str:
    return f"{n} coin{'s' if n != 1 else ''}"


def _ability_text(move: MoveView, facts: Facts) -> str:
    """"Mario: POW (boost): Luigi drops 2 on Thwomp, Peach drops 1 on GO"."""
    data = move.data
    who = facts.name(move.player_id)
    head = f"{who}: {data.get('name', move.note)}" + (" (boost)" if data.get("boost") else "")
    parts = []
    for e in move.entries:
        if e.space is not None and e.payee == BANK:
            parts.append(f"{facts.name(e.payer)} drops {e.amount} on {e.space}")
        elif e.space is not None:
            parts.append(f"scoops {e.amount} from {e.space}")
        elif e.payer == BANK:
            parts.append(f"collects {_coins(e.amount)}")
        else:
            parts.append(f"takes {e.amount} from {facts.name(e.payer)}")
    if not parts:
        parts.append("more spaces instead of coins" if data.get("spaces_instead") else
                     str(data.get("text") or "no coins moved"))
    return f"{head}: {', '.join(parts)}"


def _contest_text(move: MoveView, facts: Facts) -> str:
    """A step of a Boss fight or a Race in words."""
    data, who = move.data, facts.name(move.player_id)
    card = move.note.split(":")[0].removeprefix("rematch of ")
    paid = sum(e.amount for e in move.entries if e.payer != BANK)
    got = sum(e.amount for e in move.entries if e.payer == BANK)
    action = data.get("action")
    if action == "open":
        what = "the rematch of " if data.get("rematch") else ""
        kind = "fight" if data.get("kind") == "boss" else "race"
        return f"{who} flips {what}{card}: the {kind} opens" + (
            " (the final one)" if data.get("final") and not data.get("rematch") else "")
    if action == "fight":
        return f"{who} fights {card}" + (f" (pays {paid})" if paid else "")
    if action == "pass":
        return f"{who} passes on {card}"
    if action == "enter":
        return f"{who} enters {card}" + (f" (pays {paid})" if paid else "")
    if action == "start":
        return f"{card}: the race starts" + (f"; prizes {got}" if got else "")
    if action == "roll":
        text = f"{who} rolls {data.get('roll')} ({card})"
        prizes = [f"{facts.name(e.payee)} +{e.amount}" for e in move.entries]
        return text + (f": {', '.join(prizes)}" if prizes else "")
    if action == "close":
        return f"{card} is done"
    return move.note or "contest"
