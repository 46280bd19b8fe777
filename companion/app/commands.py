"""What a frontend can ask of the table: commands (changes) and queries (reads), as plain frozen
values. Fields hold the input as it came; the table validates it and refuses bad input with a
message naming the problem (:class:`companion.exc.Refused`), changing nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.app.contract import Command, Query
from companion.core.coin_series import CoinSeries
from companion.core.lever import TimerState
from companion.core.outcomes import Outcome
from companion.core.state import (
    ModeView,
    OutcomeView,
    StorageView,
    TableState,
    UndoCheck,
    UndoRequestView,
)
from companion.i18n.said import Said

# -- the block -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pressed:
    """A press from a frontend that waits for the bank: the outcome (None: the press did
    something else, e.g. started the lever timer), and whether it is saved or held."""

    event: object
    """The press's event (:mod:`companion.events`)."""
    outcome: Outcome | None = None
    saved: bool = False
    """The outcome is in the bank (durable)."""
    record: OutcomeView | None = None
    held: str | Said | None = None
    """Why it is held, not saved yet (it is retried until the disk takes it)."""
    press_id: str | None = None
    """The press's id (the bank banks it once; the pages keep a held one by it)."""
    on_disk: bool = False
    """A held press is also in the held-presses file (else in the companion's memory only)."""


@dataclass(frozen=True, slots=True)
class Press(Command[Pressed]):
    """Press the block and wait until its outcome is durable in the bank, or held."""

    action: ClassVar[str] = "press"


@dataclass(frozen=True, slots=True)
class GiveBack(Command[dict[str, str]]):
    """Presses a page kept while the disk refused them (``HeldPress``es): each answered
    ``banked`` (now, or it already was), ``held`` (here again) or ``refused``."""

    action: ClassVar[str] = "give back"
    presses: tuple[Any, ...] = ()


# -- the bank ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Move(Command[Any]):
    """A move for the table's journal, by its name in the moves table
    (:data:`companion.bank.moves.ACTIONS`; ``GET /api/openapi.json`` lists them), with the
    request's fields by their JSON names, as they came. The move's own declaration checks
    them, then who may make it and when (a ``correction`` overrides that, the banker's)."""

    name: str
    fields: Mapping[str, object] = field(default_factory=dict)










@dataclass(frozen=True, slots=True)
class GetGames(Query[list[dict[str, Any]]]):
    """Every game, newest first: id, edition, name, when, players' names, ended, current."""



@dataclass(frozen=True, slots=True)
class LinkCard(Command[str | None]):
    """Make a card UID a player's card in the current game (None as uid: forget it)."""

    action: ClassVar[str] = "card"
    uid: object
    player: object


@dataclass(frozen=True, slots=True)
class SetCardAction(Command[str]):
    """Make a card do an action whoever taps it (next player, pass GO, ...)."""

    action: ClassVar[str] = "card action"
    uid: object
    card_action: object


@dataclass(frozen=True, slots=True)
class Tap(Command[dict[str, Any]]):
    """A card was tapped on a reader: do what it means (a player's card makes them current;
    an action card does its action). Answers the activity feed's line for it."""

    action: ClassVar[str] = "card tap"
    uid: str






















@dataclass(frozen=True, slots=True)
class ArmMode(Command[ModeView]):
    """Arm what the next press means (the edition's default mode disarms). Utility rent needs
    ``payer``, ``owner`` and ``utilities`` (1 or 2)."""

    action: ClassVar[str] = "mode"
    mode: object
    params: Mapping[str, object] = field(default_factory=dict)


# -- the lever timer -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartTimer(Command[TimerState]):
    """Start (or restart with a fresh time) the countdown; ``seconds`` None: the configured."""

    action: ClassVar[str] = "timer start"
    seconds: object = None


@dataclass(frozen=True, slots=True)
class StopTimer(Command[TimerState]):
    action: ClassVar[str] = "timer stop"


@dataclass(frozen=True, slots=True)
class ToggleTimer(Command[TimerState]):
    """Start the countdown, or stop it if it runs (a card, a second lever)."""

    action: ClassVar[str] = "timer"


# -- reads ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GetState(Query[TableState]):
    """The table now: game, players, outcomes, the coin log, the timer."""


@dataclass(frozen=True, slots=True)
class GetJournal(Query[dict[str, Any]]):
    """A game's journal (default: the latest game).

    With none of ``before``, ``after`` and ``limit``: the whole game, ``entries`` (coin lines)
    and ``moves`` (what the table did, each with its entries and in words), oldest first.
    Otherwise one page (:meth:`companion.bank.bank.Bank.move_page`): ``moves`` below move
    ``before`` newest first, or after move ``after`` oldest first, at most ``limit``; with
    ``next_before``, ``next_after`` and ``latest``."""

    game: int | None = None
    before: object = None
    after: object = None
    limit: object = None

    @property
    def paged(self) -> bool:
        return (self.before, self.after, self.limit) != (None, None, None)


@dataclass(frozen=True, slots=True)
class JournalJSON(Query[list[bytes]]):
    """:class:`GetJournal`'s answer as the API sends it: its JSON (``game`` first), in pieces
    to send in turn; each move rendered once and kept (:mod:`companion.bank.rendered`)."""

    game: int | None = None
    before: object = None
    after: object = None
    limit: object = None

    @property
    def paged(self) -> bool:
        return (self.before, self.after, self.limit) != (None, None, None)


