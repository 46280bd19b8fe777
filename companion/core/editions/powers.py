"""Characters and their abilities (Gamer, Mario Kart): the Power-up die's faces and each
character's Super Star, as the rulebooks print them, read into what they do to coins (pure).

The companion never rolls the Power-up die: the rulebooks print five abilities but not which
face repeats, so the table rolls its own die and taps what it shows. An :class:`Ability` says
who is hit and how many coins move; a character's :class:`Boost` replaces it when that
character uses it ("This replaces and enhances that Ability").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from companion.exc import Refused, shown
from companion.i18n.said import Said, joined, say


class Effect(StrEnum):
    """What an ability does to coins."""

    DROP = "drop"
    """Each player hit drops ``coins`` on the space they stand on."""
    DROP_GIVE = "drop_give"
    """Each player hit drops ``coins`` and gives the player ``give`` (Toad's Lightning)."""
    STEAL = "steal"
    """Each player hit gives the player ``coins`` (what they have, at most)."""
    COLLECT = "collect"
    """The player collects ``coins`` from the Bank."""
    COLLECT_ROLL = "collect_roll"
    """The player rolls the numbered die and collects that many plus ``coins``."""
    COLLECT_TYPED = "collect_typed"
    """The player collects what the table counts (Peach: rent per Property, typed)."""
    SCOOP_ALL = "scoop_all"
    """The player collects every pile on the board."""
    DROP_UP_TO = "drop_up_to"
    """The player may drop up to ``coins`` (typed) and moves that many spaces."""
    SHOWN = "shown"
    """Moves no coins: shown and logged (a Banana, a move)."""


class Targets(StrEnum):
    """Who an ability hits."""

    NONE = "none"
    ONE = "one"
    """One other player, chosen (the next on the board: the table knows who)."""
    TWO = "two"
    """One or two other players, chosen."""
    OTHERS = "others"
    """Every other player still in the game (two players: the opponent)."""


MOVES_ON_BOARD = (Effect.DROP, Effect.DROP_GIVE, Effect.DROP_UP_TO)
"""Effects whose coins land on a space (each dropping player's space is named)."""


def _what_it_does(x: Boost | Ability) -> dict[str, Any]:
    """The JSON an ability and a boost share: its effect and numbers, words and quote."""
    return {"effect": x.effect.value, "coins": x.coins, "targets": x.targets.value,
            "text": x.text, "quote": list(x.quote), "give": x.give,
            "spaces_instead": x.spaces_instead}


@dataclass(frozen=True, slots=True)
class Boost:
    """A character's special boost on one ability: it replaces the ability's numbers."""

    character: str
    effect: Effect
    coins: int
    targets: Targets
    text: str
    quote: tuple[str, ...]
    give: int = 0
    spaces_instead: bool = False
    """Mario Kart's Mario: collect the coins OR add up to 3 spaces to the roll."""

    def to_json(self) -> dict[str, Any]:
        return {"character": self.character, **_what_it_does(self)}


@dataclass(frozen=True, slots=True)
class Ability:
    """One face of the Power-up die, or a character's Super Star (``star``)."""

    id: str
    name: str
    effect: Effect
    coins: int
    targets: Targets
    text: str
    quote: tuple[str, ...]
    give: int = 0
    star: str | None = None
    """The character whose Super Star this is (None: a Power-up die face)."""
    boosts: tuple[Boost, ...] = ()
    spaces_instead: bool = False

    def for_character(self, character: str | None) -> Ability:
        """The ability as ``character`` uses it: their boost, if they have one."""
        boost = next((b for b in self.boosts if b.character == character), None)
        if boost is None:
            return self
        return replace(self, effect=boost.effect, coins=boost.coins, targets=boost.targets,
                       text=boost.text, give=boost.give, boosts=(),
                       spaces_instead=boost.spaces_instead)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, **_what_it_does(self), "star": self.star,
                "boosts": [b.to_json() for b in self.boosts]}


@dataclass(frozen=True, slots=True)
class Character:
    """A character token a player picks at the start."""

    id: str
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}


@dataclass(frozen=True, slots=True)
class Powers:
    """An edition's characters (each token once at the table) and abilities."""

    characters: tuple[Character, ...]
    abilities: tuple[Ability, ...]
    per_player: Mapping[int, int] = field(default_factory=dict)
    """Characters each player picks, by player count (two players: two each)."""
    quote: tuple[str, ...] = ()

    def character(self, value: object) -> Character:
        for character in self.characters:
            if value in (character.id, character.name):
                return character
        raise Refused(say("unknown character {value}: the characters are {characters}",
                          value=shown(value),
                          characters=joined(Said(c.name) for c in self.characters)))

    def ability(self, value: object, character: str | None) -> Ability:
        """A Power-up face, or ``super_star``: the character's own Super Star."""
        if value == "super_star":
            star = next((a for a in self.abilities if a.star is not None and
                         a.star == character), None)
            if star is None:
                raise Refused(say("super_star needs the character who landed on it"))
            return star
        for ability in self.abilities:
            if ability.star is None and ability.id == value:
                return ability
        faces = ", ".join(a.id for a in self.abilities if a.star is None)
        raise Refused(say("unknown ability {value}: the Power-up die shows {faces}, or "
                          "super_star", value=shown(value), faces=faces))

    def picks(self, players: int) -> int:
        return self.per_player.get(players, 1)

    def to_json(self) -> dict[str, Any]:
        return {"characters": [c.to_json() for c in self.characters],
                "abilities": [a.to_json() for a in self.abilities],
                "per_player": {str(k): v for k, v in sorted(self.per_player.items())},
                "quote": list(self.quote)}


