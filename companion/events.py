"""What happened, as plain values that every frontend (CLI, screen, tablet) can show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.core.lever import TimerState
from companion.core.outcomes import Outcome
from companion.core.state import OutcomeView, StorageView, TableState
from companion.i18n.said import Said, say


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
    ping_start: float = 0.0
    """Seconds into the sound of the first coin ping (a block's bump comes first)."""
    headline: str | Said = ""
    instruction: str | Said = ""
    description: str | Said = ""
    """The edition's words for it (the screen's headline, what to do, one line for the log),
    each put into a reader's language by that reader (``str()`` is the English)."""
    sound_seconds: float = 0.0
    """How long its sound lasts (the block ignores presses meanwhile; a page pulses the ?)."""
    player: int | None = None
    """Whom it is for, as the press read the table (None: nobody's turn)."""


SOUNDING = say("the block is still sounding")


@dataclass(frozen=True, slots=True)
class PressIgnored:
    """A press that does nothing: the previous outcome is still sounding (the unit does the
    same), or the game has ended."""

    at: float
    source: str
    reason: str | Said = SOUNDING


@dataclass(frozen=True, slots=True)
class LeverPressed:
    """A press in a game where the block is a second lever (Wiggly Worms): the countdown
    started or stopped."""

    at: float
    source: str
    started: bool


@dataclass(frozen=True, slots=True)
class StateChanged:
    """The table changed (a bank write, an armed press mode); ``state`` is the table now."""

    action: str
    summary: str | Said
    state: TableState
    outcome: OutcomeView | None = None
    """A block outcome this write gave to a player (a press banked, an outcome assigned):
    their phone is told."""


@dataclass(frozen=True, slots=True)
class TimerChanged:
    """The lever timer started, stopped or ran out (``what``: started, stopped, time_up).

    ``deadline`` is on the daemon's monotonic clock (None unless running); ``state`` is what
    ``/api/state`` shows as ``timer``."""

    what: str
    source: str
    deadline: float | None
    duration: float | None
    label: str | Said
    state: TimerState


@dataclass(frozen=True, slots=True)
class CardTapped:
    """A card was tapped on a reader: ``kind`` is player, action or unknown ("new card");
    ``did`` says what happened, in words. ``entry`` is the activity feed's JSON line."""

    uid: str
    kind: str
    did: str | Said
    entry: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StorageChanged:
    """The bank stopped or started taking writes, or presses were held or banked: ``summary``
    says what happened, ``storage`` is how things stand now."""

    summary: str | Said
    storage: StorageView


Event = (BlockOutcome | PressIgnored | LeverPressed | StateChanged | TimerChanged | CardTapped
         | StorageChanged)
Listener = Callable[[Event], None]
