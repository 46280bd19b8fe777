"""Who may make a move, and when: the turn as the engine's own structure, as boardgame.io has
turn order, phases and stages. Pure.

The journal says where the table is in the current player's turn (a :class:`Turn`, read by
:func:`companion.bank.turns.turn_of`). Each kind of move has a :class:`When` in each edition:
the edition's ``[flow.<name>]`` with the rulebook's words, else the move's own default (any
time). :func:`refusal` says why a move may not be made now (None: it may). The banker may
make it all the same as a *correction*, which the journal records as one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from companion.i18n.said import Said, say


class Moment(StrEnum):
    """Where in the current player's turn a move belongs."""

    START = "start"
    """The start of the turn, before the roll: the jail fee, a roll for a 6, a Get Out of
    Jail Free card, the Movie's Continue cost."""
    TURN = "turn"
    """Any time in the turn: the roll itself, moving, the space landed on, the Power-up die."""
    END = "end"
    """The end of a turn that landed on or passed GO: the Boss or Grand Prix card."""
    ANY = "any"
    """Any time, whoever's turn it is: payments between players, trades, the banker's
    bookkeeping."""
    NEVER = "never"
    """Not a move of this edition's rulebook: only as the banker's correction."""


class Who(StrEnum):
    """Who may make a move."""

    CURRENT = "current"
    """The current player: the player the move names must be them (a trade: one side)."""
    NAMED = "named"
    """Any player still in the game, named by the move (an auction's winner, a player hit)."""
    BANKER = "banker"
    """The banker, keeping the table's books."""


@dataclass(frozen=True, slots=True)
class When:
    """Who may make a kind of move and at which moment, with the rulebook's words."""

    moment: Moment = Moment.ANY
    who: Who = Who.NAMED
    quote: tuple[str, ...] = ()
    once: bool = False
    """At most once a turn ("You can use up to 3 turns to try for a 6": one try a turn)."""

    @property
    def free(self) -> bool:
        """Made at any time by anyone: nothing to check."""
        return self.moment is Moment.ANY and self.who is not Who.CURRENT

    def to_json(self) -> dict[str, Any]:
        return {"moment": self.moment.value, "who": self.who.value, "quote": list(self.quote),
                "once": self.once}


ANY_TIME = When()
"""A move with no moment of its own: any time, by the player it names."""
BANKERS = When(who=Who.BANKER)
"""The banker's bookkeeping: any time."""


@dataclass(frozen=True, slots=True)
class Turn:
    """The current player's turn, as the journal tells it."""

    player: int | None
    """Whose turn it is (None: nobody is current)."""
    began: int = 0
    """The move the turn began after (0: the game's start)."""
    rolled: bool = False
    """They have rolled or moved this turn (a press given to them, their token moved, GO
    passed, a roll from Jail, Bowser moved): the start of the turn is over."""
    made: frozenset[str] = frozenset()
    """The kinds of move made for them this turn (for a move made once a turn)."""
    go_passed: bool = False
    """They landed on or passed GO this turn and no card was flipped since (Gamer, Mario
    Kart: the card is flipped at the end of the turn)."""
    jailed: Mapping[int, int] = field(default_factory=dict)
    """Each player in Jail -> the move that sent them (a move at the start of the turn is
    for a player who was in Jail before it began)."""
    acquired: frozenset[int] = frozenset()
    """Players who were a bankrupt player's creditor this turn (the Movie: they may pay the
    Continue cost of the deeds they acquired at once)."""
    past_outcomes: int = 0
    """The block's outcomes up to this id belong to turns that have passed (a page shows them
    as history, not as news); an outcome that passed the turn itself (going to Jail) belongs
    to the turn it began until the turn passes again."""

    @property
    def moment(self) -> Moment:
        return Moment.TURN if self.rolled else Moment.START

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "began": self.began, "moment": self.moment.value,
                "rolled": self.rolled, "go_passed": self.go_passed,
                "past_outcomes": self.past_outcomes}


Name = Callable[[object], "str | Said"]


def refusal(when: When, turn: Turn, actors: Collection[int], name: Name, *,
            kind: str | None = None) -> Said | None:
    """Why a move may not be made now by ``actors`` (the players it names as making it; a
    trade names both sides), or None: it may. ``kind``: the move kind it writes, for a move
    made once a turn."""
    if when.moment is Moment.NEVER:
        return say("the rulebook has no such move: the banker may record it as a correction")
    if when.who is Who.CURRENT or when.moment in (Moment.START, Moment.TURN, Moment.END):
        if turn.player is None:
            return say("nobody is current: make a player current first")
        if when.who is Who.CURRENT and turn.player not in actors:
            who = name(next(iter(actors))) if actors else name(None)
            return say("it is {current}'s turn: {name} may do this only on their own turn",
                       current=name(turn.player), name=who)
    player = turn.player
    if when.moment is Moment.START:
        if turn.rolled:
            return say("{name} has rolled this turn: this comes at the start of the turn, "
                       "before the roll", name=name(player))
        sent = turn.jailed.get(player) if player is not None else None
        if sent is not None and sent > turn.began:
            return say("{name} went to Jail this turn: this comes at the start of their next "
                       "turn", name=name(player))
    if when.moment is Moment.END and not turn.go_passed:
        return say("{name} has not landed on or passed GO this turn: the card is flipped at "
                   "the end of a turn that did", name=name(player))
    if when.once and kind is not None and kind in turn.made:
        return say("{name} has done this once this turn already: once a turn",
                   name=name(player))
    return None
