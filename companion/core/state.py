"""What the table looks like now: typed, frozen views that every frontend reads.

The bank builds a :class:`TableState` from one consistent snapshot; the application adds the
lever timer; the web sends ``to_json()``, the screen and the demo read the attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.core.board_ring import Ring
from companion.core.editions.contests import Fight, Race
from companion.core.editions.ruleset import Ruleset
from companion.core.editions.scoring import Standing
from companion.core.flow import Turn
from companion.core.ledger import BANK, THE_BANK, Entry, MoveKind, jail_change
from companion.core.lever import TimerState
from companion.core.outcomes import CONTEST_ROLLS, Kind, Outcome
from companion.core.reasons import reason
from companion.i18n.said import Said, as_json, say, say_n, texts


@dataclass(frozen=True, slots=True)
class GameView:
    """The game being played: its id and edition."""

    id: int
    edition: str
    name: str
    question_block: bool
    """True when a press of the block (in the edition's default mode) moves coins."""
    bank: bool
    """False for timer-only games (no coins)."""
    simultaneous: bool = False
    """Wiggly Worms: everyone plays at once (time-up does not pass the turn)."""
    worms: int | None = None
    """Wiggly Worms: the worms each player has to find (the ruleset's number, or their share
    of the deck when the cards were dealt)."""
    dealt: bool = False
    """Wiggly Worms: the worm cards were shuffled and dealt out."""
    setup_pending: bool = False
    """Made at boot from the config's defaults (a fresh install): the page opens on its
    setup (the block works meanwhile)."""
    house: tuple[tuple[str, str | Said], ...] = ()
    """The house rules it plays by, (id, name), for its header: the Free Parking pot, a
    house-rules file."""
    rules: Ruleset | None = field(default=None, compare=False, repr=False)
    """The ruleset it plays by (its edition, with the house-rules file it chose)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "edition": self.edition, "name": self.name,
                "question_block": self.question_block, "bank": self.bank,
                "simultaneous": self.simultaneous, "worms": self.worms, "dealt": self.dealt,
                "setup_pending": self.setup_pending,
                "house": [{"id": rule, **texts(name=name)} for rule, name in self.house]}


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
    out: bool = False
    """Bankrupt: out of the game (skipped by next player, refused as payer or payee)."""
    points: int | None = None
    """Points games: points on cards, typed in."""
    cards: int | None = None
    worms: int | None = None
    """Wiggly Worms: worms found."""
    linked: bool = False
    """The player has a live phone link (the banker's page offers to turn it off)."""
    in_jail: bool = False
    """In Jail: pays no Bowser toll, can't battle, presses to roll for doubles (the Movie)."""
    jail_tries: int = 0
    """Tries at doubles made since going to Jail."""
    characters: tuple[str, ...] = ()
    """Gamer, Mario Kart: the character tokens they play (ids of the ruleset's)."""
    won: tuple[int, ...] = ()
    """Gamer, Mario Kart: the Boss or Grand Prix cards they keep, by number."""
    position: int | None = None
    """Gamer, Mario Kart, once the table described its board: the space their token stands
    on (0: GO; -1: In Jail); None for a player with two tokens (:attr:`tokens`)."""
    tokens: tuple[tuple[str, int], ...] = ()
    """A game of two, once the board is described: each of the player's characters and the
    space its token stands on."""
    owes_to: int | str | None = None
    """Below zero: whom they owe (a player's id, or ``"bank"``): the payee of their latest
    payment, the one that went unpaid (a bankruptcy's creditor)."""

    @property
    def owes(self) -> bool:
        return self.balance < 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "colour": self.colour, "seat": self.seat,
                "balance": self.balance, "owes": self.owes, "current": self.current,
                "card": self.card, "out": self.out, "points": self.points,
                "cards": self.cards, "worms": self.worms, "linked": self.linked,
                "in_jail": self.in_jail, "jail_tries": self.jail_tries,
                "characters": list(self.characters), "won": list(self.won),
                "position": self.position, "tokens": dict(self.tokens),
                "owes_to": self.owes_to}


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
    params: Mapping[str, int] = field(default_factory=dict)
    """What the mode was armed with (utility rent: payer, owner, utilities)."""
    headline: str | Said = ""
    instruction: str | Said = ""
    description: str | Said = ""
    """The edition's words for it: big on the screen, what to do, one line for the log."""

    @property
    def assigned(self) -> bool:
        return self.player_id is not None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game_id, "at": self.at, **self.outcome.to_json(),
                "source": self.source, "player": self.player_id, "entry": self.entry_id,
                "assigned": self.assigned, "params": dict(self.params),
                **texts(headline=self.headline, instruction=self.instruction,
                        description=self.description)}


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
        """The entry, its outcome's kind and, for a reader in another language, ``note_said``:
        why it moved coins in a few words (the banker's own note stays as typed)."""
        data = {**self.entry.to_json(self.undone_by), "outcome_kind": self.outcome_kind}
        why = reason(self.entry, self.outcome_kind)
        if isinstance(why, Said):
            data["note_said"] = as_json(why)
        return data


