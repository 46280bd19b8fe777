"""Card UIDs only for the table token's holders.

A card's UID is all a copy of the card needs (EM4100 tags are easy to clone), and the card
action map says what each one does, so reading them needs the token, like writing. Everything
else about the table stays open to read on the LAN. :func:`public` is the one place that takes
them out: of GET answers (a middleware) and of WebSocket messages (the hub, per page).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

HIDDEN = "card"
"""What a card UID in a ``source`` (``card:04A224B9``) becomes."""
REDACTED_PREFIX = "/api/"
"""GET answers under here are passed through :func:`public` for a caller without the token."""


def has_token(request: web.Request, token: str, *, query: bool = False) -> bool:
    """``Authorization: Bearer <token>``, or (``query``: the WebSocket, where a browser can't
    set headers) ``?token=<token>``; compared in constant time."""
    expected = token.encode()
    given = request.headers.get("Authorization", "")
    if given.startswith("Bearer ") and hmac.compare_digest(
            given[7:].encode("utf-8", "surrogateescape"), expected):
        return True
    if query:
        asked = request.query.get("token", "")
        return hmac.compare_digest(asked.encode("utf-8", "surrogateescape"), expected)
    return False


def public(data: Any) -> Any:
    """``data`` (state, journal, activity, a WebSocket message) without card UIDs and card
    actions: a player's ``card`` and a tap's ``uid`` become null, ``source: "card:UID"``
    becomes ``"card"``, ``new_cards`` and ``card_actions`` empty. A new copy; ``data`` is
    left alone."""
    if isinstance(data, list):
        return [public(v) for v in data]
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    uid = data.get("uid")
    for key, value in data.items():
        if key in ("card", "uid") and isinstance(value, str):
            out[key] = None
        elif key == "source" and isinstance(value, str) and value.startswith("card:"):
            out[key] = HIDDEN
        elif key == "new_cards":
            out[key] = []
        elif key == "card_actions":
            out[key] = {}
        elif isinstance(value, str) and isinstance(uid, str) and uid and uid in value:
            out[key] = value.replace(uid, HIDDEN)  # e.g. a tap's "did" quoting its card
        else:
            out[key] = public(value)
    return out


def make_redactor(token: str) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """A middleware: GET ``/api/...`` JSON answers through :func:`public` unless the request
    has the token."""

    @web.middleware
    async def cards_need_token(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        if (request.method == "GET" and request.path.startswith(REDACTED_PREFIX)
                and isinstance(response, web.Response) and not response.prepared
                and response.content_type == "application/json"
                and isinstance(response.body, bytes)
                and (b"card" in response.body or b"uid" in response.body)  # else none there
                and not has_token(request, token)):
            data = json.loads(response.body)
            hidden = public(data)
            if hidden != data:
                response.body = json.dumps(hidden).encode()
        return response

    return cards_need_token
