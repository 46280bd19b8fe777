"""The bank's rules: a journal of moves and their coin entries, balances derived from it, undo
as compensation.

Pure: no SQLite here. The store (``companion.bank``) persists moves and entries and validates
with these functions. For speed it sums balances and picks the undo target in SQL; the property
test checks that SQL against ``balances`` and ``undo_target`` here after every step.

A *move* is one thing the table did (a payment, a block outcome, a bankruptcy, points typed in,
the end of the game); its *entries* are the coins it moved (none, one or several). Undo undoes
a move whole, writing compensating entries: the latest, or an older one that no later move
depends on (``companion.bank.depends``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from companion.core.outcomes import COLLECTS, PAYS_THE_BANK, Kind, Outcome
from companion.exc import Refused, shown
from companion.i18n.said import Said, say, say_n, texts

BANK: Literal["bank"] = "bank"
BOARD = "board"
"""The Board's piles (Gamer, Mario Kart), as JSON names the side of a line that is a pile."""
Party = int | Literal["bank"]

MAX_AMOUNT = 10_000
MAX_NOTE = 200


THE_BANK = say("the Bank")
"""The Bank as a payer or payee, in a reader's words."""


class EntryKind(StrEnum):
    """Why coins moved."""

    OPENING = "opening"
    BLOCK = "block"
    PASS_GO = "pass_go"
    TRANSFER = "transfer"
    JAIL = "jail"
    BANKRUPTCY = "bankruptcy"
    UNDO = "undo"
    TOLL = "toll"
    DROP = "drop"
    SCOOP = "scoop"
    ABILITY = "ability"
    CONTEST = "contest"
    NOTE = "note"
    """A line in the history in the banker's words, no coins (``data``: text)."""
    SALE = "sale"
    """Property sold back to the Bank at its face value (typed) to pay a debt."""


class MoveKind(StrEnum):
    """What the table did (one move, one undo)."""

    OPENING = "opening"
    BLOCK = "block"
    PASS_GO = "pass_go"
    TRANSFER = "transfer"
    JAIL = "jail"
    BANKRUPTCY = "bankruptcy"
    POINTS = "points"
    WORMS = "worms"
    END = "end"
    UNDO = "undo"
    TURN = "turn"
    """The turn passed (Next, a tile or a card tapped, time-up): undone in order like the rest."""
    JAILED = "jailed"
    """A player went to Jail or left it (``data``: player, in, why), with the coins it took."""
    TOLL = "toll"
    """Bowser passed players: each paid the Bank his toll (the Movie)."""
    BOWSER_WINS = "bowser_wins"
    """Every deed on its Game Over side: Bowser wins, everyone loses (the Movie)."""
    DROP = "drop"
    """A player dropped coins on a space of the board (Gamer, Mario Kart)."""
    SCOOP = "scoop"
    """A player scooped up a space's whole pile."""
    ABILITY = "ability"
    """A Power-up or Super Star ability: its drops, steals, collects and scoops, one move."""
    CONTEST = "contest"
    """A step of a Boss fight or a Race (``data``: action, contest, player, roll)."""
    JAIL_TRY = "jail_try"
    """A roll of the table's own die for a 6 from Jail (``data``: player, six, try, out)."""
    DEED = "deed"
    """Gamer, Mario Kart: a Property's deed to a player (bought, won at auction, traded) or
    back to the Bank (``data``: space, label, player, from, price)."""
    BANANA = "banana"
    """Mario Kart: a Banana token dropped on a space, or back to the pile (``data``: space,
    label, on)."""
    TOKEN = "token"
    """A token moved around the board (``data``: player, how, steps, from, to, path), with
    the piles it scooped on the way and GO's coins (Gamer, Mario Kart)."""
    NOTE = "note"
    """A line in the history in the banker's words, no coins (``data``: text)."""
    SALE = "sale"
    """A payment made after selling Property back to the Bank (Gamer, Mario Kart on a
    described board): the deeds go back to the Bank, which pays their face value, then the
    payment; one move (``data``: the transfer's, and deeds, labels)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One append-only journal line: ``payer`` pays ``payee`` ``amount`` coins."""

    id: int
    game_id: int
    at: float
    payer: Party
    payee: Party
    amount: int
    kind: EntryKind
    note: str = ""
    source: str = ""
    outcome_id: int | None = None
    undoes: int | None = None
    """The entry this one compensates (an undo's entries)."""
    move_id: int | None = None
    """The move this entry belongs to: a move's entries are undone together."""
    space: str | None = None
    """Set: the ``"bank"`` side of this line is the Board's pile on that space, not the Bank
    (coins dropped there, or scooped up)."""

    def to_json(self, undone_by: int | None = None) -> dict[str, Any]:
        def side(party: Party) -> Party | str:
            return BOARD if party == BANK and self.space is not None else party

        data = {
            "id": self.id, "game": self.game_id, "at": self.at, "from": side(self.payer),
            "to": side(self.payee), "amount": self.amount, "kind": self.kind.value,
            "note": self.note, "source": self.source, "outcome": self.outcome_id,
            "undoes": self.undoes, "undone_by": undone_by, "move": self.move_id,
        }
        if self.space is not None:  # a line of the Board's pile on that space
            data["space"] = self.space
        return data


