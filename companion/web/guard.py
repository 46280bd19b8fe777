"""Room for a new tablet however many idle or slow clients hold connections (issue 13).

:class:`ConnectionGuard` sits between asyncio's listening socket and aiohttp: it is the
protocol factory, so it sees every connection from the moment it is accepted, and its
middleware sees every request start and end. It keeps the live connections in a dict ordered
by when each last became idle, and

- closes a connection that has not sent a whole request within :data:`FIRST_REQUEST_S`
  (slowloris: headers a byte at a time count as no request), one idle between requests for
  :data:`KEEPALIVE_S`, and a request still running after :data:`REQUEST_TIMEOUT_S`;
- at :data:`MAX_CONNECTIONS`, makes room for each new connection by closing the one idle the
  longest that has sent nothing of a next request (bytes waiting unread count: that is a new
  tablet's request about to be read); else the oldest with a request only partly sent; else
  a request running :data:`SLOW_REQUEST_S` (a slow client, not a request); never one
  mid-request before that, never one whose request has arrived whole (read, or waiting in
  the socket) but not been taken up yet (a busy loop), and never a WebSocket;
- caps WebSockets at :data:`MAX_WEBSOCKETS`: a new one replaces the oldest page without the
  token first; a page with the token may replace any; one without, never a page with it. A
  player's phone feed (its live link) ranks with the token's pages.

The cap also keeps the process below its file limit, so asyncio's ``accept()`` never meets
EMFILE (whose error it logs every second, and which locks everyone out).
"""

from __future__ import annotations

import array
import asyncio
import fcntl
import logging
import re
import resource
import socket
import termios
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import hdrs, web
from aiohttp.web_protocol import RequestHandler

from companion.i18n.said import as_json, say, say_n

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

FIRST_REQUEST_S = 10.0
"""A browser sends its request at once; 10 s is ample on slow Wi-Fi, short for a squatter."""
KEEPALIVE_S = 30.0
"""An idle keep-alive connection saves a tablet a handshake; after 30 s it just holds a slot."""
SLOW_REQUEST_S = 5.0
"""Every route answers in milliseconds: a request running this long is a slow client (a body
or a response trickling), which may be closed to make room at the cap."""
REQUEST_TIMEOUT_S = 60.0
"""A request (not a WebSocket) still running after a minute is closed even below the cap."""
MAX_CONNECTIONS = 256
"""Far more than a table's few tablets (each browser opens up to 6), far below the file limit."""
MAX_WEBSOCKETS = 32
"""One per open page: a table has a handful; more is someone's script."""
BACKLOG = 128
"""The listen queue, and how many connections asyncio accepts per loop turn (aiohttp's default)."""
FD_RESERVE = 256
"""Descriptors kept for the rest of the daemon (bank, sounds, serial port, screen, pipes)."""
MIN_CONNECTIONS = 32
"""The cap is lowered to fit a small file limit, never below this."""
SWEEP_S = 1.0
"""How often the deadlines are checked (their resolution)."""
REPORT_S = 60.0
"""At most one log line about closed connections per minute."""
NOFILE_CEILING = 65536
"""The daemon raises its soft file limit to the hard one, but not past this."""


def raise_nofile_limit(ceiling: int = NOFILE_CEILING) -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (at most ``ceiling``); the
    soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(ceiling, hard if hard != resource.RLIM_INFINITY else ceiling)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("cannot raise the open-file limit from %d to %d: %s", soft, target, exc)
    return soft


def cap_for_limit(soft_limit: int, listeners: int, wanted: int = MAX_CONNECTIONS) -> int:
    """The connection cap that fits ``soft_limit``: besides the live connections, asyncio may
    hold up to a backlog of just-accepted ones and a backlog of just-closed ones per listening
    socket (closing takes one loop turn), and the daemon needs :data:`FD_RESERVE`."""
    if soft_limit == resource.RLIM_INFINITY or soft_limit <= 0:
        return wanted
    room = soft_limit - FD_RESERVE - 2 * BACKLOG * max(1, listeners)
    return max(MIN_CONNECTIONS, min(wanted, room))


@dataclass(eq=False, slots=True)
class Conn:
    """One accepted connection as the guard sees it."""

    handler: RequestHandler
    opened: float
    transport: asyncio.Transport | None = None
    idle_since: float = 0.0
    requests: int = 0
    busy: int = 0
    busy_since: float = 0.0
    partial: bool = False
    websocket: bool = False
    trusted: bool = False


