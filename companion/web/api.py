"""The JSON API and the WebSocket the tablet page uses (aiohttp, on the daemon's own loop).

Reading is open on the LAN; every write needs ``Authorization: Bearer <table token>`` (a
player's phone link pays from its own coins only: :mod:`companion.web.players`). Bad
input gets a 4xx with ``{"error": "..."}`` and changes nothing; there is no 5xx for bad input.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from companion import __version__
from companion.app import commands as c
from companion.app.contract import Table
from companion.audio.library import SOUND_NAMES, builtin_path
from companion.bank.held import press_from_page
from companion.bank.store import BankUnavailable
from companion.core.actions import ID, Action, Field
from companion.core.ledger import check_request_id
from companion.events import (
    BlockOutcome,
    CardTapped,
    Event,
    LeverPressed,
    PressIgnored,
    StateChanged,
    StorageChanged,
    TimerChanged,
)
from companion.exc import (
    AgainstTheRules,
    Blocked,
    Conflict,
    Refused,
    SavedBeforeFailure,
    Unavailable,
    shown,
)
from companion.i18n.said import Said, as_json, joined, say, say_n, texts
from companion.web import body, join, openapi, players, sharing
from companion.web.openapi import Route
from companion.web.privacy import has_token, public
from companion.web.throttle import Buckets, Holds, WritesFirst

log = logging.getLogger(__name__)

MAX_BODY = body.MAX_BODY
STATIC = Path(__file__).resolve().parent / "static"
TABLE: web.AppKey[Table] = web.AppKey("table", object)  # type: ignore[arg-type]
READER: web.AppKey[ReaderSource | None] = web.AppKey("reader", object)  # type: ignore[arg-type]
TOKEN: web.AppKey[str] = web.AppKey("token", str)
HUB: web.AppKey[Hub] = web.AppKey("hub", object)  # type: ignore[arg-type]
LANGUAGE: web.AppKey[str] = web.AppKey("language", str)
JOURNAL_READERS: web.AppKey[Buckets] = web.AppKey("journal_readers", Buckets)
HOLDS: web.AppKey[Holds] = web.AppKey("holds", Holds)
WRITES: web.AppKey[WritesFirst] = web.AppKey("writes", WritesFirst)
DOCUMENT: web.AppKey[dict[str, Any]] = web.AppKey("openapi", dict)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ReaderSource(Protocol):
    """The card reader (a frontend of its own): its port's status for ``GET /api/activity``."""

    dropped: int

    def reader_status(self) -> dict[str, Any] | None: ...


NO_SUCH_NAME = (errno.ENAMETOOLONG, errno.EILSEQ)
"""A file's name asked for that no file can have (a static file's too long name): 404."""
SOMETHING_WRONG = say("something went wrong inside the companion (it is in the log); nothing "
                      "was changed by this request")

STATUS = ((Refused, 400), (Conflict, 409), (Unavailable, 503))
"""The companion's errors as HTTP statuses (:mod:`companion.exc`)."""


def _error(status: int, message: str | Said, **extra: Any) -> web.Response:
    """``error`` in English; ``error_said`` the same message for the page to put into its own
    language (a :class:`Said`; plain text when the message is not in the catalogs)."""
    return web.json_response({"error": str(message), "error_said": as_json(message), **extra},
                             status=status)