@dataclass(frozen=True, slots=True)
class CanUndo(Query[UndoCheck]):
    """Whether ``move`` (of the latest game) can be undone now, and if not why: the later
    moves that depend on it."""

    move: object = None


@dataclass(frozen=True, slots=True)
class ExportGame(Query[str]):
    """A game's journal as ``companion export`` writes it (``fmt``: csv or json)."""

    game: int
    fmt: str = "csv"


@dataclass(frozen=True, slots=True)
class ExportBoard(Query[dict[str, Any]]):
    """The board described for the game played's edition, as ``companion board export``
    writes it (:mod:`companion.bank.board_file`)."""


@dataclass(frozen=True, slots=True)
class GetCoins(Query[CoinSeries]):
    """Every player's coins over a game, move by move (the end-of-game chart's series),
    computed from its journal when asked."""

    game: int | None = None


@dataclass(frozen=True, slots=True)
class GetRules(Query[dict[str, Any]]):
    """The current game's ruleset: amounts, press modes with their odds, player counts, the
    debt rule, how it ends and is scored, each with its rulebook lines."""


@dataclass(frozen=True, slots=True)
class GetTimer(Query[TimerState]):
    pass


@dataclass(frozen=True, slots=True)
class GetEditions(Query[list[dict[str, Any]]]):
    """Every edition the table can play."""


@dataclass(frozen=True, slots=True)
class GetSetup(Query[dict[str, Any]]):
    """What a setup offers: every edition (player counts, starting coins, box colours,
    characters, house rules), the palette, the last game's players
    (:func:`companion.core.setup.offer`)."""


@dataclass(frozen=True, slots=True)
class CardMeaning(Query[tuple[str, int | str | None]]):
    """What a tap of ``uid`` means: ("player", id), ("action", name), ("unmatched", the
    config's name for someone not in this game) or ("unknown", None)."""

    uid: str
    named: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GetActivity(Query[dict[str, Any]]):
    """The latest card taps (``activity``), cards that mean nobody yet (``new_cards``) and the
    action cards (``card_actions``)."""


@dataclass(frozen=True, slots=True)
class Part:
    """One part of the build as ``/healthz`` reports it."""

    name: str
    ok: bool
    detail: str
    required: bool = False
    """A required part that is down makes the companion unhealthy (``/healthz`` 503)."""

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "detail": self.detail, "required": self.required}


@dataclass(frozen=True, slots=True)
class Health:
    """How the table is doing: for ``/healthz``, the screen, the status LED and the demo."""

    bank: bool
    """The bank takes writes now (open, and the disk took the last write)."""
    sound: bool
    presses: int
    ignored: int
    quiet: bool
    """Nothing is sounding, no countdown runs and the lever has settled."""
    storage: StorageView = field(default_factory=StorageView)
    has_bank: bool = True
    """The table keeps a bank at all (it may be down: see ``bank``)."""
    parts: tuple[Part, ...] = ()
    """Every part, the bank first; the daemon adds the hardware's."""

    @property
    def ok(self) -> bool:
        """Every required part is up."""
        return all(p.ok for p in self.parts if p.required)

    @property
    def down(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if not p.ok)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "parts": {p.name: p.to_json() for p in self.parts},
                "storage": self.storage.to_json(), "presses": self.presses,
                "ignored": self.ignored}


@dataclass(frozen=True, slots=True)
class GetHealth(Query[Health]):
    pass


# -- players' own phones -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkPlayer(Command[str]):
    """A new phone link for a player of the current game; answers its token (only its hash is
    kept; an earlier link of that player stops working)."""

    action: ClassVar[str] = "phone link"
    player: object


@dataclass(frozen=True, slots=True)
class JoinPlayer(Command[str]):
    """A phone joining from the table's join code of ``game``: as :class:`LinkPlayer`, for a
    player of that game (the one played now) who has no phone link yet (else
    :class:`companion.exc.Conflict`). Its own action, so the banker's page can say whose
    phone joined (and offer to turn it off)."""

    action: ClassVar[str] = "phone joined"
    player: object
    game: int


@dataclass(frozen=True, slots=True)
class UnlinkPlayer(Command[bool]):
    """Turn off a player's phone link; answers whether there was one."""

    action: ClassVar[str] = "phone link off"
    player: object


@dataclass(frozen=True, slots=True)
class PlayerForToken(Query[int | None]):
    """The player (of the current game) whose live phone link ``token`` is; None: none."""

    token: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Asked:
    """A player's "that was a mistake": the request, and whether it is new (asking again about
    the same payment is the same request)."""

    request: UndoRequestView
    new: bool


@dataclass(frozen=True, slots=True)
class AskUndo(Command[Asked]):
    """``player`` (a live phone link's) says their latest payment, ``move``, was a mistake:
    the banker is asked to undo it."""

    action: ClassVar[str] = "mistake"
    player: int
    move: object


@dataclass(frozen=True, slots=True)
class AnswerRequest(Command[UndoRequestView]):
    """The banker keeps the payment a player's request was about (``answer``: ``keep``)."""

    action: ClassVar[str] = "mistake answered"
    request: object
    answer: object = "keep"


@dataclass(frozen=True, slots=True)
class GetSeat(Query[dict[str, Any]]):
    """A page of one player's own history (:func:`companion.bank.seat.seat_page`), with
    their latest payment and their requests."""

    player: int
    before: object = None
    outcomes_before: object = None
    limit: object = None
