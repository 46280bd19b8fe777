"""The banker's menu: sharing the banker's own link, and a game's journal as a download. Both
with the table token only (401 without): the link is the table's key, the journal holds the
cards' UIDs.

- ``GET /api/share``: ``{"url", "lan_url", "qr"}``, the banker's page with the table token
  after ``#`` (as ``companion link`` prints it), at the address the request came to and at
  the Pi's LAN address (null when unknown); ``qr`` an SVG QR code of the LAN one (else url).
- ``GET /api/games/{id}/export?format=csv|json`` (default csv): the very bytes ``companion
  export --game ID --format F`` writes, as an attachment (``question-block-game-ID.csv``).
- ``GET /api/board/file``: the board described for the game played's edition, as ``companion
  board export`` writes it (``question-block-board-gamer.json``); 400 while not described.

And open to read like the rest of the table (no cards in it): ``GET /api/games/{id}/coins``,
every player's coins over that game, move by move (the end-of-game chart's series), computed
from the journal when asked.
"""

from __future__ import annotations

from aiohttp import web

from companion.app import commands as c
from companion.app.contract import Table
from companion.bank.board_file import FILE_NAME as BOARD_FILE
from companion.bank.board_file import file_text
from companion.exc import Refused
from companion.i18n.said import as_json, say
from companion.web import players
from companion.web.privacy import has_token

FORMATS = {"csv": "text/csv", "json": "application/json"}
"""What ``?format=`` may ask for, and the type it is served as (UTF-8)."""
FILE_NAME = "question-block-game-{game}.{fmt}"


def _unauthorised() -> web.Response:
    said = say("missing or wrong table token")
    return web.json_response({"error": str(said), "error_said": as_json(said)}, status=401)


async def get_share(request: web.Request, token: str) -> web.Response:
    """``GET /api/share``: the banker's own link and its QR code."""
    if not has_token(request, token):
        return _unauthorised()
    url, lan = players.page_links(request, token, page="")
    return web.json_response({"url": url, "lan_url": lan, "qr": players.qr_svg(lan or url)})


def _game(request: web.Request) -> int:
    raw = request.match_info.get("game", "")
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18 or int(raw) < 1:
        raise Refused(say("the game must be a game id"))
    return int(raw)


def _format(request: web.Request) -> str:
    unknown = sorted(set(request.query) - {"format"})
    if unknown:
        raise Refused(say("unknown parameter(s): {parameters} (give format)",
                          parameters=", ".join(unknown)[:80]))
    asked = request.query.getall("format", ["csv"])
    if len(asked) > 1 or asked[0] not in FORMATS:
        raise Refused(say("format must be csv or json (given once)"))
    return asked[0]


async def get_coins(request: web.Request, table: Table) -> web.Response:
    """``GET /api/games/{id}/coins``: the game's coins over the evening."""
    game = _game(request)
    if request.query:
        raise Refused(say("unknown parameter(s): {parameters} (this takes none)",
                          parameters=", ".join(sorted(request.query))[:80]))
    series = await table.read(c.GetCoins(game))
    return web.json_response(series.to_json())


async def get_export(request: web.Request, table: Table, token: str) -> web.Response:
    """``GET /api/games/{id}/export``: the game's journal as a file to download."""
    if not has_token(request, token):
        return _unauthorised()
    game, fmt = _game(request), _format(request)
    text = await table.read(c.ExportGame(game, fmt))
    name = FILE_NAME.format(game=game, fmt=fmt)
    return web.Response(body=text.encode("utf-8"), headers={
        "Content-Type": f"{FORMATS[fmt]}; charset=utf-8",
        "Content-Disposition": f'attachment; filename="{name}"',
        "Cache-Control": "no-store"})


async def get_board_file(request: web.Request, table: Table, token: str) -> web.Response:
    """``GET /api/board/file``: the described board as a file to download."""
    if not has_token(request, token):
        return _unauthorised()
    data = await table.read(c.ExportBoard())
    name = BOARD_FILE.format(edition=data["edition"])
    return web.Response(body=file_text(data).encode("utf-8"), headers={
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": f'attachment; filename="{name}"',
        "Cache-Control": "no-store"})
