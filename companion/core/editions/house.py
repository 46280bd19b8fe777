"""House rules: what a table plays differently from the rulebook, chosen when a game starts and
named as such (pure).

Two kinds: the **Free Parking pot** (:class:`Pot`: fees and taxes paid to the Bank go on Free
Parking, and landing there scoops them all; offered by an edition's ``[free_parking_pot]``,
never by the rulebook), and the table's own **house-rules files** (:class:`HouseFile`: an
edition file in ``[game] house_rules`` that replaces the packaged edition of its ``id``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.core.outcomes import Kind
from companion.i18n.said import Said, say, texts

if TYPE_CHECKING:
    from companion.core.editions.ruleset import Ruleset

POT = "free_parking_pot"
"""The Free Parking pot's id: in ``[game]``'s setup (``house``), the state and the rules."""
POT_NAME = say("Free Parking pot")
POT_TEXT = say("House rule: fees and taxes paid to the Bank go on Free Parking; whoever lands "
               "there scoops them all")

FIXED_PAYMENTS = ("jail", "toll", "bowser", "game_over", "piranha")
"""Payments to the Bank the companion makes itself, by name: the jail fee (paid, or after the
last try), Bowser's toll, and the block's outcomes that pay the Bank. A ruleset's ``reasons``
(a payment typed on the pad, e.g. a tax) are named by their ``id``."""

OUTCOME_PAYMENT = {Kind.BOWSER: "bowser", Kind.GAME_OVER: "game_over", Kind.PIRANHA: "piranha",
                   Kind.JAIL_PAID: "jail"}
"""The block's outcomes that pay the Bank, as the pot names them (the Movie's third miss from
Jail pays the jail fee)."""


@dataclass(frozen=True, slots=True)
class Fee:
    """One payment to the Bank that the pot takes instead, with the rulebook's line for it."""

    payment: str
    quote: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"payment": self.payment, "quote": list(self.quote)}


@dataclass(frozen=True, slots=True)
class Pot:
    """The Free Parking pot as an edition offers it: the ``space`` it lies on, what the
    rulebook itself says of that space (``quote``: the pot replaces it), and the ``fees`` that
    go on it while it is on."""

    space: str
    quote: tuple[str, ...]
    fees: tuple[Fee, ...]

    def takes(self, payment: str) -> bool:
        return any(f.payment == payment for f in self.fees)

    def to_json(self) -> dict[str, Any]:
        return {"id": POT, **texts(name=POT_NAME, description=POT_TEXT), "space": self.space,
                "quote": list(self.quote), "fees": [f.to_json() for f in self.fees]}


def payments(rules: Ruleset) -> tuple[str, ...]:
    """The payments to the Bank an edition can name for its pot: those it has."""
    tables = {m.table for m in rules.modes}
    have = {"jail": rules.jail_fee is not None, "toll": rules.toll is not None,
            "bowser": "question_block" in tables, "game_over": "question_block" in tables,
            "piranha": "red_die_pay" in tables}
    return (*(p for p in FIXED_PAYMENTS if have[p]), *(r.id for r in rules.reasons))


@dataclass(frozen=True, slots=True)
class HouseFile:
    """One file of ``[game] house_rules``: the edition it replaces (``ruleset``), named by
    its file (``file``, the id a setup sends), with a name and a line taken from it."""

    file: str
    ruleset: Ruleset
    name: str
    description: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.file, "kind": "file", "name": self.name,
                "description": self.description, "edition": self.ruleset.id}


def house_file(path: Path, text: str, ruleset: Ruleset) -> HouseFile:
    """A house-rules file as the setup offers it: named by its file ("kids_bowser.toml" is
    "kids bowser"), described by its first comment line (else its first note)."""
    name = " ".join(path.stem.replace("_", " ").replace("-", " ").split()) or path.name
    line = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        line = stripped.lstrip("#").strip()
        if line:
            break
    if not line and ruleset.notes:
        line = ruleset.notes[0]
    return HouseFile(path.name, ruleset, name, line)


def chosen(options: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A game's house rules as its setup chose them (``options["house"]``); None for a game
    started without choosing (before setups, or from the config): it plays the edition as the
    companion knows it, a house-rules file of that edition included."""
    house = options.get("house")
    return house if isinstance(house, dict) else None


def pot_on(options: Mapping[str, Any]) -> bool:
    house = chosen(options)
    return bool(house and house.get(POT))


def named(pot: Pot | None, files: tuple[HouseFile, ...]) -> tuple[tuple[str, str | Said], ...]:
    """A game's house rules as its header shows them: (id, name), the pot first."""
    first = ((POT, POT_NAME),) if pot is not None else ()
    return first + tuple((f.file, f.name) for f in files)
