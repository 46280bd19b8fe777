"""Boss fights and Races as the journal left them: every contest move not undone, folded in
order into the open :class:`Fight` or :class:`Race`, the cards drawn and the cards won. A
game has at most a deck's worth of contests, so a read is bounded by the deck, not the game.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.core.editions.contests import (
    BossCard,
    ContestKind,
    Deck,
    Fight,
    PrixCard,
    Race,
    card_from_json,
)
from companion.core.ledger import MoveKind

Contest = Fight | Race


@dataclass(frozen=True, slots=True)
class WonCard:
    """A Boss or Grand Prix card a player keeps for its points."""

    number: int
    points: int


@dataclass
class Contests:
    """The contests of one game so far."""

    deck: Deck
    cards: tuple[int, ...]
    """The deck for this many players, in order."""
    current: Contest | None = None
    """The contest open now (over or not) until it is closed."""
    current_move: int | None = None
    drawn: int = 0
    """Cards flipped so far (a rematch flips none)."""
    won: dict[int, list[WonCard]] = field(default_factory=dict)
    closed: bool = False
    """The last contest is closed: the game is over."""
    ending: int | None = None
    """The move that closed the last contest (the game's end)."""

    @property
    def next_number(self) -> int | None:
        """The next card to flip (None: the deck is done)."""
        return self.cards[self.drawn] if self.drawn < len(self.cards) else None

    def holder(self, number: int) -> int | None:
        return next((p for p, cards in self.won.items() for c in cards if c.number == number),
                    None)

    @property
    def left(self) -> int:
        """Cards still to play, the open one too (0: the deck is played out)."""
        return len(self.cards) - self.drawn + (self.current is not None)

    @property
    def rematch_due(self) -> bool:
        """The final Race is over with a winner and a won card to race again for."""
        race = self.current
        return (isinstance(race, Race) and race.final and not race.rematch and race.over
                and bool(self.deck.rematch) and any(self.won.values()))


def fold(db: sqlite3.Connection, gid: int, deck: Deck, players: int) -> Contests:
    """Game ``gid``'s contests from its contest moves not undone: every step of the latest
    one, and of each earlier one only its open (a card drawn) and its close (who kept the
    card), so a read costs the same at the last card as at the first."""
    found = Contests(deck, deck.cards(players))
    live = ("FROM moves m INDEXED BY moves_by_kind WHERE game_id = ? AND kind = ? AND NOT"
            " EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)")
    kind = MoveKind.CONTEST.value
    latest = db.execute(f"SELECT MAX(id) {live} AND json_extract(data, '$.action') = 'open'",
                        (gid, kind)).fetchone()[0]
    if latest is None:
        return found
    for row in db.execute(f"SELECT id, data {live} AND (id >= ? OR json_extract(data,"
                          " '$.action') IN ('open', 'close')) ORDER BY id",
                          (gid, kind, latest)):
        data = json.loads(row["data"])
        if row["id"] >= latest:
            step(found, row["id"], data)
        elif data["action"] == "open":
            found.drawn += 0 if data.get("rematch") else 1
        elif data["action"] == "close" and data.get("winner") is not None:
            _award(found, data["winner"], data["number"], data["points"])
    return found


def step(found: Contests, move_id: int, data: Mapping[str, Any]) -> None:
    """One contest move, applied to what came before it."""
    action = data["action"]
    closes = data.get("closes")
    if action == "open" and closes is not None and closes.get("winner") is not None:
        # A rematch opened: the final Race it follows ended as it stood.
        _award(found, closes["winner"], closes["number"], closes["points"])
    if action == "open":
        kind = ContestKind(data["kind"])
        card = card_from_json(kind, data["card"],
                              bool(data.get("final")) and not data.get("rematch"))
        order = tuple(data["order"])
        if kind is ContestKind.BOSS:
            assert isinstance(card, BossCard)
            found.current = Fight.opened(card, order, data.get("final", False))
        else:
            assert isinstance(card, PrixCard)
            found.current = Race(card, order, data.get("final", False),
                                 data.get("rematch", False))
        found.current_move = move_id
        if not data.get("rematch"):
            found.drawn += 1
        return
    contest = found.current
    if contest is None or data.get("contest") != found.current_move:
        return  # a move of an earlier contest (written before an undo reopened things)
    player = data.get("player")
    if isinstance(contest, Fight):
        if action == "fight":
            found.current = contest.fight(player)
        elif action == "pass":
            found.current = contest.passes(player)
        elif action == "roll":
            found.current = contest.rolled(data["roll"])
            if found.current.winner is not None:
                _award(found, found.current.winner, contest.card.number,
                       contest.card.points)
    else:
        if action == "enter":
            found.current = contest.enter(player)
        elif action == "start":
            found.current = contest.start()
        elif action == "roll":
            found.current = contest.rolled(data["roll"])
        race = found.current
        assert isinstance(race, Race)
        if action in ("start", "roll") and race.winner is not None:
            _award(found, race.winner, race.card.number, race.card.points)
    if action == "close":
        found.closed = bool(data.get("last"))
        found.ending = move_id if found.closed else None
        found.current = None
        found.current_move = None


def _award(found: Contests, player: int, number: int, points: int) -> None:
    """The winner keeps the card (a rematch takes it from whoever held it)."""
    for cards in found.won.values():
        cards[:] = [c for c in cards if c.number != number]
    found.won.setdefault(player, []).append(WonCard(number, points))


def known_card(db: sqlite3.Connection, edition: str, number: int) -> dict[str, Any] | None:
    """A card's numbers as the table typed them (in any game), if they have been."""
    row = db.execute("SELECT data FROM contest_cards WHERE edition = ? AND number = ?",
                     (edition, number)).fetchone()
    return None if row is None else json.loads(row["data"])


def keep_card(db: sqlite3.Connection, edition: str, card: BossCard | PrixCard) -> None:
    """Keep a card's typed numbers for the next game (typed again: replaced)."""
    db.execute("INSERT INTO contest_cards (edition, number, data) VALUES (?, ?, ?) ON CONFLICT"
               " (edition, number) DO UPDATE SET data = excluded.data",
               (edition, card.number, json.dumps(card.to_json())))
