"""An edition's rules: the one source of truth for every amount and rule the companion uses.

A :class:`Ruleset` is data read from the edition's TOML file (each number beside the rulebook
line it comes from) plus a little pure code: starting coins by player count, what a payment
larger than the balance does, how the game ends and how it is scored. The bank, the screen,
the tablet (through ``GET /api/rules``), the sounds and ``companion odds`` all ask it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from companion.core.board_ring import SpaceKind
from companion.core.editions.contests import Deck
from companion.core.editions.house import Pot
from companion.core.editions.modes import Mode
from companion.core.editions.powers import Powers
from companion.core.flow import When
from companion.core.ledger import MAX_POINTS
from companion.exc import Refused, shown
from companion.i18n.said import Said, say, texts


class Debt(StrEnum):
    """What happens when a player must pay more than they have."""

    BANKRUPTCY = "bankruptcy"
    """Balances may go below zero; the banker declares a player bankrupt to a creditor."""
    CAPPED = "capped"
    """A player pays what they have and no more ("Hang in there!")."""
    NONE = "none"
    """No coins in this game."""


PAD_AMOUNTS = (1, 2, 3, 4, 5, 10, 15, 20)
"""Quick keys on the tablet's and the phones' amount pads: a convenience, not a rule (no
rulebook prints "usual" amounts; README, where the rulebooks are silent). The edition's own
amounts, its jail fee and GO, are added from its rules (:meth:`Ruleset.quick_amounts`)."""

DEBT_WORDS: dict[Debt, str | Said] = {
    Debt.BANKRUPTCY: say("A player who can't pay is declared bankrupt to whom they owe: what "
                         "they have left goes there, coins they paid without having them go "
                         "back, and they are out."),
    Debt.CAPPED: say("A player who can't pay pays what they have."),
    Debt.NONE: "",
}
"""How the companion carries out each debt rule, in words for the tablet."""


class End(StrEnum):
    """How the game ends and who wins."""

    LAST_PLAYER = "last_player"
    """Everyone else went bankrupt: the last player with coins wins."""
    POINTS = "points"
    """The banker says the final Boss fight / Race is over: the highest score wins."""
    WORMS = "worms"
    """The first to find all their worms wins."""


@dataclass(frozen=True, slots=True)
class Rule:
    """A number and the rulebook lines it comes from."""

    value: int
    quote: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "quote": list(self.quote)}


@dataclass(frozen=True, slots=True)
class Reason:
    """A payment the rulebook names whose amount is printed on a game piece, not in the text
    (the Movie's Continue cost, on each deed): the pad offers its words, the table types the
    amount."""

    label: str
    note: str
    quote: tuple[str, ...]
    id: str = ""
    """What a payment names it by (``reason`` of ``POST /api/transfers``; a house rule's
    pot names it too)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "note": self.note,
                "quote": list(self.quote)}


class JailLast(StrEnum):
    """What the last miss from Jail does, where the table rolls its own die for a 6."""

    PAY = "pay"
    """Celebration: "pay 5 coins and use your last roll to move"."""
    FREE = "free"
    """Gamer, Mario Kart: "you may exit Jail for free and roll both dice normally on your next
    turn"."""


@dataclass(frozen=True, slots=True)
class JailRolls:
    """Rolling the table's die for a 6 from Jail: a 6 frees; a miss ends the turn; the
    ``tries``-th miss is the way out ``last`` says. (The Movie's block rolls for doubles
    instead: its ``jail_roll`` mode.)"""

    tries: int
    last: JailLast
    quote: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"tries": self.tries, "last": self.last.value, "quote": list(self.quote)}


