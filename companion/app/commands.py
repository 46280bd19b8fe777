"""What a frontend can ask of the table: commands (changes) and queries (reads), as plain frozen
values. Fields hold the input as it came; the table validates it and refuses bad input with a
message naming the problem (:class:`companion.exc.Refused`), changing nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.app.contract import Command, Query
from companion.core.ledger import Entry, Payment
from companion.core.lever import TimerState
from companion.core.outcomes import Outcome
from companion.core.state import (
    ModeView,
    MoveView,
    OutcomeView,
    StorageView,
    TableState,
    UndoCheck,
    Undone,
    UndoRequestView,
)
from companion.i18n.said import Said

CURRENT = None
"""``player`` left out: the current player."""
ANYONE = object()
"""``after`` left out: Next from whoever is current (a sentinel: no value a request can
send)."""

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
class NewGame(Command[int]):
    """Start a game from a setup (old games stay as they were); answers its id. ``colours``
    one per player from the palette, ``first`` the seat or name of who starts,
    ``characters`` each player's (Gamer, Mario Kart), ``house`` the house rules
    (:func:`companion.core.setup.check_setup`)."""

    action: ClassVar[str] = "new game"
    edition: object = "celebration"
    players: object = None
    colours: object = None
    first: object = None
    characters: object = None
    house: object = None


@dataclass(frozen=True, slots=True)
class Transfer(Command[Payment]):
    """``payer`` pays ``payee`` (a player id or ``"bank"``); where the edition caps payments,
    a player pays what they have. ``sold``: a payer short of coins first sold Property back
    to the Bank for that face value (one move)."""

    action: ClassVar[str] = "transfer"
    payer: object
    payee: object
    amount: object
    note: object = ""
    sold: object = None
    reason: object = None
    """A payment the ruleset names (its ``reasons``' ids: a tax, the Continue cost)."""


@dataclass(frozen=True, slots=True)
class PassGo(Command[Entry]):
    """The Bank pays a player (default: the current one) the edition's GO salary."""

    action: ClassVar[str] = "pass GO"
    player: object = CURRENT


@dataclass(frozen=True, slots=True)
class Undo(Command[Undone]):
    """Undo a move, whole (a bankruptcy, the end of the game, a turn change): ``move``, if no
    later move depends on it (409 naming them; 409 when it is undone already); left out, the
    latest move not undone yet."""

    action: ClassVar[str] = "undo"
    move: object = None


@dataclass(frozen=True, slots=True)
class Redo(Command[MoveView]):
    """Bring back what the last undo (``move``, the undo's id) undid: coins or a turn."""

    action: ClassVar[str] = "redo"
    move: object = None


@dataclass(frozen=True, slots=True)
class ResumeGame(Command[int]):
    """Make an earlier game the one the table plays (the running one stays as it is)."""

    action: ClassVar[str] = "resume game"
    game: object = None


@dataclass(frozen=True, slots=True)
class SetCurrent(Command[int | None]):
    """Make a player current (None: nobody; outcomes then wait, unassigned)."""

    action: ClassVar[str] = "current player"
    player: object


@dataclass(frozen=True, slots=True)
class NextPlayer(Command[int]):
    """Pass the turn to the next seat; ``after``: only from that player (the one the page
    showed as current), so a second tap passes nothing."""

    action: ClassVar[str] = "next player"
    after: object = ANYONE


@dataclass(frozen=True, slots=True)
class GetGames(Query[list[dict[str, Any]]]):
    """Every game, newest first: id, edition, name, when, players' names, ended, current."""


@dataclass(frozen=True, slots=True)
class Assign(Command[OutcomeView]):
    """Give a waiting (unassigned) block outcome to a player."""

    action: ClassVar[str] = "assign"
    outcome: object
    player: object


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


PAY = "pay"
"""``in_jail`` left out: the player pays the fee (and, if in Jail, leaves it)."""


@dataclass(frozen=True, slots=True)
class Jail(Command[Entry | MoveView]):
    """A player (default: the current one) pays the edition's jail fee to the Bank, leaving
    Jail if they were in it; or, with ``in_jail`` true or false, goes to Jail or leaves it
    without paying (answers the move)."""

    action: ClassVar[str] = "jail"
    player: object = CURRENT
    in_jail: object = PAY


@dataclass(frozen=True, slots=True)
class JailRoll(Command[MoveView]):
    """A player in Jail rolled the table's own die for a 6 (``six``: whether they did):
    Celebration, Gamer, Mario Kart. A miss ends the turn; the last one is the edition's way
    out."""

    action: ClassVar[str] = "jail_roll"
    player: object = CURRENT
    six: object = None


@dataclass(frozen=True, slots=True)
class Toll(Command[MoveView]):
    """Bowser passed ``players``: each pays the Bank his toll (one move, one undo)."""

    action: ClassVar[str] = "toll"
    players: object


@dataclass(frozen=True, slots=True)
class Drop(Command[MoveView]):
    """``player`` drops ``coins`` on ``space`` of the board (what they have, at most)."""

    action: ClassVar[str] = "drop"
    player: object
    space: object
    coins: object


@dataclass(frozen=True, slots=True)
class Scoop(Command[MoveView]):
    """``player`` scoops up the whole pile on ``space``."""

    action: ClassVar[str] = "scoop"
    player: object
    space: object


@dataclass(frozen=True, slots=True)
class DescribeBoard(Command[Any]):
    """The table describes its board once (its spaces from GO, the Power-up die's faces): kept
    for every game of the edition."""

    action: ClassVar[str] = "board"
    board: object


@dataclass(frozen=True, slots=True)
class MoveToken(Command[MoveView]):
    """A token moves: ``steps`` forward (``how="roll"``), to the next Warp Pipe
    (``"warp"``), or onto space ``to`` (``"place"``), scooping on the way."""

    action: ClassVar[str] = "token"
    player: object
    steps: object = None
    to: object = None
    how: object = "roll"
    character: object = None


@dataclass(frozen=True, slots=True)
class PlaceBanana(Command[MoveView]):
    """Mario Kart: a Banana onto space ``space`` (``on`` false: back to the pile)."""

    action: ClassVar[str] = "banana"
    space: object
    on: object = True
    player: object = None


@dataclass(frozen=True, slots=True)
class HoldDeed(Command[MoveView]):
    """A Property's deed to ``player`` (None: back to the Bank), ``price`` paid to the Bank
    with it (bought, or an auction's winning bid)."""

    action: ClassVar[str] = "deed"
    space: object
    player: object
    price: object = None


@dataclass(frozen=True, slots=True)
class SetCharacters(Command[tuple[str, ...]]):
    """The character tokens a player plays (Gamer, Mario Kart; two players: two each)."""

    action: ClassVar[str] = "characters"
    player: object
    characters: object


@dataclass(frozen=True, slots=True)
class UseAbility(Command[MoveView]):
    """A Power-up die face the table rolled, or ``super_star``, as the player's character
    uses it: ``targets`` hit, ``spaces`` where each dropping player stands, ``coins`` typed
    where the ability needs a number."""

    action: ClassVar[str] = "ability"
    player: object
    ability: object
    targets: object = None
    spaces: object = None
    coins: object = None
    character: object = None
    spaces_instead: object = False


@dataclass(frozen=True, slots=True)
class Contest(Command[MoveView]):
    """A step of a Boss fight (``kind`` boss) or a Race: open (with the card's numbers),
    fight / pass / enter / start, close."""

    action: ClassVar[str] = "contest"
    kind: object
    step: object
    player: object = None
    card: object = None
    rematch: object = None


@dataclass(frozen=True, slots=True)
class BowserWins(Command[MoveView]):
    """Every deed is on its Game Over side: Bowser wins, everyone loses, the game ends."""

    action: ClassVar[str] = "bowser wins"


@dataclass(frozen=True, slots=True)
class Bankrupt(Command[MoveView]):
    """The banker declares ``player`` bankrupt to ``creditor`` (a player id or ``"bank"``)."""

    action: ClassVar[str] = "bankruptcy"
    player: object
    creditor: object


@dataclass(frozen=True, slots=True)
class SetPoints(Command[MoveView]):
    """Points games: the points on a player's cards and how many cards they hold."""

    action: ClassVar[str] = "points"
    player: object
    points: object
    cards: object
    deeds: object = None
    """The Property deeds held (spaces of the described board), instead of points and cards."""


@dataclass(frozen=True, slots=True)
class SetWorms(Command[MoveView]):
    """Wiggly Worms: how many worms a player has found (all of them wins)."""

    action: ClassVar[str] = "worms"
    player: object
    found: object


@dataclass(frozen=True, slots=True)
class EndGame(Command[MoveView]):
    """Points games: the final Boss fight / Race is over; the highest score wins.
    ``early``: the house rule of ending before the last card (the rulebook's game ends only
    with the final fight or race)."""

    early: object = False
    action: ClassVar[str] = "end"


@dataclass(frozen=True, slots=True)
class SetOptions(Command[dict[str, bool]]):
    """Wiggly Worms' variants: everyone plays at once, the worm cards dealt out (None: as it
    was)."""

    action: ClassVar[str] = "options"
    simultaneous: object = None
    dealt: object = None


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
    :class:`companion.exc.Conflict`)."""

    action: ClassVar[str] = "phone link"
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
