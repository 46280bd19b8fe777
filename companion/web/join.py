"""Join from one code: the table shows one join link (the banker's page, the small screen,
``companion link --join``); a phone that opens it picks a player who has no phone yet and gets
that player's own link, made as ``POST /api/players/{id}/link`` makes it. The join page asks
"Is this you?" first; the banker's page hears the state with the action ``phone joined``, says
whose phone joined and turns it off in one tap. The code is :mod:`companion.web.join_code`'s:
nothing is stored.

- ``GET /join``: the join page (the code after ``#``: ``/join#code=<code>``).
- ``GET /api/join`` with the table token: the join link for the banker's menu, ``{"game",
  "url", "lan_url", "qr", "players_without_phone"}``; with the join code as ``Bearer``: the
  join page's list, ``{"game", "players_without_phone"}``.
- ``POST /api/join`` ``{"player": id}`` with the join code as ``Bearer``: 201 and that player's
  link (the answer of ``POST /api/players/{id}/link``); 409 when the player has a phone
  already; 400 for a player not of this game.
- A missing, wrong or earlier game's code is 401 saying which; after :data:`FAILED_BURST`
  such answers an address waits (429, Retry-After). The code is good for nothing else: any
  other write with it is 403 (:func:`companion.web.players.guard_write`).

Codes and tokens are never logged.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from companion.app import commands as c
from companion.app.contract import Table
from companion.bank.phones import EARLIER_GAME
from companion.core.state import TableState
from companion.i18n.said import Said, as_json, say
from companion.web import players
from companion.web.join_code import CODES, KEY, PAGE, JoinCodes, join_game
from companion.web.privacy import has_token
from companion.web.throttle import Buckets

log = logging.getLogger(__name__)

PATH = "/api/join"
FAILED_RATE, FAILED_BURST = 0.2, 10
"""Refused join codes per address: 10 at once, then one every 5 s (a phone that scanned a
good code is never refused; guessing a 96-bit code is hopeless anyway)."""
FAILURES: web.AppKey[Buckets] = web.AppKey("join_failures", Buckets)

NO_CODE = say("This page needs the table's join code: scan the code the table shows.")
WRONG_CODE = say("This join code is not this table's: scan the code the table shows.")
TOO_MANY = say("too many wrong join codes from this address: try again in a moment")
WRONG_TABLE_TOKEN = say("missing or wrong table token")

Body = Callable[[web.Request], Awaitable[dict[str, Any]]]


def install(app: web.Application, token: str) -> None:
    """The join codes of the table whose token is ``token``, and the count of refused ones."""
    app[CODES] = JoinCodes(token)
    app[FAILURES] = Buckets(FAILED_RATE, FAILED_BURST)


def _error(status: int, message: str | Said) -> web.Response:
    return web.json_response({"error": str(message), "error_said": as_json(message)},
                             status=status)


def without_phone(state: TableState) -> list[dict[str, Any]]:
    """The players of the game who have no phone link yet: id, name, colour (seat order)."""
    return [{"id": p.id, "name": p.name, "colour": p.colour}
            for p in state.players if not p.linked]


async def _joining(request: web.Request, table: Table) -> tuple[int, TableState] | web.Response:
    """The game of the join code the request carries and the table now, when that code is
    the one of the game played now; else the refusal (401, 429), counted against the
    address."""
    address = request.remote or ""
    failures = request.app[FAILURES]
    wait = failures.waiting(address)
    if wait:
        response = _error(429, TOO_MANY)
        response.headers["Retry-After"] = Buckets.retry_after(wait)
        return response
    code = players.bearer(request)
    game = join_game(request, code)
    state = None if game is None else await table.read(c.GetState())
    if state is not None and state.game.id == game:
        return game, state
    failures.take(address)
    why = NO_CODE if code is None else WRONG_CODE if game is None else EARLIER_GAME
    log.info("web: a join code was refused: %s", "none" if code is None else
             "not this table's" if game is None else f"game {game}'s, not the current one")
    return _error(401, why)


async def get_join(request: web.Request, table: Table, token: str) -> web.Response:
    """``GET /api/join``: the join link (the table token) or the list to pick from (the
    join code)."""
    if has_token(request, token):
        state = await table.read(c.GetState())
        code = request.app[CODES].code(state.game.id)
        url, lan = players.page_links(request, code, page=PAGE, key=KEY)
        return web.json_response({"game": state.game.id, "url": url, "lan_url": lan,
                                  "qr": players.qr_svg(lan or url),
                                  "players_without_phone": without_phone(state)})
    if players.bearer(request) is None and "Authorization" not in request.headers:
        return _error(401, WRONG_TABLE_TOKEN)
    checked = await _joining(request, table)
    if isinstance(checked, web.Response):
        return checked
    game, state = checked
    return web.json_response({"game": game, "players_without_phone": without_phone(state)})


async def post_join(request: web.Request, table: Table, body: Body) -> web.Response:
    """``POST /api/join`` ``{"player": id}``: the player's phone link, for a phone that
    carries the join code of the game played now."""
    checked = await _joining(request, table)
    if isinstance(checked, web.Response):
        return checked
    game, _state = checked
    data = await body(request)
    extra = sorted(set(data) - {"player"})
    if extra or "player" not in data:
        return _error(400, say("give player: the id of the player this phone is for"))
    player = data["player"]
    token = await table.act(c.JoinPlayer(player, game), source=players.SOURCE)
    log.info("web: a phone joined from the join code")
    return await players.link_made(request, table, player, token)


async def join_page(_request: web.Request, static: Path) -> web.FileResponse:
    """The join page (the code arrives after ``#``)."""
    return web.FileResponse(static / "join.html", headers={"Cache-Control": "no-cache"})