def check_amount(amount: object) -> int:
    """A whole number of coins, 1..MAX_AMOUNT."""
    if not isinstance(amount, int) or isinstance(amount, bool):
        raise Refused(say("amount must be a whole number of coins, got {value}",
                          value=repr(amount)))
    if not 1 <= amount <= MAX_AMOUNT:
        raise Refused(say("amount must be between 1 and {most}, got {value}", most=MAX_AMOUNT,
                          value=amount))
    return amount


def is_id(value: object) -> bool:
    """A database id: a positive int that SQLite can hold (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def check_player(player: object, players: Iterable[int]) -> int:
    """The id of a player of this game."""
    if is_id(player) and player in set(players):
        return player  # type: ignore[return-value]
    raise Refused(say("unknown player {value}", value=repr(player)))


def check_party(party: object, players: Iterable[int]) -> Party:
    """``"bank"`` or the id of a player of this game."""
    return BANK if party == BANK else check_player(party, players)


def check_transfer(payer: object, payee: object, amount: object,
                   players: Iterable[int]) -> tuple[Party, Party, int]:
    """Validate a movement of coins; raise Refused naming the problem."""
    ids = list(players)
    a, b = check_party(payer, ids), check_party(payee, ids)
    if a == b:
        raise Refused(say("the bank cannot pay itself") if a == BANK else
                      say("a player cannot pay themselves"))
    return a, b, check_amount(amount)


def check_note(note: object) -> str:
    if not isinstance(note, str):
        raise Refused(say("note must be text"))
    if len(note) > MAX_NOTE:
        raise Refused(say_n("note must be at most {n} character",
                            "note must be at most {n} characters", MAX_NOTE))
    if not all(c.isprintable() or c == "\n" for c in note):  # no surrogates, bidi tricks
        raise Refused(say("note must be printable text"))
    return note


MAX_SPACE = 40
"""A board space's name, as printed on the board ("Mario Kart Stadium")."""


def check_space(space: object, known: Iterable[str]) -> str:
    """A board space's name: printable words, 1-40 characters, spaces collapsed; a name known
    already (the edition's or a pile's) in any case is that name, so one space has one pile."""
    import unicodedata

    if not isinstance(space, str):
        raise Refused(say("space must be the name of a space on the board, got {value}",
                          value=shown(space)))
    clean = " ".join(unicodedata.normalize("NFC", space).split())
    if not 1 <= len(clean) <= MAX_SPACE or not clean.isprintable():
        raise Refused(say("space must be a space's name, 1-{most} printable characters",
                          most=MAX_SPACE))
    return next((k for k in known if k.casefold() == clean.casefold()), clean)


def check_source(source: object) -> str:
    """Who or what asked (``button``, ``tablet``, ``card:04A1...``): short printable text."""
    if not isinstance(source, str) or len(source) > 40 or not source.isprintable():
        raise Refused(say("source must be at most 40 printable characters"))
    return source


MAX_REQUEST_ID = 100


def check_request_id(request_id: object) -> str | None:
    """A request id (an ``Idempotency-Key``): 1-100 printable characters, or None. Surrogates
    (bytes that were not UTF-8) are not printable."""
    if request_id is None:
        return None
    if not isinstance(request_id, str) or not 1 <= len(request_id) <= MAX_REQUEST_ID \
            or not request_id.isprintable():
        raise Refused(say("request id must be 1-100 printable characters"))
    return request_id


