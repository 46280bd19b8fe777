"""Editions as rulesets: each game's numbers and rules as data (a TOML file beside this module,
every number with the rulebook line it comes from) and the pure code that reads them.

:class:`Editions` is the registry the rest of the companion asks: the packaged editions, or
those with a table's house rules laid over them (``[game] house_rules``: a folder of TOML files
in the same shape, each replacing the packaged edition of its ``id``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from companion.core.board_ring import Effect as SpaceEffect
from companion.core.board_ring import SpaceKind
from companion.core.editions.contests import ContestKind, Deck
from companion.core.editions.house import Fee, Pot, chosen
from companion.core.editions.house_files import HouseFile, house_file, payments
from companion.core.editions.modes import NUMBERS, TABLES, Mode
from companion.core.editions.powers import Ability, Boost, Character, Effect, Powers, Targets
from companion.core.editions.ruleset import (
    Board,
    Debt,
    End,
    JailLast,
    JailRolls,
    Reason,
    Rule,
    Ruleset,
    Scoring,
)
from companion.core.flow import Moment, When, Who
from companion.core.ledger import MAX_NOTE
from companion.exc import Refused, RulesetError, shown
from companion.i18n.said import joined, say

__all__ = ["Editions", "HouseFile", "Mode", "Ruleset", "editions"]

MAX_PLAYERS = 6
"""No edition seats more than six (the tablet has room for six tiles)."""


class Editions(Mapping[str, Ruleset]):
    """The editions the table can play, by id: each as packaged, or as a house-rules file of
    the table's replaces it (``files``, by file name; the one of an edition whose name sorts
    last wins, as it always has)."""

    def __init__(self, rulesets: Mapping[str, Ruleset], house_rules: Path | None = None, *,
                 packaged: Mapping[str, Ruleset] | None = None,
                 files: Mapping[str, HouseFile] | None = None) -> None:
        self._rulesets = dict(rulesets)
        self.house_rules = house_rules
        self.packaged = dict(rulesets if packaged is None else packaged)
        """Each edition as the box's rulebook has it (before house-rules files)."""
        self.files = dict(files or {})
        """The house-rules files, by file name."""

    def __getitem__(self, edition: str) -> Ruleset:
        return self._rulesets[edition]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rulesets)

    def __len__(self) -> int:
        return len(self._rulesets)

    def get_edition(self, edition: object) -> Ruleset:
        """An edition by id; Refused naming the known ones."""
        if isinstance(edition, str) and edition in self._rulesets:
            return self._rulesets[edition]
        raise Refused(say("unknown edition {value}; known: {editions}", value=shown(edition),
                          editions=joined(self)))

    def files_of(self, edition: str) -> tuple[HouseFile, ...]:
        """The house-rules files that replace ``edition`` (a setup may pick one)."""
        return tuple(f for name, f in sorted(self.files.items()) if f.ruleset.id == edition)

    def played(self, edition: str, options: Mapping[str, Any]) -> tuple[Ruleset,
                                                                        tuple[HouseFile, ...]]:
        """The ruleset a game of ``edition`` plays by, and the house-rules files it came
        from: the files its setup chose (``options["house"]``; none chosen: as packaged), or,
        for a game that chose none (before setups, from the config), the edition as known
        now. A chosen file since taken away: the edition as known now."""
        house = chosen(options)
        if house is None:
            ruleset = self._rulesets[edition]
            return ruleset, tuple(f for f in self.files_of(edition) if f.ruleset is ruleset)
        picked = [self.files[name] for name in house.get("files", ()) if name in self.files
                  and self.files[name].ruleset.id == edition]
        if picked:
            return picked[-1].ruleset, tuple(picked)
        if house.get("files") or edition not in self.packaged:
            return self._rulesets[edition], ()
        return self.packaged[edition], ()

    def with_house_rules(self, folder: Path) -> Editions:
        """These editions with the TOML files in ``folder`` laid over them; RulesetError
        names the file and the problem."""
        rulesets = dict(self._rulesets)
        files: dict[str, HouseFile] = {}
        try:
            paths = sorted(p for p in folder.iterdir() if p.suffix == ".toml")
        except OSError as exc:
            raise RulesetError(f"{folder}: cannot read the house rules folder: "
                               f"{exc.strerror or exc}") from None
        for path in paths:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise RulesetError(f"{path}: cannot read it: {exc}") from None
            ruleset = parse(_toml(text, path.name), path.name, house=True)
            rulesets[ruleset.id] = ruleset
            files[path.name] = house_file(path, text, ruleset)
        return Editions(rulesets, folder, packaged=self.packaged, files=files)


