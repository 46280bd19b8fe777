"""The JSON API and the WebSocket the tablet page uses (aiohttp, on the daemon's own loop).

Reading is open on the LAN; every write needs ``Authorization: Bearer <table token>``. Bad
input gets a 4xx with ``{"error": "..."}`` and changes nothing; there is no 5xx for bad input.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from companion.core.ledger import LedgerError
from companion.daemon import Companion
from companion.events import (
    BankChanged,
    BlockOutcome,
    CardTapped,
    Event,
    PressIgnored,
    TimerChanged,
)
from companion.presets import all_presets

log = logging.getLogger(__name__)

MAX_BODY = 16 * 1024
STATIC = Path(__file__).resolve().parent / "static"
COMPANION: web.AppKey[Companion] = web.AppKey("companion", Companion)
TOKEN: web.AppKey[str] = web.AppKey("token", str)
HUB: web.AppKey[Hub] = web.AppKey("hub", object)  # type: ignore[arg-type]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


@web.middleware
async def errors_as_json(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every refusal as JSON; a ledger refusal is a 400."""
    try:
        return await handler(request)
    except LedgerError as exc:
        return _error(400, str(exc))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error(exc.status, exc.reason)


@web.middleware
async def token_for_writes(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Writes need the table token; reading stays open."""
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        expected = f"Bearer {request.app[TOKEN]}".encode()
        given = request.headers.get("Authorization", "").encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(given, expected):
            return _error(401, "missing or wrong table token")
    return await handler(request)


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY,
                                            actual_size=request.content_length)
    raw = await request.read()
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise LedgerError("the body must be JSON") from None
    if not isinstance(data, dict):
        raise LedgerError("the body must be a JSON object")
    return data


def _only(data: dict[str, Any], *allowed: str) -> None:
    extra = sorted(set(data) - set(allowed))
    if extra:
        raise LedgerError(f"unknown field(s): {', '.join(extra)}")


def _request_id(request: web.Request) -> str | None:
    return request.headers.get("Idempotency-Key")


def _companion(request: web.Request) -> Companion:
    return request.app[COMPANION]


async def _read(request: web.Request, fn: Callable[[Any], Any]) -> Any:
    app = _companion(request)
    if app.bank is None:
        raise web.HTTPServiceUnavailable(reason="the bank is unavailable")
    return await app.bank.call(fn)


# -- routes --------------------------------------------------------------------------------


async def healthz(_request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def get_state(request: web.Request) -> web.Response:
    state = await _read(request, lambda bank: bank.state())
    return web.json_response({**state, "timer": _companion(request).lever.state()})


async def get_journal(request: web.Request) -> web.Response:
    raw = request.query.get("game")
    game: int | None = None
    if raw is not None:
        if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
            raise LedgerError("game must be a game id")
        game = int(raw)
    entries = await _read(request, lambda bank: bank.journal_json(game))
    return web.json_response({"game": game, "entries": entries})


async def post_press(request: web.Request) -> web.Response:
    _only(await _body(request))
    app = _companion(request)
    event = app.press(source="tablet")
    if isinstance(event, PressIgnored):
        return _error(409, "the block is still sounding")
    assert isinstance(event, BlockOutcome)
    return web.json_response({**event.outcome.to_json(), "press": event.number,
                              "description": event.outcome.describe()})


async def post_transfer(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "from", "to", "amount", "note")
    key = _request_id(request)
    entry = await _companion(request).act("transfer", lambda bank: bank.transfer(
        data.get("from"), data.get("to"), data.get("amount"), note=data.get("note", ""),
        source="tablet", request_id=key))
    return web.json_response(entry.to_json(), status=201)


async def post_undo(request: web.Request) -> web.Response:
    _only(await _body(request))
    key = _request_id(request)
    entry = await _companion(request).act(
        "undo", lambda bank: bank.undo(source="tablet", request_id=key))
    return web.json_response(entry.to_json(), status=201)


async def post_current(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "player")
    if "player" not in data:
        raise LedgerError("player is required (an id, or null for nobody)")
    player = await _companion(request).act(
        "current player", lambda bank: bank.set_current(data["player"]))
    return web.json_response({"current_player": player})


async def post_games(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "edition", "players")
    game = await _companion(request).act("new game", lambda bank: bank.new_game(
        data.get("edition", "celebration"), data.get("players")))
    return web.json_response({"game": game}, status=201)


async def post_assign(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "outcome", "player")
    record = await _companion(request).act("assign", lambda bank: bank.assign_outcome(
        data.get("outcome"), data.get("player"), source="tablet"))
    return web.json_response(record.to_json())


async def post_next(request: web.Request) -> web.Response:
    _only(await _body(request))
    player = await _companion(request).act("next player", lambda bank: bank.next_player())
    return web.json_response({"current_player": player})


async def post_go(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "player")
    key = _request_id(request)
    entry = await _companion(request).act("pass GO", lambda bank: bank.pass_go(
        data.get("player"), source="tablet", request_id=key))
    return web.json_response(entry.to_json(), status=201)


MAX_TIMER_SECONDS = 3600


async def post_timer_start(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "seconds")
    seconds = data.get("seconds")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float)
                                or not 1 <= seconds <= MAX_TIMER_SECONDS):
        raise LedgerError(f"seconds must be a number from 1 to {MAX_TIMER_SECONDS} "
                          "(or left out for the configured time)")
    state = _companion(request).lever.start(None if seconds is None else float(seconds),
                                            source="tablet")
    return web.json_response({"timer": state})


async def post_timer_stop(request: web.Request) -> web.Response:
    _only(await _body(request))
    return web.json_response({"timer": _companion(request).lever.stop(source="tablet")})


async def get_timer(request: web.Request) -> web.Response:
    return web.json_response({"timer": _companion(request).lever.state()})


def _linked_cards(bank: Any) -> set[str]:
    """Cards linked on the tablet: a player's in the current game, or an action."""
    linked = {p.card_uid for p in bank.players() if p.card_uid} if bank.latest_game() else set()
    return linked | set(bank.card_actions())


async def _activity(companion: Companion) -> dict[str, Any]:
    known: set[str] = set()
    actions: dict[str, str] = {}
    if companion.bank is not None:  # one trip to the bank's thread for both
        known, actions = await companion.bank.call(
            lambda bank: (_linked_cards(bank), bank.card_actions()))
    return {"activity": list(companion.cards.activity),
            "new_cards": companion.cards.new_cards(known),
            "card_actions": actions, "reader": companion.cards.reader_status(),
            "dropped_taps": companion.cards.dropped}


async def get_activity(request: web.Request) -> web.Response:
    return web.json_response(await _activity(_companion(request)))


async def post_cards(request: web.Request) -> web.Response:
    """Link a card: ``{"uid", "player": id}`` (that player's card in the current game) or
    ``{"uid", "action": name}`` (the card does that, whoever taps it)."""
    data = await _body(request)
    _only(data, "uid", "player", "action")
    if not isinstance(data.get("uid"), str):
        raise LedgerError("uid is required: the card's UID as hex text")
    if ("player" in data) == ("action" in data):
        raise LedgerError("give either player (an id) or action")
    app = _companion(request)
    uid = data.get("uid")
    if "action" in data:
        clean = await app.act("card action", lambda bank: bank.set_card_action(
            uid, data["action"]))
        meaning = {"action": data["action"]}
    else:
        clean = await app.act("card", lambda bank: bank.set_card(data["player"], uid))
        meaning = {"player": data["player"]}
    return web.json_response({"uid": clean, **meaning})


async def get_editions(_request: web.Request) -> web.Response:
    return web.json_response({"editions": [p.to_json() for p in all_presets().values()]})


async def index(_request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html",
                            headers={"Cache-Control": "no-cache"})


HEARTBEAT_S = 10.0
"""A page that hears nothing for a while knows its connection is dead and reconnects."""
MAX_QUEUED = 100


class Hub:
    """Pushes every event to every connected WebSocket, each through its own small queue."""

    def __init__(self, companion: Companion) -> None:
        self.companion = companion
        self.clients: dict[asyncio.Queue[dict[str, Any] | None], web.WebSocketResponse] = {}

    def publish(self, event: Event) -> None:
        message = _message(event, self.companion.lever.state())
        if message is None:
            return
        for queue in list(self.clients):
            while queue.qsize() >= MAX_QUEUED:  # a slow page loses old news, never the newest
                queue.get_nowait()
            queue.put_nowait(message)

    async def close(self) -> None:
        """Close every socket now, even one whose reader is stuck."""
        sockets = list(self.clients.values())
        for queue in self.clients:
            queue.put_nowait(None)
        for ws in sockets:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1.0)