COLOURS = ("#e52521", "#43b047", "#f49ac1", "#049cd8", "#fbd000", "#8e44ad")
"""The table's seat colours, the palette a setup picks from: red, green, pink, blue, yellow,
purple."""


def check_colours(colours: object) -> list[str]:
    """Seat colours as ``#rrggbb``."""
    if not isinstance(colours, list | tuple) or not colours:
        raise Refused(say("colours must be a non-empty list of #rrggbb values"))
    for colour in colours:
        if not (isinstance(colour, str) and len(colour) == 7 and colour[0] == "#"
                and all(c in "0123456789abcdefABCDEF" for c in colour[1:])):
            raise Refused(say("colour must look like #e52521, got {value}", value=repr(colour)))
    return [c.lower() for c in colours]


CARD_ACTION_NAMES = ("next_player", "pass_go", "press", "timer", "undo", "battle", "piranha",
                     "super_star")
"""What a card can do instead of naming a player: next turn, pass GO for the current player,
press the block, start/stop the lever timer, undo the last coin movement; the Movie's: a battle
led by the current player (the next player card tapped is the teammate), Piranha Plant or
Super Star for the next press."""


def check_card_uid(uid: object) -> str | None:
    """An NFC/RFID card UID: 4 to 10 bytes as hex (case ignored), or None to forget it."""
    from companion.core.uid import normal_uid

    if uid is None:
        return None
    if not isinstance(uid, str):
        raise Refused(say("card UID must be hex text"))
    clean = normal_uid(uid.strip())
    if clean is None:
        raise Refused(say("card UID must be 4-10 bytes of hex, got {value}",
                          value=repr(uid[:40])))
    return clean


def check_names(names: Sequence[object], min_players: int, max_players: int) -> list[str]:
    """Player names: min..max of them, each as :func:`companion.core.names.check_name` allows
    (1..24 characters, emoji welcome, nothing invisible; stored in NFC), no two alike: the same
    ignoring case, or looking the same (:func:`companion.core.names.look_alike`)."""
    from companion.core.names import check_name, look_alike  # ICU, loaded when first needed

    if not isinstance(names, list | tuple):
        raise Refused(say("players must be a list of names"))
    if not min_players <= len(names) <= max_players:
        raise Refused(say("a game needs {least} to {most} players, got {count}",
                          least=min_players, most=max_players, count=len(names)))
    clean: list[str] = []
    for raw in names:
        name = check_name(raw)
        for other in clean:
            if name.casefold() == other.casefold():
                if name == other:
                    raise Refused(say("two players are called \"{name}\": pick a name the "
                                      "table can tell apart", name=name))
                raise Refused(say("two players are called \"{other}\" and \"{name}\": pick a "
                                  "name the table can tell apart", other=other, name=name))
            if look_alike(name, other):
                raise Refused(say("\"{name}\" looks the same as \"{other}\": pick a name the "
                                  "table can tell apart", name=name, other=other))
        clean.append(name)
    return clean


def balances(entries: Iterable[Entry], players: Iterable[int]) -> dict[int, int]:
    """Every player's coins: what they received minus what they paid, over the whole journal."""
    result = {p: 0 for p in players}
    for e in entries:
        if e.payer != BANK:
            result[e.payer] -= e.amount
        if e.payee != BANK:
            result[e.payee] += e.amount
    return result


UNDOABLE = frozenset(MoveKind) - {MoveKind.OPENING, MoveKind.UNDO}
"""Every move but the opening balances and undos themselves."""


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """A move as the journal keeps it (for the pure undo rule)."""

    id: int
    kind: MoveKind
    undoes: int | None = None
    coins: bool = True
    """False for a payment that moved nothing (the payer had no coins): nothing to undo."""


def undo_target(moves: Sequence[MoveRecord]) -> MoveRecord:
    """The latest move that can be undone and is not undone yet (a payment that moved nothing
    is passed over). Refused if there is none."""
    undone = {m.undoes for m in moves if m.undoes is not None}
    for m in reversed(moves):
        if m.kind in UNDOABLE and m.id not in undone and (m.coins or m.kind is not
                                                           MoveKind.TRANSFER):
            return m
    raise Refused(say("nothing to undo"))


