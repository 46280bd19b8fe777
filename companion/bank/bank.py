"""The bank: games, players and the journal of moves and coins in one SQLite file.

Every write validates with the edition's ruleset and the ledger rules inside one ``BEGIN
IMMEDIATE`` transaction and returns only after COMMIT (``synchronous=FULL``): an acknowledged
write survives a power cut. A ``Bank`` object is used from one thread; other processes may
share the file safely.

Everything a game is derives from its journal: balances are the sum of the entries (kept in
memory as entries are written, so a write's cost does not grow with the game; see
:meth:`Bank.balances`); who is out, the points and worms typed in, and whether the game has
ended come from the moves not undone. Undo writes compensation, never deletes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.bank import contests, turns
from companion.bank.facts import (
    FACTS,
    JAIL_MOVES,
    Facts,
    Player,
    move_text,
    next_seat,
    or_current,
)
from companion.bank.play import GamerPlay, contest_outcome
from companion.bank.store import open_database, open_readonly
from companion.core.editions import Editions, editions
from companion.core.editions.modes import Mode, check_arming
from companion.core.editions.ruleset import Debt, End, Ruleset
from companion.core.editions.scoring import Standing, standings, winners
from companion.core.ledger import (
    BANK,
    CARD_ACTION_NAMES,
    JAIL_WHY,
    MAX_POINTS,
    REDOABLE,
    Entry,
    EntryKind,
    MoveKind,
    Party,
    Payment,
    and_joined,
    check_amount,
    check_card_uid,
    check_colours,
    check_count,
    check_names,
    check_note,
    check_source,
    check_space,
    is_id,
    jail_change,
    outcome_movements,
    overdraft,
)
from companion.core.outcomes import Kind, Outcome
from companion.core.state import (
    GameView,
    JournalLine,
    MoveRef,
    MoveView,
    NextCard,
    OutcomeView,
    PlayerView,
    TableState,
    Undone,
)
from companion.exc import Conflict, GameEnded, Refused, Unavailable, shown
from companion.i18n.said import Said, joined, say, say_n, stored, texts

DB_NAME = "bank.sqlite3"
COLOURS = ("#e52521", "#43b047", "#f49ac1", "#049cd8", "#fbd000", "#8e44ad")
"""Default seat colours: red, green, pink, blue, yellow, purple."""

RECENT = 8
"""Journal lines in ``state().recent``: what a screen's log shows."""
PAGE = 100
MAX_PAGE = 500
"""Moves in one page of the journal (:meth:`Bank.move_page`): by default, and at most."""

log = logging.getLogger(__name__)


class Current:
    """The game's current player, whoever that is when the write happens."""


CURRENT = Current()
ANYONE = object()
"""Next from whoever is current."""

def _party(value: int | None) -> Party:
    return BANK if value is None else value


def _column(party: Party) -> int | None:
    return None if party == BANK else int(party)


def _credit(money: dict[int, int], payer: Party, payee: Party, amount: int) -> None:
    """One journal line's effect on the balances: the payer has less, the payee more."""
    if payer != BANK:
        money[int(payer)] = money.get(int(payer), 0) - amount
    if payee != BANK:
        money[int(payee)] = money.get(int(payee), 0) + amount


def _entry(row: sqlite3.Row) -> Entry:
    return Entry(id=row["id"], game_id=row["game_id"], at=row["at"], payer=_party(row["payer"]),
                 payee=_party(row["payee"]), amount=row["amount"], kind=EntryKind(row["kind"]),
                 note=row["note"], source=row["source"], outcome_id=row["outcome_id"],
                 undoes=row["undoes"], move_id=row["move_id"],
                 space=row["space"] if "space" in row.keys() else None)  # noqa: SIM118 (a Row: `in` looks at values)


MOVES_SQL = ("SELECT m.*, (SELECT u.id FROM moves u WHERE u.undoes = m.id) AS undone_by"
             " FROM moves m")


def _view(row: sqlite3.Row, entries: list[Entry], facts: Facts,
          texts: Mapping[int, str | Said]) -> MoveView:
    """A move row as a view, in words (``texts``: the words of moves it may undo)."""
    kind = MoveKind(row["kind"])
    view = MoveView(row["id"], row["game_id"], row["at"], kind, row["player_id"],
                    json.loads(row["data"]), row["note"], row["source"], bool(row["ends"]),
                    row["undoes"], row["undone_by"], tuple(entries))
    if kind is MoveKind.UNDO and row["undoes"] in texts:
        return replace(view, text=say("Undo: {move}", move=texts[row["undoes"]]))
    return replace(view, text=move_text(view, facts))


def _outcome(row: sqlite3.Row) -> Outcome:
    step = json.loads(row["params"]).get("step", 0)
    return Outcome(Kind(row["kind"]), coins=row["coins"], rolls=tuple(json.loads(row["rolls"])),
                   mode=row["mode"], step=step)


@dataclass(frozen=True, slots=True)
class MovePage:
    """One page of a game's journal (:meth:`Bank.move_page`): ``moves`` newest first below
    ``before``, or oldest first after ``after``; each with its entries, in words."""

    game_id: int
    moves: tuple[MoveView, ...]
    next_before: int | None
    """``before`` for the next older page (None: no older moves, or an ``after`` page)."""
    next_after: int | None
    """``after`` for the newer moves this page had no room for (None: it reaches the latest,
    or a ``before`` page)."""
    latest: int | None
    """The game's newest move (None: none yet)."""

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game_id, "moves": [m.to_json() for m in self.moves],
                "next_before": self.next_before, "next_after": self.next_after,
                "latest": self.latest}