@dataclass(frozen=True, slots=True)
class Board:
    """Coins dropped on the board's spaces, in piles anyone scoops up (Gamer, Mario Kart).
    ``spaces``: the ones the rulebook names (a page offers them; any other space's name, as
    printed on the board, is typed)."""

    spaces: tuple[str, ...]
    quote: tuple[str, ...]
    jail_space: str = "Just Visiting"
    """Where a player in Jail drops coins ("drop them on the Just Visiting space")."""
    kinds: Mapping[str, SpaceKind] = field(default_factory=dict)
    """The kinds of space the rulebook gives a rule for, by id (the table places them)."""
    bananas: int = 0
    """Mario Kart: the most Banana tokens on the board at once (one a space)."""
    bananas_quote: tuple[str, ...] = ()
    set_rent: Rule | None = None
    """How many times its rent a Property costs when its owner holds both of its colour set."""
    first_property: str = ""
    """The Property the rulebook says the board's Properties start with, from GO ("...
    starting with Acorn Plains"): the describe editor names the first Property so."""
    first_property_quote: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"spaces": list(self.spaces), "quote": list(self.quote),
                "jail_space": self.jail_space,
                "first_property": {"name": self.first_property,
                                   "quote": list(self.first_property_quote)}
                if self.first_property else None,
                "kinds": [k.to_json() for k in self.kinds.values()],
                "bananas": self.bananas, "bananas_quote": list(self.bananas_quote),
                "set_rent": None if self.set_rent is None else self.set_rent.to_json()}


