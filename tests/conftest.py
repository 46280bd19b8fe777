"""Shared fixtures: real parts brought by the tests (ALSA file sink, mock pins, subprocesses)."""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def alsa_file_home(home: Path, out: Path) -> dict[str, str]:
    """An environment whose ALSA default PCM is the ``file`` plugin writing raw PCM to ``out``."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".asoundrc").write_text(
        f'pcm.!default {{ type file; slave.pcm "null"; file "{out}"; format "raw" }}\n')
    return {**os.environ, "HOME": str(home)}


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


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests on a fresh asyncio loop (no plugin needed)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames
        kwargs = {name: pyfuncitem.funcargs[name] for name in names}
        asyncio.run(pyfuncitem.obj(**kwargs))
        return True
    return None