@dataclass(frozen=True, slots=True)
class Move:
    """One coin movement an ability makes: ``kind`` drop (``player`` to the pile on
    ``space``), steal (``player`` pays ``to``), collect (the Bank pays ``player``) or scoop
    (the pile on ``space`` to ``player``)."""

    kind: str
    player: int
    coins: int
    space: str | None = None
    to: int | None = None


@dataclass(frozen=True, slots=True)
class Use:
    """What the table asked: who used which ability, on whom, and where the hit stand."""

    player: int
    ability: Ability
    targets: tuple[int, ...] = ()
    spaces: Mapping[int, str] = field(default_factory=dict)
    coins: int | None = None
    """Typed: Peach's rent, Toad's drop; Mario's Super Star roll."""
    spaces_instead: bool = False


def _an_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_targets(ability: Ability, player: int, targets: object,
                  others: Sequence[int]) -> tuple[int, ...]:
    """The players ``ability`` hits: chosen ones checked, or every other player."""
    if ability.targets is Targets.OTHERS:
        if targets not in (None, []) and (not isinstance(targets, list) or
                                          not all(map(_an_id, targets)) or
                                          sorted(targets) != sorted(others)):
            raise Refused(say("{ability} hits every other player: leave targets out",
                              ability=Said(ability.name)))
        return tuple(others)
    if ability.targets is Targets.NONE:
        if targets not in (None, []):
            raise Refused(say("{ability} hits nobody: leave targets out",
                              ability=Said(ability.name)))
        return ()
    most = 1 if ability.targets is Targets.ONE else 2
    if not isinstance(targets, list) or not 1 <= len(targets) <= most:
        name = Said(ability.name)
        raise Refused(say("targets must list one other player for {ability}", ability=name)
                      if most == 1 else
                      say("targets must list one or two other players for {ability}",
                          ability=name))
    if len(set(map(repr, targets))) != len(targets):
        raise Refused(say("targets lists a player twice"))
    for target in targets:
        if target == player:
            raise Refused(say("{ability} hits another player, not the one using it",
                              ability=Said(ability.name)))
        if not _an_id(target) or target not in others:  # 2.0 and true are no player's id
            raise Refused(say("targets: {value} is not another player in the game",
                              value=shown(target)))
    return tuple(targets)


def moves(use: Use, balances: Mapping[int, int], board: Mapping[str, int]) -> list[Move]:
    """The coin movements of ``use``, capped by what each player has ("Then drop or give any
    Coins you still owe"; with none, "do nothing")."""
    ability, player = use.ability, use.player
    left = dict(balances)
    out: list[Move] = []

    def take(who: int, n: int) -> int:
        paid = max(0, min(n, left.get(who, 0)))
        left[who] = left.get(who, 0) - paid
        return paid

    effect = ability.effect
    if effect in (Effect.DROP, Effect.DROP_GIVE):
        for target in use.targets:
            dropped = take(target, ability.coins)
            if dropped:
                out.append(Move("drop", target, dropped, use.spaces[target]))
            if effect is Effect.DROP_GIVE:
                given = take(target, ability.give)
                if given:
                    left[player] = left.get(player, 0) + given
                    out.append(Move("steal", target, given, to=player))
    elif effect is Effect.STEAL:
        for target in use.targets:
            stolen = take(target, ability.coins)
            if stolen:
                left[player] = left.get(player, 0) + stolen
                out.append(Move("steal", target, stolen, to=player))
    elif effect is Effect.COLLECT:
        if not use.spaces_instead and ability.coins:
            out.append(Move("collect", player, ability.coins))
    elif effect in (Effect.COLLECT_ROLL, Effect.COLLECT_TYPED):
        extra = ability.coins if effect is Effect.COLLECT_ROLL else 0
        total = (use.coins or 0) + extra
        if total:
            out.append(Move("collect", player, total))
    elif effect is Effect.SCOOP_ALL:
        out.extend(Move("scoop", player, coins, space) for space, coins in board.items()
                   if coins > 0)
    elif effect is Effect.DROP_UP_TO:
        dropped = take(player, use.coins or 0)
        if dropped:
            out.append(Move("drop", player, dropped, use.spaces[player]))
    return out


def typed_coins(ability: Ability, value: object) -> int | None:
    """The number an ability needs typed (a roll 1-6, Peach's rent, Toad's drop), checked."""
    effect = ability.effect
    if effect not in (Effect.COLLECT_ROLL, Effect.COLLECT_TYPED, Effect.DROP_UP_TO):
        if value is not None:
            raise Refused(say("{ability} takes no coins: leave coins out",
                              ability=Said(ability.name)))
        return None
    lo, hi = {Effect.COLLECT_ROLL: (1, 6), Effect.COLLECT_TYPED: (0, 200),
              Effect.DROP_UP_TO: (0, ability.coins)}[effect]
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        got = shown(value)
        raise Refused({
            Effect.COLLECT_ROLL: say("coins must be the numbered die's roll, 1 to 6, got "
                                     "{value}", value=got),
            Effect.COLLECT_TYPED: say("coins must be the rent counted, 0 to 200, got {value}",
                                      value=got),
            Effect.DROP_UP_TO: say("coins must be the coins dropped, 0 to {most}, got {value}",
                                   most=ability.coins, value=got)}[effect])
    return value
