"""House rules: what a table plays differently from the rulebook, chosen when a game starts and
named as such (pure).

Two kinds: the **Free Parking pot** (:class:`Pot`: fees and taxes paid to the Bank go on Free
Parking, and landing there scoops them all; offered by an edition's ``[free_parking_pot]``,
never by the rulebook), and the table's own **house-rules files** (:class:`HouseFile`: an
edition file in ``[game] house_rules`` that replaces the packaged edition of its ``id``:
:mod:`companion.core.editions.house_files`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.core.outcomes import Kind
from companion.i18n.said import say, texts

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


def chosen(options: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A game's house rules as its setup chose them (``options["house"]``); None for a game
    started without choosing (before setups, or from the config): it plays the edition as the
    companion knows it, a house-rules file of that edition included."""
    house = options.get("house")
    return house if isinstance(house, dict) else None


def pot_on(options: Mapping[str, Any]) -> bool:
    house = chosen(options)
    return bool(house and house.get(POT))
