"""The bank: games, players and the coin journal in one SQLite file.

Every write validates with the ledger rules inside one ``BEGIN IMMEDIATE`` transaction and
returns only after COMMIT (``synchronous=FULL``): an acknowledged write survives a power cut.
A ``Bank`` object is used from one thread; other processes may share the file safely.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.bank.store import open_database, open_readonly
from companion.core.ledger import (
    BANK,
    CARD_ACTION_NAMES,
    Entry,
    EntryKind,
    Party,
    check_amount,
    check_card_uid,
    check_colours,
    check_names,
    check_note,
    check_player,
    check_source,
    check_transfer,
    is_id,
    outcome_movement,
)
from companion.core.outcomes import Kind, Outcome
from companion.core.state import GameView, JournalLine, OutcomeView, PlayerView, TableState
from companion.exc import Refused
from companion.presets import Preset, get_preset

DB_NAME = "bank.sqlite3"
COLOURS = ("#e52521", "#43b047", "#f49ac1", "#049cd8", "#fbd000", "#8e44ad")
"""Default seat colours: red, green, pink, blue, yellow, purple."""


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    game_id: int
    seat: int
    name: str
    colour: str
    card_uid: str | None


def _party(value: int | None) -> Party:
    return BANK if value is None else value


def _column(party: Party) -> int | None:
    return None if party == BANK else int(party)


def _entry(row: sqlite3.Row) -> Entry:
    return Entry(id=row["id"], game_id=row["game_id"], at=row["at"], payer=_party(row["payer"]),
                 payee=_party(row["payee"]), amount=row["amount"], kind=EntryKind(row["kind"]),
                 note=row["note"], source=row["source"], outcome_id=row["outcome_id"],
                 undoes=row["undoes"])


RECENT = 8
"""Journal lines in ``state().recent``: what a screen's log shows."""