def overdraft(entries: Sequence[Entry], player: int) -> list[tuple[Party, int]]:
    """Who got the coins ``player`` paid but did not have: for a balance below zero, the
    payees of their latest payments (newest first, each at most what it was paid) until the
    deficit is covered. A bankruptcy gives exactly that back, so every creditor ends up with
    what there really was. Undone payments and undos are left out."""
    return [(payee, amount) for payee, amount, _space in overdraft_sources(entries, player)]


def overdraft_sources(entries: Sequence[Entry], player: int
                      ) -> list[tuple[Party, int, str | None]]:
    """:func:`overdraft`, each with the pile its coins went on (a fee into the Free Parking
    pot: the Bank's side of that line is the pile), else None."""
    undone = {e.undoes for e in entries if e.undoes is not None}
    live = [e for e in entries if e.id not in undone and e.undoes is None]
    deficit = -sum(e.amount if e.payee == player else -e.amount
                   for e in live if player in (e.payer, e.payee))
    sources: list[tuple[Party, int, str | None]] = []
    for e in reversed(live):
        if deficit <= 0:
            break
        if e.payer == player:
            back = min(e.amount, deficit)
            sources.append((e.payee, back, e.space if e.payee == BANK else None))
            deficit -= back
    return sources


@dataclass(frozen=True, slots=True)
class Payment:
    """A payment as made: ``asked`` coins were due; ``entry`` moved what could be paid (None:
    nothing could). ``message`` says so when it was less than asked."""

    entry: Entry | None
    asked: int
    message: str | Said = ""
    sold: int = 0
    """Coins the Bank paid first for Property the payer sold back to it."""

    @property
    def moved(self) -> int:
        return 0 if self.entry is None else self.entry.amount

    @property
    def capped(self) -> bool:
        return self.moved < self.asked

    def to_json(self) -> dict[str, Any]:
        base = self.entry.to_json() if self.entry is not None else {"id": None, "amount": 0}
        return {**base, "asked": self.asked, "capped": self.capped, "sold": self.sold,
                **texts(message=self.message)}


MAX_POINTS = 10_000


def check_count(value: object, what: str, most: int) -> int:
    """A whole number from 0 to ``most``."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        raise Refused(say("{what} must be a whole number from 0 to {most}, got {value}",
                          what=what, most=most, value=shown(value)))
    return value


def and_joined(names: Sequence[str]) -> str | Said | None:
    """Names as one says them: "A", "A and B", "A and B and C" (in each reader's language);
    None for no names."""
    if not names:
        return None
    joined: str | Said = names[0]
    for name in names[1:]:
        joined = say("{first} and {second}", first=joined, second=name)
    return joined


def outcome_movement(outcome: Outcome, player: int,
                     owner: int | None = None) -> tuple[Party, Party, int] | None:
    """Who pays whom for an outcome applied to ``player`` (None: no coins move). The outcome
    was priced by its edition's ruleset when it was drawn; ``owner`` is utility rent's payee."""
    if outcome.coins <= 0:
        return None
    if outcome.kind in COLLECTS:
        return BANK, player, outcome.coins
    if outcome.kind in PAYS_THE_BANK:
        return player, BANK, outcome.coins
    if outcome.kind is Kind.RENT and owner is not None:
        return player, owner, outcome.coins
    return None


def outcome_movements(outcome: Outcome, player: int, owner: int | None = None,
                      teammate: int | None = None) -> list[tuple[Party, Party, int]]:
    """Every payment an outcome applied to ``player`` makes: a won battle pays the leader and
    the teammate each; the rest make at most one (:func:`outcome_movement`)."""
    one = outcome_movement(outcome, player, owner)
    if one is None:
        return []
    if outcome.kind is Kind.BATTLE_WON and teammate is not None and teammate != player:
        return [one, (BANK, teammate, outcome.coins)]
    return [one]


JAIL_WHY = {Kind.THIRD_DOUBLES: "third doubles in a row", Kind.BATTLE_LOST: "lost the battle",
            Kind.JAIL_FREE: "rolled doubles", Kind.JAIL_PAID: "paid after the third try"}
"""Outcomes that put a player in Jail or let them out, in a few words."""


def jail_change(outcome: Outcome) -> bool | None:
    """Where an outcome sends its player: True into Jail, False out of it, None: nowhere."""
    if outcome.kind in (Kind.THIRD_DOUBLES, Kind.BATTLE_LOST):
        return True
    if outcome.kind in (Kind.JAIL_FREE, Kind.JAIL_PAID):
        return False
    return None