@dataclass(frozen=True, slots=True)
class MoveView:
    """One move of the journal: what the table did, the coins it moved and whether it was
    undone. ``data`` holds what it was about (points, worms, the creditor, the winner)."""

    id: int
    game_id: int
    at: float
    kind: MoveKind
    player_id: int | None
    data: Mapping[str, Any]
    note: str
    source: str
    ends: bool
    undoes: int | None
    undone_by: int | None
    entries: tuple[Entry, ...]
    text: str | Said = ""
    """In words, with names: "Luigi is bankrupt: 3 coins to Mario"."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game_id, "at": self.at, "kind": self.kind.value,
                "player": self.player_id, "data": dict(self.data), "note": self.note,
                "source": self.source, "ends": self.ends, "undoes": self.undoes,
                "undone_by": self.undone_by, "entries": [e.to_json() for e in self.entries],
                **texts(text=self.text)}


@dataclass(frozen=True, slots=True)
class Undone:
    """What an undo did: the move it undid and its own compensating entries."""

    move: MoveView
    target: MoveView

    def to_json(self) -> dict[str, Any]:
        first = self.move.entries[0].to_json() if self.move.entries else {}
        return {**first, "move": self.move.to_json(), "undid": self.target.to_json(),
                **texts(text=self.move.text)}


@dataclass(frozen=True, slots=True)
class UndoCheck:
    """Whether a move can be undone now: if not, why (``error``) and the later moves that
    depend on it (``blocked_by``, the nearest first; empty when it is undone already, or of a
    kind never undone)."""

    move: int
    undoable: bool
    blocked_by: tuple[int, ...] = ()
    error: str | Said | None = None

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "undoable": self.undoable,
                "blocked_by": list(self.blocked_by),
                **(texts(error=self.error) if self.error is not None else
                   {"error": None, "error_said": None})}


@dataclass(frozen=True, slots=True)
class ModeView:
    """What the next press of the block means."""

    id: str
    name: str
    default: bool
    params: Mapping[str, int] = field(default_factory=dict)
    text: str | Said = ""
    """With names: "Utility rent: Luigi pays Mario, 2 utilities"."""
    hint: str | Said = ""
    """What to do, where a press is not a die (the edition's words for its lever)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "default": self.default,
                **dict(self.params), **texts(text=self.text, hint=self.hint)}


@dataclass(frozen=True, slots=True)
class MoveRef:
    """A move a button would act on: its id (sent back, so a stale button does nothing) and
    what it was, in words."""

    move: int
    text: str | Said

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, **texts(text=self.text)}


@dataclass(frozen=True, slots=True)
class UndoRequestView:
    """A player's "that was a mistake" about one of their own payments: ``status`` is
    ``open`` (the banker has not answered), ``undone`` (the payment was undone, by any
    means) or ``kept`` (the banker kept it)."""

    id: int
    player_id: int
    move_id: int
    at: float
    text: str | Said
    """The payment, in words: "Mario pays Luigi 15"."""
    status: str = "open"
    settled_at: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "player": self.player_id, "move": self.move_id, "at": self.at,
                **texts(text=self.text), "status": self.status, "settled_at": self.settled_at}


@dataclass(frozen=True, slots=True)
class StorageView:
    """Whether the bank takes writes now, and the presses held until it does."""

    ok: bool = True
    problem: str | Said | None = None
    """Why not, in words ("the SD card is full: ...")."""
    held: int = 0
    """Presses sounded and shown but not saved yet."""
    kept: bool = True
    """Whether the held presses are also in the held-presses file (a restart keeps them)."""
    presses: tuple[Mapping[str, Any], ...] = ()
    """The held presses themselves (as the held file keeps them): every page with the token
    keeps a copy and gives them back if the companion loses them (a failing SD card)."""

    @property
    def warning(self) -> str | Said:
        """One line for a screen or the page ('' when all is well)."""
        if self.ok and not self.held:
            return ""
        if not self.held:
            return say("Not saved: {problem}", problem=self.problem)
        why = self.problem or say("saving")
        if self.kept:
            return say_n("{n} press not saved yet: {why}", "{n} presses not saved yet: {why}",
                         self.held, why=why)
        return say_n("{n} press not saved yet: {why} (kept in memory only)",
                     "{n} presses not saved yet: {why} (kept in memory only)", self.held,
                     why=why)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "held": self.held, "kept": self.kept,
                "presses": [dict(p) for p in self.presses],
                **texts(warning=self.warning),
                **({"problem": None} if self.problem is None else texts(problem=self.problem))}