@dataclass
class Stats:
    """What the guard did (for the log and tests)."""

    accepted: int = 0
    evicted_idle: int = 0
    evicted_partial: int = 0
    evicted_slow: int = 0
    refused: int = 0
    no_request: int = 0
    idle_timeout: int = 0
    request_timeout: int = 0
    websocket_evicted: int = 0
    websocket_refused: int = 0
    cap: int = MAX_CONNECTIONS
    reported: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if isinstance(v, int)}


class _Guarded(asyncio.Protocol):
    """aiohttp's protocol, with the guard told when the connection opens and closes."""

    __slots__ = ("conn", "guard")

    def __init__(self, guard: ConnectionGuard, conn: Conn) -> None:
        self.guard = guard
        self.conn = conn

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.guard._made(self.conn, transport)  # type: ignore[arg-type]
        self.conn.handler.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard._lost(self.conn)
        self.conn.handler.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        conn.handler.data_received(data)
        if not conn.busy:  # no longer a silent connection: part of a request (or all of it)
            conn.partial = not _parsed_whole(conn.handler)

    def eof_received(self) -> bool | None:
        return self.conn.handler.eof_received()

    def pause_writing(self) -> None:
        self.conn.handler.pause_writing()

    def resume_writing(self) -> None:
        self.conn.handler.resume_writing()


class JsonErrors(RequestHandler):
    """aiohttp's request handler, answering what it could not parse (a malformed request line
    or header, a line too long) or a handler's crash as JSON ``{"error": ...}``, like every
    other refusal, and never echoing the bytes it was sent (aiohttp's own answer is plain
    text quoting them)."""

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        super().handle_error(request, status, exc, message)  # logs it; raises if answered
        said = say("something went wrong inside the companion (it is in the log); nothing was "
                   "changed by this request") if status >= 500 else \
            say("the request is not well-formed HTTP; nothing was done")
        response = web.json_response({"error": str(said), "error_said": as_json(said)},
                                     status=status)
        response.force_close()
        return response


class _Refused(asyncio.Protocol):
    """A connection there is no room for: closed at once (nothing is read or answered)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()  # type: ignore[attr-defined]


def _unread(transport: asyncio.Transport) -> int:
    """Bytes waiting in the socket that asyncio has not read yet (Linux FIONREAD)."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return 0
    waiting = array.array("i", [0])
    try:
        fcntl.ioctl(sock.fileno(), termios.FIONREAD, waiting)
    except OSError:
        return 0
    return waiting[0]


def _parsed_whole(handler: RequestHandler) -> bool:
    """aiohttp has parsed a request whose body (if any) has all arrived: it is only waiting
    for the loop to take it up."""
    messages: deque[Any] = getattr(handler, "_messages", deque())
    return any(not hasattr(payload, "is_eof") or payload.is_eof() for _, payload in messages)


_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d{1,12})[ \t]*\r\n", re.IGNORECASE)
PEEK = 16384
"""How much of a request waiting in the socket is looked at (a request's headers fit)."""


