"""The board's ring as the table described it (Gamer, Mario Kart): its spaces in order from GO,
what each one does, and the walk of a token around it (pure).

The spaces are printed on the board, not in the rulebooks, so the companion never invents them:
the table says how many there are and what is printed where, once, and it is kept for the next
game. What each *kind* of space does is the rulebook's (the edition's ``[[board.kinds]]``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from companion.exc import Refused, shown
from companion.i18n.said import say

MIN_SPACES = 8
MAX_SPACES = 64
MAX_NAME = 40
MAX_DEED_POINTS = 1000
FACES = 6
"""The Power-up die has six faces; the rulebooks print five abilities (one repeats)."""
DEED_NUMBERS = ("points", "price", "rent")
"""What a Property's deed and space print, typed by the table once (each optional)."""
JAIL_CORNER = -1
"""A token's position while it is In Jail (it leaves from the Just Visiting space)."""


class Effect(StrEnum):
    """What landing on (or passing) a kind of space does, as the rulebooks say."""

    GO = "go"
    """Passing or landing collects the edition's GO coins."""
    PROPERTY = "property"
    """A Property: bought, auctioned or rented (its deed's points typed once)."""
    WARP = "warp"
    """Advance to the next space of the same kind, scooping on the way."""
    COIN_ROLL = "coin_roll"
    """Roll the numbered die and collect that many (Coin Block, Item Box)."""
    DROP = "drop"
    """Drop ``coins`` on the space (Thwomp)."""
    VISIT = "visit"
    """Just Visiting: the jail corner."""
    TO_JAIL = "to_jail"
    """Go to Jail: straight there, no coins on the way."""
    STAR = "star"
    """Super Star: the character's Super Star ability."""
    BOOST = "boost"
    """Boost Pad: roll the numbered die and move forward again."""
    REST = "rest"
    """Nothing happens (Free Parking)."""


@dataclass(frozen=True, slots=True)
class SpaceKind:
    """A kind of space the rulebook names, and what it does."""

    id: str
    name: str
    effect: Effect
    quote: tuple[str, ...]
    coins: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "effect": self.effect.value,
                "coins": self.coins, "quote": list(self.quote)}


@dataclass(frozen=True, slots=True)
class Space:
    """One printed space: its kind (None: one the rulebook gives no rule for), its name as
    printed (may be empty: "space 17"), and for a Property the points on its deed."""

    kind: str | None = None
    name: str = ""
    points: int | None = None
    price: int | None = None
    """A Property: the price printed on the space ("Pay the price on the space")."""
    rent: int | None = None
    """A Property: the rent on its Title Deed card (doubled with both of its colour set)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        for key in DEED_NUMBERS:
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True, slots=True)
class Walk:
    """A token's way from ``start``: the spaces passed and landed on (not the start), in
    order, and whether it passed or landed on GO."""

    start: int
    path: tuple[int, ...]
    passed_go: bool

    @property
    def end(self) -> int:
        return self.path[-1] if self.path else self.start


@dataclass(frozen=True, slots=True)
class Ring:
    """The board as the table described it: spaces from GO (0) clockwise, and the Power-up
    die's six faces (ability ids, or empty until typed)."""

    spaces: tuple[Space, ...]
    kinds: Mapping[str, SpaceKind]
    faces: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    """The labels, worked out once (:func:`check_ring` fills them)."""

    def __len__(self) -> int:
        return len(self.spaces)

    def effect(self, index: int) -> Effect | None:
        kind = self.spaces[index].kind
        return None if kind is None else self.kinds[kind].effect

    def kind(self, index: int) -> SpaceKind | None:
        kind = self.spaces[index].kind
        return None if kind is None else self.kinds[kind]

    def label(self, index: int) -> str:
        """The space's one name (its pile's): as printed, numbered when the board prints the
        same name twice ("Warp Pipe 15"), "space 17" when the table left it unnamed."""
        return self.labels()[index]

    def _bare(self, index: int) -> str:
        space = self.spaces[index]
        return space.name or (self.kinds[space.kind].name if space.kind else "")

    def labels(self) -> tuple[str, ...]:
        """Every space's label, in order (worked out once per ring)."""
        if self.names:
            return self.names
        bare = [self._bare(i) for i in range(len(self.spaces))]
        count = Counter(b.casefold() for b in bare if b)
        return tuple(f"space {i}" if not b else f"{b} {i}" if count[b.casefold()] > 1 else b
                     for i, b in enumerate(bare))

    def find(self, label: str) -> int | None:
        """The space a label names (any case), or None."""
        folded = label.casefold()
        return next((i for i, x in enumerate(self.labels()) if x.casefold() == folded), None)

    def of_effect(self, effect: Effect) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.spaces)) if self.effect(i) is effect)

    @property
    def jail_corner(self) -> int:
        """The Just Visiting space (where a token In Jail is, and leaves from)."""
        visits = self.of_effect(Effect.VISIT)
        return visits[0] if visits else 0

    def at(self, position: int) -> int:
        """A position as a space (In Jail: the jail corner; past the end: wrapped)."""
        return self.jail_corner if position == JAIL_CORNER else position % len(self.spaces)

    def nearest(self, start: int, others: Mapping[int, int], *,
                behind: bool = False) -> frozenset[int]:
        """The players of ``others`` (player -> the space they stand on) nearest ahead of
        ``start`` ("the next player on the board, from your position"), or nearest behind
        it; ties all (the table chooses one). A player on the same space is a whole lap
        away."""
        size = len(self.spaces)

        def away(space: int) -> int:
            gap = (space - start) % size if not behind else (start - space) % size
            return gap or size

        if not others:
            return frozenset()
        least = min(away(space) for space in others.values())
        return frozenset(p for p, space in others.items() if away(space) == least)

    def walk(self, start: int, steps: int, stops: frozenset[int] = frozenset()) -> Walk:
        """Forward ``steps`` spaces from ``start``; a space in ``stops`` (a Banana) ends the
        walk there."""
        here = self.at(start)
        path: list[int] = []
        for _ in range(steps):
            here = (here + 1) % len(self.spaces)
            path.append(here)
            if here in stops:
                break
        return Walk(self.at(start), tuple(path), any(self.effect(i) is Effect.GO for i in path))

    def warp(self, start: int) -> Walk:
        """From a space to the next space of its kind, clockwise (a Warp Pipe's)."""
        kind = self.spaces[start].kind
        n = len(self.spaces)
        for step in range(1, n):
            if self.spaces[(start + step) % n].kind == kind:
                return self.walk(start, step)
        return Walk(start, (), False)

    def ahead(self, start: int, steps: int) -> int:
        """How far ``steps`` spaces on from ``start`` is (the next player "on the board")."""
        return (self.at(start) + steps) % len(self.spaces)

    def distance(self, start: int, to: int) -> int:
        """Spaces forward from ``start`` to ``to`` (0: the same space)."""
        return (self.at(to) - self.at(start)) % len(self.spaces)

    def to_json(self) -> dict[str, Any]:
        return {"spaces": [s.to_json() for s in self.spaces], "labels": list(self.labels()),
                "faces": list(self.faces), "jail_corner": self.jail_corner}


