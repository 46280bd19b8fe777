"""Every player's own phone (issue 14): a link per player, carrying a token scoped to them.

- The banker (the table token) makes a player's link with ``POST /api/players/{id}/link``: the
  page at ``/p`` with the token after ``#``, the same with the Pi's LAN address, and a QR code
  of it. A new link replaces the player's earlier one; ``DELETE`` turns it off. The bank keeps
  only the token's SHA-256 (:meth:`companion.bank.bank.Bank.link_player`).
- A write with a player token: only ``POST /api/transfers`` from that very player (to another
  player or the Bank), ``POST /api/jail {"player": <theirs>}`` (their own jail fee, paid from
  their coins: the same move as the banker's, so the Free Parking pot takes it), and
  ``POST /api/players/me/mistakes`` about their own latest payment, go through; anything
  else is 403 naming why, and changes nothing. A token turned off, replaced or unknown is
  401. Reads (GET) are open as ever.
- The phone is its player's own seat: ``GET /api/players/me/journal`` is their whole history
  a page at a time (:mod:`companion.bank.seat`), and ``POST /api/players/me/mistakes``
  ``{"move": id}`` asks the banker to undo their latest payment (:mod:`companion.bank.mistakes`;
  the table's state lists the open requests, the banker answers ``/api/requests/{id}``).
- The table's join code (:mod:`companion.web.join`) makes a link the same way, for a player
  with none yet; any other write with it is 403.
- A player token is not the table token: card UIDs stay hidden from it
  (:mod:`companion.web.privacy`).
- The WebSocket with ``?token=<player token>`` gets what a page without the table token gets,
  plus ``{"type": "coins"}`` when an entry pays that player and ``{"type": "my_outcome"}``
  when a block outcome is given to them (with the name of its sound under ``/sounds/``);
  turning the link off (or making
  a new one) closes that player's old pages after ``{"type": "revoked"}``; a new game (or
  another one resumed) closes every earlier phone's page after ``{"type": "revoked",
  "error": "this phone link is for an earlier game", "error_said"}``.

Tokens are never logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from aiohttp import web

from companion.app import commands as c
from companion.app.contract import Table
from companion.audio.library import sound_name
from companion.core.ledger import THE_BANK
from companion.core.state import OutcomeView
from companion.exc import CompanionError, Refused, Unavailable, shown
from companion.i18n.said import Said, as_json, say, texts
from companion.web.address import lan_address
from companion.web.body import read_object
from companion.web.join_code import join_game
from companion.web.links import WILDCARDS, is_loopback, page_url, with_fragment
from companion.web.privacy import public


class PhonePages(Protocol):
    """The WebSocket hub as this module uses it: the phones' open pages, by queue."""

    phones: dict[asyncio.Queue[dict[str, Any] | str | None], PlayerFeed]

    def revoke(self, queue: asyncio.Queue[dict[str, Any] | str | None],
               message: dict[str, Any]) -> None: ...

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Queue = asyncio.Queue[dict[str, Any] | str | None]

PAGE = "p"
"""The player's page, next to the banker's: ``/p``."""
SOURCE = "phone"
"""What the journal says a player's own payment came from."""
MISTAKES = "/api/players/me/mistakes"
"""Where a phone says its player's latest payment was a mistake."""
BIND_HOST: web.AppKey[str] = web.AppKey("bind_host", str)
"""The address the server listens on (for the LAN link; :func:`companion.web.server.start_web`
sets it)."""
PLAYER: Any = (web.RequestKey("phone_player", int) if hasattr(web, "RequestKey")  # 3.13+
               else "companion.phone.player")
"""The request key holding the player a phone's write was allowed for."""
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
MAX_TOKEN = 64

WRONG_TOKEN = say("missing or wrong table token")
"""A token that is neither the table's nor a live phone link's (as before phones)."""
JOIN_ONLY = say("a join code only lets a phone pick its player; the rest is the banker's")
"""A write with the table's join code, anywhere but ``POST /api/join``."""
EARLIER_GAME_SAID = say("this phone link is for an earlier game")
REVOKED_EARLIER_GAME = {"type": "revoked", "error": str(EARLIER_GAME_SAID),
                        "error_said": as_json(EARLIER_GAME_SAID)}