def _whole_waiting(transport: asyncio.Transport) -> bool:
    """The bytes waiting in the socket (not read yet) hold a whole request: its headers, and
    its body as long as Content-Length says (a chunked body: its last chunk)."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    try:
        with socket.socket(fileno=fcntl.fcntl(sock.fileno(), fcntl.F_DUPFD_CLOEXEC, 0)) as dup:
            data = dup.recv(PEEK, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:
        return False
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return False
    head = data[:end + 2]
    length = _LENGTH.search(head)
    if length is not None:
        return len(data) >= end + 4 + int(length.group(1))
    if b"chunked" in head.lower():
        return data.endswith(b"0\r\n\r\n")
    return True


def _is_websocket(request: web.Request) -> bool:
    return (request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"
            and "upgrade" in request.headers.get(hdrs.CONNECTION, "").lower())


class ConnectionGuard:
    """The protocol factory and two middlewares for one aiohttp server; see the module."""

    def __init__(self, *, max_connections: int = MAX_CONNECTIONS,
                 max_websockets: int = MAX_WEBSOCKETS,
                 first_request_s: float = FIRST_REQUEST_S, keepalive_s: float = KEEPALIVE_S,
                 slow_request_s: float = SLOW_REQUEST_S,
                 request_timeout_s: float = REQUEST_TIMEOUT_S,
                 trusted: Callable[[web.Request], bool] = lambda _request: False,
                 phone: Callable[[web.Request], Awaitable[object]] | None = None) -> None:
        self.wanted = max_connections
        self.max_connections = max_connections
        self.max_websockets = max_websockets
        self.first_request_s = first_request_s
        self.keepalive_s = keepalive_s
        self.slow_request_s = slow_request_s
        self.request_timeout_s = request_timeout_s
        self.trusted = trusted
        self.phone = phone
        """Whether a WebSocket request carries a player's live phone link (truthy: yes)."""
        self.stats = Stats(cap=max_connections)
        # Ordered by when each connection was accepted or last finished a request: the first
        # idle one is the one idle the longest.
        self.live: dict[RequestHandler, Conn] = {}
        self._server: web.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.TimerHandle | None = None
        self._reported_at = float("-inf")
        self._warned_cap = False

    # -- wiring --------------------------------------------------------------------------------

    def attach(self, server: web.Server) -> None:
        """Serve ``server`` (``runner.server`` after ``setup()``), before any site starts."""
        self._server = server
        self._loop = asyncio.get_running_loop()
        self._sweeper = self._loop.call_later(SWEEP_S, self._sweep)

    def fit(self, listeners: int) -> int:
        """Lower the cap if this process's file limit is too small for it with ``listeners``
        listening sockets; the cap."""
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        self.max_connections = cap_for_limit(soft, listeners, self.wanted)
        self.stats.cap = self.max_connections
        if self.max_connections < self.wanted:
            log.warning("web: the open-file limit (%d) allows %d connections, not %d; raise "
                        "LimitNOFILE", soft, self.max_connections, self.wanted)
        return self.max_connections

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None

    def middlewares(self) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """(``track``: outermost, every request; ``websockets``: after the Host and Origin
        checks, so a refused page can't take a slot)."""
        return self.track, self.websockets

    # -- the protocol factory ------------------------------------------------------------------

    def __call__(self) -> asyncio.Protocol:
        """asyncio calls this for each accepted connection (it must not raise: asyncio would
        leak the socket)."""
        if self._server is None or self._loop is None:  # not attached: serve nobody
            return _Refused()
        if len(self.live) >= self.max_connections and not self._make_room():
            self.stats.refused += 1
            return _Refused()
        server = self._server
        handler = JsonErrors(server, loop=self._loop, **getattr(server, "_kwargs", {}))
        now = self._loop.time()
        conn = Conn(handler, opened=now, idle_since=now)
        self.live[handler] = conn
        self.stats.accepted += 1
        return _Guarded(self, conn)

    def _made(self, conn: Conn, transport: asyncio.Transport) -> None:
        conn.transport = transport

    def _lost(self, conn: Conn) -> None:
        if self.live.get(conn.handler) is conn:
            del self.live[conn.handler]

    # -- making room ---------------------------------------------------------------------------

    def _make_room(self) -> bool:
        """Close one connection for a new one: the one idle the longest that has sent nothing
        of a next request; else the oldest with a request only partly sent (slowloris); else
        the slowest request running :data:`SLOW_REQUEST_S` or more. False: every slot is
        busy."""
        assert self._loop is not None
        if not self._warned_cap:
            self._warned_cap = True
            log.warning("web: %d connections open (the cap); closing the longest idle ones to "
                        "let new ones in", len(self.live))
        now = self._loop.time()
        sending: Conn | None = None
        slowest: Conn | None = None
        for conn in self.live.values():
            if conn.transport is None or conn.websocket:
                continue
            if conn.busy:
                if now - conn.busy_since >= self.slow_request_s and (
                        slowest is None or conn.busy_since < slowest.busy_since):
                    slowest = conn
            elif conn.transport.get_write_buffer_size():
                continue  # its last answer is still being sent
            elif _parsed_whole(conn.handler) or (not conn.partial and _unread(conn.transport)
                                                 and _whole_waiting(conn.transport)):
                continue  # a whole request the busy loop has not taken up yet
            elif conn.partial or _unread(conn.transport):
                # A request on its way (a new tablet's, read in a loop turn or two), or one
                # trickling: not before the silent ones.
                sending = sending or conn
            else:
                self._close(conn)
                self.stats.evicted_idle += 1
                return True
        if sending is not None:
            self._close(sending)
            self.stats.evicted_partial += 1
            return True
        if slowest is not None:
            self._close(slowest, abort=True)
            self.stats.evicted_slow += 1
            return True
        return False

    def _close(self, conn: Conn, *, abort: bool = False) -> None:
        """Close now; forgotten at once (its slot is free before asyncio's close turn)."""
        self._lost(conn)
        if abort and conn.transport is not None:
            conn.transport.abort()
        else:
            conn.handler.force_close()

    # -- deadlines -----------------------------------------------------------------------------

    def _sweep(self) -> None:
        assert self._loop is not None
        self._sweeper = self._loop.call_later(SWEEP_S, self._sweep)
        now = self._loop.time()
        for conn in list(self.live.values()):
            if conn.websocket:
                continue  # aiohttp's heartbeat finds dead pages
            if conn.transport is None:
                if now - conn.opened >= self.first_request_s:
                    self._lost(conn)  # asyncio never made its transport
                continue
            if conn.busy:
                if now - conn.busy_since >= self.request_timeout_s:
                    self._close(conn, abort=True)
                    self.stats.request_timeout += 1
            elif conn.requests == 0:
                if now - conn.opened >= self.first_request_s:
                    self._close(conn)
                    self.stats.no_request += 1
            elif now - conn.idle_since >= self.keepalive_s:
                self._close(conn)
                self.stats.idle_timeout += 1
        self._report(now)

    def _report(self, now: float) -> None:
        if now - self._reported_at < REPORT_S:
            return
        counts = self.stats.counts()
        closed = {k: v - self.stats.reported.get(k, 0) for k, v in counts.items()
                  if k not in ("accepted", "cap")}
        if any(v for v in closed.values() if v):
            self._reported_at = now
            self.stats.reported = counts
            log.warning("web: closed to keep room: %s (%d open, cap %d)",
                        ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in closed.items() if v),
                        len(self.live), self.max_connections)

    # -- middlewares ---------------------------------------------------------------------------

    @web.middleware
    async def track(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Marks the connection busy while its request runs."""
        conn = self.live.get(request.protocol)
        if conn is None or self._loop is None:
            return await handler(request)
        conn.requests += 1
        conn.partial = False
        conn.busy += 1
        conn.busy_since = self._loop.time()
        try:
            return await handler(request)
        finally:
            conn.busy -= 1
            if not conn.busy and self.live.get(conn.handler) is conn:
                conn.idle_since = self._loop.time()
                self.live[conn.handler] = self.live.pop(conn.handler)  # idle the shortest

    @web.middleware
    async def websockets(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """At most :data:`MAX_WEBSOCKETS` pages; makes room or refuses with 503."""
        if not _is_websocket(request):
            return await handler(request)
        conn = self.live.get(request.protocol)
        trusted = self.trusted(request) or (
            self.phone is not None and "token" in request.query and bool(await self.phone(request)))
        if not self._websocket_room(trusted):
            self.stats.websocket_refused += 1
            said = say_n("{n} page is already connected; close it, or open the link with the "
                         "table token",
                         "{n} pages are already connected; close one, or open the link with "
                         "the table token", self.max_websockets)
            return web.json_response({"error": str(said), "error_said": as_json(said)},
                                     status=503)
        if conn is not None:
            conn.websocket, conn.trusted = True, trusted
        try:
            return await handler(request)
        finally:
            if conn is not None:
                conn.websocket = False

    def _websocket_room(self, trusted: bool) -> bool:
        pages = [c for c in self.live.values() if c.websocket]
        if len(pages) < self.max_websockets:
            return True
        victim = next((c for c in pages if not c.trusted), None)
        if victim is None and trusted:
            victim = pages[0]
        if victim is None:
            return False
        self.stats.websocket_evicted += 1
        self._close(victim, abort=True)
        return True

    # -- looking in ----------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Open connections, WebSockets among them, and the cap."""
        return {"open": len(self.live), "websockets": sum(c.websocket for c in self.live.values()),
                "cap": self.max_connections}


class GuardedSite(web.BaseSite):
    """``web.TCPSite``, with the guard as the protocol factory and :data:`BACKLOG`."""

    __slots__ = ("_guard", "_host", "_port")

    def __init__(self, runner: web.BaseRunner, guard: ConnectionGuard,
                 host: str | list[str] | None, port: int) -> None:
        super().__init__(runner, backlog=BACKLOG)
        self._guard = guard
        self._host = host
        self._port = port

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._guard, self._host, self._port,
                                                backlog=self._backlog)

    @property
    def port(self) -> int:
        """The bound port (the asked one before ``start()``)."""
        if self._server is not None and self._server.sockets:
            return int(self._server.sockets[0].getsockname()[1])
        return self._port

