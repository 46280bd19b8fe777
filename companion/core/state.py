"""What the table looks like now: typed, frozen views that every frontend reads.

The bank builds a :class:`TableState` from one consistent snapshot; the application adds the
lever timer; the web sends ``to_json()``, the screen and the demo read the attributes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.core.ledger import BANK, Entry
from companion.core.lever import TimerState
from companion.core.outcomes import Outcome


@dataclass(frozen=True, slots=True)
class GameView:
    """The game being played: its id and edition."""

    id: int
    edition: str
    name: str
    question_block: bool
    """True when a press of the block moves coins in this edition."""
    bank: bool
    """False for timer-only games (no coins)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "edition": self.edition, "name": self.name,
                "question_block": self.question_block, "bank": self.bank}


@dataclass(frozen=True, slots=True)
class PlayerView:
    """A player as the table sees them: seat, colour, coins, card, and whose turn it is."""

    id: int
    name: str
    colour: str
    seat: int
    balance: int
    current: bool
    card: str | None

    @property
    def owes(self) -> bool:
        return self.balance < 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "colour": self.colour, "seat": self.seat,
                "balance": self.balance, "owes": self.owes, "current": self.current,
                "card": self.card}


@dataclass(frozen=True, slots=True)
class OutcomeView:
    """A block outcome as the bank keeps it; ``player_id`` None means unassigned."""

    id: int
    game_id: int
    at: float
    outcome: Outcome
    source: str
    player_id: int | None
    entry_id: int | None

    @property
    def assigned(self) -> bool:
        return self.player_id is not None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game_id, "at": self.at, **self.outcome.to_json(),
                "source": self.source, "player": self.player_id, "entry": self.entry_id,
                "assigned": self.assigned}


@dataclass(frozen=True, slots=True)
class JournalLine:
    """One journal entry with what later happened to it (``undone_by``) and, for a block
    outcome's coins, the outcome's kind (screens say "Bowser" rather than "block")."""

    entry: Entry
    undone_by: int | None = None
    outcome_kind: str | None = None

    @property
    def undone(self) -> bool:
        return self.undone_by is not None

    def to_json(self) -> dict[str, Any]:
        return {**self.entry.to_json(self.undone_by), "outcome_kind": self.outcome_kind}


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything a screen or the tablet shows, from one snapshot of the bank."""

    game: GameView
    players: tuple[PlayerView, ...]
    current_player: int | None
    last_outcome: OutcomeView | None
    unassigned: tuple[OutcomeView, ...]
    recent: tuple[JournalLine, ...]
    """The latest journal lines, newest first."""
    timer: TimerState | None = None
    """The lever timer, added by the application (the bank knows no timer)."""

    def player(self, player_id: object) -> PlayerView | None:
        return next((p for p in self.players if p.id == player_id), None)

    @property
    def current(self) -> PlayerView | None:
        return self.player(self.current_player)

    def name_of(self, party: object) -> str:
        """A player's name, "the Bank", or ``player N`` for an id not in this game."""
        if party == BANK:
            return "the Bank"
        found = self.player(party)
        return found.name if found is not None else f"player {party}"

    def with_timer(self, timer: TimerState | None) -> TableState:
        return replace(self, timer=timer)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game.to_json(),
            "players": [p.to_json() for p in self.players],
            "current_player": self.current_player,
            "last_outcome": None if self.last_outcome is None else self.last_outcome.to_json(),
            "unassigned": [o.to_json() for o in self.unassigned],
            "recent": [line.to_json() for line in self.recent],
            "timer": None if self.timer is None else self.timer.to_json(),
        }
