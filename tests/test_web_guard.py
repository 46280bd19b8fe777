"""The connection guard (issue 13, part 4) on real sockets: deadlines for clients that send no
request or send it a byte at a time, the connection and WebSocket caps, and a flood of 2000
idle sockets against the real daemon at a 1024 file limit that still serves a new tablet."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import aiohttp
import pytest
from playwright.sync_api import Browser, expect

from companion.web.guard import (
    BACKLOG,
    FD_RESERVE,
    MAX_CONNECTIONS,
    MIN_CONNECTIONS,
    ConnectionGuard,
    _unread,
    cap_for_limit,
)
from companion.web.server import WebServer
from tests.conftest import ROOT, free_port, wait_for_line
from tests.test_web_api import TOKEN, serving


def guard_of(server: WebServer) -> ConnectionGuard:
    assert server.guard is not None
    return server.guard


async def until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait for ``check`` (a hang guard, not a timing claim: generous for a loaded machine)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition never came true"
        await asyncio.sleep(0.02)


async def closed_by_server(reader: asyncio.StreamReader, timeout: float = 60.0) -> bool:
    """Whether the server closes this connection within ``timeout`` (reading what it sends)."""
    try:
        async with asyncio.timeout(timeout):
            while await reader.read(65536):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


async def connect(server: WebServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", server.port)


async def partial_post(server: WebServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A request in progress: headers sent, the body still coming."""
    reader, writer = await connect(server)
    writer.write(f"POST /api/transfers HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                 f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
                 "Content-Length: 60\r\n\r\n".encode() + b'{"from": "bank", ')
    await writer.drain()
    return reader, writer


async def response(reader: asyncio.StreamReader) -> bytes:
    """One HTTP/1.1 response's status line and headers (its body read and dropped)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    await reader.readexactly(length)
    return head


def busy(guard: ConnectionGuard) -> int:
    return sum(1 for c in guard.live.values() if c.busy)


async def healthz(server: WebServer) -> int:
    async with aiohttp.ClientSession() as s, s.get(server.url + "healthz") as reply:
        await reply.read()
        return reply.status


# -- deadlines ---------------------------------------------------------------------------------


async def test_no_request_in_time_is_closed_even_one_trickling_headers(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _):
        guard = guard_of(server)
        guard.first_request_s = 0.5
        silent, _w1 = await connect(server)
        slow, slow_writer = await connect(server)

        async def trickle() -> None:  # slowloris: a header byte every 50 ms, never the end
            with contextlib.suppress(ConnectionError):
                for byte in b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 400:
                    slow_writer.write(bytes([byte]))
                    await slow_writer.drain()
                    await asyncio.sleep(0.05)

        sending = asyncio.ensure_future(trickle())
        started = time.monotonic()
        assert await closed_by_server(silent) and await closed_by_server(slow)
        assert time.monotonic() - started >= 0.4  # not before the deadline
        assert not sending.done()  # it was still sending when it was closed
        sending.cancel()
        assert guard.stats.no_request == 2
        assert await healthz(server) == 200  # a real client is not held to it


async def test_an_idle_keep_alive_connection_is_closed_a_busy_one_is_not(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _):
        guard = guard_of(server)
        guard.keepalive_s = 1.0
        request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
        idle, idle_writer = await connect(server)
        active, active_writer = await connect(server)
        for writer in (idle_writer, active_writer):
            writer.write(request)
        for reader in (idle, active):
            assert (await response(reader)).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        while time.monotonic() - started < 2.5:  # one request every 0.3 s keeps it open
            await asyncio.sleep(0.3)
            active_writer.write(request)
            assert (await response(active)).startswith(b"HTTP/1.1 200")
        assert idle.at_eof() and not active.at_eof()
        assert guard.stats.idle_timeout == 1


async def test_a_request_that_never_finishes_is_closed_after_the_request_timeout(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _):
        guard = guard_of(server)
        guard.request_timeout_s = 0.5
        reader, _writer = await partial_post(server)
        assert await closed_by_server(reader)
        assert guard.stats.request_timeout == 1


# -- the connection cap ------------------------------------------------------------------------


async def test_at_the_cap_the_longest_idle_goes_never_one_mid_request(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _):
        guard = guard_of(server)
        guard.max_connections = 16
        posting, post_writer = await partial_post(server)  # the oldest, but mid-request
        await until(lambda: busy(guard) == 1)
        trickling, trickle_writer = await connect(server)  # older than the idle ones, but
        trickle_writer.write(b"GET /healthz HTTP/1.1\r\n")  # a request on its way
        await until(lambda: any(c.partial for c in guard.live.values()))
        idle = [await connect(server) for _ in range(14)]
        await until(lambda: len(guard.live) == 16)
        tablets = []
        for _ in range(3):  # three new tablets (kept open): each gets in, the longest idle go
            reader, writer = await connect(server)
            writer.write(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n"
                         .encode())
            assert (await response(reader)).startswith(b"HTTP/1.1 200")
            tablets.append((reader, writer))
        assert guard.stats.evicted_idle == 3
        await until(lambda: all(reader.at_eof() for reader, _ in idle[:3]))
        assert not any(reader.at_eof() for reader, _ in idle[5:])  # the younger stay
        assert not posting.at_eof() and not trickling.at_eof() and len(guard.live) <= 16
        post_writer.write(b'"to": 1, "amount": 1}'.ljust(60 - 17))  # the rest of the body
        assert (await response(posting)).startswith(b"HTTP/1.1 201")


async def test_with_nothing_idle_a_slow_request_makes_room_else_it_waits(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _):
        guard = guard_of(server)
        guard.max_connections = 6
        guard.slow_request_s = 60.0
        posts = [await partial_post(server) for _ in range(6)]
        await until(lambda: busy(guard) == 6)
        refused, _w = await connect(server)  # every slot mid-request, none slow yet
        assert await closed_by_server(refused)
        assert guard.stats.refused == 1 and all(not r.at_eof() for r, _ in posts)
        guard.slow_request_s = 0.2  # now they have run long enough to count as slow
        await asyncio.sleep(0.3)
        assert await healthz(server) == 200
        assert guard.stats.evicted_slow == 1
        assert posts[0][0].at_eof() or await closed_by_server(posts[0][0], 1.0)


def test_bytes_not_read_yet_are_seen() -> None:
    """A new tablet's request still in the socket counts as a request on its way."""

    class Transport:  # the one transport method the check uses, over a real socket
        def __init__(self, sock: socket.socket) -> None:
            self.sock = sock

        def get_extra_info(self, name: str) -> socket.socket:
            return self.sock

    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert _unread(Transport(ours)) == 0  # type: ignore[arg-type]
        theirs.send(b"GET / HTTP/1.1\r\n")
        time.sleep(0.05)
        assert _unread(Transport(ours)) == 16  # type: ignore[arg-type]