class Bank:
    """Games, players and the journal; all coin rules come from :mod:`companion.core.ledger`."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time,
                 readonly: bool = False) -> None:
        self.path = path
        self.clock = clock
        self._db = open_readonly(path) if readonly else open_database(path)

    @classmethod
    def in_dir(cls, data_dir: Path, **kwargs: Any) -> Bank:
        return cls(data_dir / DB_NAME, **kwargs)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One immediate transaction: validate and write, COMMIT before returning."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # SQLite may already have rolled back (disk full, I/O)
                db.execute("ROLLBACK")
            raise

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
        """Start a game: players in turn order, opening balances paid by the bank. Old games
        stay as they were. The first player is current."""
        preset = _preset_named(edition)
        clean = check_names(names, preset.min_players, preset.max_players)
        palette = check_colours(colours) if colours is not None else list(COLOURS)
        with self._write() as db:
            return self._new_game(db, preset, clean, palette)

    def ensure_game(self, edition: object, names: Sequence[object]) -> int | None:
        """Start a game only if the bank has none (atomic: two starters make one game)."""
        preset = _preset_named(edition)
        clean = check_names(names, preset.min_players, preset.max_players)
        with self._write() as db:
            if self.latest_game() is not None:
                return None
            return self._new_game(db, preset, clean, list(COLOURS))

    def _new_game(self, db: sqlite3.Connection, preset: Preset, clean: list[str],
                  palette: list[str]) -> int:
        now = self.clock()
        game_id = db.execute("INSERT INTO games (edition, created_at) VALUES (?, ?)",
                             (preset.id, now)).lastrowid
        assert game_id is not None
        ids = []
        for seat, name in enumerate(clean):
            colour = palette[seat % len(palette)]
            ids.append(db.execute(
                "INSERT INTO players (game_id, seat, name, colour) VALUES (?, ?, ?, ?)",
                (game_id, seat, name, colour)).lastrowid)
        if preset.start_balance > 0:
            for pid in ids:
                db.execute(
                    "INSERT INTO entries (game_id, at, payer, payee, amount, kind, note,"
                    " source) VALUES (?, ?, NULL, ?, ?, 'opening', 'opening balance',"
                    " 'new game')", (game_id, now, pid, preset.start_balance))
        db.execute("UPDATE games SET current_player = ? WHERE id = ?", (ids[0], game_id))
        # A sticker stays with its player's name from one game to the next.
        previous = db.execute("SELECT MAX(id) FROM games WHERE id < ?", (game_id,)).fetchone()[0]
        if previous is not None:
            db.execute(
                "UPDATE players SET card_uid = (SELECT p.card_uid FROM players p WHERE"
                " p.game_id = ? AND lower(p.name) = lower(players.name)) WHERE game_id = ?",
                (previous, game_id))
        return game_id

    def latest_game(self) -> int | None:
        row = self._db.execute("SELECT MAX(id) FROM games").fetchone()
        return row[0]

    def _game(self, game_id: int | None) -> int:
        gid = self.latest_game() if game_id is None else game_id
        if gid is None:
            raise Refused("no game yet: start one first")
        if not is_id(gid) or self._db.execute(
                "SELECT 1 FROM games WHERE id = ?", (gid,)).fetchone() is None:
            raise Refused(f"unknown game {gid!r}")
        return gid

    def games(self) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT g.id, g.edition, g.created_at, COUNT(p.id) AS players FROM games g "
            "LEFT JOIN players p ON p.game_id = g.id GROUP BY g.id ORDER BY g.id").fetchall()
        return [dict(row) for row in rows]

    def preset(self, game_id: int | None = None) -> Preset:
        gid = self._game(game_id)
        edition = self._db.execute("SELECT edition FROM games WHERE id = ?", (gid,)).fetchone()[0]
        return get_preset(edition)

    def players(self, game_id: int | None = None) -> list[Player]:
        gid = self._game(game_id)
        return [Player(**dict(row)) for row in self._db.execute(
            "SELECT id, game_id, seat, name, colour, card_uid FROM players WHERE game_id = ? "
            "ORDER BY seat", (gid,))]

    def _player_ids(self, gid: int) -> list[int]:
        return [r[0] for r in self._db.execute(
            "SELECT id FROM players WHERE game_id = ? ORDER BY seat", (gid,))]

    def current_player(self, game_id: int | None = None) -> int | None:
        gid = self._game(game_id)
        return self._db.execute("SELECT current_player FROM games WHERE id = ?",
                                (gid,)).fetchone()[0]

    def set_current(self, player: object, game_id: int | None = None) -> int | None:
        """Make ``player`` (an id, or None for nobody) current."""
        with self._write() as db:
            gid = self._game(game_id)
            current = None if player is None else check_player(player, self._player_ids(gid))
            db.execute("UPDATE games SET current_player = ? WHERE id = ?", (current, gid))
        return current

    def set_card(self, player: object, uid: object, game_id: int | None = None) -> str | None:
        """Link an NFC/RFID card UID to a player (None unlinks); one card per game."""
        clean = check_card_uid(uid)
        with self._write() as db:
            gid = self._game(game_id)
            pid = check_player(player, self._player_ids(gid))
            if clean is not None:
                other = db.execute("SELECT name FROM players WHERE game_id = ? AND card_uid = ?"
                                   " AND id != ?", (gid, clean, pid)).fetchone()
                if other is not None:
                    raise Refused(f"card {clean} already belongs to {other[0]}")
            db.execute("UPDATE players SET card_uid = ? WHERE id = ?", (clean, pid))
            if clean is not None:  # one meaning per card: a player now, not an action
                db.execute("DELETE FROM card_actions WHERE uid = ?", (clean,))
        return clean

    def set_card_action(self, uid: object, action: object) -> str:
        """Make a card do an action (one of CARD_ACTIONS) whoever taps it; the card stops
        meaning a player in the current game."""
        clean = check_card_uid(uid)
        if clean is None:
            raise Refused("a card UID is required")
        if action not in CARD_ACTION_NAMES:
            raise Refused(f"action must be one of {', '.join(CARD_ACTION_NAMES)}, got "
                              f"{str(action)[:40]!r}")
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
            action = self.card_actions().get(uid)
            if action is not None:
                return "action", action
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

    def next_player(self, game_id: int | None = None) -> int:
        """Pass the turn to the next seat (the first seat if nobody is current)."""
        with self._write() as db:
            gid = self._game(game_id)
            ids = self._player_ids(gid)
            current = db.execute("SELECT current_player FROM games WHERE id = ?",
                                 (gid,)).fetchone()[0]
            nxt = ids[(ids.index(current) + 1) % len(ids)] if current in ids else ids[0]
            db.execute("UPDATE games SET current_player = ? WHERE id = ?", (nxt, gid))
        return nxt

    # -- the journal -----------------------------------------------------------------------

    def journal(self, game_id: int | None = None) -> list[Entry]:
        gid = self._game(game_id)
        return [_entry(row) for row in self._db.execute(
            "SELECT * FROM entries WHERE game_id = ? ORDER BY id", (gid,))]

    def balances(self, game_id: int | None = None) -> dict[int, int]:
        """Each player's coins, summed from the journal by SQLite."""
        gid = self._game(game_id)
        result = dict.fromkeys(self._player_ids(gid), 0)
        for pid, total in self._db.execute(
                "SELECT party, SUM(delta) FROM ("
                " SELECT payee AS party, amount AS delta FROM entries WHERE game_id = ?1"
                " UNION ALL SELECT payer, -amount FROM entries WHERE game_id = ?1)"
                " WHERE party IS NOT NULL GROUP BY party", (gid,)):
            result[pid] = total
        return result

    def _insert_entry(self, db: sqlite3.Connection, gid: int, payer: Party, payee: Party,
                      amount: int, kind: EntryKind, note: str = "", source: str = "",
                      outcome_id: int | None = None, undoes: int | None = None,
                      request_id: str | None = None) -> Entry:
        now = self.clock()
        entry_id = db.execute(
            "INSERT INTO entries (game_id, at, payer, payee, amount, kind, note, source,"
            " outcome_id, undoes, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (gid, now, _column(payer), _column(payee), amount, kind.value, note, source,
             outcome_id, undoes, request_id)).lastrowid
        assert entry_id is not None
        return Entry(entry_id, gid, now, payer, payee, amount, kind, note, source, outcome_id,
                     undoes)

    def _replay(self, request_id: object, kind: EntryKind, game_id: int | None,
                **same: object) -> Entry | None:
        """The entry an earlier try of this very request wrote, if any.

        A request id reused for a different operation is refused."""
        if request_id is None:
            return None
        if not isinstance(request_id, str) or not 1 <= len(request_id) <= 100 \
                or not request_id.isprintable():
            raise Refused("request id must be 1-100 printable characters")
        row = self._db.execute("SELECT * FROM entries WHERE request_id = ?",
                               (request_id,)).fetchone()
        if row is None:
            return None
        entry = _entry(row)
        if entry.kind is not kind or (game_id is not None and entry.game_id != game_id) or any(
                getattr(entry, key) != value for key, value in same.items()):
            raise Refused(f"request id {request_id!r} was already used for another "
                              "operation")
        return entry

    def transfer(self, payer: object, payee: object, amount: object, *, note: object = "",
                 source: str = "", request_id: str | None = None,
                 game_id: int | None = None) -> Entry:
        """Move coins between a player and the bank or another player.

        ``request_id`` makes a retried request harmless: the same id returns the first entry.
        """
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, EntryKind.TRANSFER, game_id, payer=payer,
                                  payee=payee, amount=amount, note=note)
            if replay is not None:
                return replay
            gid = self._game(game_id)
            preset = self.preset(gid)
            if not preset.bank:
                raise Refused(f"{preset.name} keeps no coins")
            a, b, n = check_transfer(payer, payee, amount, self._player_ids(gid))
            return self._insert_entry(db, gid, a, b, n, EntryKind.TRANSFER, check_note(note),
                                      source, request_id=request_id)

    def pass_go(self, player: object, *, source: str = "", request_id: str | None = None,
                game_id: int | None = None) -> Entry:
        """The bank pays the edition's GO salary."""
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, EntryKind.PASS_GO, game_id, payee=player)
            if replay is not None:
                return replay
            gid = self._game(game_id)
            preset = self.preset(gid)
            if preset.pass_go <= 0:
                raise Refused(f"{preset.name} pays nothing for passing GO")
            a, b, n = check_transfer(BANK, player, preset.pass_go, self._player_ids(gid))
            return self._insert_entry(db, gid, a, b, n, EntryKind.PASS_GO, "passed GO", source,
                                      request_id=request_id)

    def undo(self, *, source: str = "", request_id: str | None = None,
             game_id: int | None = None) -> Entry:
        """Compensate the latest entry not undone yet (never opening balances or undos).

        Undoing a block outcome's coins also makes that outcome unassigned again, so it can be
        given to the right player.
        """
        source = check_source(source)
        with self._write() as db:
            replay = self._replay(request_id, EntryKind.UNDO, game_id)
            if replay is not None:
                return replay
            gid = self._game(game_id)
            row = db.execute(
                "SELECT * FROM entries e WHERE game_id = ? AND kind IN ('block', 'pass_go',"
                " 'transfer') AND NOT EXISTS (SELECT 1 FROM entries u WHERE u.undoes = e.id)"
                " ORDER BY id DESC LIMIT 1", (gid,)).fetchone()
            if row is None:
                raise Refused("nothing to undo")
            target = _entry(row)
            if target.outcome_id is not None:
                db.execute("UPDATE outcomes SET player_id = NULL WHERE id = ?",
                           (target.outcome_id,))
            return self._insert_entry(db, gid, target.payee, target.payer, target.amount,
                                      EntryKind.UNDO, f"undo #{target.id}", source,
                                      outcome_id=target.outcome_id, undoes=target.id,
                                      request_id=request_id)

    # -- the Question Block ----------------------------------------------------------------

    def record_outcome(self, outcome: Outcome, *, source: str = "button", at: float | None = None,
                       game_id: int | None = None) -> OutcomeView:
        """Keep an outcome and apply it to the current player (unassigned if nobody is)."""
        source = check_source(source)
        with self._write() as db:
            gid = self._game(game_id)
            current = db.execute("SELECT current_player FROM games WHERE id = ?",
                                 (gid,)).fetchone()[0]
            when = self.clock() if at is None else at
            outcome_id = db.execute(
                "INSERT INTO outcomes (game_id, at, kind, coins, rolls, source) VALUES"
                " (?, ?, ?, ?, ?, ?)", (gid, when, outcome.kind.value, outcome.coins,
                                        json.dumps(list(outcome.rolls)), source)).lastrowid
            assert outcome_id is not None
            if current is None:
                return OutcomeView(outcome_id, gid, when, outcome, source, None, None)
            return self._apply(db, gid, outcome_id, current, source)

    def assign_outcome(self, outcome_id: object, player: object, *, source: str = "",
                       game_id: int | None = None) -> OutcomeView:
        """Give an unassigned outcome to a player: once, unless an undo takes it back."""
        source = check_source(source)
        with self._write() as db:
            gid = self._game(game_id)
            row = None
            if is_id(outcome_id):
                row = db.execute("SELECT * FROM outcomes WHERE id = ? AND game_id = ?",
                                 (outcome_id, gid)).fetchone()
            if row is None:
                raise Refused(f"unknown outcome {outcome_id!r}")
            if row["player_id"] is not None:
                raise Refused(f"outcome {outcome_id} is already assigned")
            return self._apply(db, gid, row["id"], check_player(player, self._player_ids(gid)),
                               source)

    def _apply(self, db: sqlite3.Connection, gid: int, outcome_id: int, player: int,
               source: str) -> OutcomeView:
        row = db.execute("SELECT * FROM outcomes WHERE id = ?", (outcome_id,)).fetchone()
        outcome = _outcome(row)
        db.execute("UPDATE outcomes SET player_id = ? WHERE id = ?", (player, outcome_id))
        preset = self.preset(gid)
        movement = outcome_movement(outcome, player, preset.question_block)
        entry_id = None
        if movement is not None:
            payer, payee, amount = movement
            entry_id = self._insert_entry(db, gid, payer, payee, check_amount(amount),
                                          EntryKind.BLOCK, outcome.describe(), source,
                                          outcome_id=outcome_id).id
        return OutcomeView(outcome_id, gid, row["at"], outcome, row["source"], player, entry_id)

    def outcomes(self, game_id: int | None = None, *, unassigned_only: bool = False,
                 limit: int | None = None) -> list[OutcomeView]:
        """Outcomes, newest first."""
        gid = self._game(game_id)
        sql = ("SELECT o.*, (SELECT MAX(e.id) FROM entries e WHERE e.outcome_id = o.id AND"
               " e.kind = 'block') AS entry_id FROM outcomes o WHERE o.game_id = ?")
        if unassigned_only:
            sql += " AND o.player_id IS NULL"
        sql += " ORDER BY o.id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [OutcomeView(row["id"], gid, row["at"], _outcome(row), row["source"],
                              row["player_id"],
                              row["entry_id"] if row["player_id"] is not None else None)
                for row in self._db.execute(sql, (gid,))]

    # -- views -----------------------------------------------------------------------------

    def state(self, game_id: int | None = None) -> TableState:
        """Everything a screen or the tablet shows (one consistent snapshot)."""
        with self.snapshot():
            return self._state(game_id)

    def _state(self, game_id: int | None) -> TableState:
        gid = self._game(game_id)
        preset = self.preset(gid)
        money = self.balances(gid)
        current = self.current_player(gid)
        last = self.outcomes(gid, limit=1)
        return TableState(
            game=GameView(gid, preset.id, preset.name, preset.question_block.enabled,
                          preset.bank),
            players=tuple(PlayerView(p.id, p.name, p.colour, p.seat, money[p.id],
                                     p.id == current, p.card_uid) for p in self.players(gid)),
            current_player=current,
            last_outcome=last[0] if last else None,
            unassigned=tuple(self.outcomes(gid, unassigned_only=True)),
            recent=self._recent(gid),
        )

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


def _preset_named(edition: object) -> Preset:
    if not isinstance(edition, str):
        raise Refused("edition must be a preset name")
    try:
        return get_preset(edition)
    except KeyError as exc:
        raise Refused(str(exc.args[0])) from None


def _outcome(row: sqlite3.Row) -> Outcome:
    return Outcome(Kind(row["kind"]), coins=row["coins"], rolls=tuple(json.loads(row["rolls"])))