@dataclass(frozen=True, slots=True)
class Scoring:
    """Points games: coins count in sets (``every`` coins are worth ``points``), printed
    points are typed in, and a tie goes to the most cards."""

    every: Rule
    points: int
    max_cards: Rule
    tie: tuple[str, ...]
    example: tuple[str, ...] = ()

    def coin_points(self, coins: int) -> int:
        """``Every five Coins is worth 10 points``: 13 coins are 20 points."""
        return (max(0, coins) // self.every.value) * self.points

    def to_json(self) -> dict[str, Any]:
        return {"every": self.every.to_json(), "points": self.points,
                "max_cards": self.max_cards.to_json(), "max_points": MAX_POINTS,
                "tie": list(self.tie), "example": list(self.example)}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One edition, as its rulebook says."""

    id: str
    name: str
    rulebook: str
    players: Rule
    """``value`` is the most players; ``min_players`` the fewest."""
    min_players: int
    start: Mapping[int, Rule]
    """Starting coins by player count."""
    pass_go: Rule | None
    jail_fee: Rule | None
    debt: Debt
    debt_quote: tuple[str, ...]
    end: End
    end_quote: tuple[str, ...]
    modes: tuple[Mode, ...]
    scoring: Scoring | None = None
    worms: Rule | None = None
    """Worm cards each player has to match (Wiggly Worms)."""
    worm_deck: Rule | None = None
    """Every worm card in the box, for the variant where they are dealt out."""
    dealt_quote: tuple[str, ...] = ()
    """The variant where the worm cards are shuffled and dealt out evenly."""
    turn_quote: tuple[str, ...] = ()
    """Time-up passes the turn (Wiggly Worms), unless everyone plays at once."""
    at_once_quote: tuple[str, ...] = ()
    """The rules' mode where everyone plays at the same time (the tablet can switch it on)."""
    notes: tuple[str, ...] = field(default=())
    """Where the rulebook is silent and what the companion does instead."""
    house: bool = False
    """Laid over the packaged edition from the table's own house rules folder."""
    toll: Rule | None = None
    """What a player pays the Bank when Bowser passes them (the Movie)."""
    bowser_wins: tuple[str, ...] = ()
    """The Movie: every deed on its Game Over side ends the game; everyone loses."""
    reasons: tuple[Reason, ...] = ()
    """Payments the rulebook names, amounts typed (the Movie's Continue cost)."""
    board: Board | None = None
    """Coins dropped on the board and scooped up (Gamer, Mario Kart)."""
    jail_rolls: JailRolls | None = None
    """Tries for a 6 from Jail with the table's own die (Celebration, Gamer, Mario Kart)."""
    powers: Powers | None = None
    """Characters and their abilities (Gamer, Mario Kart)."""
    contest: Deck | None = None
    """Boss fights or Races, and their decks (Gamer, Mario Kart)."""
    pot: Pot | None = None
    """The Free Parking pot, where the edition offers it as a house rule (never the
    rulebook's own: off unless a game's setup turns it on)."""
    box_colours: tuple[str, ...] = ()
    """Presentation, not rules: a few colours of the box's art, for the setup screen."""
    lines: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The rulebook's lines for a rule the companion checks besides its numbers and its flow
    (``[lines]``: Bowser waiting on GO, the Green Shell's target, a sale before a capped
    payment): a refusal quotes them."""
    flow: Mapping[str, When] = field(default_factory=dict)
    """Who may make each kind of move and when (``[flow.<name>]``, with the rulebook's words);
    a move the edition names none for keeps its own default (:meth:`when`)."""

    # -- the numbers -------------------------------------------------------------------------

    @property
    def max_players(self) -> int:
        return self.players.value

    @property
    def coins(self) -> bool:
        """False for games without money (Wiggly Worms)."""
        return self.debt is not Debt.NONE

    def start_coins(self, players: int) -> int:
        """Each player's coins at the start of a game of ``players``."""
        if players not in self.start:
            raise Refused(self._players_refused(players))
        return self.start[players].value

    def check_players(self, count: int) -> None:
        if not self.min_players <= count <= self.max_players:
            raise Refused(self._players_refused(count))

    def _players_refused(self, count: int) -> Said:
        return say("{edition} is for {least} to {most} players, got {count}",
                   edition=Said(self.name), least=self.min_players, most=self.max_players,
                   count=count)

    # -- the block -----------------------------------------------------------------------------

    @property
    def default_mode(self) -> Mode:
        return next(m for m in self.modes if m.default)

    def mode(self, mode_id: object) -> Mode:
        """A mode of this edition; Refused naming the ones it has."""
        for mode in self.modes:
            if mode.id == mode_id:
                return mode
        raise Refused(say("{edition} has no {mode} mode; it has {modes}",
                          edition=Said(self.name), mode=shown(mode_id),
                          modes=", ".join(m.id for m in self.modes)))

    def reason(self, reason_id: object) -> Reason:
        """A payment the rulebook names (``reasons``); Refused naming the ones there are."""
        for found in self.reasons:
            if found.id == reason_id:
                return found
        if not self.reasons:
            raise Refused(say("{edition} names no reasons for a payment",
                              edition=Said(self.name)))
        raise Refused(say("unknown reason {value}; {edition} has {reasons}",
                          value=shown(reason_id), edition=Said(self.name),
                          reasons=", ".join(r.id for r in self.reasons)))

    def find_mode(self, mode_id: str) -> Mode | None:
        return next((m for m in self.modes if m.id == mode_id), None)

    def mode_for_table(self, table: str) -> Mode | None:
        """The edition's mode that uses ``table`` (the Movie's ``jail_roll``), if any."""
        return next((m for m in self.modes if m.table == table), None)

    # -- the turn ------------------------------------------------------------------------------

    def when(self, name: str, default: When) -> When:
        """Who may make the move ``name`` and when, in this edition."""
        return self.flow.get(name, default)

    # -- money ---------------------------------------------------------------------------------

    def payable(self, amount: int, balance: int) -> int:
        """What a player with ``balance`` coins pays of ``amount``: all of it where balances
        may go below zero, what they have where payments are capped."""
        if self.debt is Debt.CAPPED:
            return max(0, min(amount, balance))
        return amount

    # -- the end -------------------------------------------------------------------------------

    @property
    def has_points(self) -> bool:
        return self.scoring is not None

    def worm_target(self, players: int, dealt: bool = False) -> int:
        """The worms each player has to find: their colour's cards, or, dealt out, an even
        share of the deck ("Each player should get the same number of cards. If there are
        extra cards, they wont be used in the game"): 20 // players."""
        assert self.worms is not None
        if dealt and self.worm_deck is not None and players:
            return self.worm_deck.value // players
        return self.worms.value

    @property
    def jail_tries(self) -> int | None:
        """How many tries out of Jail a player has, counted the same way in every edition
        that has them: the block's rolls for doubles (the Movie) or the table's die for a 6."""
        if self.jail_rolls is not None:
            return self.jail_rolls.tries
        mode = self.mode_for_table("jail_roll")
        return None if mode is None else int(mode.fees["tries"])

    def quick_amounts(self) -> list[dict[str, Any]]:
        """The amount pad's quick keys: :data:`PAD_AMOUNTS`, then the jail fee and GO (those
        ``named``, with the ``id`` of the payment they are: ``jail``, ``pass_go``), for an
        edition that keeps coins."""
        if not self.coins:
            return []
        keys: list[dict[str, Any]] = [{"coins": n, "label": str(n), "named": False}
                                      for n in PAD_AMOUNTS]
        for key, word, rule in (("jail", say("Jail"), self.jail_fee),
                                ("pass_go", say("GO"), self.pass_go)):
            if rule is not None:
                keys.append({"coins": rule.value, **texts(label=say(
                    "{word} {coins}", word=word, coins=rule.value)), "named": True,
                    "id": key})
        return keys

    def to_json(self) -> dict[str, Any]:
        """Everything a tablet needs to play this edition: ``GET /api/rules``."""
        return {
            "id": self.id, "name": self.name, "rulebook": self.rulebook,
            "players": {"min": self.min_players, "max": self.max_players,
                        "quote": list(self.players.quote)},
            "start_coins": {str(n): rule.to_json() for n, rule in sorted(self.start.items())},
            "pass_go": None if self.pass_go is None else self.pass_go.to_json(),
            "jail_fee": None if self.jail_fee is None else self.jail_fee.to_json(),
            "jail_rolls": None if self.jail_rolls is None else self.jail_rolls.to_json(),
            "jail_tries": self.jail_tries,
            "coins": self.coins,
            "debt": {"rule": self.debt.value, "quote": list(self.debt_quote),
                     **texts(text=DEBT_WORDS[self.debt])},
            "end": {"rule": self.end.value, "quote": list(self.end_quote)},
            "modes": [m.to_json() for m in self.modes],
            "default_mode": self.default_mode.id,
            "scoring": None if self.scoring is None else self.scoring.to_json(),
            "worms": None if self.worms is None else self.worms.to_json(),
            "worm_deck": None if self.worm_deck is None else self.worm_deck.to_json(),
            "dealt": list(self.dealt_quote),
            "turn": {"time_up_passes": bool(self.turn_quote), "quote": list(self.turn_quote),
                     "at_once": list(self.at_once_quote)},
            "notes": list(self.notes), "house_rules": self.house,
            "toll": None if self.toll is None else self.toll.to_json(),
            "bowser_wins": {"quote": list(self.bowser_wins)} if self.bowser_wins else None,
            "reasons": [r.to_json() for r in self.reasons],
            "board": None if self.board is None else self.board.to_json(),
            "powers": None if self.powers is None else self.powers.to_json(),
            "contest": None if self.contest is None else self.contest.to_json(),
            "quick_amounts": self.quick_amounts(),
            "free_parking_pot": None if self.pot is None else self.pot.to_json(),
            "box_colours": list(self.box_colours),
            "flow": {name: when.to_json() for name, when in sorted(self.flow.items())},
            "lines": {name: list(quote) for name, quote in sorted(self.lines.items())},
        }

    def summary(self) -> dict[str, Any]:
        """A short form for the list of editions (``GET /api/editions``)."""
        default = self.default_mode
        return {"id": self.id, "name": self.name, "min_players": self.min_players,
                "max_players": self.max_players,
                "start_balance": self.start_coins(self.max_players),
                "pass_go": 0 if self.pass_go is None else self.pass_go.value,
                "jail_fee": 0 if self.jail_fee is None else self.jail_fee.value,
                "question_block": default.moves_coins, "bank": self.coins,
                "default_mode": default.id, "modes": [m.id for m in self.modes],
                "end": self.end.value}