def _token_hash(token: str) -> str:
    """What the bank keeps of a phone link's token (the token itself is never stored)."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def _page_limit(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_PAGE:
        return value
    raise Refused(say("limit must be a whole number from 1 to {most}, got {value}",
                      most=MAX_PAGE, value=shown(value)))


class Bank(GamerPlay):
    """Games, players and the journal; every rule comes from the edition's ruleset and
    :mod:`companion.core.ledger`."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time,
                 readonly: bool = False, rulesets: Editions | None = None) -> None:
        self.path = path
        self.clock = clock
        self.editions = rulesets if rulesets is not None else editions()
        self._db = open_readonly(path) if readonly else open_database(path)
        self._money: dict[int, dict[int, int]] = {}
        """Each game's balances as committed, kept as entries are written."""
        self._money_version: int | None = None
        """``PRAGMA data_version`` when ``_money`` was last known right: another connection's
        commit changes it, and ``_money`` is then read again."""
        self._working: dict[int, dict[int, int]] | None = None
        """Inside a write: the balances with this transaction's entries (kept at COMMIT,
        thrown away at ROLLBACK)."""
        latest = self.latest_game()
        if latest is not None:
            self.check_balances(latest)

    @classmethod
    def in_dir(cls, data_dir: Path, **kwargs: Any) -> Bank:
        return cls(data_dir / DB_NAME, **kwargs)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One immediate transaction: validate and write, COMMIT before returning. The
        balances it changed are kept only if COMMIT returned: a failed write changes nothing,
        in the file or in memory."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        committing = False
        try:
            self._fresh()
            self._working = {}
            yield db
            db.execute("INSERT INTO table_state (id, version) VALUES (1, 1) ON CONFLICT (id)"
                       " DO UPDATE SET version = version + 1")  # the state's version
            committing = True
            db.execute("COMMIT")
            self._money.update(self._working)
        except BaseException:
            if committing:  # whether COMMIT left anything in the file: read it again
                self._money.clear()
            if db.in_transaction:  # SQLite may already have rolled back (disk full, I/O)
                db.execute("ROLLBACK")
            raise
        finally:
            self._working = None

    def probe(self) -> None:
        """A small real write (the schema version, rewritten as it is): raises if the disk
        refuses writes (full, read-only, failing)."""
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            db.execute(f"PRAGMA user_version={int(version)}")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one consistent state, even while other processes write."""
        db = self._db
        if db.in_transaction:
            yield
            return
        db.execute("BEGIN")
        try:
            yield
        finally:
            if db.in_transaction:
                db.execute("COMMIT")

    # -- games and players ----------------------------------------------------------------

    def new_game(self, edition: object, names: Sequence[object],
                 colours: Sequence[object] | None = None) -> int:
        """Start a game: players in turn order, opening balances paid by the bank (the
        edition's starting coins for that many players). Old games stay as they were. The
        first player is current."""
        rules = self.editions.get_edition(edition)
        clean = check_names(names, rules.min_players, rules.max_players)
        palette = check_colours(colours) if colours is not None else list(COLOURS)
        with self._write() as db:
            return self._new_game(db, rules, clean, palette)

    def ensure_game(self, edition: object, names: Sequence[object]) -> int | None:
        """Start a game only if the bank has none (atomic: two starters make one game). A bank
        with a game is only read: a start writes nothing most days."""
        rules = self.editions.get_edition(edition)
        latest = self.latest_game()
        if latest is not None and list(names) == [p.name for p in self.players(latest)]:
            return None  # the game's own names, checked when it was made: no ICU at each boot
        clean = check_names(names, rules.min_players, rules.max_players)
        if latest is not None:
            return None
        with self._write() as db:
            if self.latest_game() is not None:
                return None
            return self._new_game(db, rules, clean, list(COLOURS))

    def _new_game(self, db: sqlite3.Connection, rules: Ruleset, clean: list[str],
                  palette: list[str]) -> int:
        now = self.clock()
        playing = self.latest_game()  # the game a sticker's player name carries over from
        game_id = db.execute("INSERT INTO games (edition, created_at) VALUES (?, ?)",
                             (rules.id, now)).lastrowid
        assert game_id is not None
        ids = []
        for seat, name in enumerate(clean):
            colour = palette[seat % len(palette)]
            ids.append(db.execute(
                "INSERT INTO players (game_id, seat, name, colour) VALUES (?, ?, ?, ?)",
                (game_id, seat, name, colour)).lastrowid)
        coins = rules.start_coins(len(clean))
        if coins > 0:
            move = self._insert_move(db, game_id, MoveKind.OPENING, note="opening balances",
                                     source="new game", data={"coins": coins})
            for pid in ids:
                self._insert_entry(db, game_id, move, BANK, pid, coins, EntryKind.OPENING,
                                   "opening balance", "new game")
        db.execute("UPDATE games SET current_player = ? WHERE id = ?", (ids[0], game_id))
        self._play(db, game_id)
        # A sticker stays with its player's name from one game to the next.
        previous = playing
        if previous is not None:
            db.execute(
                "UPDATE players SET card_uid = (SELECT p.card_uid FROM players p WHERE"
                " p.game_id = ? AND lower(p.name) = lower(players.name)) WHERE game_id = ?",
                (previous, game_id))
        return game_id

    @staticmethod
    def _play(db: sqlite3.Connection, game_id: int) -> None:
        """Make ``game_id`` the game the table plays."""
        db.execute("INSERT INTO table_state (id, current_game) VALUES (1, ?) ON CONFLICT (id)"
                   " DO UPDATE SET current_game = excluded.current_game", (game_id,))
        # A phone link is for a player of the game being played: the others' end here (a
        # game resumed later gets new links from the banker).
        db.execute("DELETE FROM player_links WHERE player_id NOT IN"
                   " (SELECT id FROM players WHERE game_id = ?)", (game_id,))

    def latest_game(self) -> int | None:
        """The game the table plays: the one started or resumed last (else the newest)."""
        row = self._db.execute("SELECT current_game FROM table_state WHERE id = 1").fetchone()
        if row is not None and row[0] is not None:
            return int(row[0])
        return self._db.execute("SELECT MAX(id) FROM games").fetchone()[0]

    def _game(self, game_id: int | None) -> int:
        gid = self.latest_game() if game_id is None else game_id
        if gid is None:
            raise Refused(say("no game yet: start one first"))
        if not is_id(gid) or self._db.execute(
                "SELECT 1 FROM games WHERE id = ?", (gid,)).fetchone() is None:
            raise Refused(say("unknown game {game}", game=repr(gid)))
        return gid

    def games(self) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT g.id, g.edition, g.created_at, COUNT(p.id) AS players FROM games g "
            "LEFT JOIN players p ON p.game_id = g.id GROUP BY g.id ORDER BY g.id").fetchall()
        return [dict(row) for row in rows]

    def game_list(self) -> list[dict[str, Any]]:
        """Every game, newest first, for choosing one to resume: its edition's name, when it
        started, its players' names, whether it has ended and whether it is being played."""
        with self.snapshot():
            playing = self.latest_game()
            names: dict[int, list[str]] = {}
            for row in self._db.execute("SELECT game_id, name FROM players ORDER BY game_id,"
                                        " seat"):
                names.setdefault(row["game_id"], []).append(row["name"])
            ended = {row[0] for row in self._db.execute(
                "SELECT game_id FROM moves m WHERE ends = 1 AND NOT EXISTS"
                " (SELECT 1 FROM moves u WHERE u.undoes = m.id)")}
            games = []
            for row in self._db.execute("SELECT id, edition, created_at FROM games ORDER BY"
                                        " id DESC"):
                edition = self.editions.get(row["edition"])
                games.append({"id": row["id"], "edition": row["edition"],
                              "name": edition.name if edition else row["edition"],
                              "created_at": row["created_at"],
                              "players": names.get(row["id"], []),
                              "ended": row["id"] in ended, "current": row["id"] == playing})
            return games

    def resume_game(self, game: object) -> int:
        """Play an earlier game again (nothing of the one being played is lost: it can be
        resumed in turn)."""
        with self._write() as db:
            gid = self._game(game) if is_id(game) else None
            if gid is None:
                raise Refused(say("game must be a game id, got {value}", value=shown(game)))
            self._play(db, gid)
        return gid

    def ruleset(self, game_id: int | None = None) -> Ruleset:
        """The rules a game is played by."""
        gid = self._game(game_id)
        edition = self._db.execute("SELECT edition FROM games WHERE id = ?", (gid,)).fetchone()[0]
        return self._rules_of(edition)

    def _rules_of(self, edition: str) -> Ruleset:
        if edition not in self.editions:
            raise Unavailable(say("this game is played by the edition {edition}, which this "
                                  "companion does not know (house rules taken away?): put its "
                                  "file back in [game] house_rules, or start a new game",
                                  edition=repr(edition)))
        return self.editions[edition]

    def players(self, game_id: int | None = None) -> list[Player]:
        gid = self._game(game_id)
        return [Player(**{**dict(row), "characters": tuple(json.loads(row["characters"]))})
                for row in self._db.execute(
                    "SELECT id, game_id, seat, name, colour, card_uid, characters FROM players"
                    " WHERE game_id = ? ORDER BY seat", (gid,))]

    def _player_ids(self, gid: int) -> list[int]:
        return [r[0] for r in self._db.execute(
            "SELECT id FROM players WHERE game_id = ? ORDER BY seat", (gid,))]

    def current_player(self, game_id: int | None = None) -> int | None:
        gid = self._game(game_id)
        return self._db.execute("SELECT current_player FROM games WHERE id = ?",
                                (gid,)).fetchone()[0]

    def _facts(self, game_id: int | None) -> Facts:
        """The game as its moves left it (inside a write or a snapshot)."""
        gid = self._game(game_id)
        game = self._db.execute("SELECT * FROM games WHERE id = ?", (gid,)).fetchone()
        facts = Facts(gid, self._rules_of(game["edition"]), self.players(gid),
                       game["current_player"], json.loads(game["options"]))
        kinds = ", ".join(f"'{k.value}'" for k in FACTS)
        # By kind: only these moves are read, however long the game (left to itself, the
        # planner walks every move of the game by moves_by_game to save the sort).
        for row in self._db.execute(
                f"SELECT * FROM moves m INDEXED BY moves_by_kind WHERE game_id = ? AND kind IN"
                f" ({kinds}) AND NOT EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id)"
                " ORDER BY id", (gid,)):
            data = json.loads(row["data"])
            kind = MoveKind(row["kind"])
            if kind is MoveKind.BANKRUPTCY:
                facts.out[row["player_id"]] = len(facts.out) + 1
            elif kind is MoveKind.POINTS:
                facts.points[row["player_id"]] = (data["points"], data["cards"])
            elif kind is MoveKind.WORMS:
                facts.worms[row["player_id"]] = data["found"]
            if row["ends"]:
                facts.ending = row
        jail = ", ".join(f"'{k.value}'" for k in JAIL_MOVES)
        # Only each player's latest (SQLite walks the rest in C): a game of many trips to
        # Jail reads no more in Python than a game of one.
        for row in self._db.execute(
                "SELECT player_id, kind, data FROM moves WHERE id IN (SELECT MAX(id) FROM moves"
                f" m INDEXED BY moves_by_kind WHERE game_id = ? AND kind IN ({jail}) AND NOT"
                " EXISTS (SELECT 1 FROM moves u WHERE u.undoes = m.id) GROUP BY player_id)",
                (gid,)):
            if row["kind"] == MoveKind.JAILED.value:
                data = json.loads(row["data"])
                if data["in"]:
                    facts.jailed[row["player_id"]] = data.get("mark", 0)
        if facts.rules.contest is not None:
            facts.contests = contests.fold(self._db, gid, facts.rules.contest,
                                           len(facts.players))
            if facts.contests.ending is not None:  # the final fight or race closed: the end
                facts.ending = self._db.execute("SELECT * FROM moves WHERE id = ?",
                                                (facts.contests.ending,)).fetchone()
        return facts

    def _open_facts(self, game_id: int | None) -> Facts:
        """The game, refusing a write if it has ended (GameEnded names who won)."""
        facts = self._facts(game_id)
        if facts.ending is not None:
            data = json.loads(facts.ending["data"])
            who = and_joined([facts.name(p) for p in data.get("winners", ())])
            name = Said(facts.rules.name)
            if who is None:
                raise GameEnded(say("this game of {edition} has ended (nobody won): it is "
                                    "read-only; undo reopens it, or start a new game",
                                    edition=name))
            raise GameEnded(say("this game of {edition} has ended ({who} won): it is "
                                "read-only; undo reopens it, or start a new game",
                                edition=name, who=who))
        return facts

    def _in_game(self, facts: Facts, player: object, what: str = "player") -> int:
        """A player of this game who is still in it."""
        if is_id(player) and player in facts.ids:
            if player in facts.out:
                raise Refused(say("{name} is out of the game (bankrupt)", name=facts.name(player)))
            return player  # type: ignore[return-value]
        # NOTE: {what} is the request's field: player, payer, payee, creditor, owner
        raise Refused(say("unknown {what} {value}", what=what, value=shown(player)))

    def _party_in_game(self, facts: Facts, party: object, what: str) -> Party:
        return BANK if party == BANK else self._in_game(facts, party, what)

    def set_current(self, player: object, game_id: int | None = None, *, source: str = "",
                    request_id: str | None = None) -> int | None:
        """Make ``player`` (an id, or None for nobody) current: a turn move, undone in order
        (none when they already are)."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.TURN, game_id, op="current", to=player)
            if replay is not None:
                return json.loads(replay["data"])["to"]  # type: ignore[no-any-return]
            facts = self._open_facts(game_id)
            current = None if player is None else self._in_game(facts, player)
            self._turn(db, facts, current, source, request_id, "current")
        return current

    def _turn(self, db: sqlite3.Connection, facts: Facts, to: int | None, source: str,
              request_id: str | None, op: str) -> None:
        """``op``: how the turn passed (current, next), so a request id is replayed only for
        the same kind of request."""
        if to == facts.current:
            return
        mark = db.execute("SELECT COALESCE(MAX(id), 0) FROM outcomes WHERE game_id = ?",
                          (facts.gid,)).fetchone()[0]
        self._insert_move(db, facts.gid, MoveKind.TURN, player=to,
                          data={"from": facts.current, "to": to, "op": op, "mark": mark},
                          source=source, request_id=request_id)
        db.execute("UPDATE games SET current_player = ? WHERE id = ?", (to, facts.gid))

    def set_card(self, player: object, uid: object, game_id: int | None = None) -> str | None:
        """Link an NFC/RFID card UID to a player (None unlinks); one card per game. Allowed in
        an ended game too: the card follows its player's name into the next one."""
        clean = check_card_uid(uid)
        with self._write() as db:
            gid = self._game(game_id)
            ids = self._player_ids(gid)
            if not is_id(player) or player not in ids:
                raise Refused(say("unknown player {value}", value=shown(player)))
            if clean is not None:
                other = db.execute("SELECT name FROM players WHERE game_id = ? AND card_uid = ?"
                                   " AND id != ?", (gid, clean, player)).fetchone()
                if other is not None:
                    raise Refused(say("card {uid} already belongs to {name}", uid=clean,
                                      name=other[0]))
            db.execute("UPDATE players SET card_uid = ? WHERE id = ?", (clean, player))
            if clean is not None:  # one meaning per card: a player now, not an action
                db.execute("DELETE FROM card_actions WHERE uid = ?", (clean,))
        return clean

    def set_card_action(self, uid: object, action: object) -> str:
        """Make a card do an action (one of CARD_ACTIONS) whoever taps it; the card stops
        meaning a player in the current game."""
        clean = check_card_uid(uid)
        if clean is None:
            raise Refused(say("a card UID is required"))
        if action not in CARD_ACTION_NAMES:
            raise Refused(say("action must be one of {actions}, got {value}",
                              actions=joined(CARD_ACTION_NAMES), value=shown(action)))
        with self._write() as db:
            gid = self.latest_game()
            if gid is not None:
                db.execute("UPDATE players SET card_uid = NULL WHERE game_id = ? AND card_uid = ?",
                           (gid, clean))
            db.execute("INSERT INTO card_actions (uid, action, at) VALUES (?, ?, ?) ON CONFLICT"
                       " (uid) DO UPDATE SET action = excluded.action, at = excluded.at",
                       (clean, action, self.clock()))
        return clean

    def card_actions(self) -> dict[str, str]:
        return {row["uid"]: row["action"]
                for row in self._db.execute("SELECT uid, action FROM card_actions")}

    def card_meaning(self, uid: str, named: dict[str, str] | None = None
                     ) -> tuple[str, int | str | None]:
        """What a tap of ``uid`` means: ("player", id), ("action", name), ("unmatched", the
        config's name for it, not a player of this game) or ("unknown", None).

        Cards linked on the tablet (a player of the current game, or an action) come first,
        then ``named``: the config's ``UID -> player name or action:NAME``."""
        with self.snapshot():
            gid = self.latest_game()
            if gid is not None:
                row = self._db.execute("SELECT id FROM players WHERE game_id = ? AND"
                                       " card_uid = ?", (gid, uid)).fetchone()
                if row is not None:
                    return "player", row["id"]
            found = self._db.execute("SELECT action FROM card_actions WHERE uid = ?",
                                     (uid,)).fetchone()
            if found is not None:
                return "action", found["action"]
            target = (named or {}).get(uid)
            if target is not None:
                if target.startswith("action:"):
                    return "action", target.removeprefix("action:")
                if gid is not None:
                    row = self._db.execute("SELECT id FROM players WHERE game_id = ? AND"
                                           " lower(name) = lower(?)", (gid, target)).fetchone()
                    if row is not None:
                        return "player", row["id"]
                return "unmatched", target  # the config names someone not in this game
        return "unknown", None

    def next_player(self, game_id: int | None = None, *, after: object = ANYONE,
                    source: str = "", request_id: str | None = None) -> int:
        """Pass the turn to the next seat still in the game (the first if nobody is
        current). ``after``: only from that player (the one a page showed as current), so a
        second tap of Next, or two pages at once, pass the turn once."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.TURN, game_id, op="next")
            if replay is not None:
                return json.loads(replay["data"])["to"]  # type: ignore[no-any-return]
            facts = self._open_facts(game_id)
            if after is not ANYONE and after != facts.current:
                if facts.current is None:
                    raise Conflict(say("the turn has already passed: nobody is current now"))
                raise Conflict(say("the turn has already passed: {name} is current now",
                                   name=facts.name(facts.current)))
            nxt = next_seat(facts, facts.current)
            self._turn(db, facts, nxt, source, request_id, "next")
        return nxt

    def set_options(self, *, simultaneous: object, game_id: int | None = None) -> bool:
        """Wiggly Worms: everyone plays at once (time-up then does not pass the turn)."""
        if not isinstance(simultaneous, bool):
            raise Refused(say("simultaneous must be true or false"))
        with self._write() as db:
            facts = self._open_facts(game_id)
            if not facts.rules.at_once_quote:
                raise Refused(say("{edition} has no mode where everyone plays at once",
                                  edition=Said(facts.rules.name)))
            options = {**facts.options, "simultaneous": simultaneous}
            db.execute("UPDATE games SET options = ? WHERE id = ?",
                       (json.dumps(options), facts.gid))
        return simultaneous

    # -- the journal -----------------------------------------------------------------------

    def journal(self, game_id: int | None = None) -> list[Entry]:
        gid = self._game(game_id)
        return [_entry(row) for row in self._db.execute(
            "SELECT * FROM entries WHERE game_id = ? ORDER BY id", (gid,))]

    def balances(self, game_id: int | None = None) -> dict[int, int]:
        """Each player's coins: the sum of the journal, kept in memory as entries are written
        (a write's cost does not grow with the game). Summed again by SQLite the first time a
        game is read, and whenever another connection has written the file since."""
        with self.snapshot():
            return self._balances(self._game(game_id))

    def summed_balances(self, game_id: int | None = None) -> dict[int, int]:
        """Each player's coins, summed from the whole journal by SQLite."""
        with self.snapshot():
            gid = self._game(game_id)
            result = dict.fromkeys(self._player_ids(gid), 0)
            for pid, total in self._db.execute(
                    "SELECT party, SUM(delta) FROM ("
                    " SELECT payee AS party, amount AS delta FROM entries WHERE game_id = ?1"
                    " UNION ALL SELECT payer, -amount FROM entries WHERE game_id = ?1)"
                    " WHERE party IS NOT NULL GROUP BY party", (gid,)):
                result[pid] = total
            return result

    def check_balances(self, game_id: int | None = None) -> bool:
        """Are the balances kept in memory the full sum? (Not kept yet, as when the bank
        opens: the journal replayed through the same rule as a write.) If they ever differ,
        log an ERROR and trust the sum. True when they agree."""
        assert self._working is None, "not inside a write"
        with self.snapshot():
            gid = self._game(game_id)
            self._fresh()
            kept = self._money.get(gid)
            if kept is None:
                kept = dict.fromkeys(self._player_ids(gid), 0)
                for payer, payee, amount in self._db.execute(
                        "SELECT payer, payee, amount FROM entries WHERE game_id = ?", (gid,)):
                    _credit(kept, _party(payer), _party(payee), amount)
            summed = self.summed_balances(gid)
            self._money[gid] = summed
        if kept != summed:
            log.error("bank %s, game %d: the balances kept (%s) are not the sum of the journal "
                      "(%s): using the sum", self.path, gid, kept, summed)
            return False
        return True

    def _fresh(self) -> None:
        """Forget the balances kept if another connection has committed since (SQLite's
        ``PRAGMA data_version``; this connection's own commits leave it as it is)."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._money_version:
            self._money.clear()
            self._money_version = version

    def _kept(self, gid: int) -> dict[int, int]:
        """The balances of game ``gid`` kept in memory (this write's, inside one), read by
        the full sum if they are not kept yet. Inside a transaction or a snapshot."""
        if self._working is not None:
            money = self._working.get(gid)
            if money is None:
                base = self._money.get(gid)
                money = self._working[gid] = dict(base) if base is not None \
                    else self.summed_balances(gid)
            return money
        self._fresh()  # before the sum: what is kept is never older than its version
        money = self._money.get(gid)
        if money is None:
            money = self._money[gid] = self.summed_balances(gid)
        return money

    def _balances(self, gid: int) -> dict[int, int]:
        return dict(self._kept(gid))

    def _insert_move(self, db: sqlite3.Connection, gid: int, kind: MoveKind, *,
                     player: int | None = None, data: Mapping[str, Any] | None = None,
                     note: str = "", source: str = "", ends: bool = False,
                     undoes: int | None = None, request_id: str | None = None) -> int:
        move_id = db.execute(
            "INSERT INTO moves (game_id, at, kind, player_id, data, note, source, ends, undoes,"
            " request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (gid, self.clock(), kind.value, player, json.dumps(dict(data or {})), note, source,
             int(ends), undoes, request_id)).lastrowid
        assert move_id is not None
        return move_id

    def _insert_entry(self, db: sqlite3.Connection, gid: int, move: int, payer: Party,
                      payee: Party, amount: int, kind: EntryKind, note: str = "",
                      source: str = "", outcome_id: int | None = None,
                      undoes: int | None = None, space: str | None = None) -> Entry:
        """Write one journal line (inside a write) and count it in the balances kept;
        ``space``: its ``"bank"`` side is the Board's pile there."""
        assert self._working is not None, "entries are written inside a write"
        money = self._kept(gid)  # first: a first read sums the journal without this line
        now = self.clock()
        entry_id = db.execute(
            "INSERT INTO entries (game_id, at, payer, payee, amount, kind, note, source,"
            " outcome_id, undoes, move_id, space) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (gid, now, _column(payer), _column(payee), amount, kind.value, note, source,
             outcome_id, undoes, move, space)).lastrowid
        assert entry_id is not None
        _credit(money, payer, payee, amount)
        if space is not None:  # the Board's side: its pile on that space grows or shrinks
            delta = amount if payee == BANK else -amount
            db.execute("INSERT OR IGNORE INTO board_piles (game_id, space, coins, since)"
                       " VALUES (?, ?, 0, ?)", (gid, space, entry_id))
            db.execute("UPDATE board_piles SET coins = coins + ?, since = CASE WHEN coins = 0"
                       " THEN ? ELSE since END WHERE game_id = ? AND space = ?",
                       (delta, entry_id, gid, space))
        return Entry(entry_id, gid, now, payer, payee, amount, kind, note, source, outcome_id,
                     undoes, move, space)

    def _move_entries(self, move_id: int) -> list[Entry]:
        return [_entry(row) for row in self._db.execute(
            "SELECT * FROM entries WHERE move_id = ? ORDER BY id", (move_id,))]

    def _replay(self, request_id: object, kind: MoveKind, game_id: int | None,
                **same: object) -> sqlite3.Row | None:
        """The move an earlier try of this very request wrote, if any.

        A request id reused for a different operation is refused."""
        if request_id is None:
            return None
        if not isinstance(request_id, str) or not 1 <= len(request_id) <= 100 \
                or not request_id.isprintable():
            raise Refused(say("request id must be 1-100 printable characters"))
        row = self._db.execute("SELECT * FROM moves WHERE request_id = ?",
                               (request_id,)).fetchone()
        if row is None:
            return None
        data = json.loads(row["data"])
        playing = game_id if game_id is not None else self.latest_game()
        if row["kind"] != kind.value or row["game_id"] != playing \
                or any(data.get(key) != value for key, value in same.items()):
            raise Refused(say("request id {id} was already used for another operation",
                              id=repr(request_id)))
        return row

    # -- coins -----------------------------------------------------------------------------

    def _pay(self, db: sqlite3.Connection, facts: Facts, move_kind: MoveKind,
             entry_kind: EntryKind, payer: Party, payee: Party, amount: int, *, note: str,
             source: str, request_id: str | None, data: Mapping[str, Any],
             outcome_id: int | None = None, subject: int | None = None) -> Payment:
        """Move ``amount`` (or, where payments are capped, what the payer has); ``subject`` is
        the player the move is about (default: the payer)."""
        moved = amount
        if payer != BANK:
            balance = self._balances(facts.gid)[payer]  # type: ignore[index]
            moved = facts.rules.payable(amount, balance)
        who = facts.name(payer)
        message: str | Said = ""
        if moved == 0:
            message = say("{name} has no coins: nothing to pay. Hang in there!", name=who)
        elif moved < amount:
            message = say("{name} had only {moved} of {asked} coins: paid {moved}", name=who,
                          moved=moved, asked=amount)
        if subject is None and payer != BANK:
            subject = int(payer)
        # A payment that moved nothing is kept too (the history says so, and a retry of the
        # same request stays answered); undo passes over it.
        move = self._insert_move(db, facts.gid, move_kind, player=subject,
                                 data={**data, "asked": amount, **texts(message=message)},
                                 note=note,
                                 source=source, request_id=request_id)
        if moved == 0:
            return Payment(None, amount, message)
        entry = self._insert_entry(db, facts.gid, move, payer, payee, moved, entry_kind, note,
                                   source, outcome_id=outcome_id)
        return Payment(entry, amount, message)

    def _replayed_payment(self, row: sqlite3.Row) -> Payment:
        entries = self._move_entries(row["id"])
        data = json.loads(row["data"])
        return Payment(entries[0] if entries else None, data["asked"], stored(data, "message"))

    def transfer(self, payer: object, payee: object, amount: object, *, note: object = "",
                 source: str = "", request_id: str | None = None,
                 game_id: int | None = None) -> Payment:
        """Move coins between a player and the bank or another player. Where the edition caps
        payments, a player pays what they have ("Hang in there!").

        ``request_id`` makes a retried request harmless: the same id returns the first one.
        """
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.TRANSFER, game_id, payer=payer,
                                  payee=payee, asked=amount, note=note)
            if replay is not None:
                return self._replayed_payment(replay)
            facts = self._open_facts(game_id)
            if not facts.rules.coins:
                raise Refused(say("{edition} keeps no coins", edition=Said(facts.rules.name)))
            a = self._party_in_game(facts, payer, "payer")
            b = self._party_in_game(facts, payee, "payee")
            if a == b:
                raise Refused(say("the bank cannot pay itself") if a == BANK else
                              say("a player cannot pay themselves"))
            n = check_amount(amount)
            text = check_note(note)
            return self._pay(db, facts, MoveKind.TRANSFER, EntryKind.TRANSFER, a, b, n,
                             note=text, source=source, request_id=request_id,
                             data={"payer": payer, "payee": payee, "note": text})

    def pass_go(self, player: object = None, *, source: str = "",
                request_id: str | None = None, game_id: int | None = None) -> Entry:
        """The bank pays the edition's GO salary to ``player`` (None: the current player)."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.PASS_GO, game_id, player=player)
            if replay is not None:
                return self._move_entries(replay["id"])[0]
            facts = self._open_facts(game_id)
            if facts.rules.pass_go is None:
                raise Refused(say("{edition} pays nothing for passing GO",
                                  edition=Said(facts.rules.name)))
            pid = self._in_game(facts, or_current(facts, player))
            paid = self._pay(db, facts, MoveKind.PASS_GO, EntryKind.PASS_GO, BANK, pid,
                             facts.rules.pass_go.value, note="passed GO", source=source,
                             request_id=request_id, data={"player": player}, subject=pid)
            assert paid.entry is not None
            return paid.entry

    def jail(self, player: object = None, *, source: str = "", request_id: str | None = None,
             game_id: int | None = None) -> Entry:
        """A player (None: the current one) pays the edition's jail fee to the Bank. Where
        payments are capped, a player who can't pay it rolls for a 6 instead (the rulebook's
        other way out)."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.JAIL, game_id, player=player)
            if replay is not None:
                return self._move_entries(replay["id"])[0]
            facts = self._open_facts(game_id)
            fee = facts.rules.jail_fee
            if fee is None:
                raise Refused(say("{edition} has no Jail", edition=Said(facts.rules.name)))
            pid = self._in_game(facts, or_current(facts, player))
            balance = self._balances(facts.gid)[pid]
            if facts.rules.debt is Debt.CAPPED and balance < fee.value:
                raise Refused(say_n("{name} has {n} coin and can't pay the jail fee of {fee}: "
                                    "roll for a 6 instead",
                                    "{name} has {n} coins and can't pay the jail fee of {fee}: "
                                    "roll for a 6 instead",
                                    balance, name=facts.name(pid), fee=fee.value))
            frees = pid in facts.jailed
            paid = self._pay(db, facts, MoveKind.JAIL, EntryKind.JAIL, pid, BANK, fee.value,
                             note="jail fee", source=source, request_id=request_id,
                             data={"player": player, "frees": frees})
            assert paid.entry is not None
            return paid.entry

    def set_jail(self, player: object, in_jail: object, *, source: str = "",
                 request_id: str | None = None, game_id: int | None = None) -> MoveView:
        """The banker sends a player to Jail (a Go to Jail space, a card) or lets them out
        without the fee (a Get Out of Jail Free card). A player in Jail pays no toll, can't
        battle, and presses to roll for doubles where the edition has that mode."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.JAILED, game_id, player=player,
                                  **{"in": in_jail})
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            if facts.rules.jail_fee is None:
                raise Refused(say("{edition} has no Jail", edition=Said(facts.rules.name)))
            if not isinstance(in_jail, bool):
                raise Refused(say("in_jail must be true (goes to Jail) or false (leaves it)"))
            pid = self._in_game(facts, or_current(facts, player))
            if (pid in facts.jailed) == in_jail:
                raise Refused(say("{name} is already in Jail", name=facts.name(pid)) if in_jail
                              else say("{name} is not in Jail", name=facts.name(pid)))
            why = "sent by the banker" if in_jail else "let out by the banker"
            move = self._jailed(db, facts, pid, in_jail, why, source, request_id,
                                {"player": player})
            return self._move_view(move, facts)

    def _jailed(self, db: sqlite3.Connection, facts: Facts, pid: int, in_jail: bool, why: str,
                source: str, request_id: str | None, data: Mapping[str, Any]) -> int:
        """Write a player's way into or out of Jail (their tries count from here)."""
        mark = db.execute("SELECT COALESCE(MAX(id), 0) FROM outcomes WHERE game_id = ?",
                          (facts.gid,)).fetchone()[0]
        return self._insert_move(db, facts.gid, MoveKind.JAILED, player=pid,
                                 data={**data, "in": in_jail, "why": why, "mark": mark},
                                 source=source, request_id=request_id)

    def toll(self, players: object, *, source: str = "", request_id: str | None = None,
             game_id: int | None = None) -> MoveView:
        """Bowser passed ``players``: each pays the Bank the edition's toll, one move (one
        undo). A player in Jail pays none (the rulebook); the page leaves out those on Free
        Parking."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.TOLL, game_id, players=players)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            toll = facts.rules.toll
            if toll is None:
                raise Refused(say("there is no Bowser's toll in {edition}",
                                  edition=Said(facts.rules.name)))
            if not isinstance(players, list) or not players:
                raise Refused(say("players must be a non-empty list of the players Bowser passed"))
            payers: list[int] = []
            for player in players:
                pid = self._in_game(facts, player)
                if pid in payers:
                    raise Refused(say("{name} is listed twice", name=facts.name(pid)))
                if pid in facts.jailed:
                    raise Refused(say("{name} is in Jail and pays no toll", name=facts.name(pid)))
                payers.append(pid)
            move = self._insert_move(db, facts.gid, MoveKind.TOLL, data={
                "players": players, "coins": toll.value}, note="Bowser's toll", source=source,
                request_id=request_id)
            money = self._balances(facts.gid)
            for pid in payers:
                amount = facts.rules.payable(toll.value, money[pid])
                if amount:
                    self._insert_entry(db, facts.gid, move, pid, BANK, amount, EntryKind.TOLL,
                                       "Bowser's toll", source)
            return self._move_view(move, facts)

    # -- coins on the board (Gamer, Mario Kart) -------------------------------------------

    def board(self, game_id: int | None = None) -> dict[str, int]:
        """The coins on the board: each space's pile, by name (empty piles left out)."""
        with self.snapshot():
            return self._board(self._game(game_id))

    def _board(self, gid: int) -> dict[str, int]:
        """The piles as kept with every line (:meth:`board_summed` checks them)."""
        rows = self._db.execute("SELECT space, coins FROM board_piles WHERE game_id = ? AND"
                                " coins > 0 ORDER BY since", (gid,)).fetchall()
        return {row["space"]: row["coins"] for row in rows}

    def board_summed(self, game_id: int | None = None) -> dict[str, int]:
        """The piles summed from the journal's lines (for tests and checks: slow)."""
        rows = self._db.execute(
            "SELECT space, SUM(CASE WHEN payee IS NULL THEN amount ELSE -amount END) AS coins"
            " FROM entries INDEXED BY entries_on_board WHERE game_id = ? AND space IS NOT NULL"
            " GROUP BY space ORDER BY MIN(id)", (self._game(game_id),)).fetchall()
        return {row["space"]: row["coins"] for row in rows if row["coins"] > 0}

    def _board_facts(self, game_id: int | None) -> tuple[Facts, Any]:
        facts = self._open_facts(game_id)
        board = facts.rules.board
        if board is None:
            raise Refused(say("{edition} has no coins on the board",
                              edition=Said(facts.rules.name)))
        return facts, board

    def drop(self, player: object, space: object, coins: object, *, source: str = "",
             request_id: str | None = None, game_id: int | None = None) -> MoveView:
        """``player`` drops ``coins`` on ``space`` (a Thwomp, a shell, POW, Lightning): they
        leave the player for the pile there. A player never drops more than they have: they
        drop what they have ("Then drop or give any Coins you still owe"). A player in Jail
        drops on Just Visiting."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.DROP, game_id, player=player,
                                  typed=space, asked=coins)
            if replay is not None:
                return self._move_view(replay["id"])
            facts, board = self._board_facts(game_id)
            pid = self._in_game(facts, player)
            n = check_amount(coins)
            where = check_space(space, (*board.spaces, *self._board(facts.gid)))
            if pid in facts.jailed and where != board.jail_space:
                raise Refused(say("{name} is in Jail: a player in Jail drops coins on {space}",
                                  name=facts.name(pid), space=board.jail_space))
            moved = max(0, min(n, self._balances(facts.gid)[pid]))
            message = "" if moved == n else (
                say("{name} has no coins: nothing to drop", name=facts.name(pid)) if moved == 0
                else say("{name} had only {moved} of {asked} coins: dropped {moved}",
                         name=facts.name(pid), moved=moved, asked=n))
            move = self._insert_move(db, facts.gid, MoveKind.DROP, player=pid, data={
                "player": player, "space": where, "typed": space, "asked": coins,
                **texts(message=message)},
                source=source, request_id=request_id)
            if moved:
                self._insert_entry(db, facts.gid, move, pid, BANK, moved, EntryKind.DROP,
                                   f"dropped on {where}", source, space=where)
            return self._move_view(move, facts)

    def scoop(self, player: object, space: object, *, source: str = "",
              request_id: str | None = None, game_id: int | None = None) -> MoveView:
        """``player`` passed or landed on ``space``: they scoop up its whole pile."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.SCOOP, game_id, player=player,
                                  typed=space)
            if replay is not None:
                return self._move_view(replay["id"])
            facts, board = self._board_facts(game_id)
            pid = self._in_game(facts, player)
            piles = self._board(facts.gid)
            where = check_space(space, (*piles, *board.spaces))
            pile = piles.get(where, 0)
            if pile <= 0:
                raise Refused(say("there are no coins on {space}", space=where))
            move = self._insert_move(db, facts.gid, MoveKind.SCOOP, player=pid, data={
                "player": player, "space": where, "typed": space}, source=source,
                request_id=request_id)
            self._insert_entry(db, facts.gid, move, BANK, pid, pile, EntryKind.SCOOP,
                               f"scooped up from {where}", source, space=where)
            return self._move_view(move, facts)

    def bowser_wins(self, *, source: str = "", request_id: str | None = None,
                    game_id: int | None = None) -> MoveView:
        """Every Title Deed is on its Game Over side: Bowser wins, every player loses, the
        game ends (undo reopens it)."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.BOWSER_WINS, game_id)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            if not facts.rules.bowser_wins:
                raise Refused(say("Bowser can't win {edition}", edition=Said(facts.rules.name)))
            data = {**self._ending(facts, self._balances(facts.gid), []), "bowser": True}
            move = self._insert_move(db, facts.gid, MoveKind.BOWSER_WINS, data=data,
                                     note="Bowser wins", source=source, ends=True,
                                     request_id=request_id)
            return self._move_view(move, facts)

    # -- the end of a game -----------------------------------------------------------------

    def _ending(self, facts: Facts, money: Mapping[int, int],
                winning: Sequence[int]) -> dict[str, Any]:
        """The record of an end: who won and the final standings."""
        table = standings(facts.rules, facts.seats(money))
        return {"winners": list(winning), "standings": [s.to_json() for s in table]}

    def bankruptcy(self, player: object, creditor: object, *, source: str = "",
                   request_id: str | None = None, game_id: int | None = None) -> MoveView:
        """The banker declares ``player`` bankrupt to ``creditor`` (a player or the Bank):
        what they have left goes to the creditor and they are out; the last player left wins.
        A player below zero had paid coins they did not have: those go back from whoever got
        them (:func:`companion.core.ledger.overdraft`), so nobody keeps coins that never
        were."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.BANKRUPTCY, game_id, player=player,
                                  creditor=creditor)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            if facts.rules.debt is not Debt.BANKRUPTCY:
                raise Refused(say("nobody goes bankrupt in {edition}: a player who can't pay "
                                  "pays what they have", edition=Said(facts.rules.name)))
            pid = self._in_game(facts, player)
            to = self._party_in_game(facts, creditor, "creditor")
            if to == pid:
                raise Refused(say("a player cannot be bankrupt to themselves"))
            money = self._balances(facts.gid)
            left = money[pid]
            # A balance below zero: what was paid without being there goes back to whoever got
            # it (newest payments first; the Bank, or a player who is out, writes it off).
            back = [(BANK if payee == BANK or payee in facts.out else payee, amount)
                    for payee, amount in (overdraft(self.journal(facts.gid), pid)
                                          if left < 0 else [])]
            facts.out[pid] = len(facts.out) + 1
            after = facts.current
            if facts.current == pid:  # the turn goes on to the next player still in it
                after = next_seat(facts, pid)
            remaining = facts.active
            data: dict[str, Any] = {"player": player, "creditor": creditor,
                                    "coins": max(left, 0), "given_back": back,
                                    "current_before": facts.current, "current_after": after}
            money = {**money, pid: 0}  # settled: the creditor gets exactly what there was
            if to != BANK:
                money[to] += max(left, 0)
            for payee, amount in back:
                if payee != BANK:
                    money[payee] -= amount
            ends = len(remaining) <= 1
            if ends:
                data.update(self._ending(facts, money, remaining))
            note = f"bankrupt to {facts.name(to)}"
            move = self._insert_move(db, facts.gid, MoveKind.BANKRUPTCY, player=pid, data=data,
                                     note=note, source=source, ends=ends,
                                     request_id=request_id)
            if left > 0:
                self._insert_entry(db, facts.gid, move, pid, to, left, EntryKind.BANKRUPTCY,
                                   f"what {facts.name(pid)} had left", source)
            for payee, amount in back:
                note = (f"{facts.name(pid)} could not pay it" if payee == BANK else
                        f"{facts.name(payee)} gives back what {facts.name(pid)} did not have")
                self._insert_entry(db, facts.gid, move, payee, pid, amount,
                                   EntryKind.BANKRUPTCY, note, source)
            if after != facts.current:
                db.execute("UPDATE games SET current_player = ? WHERE id = ?", (after, facts.gid))
            return self._move_view(move)

    def set_points(self, player: object, points: object, cards: object, *, source: str = "",
                   request_id: str | None = None, game_id: int | None = None) -> MoveView:
        """Points games: the points printed on a player's cards (Property, Boss or Grand Prix)
        and how many cards they hold (a tie goes to the most), typed in."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.POINTS, game_id, player=player,
                                  points=points, cards=cards)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            scoring = facts.rules.scoring
            if scoring is None:
                raise Refused(say("{edition} is not won on points: nothing to type in",
                                  edition=Said(facts.rules.name)))
            pid = self._in_game(facts, player)
            p = check_count(points, "points", MAX_POINTS)
            n = check_count(cards, "cards", scoring.max_cards.value)
            move = self._insert_move(db, facts.gid, MoveKind.POINTS, player=pid,
                                     data={"player": player, "points": p, "cards": n},
                                     note=f"{p} points, {n} cards", source=source,
                                     request_id=request_id)
            return self._move_view(move)

    def set_worms(self, player: object, found: object, *, source: str = "",
                  request_id: str | None = None, game_id: int | None = None) -> MoveView:
        """Wiggly Worms: how many of their worms a player has found; the first to find all of
        them wins, and the game ends."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.WORMS, game_id, player=player,
                                  found=found)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            target = facts.rules.worms
            if target is None:
                raise Refused(say("{edition} has no worms to find", edition=Said(facts.rules.name)))
            pid = self._in_game(facts, player)
            n = check_count(found, "found", target.value)
            facts.worms[pid] = n
            data: dict[str, Any] = {"player": player, "found": n}
            ends = n == target.value
            if ends:
                data.update(self._ending(facts, self._balances(facts.gid), [pid]))
            move = self._insert_move(db, facts.gid, MoveKind.WORMS, player=pid, data=data,
                                     note=f"{n} of {target.value} worms", source=source,
                                     ends=ends, request_id=request_id)
            return self._move_view(move)

    def end_game(self, *, source: str = "", request_id: str | None = None,
                 game_id: int | None = None) -> MoveView:
        """The banker says the final Boss fight / Race is over: the game ends and the highest
        score wins. Other editions end by their own rule, not by decree."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.END, game_id)
            if replay is not None:
                return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            rules = facts.rules
            if rules.end is not End.POINTS:
                name = Said(rules.name)
                raise Refused({
                    End.LAST_PLAYER: say("{edition} ends when every other player has gone "
                                         "bankrupt, not when the banker says so", edition=name),
                    End.WORMS: say("{edition} ends when a player has found all their worms, "
                                   "not when the banker says so", edition=name)}[rules.end])
            money = self._balances(facts.gid)
            data = self._ending(facts, money, winners(rules, facts.seats(money)))
            move = self._insert_move(db, facts.gid, MoveKind.END, data=data,
                                     note="final score", source=source, ends=True,
                                     request_id=request_id)
            return self._move_view(move)

    # -- undo ------------------------------------------------------------------------------

    def undo(self, *, source: str = "", request_id: str | None = None,
             game_id: int | None = None, expect: object = None) -> Undone:
        """Undo the latest move not undone yet, whole (never opening balances or undos): its
        coins move back; a bankrupt player is back in; an ended game is open again.

        Undoing a block outcome's coins also makes that outcome unassigned again, so it can be
        given to the right player; undoing a turn gives it back. ``expect``: only that move (the
        one a page showed in its Undo button), so a second tap undoes nothing more."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, MoveKind.UNDO, game_id)
            if replay is not None:
                if expect is not None and replay["undoes"] != expect:
                    raise Refused(say("request id {id} was already used for another "
                                      "operation", id=repr(request_id)))
                return Undone(self._move_view(replay["id"]), self._move_view(replay["undoes"]))
            gid = self._game(game_id)
            row = self._undo_target(gid)
            if row is None:
                raise Refused(say("nothing to undo"))
            target = self._move_view(row["id"])
            if expect is not None and expect != row["id"]:
                raise Conflict(say("the last move has changed: Undo would now undo \"{move}\"",
                                   move=target.text))
            move = self._insert_move(db, gid, MoveKind.UNDO, player=row["player_id"],
                                     note=f"undo: {target.text}"[:200], source=source,
                                     undoes=row["id"], request_id=request_id)
            for entry in reversed(target.entries):
                if entry.outcome_id is not None:
                    db.execute("UPDATE outcomes SET player_id = NULL WHERE id = ?",
                               (entry.outcome_id,))
                self._insert_entry(db, gid, move, entry.payee, entry.payer, entry.amount,
                                   EntryKind.UNDO, f"undo: {target.text}"[:200], source,
                                   outcome_id=entry.outcome_id, undoes=entry.id,
                                   space=entry.space)
            data = json.loads(row["data"])
            if row["kind"] == MoveKind.TURN.value:
                db.execute("UPDATE games SET current_player = ? WHERE id = ?",
                           (data["from"], gid))
            if row["kind"] in (MoveKind.JAILED.value, MoveKind.CONTEST.value) and \
                    data.get("outcome") is not None:
                # The outcome that sent them (or let them out) is unassigned again, like a block
                # outcome's coins: its try or its doubles no longer count.
                db.execute("UPDATE outcomes SET player_id = NULL WHERE id = ?",
                           (data["outcome"],))
            if row["kind"] in (MoveKind.BANKRUPTCY.value, MoveKind.JAILED.value) and \
                    data.get("current_after") != data.get("current_before"):
                current = db.execute("SELECT current_player FROM games WHERE id = ?",
                                     (gid,)).fetchone()[0]
                if current == data["current_after"]:  # nobody moved the turn on since
                    db.execute("UPDATE games SET current_player = ? WHERE id = ?",
                               (data["current_before"], gid))
            return Undone(self._move_view(move), self._move_view(row["id"]))

    def redo(self, undo: object, *, source: str = "", request_id: str | None = None,
             game_id: int | None = None) -> MoveView:
        """Bring back the move that ``undo`` (the latest move, an undo) undid: its coins move
        again, or the turn passes again, as a new move (undone like any other). Only right
        after the undo: anything written since makes it stale."""
        source = check_source(source)
        with self._write() as db:
            if request_id is not None:
                replay = db.execute("SELECT id, game_id, data FROM moves WHERE request_id = ?",
                                    (request_id,)).fetchone()
                if replay is not None:
                    undone = db.execute("SELECT undoes FROM moves WHERE id = ? AND kind = ?",
                                        (undo, MoveKind.UNDO.value)).fetchone() \
                        if is_id(undo) else None
                    if undone is None or json.loads(replay["data"]).get("redoes") != \
                            undone["undoes"] or replay["game_id"] != self._game(game_id):
                        raise Refused(say("request id {id} was already used for another "
                                          "operation", id=repr(request_id)))
                    return self._move_view(replay["id"])
            facts = self._open_facts(game_id)
            latest = db.execute("SELECT * FROM moves WHERE game_id = ? ORDER BY id DESC LIMIT 1",
                                (facts.gid,)).fetchone()
            if latest is None or latest["kind"] != MoveKind.UNDO.value or latest["id"] != undo:
                raise Conflict(say("nothing to redo: Redo brings back what the last Undo "
                                   "undid, before anything else is done"))
            target = self._move_view(latest["undoes"], facts)
            if target.kind not in REDOABLE:
                raise Refused(say("{move} can't be redone: declare it again", move=target.text))
            data = {**target.data, "redoes": target.id}
            if target.kind is MoveKind.TURN:
                data["op"] = "redo"
                to = data["to"]
                if to is not None:
                    self._in_game(facts, to)
                moved = self._insert_move(db, facts.gid, MoveKind.TURN, player=to, data=data,
                                          source=source, request_id=request_id)
                db.execute("UPDATE games SET current_player = ? WHERE id = ?", (to, facts.gid))
                return self._move_view(moved, facts)
            for entry in target.entries:  # everyone still in, or nothing moves
                for party in (entry.payer, entry.payee):
                    self._party_in_game(facts, party, "player")
            moved = self._insert_move(db, facts.gid, target.kind, player=target.player_id,
                                      data=data, note=target.note, source=source,
                                      request_id=request_id)
            if target.kind is MoveKind.JAILED and facts.current == data.get("current_before") \
                    and data.get("current_after") is not None:  # the turn passes again
                db.execute("UPDATE games SET current_player = ? WHERE id = ?",
                           (data["current_after"], facts.gid))
            if target.kind is MoveKind.JAILED and data.get("outcome") is not None:
                db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?",
                           (target.player_id, data["outcome"]))
            for entry in target.entries:
                self._insert_entry(db, facts.gid, moved, entry.payer, entry.payee,
                                   entry.amount, entry.kind, entry.note, source,
                                   outcome_id=entry.outcome_id, space=entry.space)
                if entry.outcome_id is not None:
                    db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?",
                               (target.player_id, entry.outcome_id))
            return self._move_view(moved, facts)

    def _previews(self, facts: Facts) -> tuple[MoveRef | None, MoveRef | None, str]:
        """What Undo would undo and Redo bring back now, and the table's version: it changes
        with every move, press and turn, so a page keys a write on what it saw."""
        target = self._undo_target(facts.gid)
        undo = None if target is None else MoveRef(target["id"], self._move_view(
            target["id"], facts).text)
        latest = self._db.execute("SELECT id, kind, undoes FROM moves WHERE game_id = ? ORDER"
                                  " BY id DESC LIMIT 1", (facts.gid,)).fetchone()
        redo = None
        if latest is not None and latest["kind"] == MoveKind.UNDO.value:
            undone = self._move_view(latest["undoes"], facts)
            if undone.kind in REDOABLE:
                redo = MoveRef(latest["id"], undone.text)
        counter = self._db.execute("SELECT version FROM table_state WHERE id = 1").fetchone()
        version = f"{facts.gid}.{0 if counter is None else counter[0]}"
        return undo, redo, version

    def _undo_target(self, gid: int) -> sqlite3.Row | None:
        """The latest move not undone yet that undo takes (not the opening balances, not an
        undo, not a payment that moved nothing; :func:`companion.core.ledger.undo_target`).

        Walks back from the newest move, jumping from an undo to below its target: when the
        undo was written its target was the latest move not undone, so every move between the
        two is undone already (or an undo, or moved nothing). A run of undos is one step, and
        the walk never reads the rest of the game."""
        below = 2**63 - 1
        while True:
            row = self._db.execute("SELECT * FROM moves WHERE game_id = ? AND id < ? ORDER BY"
                                   " id DESC LIMIT 1", (gid, below)).fetchone()
            if row is None:
                return None
            kind = row["kind"]
            if kind == MoveKind.UNDO.value:
                below = row["id"] if row["undoes"] is None else row["undoes"]
            elif kind == MoveKind.OPENING.value or (
                    kind == MoveKind.TRANSFER.value and self._db.execute(
                        "SELECT 1 FROM entries WHERE move_id = ? LIMIT 1",
                        (row["id"],)).fetchone() is None):
                below = row["id"]
            else:
                return row

    # -- the block -------------------------------------------------------------------------

    def record_outcome(self, outcome: Outcome, *, params: Mapping[str, int] | None = None,
                       source: str = "button", at: float | None = None,
                       game_id: int | None = None, player: int | Current | None = CURRENT,
                       press_id: str | None = None, held: bool = False) -> OutcomeView:
        """Keep an outcome and apply it: to ``player`` (by default the current player;
        unassigned if nobody is), or for utility rent to the payer it was armed with.

        ``press_id`` makes it once only: a press held while the disk refused it and retried
        later (even after a restart) is banked once. A ``held`` press whose game has ended
        meanwhile, or whose player is out, is kept unassigned: nothing of it is lost."""
        source = check_source(source)
        with self._write() as db:
            if press_id is not None:
                row = db.execute("SELECT id, game_id FROM outcomes WHERE press_id = ?",
                                 (press_id,)).fetchone()
                if row is not None:
                    return self._outcome_view(row["id"], self._facts(row["game_id"]))
            late = held
            facts = self._facts(game_id) if late else self._open_facts(game_id)
            mode = facts.rules.find_mode(outcome.mode)
            clean: dict[str, Any] = {}
            who = facts.current if isinstance(player, Current) else player
            if mode is not None and mode.needs:
                clean = check_arming(mode, params or {}, tuple(facts.ids if late else
                                                               facts.active),
                                     frozenset(facts.jailed), late=late)
                who = clean.get("payer", clean.get("leader"))
            if contest_outcome(outcome):  # the fighter's or the racer's roll, if still due
                wanted = (params or {}).get("player")
                found = facts.contests
                clean = {"player": wanted} if is_id(wanted) else {}
                if found is not None and found.current_move is not None:
                    clean["contest"] = found.current_move  # it counts in this contest only
                who = wanted if facts.ending is None and self.contest_roller(facts) == wanted \
                    and wanted is not None else None
            if late and (facts.ending is not None or who not in facts.active
                         or clean.get("owner", who) not in facts.active
                         or clean.get("teammate") not in (None, *facts.active)):
                who = None  # kept for the banker to give to someone (or to see)
            kept = {**clean, "step": outcome.step} if outcome.step else clean
            when = self.clock() if at is None else at
            outcome_id = db.execute(
                "INSERT INTO outcomes (game_id, at, mode, kind, coins, rolls, params, source,"
                " press_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (facts.gid, when, outcome.mode, outcome.kind.value, outcome.coins,
                 json.dumps(list(outcome.rolls)), json.dumps(kept), source,
                 press_id)).lastrowid
            assert outcome_id is not None
            if who is None:
                return self._outcome_view(outcome_id, facts)
            return self._apply(db, facts, outcome_id, who, source)

    def assign_outcome(self, outcome_id: object, player: object, *, source: str = "",
                       game_id: int | None = None) -> OutcomeView:
        """Give an unassigned outcome to a player: once, unless an undo takes it back."""
        source = check_source(source)
        with self._write() as db:
            facts = self._open_facts(game_id)
            row = None
            if is_id(outcome_id):
                row = db.execute("SELECT * FROM outcomes WHERE id = ? AND game_id = ?",
                                 (outcome_id, facts.gid)).fetchone()
            if row is None:
                raise Refused(say("unknown outcome {value}", value=shown(outcome_id)))
            if row["player_id"] is not None:
                raise Refused(say("outcome {id} is already assigned", id=outcome_id))
            params = json.loads(row["params"])
            pid = self._in_game(facts, player)
            if params.get("payer") not in (None, pid):
                raise Refused(say("utility rent is paid by the player it was rolled for"))
            if params.get("leader") not in (None, pid):
                raise Refused(say("a battle's outcome goes to the player who led it"))
            if contest_outcome(_outcome(row)) and (
                    self.contest_roller(facts) != pid or facts.contests is None or
                    params.get("contest") != facts.contests.current_move):
                raise Refused(say("a contest's roll goes to the player whose roll is due, in "
                                  "the fight or race it was rolled in"))
            return self._apply(db, facts, row["id"], pid, source)

    def _apply(self, db: sqlite3.Connection, facts: Facts, outcome_id: int, player: int,
               source: str) -> OutcomeView:
        row = db.execute("SELECT * FROM outcomes WHERE id = ?", (outcome_id,)).fetchone()
        outcome = _outcome(row)
        params = json.loads(row["params"])
        owner = params.get("owner")
        if owner is not None:
            owner = self._in_game(facts, owner, "owner")
        teammate = params.get("teammate")
        if teammate not in facts.active:
            teammate = None  # out since: nobody to pay
        db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?", (player, outcome_id))
        mode = facts.rules.find_mode(outcome.mode)
        # Only a mode of this edition moves coins (an outcome from an older companion in an
        # edition without a block is kept and logged, as it was).
        movements = outcome_movements(outcome, player, owner, teammate) \
            if facts.rules.coins and mode is not None else []
        described = mode.describe(outcome) if mode is not None else outcome.label
        note = str(described)  # the entry's note: English; the move keeps its Said too
        change = jail_change(outcome) if facts.rules.jail_fee is not None else None
        if contest_outcome(outcome):
            self._contest_roll(db, facts, outcome_id, outcome, player, source)
        elif change is not None and (player in facts.jailed) != change:
            turn: dict[str, Any] = {}
            if change and player == facts.current and len(facts.active) > 1:
                # "Your turn then ends": the turn passes with the move (one undo for both).
                after = next_seat(facts, player)
                turn = {"current_before": player, "current_after": after}
                db.execute("UPDATE games SET current_player = ? WHERE id = ?",
                           (after, facts.gid))
            move = self._jailed(db, facts, player, change, JAIL_WHY[outcome.kind], source,
                                None, {"outcome": outcome_id, **turn})
            for payer, payee, amount in movements:
                self._insert_entry(db, facts.gid, move, payer, payee, check_amount(amount),
                                   EntryKind.BLOCK, note, source, outcome_id=outcome_id)
        elif outcome.kind is Kind.JAIL_STAY and player == facts.current and \
                len(facts.active) > 1:  # no doubles from Jail: stay, and the turn is over
            self._turn(db, facts, next_seat(facts, player), source, None, "jail")
        elif len(movements) == 1:
            payer, payee, amount = movements[0]
            self._pay(db, facts, MoveKind.BLOCK, EntryKind.BLOCK, payer, payee,
                      check_amount(amount), note=note, source=source, request_id=None,
                      data={"outcome": outcome_id, **texts(note=described)},
                      outcome_id=outcome_id, subject=player)
        elif movements:  # a won battle: leader and teammate, one move
            move = self._insert_move(db, facts.gid, MoveKind.BLOCK, player=player,
                                     data={"outcome": outcome_id, **texts(note=described)},
                                     note=note, source=source)
            for payer, payee, amount in movements:
                self._insert_entry(db, facts.gid, move, payer, payee, check_amount(amount),
                                   EntryKind.BLOCK, note, source, outcome_id=outcome_id)
        return self._outcome_view(outcome_id, facts)

    def outcomes(self, game_id: int | None = None, *, unassigned_only: bool = False,
                 limit: int | None = None) -> list[OutcomeView]:
        """Outcomes, newest first."""
        return self._outcomes(self._facts(game_id), unassigned_only, limit)

    def _outcomes(self, facts: Facts, unassigned_only: bool = False,
                  limit: int | None = None) -> list[OutcomeView]:
        sql = "SELECT id FROM outcomes WHERE game_id = ?"
        if unassigned_only:
            sql += " AND player_id IS NULL"
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [self._outcome_view(row["id"], facts)
                for row in self._db.execute(sql, (facts.gid,)).fetchall()]

    def _outcome_view(self, outcome_id: int, facts: Facts) -> OutcomeView:
        row = self._db.execute(
            "SELECT o.*, (SELECT MAX(e.id) FROM entries e WHERE e.outcome_id = o.id AND"
            " e.kind = 'block') AS entry_id FROM outcomes o WHERE o.id = ?",
            (outcome_id,)).fetchone()
        outcome = _outcome(row)
        mode: Mode | None = facts.rules.find_mode(outcome.mode)
        words = ("", "", outcome.label) if mode is None else (
            mode.headline(outcome), mode.instruction(outcome), mode.describe(outcome))
        return OutcomeView(row["id"], row["game_id"], row["at"], outcome, row["source"],
                           row["player_id"],
                           row["entry_id"] if row["player_id"] is not None else None,
                           json.loads(row["params"]), *words)

    # -- views -----------------------------------------------------------------------------

    def state(self, game_id: int | None = None) -> TableState:
        """Everything a screen or the tablet shows (one consistent snapshot)."""
        with self.snapshot():
            return self._state(game_id)

    def _state(self, game_id: int | None) -> TableState:
        facts = self._facts(game_id)
        rules = facts.rules
        money = self._balances(facts.gid)
        last = self._outcomes(facts, limit=1)
        ended = facts.ending is not None
        table = standings(rules, facts.seats(money))
        won: tuple[int, ...] = ()
        if ended:  # the record of the end: who won and the standings as they were counted
            record = json.loads(facts.ending["data"])  # type: ignore[index]
            won = tuple(record["winners"])
            table = tuple(Standing(**row) for row in record["standings"])
        points = rules.scoring is not None
        phones = self.linked_players(facts.gid)
        found = facts.contests
        players = tuple(
            PlayerView(p.id, p.name, p.colour, p.seat, money[p.id], p.id == facts.current,
                       p.card_uid, out=p.id in facts.out,
                       points=facts.points.get(p.id, (0, 0))[0] if points else None,
                       cards=facts.points.get(p.id, (0, 0))[1] if points else None,
                       worms=facts.worms.get(p.id, 0) if rules.worms is not None else None,
                       linked=p.id in phones, in_jail=p.id in facts.jailed and p.id not in
                       facts.out, jail_tries=turns.jail_tries(self._db, facts, p.id),
                       characters=p.characters,
                       won=tuple(c.number for c in found.won.get(p.id, ())) if found else ())
            for p in facts.players)
        undo, redo, version = self._previews(facts)
        return TableState(
            game=GameView(facts.gid, rules.id, rules.name, rules.default_mode.moves_coins,
                          rules.coins, bool(facts.options.get("simultaneous", False)),
                          None if rules.worms is None else rules.worms.value),
            players=players,
            current_player=facts.current,
            last_outcome=last[0] if last else None,
            unassigned=tuple(self._outcomes(facts, unassigned_only=True)),
            recent=self._recent(facts.gid),
            ended=ended,
            winners=won,
            standings=table,
            version=version,
            undo=undo,
            redo=redo,
            board=tuple(self._board(facts.gid).items()) if rules.board is not None else (),
            doubles=turns.doubles(self._db, facts),
            bowser_waits=not ended and turns.bowser_waits(self._db, facts),
            bowser_won=ended and facts.ending["kind"] == MoveKind.BOWSER_WINS.value,  # type: ignore[index]
            contest=found.current if found is not None else None,
            next_card=self._next_card(facts) if found is not None and not ended else None,
        )

    def _next_card(self, facts: Facts) -> NextCard | None:
        found = facts.contests
        assert found is not None
        number = found.next_number
        values = None if number is None else contests.known_card(self._db, facts.rules.id,
                                                                 number)
        held = tuple(sorted(c.number for cards in found.won.values() for c in cards))
        return NextCard(found.deck.kind.value, found.deck.card, number, values,
                        found.drawn + 1 == len(found.cards), found.rematch_due, held,
                        turns.contest_due(self._db, facts))

    def _recent(self, gid: int, limit: int = RECENT) -> tuple[JournalLine, ...]:
        """The latest journal lines, newest first, with the block outcome's kind (screens)."""
        rows = self._db.execute(
            "SELECT e.*, o.kind AS outcome_kind,"
            " (SELECT u.id FROM entries u WHERE u.undoes = e.id) AS undone_by"
            " FROM entries e LEFT JOIN outcomes o ON o.id = e.outcome_id"
            " WHERE e.game_id = ? ORDER BY e.id DESC LIMIT ?", (gid, limit)).fetchall()
        return tuple(JournalLine(_entry(row), row["undone_by"], row["outcome_kind"])
                     for row in rows)

    def journal_json(self, game_id: int | None = None) -> list[dict[str, Any]]:
        with self.snapshot():
            entries = self.journal(game_id)
        undone_by = {e.undoes: e.id for e in entries if e.undoes is not None}
        return [e.to_json(undone_by.get(e.id)) for e in entries]

    def moves(self, game_id: int | None = None) -> list[MoveView]:
        """The whole journal as moves (what the table did), oldest first, in two queries (for
        export and tools; the tablet reads it by pages: :meth:`move_page`)."""
        with self.snapshot():
            facts = self._facts(game_id)
            entries: dict[int, list[Entry]] = {}
            for row in self._db.execute("SELECT * FROM entries WHERE game_id = ? ORDER BY id",
                                        (facts.gid,)):
                entries.setdefault(row["move_id"], []).append(_entry(row))
            texts: dict[int, str] = {}  # an undo is told in the words of what it undid
            views = []
            for row in self._db.execute(MOVES_SQL + " WHERE m.game_id = ? ORDER BY m.id",
                                        (facts.gid,)).fetchall():
                view = _view(row, entries.get(row["id"], []), facts, texts)
                texts[view.id] = view.text
                views.append(view)
            return views

    def move_page(self, game_id: int | None = None, *, before: object = None,
                  after: object = None, limit: object = PAGE) -> MovePage:
        """A page of the journal as moves: up to ``limit`` moves below move ``before``
        (default: the newest ones), newest first; or after move ``after`` (0: from the
        start), oldest first, to catch up. An undo is told in the words of its target
        even when the target is on another page. A few indexed queries, however long the
        game."""
        if before is not None and after is not None:
            raise Refused(say("give before or after, not both"))
        if before is not None and not is_id(before):
            raise Refused(say("before must be a move id (a whole number from 1), got {value}",
                              value=shown(before)))
        if after is not None and not (is_id(after) or (type(after) is int and after == 0)):
            raise Refused(say("after must be a move id (a whole number from 0), got {value}",
                              value=shown(after)))
        size = _page_limit(limit)
        with self.snapshot():
            facts = self._facts(game_id)
            if after is None:
                sql, bound = " AND m.id < ? ORDER BY m.id DESC LIMIT ?", before or 2**63 - 1
            else:
                sql, bound = " AND m.id > ? ORDER BY m.id LIMIT ?", after
            rows = self._db.execute(MOVES_SQL + " WHERE m.game_id = ?" + sql,
                                    (facts.gid, bound, size + 1)).fetchall()
            more = len(rows) > size
            rows = rows[:size]
            latest = self._db.execute("SELECT MAX(id) FROM moves WHERE game_id = ?",
                                      (facts.gid,)).fetchone()[0]
            views = {view.id: view for view in self._views(rows, facts)}
        last = rows[-1]["id"] if more else None
        return MovePage(facts.gid, tuple(views[row["id"]] for row in rows),
                        last if after is None else None, last if after is not None else None,
                        latest)

    def _views(self, rows: Sequence[sqlite3.Row], facts: Facts) -> list[MoveView]:
        """These moves in words, oldest first, with their entries; the moves their undos
        undid are read by id (in words too) when they are not among them."""
        rows = sorted(rows, key=lambda row: row["id"])
        ids = {row["id"] for row in rows}
        targets = sorted({row["undoes"] for row in rows if row["undoes"] is not None} - ids)
        extra = self._db.execute(
            MOVES_SQL + " WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id",
            (json.dumps(targets),)).fetchall() if targets else []
        entries: dict[int, list[Entry]] = {}
        for row in self._db.execute(
                "SELECT * FROM entries WHERE move_id IN (SELECT value FROM json_each(?))"
                " ORDER BY id", (json.dumps(sorted(ids | set(targets))),)):
            entries.setdefault(row["move_id"], []).append(_entry(row))
        texts = {row["id"]: _view(row, entries.get(row["id"], []), facts, {}).text
                 for row in extra}
        views = []
        for row in rows:
            view = _view(row, entries.get(row["id"], []), facts, texts)
            texts[view.id] = view.text
            views.append(view)
        return views

    def _move_view(self, move_id: int, facts: Facts | None = None) -> MoveView:
        row = self._db.execute(MOVES_SQL + " WHERE m.id = ?", (move_id,)).fetchone()
        facts = facts or self._facts(row["game_id"])
        texts = {}
        if row["kind"] == MoveKind.UNDO.value and row["undoes"] is not None:
            texts[row["undoes"]] = self._move_view(row["undoes"], facts).text
        return _view(row, self._move_entries(move_id), facts, texts)

    # -- players' own phones ---------------------------------------------------------------

    def link_player(self, player: object) -> str:
        """A new phone link token for ``player`` (of the game the table plays): only its
        SHA-256 is kept, and it replaces the player's earlier link (one live link each)."""
        token = secrets.token_urlsafe(18)
        with self._write() as db:
            pid = self._phone_player(player)
            db.execute("INSERT INTO player_links (player_id, token_hash, created_at) VALUES"
                       " (?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET token_hash ="
                       " excluded.token_hash, created_at = excluded.created_at",
                       (pid, _token_hash(token), self.clock()))
        return token

    def unlink_player(self, player: object) -> bool:
        """Turn off ``player``'s phone link; whether there was one."""
        with self._write() as db:
            pid = self._phone_player(player)
            return db.execute("DELETE FROM player_links WHERE player_id = ?",
                              (pid,)).rowcount > 0

    def player_for_token(self, token: object) -> int | None:
        """The player whose live phone link ``token`` is: a player of the game the table
        plays now (None: unknown, turned off, or of another game)."""
        if not isinstance(token, str) or not 1 <= len(token) <= 100:
            return None
        gid = self.latest_game()
        if gid is None:
            return None
        row = self._db.execute(
            "SELECT l.player_id FROM player_links l JOIN players p ON p.id = l.player_id"
            " WHERE l.token_hash = ? AND p.game_id = ?", (_token_hash(token), gid)).fetchone()
        return None if row is None else int(row[0])

    def linked_players(self, game_id: int | None = None) -> set[int]:
        """The players of a game (default: the one the table plays) with a phone link."""
        gid = self.latest_game() if game_id is None else game_id
        if gid is None:
            return set()
        return {r[0] for r in self._db.execute(
            "SELECT l.player_id FROM player_links l JOIN players p ON p.id = l.player_id"
            " WHERE p.game_id = ?", (gid,))}

    def _phone_player(self, player: object) -> int:
        """A player of the game the table plays (inside a write), else Refused."""
        gid = self._game(None)
        if not is_id(player) or player not in self._player_ids(gid):
            raise Refused(say("unknown player {value}", value=shown(player)))
        return player  # type: ignore[return-value]
