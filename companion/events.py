"""What happened, as plain values that every frontend (CLI, screen, tablet) can show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.core.lever import TimerState
from companion.core.outcomes import Outcome
from companion.core.state import TableState


@dataclass(frozen=True, slots=True)
class BlockOutcome:
    """The block was pressed and answered."""

    number: int
    outcome: Outcome
    at: float
    source: str
    sound_played: bool
    ping_period: float = 0.30
    """Seconds from one coin ping to the next in its sound (a screen lights a coin per ping)."""


@dataclass(frozen=True, slots=True)
class PressIgnored:
    """A press while the previous outcome was still sounding (the unit does the same)."""

    at: float
    source: str


@dataclass(frozen=True, slots=True)
class BankChanged:
    """The bank wrote something; ``state`` is the table after the write."""

    action: str
    summary: str
    state: TableState


@dataclass(frozen=True, slots=True)
class TimerChanged:
    """The lever timer started, stopped or ran out (``what``: started, stopped, time_up).

    ``deadline`` is on the daemon's monotonic clock (None unless running); ``state`` is what
    ``/api/state`` shows as ``timer``."""

    what: str
    source: str
    deadline: float | None
    duration: float | None
    label: str
    state: TimerState


@dataclass(frozen=True, slots=True)
class CardTapped:
    """A card was tapped on a reader: ``kind`` is player, action or unknown ("new card");
    ``did`` says what happened, in words. ``entry`` is the activity feed's JSON line."""

    uid: str
    kind: str
    did: str
    entry: dict[str, Any]


Event = BlockOutcome | PressIgnored | BankChanged | TimerChanged | CardTapped
Listener = Callable[[Event], None]