def test_the_cap_fits_the_file_limit() -> None:
    assert cap_for_limit(1024, 2) == MAX_CONNECTIONS  # systemd's default soft limit, v4 + v6
    assert cap_for_limit(1024, 1) == MAX_CONNECTIONS
    assert cap_for_limit(8192, 2) == MAX_CONNECTIONS
    assert cap_for_limit(700, 1) == 700 - FD_RESERVE - 2 * BACKLOG
    assert cap_for_limit(256, 2) == MIN_CONNECTIONS
    assert cap_for_limit(resource.RLIM_INFINITY, 2) == MAX_CONNECTIONS


def test_the_daemon_raises_its_soft_file_limit_to_the_hard_one() -> None:
    script = ("import resource\nfrom companion.web.guard import raise_nofile_limit\n"
              "print(raise_nofile_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0], "
              "raise_nofile_limit(1500))")
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"the hard file limit here is only {hard}")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=30,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                                                (512, 2048)))
    assert done.stdout.split() == ["2048", "2048", "2048"], done.stderr


def test_the_unit_sets_a_file_limit_with_headroom() -> None:
    unit = (ROOT / "systemd" / "companion.service").read_text()
    limits = [line for line in unit.splitlines() if line.startswith("LimitNOFILE=")]
    assert len(limits) == 1
    value = int(limits[0].split("=", 1)[1])
    assert cap_for_limit(value, 2) == MAX_CONNECTIONS
    assert value >= 4 * (MAX_CONNECTIONS + FD_RESERVE + 2 * 2 * BACKLOG)  # headroom, not a fit


# -- WebSockets --------------------------------------------------------------------------------


