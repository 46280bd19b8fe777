"""A game as its journal left it: what every move and view shares (who is out, in Jail, the
points and worms typed in, the end; the next seat)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.bank.contests import Contests
from companion.core.editions.house import Pot, pot_on
from companion.core.editions.ruleset import Ruleset
from companion.core.editions.scoring import Seat
from companion.core.ledger import BANK, THE_BANK
from companion.exc import Refused
from companion.i18n.said import Said, say


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
    jailed_by: dict[int, int] = field(default_factory=dict)
    """Player in Jail -> the move that sent them (their tries with the table's die follow)."""
    positions: dict[tuple[int, str | None], int] = field(default_factory=dict)
    """Gamer, Mario Kart: (player, character) -> the space that token stands on (-1: In
    Jail), once it has moved (GO before). The character is None for a player with one token;
    a player with two (a game of two) has one position per character."""
    deeds: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """Points games on a described board: player -> the Property spaces whose deeds they
    hold, as last counted."""
    holders: dict[int, int] = field(default_factory=dict)
    """Gamer, Mario Kart on a described board: a Property's space -> the player holding its
    deed (the Bank's: not there)."""
    bananas: set[int] = field(default_factory=set)
    """Mario Kart: the spaces with a Banana on them."""
    ending: sqlite3.Row | None = None
    contests: Contests | None = None
    """Gamer, Mario Kart: the Boss fights or Races so far, and the cards won."""

    @property
    def ids(self) -> list[int]:
        return [p.id for p in self.players]

    @property
    def pot(self) -> Pot | None:
        """The Free Parking pot, when this game's setup turned the house rule on."""
        return self.rules.pot if pot_on(self.options) else None

    def pot_space(self, payment: str) -> str | None:
        """Where a payment to the Bank goes instead: the pot's space while the pot is on and
        takes that payment (a fee or a tax), else None (the Bank)."""
        pot = self.pot
        return pot.space if pot is not None and pot.takes(payment) else None

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


def token_key(facts: Facts, pid: int, character: object = None) -> tuple[int, str | None]:
    """Which of a player's tokens: their only one, or (two each, a game of two) the
    character's."""
    mine = next((p.characters for p in facts.players if p.id == pid), ())
    if len(mine) < 2:
        return (pid, None)
    return (pid, character if isinstance(character, str) and character in mine else None)


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


def space_name(name: object) -> str | Said:
    """A board space in words: the edition's spaces are in the catalogs (one typed at the
    table is not, and stays as typed)."""
    return Said(name) if isinstance(name, str) and name else ""