def _message(event: Event, timer: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(event, BankChanged):
        return {"type": "state", "action": event.action, "summary": event.summary,
                "state": {**event.state, "timer": timer}}
    if isinstance(event, TimerChanged):
        return {"type": "timer", "what": event.what, "source": event.source,
                "timer": event.state}
    if isinstance(event, CardTapped):
        return {"type": "activity", "tap": event.entry}
    if isinstance(event, BlockOutcome):
        return {"type": "outcome", "press": event.number, "source": event.source,
                **event.outcome.to_json(), "description": event.outcome.describe()}
    return None


async def websocket(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4096)
    await ws.prepare(request)
    hub = request.app[HUB]
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    hub.clients[queue] = ws
    sender: asyncio.Future[None] | None = None
    try:
        app = _companion(request)
        if app.bank is not None:  # catch up at once: a reconnecting page needs no reload
            state = await app.bank.call(lambda bank: bank.state())
            await ws.send_json({"type": "state", "action": "hello", "summary": "",
                                "state": {**state, "timer": app.lever.state()}})
        sender = asyncio.ensure_future(_send_all(ws, queue))
        async for msg in ws:  # the page sends nothing we need; this just waits for the end
            if msg.type is WSMsgType.ERROR:
                break
    finally:
        if sender is not None:
            sender.cancel()
        hub.clients.pop(queue, None)
    return ws


async def _send_all(ws: web.WebSocketResponse,
                    queue: asyncio.Queue[dict[str, Any] | None]) -> None:
    while True:
        try:
            message = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
        except TimeoutError:
            message = {"type": "ping"}
        if message is None:
            await ws.close()
            return
        await ws.send_json(message)


def build_app(companion: Companion, token: str) -> web.Application:
    """The aiohttp application for one companion."""
    app = web.Application(middlewares=[errors_as_json, token_for_writes],
                          client_max_size=MAX_BODY)
    app[COMPANION] = companion
    app[TOKEN] = token
    hub = Hub(companion)
    app[HUB] = hub
    companion.listeners.append(hub.publish)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/api/state", get_state)
    app.router.add_get("/api/journal", get_journal)
    app.router.add_post("/api/press", post_press)
    app.router.add_post("/api/transfers", post_transfer)
    app.router.add_post("/api/undo", post_undo)
    app.router.add_post("/api/current", post_current)
    app.router.add_post("/api/games", post_games)
    app.router.add_post("/api/assign", post_assign)
    app.router.add_post("/api/next", post_next)
    app.router.add_post("/api/go", post_go)
    app.router.add_get("/api/editions", get_editions)
    app.router.add_get("/api/timer", get_timer)
    app.router.add_get("/api/activity", get_activity)
    app.router.add_post("/api/cards", post_cards)
    app.router.add_post("/api/timer/start", post_timer_start)
    app.router.add_post("/api/timer/stop", post_timer_stop)
    app.router.add_get("/ws", websocket)
    app.router.add_get("/", index)
    app.router.add_static("/static/", STATIC)

    async def on_shutdown(_app: web.Application) -> None:
        await hub.close()
        if hub.publish in companion.listeners:
            companion.listeners.remove(hub.publish)

    app.on_shutdown.append(on_shutdown)
    return app