async def test_websockets_are_capped_pages_without_the_token_go_first(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        guard = guard_of(server)
        guard.max_websockets = 2
        url = server.url.replace("http", "ws") + "ws"

        async def page(token: bool) -> aiohttp.ClientWebSocketResponse:
            ws = await s.ws_connect(f"{url}?token={TOKEN}" if token else url)
            assert (await ws.receive_json(timeout=5))["action"] == "hello"
            return ws

        async def gone(ws: aiohttp.ClientWebSocketResponse) -> bool:
            with contextlib.suppress(TimeoutError):
                while not ws.closed:
                    message = await ws.receive(timeout=5)
                    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                        aiohttp.WSMsgType.ERROR):
                        return True
            return ws.closed

        stranger_1, stranger_2 = await page(False), await page(False)
        table_1 = await page(True)  # the cap is reached: the oldest stranger makes room
        assert await gone(stranger_1) and not stranger_2.closed
        table_2 = await page(True)
        assert await gone(stranger_2)
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await page(False)  # a stranger never pushes out a page with the token
        assert refused.value.status == 503
        table_3 = await page(True)  # a page with the token replaces the oldest one
        assert await gone(table_1) and not table_2.closed and not table_3.closed
        assert guard.stats.websocket_evicted == 3 and guard.stats.websocket_refused == 1
        assert guard.counts()["websockets"] == 2
        for ws in (table_2, table_3):
            await ws.close()


# -- the flood, against the real daemon ---------------------------------------------------------

FLOOD = 2000
SLOWLORIS = 50
BOUND_S = 1.0
"""The issue's bound for a new tablet under the flood (measured here; the one time bound)."""


@contextlib.contextmanager
def file_limit(wanted: int) -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the flood needs {wanted} open files; the hard limit here is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class Daemon:
    """``companion run`` in a child held to a 1024 open-file limit (soft and hard: it can't
    raise it), its stderr read as it comes."""

    def __init__(self, config: Path) -> None:
        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

        self.proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config",
                                      str(config)], cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, preexec_fn=limit)
        self.lines: list[tuple[float, str]] = []
        ready = wait_for_line(self.proc.stderr, "web: the tablet API is at")
        self.base = ready.split("web: the tablet API is at ")[1].split()[0].removesuffix(
            "api/state")
        self.lines.extend((time.monotonic(), line) for line in ready.splitlines())
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def since(self, start: float) -> list[str]:
        return [line for at, line in self.lines if at >= start]

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=15)
        self.reader.join(timeout=5)
        return code


class Flood:
    """``count`` idle TCP connections (nothing sent) and ``slow`` sending a request's headers
    one byte at a time, from this process: an attacker's script on the LAN."""

    def __init__(self, port: int, count: int, slow: int) -> None:
        self.port = port
        self.idle: list[socket.socket] = []
        self.slow: list[socket.socket] = []
        self.stop = threading.Event()
        self.peak_open_files = 0
        self.sample: Callable[[], int] | None = None
        self._open(count, self.idle)
        self._open(slow, self.slow)
        self.connected = self._wait_connected(self.idle + self.slow)
        self.trickler = threading.Thread(target=self._trickle, daemon=True)
        self.trickler.start()

    def _open(self, count: int, into: list[socket.socket]) -> None:
        for _ in range(count):
            s = socket.socket()
            s.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                s.connect(("127.0.0.1", self.port))
            into.append(s)

    @staticmethod
    def _wait_connected(sockets: list[socket.socket], timeout: float = 20.0) -> int:
        """Until every connect has finished (the kernel retries dropped SYNs)."""
        pending = set(sockets)
        done = 0
        with selectors.DefaultSelector() as sel:
            for s in pending:
                sel.register(s, selectors.EVENT_WRITE)
            deadline = time.monotonic() + timeout
            while pending and time.monotonic() < deadline:
                for key, _ in sel.select(timeout=0.5):
                    s = key.fileobj
                    sel.unregister(s)
                    pending.discard(s)  # type: ignore[arg-type]
                    if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:  # type: ignore[union-attr]
                        done += 1
        return done

    def _trickle(self) -> None:
        header = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nX-Slow: ".encode() + \
            b"a" * 10_000
        at = 0
        while not self.stop.wait(0.2):
            for s in self.slow:
                with contextlib.suppress(OSError):
                    s.send(header[at:at + 1])
            at += 1
            if self.sample is not None:
                with contextlib.suppress(OSError):
                    self.peak_open_files = max(self.peak_open_files, self.sample())

    def close(self) -> None:
        self.stop.set()
        self.trickler.join(timeout=5)
        for s in self.idle + self.slow:
            s.close()