"""What a phone's open page hears when the table starts (or resumes) another game: its
link's token is dead, and the page is closed after it."""
JAIL = "/api/jail"
"""A phone's own jail fee (:func:`_own_jail_fee`)."""
OWN_COINS_SAID = say("a player's phone pays from its own coins only")
OWN_COINS = str(OWN_COINS_SAID)
CORRECTION_SAID = say("only the banker makes a correction")
BANKER_ONLY = {
    "/api/undo": say("only the banker can undo"),
    "/api/redo": say("only the banker can redo"),
    "/api/next": say("only the banker passes the turn"),
    "/api/current": say("only the banker passes the turn"),
    "/api/games/": say("only the banker can resume a game"),
    "/api/games": say("only the banker can start a new game"),
    "/api/press": say("only the banker presses the block from a page"),
    "/api/players/": say("only the banker can make or turn off a phone link"),
    "/api/requests": say("only the banker answers a mistake"),
}
"""Why a player token is refused a route (by path prefix); any other: :data:`OWN_COINS`."""


def _error(status: int, message: str | Said) -> web.Response:
    """``error`` in English, ``error_said`` for the page to put into its own language."""
    return web.json_response({"error": str(message), "error_said": as_json(message)},
                             status=status)


def bearer(request: web.Request, *, query: bool = False) -> str | None:
    """The token a request carries: ``Authorization: Bearer``, or (``query``: the WebSocket)
    ``?token=``; None unless it looks like a token."""
    header = request.headers.get("Authorization", "")
    token = header[7:] if header.startswith("Bearer ") else None
    if token is None and query:
        token = request.query.get("token")
    if not token or len(token) > MAX_TOKEN or not set(token) <= TOKEN_CHARS:
        return None
    return token


async def player_of(request: web.Request, table: Table, *, query: bool = False) -> int | None:
    """The player whose live phone link the request carries (None: none)."""
    token = bearer(request, query=query)
    return None if token is None else await table.read(c.PlayerForToken(token))


def refusal(path: str) -> Said:
    """Why a player's phone may not write to ``path``."""
    return next((why for prefix, why in BANKER_ONLY.items() if path.startswith(prefix)),
                say("a player's phone pays from its own coins only; the rest is the banker's"))


async def _payer(request: web.Request) -> tuple[object, bool]:
    """The ``from`` of a transfer's body, and whether it asks for a correction (read here
    once; the route reads the same bytes)."""
    data = await read_object(request)
    return data.get("from"), "correction" in data


async def _own_jail_fee(request: web.Request, player: int) -> bool:
    """Whether the body is exactly ``{"player": player}``: that player pays their own jail fee
    (never sends anyone to Jail or out of it, never a correction)."""
    data = await read_object(request)
    return set(data) == {"player"} and type(data["player"]) is int and data["player"] == player


async def guard_write(request: web.Request, handler: Handler, table: Table
                      ) -> web.StreamResponse:
    """A write without the table token: a live phone link paying from its own coins goes
    on to ``handler``; any other write with one is 403; no such link is 401 (as is a token
    that can't be checked now: the phone's page asks ``/api/players/me`` before it says the
    link is off)."""
    try:
        player = await player_of(request, table)
    except Unavailable:  # no bank to ask (none at all, or down): nobody's link works now
        player = None
    if player is None:
        if join_game(request, bearer(request)) is not None:  # the table's join code
            log.info("web: a join code was refused %s %s", request.method, request.path[:60])
            return _error(403, JOIN_ONLY)
        return _error(401, WRONG_TOKEN)
    if request.method == "POST" and request.path == MISTAKES:  # their own: the route checks
        request[PLAYER] = player
        return await handler(request)
    if request.method == "POST" and request.path == "/api/transfers":
        payer, correcting = await _payer(request)
        if correcting:  # out of the rules: the banker's to make, never a phone's
            log.info("web: player %d's phone was refused a correction", player)
            return _error(403, CORRECTION_SAID)
        if type(payer) is int and payer == player:
            request[PLAYER] = player
            return await handler(request)
        log.info("web: player %d's phone was refused a payment from %s", player,
                 shown(payer))
        return _error(403, OWN_COINS_SAID)
    if request.method == "POST" and request.path == JAIL and await _own_jail_fee(request, player):
        request[PLAYER] = player
        return await handler(request)
    log.info("web: player %d's phone was refused %s %s", player, request.method,
             request.path[:60])
    return _error(403, refusal(request.path))


