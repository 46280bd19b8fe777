"""What the voice says, in words of the table's language (pure: no audio, no clock).

Every line is a gettext message (``companion/i18n/locales``), its numbers as digits (the voice
reads them in its own language) and its names as typed.
"""

from __future__ import annotations

from companion.core.editions.modes import SIDES, Mode
from companion.core.outcomes import Kind, Outcome
from companion.exc import Refused
from companion.i18n import Translator


def _(message: str) -> str:
    """Marks a message for the catalogs (read by ``pybabel extract``)."""
    return message


def outcome_line(t: Translator, outcome: Outcome, name: str | None) -> str | None:
    """"Luigi collects 4 coins", "Bowser! Peach pays 5 coins": what an outcome did to whom;
    None when there is nothing to say (nobody's, or a kind the voice leaves to the screen)."""
    if name is None:
        return None
    kind, n = outcome.kind, outcome.coins
    if kind is Kind.COINS or kind is Kind.SUPER_STAR:
        return t.ngettext("{name} collects {n} coin", "{name} collects {n} coins",
                          n).format(name=name, n=n)
    if kind is Kind.BOWSER:
        return t.ngettext("Bowser! {name} pays {n} coin", "Bowser! {name} pays {n} coins",
                          n).format(name=name, n=n)
    if kind is Kind.GAME_OVER:
        return t.ngettext("Game Over! {name} pays {n} coin", "Game Over! {name} pays {n} coins",
                          n).format(name=name, n=n)
    if kind is Kind.POWER_UP:
        return t.gettext("Power-up! {name} rolls again").format(name=name)
    if kind in (Kind.ROLL, Kind.RACE_ROLL, Kind.BOSS_LOST, Kind.BOSS_WON):
        return t.gettext("{name} rolled {n}").format(name=name, n=outcome.rolls[-1])
    if kind is Kind.MOVE:
        return t.ngettext("{name} moves {n} space", "{name} moves {n} spaces",
                          outcome.rolls[0]).format(name=name, n=outcome.rolls[0])
    return None


def turn_line(t: Translator, name: str, *, lever: bool = False) -> str:
    """"Mario's turn"; ``lever``: everyone plays at once, and Mario slides the lever next."""
    if lever:
        return t.gettext("{name} slides the lever").format(name=name)
    return t.gettext("{name}'s turn").format(name=name)


def seconds_line(t: Translator, seconds: int) -> str:
    """"10 seconds left" (the lever timer)."""
    return t.ngettext("{n} second left", "{n} seconds left", seconds).format(n=seconds)


def time_up_line(t: Translator) -> str:
    return t.gettext("Time is up!")



class _Faces:
    """A die that shows the faces given, in turn (to list what a mode can draw)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0) if self.faces else a


def outcomes_of(mode: Mode) -> tuple[Outcome, ...]:
    """Every outcome ``mode`` can draw with one press, priced by the edition's ruleset (the
    lines rendered ahead): each pair of faces read through the mode's own table."""
    found: dict[str, Outcome] = {}
    for first in range(1, SIDES + 1):
        for second in range(1, SIDES + 1):
            try:
                outcome = mode.draw(_Faces(first, second))
            except Refused:  # the lever: a press draws nothing
                return ()
            found.setdefault(outcome.label, outcome)
    return tuple(found.values())