def timed(url: str) -> tuple[float, int, bytes]:
    """A fresh connection's GET: (seconds, status, body)."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=10) as reply:
        body = reply.read()
        return time.perf_counter() - started, reply.status, body


def test_2000_idle_sockets_do_not_lock_out_a_new_tablet(browser: Browser,
                                                        tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                      f'port = {free_port()}\ntoken = "{TOKEN}"\n[reader]\nenabled = false\n'
                      '[game]\nplayers = ["Mario", "Luigi", "Peach"]\n')
    page = browser.new_page()
    with file_limit(FLOOD + SLOWLORIS + 500):
        daemon = Daemon(config)
        try:
            base = daemon.base
            port = int(base.rsplit(":", 1)[1].strip("/"))
            files_before = daemon.open_files()
            started = time.monotonic()
            flood = Flood(port, FLOOD, SLOWLORIS)
            flood.sample = daemon.open_files
            try:
                time.sleep(1.0)  # the daemon has taken them all in; the slow ones trickle on
                health = [timed(base + "healthz") for _ in range(5)]
                assets = [timed(base + path)
                          for path in ("", "static/page/main.js", "static/app.css")]
                loading = time.perf_counter()
                page.goto(base + f"#token={TOKEN}", wait_until="load")
                page_load = time.perf_counter() - loading
                expect(page.locator("#link")).to_have_text("live")
                expect(page.locator(".tile:not(.bank-tile)")).to_have_count(3)
                open_files = daemon.open_files()
                log = daemon.since(started)
            finally:
                flood.close()
            report = {
                "flood_connected": flood.connected,
                "healthz_s": [round(t, 4) for t, _, _ in health],
                "page_assets_s": [round(t, 4) for t, _, _ in assets],
                "chromium_load_s": round(page_load, 4),
                "daemon_open_files": {"before": files_before, "during": open_files,
                                      "peak": flood.peak_open_files},
                "daemon_log_lines": len(log),
                "daemon_log": log,
            }
            print("flood:", json.dumps(report))
            assert flood.connected >= FLOOD  # the flood is real: every socket was let in
            assert all(status == 200 for _, status, _ in health + assets)
            assert b"Question Block" in assets[0][2] and b"WebSocket" in assets[1][2]
            assert max(t for t, _, _ in health) < BOUND_S, report
            assert max(t for t, _, _ in assets) < BOUND_S, report
            assert page_load < BOUND_S, report
            assert max(open_files, flood.peak_open_files) < 1024 - 64, report  # never EMFILE
            assert len(log) < 100, "\n".join(log[-50:])
            assert not [line for line in log if "out of system resource" in line
                        or "Too many open files" in line], log
        finally:
            page.close()
            assert daemon.stop() == 0


def test_a_flood_that_reconnects_as_fast_as_it_is_closed_still_lets_a_tablet_in(
        tmp_path: Path) -> None:
    """2000 sockets reconnected the moment the daemon closes them (thousands a second): every
    new tablet request is answered, typically in milliseconds. (At that rate the kernel's
    listen queue can overflow and drop a SYN, which the client resends after 1 s: the bound
    is on the median here.)"""
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                      f'port = {free_port()}\ntoken = "{TOKEN}"\n[reader]\nenabled = false\n')
    with file_limit(FLOOD + 500):
        daemon = Daemon(config)
        port = int(daemon.base.rsplit(":", 1)[1].strip("/"))
        stop = threading.Event()
        reconnects = 0

        def churn() -> None:
            nonlocal reconnects
            with selectors.DefaultSelector() as sel:
                def connect() -> None:
                    s = socket.socket()
                    s.setblocking(False)
                    with contextlib.suppress(BlockingIOError):
                        s.connect(("127.0.0.1", port))
                    sel.register(s, selectors.EVENT_READ)

                for _ in range(FLOOD):
                    connect()
                while not stop.is_set():
                    for key, _ in sel.select(0.1):
                        s = key.fileobj
                        try:
                            data = s.recv(100)  # type: ignore[union-attr]
                        except OSError:
                            data = b""
                        if not data:
                            sel.unregister(s)
                            s.close()  # type: ignore[union-attr]
                            connect()
                            reconnects += 1
                for key in list(sel.get_map().values()):
                    key.fileobj.close()  # type: ignore[union-attr]

        flooding = threading.Thread(target=churn, daemon=True)
        started = time.monotonic()
        flooding.start()
        try:
            time.sleep(2.0)
            health = sorted(timed(daemon.base + "healthz")[0] for _ in range(9))
            log = daemon.since(started)
        finally:
            stop.set()
            flooding.join(timeout=10)
        print("churn:", json.dumps({"reconnects": reconnects,
                                    "healthz_s": [round(t, 4) for t in health],
                                    "daemon_log_lines": len(log)}))
        assert reconnects > FLOOD  # the daemon kept closing them and they kept coming back
        assert health[len(health) // 2] < BOUND_S
        assert len(log) < 100, "\n".join(log[-50:])
        assert daemon.stop() == 0
