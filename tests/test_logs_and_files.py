"""Issue 29 item 7, logs and files: no card UID in the log and a bounded number of tap lines,
an aborted WebSocket logs nothing, the data folder and the bank's files are the user's alone,
the WAL stays bounded on a small card, and a bank locked by another program at start leaves the
web answering."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp
import pytest
from gpiozero.pins.mock import MockFactory

from companion.bank import DB_NAME, Bank
from companion.bank.held import FILE_NAME
from companion.bank.store import BUSY_TIMEOUT_S
from companion.config import AudioConfig, Config, DataConfig, GameConfig, WebConfig
from companion.daemon import Daemon
from companion.frontends import from_config
from companion.logs import PER_WINDOW, WINDOW_S
from companion.web.server import WebFrontend
from tests.conftest import ROOT, spawn_companion, wait_for_line
from tests.reader_emulators import Pty
from tests.test_storage import call, needs_root, running, tmpfs

TAPS = 20_000
PAGES = 80
SMALL_CARD_TRANSFERS = 300


def _reader_config(tmp_path: Path, port: str) -> Path:
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      f'[reader]\nenabled = true\nport = "{port}"\nprotocol = "lines"\n'
                      'tap_gap_ms = 200\n')
    return config


def _get(url: str, token: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
        return json.loads(r.read())


def test_a_reader_spewing_distinct_cards_logs_no_uid_and_few_lines(tmp_path: Path) -> None:
    pty = Pty()
    try:
        with spawn_companion("run", "--config", str(_reader_config(tmp_path, pty.device)),
                             env=dict(os.environ)) as proc:
            assert proc.stderr is not None
            seen = wait_for_line(proc.stderr, "web: the tablet API is at")
            api = seen.rsplit(" at ", 1)[1].split()[0].rstrip("/").removesuffix("/api/state")
            token = (tmp_path / "table-token").read_text().strip()
            rest: list[str] = []  # read all along: a full pipe would stall the daemon
            drain = threading.Thread(target=lambda: rest.extend(proc.stderr or ()), daemon=True)
            drain.start()
            uids = [f"C0DE{i:06X}" for i in range(1, TAPS + 1)]
            end = time.monotonic() + 120
            while not _get(api + "/api/activity", token)["reader"]["connected"]:
                assert time.monotonic() < end, "the reader never opened the pty"
                time.sleep(0.05)  # pyserial drops what came before
            for start in range(0, TAPS, 1000):  # a pty drops what its reader has no room for
                pty.write("".join(u + "\n" for u in uids[start:start + 1000]).encode())
                while (reader := _get(api + "/api/activity", token)["reader"])["taps"] \
                        < start + 999:  # the last line is taken with the next one
                    assert time.monotonic() < end, json.dumps(reader)
                    time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
            drain.join(10)
    finally:
        pty.close()
    log = seen + "".join(rest)
    named = set(re.findall(r"C0DE[0-9A-F]{6}", log))
    assert not named, sorted(named)[:5]
    lines = log.splitlines()
    # The first few tap lines and one line per window saying how many were left out.
    assert len(lines) < 200, "\n".join(lines[:40])
    assert any("suppress" in line and "companion.readers" in line for line in lines), log[-3000:]
    assert re.search(r"tap of card#[0-9a-f]{6}", log), log[-3000:]


# -- floods a stranger (or a phone) can cause: a few lines, then one summary a window --------


FLOOD = 300
"""Requests of each kind in the flood below."""
LINE_BYTES = 300
"""The longest line any of those floods writes (time, level, logger, message), with room."""


def _send(url: str, token: str, body: object = None, method: str = "POST") -> int:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as err:
        err.read()
        return err.code


def test_floods_of_refused_phone_and_join_writes_and_timer_commands_log_few_bytes(
        tmp_path: Path) -> None:
    """The real daemon and its log handler (issue 43, item 8): a phone paying from another's
    coins, a write with the table's join code, wrong join codes, and timer start/stop,
    each 300 times: the log grows by a few lines of each kind and a summary per window,
    not a line a request."""
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[reader]\nenabled = false\n[display]\nenabled = false\n'
                      '[game]\nplayers = ["Mario", "Luigi"]\n')
    with spawn_companion("run", "--config", str(config), env=dict(os.environ)) as proc:
        assert proc.stderr is not None
        seen = wait_for_line(proc.stderr, "web: the tablet API is at")
        api = seen.rsplit(" at ", 1)[1].split()[0].rstrip("/").removesuffix("/api/state")
        token = (tmp_path / "table-token").read_text().strip()
        rest: list[str] = []  # read all along: a full pipe would stall the daemon
        drain = threading.Thread(target=lambda: rest.extend(proc.stderr or ()), daemon=True)
        drain.start()
        mario, luigi = (p["id"] for p in _get(api + "/api/state")["players"])
        phone = json.loads(urllib.request.urlopen(urllib.request.Request(
            f"{api}/api/players/{luigi}/link", data=b"", method="POST",
            headers={"Authorization": f"Bearer {token}"}), timeout=10).read())["token"]
        code = _get(api + "/api/join", token)["url"].rsplit("=", 1)[1]
        began = time.monotonic()
        statuses: dict[str, set[int]] = {}
        for _ in range(FLOOD):
            for kind, status in (
                    ("phone", _send(api + "/api/transfers", phone,
                                    {"from": mario, "to": luigi, "amount": 1})),
                    ("phone route", _send(api + "/api/next", phone, {})),
                    ("join code", _send(api + "/api/transfers", code,
                                        {"from": mario, "to": luigi, "amount": 1})),
                    ("wrong code", _send(api + "/api/join", "W" * 24, {"player": mario})),
                    ("start", _send(api + "/api/timer/start", token, {"seconds": 30})),
                    ("stop", _send(api + "/api/timer/stop", token, {}))):
                statuses.setdefault(kind, set()).add(status)
        windows = int((time.monotonic() - began) // WINDOW_S) + 2  # each one begun
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        drain.join(10)
    assert statuses == {"phone": {403}, "phone route": {403}, "join code": {403},
                        "wrong code": {401, 429}, "start": {200}, "stop": {200}}, statuses
    log = "".join(rest)
    size = len(log.encode())
    print(f"log bytes after {FLOOD} of each of 6 floods: {size}")
    lines = log.splitlines()
    for text in ("phone was refused a payment", "phone was refused POST /api/next",
                 "a join code was refused POST", "a join code was refused: not this table",
                 "timer started", "timer stopped"):
        assert 0 < sum(text in line for line in lines) <= PER_WINDOW * windows, (text, log)
    assert any("suppressing more messages like this" in line for line in lines), log
    kinds = 6 + 1  # and the daemon's own lines, starting and stopping
    limit = kinds * (PER_WINDOW + 2) * windows * LINE_BYTES
    assert size <= limit, log[-3000:]


# -- an aborted WebSocket -----------------------------------------------------------------


async def test_websockets_aborted_mid_stream_log_no_error(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app = Daemon(Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                        web=WebConfig(host="127.0.0.1", port=0),
                        game=GameConfig(players=("Mario", "Luigi"))),
                 pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(app.config)))
    await app.ready.wait()
    server = next(f for f in app.frontends if isinstance(f, WebFrontend)).server
    assert server is not None
    base, auth = server.url.rstrip("/"), {"Authorization": f"Bearer {server.token}"}
    caplog.set_level(logging.DEBUG)
    async with aiohttp.ClientSession() as session:
        async with session.get(base + "/api/state") as r:
            mario, luigi = [p["id"] for p in (await r.json())["players"]]

        async def transfers() -> None:
            for i in range(PAGES):
                async with session.post(base + "/api/transfers", headers=auth, json={
                        "from": mario if i % 2 else luigi, "to": luigi if i % 2 else mario,
                        "amount": 1}) as r:
                    assert r.status == 201

        async def pages() -> None:
            for _ in range(PAGES):  # a tablet dropping off the Wi-Fi while news streams in
                ws = await session.ws_connect(base + "/ws")
                await ws.receive()  # the hello
                connection = ws._response.connection
                assert connection is not None and connection.transport is not None
                connection.transport.abort()

        await asyncio.gather(transfers(), pages())
    for _ in range(3):
        await asyncio.sleep(0.2)
        gc.collect()  # an exception never retrieved is reported when its task is collected
    app.request_stop()
    await runner
    gc.collect()
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR
           or "never retrieved" in r.getMessage()]
    assert not bad, [r.getMessage() for r in bad]


# -- the WAL on a small card ----------------------------------------------------------------


@needs_root
async def test_many_transfers_on_a_small_card_keep_the_wal_small(tmp_path: Path) -> None:
    from companion.bank.store import WAL_LIMIT_BYTES

    with tmpfs(tmp_path / "card", size="2m") as data:
        async with running(data) as (_, server), aiohttp.ClientSession() as session:
            _, state, _ = await call(session, server, "GET", "/api/state")
            mario, luigi = (p["id"] for p in state["players"])
            wal = data / "bank.sqlite3-wal"
            largest = 0
            for i in range(SMALL_CARD_TRANSFERS):
                status, body, _ = await call(session, server, "POST", "/api/transfers", {
                    "from": mario if i % 2 else luigi, "to": luigi if i % 2 else mario,
                    "amount": 1, "note": f"rent {i}"})
                assert status == 201, (i, body, shutil.disk_usage(data))
                largest = max(largest, wal.stat().st_size)
        assert largest <= WAL_LIMIT_BYTES, largest
        assert not wal.exists()  # the last connection's checkpoint removes it


# -- file modes -----------------------------------------------------------------------------


def _umask_022() -> None:
    os.umask(0o022)  # a desktop session's, or a shell's


@pytest.mark.parametrize("command", ["run", "demo"])
def test_the_data_folder_and_the_banks_files_are_the_users_alone(
        tmp_path: Path, command: str) -> None:
    data = tmp_path / "new" / "data"
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{data}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[reader]\nenabled = false\n[display]\nenabled = false\n')
    args = ["run", "--config", str(config)] if command == "run" else \
        ["demo", "--config", str(config), "--audio", "null", "--display", "off"]
    proc = subprocess.Popen([sys.executable, "-m", "companion", *args], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_umask_022)
    try:
        if command == "run":
            wait_for_line(proc.stderr, "web: the tablet API is at")
        else:
            wait_for_line(proc.stdout, "tablet on this computer")
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in data.iterdir()}
        folder = stat.S_IMODE(data.stat().st_mode)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert folder == 0o700
    for name in ("bank.sqlite3", "bank.sqlite3-wal", "bank.sqlite3-shm", FILE_NAME,
                 "table-token"):
        assert modes.pop(name) == 0o600, (name, oct(modes.get(name, 0)))
    assert all(mode & 0o077 == 0 for mode in modes.values()), modes


def test_a_data_folder_left_open_to_others_is_closed_up_at_start(tmp_path: Path) -> None:
    """An existing 0755 folder (made by hand, or by an older companion under umask 022) is
    made 0700 before the companion writes into it (issue 43, item 10)."""
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o755)
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{data}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[reader]\nenabled = false\n[display]\nenabled = false\n')
    with spawn_companion("run", "--config", str(config), env=dict(os.environ)) as proc:
        seen = wait_for_line(proc.stderr, "web: the tablet API is at")
        folder = stat.S_IMODE(data.stat().st_mode)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert folder == 0o700
    assert f"the data folder {data} was open to other users (755): made it 0700" in seen


@needs_root
def test_an_open_data_folder_not_ours_to_close_is_refused_saying_why(tmp_path: Path) -> None:
    """Root runs the companion on a folder owned by another user and open to all: it won't
    start (exit 2), saying why, and the folder is left as it was."""
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o755)
    os.chown(data, 65534, 65534)  # nobody's
    tmp_path.chmod(0o755)
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{data}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[reader]\nenabled = false\n[display]\nenabled = false\n')
    done = subprocess.run([sys.executable, "-m", "companion", "run", "--config", str(config)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert (f"companion: the data folder {data} is open to other users (755) and is not this "
            "user's to close up: chmod 700 it") in done.stderr
    assert stat.S_IMODE(data.stat().st_mode) == 0o755
    assert list(data.iterdir()) == []


# -- a bank locked by another program at start ------------------------------------------------


def _health(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_a_bank_locked_at_start_leaves_the_web_answering(tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                      '[reader]\nenabled = false\n[game]\nplayers = ["Mario", "Luigi"]\n')
    Bank(tmp_path / DB_NAME).close()  # last night's bank
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program writing, for as long as it likes
    locked = True
    try:
        with spawn_companion("run", "--config", str(config), env=dict(os.environ)) as proc:
            seen = wait_for_line(proc.stderr, "web: the tablet API is at",
                                 timeout=BUSY_TIMEOUT_S * 3)
            # The web came up while the start-up open still waited for the lock (SQLite's
            # busy timeout had not run out: the writer thread had not given up).
            assert "recovering failed" not in seen, seen
            base = seen.rsplit(" at ", 1)[1].split()[0].removesuffix("/api/state")
            status, health = _health(base + "/healthz")
            assert status == 503, health
            assert "the bank file is locked by another program" in json.dumps(health), health
            token = (tmp_path / "table-token").read_text().strip()
            press = urllib.request.Request(base + "/api/press", data=b"{}", method="POST",
                                           headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(press, timeout=10) as r:
                assert r.status == 202  # sounded, and held while the bank waits
            other.execute("ROLLBACK")
            locked = False
            while (got := _health(base + "/healthz"))[0] != 200:
                assert proc.poll() is None, got
                time.sleep(0.2)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) == 0
    finally:
        if locked:
            other.execute("ROLLBACK")
        other.close()
    bank = Bank(tmp_path / DB_NAME, readonly=True)
    try:
        assert len(bank.outcomes()) == 1  # the press held meanwhile is banked
    finally:
        bank.close()
