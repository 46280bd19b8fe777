"""The table's join code: one code per game that lets a phone pick a player with no phone yet.

Nothing is stored: the code is the game's id and an HMAC of it keyed with the table token
(``<game>-<mac>``), so a new game has a new code, a code names the game it was made for (an
earlier game's code is told apart from a wrong one), and only the table token can make one.
It travels after ``#`` in the join link (``/join#code=...``), and as ``Bearer`` from the join
page: it is never in a URL a server sees, a log or a Referer.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from aiohttp import web

PAGE = "join"
"""The join page: ``/join#code=<code>``."""
KEY = "code"
"""The join link's fragment key."""
MAC_CHARS = 16
"""The MAC's length in the code: 12 bytes (96 bits) as URL-safe base64."""
PURPOSE = b"companion join code\0"
"""Keeps a join code's MAC apart from any other use of the table token."""


class JoinCodes:
    """Makes and checks the join codes of one table (keyed with its token)."""

    __slots__ = ("_key",)

    def __init__(self, token: str) -> None:
        self._key = token.encode()

    def _mac(self, game: int) -> str:
        digest = hmac.new(self._key, PURPOSE + str(game).encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:12]).decode()

    def code(self, game: int) -> str:
        """The join code of game ``game``."""
        return f"{game}-{self._mac(game)}"

    def game_of(self, code: object) -> int | None:
        """The game a join code was made for by this table; None: not a join code of ours."""
        if not isinstance(code, str) or len(code) <= MAC_CHARS + 1 or len(code) > 40:
            return None
        head, dash, mac = code[:-MAC_CHARS - 1], code[-MAC_CHARS - 1], code[-MAC_CHARS:]
        if dash != "-" or not (head.isascii() and head.isdecimal()) or len(head) > 18:
            return None
        game = int(head)
        if not hmac.compare_digest(mac.encode(), self._mac(game).encode()):
            return None
        return game


CODES: web.AppKey[JoinCodes] = web.AppKey("join_codes", JoinCodes)
"""The table's :class:`JoinCodes` on the web application."""


def join_game(request: web.Request, code: str | None) -> int | None:
    """The game ``code`` is a join code of (None: it is none, or the app makes none)."""
    codes = request.app.get(CODES)
    return None if codes is None or code is None else codes.game_of(code)