@web.middleware
async def errors_as_json(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every refusal as JSON: bad input 400, not now 409, a missing part 503 (for the bank,
    ``saved`` says whether the write was kept all the same: false, or null when not known)."""
    try:
        return await handler(request)
    except SavedBeforeFailure as exc:  # it stands: a success, said with what went wrong next
        return web.json_response({"saved": True, "replayed": True, "move": {"id": exc.move},
                                  **texts(message=exc.said)})
    except BankUnavailable as exc:  # the disk: whether the write was kept all the same
        return _error(503, exc.said, saved=exc.saved)
    except Unavailable as exc:
        return _error(503, exc.said)
    except Blocked as exc:  # the later moves it names, for the page to offer
        return _error(409, exc.said, blocked_by=list(exc.blocked_by))
    except AgainstTheRules as exc:  # who may make it and when, in the rulebook's words
        return web.json_response(exc.to_json(), status=409)
    except (Refused, Conflict) as exc:
        return _error(next(code for cls, code in STATUS if isinstance(exc, cls)), exc.said)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error(exc.status, exc.reason)
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except OSError as exc:
        if exc.errno not in NO_SUCH_NAME:
            log.exception("%s %s failed", request.method, request.path[:200])
            return _error(500, SOMETHING_WRONG)
        return _error(404, "Not Found")  # a name no file can have (too long): quietly
    except Exception:  # a bug: said plainly in JSON, the details in the log
        log.exception("%s %s failed", request.method, request.path[:200])
        return _error(500, SOMETHING_WRONG)


@web.middleware
async def codings_taken(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A body in a coding the API does not take is refused (415) before anything reads it."""
    body.check_coding(request)
    return await handler(request)


@web.middleware
async def token_for_writes(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Writes need the table token, or a player's phone link paying from its own coins
    (:mod:`companion.web.players`); reading stays open."""
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        with request.app[WRITES].write():  # journal reads wait for it (WritesFirst)
            return await _checked_write(request, handler)
    return await handler(request)


async def _checked_write(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A write with the table token, a join code or a player's phone link."""
    expected = f"Bearer {request.app[TOKEN]}".encode()
    given = request.headers.get("Authorization", "").encode("utf-8", "surrogateescape")
    if not hmac.compare_digest(given, expected):  # a player's phone, or nobody
        if request.method == "POST" and request.path == join.PATH:
            return await handler(request)  # a join code, checked there
        return await players.guard_write(request, handler, request.app[TABLE])
    return await handler(request)


async def _body(request: web.Request) -> dict[str, Any]:
    return await body.read_object(request)


def _only(data: dict[str, Any], *allowed: str) -> None:
    extra = sorted(set(data) - set(allowed))
    if extra:
        raise Refused(say("unknown field(s): {fields}", fields=joined(extra)))


def _required(data: dict[str, Any], *keys: str) -> None:
    """Refused naming the first of ``keys`` the body lacks."""
    for key in keys:
        if key not in data:
            raise Refused(say("{key} is required", key=key))


def _request_id(request: web.Request) -> str | None:
    """The ``Idempotency-Key``: 1-100 printable characters (UTF-8), given once, or None."""
    keys = request.headers.getall("Idempotency-Key", [])
    if not keys:
        return None
    key = keys[0]
    try:  # aiohttp keeps bytes that are not UTF-8 as surrogates: SQLite can't store them
        key.encode("utf-8")
    except UnicodeEncodeError:
        key = ""
    if len(keys) > 1 or check_request_id(key) is None:
        raise Refused(say("request id must be 1-100 printable characters"))
    return key


def _table(request: web.Request) -> Table:
    return request.app[TABLE]


async def _act(request: web.Request, command: c.Command[Any], *, keyed: bool = False) -> Any:
    """Ask the table for ``command`` on the tablet's behalf (with its Idempotency-Key)."""
    return await _table(request).act(command, source=players.source(request, "tablet"),
                                     request_id=_request_id(request) if keyed else None)


# -- routes --------------------------------------------------------------------------------


async def healthz(request: web.Request) -> web.Response:
    """200 when every required part is up (the bank takes writes), else 503 naming the part
    and why; each part's state either way."""
    health = await _table(request).read(c.GetHealth())
    body = health.to_json()
    if not health.ok:
        down = [p for p in health.parts if p.required and not p.ok]
        body["error"] = "; ".join(f"{p.name}: {p.detail}" for p in down)
    return web.json_response(body, status=200 if health.ok else 503)


async def get_state(request: web.Request) -> web.Response:
    return web.json_response((await _table(request).read(c.GetState())).to_json())


JOURNAL_PARAMS = {"game": "a game id", "before": "a move id", "after": "a move id",
                  "limit": "a number of moves"}


def _number(request: web.Request, name: str) -> int | None:
    """A query parameter that is a whole number (None: not given)."""
    values = request.query.getall(name, [])
    if not values:
        return None
    raw = values[0]
    if len(values) > 1 or not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
        raise Refused({
            "game": say("game must be a game id (a whole number, given once)"),
            "before": say("before must be a move id (a whole number, given once)"),
            "after": say("after must be a move id (a whole number, given once)"),
            "outcomes_before": say("outcomes_before must be an outcome id (a whole number, "
                                   "given once)"),
            "limit": say("limit must be a number of moves (a whole number, given once)"),
        }[name])
    return int(raw)


JOURNAL_RATE, JOURNAL_BURST = 4.0, 20
"""Journal reads a second per client address without the table token, and at once: a page
reads a page per change; a loop of readers can't keep the bank busy."""


async def _throttled(request: web.Request) -> web.Response | None:
    """A 429 with Retry-After for an address past :data:`JOURNAL_RATE` reads of the journal
    without the token (None: go on), held back until it could ask again (:class:`Holds`)."""
    address = request.remote or ""
    wait = request.app[JOURNAL_READERS].take(address)
    if not wait:
        return None
    if await request.app[HOLDS].hold(address, wait):  # it did not wait as told: what its
        request.app[JOURNAL_READERS].take(address)  # bucket refilled meanwhile is spent
    response = _error(429, say("too many journal reads from this address: try again in a "
                               "moment"))
    response.headers["Retry-After"] = Buckets.retry_after(wait)
    return response


async def get_journal(request: web.Request) -> web.StreamResponse:
    """The whole game (no paging parameter: the table token's, streamed), or one page:
    ``before``/``after`` a move id, at most ``limit`` moves
    (:class:`companion.app.commands.GetJournal`). Without the token, at most
    :data:`JOURNAL_RATE` a second per address (429 with Retry-After)."""
    unknown = sorted(set(request.query) - set(JOURNAL_PARAMS))
    if unknown:
        raise Refused(say("unknown parameter(s): {parameters} (give game, before or after, "
                          "limit)", parameters=", ".join(unknown)[:80]))
    game, before, after, limit = (_number(request, name) for name in JOURNAL_PARAMS)
    query = c.JournalJSON(game, before, after, limit)
    if not has_token(request, request.app[TOKEN]):
        throttled = await _throttled(request)
        if throttled is not None:
            return throttled
        if not query.paged:
            return _error(401, say("the whole journal needs the table token; without it, "
                                   "ask for pages (before, after, limit)"))
    budget = [request.app[WRITES].longest]
    await request.app[WRITES].quiet(budget)
    pieces = await _table(request).read(query)
    if query.paged:
        return web.Response(body=pieces[0], content_type="application/json", charset="utf-8")
    return await _stream(request, pieces, budget)


async def _stream(request: web.Request, pieces: list[bytes],
                  budget: list[float]) -> web.StreamResponse:
    """JSON already encoded (on the reading thread), chunked, a piece at a time."""
    response = web.StreamResponse()
    response.content_type = "application/json"
    response.enable_chunked_encoding()
    try:
        await response.prepare(request)
        for piece in pieces:
            await response.write(piece)
            await asyncio.sleep(0)  # the others' requests between pieces
            await request.app[WRITES].quiet(budget)
        await response.write_eof()
    except ConnectionResetError:  # the reader left: nothing more to send
        log.debug("%s: the reader left before the whole journal was sent", request.remote)
    return response


async def post_press(request: web.Request) -> web.Response:
    """Press the block: answered once the outcome is saved (200), or held because the disk
    refuses it (202, ``held`` says why; it is saved when the disk allows)."""
    _only(await _body(request))
    pressed = await _act(request, c.Press())
    event = pressed.event
    if isinstance(event, PressIgnored):
        return _error(409, event.reason)
    if isinstance(event, LeverPressed):
        return web.json_response({"kind": "lever", "started": event.started})
    assert isinstance(event, BlockOutcome)
    body = {**event.outcome.to_json(), "press": event.number, **_words(event),
            "saved": pressed.saved, "press_id": pressed.press_id,
            **({"held": None} if pressed.held is None else texts(held=pressed.held)),
            "outcome_id": None if pressed.record is None else pressed.record.id}
    if pressed.held is not None:
        tablets = 0 if pressed.press_id is None else \
            await request.app[HUB].kept_by(pressed.press_id, KEEP_WAIT_S)
        places: list[Said] = [say("in the companion's memory")]
        if pressed.on_disk:
            places.append(say("in its held-presses file"))
        if tablets:
            places.append(say_n("on {n} tablet", "on {n} tablets", tablets))
        body["kept"] = {"memory": True, "file": pressed.on_disk, "tablets": tablets}
        body.update(texts(message=say(
            "not saved yet: {why}. It is kept {places}, and saved when the bank takes writes "
            "again.", why=pressed.held, places=joined(places))))
    return web.json_response(body, status=202 if pressed.held is not None else 200)


def move_route(action: Action) -> Handler:
    """The route of a move of the moves table: its body's fields (and its path's) as the
    move declares them, its Idempotency-Key where it takes one, its answer as it says."""
    async def handler(request: web.Request) -> web.Response:
        fields = await _body(request)
        for f in action.fields:
            if f.path:
                raw = request.match_info.get(f.name, "")
                fields[f.name] = int(raw) if raw.isascii() and raw.isdecimal() and \
                    len(raw) <= 18 else raw
        result = await _act(request, c.Move(action.name, fields), keyed=action.keyed)
        body, status = action.answer(result, fields)
        return web.json_response(body, status=status)

    handler.__name__ = handler.__qualname__ = f"move_{action.name}"
    return handler


MAX_GIVEN_BACK = 40
"""Presses per give-back request (a page sends more in turns; a body stays small)."""


async def post_held(request: web.Request) -> web.Response:
    """``{"presses": [...]}``: a page gives back its copies of held presses (the state's
    ``storage.presses``); each is answered ``banked``, ``held`` or ``refused``."""
    data = await _body(request)
    _only(data, "presses")
    _required(data, "presses")
    presses = data["presses"]
    if not isinstance(presses, list) or not 1 <= len(presses) <= MAX_GIVEN_BACK:
        raise Refused(say("presses must be a list of 1 to {n} presses", n=MAX_GIVEN_BACK))
    given = tuple(press_from_page(p) for p in presses)
    answer = await _act(request, c.GiveBack(given))
    return web.json_response({"presses": answer})


async def get_move_undo(request: web.Request) -> web.Response:
    """Whether a move of the current game can be undone now: ``undoable``, ``blocked_by`` (the
    later moves that depend on it, nearest first) and ``error`` (why not). Without the table
    token, rate-limited as journal reads are (it reads the moves after it)."""
    raw = request.match_info["id"]
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
        raise Refused(say("{key} must be a move id (a whole number from 1), got {value}",
                          key="move", value=shown(raw)))
    throttled = None if has_token(request, request.app[TOKEN]) else await _throttled(request)
    if throttled is not None:
        return throttled
    check = await _table(request).read(c.CanUndo(int(raw)))
    return web.json_response(check.to_json())


async def get_games(request: web.Request) -> web.Response:
    return web.json_response({"games": await _table(request).read(c.GetGames())})


async def post_battle(request: web.Request) -> web.Response:
    """``{"leader": id, "teammate": id}``: the next two presses are their dice."""
    data = await _body(request)
    _only(data, "leader", "teammate")
    if "leader" not in data:
        raise Refused(say("leader is required: the player who landed on Bowser (or he on "
                          "them)"))
    view = await _act(request, c.ArmMode("battle", {"leader": data["leader"],
                                                    "teammate": data.get("teammate")}))
    return web.json_response({"mode": view.to_json()})


async def post_mode(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "mode", "payer", "owner", "utilities", "leader", "teammate")
    if "mode" not in data:
        raise Refused(say("mode is required (GET /api/rules lists the edition's modes)"))
    params = {k: v for k, v in data.items() if k != "mode"}
    view = await _act(request, c.ArmMode(data["mode"], params))
    return web.json_response({"mode": view.to_json()})


async def get_languages(request: web.Request) -> web.Response:
    """The languages the companion speaks (the Celebration rulebook's) and the table's
    (``[table] language``: a page's language until its device picks another)."""
    from companion.i18n import LANGUAGES

    return web.json_response({"languages": [
        {"code": lang.code, "name": lang.name, "rtl": lang.rtl} for lang in LANGUAGES.values()],
        "table": request.app[LANGUAGE]})


async def get_i18n(request: web.Request) -> web.Response:
    """One language's catalog as JSON (the page's words): ``messages`` and ``plural``."""
    from companion.i18n import check_language, translator

    return web.json_response(translator(check_language(request.match_info["code"])).to_json())


async def get_rules(request: web.Request) -> web.Response:
    return web.json_response(await _table(request).read(c.GetRules()))


async def post_timer_start(request: web.Request) -> web.Response:
    data = await _body(request)
    _only(data, "seconds")
    timer = await _act(request, c.StartTimer(data.get("seconds")))
    return web.json_response({"timer": timer.to_json()})


async def post_timer_stop(request: web.Request) -> web.Response:
    _only(await _body(request))
    timer = await _act(request, c.StopTimer())
    return web.json_response({"timer": timer.to_json()})


async def get_timer(request: web.Request) -> web.Response:
    return web.json_response({"timer": (await _table(request).read(c.GetTimer())).to_json()})


async def get_activity(request: web.Request) -> web.Response:
    reader = request.app[READER]
    feed = await _table(request).read(c.GetActivity())
    return web.json_response({**feed, "reader": reader.reader_status() if reader else None,
                              "dropped_taps": reader.dropped if reader else 0})


async def post_cards(request: web.Request) -> web.Response:
    """Link a card: ``{"uid", "player": id}`` (that player's card in the current game) or
    ``{"uid", "action": name}`` (the card does that, whoever taps it)."""
    data = await _body(request)
    _only(data, "uid", "player", "action")
    if not isinstance(data.get("uid"), str):
        raise Refused(say("uid is required: the card's UID as hex text"))
    if ("player" in data) == ("action" in data):
        raise Refused(say("give either player (an id) or action"))
    uid = data.get("uid")
    if "action" in data:
        clean = await _act(request, c.SetCardAction(uid, data["action"]))
        meaning = {"action": data["action"]}
    else:
        clean = await _act(request, c.LinkCard(uid, data["player"]))
        meaning = {"player": data["player"]}
    return web.json_response({"uid": clean, **meaning})


async def get_editions(request: web.Request) -> web.Response:
    return web.json_response({"editions": await _table(request).read(c.GetEditions())})


async def get_setup(request: web.Request) -> web.Response:
    """What a setup offers (:class:`companion.app.commands.GetSetup`): open, like the
    editions."""
    return web.json_response(await _table(request).read(c.GetSetup()))


async def index(_request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html",
                            headers={"Cache-Control": "no-cache"})


async def service_worker(_request: web.Request) -> web.FileResponse:
    """The page's service worker, from the root so that its scope is the whole page (one under
    /static/ could only control /static/); checked for a new version at every load."""
    return web.FileResponse(STATIC / "sw.js", headers={
        "Cache-Control": "no-cache", "Content-Type": "text/javascript; charset=utf-8"})


async def player_page(_request: web.Request) -> web.FileResponse:
    """A player's own phone (the token arrives after ``#``)."""
    return web.FileResponse(STATIC / "player.html", headers={"Cache-Control": "no-cache"})


async def post_player_link(request: web.Request) -> web.Response:
    """A player's phone link (the banker's): 201 with the link, its token and a QR code."""
    _only(await _body(request))
    return await players.make_link(request, _table(request), request.app[HUB])


async def delete_player_link(request: web.Request) -> web.Response:
    _only(await _body(request))  # no fields: a body with any is refused, as everywhere
    return await players.turn_off(request, _table(request), request.app[HUB])


async def get_player_me(request: web.Request) -> web.Response:
    return await players.me(request, _table(request))


SEAT_PARAMS = ("before", "outcomes_before", "limit")


async def get_player_journal(request: web.Request) -> web.Response:
    """A page of the phone's own player's history: ``before`` (a move id) and
    ``outcomes_before`` (an outcome id) as the last page gave them, at most ``limit`` lines
    (:func:`companion.bank.seat.seat_page`). Rated per address as the journal's pages are."""
    unknown = sorted(set(request.query) - set(SEAT_PARAMS))
    if unknown:
        raise Refused(say("unknown parameter(s): {parameters} (give before, "
                          "outcomes_before, limit)", parameters=", ".join(unknown)[:80]))
    page = {name: _number(request, name) for name in SEAT_PARAMS}
    throttled = await _throttled(request)
    if throttled is not None:
        return throttled
    return await players.seat(request, _table(request), page,
                              banker=has_token(request, request.app[TOKEN]))


async def post_mistake(request: web.Request) -> web.Response:
    """``{"move": id}``: a phone says its player's latest payment was a mistake (201; the
    same again: 200, the same request)."""
    data = await _body(request)
    _only(data, "move")
    _required(data, "move")
    return await players.ask_mistake(request, _table(request), data["move"])


async def answer_request(request: web.Request) -> web.Response:
    """The banker keeps a payment a player said was a mistake: ``DELETE
    /api/requests/{id}``, or ``POST`` it ``{"answer": "keep"}`` (undoing it is Undo's)."""
    raw = request.match_info.get("id", "")
    if not (raw.isascii() and raw.isdecimal()) or len(raw) > 18:
        raise Refused(say("unknown request {value}", value=shown(raw)))
    answer = "keep"
    if request.method == "POST":
        data = await _body(request)
        _only(data, "answer")
        _required(data, "answer")
        answer = data["answer"]
    else:
        _only(await _body(request))
    kept = await _act(request, c.AnswerRequest(int(raw), answer))
    return web.json_response({"request": kept.to_json()})


SOUND_CACHE = "public, max-age=86400"
"""The built-in sounds change only with an upgrade: a phone fetches each once a day at most."""


async def get_sound(request: web.Request) -> web.FileResponse:
    """``/sounds/{name}.wav``: one of the built-in sounds, read-only (a phone plays its
    outcome's); 404 for any other name."""
    name = request.match_info.get("name", "")
    if name not in SOUND_NAMES:
        raise web.HTTPNotFound(reason="no such sound")
    return web.FileResponse(builtin_path(name), headers={"Cache-Control": SOUND_CACHE,
                                                         "Content-Type": "audio/wav"})


async def join_page(request: web.Request) -> web.FileResponse:
    return await join.join_page(request, STATIC)


async def get_join(request: web.Request) -> web.Response:
    """The join link (table token) or the players to pick from (join code)."""
    return await join.get_join(request, _table(request), request.app[TOKEN])


async def post_join(request: web.Request) -> web.Response:
    """``{"player": id}`` with the join code: that player's phone link (201)."""
    return await join.post_join(request, _table(request), _body)


async def get_share(request: web.Request) -> web.Response:
    return await sharing.get_share(request, request.app[TOKEN])


async def get_export(request: web.Request) -> web.Response:
    return await sharing.get_export(request, _table(request), request.app[TOKEN])


async def get_board_file(request: web.Request) -> web.Response:
    return await sharing.get_board_file(request, _table(request), request.app[TOKEN])
async def get_coins(request: web.Request) -> web.Response:
    """A game's coins over the evening: read from its whole journal, so without the token
    it is held to the journal's pace (429 with Retry-After)."""
    if not has_token(request, request.app[TOKEN]):
        throttled = await _throttled(request)
        if throttled is not None:
            return throttled
    return await sharing.get_coins(request, _table(request))


HEARTBEAT_S = 10.0
"""A page that hears nothing for a while knows its connection is dead and reconnects."""
MAX_QUEUED = 100
KEEP_WAIT_S = 1.0
"""How long a held press's answer waits for the connected tablets to say they keep it."""
MAX_KEPT = 1000
"""Press ids a page may say it keeps (far more than the held file's ~130)."""
PING = json.dumps({"type": "ping"})
Outgoing = dict[str, Any] | str | None
"""What a page's queue holds: a message encoded once for every page (str), one page's own
(dict: a phone's coins), or None (close)."""


class Hub:
    """Pushes every event to every connected WebSocket, each through its own small queue.

    Each message is encoded once (once more without the cards, for pages without the token)
    and every page gets that same text: the cost of a write does not grow with the pages."""

    def __init__(self) -> None:
        self.clients: dict[asyncio.Queue[Outgoing], web.WebSocketResponse] = {}
        self.trusted: set[asyncio.Queue[Outgoing]] = set()  # pages with the token
        self.phones: dict[asyncio.Queue[Outgoing], players.PlayerFeed] = {}
        self.keeping: dict[asyncio.Queue[Outgoing], frozenset[str]] = {}
        """The held presses each page with the token says it keeps (in its browser)."""
        self.closing: set[asyncio.Queue[Outgoing]] = set()
        """Phones' pages told their link is dead, being closed: nothing more is queued."""

    def revoke(self, queue: asyncio.Queue[Outgoing], message: dict[str, Any]) -> None:
        """Tell a phone's page its link is dead (``message``: ``{"type": "revoked"}``), then
        close it; nothing is queued after, so a slow page can't lose these two."""
        if queue in self.closing or queue not in self.clients:
            return
        self.phones.pop(queue, None)
        self.closing.add(queue)
        queue.put_nowait(message)
        queue.put_nowait(None)

    def keeps(self, queue: asyncio.Queue[Outgoing], message: object) -> None:
        """A page's ``{"type": "keeping", "presses": [ids]}``: what it keeps now."""
        if queue not in self.trusted or not isinstance(message, dict) or \
                message.get("type") != "keeping":
            return
        ids = message.get("presses")
        if isinstance(ids, list) and len(ids) <= MAX_KEPT:
            self.keeping[queue] = frozenset(i for i in ids if isinstance(i, str))

    def tablets_keeping(self, press_id: str) -> int:
        """How many connected pages with the token keep this press."""
        return sum(press_id in kept for queue, kept in self.keeping.items()
                   if queue in self.clients)

    async def kept_by(self, press_id: str, wait: float) -> int:
        """The connected pages with the token that keep this press, once all of them say so
        or ``wait`` seconds have passed."""
        loop = asyncio.get_running_loop()
        until = loop.time() + wait
        while True:
            kept = self.tablets_keeping(press_id)
            if kept >= len(self.trusted) or loop.time() >= until:
                return kept
            await asyncio.sleep(0.02)

    def publish(self, event: Event) -> None:
        message = _message(event)
        if message is None:
            return
        text: str | None = None
        without_cards: str | None = None  # for pages without the token
        for queue in list(self.clients):
            if queue in self.closing:  # its last words are said: nothing may push them out
                continue
            while queue.qsize() >= MAX_QUEUED:  # a slow page loses old news, never the newest
                queue.get_nowait()
            if queue in self.phones and self.phones[queue].gone(message):
                # another game: the phone's token is dead, its page closed (not left open on
                # the public feed)
                self.revoke(queue, players.REVOKED_EARLIER_GAME)
                continue
            if queue in self.trusted:
                text = text or json.dumps(message)
                queue.put_nowait(text)
            else:
                without_cards = without_cards or json.dumps(public(message))
                queue.put_nowait(without_cards)
            if queue in self.phones:  # a player's phone: its outcomes, coins arriving
                feed = self.phones[queue]
                given = event.outcome if isinstance(event, StateChanged) else None
                for news in (*feed.given(given), *feed.coins(message)):
                    queue.put_nowait(news)

    async def close(self) -> None:
        """Close every socket now, even one whose reader is stuck."""
        sockets = list(self.clients.values())
        for queue in self.clients:
            queue.put_nowait(None)
        for ws in sockets:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1.0)


def _words(event: BlockOutcome) -> dict[str, Any]:
    return {**texts(headline=event.headline, instruction=event.instruction,
                    description=event.description), "sound_seconds": event.sound_seconds}


def _message(event: Event) -> dict[str, Any] | None:
    if isinstance(event, StateChanged):
        return {"type": "state", "action": event.action, **texts(summary=event.summary),
                "state": event.state.to_json()}
    if isinstance(event, TimerChanged):
        return {"type": "timer", "what": event.what, "source": event.source,
                "timer": event.state.to_json()}
    if isinstance(event, CardTapped):
        return {"type": "activity", "tap": event.entry}
    if isinstance(event, BlockOutcome):
        return {"type": "outcome", "press": event.number, "source": event.source,
                **event.outcome.to_json(), **_words(event)}
    if isinstance(event, StorageChanged):
        return {"type": "storage", **texts(summary=event.summary),
                "storage": event.storage.to_json()}
    return None


async def websocket(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=64 * 1024)
    await ws.prepare(request)
    hub = request.app[HUB]
    queue: asyncio.Queue[Outgoing] = asyncio.Queue()
    hub.clients[queue] = ws
    trusted = has_token(request, request.app[TOKEN], query=True)  # ?token=: browsers
    if trusted:
        hub.trusted.add(queue)
    phone = None if trusted else await players.feed_for(request, _table(request))
    if phone is not None:
        hub.phones[queue] = phone
    sender: asyncio.Future[None] | None = None
    try:
        with contextlib.suppress(Unavailable, ConnectionResetError):  # catch up at once
            state = await _table(request).read(c.GetState())
            hello = {"type": "state", "action": "hello", "summary": "", "state": state.to_json()}
            if phone is not None and phone.gone(hello):  # a new game since its token was read
                hub.revoke(queue, players.REVOKED_EARLIER_GAME)
            elif phone is not None:
                phone.coins(hello)  # what was there: no news
            if queue not in hub.closing:
                await ws.send_json(hello if trusted else public(hello))
        sender = asyncio.ensure_future(_send_all(ws, queue))
        sender.add_done_callback(_sender_done)
        async for msg in ws:  # a page says which held presses it keeps; nothing else
            if msg.type is WSMsgType.ERROR:
                break
            if msg.type is WSMsgType.TEXT and trusted:
                with contextlib.suppress(Refused):
                    hub.keeps(queue, body.parse(msg.data))
    finally:
        if sender is not None:
            sender.cancel()
        hub.clients.pop(queue, None)
        hub.trusted.discard(queue)
        hub.phones.pop(queue, None)
        hub.keeping.pop(queue, None)
        hub.closing.discard(queue)
    return ws


def _sender_done(sender: asyncio.Future[None]) -> None:
    """Take a finished feed's exception: a page gone mid-send is no news (it was logged as
    "Task exception was never retrieved" at ERROR); anything else is a bug to log."""
    if sender.cancelled() or (exc := sender.exception()) is None:
        return
    if isinstance(exc, ConnectionError):  # aiohttp's ClientConnectionResetError too
        log.debug("web: a page's connection went away mid-send: %s", exc)
    else:
        log.error("web: a page's feed failed", exc_info=exc)


async def _send_all(ws: web.WebSocketResponse, queue: asyncio.Queue[Outgoing]) -> None:
    while True:
        try:
            message = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
        except TimeoutError:
            message = PING
        if message is None:
            await ws.close()
            return
        if isinstance(message, str):  # encoded once for every page
            await ws.send_str(message)
        else:
            await ws.send_json(message)


async def get_openapi(request: web.Request) -> web.Response:
    """The API described once (OpenAPI 3.1): made from the moves' declarations and the
    routes' below, when first asked for (not at each boot: about 0.5 MiB, kept)."""
    document = request.app[DOCUMENT]
    if not document:
        document.update(openapi.document(_table(request).actions, ROUTES, __version__))
    return web.json_response(document)


PLAYER_ID = Field("id", ID, "a player of the current game", path=True)
TEAMMATE = Field("teammate", {"oneOf": [ID, {"const": "card"}, {"type": "null"}]},
                 "a battle: the leader's pick (card: the next player card tapped; null: "
                 "nobody else can battle)")
ROUTES = (
    Route("GET", "/healthz", healthz, "200 when every required part is up, 503 naming the "
          "part that is down", answers={200: "Health", 503: "Health"}),
    Route("GET", "/api/openapi.json", get_openapi, "This document.", answers={200: "OpenAPI"}),
    Route("GET", "/api/state", get_state, "The table now: the game, players, outcomes, the "
          "coin log, the turn and what it allows, the timer.", answers={200: "State"}),
    Route("GET", "/api/journal", get_journal, "The whole game (the table token's, streamed), "
          "or a page of moves.", query=tuple(Field(name, ID, doc) for name, doc in (
              ("game", "a game id"), ("before", "a move id"), ("after", "a move id"),
              ("limit", "a number of moves"))), answers={200: "Journal"}),
    Route("POST", "/api/press", post_press, "A press of the block, answered once its outcome "
          "is saved (200) or held (202).", body=(), writes=True,
          answers={200: "Pressed", 202: "Pressed"}),
    Route("POST", "/api/held", post_held, "A page gives back its copies of held presses.",
          body=(Field("presses", {"type": "array", "items": {"type": "object"}},
                      required=True),), writes=True, answers={200: "Given"}),
    Route("GET", "/api/moves/{id}/undo", get_move_undo, "Whether that move can be undone "
          "now, and if not why.", body=(Field("id", ID, path=True),),
          answers={200: "UndoCheck"}),
    Route("GET", "/api/games", get_games, "Every game, newest first.",
          answers={200: "Games"}),
    Route("GET", "/api/games/{game}/export", get_export, "A game's journal as a download "
          "(the table token's).", body=(Field("game", ID, path=True),),
          query=(Field("format", {"enum": ["csv", "json"]}),),
          answers={200: "Export"}, media=("text/csv", "application/json")),
    Route("GET", "/api/board/file", get_board_file, "Gamer, Mario Kart: the described board "
          "as a file to download (the table token's); POST /api/board/file reads one in.",
          answers={200: "Export"}),
    Route("GET", "/api/games/{game}/coins", get_coins, "Every player's coins over a game, "
          "move by move: the start, then after each move that changed them (the end-of-game "
          "chart).", body=(Field("game", ID, path=True),), answers={200: "Coins"}),
    Route("GET", "/api/share", get_share, "The banker's own link (the table token's).",
          answers={200: "Share"}),
    Route("GET", join.PATH, get_join, "The join link (table token) or the players to pick "
          "(join code).", answers={200: "Join"}),
    Route("POST", join.PATH, post_join, "A phone joins as a player, with the join code.",
          body=(Field("player", ID, required=True),), answers={201: "Link"}),
    Route("GET", "/api/editions", get_editions, "Every edition the table can play.",
          answers={200: "Editions"}),
    Route("GET", "/api/setup", get_setup, "What a setup offers.", answers={200: "Setup"}),
    Route("GET", "/api/rules", get_rules, "The current game's ruleset, each number with its "
          "rulebook lines; its flow: who may make each move, and when.",
          answers={200: "Rules"}),
    Route("GET", "/api/languages", get_languages, "The languages the companion speaks.",
          answers={200: "Languages"}),
    Route("GET", "/api/i18n/{code}", get_i18n, "One language's catalog.",
          body=(Field("code", {"type": "string"}, path=True),), answers={200: "Catalog"}),
    Route("POST", "/api/mode", post_mode, "Arm what the next press means.",
          body=(Field("mode", {"type": "string"}, required=True),
                Field("payer", ID, "utility rent: who pays"),
                Field("owner", ID, "utility rent: who owns the utility"),
                Field("utilities", {"type": "integer", "minimum": 1, "maximum": 2},
                      "utility rent: how many the owner has"),
                Field("leader", ID, "a battle: who landed on Bowser"), TEAMMATE),
          writes=True, answers={200: "Mode"}),
    Route("POST", "/api/battle", post_battle, "The Movie: the next two presses are a "
          "battle's dice.", body=(Field("leader", ID, required=True), TEAMMATE),
          writes=True, answers={200: "Mode"}),
    Route("GET", "/api/timer", get_timer, "The lever timer.", answers={200: "Timer"}),
    Route("GET", "/api/activity", get_activity, "The latest card taps.",
          answers={200: "Activity"}),
    Route("POST", "/api/cards", post_cards, "Link a card to a player, or to an action.",
          body=(Field("uid", {"type": "string"}, required=True), Field("player", ID),
                Field("action", {"type": "string"})), writes=True, answers={200: "Card"}),
    Route("POST", "/api/timer/start", post_timer_start, "Start the countdown.",
          body=(Field("seconds", {"type": "number"}),), writes=True,
          answers={200: "Timer"}),
    Route("POST", "/api/timer/stop", post_timer_stop, "Stop the countdown.", body=(),
          writes=True, answers={200: "Timer"}),
    Route("GET", "/api/players/me", get_player_me, "With a player's link: who they are.",
          answers={200: "Me"}),
    Route("GET", "/api/players/me/journal", get_player_journal, "With a player's link: a "
          "page of their own history.", query=tuple(Field(name, ID) for name in SEAT_PARAMS),
          answers={200: "Seat"}),
    Route("POST", players.MISTAKES, post_mistake, "With a player's link: their latest "
          "payment was a mistake.", body=(Field("move", ID, required=True),), writes=True,
          answers={200: "Request", 201: "Request"}),
    Route("POST", "/api/requests/{id}", answer_request, "The banker keeps a payment a "
          "player said was a mistake.", body=(Field("id", ID, path=True),
                                               Field("answer", {"enum": ["keep"]},
                                                     required=True)),
          writes=True, answers={200: "Request"}),
    Route("DELETE", "/api/requests/{id}", answer_request, "The same as keeping it.",
          body=(Field("id", ID, path=True),), writes=True, answers={200: "Request"}),
    Route("POST", "/api/players/{id}/link", post_player_link, "A phone link for a player.",
          body=(PLAYER_ID,), writes=True, answers={201: "Link"}),
    Route("DELETE", "/api/players/{id}/link", delete_player_link, "Turn a player's phone "
          "link off.", body=(PLAYER_ID,), writes=True, answers={200: "Revoked"}),
    Route("GET", "/ws", websocket, described=False),
    Route("GET", "/", index, described=False),
    Route("GET", "/p", player_page, described=False),
    Route("GET", f"/{join.PAGE}", join_page, described=False),
    Route("GET", "/sw.js", service_worker, described=False),
    Route("GET", "/sounds/{name}.wav", get_sound, described=False),
)
"""Every route that is not a move, declared beside its handler (the moves' are made from the
moves' own declarations)."""


def build_app(table: Table, token: str, reader: ReaderSource | None = None, *,
              language: str = "en") -> web.Application:
    """The aiohttp application for one table; ``language`` the table's."""
    app = web.Application(middlewares=[errors_as_json, codings_taken, token_for_writes],
                          client_max_size=MAX_BODY)
    app[TABLE] = table
    app[READER] = reader
    app[TOKEN] = token
    app[LANGUAGE] = language
    app[JOURNAL_READERS] = Buckets(JOURNAL_RATE, JOURNAL_BURST)
    app[HOLDS] = Holds()
    app[WRITES] = WritesFirst()
    join.install(app, token)
    hub = Hub()
    app[HUB] = hub
    unsubscribe = table.subscribe(hub.publish)
    for action in table.actions.routed():  # every move, from its own declaration
        app.router.add_route(action.method, action.path, move_route(action))
    for route in ROUTES:  # the rest, each declared beside its handler
        app.router.add_route(route.method, route.path, route.handler)
    app[DOCUMENT] = {}  # filled by the first GET /api/openapi.json
    app.router.add_static("/static/", STATIC)

    async def on_shutdown(_app: web.Application) -> None:
        app[HOLDS].close()
        await hub.close()
        unsubscribe()

    app.on_shutdown.append(on_shutdown)
    return app