@dataclass(frozen=True, slots=True)
class NextCard:
    """The next contest card: its number, the numbers typed for it before (None: to type),
    whether it is the last, and (Mario Kart) whether the final Race's rematch is due."""

    kind: str
    card: str
    number: int | None
    values: Mapping[str, Any] | None
    final: bool
    rematch_due: bool = False
    held: tuple[int, ...] = ()
    """The won cards a rematch may race for."""
    due: bool = False
    """The current player passed GO this turn: the card is flipped at the end of it."""
    left: int = 0
    """Cards still to play, the open one too: the game ends with the last of them."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "card_name": self.card, "number": self.number,
                "values": None if self.values is None else dict(self.values),
                "final": self.final, "rematch_due": self.rematch_due, "held": list(self.held),
                "due": self.due, "left": self.left}


TABLE_MOVERS = frozenset({Kind.DICE, Kind.THIRD_DOUBLES, Kind.BATTLE_LOST, Kind.JAIL_FREE,
                          Kind.JAIL_STAY, Kind.JAIL_PAID})
"""Outcomes that change more than coins: the doubles run, the Jail, the turn."""


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
    ended: bool = False
    winners: tuple[int, ...] = ()
    """Who won the ended game (more than one: a shared win; none: nobody won)."""
    standings: tuple[Standing, ...] = ()
    """Every player, best first, by the edition's rule for winning."""
    timer: TimerState | None = None
    """The lever timer, added by the application (the bank knows no timer)."""
    mode: ModeView | None = None
    """What the next press means, added by the application (the bank knows no arming)."""
    storage: StorageView = field(default_factory=StorageView)
    """Whether the bank takes writes, added by the application."""
    version: str = ""
    """Changes with every move, press and turn: a page keys its writes on the state it saw, so
    one intent (a double tap) is written once."""
    undo: MoveRef | None = None
    """What Undo would undo now."""
    redo: MoveRef | None = None
    """What Redo would bring back (right after an undo of coins or a turn)."""
    doubles: int = 0
    """The Movie: doubles the current player has rolled in a row this turn."""
    bowser_waits: bool = False
    """The Movie: Bowser was beaten and waits on GO until everyone has had a turn."""
    bowser_won: bool = False
    """The Movie: the game ended with every deed on its Game Over side."""
    board: tuple[tuple[str, int], ...] = ()
    """Gamer, Mario Kart: the coins on the board, each space's pile (oldest pile first); the
    Free Parking pot's pile, where that house rule is on."""
    pot: tuple[str, int] | None = None
    """The Free Parking pot (a house rule): its space and the coins on it; None: off."""
    contest: Fight | Race | None = None
    """Gamer: the Boss fight open now; Mario Kart: the Race (until it is closed)."""
    next_card: NextCard | None = None
    """The next Boss or Grand Prix card to flip, and its numbers if the table typed them."""
    requests: tuple[UndoRequestView, ...] = ()
    """Players' "that was a mistake" not answered yet, oldest first: the banker undoes the
    payment or keeps it."""
    ring: Ring | None = None
    """Gamer, Mario Kart: the board as the table described it (None: not yet)."""
    bananas: tuple[int, ...] = ()
    """Mario Kart: the spaces with a Banana on them."""
    turn_rolled: bool = False
    """Gamer, Mario Kart: the current player's press this turn moved their token (the next
    press is a Coin Block's roll, not another move)."""
    landed: int | None = None
    """Gamer, Mario Kart on a described board: the space the current player's token landed
    on this turn (None: it has not moved this turn)."""
    space_rolled: bool = False
    """The roll of the space they landed on (a Coin Block's, an Item Box's) is made."""
    turn: Turn | None = None
    """Where the table is in the current player's turn (its moment)."""
    flow: Mapping[str, Any] = field(default_factory=dict)
    """Each move with a moment or a player of its own (its flow's name): None while the
    current player may make it now, else why not (the refusal as a 409 says it). A page
    offers what the moment allows, the rest as the banker's correction."""
    holders: tuple[tuple[int, int], ...] = ()
    """Gamer, Mario Kart on a described board: (a Property's space, the player holding its
    deed), for the deeds players hold."""

    @property
    def fight(self) -> Fight | None:
        return self.contest if isinstance(self.contest, Fight) else None

    @property
    def race(self) -> Race | None:
        return self.contest if isinstance(self.contest, Race) else None

    @property
    def winner(self) -> int | None:
        return self.winners[0] if len(self.winners) == 1 else None

    def player(self, player_id: object) -> PlayerView | None:
        return next((p for p in self.players if p.id == player_id), None)

    @property
    def current(self) -> PlayerView | None:
        return self.player(self.current_player)

    def name_of(self, party: object) -> str | Said:
        """A player's name, "the Bank", or ``player N`` for an id not in this game."""
        if party == BANK:
            return THE_BANK
        found = self.player(party)
        return found.name if found is not None else say("player {id}", id=str(party))

    @property
    def active(self) -> tuple[PlayerView, ...]:
        """The players still in the game."""
        return tuple(p for p in self.players if not p.out)

    def with_timer(self, timer: TimerState | None) -> TableState:
        return replace(self, timer=timer)

    def with_mode(self, mode: ModeView | None) -> TableState:
        return replace(self, mode=mode)

    def with_storage(self, storage: StorageView) -> TableState:
        return replace(self, storage=storage)

    def pressed(self, outcome: Outcome, player: int | None) -> TableState:
        """The table as the bank will show it once ``outcome`` (applied to ``player``) is
        banked: the doubles counted, a try from Jail made, a player into or out of Jail. The
        press path reads it at once, so the next press never waits for the disk."""
        if outcome.kind in CONTEST_ROLLS:
            return self._rolled(outcome)
        if outcome.kind is Kind.MOVE:  # the turn's roll is made: the next press is not one
            return replace(self, turn_rolled=True, landed=None, space_rolled=False)
        if outcome.kind is Kind.COINS and self.landed is not None:  # the space's roll
            return replace(self, space_rolled=True)
        if outcome.kind not in TABLE_MOVERS:  # coins only: the bank's state says the rest
            return self
        doubles = self.doubles
        if outcome.kind is Kind.DICE:
            doubles = outcome.step if outcome.doubles else 0
        elif outcome.kind is Kind.THIRD_DOUBLES:
            doubles = 0
        change = jail_change(outcome)
        players, current = self.players, self.current_player
        ends_turn = bool(change) or outcome.kind is Kind.JAIL_STAY  # "Your turn then ends"
        if ends_turn and player is not None and player == current:
            seats = [p.id for p in self.players if not p.out]
            if len(seats) > 1:
                current = seats[(seats.index(player) + 1) % len(seats)]
                doubles = 0
        if player is not None:
            players = tuple(
                replace(p, in_jail=p.in_jail if change is None else change,
                        jail_tries=0 if change is not None else
                        p.jail_tries + (outcome.kind is Kind.JAIL_STAY))
                if p.id == player else p for p in self.players)
        if current != self.current_player:
            players = tuple(replace(p, current=p.id == current) for p in players)
        return replace(self, players=players, doubles=doubles, current_player=current)

    def _rolled(self, outcome: Outcome) -> TableState:
        """A Boss fighter's or a racer's roll, folded into the contest ahead of the bank."""
        contest = self.contest
        if isinstance(contest, Fight) and contest.fighter is not None:
            return replace(self, contest=contest.rolled(outcome.rolls[-1]))
        if isinstance(contest, Race) and contest.standing.roller is not None:
            return replace(self, contest=contest.rolled(outcome.rolls[-1]))
        return self

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game.to_json(),
            "players": [p.to_json() for p in self.players],
            "current_player": self.current_player,
            "last_outcome": None if self.last_outcome is None else self.last_outcome.to_json(),
            "unassigned": [o.to_json() for o in self.unassigned],
            "recent": [line.to_json() for line in self.recent],
            "ended": self.ended,
            "winner": self.winner,
            "winners": list(self.winners),
            "standings": [s.to_json() for s in self.standings],
            "timer": None if self.timer is None else self.timer.to_json(),
            "mode": None if self.mode is None else self.mode.to_json(),
            "storage": self.storage.to_json(),
            "version": self.version,
            "undo": None if self.undo is None else self.undo.to_json(),
            "redo": None if self.redo is None else self.redo.to_json(),
            "doubles": self.doubles,
            "bowser_waits": self.bowser_waits,
            "bowser_won": self.bowser_won,
            "board": [{"space": space, "coins": coins} for space, coins in self.board],
            "pot": None if self.pot is None else {"space": self.pot[0], "coins": self.pot[1]},
            "fight": None if self.fight is None else self.fight.to_json(),
            "race": None if self.race is None else self.race.to_json(),
            "next_card": None if self.next_card is None else self.next_card.to_json(),
            "requests": [r.to_json() for r in self.requests],
            "ring": None if self.ring is None else self.ring.to_json(),
            "bananas": list(self.bananas),
            "turn_rolled": self.turn_rolled,
            "landed": self.landed,
            "space_rolled": self.space_rolled,
            "turn": None if self.turn is None else self.turn.to_json(),
            "flow": dict(self.flow),
            "deeds": {str(space): pid for space, pid in self.holders},
        }
