"""A game's setup, as the page leads it (pure): what is on offer (``GET /api/setup``) and a
setup checked whole before anything is written (``POST /api/games``).

A setup names the edition, the players in seat order with their colours (from the table's
palette, each once), who starts, their characters (Gamer, Mario Kart) and the house rules
(the Free Parking pot where the edition offers it, a house-rules file of the edition). Every
problem is refused naming it, and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.core.editions import Editions, HouseFile, Ruleset
from companion.core.editions.house import POT
from companion.core.ledger import COLOURS, check_colours, check_names
from companion.exc import Refused, shown
from companion.i18n.said import Said, joined, say, say_n

HOUSE_KEYS = (POT, "files")
"""What a setup's ``house`` may hold."""


@dataclass(frozen=True, slots=True)
class Setup:
    """A setup checked whole: the ruleset the game plays by and everything it starts with."""

    rules: Ruleset
    names: list[str]
    colours: list[str]
    first: int = 0
    """The seat of who starts (the current player)."""
    characters: tuple[tuple[str, ...], ...] | None = None
    """Each seat's character ids (None: picked later, ``POST /api/characters``)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Kept with the game (``games.options``): the house rules chosen, when chosen."""


def check_setup(known: Editions, edition: object, players: object, colours: object = None,
                first: object = None, characters: object = None,
                house: object = None) -> Setup:
    """The setup, or Refused naming its first problem."""
    known.get_edition(edition)
    assert isinstance(edition, str)
    rules, options = _house(known, edition, house)
    names = check_names(players, rules.min_players, rules.max_players)  # type: ignore[arg-type]
    return Setup(rules, names, _colours(colours, len(names)), _first(first, names),
                 _characters(rules, characters, len(names)), options)


def _house(known: Editions, edition: str, house: object) -> tuple[Ruleset, dict[str, Any]]:
    """The ruleset a setup plays by and its house rules as the game keeps them (``house``
    left out: the edition as the companion knows it, as before setups)."""
    if house is None:
        return known[edition], {}
    if not isinstance(house, dict):
        raise Refused(say("house must be an object: {example}",
                          example='{"free_parking_pot": true, "files": []}'))
    extra = sorted(set(house) - set(HOUSE_KEYS))
    if extra:
        raise Refused(say("unknown house rule(s): {fields}; give {keys}",
                          fields=joined(extra), keys=joined(HOUSE_KEYS)))
    pot = house.get(POT, False)
    if not isinstance(pot, bool):
        raise Refused(say("{key} must be true or false", key=POT))
    files = house.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise Refused(say("files must be a list of house-rules file names"))
    offered = known.files_of(edition)
    for name in files:
        if name not in {f.file for f in offered}:
            raise Refused(say("unknown house rule {value}; {edition} has {files}",
                              value=shown(name), edition=Said(known[edition].name),
                              files=joined(f.file for f in offered) or say("none")))
    if len(files) > 1:
        raise Refused(say("one house-rules file at a time: each replaces the whole edition"))
    rules, _files = known.played(edition, {"house": {"files": files}})
    if pot and rules.pot is None:
        raise Refused(say("{edition} offers no Free Parking pot", edition=Said(rules.name)))
    return rules, {"house": {POT: pot, "files": list(files)}}


def _colours(colours: object, count: int) -> list[str]:
    if colours is None:
        return [COLOURS[seat % len(COLOURS)] for seat in range(count)]
    clean = check_colours(colours)
    if len(clean) != count:
        raise Refused(say_n("colours must list one colour for the {n} player",
                            "colours must list one colour for each of the {n} players", count))
    for seat, colour in enumerate(clean):
        if colour not in COLOURS:
            raise Refused(say("colour {value} is not one of the table's colours: {colours}",
                              value=colour, colours=joined(COLOURS)))
        if colour in clean[:seat]:
            raise Refused(say("two players can't both be {colour}", colour=colour))
    return clean


def _first(first: object, names: Sequence[str]) -> int:
    """Who starts: a seat (0 for the first name) or a name (any case); default the first."""
    if first is None:
        return 0
    if isinstance(first, int) and not isinstance(first, bool) and 0 <= first < len(names):
        return first
    if isinstance(first, str):
        wanted = first.casefold()
        for seat, name in enumerate(names):
            if name.casefold() == wanted:
                return seat
    raise Refused(say("first must be a player's seat (0 to {last}) or name, got {value}",
                      last=len(names) - 1, value=shown(first)))


def _characters(rules: Ruleset, characters: object, count: int
                ) -> tuple[tuple[str, ...], ...] | None:
    """Each seat's characters, as ``POST /api/characters`` checks one player's: as many as
    each player picks, each token once at the table."""
    if characters is None:
        return None
    powers = rules.powers
    if powers is None:
        raise Refused(say("{edition} has no characters", edition=Said(rules.name)))
    if not isinstance(characters, list) or len(characters) != count:
        raise Refused(say_n("characters must list the characters of the {n} player",
                            "characters must list each player's characters, one list for "
                            "each of the {n} players", count))
    want = powers.picks(count)
    seats: list[tuple[str, ...]] = []
    taken: set[str] = set()
    for picked in characters:
        if not isinstance(picked, list) or len(picked) != want:
            raise Refused(say_n("characters must list {n} character for each player in "
                                "a game of {players}",
                                "characters must list {n} characters for each player in "
                                "a game of {players}", want, players=count))
        ids = tuple(powers.character(c).id for c in picked)
        for character_id in ids:
            if character_id in taken or ids.count(character_id) > 1:
                raise Refused(say("{character} is picked twice: each character token is "
                                  "played by one player",
                                  character=Said(powers.character(character_id).name)))
        taken.update(ids)
        seats.append(ids)
    return tuple(seats)


# -- what is on offer ---------------------------------------------------------------------


def offer(known: Editions, last: Mapping[str, Any] | None, default: str) -> dict[str, Any]:
    """``GET /api/setup``: every edition with what its setup needs, the palette, the edition
    the config names, and the last game's players (to offer again, not typed in)."""
    return {"editions": [_edition(known, edition) for edition in known],
            "colours": list(COLOURS), "default_edition": default, "last": last}


def _edition(known: Editions, edition: str) -> dict[str, Any]:
    rules = known.packaged.get(edition, known[edition])
    files = known.files_of(edition)
    powers = rules.powers
    return {
        "id": rules.id, "name": rules.name, "house": rules.house,
        "players": {"min": rules.min_players, "max": rules.max_players,
                    "quote": list(rules.players.quote)},
        "start_coins": {str(n): rule.value for n, rule in sorted(rules.start.items())},
        "box_colours": list(rules.box_colours),
        "characters": None if powers is None else {
            "characters": [c.to_json() for c in powers.characters],
            "picks": {str(n): powers.picks(n)
                      for n in range(rules.min_players, rules.max_players + 1)},
            "quote": list(powers.quote)},
        "house_rules": _house_rules(known, edition, rules, files),
    }


def _house_rules(known: Editions, edition: str, rules: Ruleset,
                 files: tuple[HouseFile, ...]) -> list[dict[str, Any]]:
    """The house rules on offer: the pot (off unless chosen) and each house-rules file
    (``default``: it applies to a game started without choosing, as before setups)."""
    found: list[dict[str, Any]] = []
    if rules.pot is not None:
        found.append({**rules.pot.to_json(), "kind": "pot", "default": False})
    applies = known[edition]
    for f in files:
        found.append({**f.to_json(), "default": f.ruleset is applies})
    return found
