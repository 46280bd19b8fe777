"""Players' own phones: a link token per player of the game being played (only its hash is
kept)."""

from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING

from companion.core.ledger import is_id
from companion.exc import Conflict, Refused, shown
from companion.i18n.said import say

if TYPE_CHECKING:
    from companion.bank.journal import Journal


EARLIER_GAME = say("This join code is from an earlier game: scan the code the table shows now.")
"""A join code of a game the table no longer plays."""


def _token_hash(token: str) -> str:
    """What the bank keeps of a phone link's token (the token itself is never stored)."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def link_player(bank: Journal, player: object) -> str:
    """A new phone link token for ``player`` (of the game the table plays): only its
    SHA-256 is kept, and it replaces the player's earlier link (one live link each)."""
    token = secrets.token_urlsafe(18)
    with bank.write() as db:
        pid = phone_player(bank, player)
        db.execute("INSERT INTO player_links (player_id, token_hash, created_at) VALUES"
                   " (?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET token_hash ="
                   " excluded.token_hash, created_at = excluded.created_at",
                   (pid, _token_hash(token), bank.clock()))
    return token


def join_player(bank: Journal, player: object, game: int) -> str:
    """A phone joining from the table's join code of ``game``: a new link token for
    ``player``, who must be of that game (the one the table plays) and have no phone link
    yet. One write: of two phones picking the same player at once, one gets the link."""
    token = secrets.token_urlsafe(18)
    with bank.write() as db:
        if bank.game(None) != game:
            raise Conflict(EARLIER_GAME)
        pid = phone_player(bank, player)
        if db.execute("SELECT 1 FROM player_links WHERE player_id = ?", (pid,)).fetchone():
            name = db.execute("SELECT name FROM players WHERE id = ?", (pid,)).fetchone()[0]
            raise Conflict(say("{name} already has a phone: ask the banker for a new link",
                               name=name))
        db.execute("INSERT INTO player_links (player_id, token_hash, created_at) VALUES"
                   " (?, ?, ?)", (pid, _token_hash(token), bank.clock()))
    return token


def unlink_player(bank: Journal, player: object) -> bool:
    """Turn off ``player``'s phone link; whether there was one (none: nothing is written,
    and the state's version stays)."""
    if bank.db.execute("SELECT 1 FROM player_links WHERE player_id = ?",
                       (phone_player(bank, player),)).fetchone() is None:
        return False
    with bank.write() as db:
        pid = phone_player(bank, player)
        return db.execute("DELETE FROM player_links WHERE player_id = ?",
                          (pid,)).rowcount > 0


def player_for_token(bank: Journal, token: object) -> int | None:
    """The player whose live phone link ``token`` is: a player of the game the table
    plays now (None: unknown, turned off, or of another game)."""
    if not isinstance(token, str) or not 1 <= len(token) <= 100:
        return None
    gid = bank.latest_game()
    if gid is None:
        return None
    row = bank.db.execute(
        "SELECT l.player_id FROM player_links l JOIN players p ON p.id = l.player_id"
        " WHERE l.token_hash = ? AND p.game_id = ?", (_token_hash(token), gid)).fetchone()
    return None if row is None else int(row[0])


def linked_players(bank: Journal, game_id: int | None = None) -> set[int]:
    """The players of a game (default: the one the table plays) with a phone link."""
    gid = bank.latest_game() if game_id is None else game_id
    if gid is None:
        return set()
    return {r[0] for r in bank.db.execute(
        "SELECT l.player_id FROM player_links l JOIN players p ON p.id = l.player_id"
        " WHERE p.game_id = ?", (gid,))}


def phone_player(bank: Journal, player: object) -> int:
    """A player of the game the table plays (inside a write), else Refused."""
    gid = bank.game(None)
    if not is_id(player) or player not in bank.player_ids(gid):
        raise Refused(say("unknown player {value}", value=shown(player)))
    return player  # type: ignore[return-value]
