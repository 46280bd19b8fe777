"""The bank: games, players and their cards, and every move the table makes, in one SQLite file.

:class:`Bank` is the journal (:mod:`companion.bank.journal`: one transaction per write,
balances kept, undo and redo) with the games and players on top, and each kind of move
(:mod:`companion.bank.moves`) bound as one of its methods: ``bank.transfer(...)`` is
:func:`companion.bank.moves.coins.transfer`. Everything a game is derives from its journal.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from companion.bank import mistakes, pages, phones, ring, start, table
from companion.bank import seat as seats
from companion.bank.facts import Player
from companion.bank.journal import DB_NAME, Journal, keyed
from companion.bank.moves import KINDS, WRITES, contest
from companion.bank.moves.block import CURRENT, Current
from companion.bank.moves.turn import ANYONE
from companion.bank.pages import MAX_PAGE, PAGE, RECENT, MovePage
from companion.core.ledger import (
    CARD_ACTION_NAMES,
    COLOURS,
    check_card_uid,
    is_id,
)
from companion.exc import Refused, shown
from companion.i18n.said import joined, say

__all__ = ["ANYONE", "COLOURS", "CURRENT", "DB_NAME", "MAX_PAGE", "PAGE", "RECENT", "Bank",
           "Current", "MovePage", "Player"]


class Bank(Journal):
    """Games, players and the journal; every rule comes from the edition's ruleset and
    :mod:`companion.core.ledger`."""

    kinds = KINDS

    # -- games and players -----------------------------------------------------------------

    ensure_game = start.ensure_game
    last_players = start.last_players

    play = staticmethod(start.play)

    def games(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT g.id, g.edition, g.created_at, COUNT(p.id) AS players FROM games g "
            "LEFT JOIN players p ON p.game_id = g.id GROUP BY g.id ORDER BY g.id").fetchall()
        return [dict(row) for row in rows]

    def game_list(self) -> list[dict[str, Any]]:
        """Every game, newest first, for choosing one to resume: its edition's name, when it
        started, its players' names, whether it has ended and whether it is being played. A
        game made at boot to await a setup, with nothing played in it, is left out once
        another is played (it stays in the journal)."""
        with self.snapshot():
            playing = self.latest_game()
            untouched = start.untouched(self)
            names: dict[int, list[str]] = {}
            for row in self.db.execute("SELECT game_id, name FROM players ORDER BY game_id,"
                                       " seat"):
                names.setdefault(row["game_id"], []).append(row["name"])
            ended = {row[0] for row in self.db.execute(
                "SELECT game_id FROM moves m WHERE ends = 1 AND NOT EXISTS"
                " (SELECT 1 FROM moves u WHERE u.undoes = m.id)")}
            games = []
            for row in self.db.execute("SELECT id, edition, created_at FROM games ORDER BY"
                                       " id DESC"):
                if row["id"] in untouched:
                    continue
                edition = self.editions.get(row["edition"])
                games.append({"id": row["id"], "edition": row["edition"],
                              "name": edition.name if edition else row["edition"],
                              "created_at": row["created_at"],
                              "players": names.get(row["id"], []),
                              "ended": row["id"] in ended, "current": row["id"] == playing})
            return games

    def set_card(self, player: object, uid: object, game_id: int | None = None) -> str | None:
        """Link an NFC/RFID card UID to a player (None unlinks); one card per game. Allowed in
        an ended game too: the card follows its player's name into the next one."""
        clean = check_card_uid(uid)
        with self.write() as db:
            gid = self.game(game_id)
            ids = self.player_ids(gid)
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
        with self.write() as db:
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
                for row in self.db.execute("SELECT uid, action FROM card_actions")}

    def card_meaning(self, uid: str, named: dict[str, str] | None = None
                     ) -> tuple[str, int | str | None]:
        """What a tap of ``uid`` means: ("player", id), ("action", name), ("unmatched", the
        config's name for it, not a player of this game) or ("unknown", None).

        Cards linked on the tablet (a player of the current game, or an action) come first,
        then ``named``: the config's ``UID -> player name or action:NAME``."""
        with self.snapshot():
            gid = self.latest_game()
            if gid is not None:
                row = self.db.execute("SELECT id FROM players WHERE game_id = ? AND"
                                      " card_uid = ?", (gid, uid)).fetchone()
                if row is not None:
                    return "player", row["id"]
            found = self.db.execute("SELECT action FROM card_actions WHERE uid = ?",
                                    (uid,)).fetchone()
            if found is not None:
                return "action", found["action"]
            target = (named or {}).get(uid)
            if target is not None:
                if target.startswith("action:"):
                    return "action", target.removeprefix("action:")
                if gid is not None:
                    row = self.db.execute("SELECT id FROM players WHERE game_id = ? AND"
                                          " lower(name) = lower(?)", (gid, target)).fetchone()
                    if row is not None:
                        return "player", row["id"]
                return "unmatched", target  # the config names someone not in this game
        return "unknown", None

    # -- the moves: each kind's module's WRITES, bound after the class (``keyed``: a reused
    # request id must ask the very same) -------------------------------------------------------

    describe_board = ring.describe_board
    contest_roller = contest.roller

    # -- what the table reads --------------------------------------------------------------

    state = table.state
    moves = pages.moves
    move_page = pages.move_page
    journal_json = pages.journal_json

    # -- players' own phones ---------------------------------------------------------------

    link_player = phones.link_player
    join_player = phones.join_player
    unlink_player = phones.unlink_player
    player_for_token = phones.player_for_token
    linked_players = phones.linked_players

    # -- a player's own seat: their history, "that was a mistake" ------------------------------

    seat_page = seats.seat_page
    ask_undo = mistakes.ask
    answer_request = mistakes.answer


def _bind(writes: tuple[Callable[..., Any], ...]) -> None:
    """Each move module's writes as the bank's methods, by name: keyed where they take a
    request id (a retry with that id replays the first answer only if it asks the same)."""
    for write in writes:
        name = write.__name__
        if name in vars(Bank):
            raise TypeError(f"the write {name} is the bank's own already")
        takes_key = "request_id" in inspect.signature(write).parameters
        setattr(Bank, name, keyed(write) if takes_key else write)


_bind(WRITES)
