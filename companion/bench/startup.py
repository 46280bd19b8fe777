"""``companion run`` with everything a table turns on (the screen on SDL's dummy driver, the
web page, a card reader on a pty, the block's button on a mock pin), started in a fresh process:
how long until ``/healthz`` answers, the process's peak memory once it is up, and again once a
game was made through the API (as the banker's tablet makes one). Its bank is a scratch one."""

from __future__ import annotations

import json
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
GAME_SETTLE_S = 0.5
"""After the game is made (the answer comes once it is written), how long before the peak is
read again: the screen and the pages draw the new game meanwhile."""
TIMEOUT_S = 30.0
TOKEN = "bench-table-token-0123456789abcdef"
GAME = {"edition": "celebration", "players": ["Ann", "Ben", "Cleo", "Dev"]}
"""The game the banker makes after the start: four players, names typed."""


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


FLOOR = """
import asyncio, sqlite3, sys
import pygame, serial
from aiohttp import web
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

async def main():
    pygame.display.init()
    pygame.display.set_mode((480, 320))
    port = serial.Serial(sys.argv[2], 9600, timeout=0)
    block = Button(17, pin_factory=MockFactory())
    db = sqlite3.connect(sys.argv[3], isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS players (game INTEGER, seat INTEGER, name TEXT)")

    async def new_game(request):
        import icu  # the names checked as ours are: NFC, grapheme clusters, UTS #39 skeletons

        body = await request.json()
        names = [icu.Normalizer2.getNFCInstance().normalize(n.strip()) for n in body["players"]]
        clusters = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())
        for name in names:
            clusters.setText(icu.UnicodeString(name))
            assert 0 < sum(1 for _ in clusters) <= 24
        skeletons = [icu.SpoofChecker().getSkeleton(0, name) for name in names]
        assert len(set(skeletons)) == len(names)
        with db:
            game = db.execute("SELECT coalesce(max(game), 0) + 1 FROM players").fetchone()[0]
            db.executemany("INSERT INTO players VALUES (?, ?, ?)",
                           [(game, seat, name) for seat, name in enumerate(names)])
        return web.json_response({"game": game, "players": names}, status=201)

    app = web.Application()
    app.router.add_get("/healthz", lambda request: web.json_response({"ok": True}))
    app.router.add_post("/api/games", new_game)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", int(sys.argv[1])).start()
    await asyncio.Event().wait()

asyncio.run(main())
"""
"""The floor: the bare libraries doing the same job in a fresh interpreter (pygame's screen
open on the same driver and size, the reader's serial port open, a gpiozero ``Button`` on a
mock pin for the block, an SQLite file open in WAL, an aiohttp server answering /healthz and
making a game: the names checked with PyICU, loaded then as ours is, and the players' rows
written in one transaction), started the same way and timed the same way."""


def _make_game(url: str) -> None:
    request = urllib.request.Request(url, data=json.dumps(GAME).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {TOKEN}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
        if reply.status >= 300:
            raise RuntimeError(f"making a game answered {reply.status}")


def one_start(scratch: Path, *, floor: bool = False) -> tuple[float, float, float]:
    """(ms from spawning ``companion run``, or the floor, to /healthz's first answer, peak RSS
    in MiB once up, peak RSS in MiB once a game was made). ``scratch`` keeps the bank (a restart
    finds its game, as a Pi does at boot) and the bytecode (as pip leaves it compiled in the
    service's venv) from one start to the next."""
    data = scratch / "data"
    data.mkdir(exist_ok=True)
    port = _free_port()
    master, slave = os.openpty()
    config = scratch / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{data}"\n[web]\nhost = "127.0.0.1"\nport = {port}\n'
                      f'token = "{TOKEN}"\n'
                      '[display]\nenabled = true\nsize = "480x320"\n'
                      f'[reader]\nport = "{os.ttyname(slave)}"\nprotocol = "lines"\n')
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "PYTHONPYCACHEPREFIX": str(scratch / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    args = ["-c", FLOOR, str(port), os.ttyname(slave), str(data / "floor.db")] if floor else \
        ["-m", "companion", "run", "--config", str(config)]
    url = f"http://127.0.0.1:{port}/healthz"
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        while not _answered(url):
            if proc.poll() is not None or time.perf_counter() - start > TIMEOUT_S:
                raise RuntimeError("the companion never answered /healthz")
            time.sleep(0.002)
        took = (time.perf_counter() - start) * 1000
        time.sleep(SETTLE_S)
        rss = _peak_rss_mib(proc.pid)
        _make_game(f"http://127.0.0.1:{port}/api/games")
        time.sleep(GAME_SETTLE_S)
        rss_game = _peak_rss_mib(proc.pid)
    finally:
        if floor:
            proc.kill()  # SDL turns SIGTERM into a quit event nobody reads here
        else:
            proc.terminate()
        proc.wait(timeout=10)
        os.close(master)
        os.close(slave)
    return took, rss, rss_game


def startup_with_display(runs: int = 7) -> dict[str, Any]:
    """The median start to /healthz and the largest peak memory (once up, and once a game was
    made) over ``runs`` starts, each followed by a start of the floor (interleaved), and the
    ratios (memory: MiB over the floor)."""
    figures: dict[bool, tuple[list[float], list[float], list[float]]] = {
        False: ([], [], []), True: ([], [], [])}
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as folder:
        scratch = Path(folder)
        one_start(scratch)  # compiles the bytecode and starts the game: neither is timed
        one_start(scratch, floor=True)
        for _ in range(runs):
            for floor, kept in figures.items():
                for into, value in zip(kept, one_start(scratch, floor=floor), strict=True):
                    into.append(value)
    (ours, peaks, game_peaks), (floors, floor_peaks, floor_game_peaks) = \
        figures[False], figures[True]
    median = {name: sorted(v)[len(v) // 2] for name, v in (("ours", ours), ("floor", floors))}
    return {"startup_to_healthz_ms_display": round(median["ours"], 1),
            "startup_to_healthz_floor_ms_display": round(median["floor"], 1),
            "startup_to_healthz_ratio_display": round(median["ours"] / median["floor"], 2),
            "daemon_rss_mib_display": max(peaks),
            "daemon_rss_floor_mib_display": max(floor_peaks),
            "daemon_rss_mib_after_game": max(game_peaks),
            "daemon_rss_floor_mib_after_game": max(floor_game_peaks),
            "daemon_rss_over_floor_mib_after_game": round(max(game_peaks)
                                                          - max(floor_game_peaks), 1)}