def source(request: web.Request, default: str) -> str:
    """What the journal says a write came from: the phone, else ``default``."""
    return SOURCE if PLAYER in request else default


# -- the banker's side: making and turning off links ------------------------------------------


def player_id(request: web.Request) -> int:
    """The ``{id}`` of ``/api/players/{id}/link``."""
    raw = request.match_info.get("id", "")
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
        raise Refused(say("unknown player {value}", value=shown(raw)))
    return int(raw)


def page_links(request: web.Request, token: str, *, page: str = PAGE,
               key: str = "token") -> tuple[str, str | None]:
    """A page (default: the player's) with ``#key=token``: at the address the request came
    to, and at one other devices on the LAN can open (None: none known; as
    :func:`companion.web.links.lan_link`). ``page`` "" is the banker's page."""
    link = with_fragment(f"{request.scheme}://{request.host}/{page}", key, token)
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    if not sockname:
        return link, None
    local, port = str(sockname[0]), int(sockname[1])
    if "%" in local:  # a link-local address with its interface: no use in a link
        return link, None
    host: str | None = local
    if is_loopback(local):
        bind = request.app.get(BIND_HOST, local)
        host = lan_address() if bind in WILDCARDS else None if is_loopback(bind) else bind
    return link, None if host is None else with_fragment(page_url(host, port) + page, key,
                                                          token)


def qr_svg(text: str) -> str:
    """``text`` as an inline SVG QR code (black on white, as a camera reads best)."""
    import segno  # loaded when a page first asks for a code, not at each boot

    return str(segno.make(text, error="m").svg_inline(scale=4, dark="#000", light="#fff"))


async def make_link(request: web.Request, table: Table, hub: PhonePages) -> web.Response:
    """``POST /api/players/{id}/link``: a new link for the player (the earlier one stops
    working and its pages are closed)."""
    player = player_id(request)
    token = await table.act(c.LinkPlayer(player))
    drop(hub, player)
    return await link_made(request, table, player, token)


async def link_made(request: web.Request, table: Table, player: int, token: str
                    ) -> web.Response:
    """201: the new phone link of ``player``, its token and its QR code."""
    state = await table.read(c.GetState())
    link, lan = page_links(request, token)
    log.info("web: a phone link for %s was made", state.name_of(player))
    return web.json_response({"player": player, "name": state.name_of(player),
                              "token": token, "link": link, "lan_link": lan,
                              "qr_svg": qr_svg(lan or link)}, status=201)


async def turn_off(request: web.Request, table: Table, hub: PhonePages) -> web.Response:
    """``DELETE /api/players/{id}/link``: the player's link stops working at once."""
    player = player_id(request)
    had = await table.act(c.UnlinkPlayer(player))
    drop(hub, player)
    return web.json_response({"player": player, "revoked": had})


async def me(request: web.Request, table: Table) -> web.Response:
    """``GET /api/players/me``: whose phone this is (401: the link is off or unknown)."""
    player = await player_of(request, table)
    if player is None:
        return _error(401, say("this phone link was turned off by the banker (or is unknown)"))
    view = (await table.read(c.GetState())).player(player)
    if view is None:  # a new game started in between
        return _error(401, EARLIER_GAME_SAID)
    return web.json_response({"player": player, "name": view.name, "colour": view.colour})


# -- the player's own seat: their history, "that was a mistake" ---------------------------------

NOT_A_PHONE = say("this is the banker's token: a player's own history and mistakes are their "
                  "phone link's")


async def own_player(request: web.Request, table: Table, *, banker: bool) -> int | web.Response:
    """The player whose live phone link the request carries, else the refusal to answer:
    401 without one (off, replaced, unknown), 403 for the table token (not a player)."""
    if banker:
        return _error(403, NOT_A_PHONE)
    player = await player_of(request, table)
    if player is None:
        return _error(401, say("this phone link was turned off by the banker (or is unknown)"))
    return player


