"""``companion run`` with everything a table turns on (the screen on SDL's dummy driver, the
web page, a card reader on a pty), started in a fresh process: how long until ``/healthz``
answers, and the process's peak memory once it is up. Its bank is a scratch one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

SETTLE_S = 1.0
"""After /healthz answers, how long the daemon runs on (fonts, sounds and QR loaded in the
background count too) before its peak memory is read."""
TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _answered(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=0.5):
            return True
    except urllib.error.HTTPError:  # a 503 (a part missing) is an answer too
        return True
    except OSError:
        return False


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def one_start() -> tuple[float, float]:
    """(ms from spawning ``companion run`` to /healthz's first answer, peak RSS in MiB)."""
    master, slave = os.openpty()
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        port = _free_port()
        config = Path(tmp) / "companion.toml"
        config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                          f'[data]\ndir = "{tmp}"\n[web]\nhost = "127.0.0.1"\nport = {port}\n'
                          '[display]\nenabled = true\nsize = "480x320"\n'
                          f'[reader]\nport = "{os.ttyname(slave)}"\nprotocol = "lines"\n')
        env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        url = f"http://127.0.0.1:{port}/healthz"
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "companion", "run", "--config",
                                 str(config)], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            while not _answered(url):
                if proc.poll() is not None or time.perf_counter() - start > TIMEOUT_S:
                    raise RuntimeError("the companion never answered /healthz")
                time.sleep(0.005)
            took = (time.perf_counter() - start) * 1000
            time.sleep(SETTLE_S)
            rss = _peak_rss_mib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            os.close(master)
            os.close(slave)
    return took, rss


def startup_with_display(runs: int = 5) -> dict[str, Any]:
    """The median start to /healthz and the largest peak memory over ``runs`` starts."""
    starts, peaks = [], []
    for _ in range(runs):
        took, rss = one_start()
        starts.append(took)
        peaks.append(rss)
    starts.sort()
    return {"startup_to_healthz_ms_display": round(starts[len(starts) // 2], 1),
            "daemon_rss_mib_display": max(peaks)}
