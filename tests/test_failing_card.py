"""A dying SD card (issue 29): nothing acknowledged is lost while one tablet that saw it lives,
and a write the disk failed on is answered as the journal has it.

Real parts: an ext4 file system on a loop device mounted with ``errors=remount-ro``, failed
the way a card fails (``/sys/fs/ext4/<dev>/trigger_fs_error``: emergency read-only, which no
remount undoes while it is mounted), "rebooted" by unmounting, ``e2fsck`` and mounting again;
the real daemon (``companion run`` in a child process, or in this process with mock pins), a
real aiohttp server on 127.0.0.1, SQLite, and Chromium with the banker's page. Mounting needs
root (CI runs the tests as root).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, Page, expect

from companion.bank import Bank
from companion.bank.held import FILE_NAME, HeldFile
from tests.conftest import ROOT, free_port, run_companion
from tests.test_storage import AUTH, SCREENSHOTS, banked, call, running

PAGE_TOKEN = "failing-card-token-0123456789"

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not Path("/sys/fs/ext4").is_dir(),
    reason="a failing ext4 card needs root (loop mounts) and ext4's sysfs error trigger "
           "(CI runs the tests as root)")


class Card:
    """An ext4 "SD card" on a loop device, mounted at ``path``."""

    def __init__(self, image: Path, path: Path) -> None:
        self.image = image
        self.path = path

    def mount(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-o", "loop,errors=remount-ro", str(self.image),
                        str(self.path)], check=True, capture_output=True)

    @property
    def device(self) -> str:
        source = subprocess.run(["findmnt", "-no", "SOURCE", str(self.path)], check=True,
                                capture_output=True, text=True).stdout.strip()
        return Path(source).name

    def fail(self) -> None:
        """The card fails: ext4 goes read-only at once (``errors=remount-ro``)."""
        Path(f"/sys/fs/ext4/{self.device}/trigger_fs_error").write_text("1")

    @property
    def read_only(self) -> bool:
        """Whether it refuses a new file (ext4's emergency read-only is not in statvfs)."""
        try:
            (self.path / "probe").touch()
        except OSError:
            return True
        (self.path / "probe").unlink()
        return False

    def reboot(self) -> None:
        """What a reboot does to it: unmounted, checked and repaired, mounted again."""
        self.unmount()
        subprocess.run(["e2fsck", "-fy", str(self.image)], capture_output=True)
        self.mount()

    def unmount(self) -> None:
        subprocess.run(["umount", str(self.path)], check=True, capture_output=True)


@contextlib.contextmanager
def card(tmp_path: Path) -> Iterator[Card]:
    image = tmp_path / "card.img"
    with open(image, "wb") as f:
        f.truncate(64 * 1024 * 1024)
    subprocess.run(["mkfs.ext4", "-q", str(image)], check=True, capture_output=True)
    sd = Card(image, tmp_path / "sd")
    sd.mount()
    try:
        yield sd
    finally:
        subprocess.run(["umount", "-l", str(sd.path)], check=False, capture_output=True)


# -- a write the disk failed on mid-commit: the answer is what the journal holds ------------------


class CommitThenFail(sqlite3.Connection):
    """A real SQLite connection whose next COMMIT is written and synced, and then reported
    failed: what SQLite answers when the card dies between the WAL's write and its answer
    (``when`` is how the card dies just then)."""

    when: Callable[[], None] | None = None

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        cursor = super().execute(sql, *args)
        dies = CommitThenFail.when
        if sql == "COMMIT" and dies is not None:
            CommitThenFail.when = None
            dies()
            error = sqlite3.OperationalError("disk I/O error")
            error.sqlite_errorname = "SQLITE_IOERR_FSYNC"  # type: ignore[attr-defined]
            raise error
        return cursor


@pytest.fixture
def commit_then_fail(monkeypatch: pytest.MonkeyPatch) -> type[CommitThenFail]:
    connect = sqlite3.connect

    def with_faults(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", CommitThenFail)
        return connect(*args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", with_faults)
    CommitThenFail.when = None
    return CommitThenFail


def moves_with_key(data: Path, key: str) -> int:
    db = sqlite3.connect(f"file:{data / 'bank.sqlite3'}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM moves WHERE request_id = ?",
                              (key,)).fetchone()[0])
    finally:
        db.close()


@needs_root
async def test_a_commit_the_card_failed_on_but_that_was_written_is_answered_saved(
        tmp_path: Path, commit_then_fail: type[CommitThenFail]) -> None:
    with card(tmp_path) as sd:
        async with running(sd.path) as (_app, server), aiohttp.ClientSession() as s:
            _, state, _ = await call(s, server, "GET", "/api/state")
            mario, luigi = (p["id"] for p in state["players"])
            commit_then_fail.when = sd.fail
            key = {"Idempotency-Key": "pay-mario-3"}
            async with s.post(server.url + "api/transfers", headers={**AUTH, **key},
                              json={"from": mario, "to": luigi, "amount": 3}) as resp:
                status, body = resp.status, await resp.json()
            assert sd.read_only
            assert status == 200, body  # it stands: said so, with its move
            assert body["saved"] is True and body["move"]["id"] > 0
            assert "saved just before the disk failed" in body["message"]
            status, _health, _ = await call(s, server, "GET", "/healthz")
            assert status == 503  # and the bank takes no more writes
        sd.reboot()
        assert moves_with_key(sd.path, "pay-mario-3") == 1
        async with running(sd.path) as (_app, server), aiohttp.ClientSession() as s:
            async with s.post(server.url + "api/transfers", headers={**AUTH, **key},
                              json={"from": mario, "to": luigi, "amount": 3}) as resp:
                assert resp.status in (200, 201)  # answered as the first time: a replay
                assert (await resp.json())["amount"] == 3
            _, state, _ = await call(s, server, "GET", "/api/state")
        assert moves_with_key(sd.path, "pay-mario-3") == 1
        balances = {p["id"]: p["balance"] for p in state["players"]}
        assert balances[luigi] - balances[mario] == 6  # paid once


@needs_root
async def test_a_commit_the_card_failed_on_that_was_not_written_is_answered_not_saved(
        tmp_path: Path) -> None:
    """No fault injected: the card really fails as COMMIT starts (SQLite's own trace hook
    fires first), and SQLite's WAL write meets the read-only file system."""
    with card(tmp_path) as sd:
        async with running(sd.path) as (app, server), aiohttp.ClientSession() as s:
            _, state, _ = await call(s, server, "GET", "/api/state")
            mario, luigi = (p["id"] for p in state["players"])
            assert app.bank is not None

            def dies_at_commit(bank: Bank) -> None:
                bank.db.set_trace_callback(lambda sql: sd.fail() if sql == "COMMIT" else None)

            app.bank.run(dies_at_commit)
            async with s.post(server.url + "api/transfers",
                              headers={**AUTH, "Idempotency-Key": "pay-luigi-4"},
                              json={"from": luigi, "to": mario, "amount": 4}) as resp:
                status, body = resp.status, await resp.json()
            assert sd.read_only
            assert status == 503 and body["saved"] is False, body
            assert body["error"].startswith("not saved: the SD card could not be written")
        sd.reboot()
        assert moves_with_key(sd.path, "pay-luigi-4") == 0


@needs_root
async def test_a_commit_on_a_card_that_is_gone_is_answered_not_known_and_a_retry_is_once(
        tmp_path: Path, commit_then_fail: type[CommitThenFail]) -> None:
    with card(tmp_path) as sd:
        async with running(sd.path) as (_app, server), aiohttp.ClientSession() as s:
            _, state, _ = await call(s, server, "GET", "/api/state")
            mario, luigi = (p["id"] for p in state["players"])
            # The card is pulled just then: its files can't be opened to look the write up.
            commit_then_fail.when = lambda: subprocess.run(
                ["umount", "-l", str(sd.path)], check=True, capture_output=True)
            key = {"Idempotency-Key": "pay-mario-2"}
            async with s.post(server.url + "api/transfers", headers={**AUTH, **key},
                              json={"from": mario, "to": luigi, "amount": 2}) as resp:
                status, body = resp.status, await resp.json()
            assert status == 503 and body["saved"] is None, body
            assert "may or may not have been saved" in body["error"]
            assert "same Idempotency-Key" in body["error"]
        sd.mount()  # the card back in (the daemon has let go of the old mount)
        commit_then_fail.when = None
        async with running(sd.path) as (_app, server), aiohttp.ClientSession() as s:
            async with s.post(server.url + "api/transfers", headers={**AUTH, **key},
                              json={"from": mario, "to": luigi, "amount": 2}) as resp:
                assert resp.status in (200, 201)
            _, state, _ = await call(s, server, "GET", "/api/state")
        assert moves_with_key(sd.path, "pay-mario-2") == 1
        balances = {p["id"]: p["balance"] for p in state["players"]}
        assert balances[luigi] - balances[mario] == 4  # paid once, whichever try wrote it


# -- held presses: every tablet keeps a copy, and gives it back ------------------------------------


@contextlib.contextmanager
def companion(config: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``companion run`` in a child, its log in a file (a dying card makes it talkative)."""
    start = log.stat().st_size if log.exists() else 0
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config",
                                 str(config)], cwd=ROOT, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 30
        while b"web: the tablet API is at" not in log.read_bytes()[start:]:
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def table_config(path: Path, data: Path, port: int, token: str, *players: str) -> None:
    """A ``companion run`` config: mock pins, no sound, ``data`` on 127.0.0.1:``port``."""
    names = ", ".join(f'"{name}"' for name in players)
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{data}"\n[web]\nhost = "127.0.0.1"\nport = {port}\n'
                    f'token = "{token}"\n[game]\nplayers = [{names}]\n')


def post(base: str, path: str, body: object = None) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(base + path.lstrip("/"), method="POST",
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {PAGE_TOKEN}",
                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def press(base: str) -> tuple[int, Any]:
    """Press the block from the API once it is quiet (the last press's sound has played)."""
    deadline = time.monotonic() + 15
    while True:
        status, body = post(base, "/api/press")
        if status != 409 or "sounding" not in body["error"]:
            return status, body
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def kept_on(page: Page) -> dict[str, Any]:
    return page.evaluate("JSON.parse(localStorage.getItem('companion-kept') || '{}')")


@needs_root
def test_presses_held_on_a_dying_card_are_kept_by_the_tablet_and_banked_once_after_a_reboot(
        tmp_path: Path, browser: Browser) -> None:
    with card(tmp_path) as sd:
        port = free_port()
        config = tmp_path / "companion.toml"
        table_config(config, sd.path, port, PAGE_TOKEN, "Mario", "Luigi", "Peach")
        base = f"http://127.0.0.1:{port}/"
        log = tmp_path / "companion.log"
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        with companion(config, log) as proc:
            page.goto(f"{base}#token={PAGE_TOKEN}")
            expect(page.locator("#link")).to_have_text("live")
            status, first = press(base)
            assert status == 200 and first["saved"] is True  # a good card first

            sd.fail()
            answers = [press(base) for _ in range(3)]
            assert [status for status, _ in answers] == [202, 202, 202], answers
            for _, held in answers:  # where each one is kept, truthfully
                assert held["saved"] is False and held["press_id"]
                assert held["kept"] == {"memory": True, "file": False, "tablets": 1}, held
                assert "It is kept in the companion's memory, on 1 tablet," in held["message"]
            held_ids = {held["press_id"] for _, held in answers}
            # A payment refused for the card: the page keeps it too, key and all.
            refused = page.evaluate("""() => write('pay', '/api/transfers', {from: 2, to: 1,
                amount: 5}).then(() => 'written', (err) => [err.status, err.saved])""")
            assert refused[0] == 503 and refused[1] in (False, None)
            expect(page.locator("#kept")).to_contain_text(
                "This tablet keeps 3 presses, 1 write not saved yet")
            assert set(kept_on(page)["presses"]) == held_ids
            assert len(kept_on(page)["writes"]) == 1
            page.screenshot(path=str(SCREENSHOTS / "tablet-kept-on-a-dying-card.png"))
            assert not HeldFile.peek(sd.path / FILE_NAME)  # the card took none of them
            proc.send_signal(signal.SIGKILL)  # the Pi loses power: its memory is gone
        expect(page.locator("#link")).not_to_have_text("live")

        sd.reboot()  # fsck, and the card takes writes again
        with companion(config, log):
            expect(page.locator("#kept")).to_be_hidden(timeout=20_000)  # all given back
            expect(page.locator("#toast")).to_contain_text("in the bank")
            assert kept_on(page) == {}
            page.reload()  # and again from a fresh page: nothing twice
            expect(page.locator("#link")).to_have_text("live")
            page.wait_for_timeout(500)
        press_ids = column(sd.path, "SELECT press_id FROM outcomes ORDER BY id")
        assert press_ids == [first_press(sd.path, first), *sorted(held_ids, key=press_ids.index)]
        assert len(set(press_ids)) == 4  # the first, and the three held: each once
        assert column(sd.path, "SELECT kind FROM moves WHERE kind = 'transfer'") == ["transfer"]
        page.close()


def column(data: Path, sql: str) -> list[Any]:
    db = sqlite3.connect(f"file:{data / 'bank.sqlite3'}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute(sql)]
    finally:
        db.close()


def first_press(data: Path, first: dict[str, Any]) -> str:
    return str(column(data, f"SELECT press_id FROM outcomes WHERE id = {first['outcome_id']:d}")[0])


@needs_root
def fill(path: Path) -> None:
    """Write ``path`` until the card has no byte left (smaller writes once big ones fail)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for size in (65536, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"x" * size)
    finally:
        os.close(fd)


def test_held_presses_go_out_as_a_file_and_come_back_in_banked_once(tmp_path: Path) -> None:
    """``companion export --held`` and ``companion give-back``: a card's held presses carried
    to another card (a new one), banked at its next start, once."""
    with card(tmp_path) as sd:
        port = free_port()
        config = tmp_path / "companion.toml"
        table_config(config, sd.path, port, PAGE_TOKEN, "Mario", "Luigi")
        base = f"http://127.0.0.1:{port}/"
        with companion(config, tmp_path / "companion.log") as proc:
            filler = sd.path / "filler"
            # A full card: presses held in the file made while there was room. Filled twice:
            # what the companion's start frees meanwhile (a checkpoint that truncates its
            # write-ahead log, later on a busy machine) is taken too.
            for _ in range(2):
                fill(filler)
                time.sleep(0.5)
            answers = [press(base) for _ in range(2)]
            assert [status for status, _ in answers] == [202, 202]
            assert all(held["kept"]["file"] for _, held in answers)
            proc.send_signal(signal.SIGKILL)
        out = tmp_path / "held.json"
        done = run_companion("export", "--held", "--config", str(config), "--out", str(out))
        assert done.returncode == 0, done.stderr
        carried = json.loads(out.read_text())
        assert {p["id"] for p in carried["held_presses"]} == {h["press_id"] for _, h in answers}

        new = tmp_path / "new-card"  # a new card: a fresh bank, the file given back into it
        config.write_text(config.read_text().replace(str(sd.path), str(new)))
        bad = tmp_path / "bad.json"
        bad.write_text('{"held_presses": [{"id": "x"}]}')
        refused = run_companion("give-back", str(bad), "--config", str(config))
        assert refused.returncode == 2 and "must have exactly" in refused.stderr
        assert not new.exists()  # nothing changed
        for _ in range(2):  # twice: the second adds nothing
            given = run_companion("give-back", str(out), "--config", str(config))
            assert given.returncode == 0, given.stderr
        assert "0 press(es) added" in given.stdout and "(2 already there)" in given.stdout
        with companion(config, tmp_path / "companion.log"):
            deadline = time.monotonic() + 10
            while len(banked(new)) < 2:
                assert time.monotonic() < deadline, banked(new)
                time.sleep(0.2)
        assert sorted(column(new, "SELECT press_id FROM outcomes")) == \
            sorted(h["press_id"] for _, h in answers)
        assert len(banked(new)) == 2  # in the game being played, each once


def test_a_tablet_gives_back_presses_from_a_file_once_and_keeps_a_bad_one_for_the_file(
        tmp_path: Path, browser: Browser) -> None:
    """Another tablet's file (or ``export --held``'s), given back on this page: banked once,
    however often; a press the bank refuses stays on the page, in its file, never retried."""
    from companion.bank.held import HeldPress
    from companion.core.outcomes import Kind, Outcome
    from tests.conftest import BROWSER_TOKEN
    from tests.test_tablet_browser import daemon

    config = tmp_path / "companion.toml"
    table_config(config, tmp_path / "data", free_port(), BROWSER_TOKEN, "Mario", "Luigi")
    press = HeldPress("a1b2c3d4e5f60718293a4b5c6d7e8f90", time.time(),
                      Outcome(Kind.COINS, coins=2, rolls=(1, 2), mode="question_block"),
                      "button", 1, 1, True, {})
    good = tmp_path / "kept.json"
    good.write_text(json.dumps({"kind": "companion-kept", "held_presses": [press.to_json()]}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"held_presses": [{**press.to_json(), "id": "b" * 32,
                                                 "coins": -5}]}))
    with daemon(config) as base:
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(f"{base}#token={BROWSER_TOKEN}")
        expect(page.locator("#link")).to_have_text("live")
        for _ in range(2):  # twice: the second changes nothing
            page.locator("#menu-open").click()  # the menu's Give back presses from a file
            expect(page.locator("#kept-import")).to_be_visible()
            page.set_input_files("#kept-import", str(good))
            expect(page.locator("#menu")).not_to_have_attribute("open", "")
            expect(page.locator(".tile", has_text="Mario").locator(".coins")).to_have_text("32")
            expect(page.locator("#kept")).to_be_hidden()
        page.locator("#menu-open").click()
        page.set_input_files("#kept-import", str(bad))
        expect(page.locator("#kept")).to_contain_text("1 press the bank refused")
        assert list(kept_on(page)["refused"]) == ["b" * 32]
        page.close()
    data = tmp_path / "data"
    assert column(data, "SELECT press_id FROM outcomes") == [press.press_id]
