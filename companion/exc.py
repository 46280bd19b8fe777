"""The companion's errors, one vocabulary for every part (as gpiozero's ``exc`` module).

Each class says what the person at the table can do about it, and the web maps it to a status:
:class:`Refused` is 400 (fix the input), :class:`Conflict` 409 (not now, the table's state
refuses it), :class:`Unavailable` 503 (a part is missing). None of them has changed anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from companion.i18n.said import Said


def shown(value: object, limit: int = 40) -> str:
    """A value as an error message quotes it: its repr, cut short if long (and a huge integer
    by its size), so a refusal never echoes a whole hostile input."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class CompanionError(Exception):
    """Base of every error the companion raises on purpose. Its message is English text or a
    :class:`~companion.i18n.said.Said` (``said``), which each reader puts into its own
    language; ``str()`` is the English."""

    def __init__(self, message: str | Said = "", *args: object) -> None:
        super().__init__(message, *args)
        self.said = message

    def __str__(self) -> str:
        return str(self.said)


class Refused(CompanionError, ValueError):
    """Bad input, or something the edition's rules do not allow: nothing was written."""


class Conflict(CompanionError):
    """A well-formed request the table's state refuses now (a game that has ended, a block that
    is still sounding)."""


class Blocked(Conflict):
    """A move that later moves depend on can't be undone yet: ``blocked_by`` lists them (move
    ids, the nearest first); the message names the nearest."""

    def __init__(self, message: str | Said, blocked_by: tuple[int, ...]) -> None:
        super().__init__(message)
        self.blocked_by = blocked_by


class AgainstTheRules(Conflict):
    """A move the rulebook does not allow now (the Bowser who waits on GO, a shell that hits
    the wrong player, a payment while the payer still holds Property to sell): ``quote`` says
    so in its words. The banker may make it all the same as a correction (``rule`` names
    what it corrects)."""

    def __init__(self, message: str | Said, rule: str, quote: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.rule = rule
        self.quote = quote

    def to_json(self) -> dict[str, Any]:
        """What a refusal says besides its words: the rule and its lines; a correction may
        make the move all the same."""
        from companion.i18n.said import texts

        return {**texts(error=self.said), "rule": self.rule, "quote": list(self.quote),
                "correction": True}


class OutOfTurn(AgainstTheRules):
    """A move out of its moment in the turn, or for a player whose turn it is not: the rule's
    ``moment`` and ``who`` (:mod:`companion.core.flow`) and its lines say when, and by whom."""

    def __init__(self, message: str | Said, rule: str, quote: tuple[str, ...], moment: str,
                 who: str) -> None:
        super().__init__(message, rule, quote)
        self.moment = moment
        self.who = who

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "moment": self.moment, "who": self.who}


class GameEnded(Conflict):
    """The game has ended: it is read-only (undo reopens it; export still reads it)."""


class BlockSounding(Conflict):
    """The block is still sounding its last outcome: the press is ignored, as on the unit."""


class Unavailable(CompanionError, RuntimeError):
    """A part the request needs is missing (the bank file, a device)."""

    saved: bool | None = False
    """Whether the request was written all the same: False (nothing was), None (not known: the
    disk failed while it was being committed), True (it was, just before the disk failed)."""


class SavedBeforeFailure(Unavailable):
    """A write the disk failed on while committing it, found in the journal afterwards: it
    stands (as move ``move``), though the bank takes no more writes now."""

    saved = True

    def __init__(self, message: str | Said, move: int) -> None:
        super().__init__(message)
        self.move = move


class RulesetError(CompanionError, ValueError):
    """An edition's rules file that does not have the expected shape (a packaging bug)."""