def editions() -> Editions:
    """The packaged editions."""
    return _packaged()


@cache
def _packaged() -> Editions:
    found: dict[str, Ruleset] = {}
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            ruleset = parse(_toml(entry.read_text(encoding="utf-8"), entry.name), entry.name)
            if f"{ruleset.id}.toml" != entry.name:
                raise RulesetError(f"{entry.name}: id {ruleset.id!r} must match the file name")
            found[ruleset.id] = ruleset
    return Editions(found)


def _toml(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except ValueError as exc:
        raise RulesetError(f"{origin}: not valid TOML: {exc}") from None


# -- reading one file, strictly ----------------------------------------------------------------


class _Reader:
    """Takes values out of one TOML table, naming the key in every complaint."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise RulesetError(f"{where}: must be a table")
        self.data = dict(data)
        self.where = where

    def _fail(self, key: str, problem: str) -> RulesetError:
        return RulesetError(f"{self.where}.{key}: {problem}")

    def take(self, key: str, kind: type, default: object = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise self._fail(key, "is missing")
            return default
        value = self.data.pop(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self._fail(key, f"must be {kind.__name__}, got {value!r}")
        return value

    def count(self, key: str, lo: int = 0, hi: int = 10_000, default: object = ...) -> int:
        value = self.take(key, int, default)
        if not lo <= value <= hi:
            raise self._fail(key, f"must be between {lo} and {hi}, got {value}")
        return int(value)

    def lines(self, key: str, *, required: bool = True) -> tuple[str, ...]:
        value = self.take(key, list, [] if not required else ...)
        if not all(isinstance(v, str) and v.strip() for v in value) or (required and not value):
            raise self._fail(key, "must be a list of the rulebook's lines (text)")
        return tuple(value)

    def table(self, key: str) -> _Reader | None:
        if key not in self.data:
            return None
        return _Reader(self.data.pop(key), f"{self.where}.{key}")

    def done(self) -> None:
        if self.data:
            raise RulesetError(f"{self.where}: unknown keys {sorted(self.data)}")


def parse(data: dict[str, Any], origin: str, *, house: bool = False) -> Ruleset:
    """One edition from its parsed TOML; RulesetError names the file and the key."""
    top = _Reader(data, origin)
    edition = top.take("id", str)
    if not edition.isidentifier():
        raise RulesetError(f"{origin}.id: must be a name like 'celebration', got {edition!r}")
    name = top.take("name", str)
    rulebook = top.take("rulebook", str, "house rules" if house else ...)
    notes = top.lines("notes", required=False)

    players = top.table("players")
    if players is None:
        raise RulesetError(f"{origin}.players: is missing")
    least = players.count("min", 2, MAX_PLAYERS)
    most = players.count("max", least, MAX_PLAYERS)
    players_rule = Rule(most, players.lines("quote"))
    players.done()

    start: dict[int, Rule] = {}
    for i, row in enumerate(top.take("start", list)):
        reader = _Reader(row, f"{origin}.start[{i}]")
        counts = reader.take("players", list)
        rule = Rule(reader.count("coins"), reader.lines("quote"))
        reader.done()
        for n in counts:
            if not isinstance(n, int) or n in start or not least <= n <= most:
                raise RulesetError(f"{origin}.start[{i}].players: each count once, within "
                                   f"{least}-{most}, got {n!r}")
            start[n] = rule
    if sorted(start) != list(range(least, most + 1)):
        raise RulesetError(f"{origin}.start: must give the coins for every player count "
                           f"{least}-{most}")

    debt_reader = top.table("debt")
    if debt_reader is None:
        raise RulesetError(f"{origin}.debt: is missing")
    debt = _choice(debt_reader, "rule", Debt)
    debt_quote = debt_reader.lines("quote", required=debt is not Debt.NONE)
    debt_reader.done()

    go = _amount(top.table("go"), "coins")
    jail, jail_rolls = _jail(top.table("jail"))
    toll = _amount(top.table("toll"), "coins")
    bowser_reader = top.table("bowser_wins")
    bowser_wins: tuple[str, ...] = ()
    if bowser_reader is not None:
        bowser_wins = bowser_reader.lines("quote")
        bowser_reader.done()
    coins = debt is not Debt.NONE
    if not coins and (go or jail or toll or any(r.value for r in start.values())):
        raise RulesetError(f"{origin}: a game without coins has no GO, jail fee, toll or "
                           "starting coins")
    if coins and go is None:
        raise RulesetError(f"{origin}.go: is missing (what passing GO pays)")

    end_reader = top.table("end")
    if end_reader is None:
        raise RulesetError(f"{origin}.end: is missing")
    end = _choice(end_reader, "rule", End)
    end_quote = end_reader.lines("quote")
    end_reader.done()

    scoring = _scoring(top.table("scoring"), origin)
    worms_reader = top.table("worms")
    worms = deck = None
    dealt: tuple[str, ...] = ()
    if worms_reader is not None:
        worms = Rule(worms_reader.count("cards", 1, 20), worms_reader.lines("quote"))
        if "deck" in worms_reader.data:
            deck = Rule(worms_reader.count("deck", 1, 100), worms_reader.lines("deck_quote"))
            dealt = worms_reader.lines("dealt_quote")
        worms_reader.done()
    turn_quote: tuple[str, ...] = ()
    at_once: tuple[str, ...] = ()
    turn = top.table("turn")
    if turn is not None:
        turn_quote = turn.lines("quote")
        at_once = turn.lines("at_once", required=False)
        turn.done()
    if (end is End.POINTS) != (scoring is not None):
        raise RulesetError(f"{origin}: a game won on points needs [scoring], and only it")
    if (end is End.WORMS) != (worms is not None):
        raise RulesetError(f"{origin}: a game won on worms needs [worms], and only it")
    if end is End.LAST_PLAYER and debt is not Debt.BANKRUPTCY:
        raise RulesetError(f"{origin}: the last player standing needs debt rule 'bankruptcy'")

    board = _board(top.table("board"))
    if board is not None and not coins:
        raise RulesetError(f"{origin}.board: a game without coins has no coins on the board")
    reasons = tuple(_reason(row, f"{origin}.reasons[{i}]")
                    for i, row in enumerate(top.take("reasons", list, [])))
    if reasons and not coins:
        raise RulesetError(f"{origin}.reasons: a game without coins has no payments")
    if len({r.id for r in reasons}) != len(reasons):
        raise RulesetError(f"{origin}.reasons: two reasons share an id")
    box_colours = _presentation(top.table("presentation"))
    powers = _powers(top.table("powers"), least, most)
    contest = _contest(top.table("contest"), least, most)
    if (powers is not None or contest is not None) and board is None:
        raise RulesetError(f"{origin}: characters and contests need coins on the [board]")
    modes = tuple(_mode(row, f"{origin}.modes[{i}]")
                  for i, row in enumerate(top.take("modes", list)))
    if [m.default for m in modes].count(True) != 1:
        raise RulesetError(f"{origin}.modes: exactly one mode must be the default")
    if len({m.id for m in modes}) != len(modes):
        raise RulesetError(f"{origin}.modes: two modes share an id")
    if jail_rolls is not None and any(m.table == "jail_roll" for m in modes):
        raise RulesetError(f"{origin}.jail: tries for a 6 or a mode that rolls for doubles "
                           "from Jail, not both")
    if any(m.automatic and m.default for m in modes):
        raise RulesetError(f"{origin}.modes: rolling out of Jail can't be the default mode")
    if not coins and any(m.moves_coins for m in modes):
        raise RulesetError(f"{origin}.modes: a game without coins has no mode that moves "
                           "coins")
    ruleset = Ruleset(id=edition, name=name, rulebook=rulebook, players=players_rule,
                      min_players=least, start=start, pass_go=go, jail_fee=jail, debt=debt,
                      debt_quote=debt_quote, end=end, end_quote=end_quote, modes=modes,
                      scoring=scoring, worms=worms, worm_deck=deck, dealt_quote=dealt,
                      turn_quote=turn_quote,
                      at_once_quote=at_once, notes=notes, house=house, toll=toll,
                      bowser_wins=bowser_wins, reasons=reasons, board=board, powers=powers,
                      contest=contest, jail_rolls=jail_rolls, box_colours=box_colours)
    pot = _pot(top.table("free_parking_pot"), ruleset, board)
    flow = _flow(top.table("flow"))
    lines: dict[str, tuple[str, ...]] = {}
    quoted = top.table("lines")
    if quoted is not None:
        for name in list(quoted.data):
            lines[name] = quoted.lines(name)
        quoted.done()
    top.done()
    return replace(ruleset, pot=pot, flow=flow, lines=lines)


def _flow(reader: _Reader | None) -> dict[str, When]:
    """``[flow.<move>]``: who may make that move (``current``, ``named``, ``banker``) and when
    (``start``, ``turn``, ``end``, ``any``, ``never``), each with the rulebook's ``quote``;
    ``once``: at most once a turn."""
    if reader is None:
        return {}
    found: dict[str, When] = {}
    for name in list(reader.data):
        row = reader.table(name)
        assert row is not None
        if not name.isidentifier():
            raise RulesetError(f"{row.where}: a move's name like 'roll_from_jail'")
        moment = _choice(row, "moment", Moment)
        who = _choice(row, "who", Who)
        found[name] = When(moment, who, row.lines("quote"), row.take("once", bool, False))
        row.done()
    reader.done()
    return found


def _presentation(reader: _Reader | None) -> tuple[str, ...]:
    """``[presentation]``: not rules; ``box_colours``, two or three ``#rrggbb`` of the box's
    art (the setup screen's edition cards)."""
    if reader is None:
        return ()
    colours = reader.take("box_colours", list)
    if not 2 <= len(colours) <= 3 or not all(
            isinstance(c, str) and len(c) == 7 and c[0] == "#" and
            all(x in "0123456789abcdef" for x in c[1:]) for c in colours):
        raise reader._fail("box_colours", "must be two or three colours as lower-case "
                                          f"#rrggbb, got {colours!r}")
    reader.done()
    return tuple(colours)


def _pot(reader: _Reader | None, rules: Ruleset, board: Board | None) -> Pot | None:
    """``[free_parking_pot]``: the house rule an edition offers (its ``space``, the
    rulebook's own ``quote`` of that space, and each fee it takes, named as
    :func:`companion.core.editions.house.payments` names them, with its line)."""
    if reader is None:
        return None
    if board is not None:
        raise RulesetError(f"{reader.where}: an edition whose coins lie on the board's spaces "
                           "already has its own rule for them: no pot")
    space = reader.take("space", str)
    quote = reader.lines("quote")
    known = payments(rules)
    fees = []
    for i, row in enumerate(reader.take("fees", list)):
        sub = _Reader(row, f"{reader.where}.fees[{i}]")
        payment = sub.take("payment", str)
        if payment not in known or any(f.payment == payment for f in fees):
            raise RulesetError(f"{sub.where}.payment: each once, one of {', '.join(known)}; "
                               f"got {payment!r}")
        fees.append(Fee(payment, sub.lines("quote")))
        sub.done()
    reader.done()
    if not space.strip() or not fees:
        raise RulesetError(f"{reader.where}: needs the space's name and at least one fee")
    return Pot(space, quote, tuple(fees))


def _choice(reader: _Reader, key: str, kind: Any) -> Any:
    value = reader.take(key, str)
    try:
        return kind(value)
    except ValueError:
        raise RulesetError(f"{reader.where}.{key}: must be one of "
                           f"{', '.join(repr(k.value) for k in kind)}, got {value!r}") from None


def _amount(reader: _Reader | None, key: str) -> Rule | None:
    if reader is None:
        return None
    rule = Rule(reader.count(key, 1, 1000), reader.lines("quote"))
    reader.done()
    return rule


def _jail(reader: _Reader | None) -> tuple[Rule | None, JailRolls | None]:
    """``[jail]``: the fee, and where the table rolls its own die for a 6, its ``tries`` and
    what the ``last`` miss does (with ``tries_quote``)."""
    if reader is None:
        return None, None
    fee = Rule(reader.count("fee", 1, 1000), reader.lines("quote"))
    rolls = None
    if "tries" in reader.data:
        tries = reader.count("tries", 1, 10)
        rolls = JailRolls(tries, _choice(reader, "last", JailLast),
                          reader.lines("tries_quote"))
    reader.done()
    return fee, rolls


def _scoring(reader: _Reader | None, origin: str) -> Scoring | None:
    if reader is None:
        return None
    every = reader.count("every", 1, 100)
    points = reader.count("points", 1, 1000)
    scoring = Scoring(every=Rule(every, reader.lines("quote")), points=points,
                      max_cards=Rule(reader.count("max_cards", 1, 1000),
                                     reader.lines("max_cards_quote")),
                      tie=reader.lines("tie"), example=reader.lines("example", required=False))
    reader.done()
    return scoring


def _board(reader: _Reader | None) -> Board | None:
    if reader is None:
        return None
    spaces = reader.lines("spaces")
    if len({s.casefold() for s in spaces}) != len(spaces):
        raise RulesetError(f"{reader.where}.spaces: a space is named twice")
    kinds: dict[str, SpaceKind] = {}
    for i, raw in enumerate(reader.take("kinds", list, [])):
        kind = _space_kind(raw, f"{reader.where}.kinds[{i}]")
        if kind.id in kinds:
            raise RulesetError(f"{reader.where}.kinds[{i}].id: {kind.id!r} is there twice")
        kinds[kind.id] = kind
    bananas = reader.count("bananas", 0, 64, 0)
    banana_quote = reader.lines("bananas_quote", required=bool(bananas))
    times = reader.count("set_rent", 2, 10, 0)
    set_rent = Rule(times, reader.lines("set_rent_quote")) if times else None
    first = reader.take("first_property", str, "")
    board = Board(spaces, reader.lines("quote"), kinds=kinds, bananas=bananas,
                  bananas_quote=banana_quote, set_rent=set_rent, first_property=first,
                  first_property_quote=reader.lines("first_property_quote",
                                                    required=bool(first)))
    reader.done()
    if board.jail_space not in spaces:
        raise RulesetError(f"{reader.where}.spaces: must name {board.jail_space!r} (where a "
                           "player in Jail drops coins)")
    return board


def _space_kind(data: object, where: str) -> SpaceKind:
    """A kind of space the rulebook gives a rule for (Coin Block, Warp Pipe, ...)."""
    reader = _Reader(data, where)
    kind_id = reader.take("id", str)
    if not kind_id.isidentifier():
        raise RulesetError(f"{where}.id: must be a name like 'coin_block', got {kind_id!r}")
    effect = reader.take("effect", str)
    if effect not in {e.value for e in SpaceEffect}:
        raise RulesetError(f"{where}.effect: must be one of {[e.value for e in SpaceEffect]}, "
                           f"got {effect!r}")
    kind = SpaceKind(kind_id, reader.take("name", str), SpaceEffect(effect),
                     reader.lines("quote"), reader.count("coins", 0, 100, 0))
    if kind.effect is SpaceEffect.DROP and not kind.coins:
        raise RulesetError(f"{where}.coins: a space where coins are dropped says how many")
    reader.done()
    return kind


def _reason(data: object, where: str) -> Reason:
    reader = _Reader(data, where)
    label = reader.take("label", str)
    note = reader.take("note", str)
    if not label.strip() or not 1 <= len(note) <= MAX_NOTE:
        raise RulesetError(f"{where}: label must be words and note 1-{MAX_NOTE} characters")
    # Its id: what a payment names it by (left out: its label's words, "continue_cost").
    reason_id = reader.take("id", str, "_".join(label.lower().split()))
    if not reason_id.isidentifier():
        raise RulesetError(f"{where}.id: must be a name like 'tax', got {reason_id!r}")
    reason = Reason(label, note, reader.lines("quote"), reason_id)
    reader.done()
    return reason


def _mode(data: object, where: str) -> Mode:
    reader = _Reader(data, where)
    mode_id = reader.take("id", str)
    table = reader.take("table", str)
    if table not in TABLES:
        raise RulesetError(f"{where}.table: must be one of {', '.join(TABLES)}, got {table!r}")
    fees_reader = reader.table("fees")
    fees: dict[str, int] = {}
    needed = NUMBERS.get(table, ())
    if fees_reader is not None:
        for key in needed:
            if key in fees_reader.data:
                fees[key] = fees_reader.count(key, 1, 1000)
        fees_reader.done()
    if set(fees) != set(needed):
        raise RulesetError(f"{where}.fees: {table} needs {', '.join(needed)}" if needed else
                           f"{where}.fees: a {table} mode has no fees")
    mode = Mode(id=mode_id, name=reader.take("name", str), table=table,
                quote=reader.lines("quote"), default=reader.take("default", bool, False),
                fees=fees, hint=reader.take("hint", str, ""))
    reader.done()
    return mode


def _by_players(reader: _Reader, key: str, least: int, most: int, value: str
                ) -> dict[int, tuple[Any, tuple[str, ...]]]:
    """Rows of ``{players = [...], <value> = ..., quote = [...]}``, each count once."""
    found: dict[int, tuple[Any, tuple[str, ...]]] = {}
    for i, row in enumerate(reader.take(key, list, [])):
        sub = _Reader(row, f"{reader.where}.{key}[{i}]")
        counts = sub.take("players", list)
        got = sub.take(value, int if value == "each" else list)
        quote = sub.lines("quote")
        sub.done()
        for n in counts:
            if not isinstance(n, int) or n in found or not least <= n <= most:
                raise RulesetError(f"{sub.where}.players: each count once, within "
                                   f"{least}-{most}, got {n!r}")
            found[n] = (got, quote)
    return found


def _powers(reader: _Reader | None, least: int, most: int) -> Powers | None:
    if reader is None:
        return None
    quote = reader.lines("quote")
    picks = {n: each for n, (each, _q) in _by_players(reader, "picks", least, most,
                                                      "each").items()}
    characters = []
    for i, row in enumerate(reader.take("characters", list)):
        sub = _Reader(row, f"{reader.where}.characters[{i}]")
        characters.append(Character(sub.take("id", str), sub.take("name", str)))
        sub.done()
    ids = [c.id for c in characters]
    if len(set(ids)) != len(ids) or not characters:
        raise RulesetError(f"{reader.where}.characters: each character once, at least one")
    abilities = tuple(_ability(row, f"{reader.where}.abilities[{i}]", ids)
                      for i, row in enumerate(reader.take("abilities", list)))
    if len({(a.id, a.star) for a in abilities}) != len(abilities):
        raise RulesetError(f"{reader.where}.abilities: two abilities share an id")
    reader.done()
    for n, each in picks.items():
        if each < 1 or each * n > len(characters):
            raise RulesetError(f"{reader.where}.picks: {n} players can't each pick {each} of "
                               f"{len(characters)} characters")
    return Powers(tuple(characters), abilities, picks, quote)


def _ability(data: object, where: str, characters: list[str]) -> Ability:
    reader = _Reader(data, where)
    ability_id = reader.take("id", str)
    star = reader.take("star", str, None)
    if star is not None and star not in characters:
        raise RulesetError(f"{where}.star: unknown character {star!r}")
    effect = _choice(reader, "effect", Effect)
    coins = reader.count("coins", 0, 100, 0)
    targets = Targets(reader.take("targets", str, "none")) \
        if reader.data.get("targets", "none") in {t.value for t in Targets} else None
    if targets is None:
        raise RulesetError(f"{where}.targets: must be one of "
                           f"{', '.join(t.value for t in Targets)}")
    name, text = reader.take("name", str), reader.take("text", str)
    give = reader.count("give", 0, 100, 0)
    spaces_instead = reader.take("spaces_instead", bool, False)
    quote = reader.lines("quote")
    boosts = []
    for i, row in enumerate(reader.take("boosts", list, [])):
        sub = _Reader(row, f"{where}.boosts[{i}]")
        who = sub.take("character", str)
        if who not in characters:
            raise RulesetError(f"{sub.where}.character: unknown character {who!r}")
        b_effect = _choice(sub, "effect", Effect) if "effect" in sub.data else effect
        b_targets = Targets(sub.take("targets", str)) if "targets" in sub.data else targets
        boosts.append(Boost(who, b_effect, sub.count("coins", 0, 100, coins), b_targets,
                            sub.take("text", str), sub.lines("quote"),
                            sub.count("give", 0, 100, give),
                            sub.take("spaces_instead", bool, False)))
        sub.done()
    reader.done()
    return Ability(ability_id, name, effect, coins, targets, text, quote, give, star,
                   tuple(boosts), spaces_instead)


def _contest(reader: _Reader | None, least: int, most: int) -> Deck | None:
    if reader is None:
        return None
    kind = _choice(reader, "kind", ContestKind)
    card = reader.take("card", str)
    quote = reader.lines("quote")
    rematch = reader.lines("rematch", required=False)
    found = _by_players(reader, "decks", least, most, "cards")
    reader.done()
    if sorted(found) != list(range(least, most + 1)):
        raise RulesetError(f"{reader.where}.decks: must give the cards for every player "
                           f"count {least}-{most}")
    decks: dict[int, tuple[int, ...]] = {}
    for n, (cards, _q) in found.items():
        if not cards or not all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 99
                                for c in cards) or len(set(cards)) != len(cards):
            raise RulesetError(f"{reader.where}.decks: card numbers 1-99, each once")
        decks[n] = tuple(cards)
    return Deck(kind, card, decks, quote, rematch)
