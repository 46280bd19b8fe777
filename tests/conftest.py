"""Shared fixtures: real parts brought by the tests (ALSA file sink, mock pins, subprocesses)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import IO, Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, driven by Playwright (never ``playwright install``)."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
BROWSER_TOKEN = "browser-test-token-0123456789"


def _keep_tmp_paths_on_disk() -> None:
    """tmp_path on a disk, not a RAM disk: Debian 13 mounts /tmp as tmpfs, where ``companion
    doctor`` rightly fails a data folder (the bank would be lost at reboot). /var/tmp stays on
    the disk; an explicit PYTEST_DEBUG_TEMPROOT (pytest's own setting) wins."""
    import tempfile

    from companion.machine import volatile

    if "PYTEST_DEBUG_TEMPROOT" not in os.environ and volatile(Path(tempfile.gettempdir())) \
            and Path("/var/tmp").is_dir() and not volatile(Path("/var/tmp")):
        os.environ["PYTEST_DEBUG_TEMPROOT"] = "/var/tmp"


_keep_tmp_paths_on_disk()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A Celebration table of three (Mario, Luigi, Peach) on a free port, with the browser
    tests' token, for ``companion run`` (a module may define its own)."""
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                    f'port = {free_port()}\ntoken = "{BROWSER_TOKEN}"\n'
                    '[game]\nplayers = ["Mario", "Luigi", "Peach"]\n')
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for one module (put a module's async tests before its browser tests:
    sync Playwright holds an event loop while it runs)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class StepClock:
    """A fake clock that moves ``step`` seconds every time it is read."""

    def __init__(self, start: float, step: float) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def read_until_closed(fd: int, into: bytearray) -> None:
    """Append what ``fd`` gives until it ends (EOF, or EIO once its other end is closed)."""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        into.extend(chunk)


def alsa_file_home(home: Path, out: Path) -> dict[str, str]:
    """An environment whose ALSA default PCM is the ``file`` plugin writing raw PCM to ``out``."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".asoundrc").write_text(
        f'pcm.!default {{ type file; slave.pcm "null"; file "{out}"; format "raw" }}\n')
    return {**os.environ, "HOME": str(home)}


@pytest.fixture(autouse=True)
def private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep every test's bank (and anything under XDG_DATA_HOME) out of the real home."""
    home = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    return home


@pytest.fixture
def alsa_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """(environment, capture file) for a child process that plays through real ALSA."""
    out = tmp_path / "captured.raw"
    return alsa_file_home(tmp_path / "home", out), out


def run_companion(*args: str, env: dict[str, str] | None = None, stdin: str = "",
                  timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the ``companion`` CLI in a child process, as a user would."""
    return subprocess.run([sys.executable, "-m", "companion", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@contextlib.contextmanager
def spawn_companion(*args: str, env: dict[str, str] | None = None,
                    stdin: int = subprocess.PIPE) -> Iterator[subprocess.Popen[str]]:
    """A long-running ``companion`` child that is always killed when the test ends."""
    proc = subprocess.Popen([sys.executable, "-m", "companion", *args], cwd=ROOT, env=env,
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)


def wait_for_line(stream: IO[str] | None, text: str, timeout: float = 30) -> str:
    """Read ``stream`` until a line containing ``text`` (AssertionError after ``timeout``)."""
    assert stream is not None
    deadline = time.monotonic() + timeout
    seen = ""
    # readline() in a helper thread: select() can't see lines already in Python's buffer.
    reader = ThreadPoolExecutor(max_workers=1)
    try:
        while True:
            try:
                line = reader.submit(stream.readline).result(
                    timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeout:
                break
            seen += line
            if text in line:
                return seen
            if not line:
                break
    finally:
        reader.shutdown(wait=False)
    raise AssertionError(f"never saw {text!r}; got:\n{seen}")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests on a fresh asyncio loop (no plugin needed)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames
        kwargs = {name: pyfuncitem.funcargs[name] for name in names}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None