async def seat(request: web.Request, table: Table, page: dict[str, object], *,
               banker: bool) -> web.Response:
    """``GET /api/players/me/journal``: a page of the player's own history (``page``: the
    cursors and limit asked for)."""
    player = await own_player(request, table, banker=banker)
    if isinstance(player, web.Response):
        return player
    return web.json_response(await table.read(c.GetSeat(player, **page)))


async def ask_mistake(request: web.Request, table: Table, move: object) -> web.Response:
    """``POST /api/players/me/mistakes``: the request about the player's payment ``move``,
    201 when new, 200 when it was asked before (the same request)."""
    player = request.get(PLAYER)
    if player is None:  # the table token: the banker undoes with Undo
        return _error(403, say("only a player's phone says its payment was a mistake; the "
                               "banker undoes a payment with Undo"))
    asked = await table.act(c.AskUndo(player, move), source=SOURCE)
    log.info("web: player %d says move %s was a mistake (%s)", player, asked.request.move_id,
             "new" if asked.new else "asked before")
    return web.json_response({"request": asked.request.to_json()},
                             status=201 if asked.new else 200)


# -- the phone's live feed ---------------------------------------------------------------------


@dataclass(slots=True)
class PlayerFeed:
    """One phone's WebSocket: which player it is, and the newest entry it has been told of."""

    player: int
    seen: int | None = None

    def given(self, outcome: OutcomeView | None) -> list[dict[str, Any]]:
        """``{"type": "my_outcome", ...the outcome..., "sound"}`` when a write gave this
        player a block outcome (``sound``: its name under ``/sounds/``)."""
        if outcome is None or outcome.player_id != self.player:
            return []
        return [{"type": "my_outcome", **public(outcome.to_json()),
                 "sound": sound_name(outcome.outcome)}]

    def gone(self, message: dict[str, Any]) -> bool:
        """Whether a state message is of a game without this player (a new game, another
        resumed): the phone's link is dead."""
        if message.get("type") != "state":
            return False
        return all(p.get("id") != self.player for p in message["state"].get("players", ()))

    def coins(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """``{"type": "coins", "amount", "from", "balance", "kind", "note"}`` for each new
        entry in a state message that pays this player (none the first time: that is what
        was there)."""
        if message.get("type") != "state":
            return []
        state = message["state"]
        lines = [line for line in state.get("recent", ()) if isinstance(line.get("id"), int)]
        if not lines:
            return []
        newest = max(line["id"] for line in lines)
        seen, self.seen = self.seen, max(newest, self.seen or 0)
        if seen is None:
            return []
        names = {p["id"]: p for p in state.get("players", ())}
        me_now = names.get(self.player)
        if me_now is None:
            return []
        return [{"type": "coins", "amount": line["amount"],
                 **texts(**{"from": _sender(line["from"], names)}),
                 "balance": me_now["balance"], "kind": line.get("kind"),
                 "note": line.get("note", ""),
                 **({"note_said": line["note_said"]} if "note_said" in line else {})}
                for line in sorted(lines, key=lambda line: line["id"])
                if line["id"] > seen and line.get("to") == self.player]


def _sender(party: object, names: dict[Any, dict[str, Any]]) -> str | Said:
    """Who sent a phone its coins: the Bank, a player by name."""
    if party == "bank":
        return THE_BANK
    found = names.get(party, {}).get("name")
    return found if isinstance(found, str) else say("player {id}", id=str(party))


async def feed_for(request: web.Request, table: Table) -> PlayerFeed | None:
    """The feed for a WebSocket opened with a live phone link's ``?token=`` (else None)."""
    try:
        player = await player_of(request, table, query=True)
    except CompanionError:  # the bank is down: a page without the token, for now
        return None
    return None if player is None else PlayerFeed(player)


def drop(hub: PhonePages, player: int) -> None:
    """Close the pages of ``player``'s phone (their link was turned off or replaced)."""
    for queue, feed in list(hub.phones.items()):
        if feed.player == player:
            hub.revoke(queue, {"type": "revoked"})