def check_ring(data: object, kinds: Mapping[str, SpaceKind], abilities: Sequence[str] = ()
               ) -> Ring:
    """The table's description of the board, checked: 8 to 64 spaces from GO (space 0 is GO),
    each a known kind or none, names 0-40 printable characters, points, price and rent 0-1000
    on a Property;
    one Just Visiting space where the edition has one; the Power-up die's faces: none yet, or
    six of the edition's abilities with each ability on at least one face."""
    if not isinstance(data, Mapping):
        raise Refused(say("the board must be an object with its spaces"))
    unknown = sorted(set(data) - {"spaces", "faces"})
    if unknown:
        raise Refused(say("unknown field {value} in the board", value=shown(unknown[0])))
    raw = data.get("spaces")
    if not isinstance(raw, list) or not MIN_SPACES <= len(raw) <= MAX_SPACES:
        raise Refused(say("spaces must list the board's {lo} to {hi} spaces, from GO",
                          lo=MIN_SPACES, hi=MAX_SPACES))
    spaces = tuple(_space(x, i, kinds) for i, x in enumerate(raw))
    go = [k.id for k in kinds.values() if k.effect is Effect.GO]
    if go and spaces[0].kind not in go:
        raise Refused(say("spaces: the first space is GO (the tokens start there)"))
    for effect in (Effect.GO, Effect.VISIT):
        ids = {k.id for k in kinds.values() if k.effect is effect}
        if ids and sum(1 for s in spaces if s.kind in ids) > 1:
            raise Refused(say("spaces: the board has one {space}",
                              space=next(k.name for k in kinds.values() if k.id in ids)))
    faces = check_faces(data.get("faces", []), abilities)
    ring = Ring(spaces, kinds, faces)
    ring = replace(ring, names=ring.labels())
    seen: dict[str, int] = {}
    for index, label in enumerate(ring.labels()):
        other = seen.setdefault(label.casefold(), index)
        if other != index:
            raise Refused(say("spaces: spaces {a} and {b} would both be called {name}: name "
                              "one otherwise", a=other, b=index, name=label))
    return ring


def _space(data: object, index: int, kinds: Mapping[str, SpaceKind]) -> Space:
    if not isinstance(data, Mapping) or set(data) - {"kind", "name", *DEED_NUMBERS}:
        raise Refused(say("spaces: space {n} must be an object with kind, name, points, "
                          "price and rent", n=index))
    kind = data.get("kind")
    if kind is not None and (not isinstance(kind, str) or kind not in kinds):
        raise Refused(say("spaces: space {n}'s kind {value} is not one of this board's",
                          n=index, value=shown(kind)))
    name = data.get("name", "")
    if not isinstance(name, str):
        raise Refused(say("spaces: space {n}'s name must be text", n=index))
    name = " ".join(name.split())
    if len(name) > MAX_NAME or not name.isprintable():
        raise Refused(say("spaces: space {n}'s name must be at most {most} printable "
                          "characters", n=index, most=MAX_NAME))
    numbers: dict[str, int | None] = {}
    for key in DEED_NUMBERS:
        value = data.get(key)
        if value is not None and (kind is None or kinds[kind].effect is not Effect.PROPERTY):
            raise Refused(say("spaces: only a Property has {field} (space {n})", field=key,
                              n=index))
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or not 0 <= value <= MAX_DEED_POINTS):
            raise Refused(say("spaces: space {n}'s {field} must be a whole number from 0 to "
                              "{most}", n=index, field=key, most=MAX_DEED_POINTS))
        numbers[key] = value
    return Space(kind, name, **numbers)  # type: ignore[arg-type]


def check_faces(data: object, abilities: Sequence[str]) -> tuple[str, ...]:
    if data in ([], None):
        return ()
    if not isinstance(data, list) or len(data) != FACES or not abilities:
        raise Refused(say("faces must list the Power-up die's {n} faces (or none yet)",
                          n=FACES))
    for face in data:
        if face not in abilities:
            raise Refused(say("faces: {value} is not one of this edition's Power-up "
                              "abilities", value=shown(face)))
    missing = [a for a in abilities if a not in data]
    if missing:
        raise Refused(say("faces: {value} is on no face (the rulebook prints every "
                          "ability on the die)", value=shown(missing[0])))
    return tuple(data)
