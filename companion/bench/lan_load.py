"""Banker writes under LAN load, for ``companion bench`` (issue 29): the same daemon and web
server, its writes timed alone and, interleaved round for round, with 4 readers without the
token hammering the journal of a 2,000-move game (and with 4 tablets with it reading it
whole), or with 32 live pages while the banker writes 50 times a second. The load comes from
a child process, so its own work is not on the daemon's loop."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

from companion.bench.stats import percentile

TOKEN = "bench-token-0123456789abcdef"
MOVES = 2000

READERS = """
import collections, json, sys, threading, time, urllib.request, urllib.error
url, token, n, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
headers = {"Authorization": "Bearer " + token} if token else {}
paths = ["api/journal", "api/journal?limit=500"]
answers = collections.Counter()
def read(i):
    k, due = i, time.monotonic()
    while True:
        k += 1
        try:
            with urllib.request.urlopen(urllib.request.Request(url + paths[k % 2],
                                        headers=headers), timeout=30) as reply:
                reply.read()
                status = reply.status
        except urllib.error.HTTPError as exc:
            exc.read()
            status = exc.code
        except OSError:
            status = 0
        answers[f"{paths[k % 2]} {status}"] += 1
        if rate:
            due += n / rate
            time.sleep(max(0.0, due - time.monotonic()))
for i in range(n):
    threading.Thread(target=read, args=(i,), daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
print(json.dumps(dict(answers)), flush=True)
"""
"""``n`` readers, each reading the whole journal and a page of 500 moves in turn, forever: as
fast as they are answered, or ``rate`` reads a second in all; when stdin closes, how many
answers of each status each path got (0: no answer)."""

PAGES = """
import asyncio, sys, aiohttp
url, token, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
async def main():
    async with aiohttp.ClientSession() as s:
        pages = [await s.ws_connect(url + (f"?token={token}" if i % 2 else ""))
                 for i in range(n)]
        async def listen(ws):
            async for _ in ws:
                pass
        tasks = [asyncio.ensure_future(listen(ws)) for ws in pages]
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for t in tasks:
            t.cancel()
asyncio.run(main())
"""
"""``n`` live pages (half with the token), reading every message until stdin closes."""


ELSEWHERE = """
import asyncio, sys
from aiohttp import web
whole, page = b"0" * int(sys.argv[1]), b"0" * int(sys.argv[2])
async def journal(request):
    return web.Response(body=page if request.query else whole, content_type="application/json")
async def main():
    app = web.Application()
    app.router.add_get("/api/journal", journal)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    print(f"http://127.0.0.1:{port}/", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
asyncio.run(main())
"""
"""The control: a bare aiohttp server in a process of its own answering the journal's two
reads with as many bytes as the daemon's answers, so the readers load the machine as they do
the daemon's, and the daemon not at all."""


def _start(script: str, *args: str) -> tuple[subprocess.Popen[str], str]:
    """A child running ``script``, and the first line it says once it is ready."""
    child = subprocess.Popen([sys.executable, "-c", script, *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


def _load(script: str, *args: str) -> subprocess.Popen[str]:
    child, said = _start(script, *args)
    assert said == "ready"
    return child


def _cpu_s(pid: int) -> float:
    """A live process's CPU time so far (user and system, seconds), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stop(child: subprocess.Popen[str]) -> dict[str, int]:
    """Close the child's stdin and wait for it: what it said last (its counts), if anything."""
    try:
        said, _ = child.communicate(timeout=5)  # closes stdin: the child's cue to stop
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        return {}
    lines = said.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}


def _figures(samples: dict[str, list[float]], floor: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, values in samples.items():
        values.sort()
        out[name] = {"n": len(values), "p50": round(percentile(values, 0.5), 2),
                     "p95": round(percentile(values, 0.95), 2)}
    for name in samples:
        if name != floor:
            for q in ("p50", "p95"):
                base = out[floor][q]
                out[name][f"ratio_{q}"] = round(out[name][q] / base, 2) if base else None
    return out


async def _writes(session: aiohttp.ClientSession, base: str, player: int, seconds: float,
                  per_second: float | None) -> list[float]:
    """Banker transfers for ``seconds`` (one after another, or ``per_second`` on a clock):
    each until its answer (ms)."""
    samples: list[float] = []
    end = time.perf_counter() + seconds
    step = 1 / per_second if per_second else 0.0
    due = time.perf_counter()
    while time.perf_counter() < end:
        body = json.dumps({"from": "bank", "to": player, "amount": 1, "note": "bench"})
        start = time.perf_counter()
        async with session.post(base + "api/transfers", data=body,
                                headers={"Authorization": f"Bearer {TOKEN}"}) as reply:
            await reply.read()
            assert reply.status == 201, reply.status
        samples.append((time.perf_counter() - start) * 1000)
        if step:
            due += step
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        else:
            await asyncio.sleep(0.005)  # a banker's tablet, not a loop
    return samples


async def _measure(rounds: int, seconds: float) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from companion.audio.null_backend import NullBackend
    from companion.bank.moves.coins import transfer
    from companion.config import AudioConfig, Config, DataConfig
    from companion.daemon import Daemon
    from companion.web.server import start_web

    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=tmp))
        app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(1),
                     backend=NullBackend())
        app.start(asyncio.get_running_loop())
        assert app.bank is not None

        def journal(bank: Any) -> int:  # a long game, written fast (not what is timed)
            bank.db.execute("PRAGMA synchronous=OFF")
            payer, payee = (p.id for p in bank.players()[:2])
            for i in range(MOVES):
                transfer(bank, payer if i % 2 else payee, payee if i % 2 else payer, 1,
                         note=f"rent {i}", source="bench")
            bank.db.execute("PRAGMA synchronous=FULL")
            return payee

        player = app.bank.run(journal)
        server = await start_web(app.table, "127.0.0.1", 0, TOKEN)
        base = server.url
        ws_url = base.replace("http", "ws") + "ws"
        journal_runs: dict[str, list[float]] = {name: [] for name in JOURNAL_CASES}
        load: dict[str, Load] = {name: Load() for name in JOURNAL_CASES}
        fanout_runs: dict[str, list[float]] = {"alone": [], "32_pages": []}
        try:
            async with aiohttp.ClientSession() as s:
                await _writes(s, base, player, 0.5, None)  # warm-up
                banker = {"Authorization": f"Bearer {TOKEN}"}
                sizes = [str(len(await _read(s, base + path, banker)))
                         for path in ("api/journal", "api/journal?limit=500")]
                elsewhere, other = await asyncio.to_thread(_start, ELSEWHERE, *sizes)
                try:
                    for _ in range(rounds):
                        for name in JOURNAL_CASES:
                            url, token, rate = {
                                "4_readers_without_token": (base, "", 0.0),
                                "4_readers_with_token": (base, TOKEN, 0.0),
                                "4_readers_of_another_server": (
                                    other, "", load["4_readers_with_token"].last_rate),
                            }.get(name, (None, "", 0.0))
                            journal_runs[name] += await load[name].during(
                                _writes(s, base, player, seconds, None), url, token, rate,
                                elsewhere.pid if url == other else None)
                        fanout_runs["alone"] += await _writes(s, base, player, seconds, 50)
                        child = await asyncio.to_thread(_load, PAGES, ws_url, TOKEN, "32")
                        try:
                            fanout_runs["32_pages"] += await _writes(s, base, player, seconds,
                                                                     50)
                        finally:
                            await asyncio.to_thread(_stop, child)
                finally:
                    await asyncio.to_thread(_stop, elsewhere)
        finally:
            await server.stop()
            app.close()
    figures = _figures(journal_runs, "alone")
    for name, case in load.items():
        figures[name].update(case.figures())
    return {"journal_readers": {**figures, "moves": MOVES, "bytes": {
                "whole_journal": int(sizes[0]), "page_of_500": int(sizes[1])}},
            "fanout": {**_figures(fanout_runs, "alone"), "writes_per_s": 50}}


async def _read(session: aiohttp.ClientSession, url: str, headers: dict[str, str]) -> bytes:
    async with session.get(url, headers=headers) as reply:
        assert reply.status == 200, reply.status
        return await reply.read()


JOURNAL_CASES = ("alone", "4_readers_without_token", "4_readers_with_token",
                 "4_readers_of_another_server")
"""Banker writes alone; with 4 readers of the daemon's journal without the token, with it; and
the control: the same readers reading as many bytes from a bare server elsewhere (the
machine's load alone, the daemon's own work left out)."""


class Load:
    """One case's load over its rounds: what the readers were answered, and the CPU time of
    this process (the daemon, and the bench's banker on the same loop) and of the readers."""

    def __init__(self) -> None:
        self.answers: Counter[str] = Counter()
        self.seconds = self.daemon_cpu = self.readers_cpu = self.last_rate = 0.0
        self.server_cpu = 0.0
        """``last_rate``: the reads answered a second in the last round."""

    async def during(self, writes: Any, url: str | None, token: str, rate: float,
                     server: int | None = None) -> list[float]:
        """The samples of ``writes`` (a coroutine), with the readers of ``url`` if any
        (``rate`` reads a second in all; 0: as fast as they are answered), served by the
        process ``server`` when it is not this one."""
        child = None if url is None else await asyncio.to_thread(
            _load, READERS, url, token, "4", str(rate))
        start, cpu = time.perf_counter(), time.process_time()
        first = 0.0 if child is None else _cpu_s(child.pid)
        served = 0.0 if server is None else _cpu_s(server)
        try:
            samples: list[float] = await writes
        finally:
            seconds = time.perf_counter() - start
            self.seconds += seconds
            self.daemon_cpu += time.process_time() - cpu
            if server is not None:
                self.server_cpu += _cpu_s(server) - served
            if child is not None:
                self.readers_cpu += _cpu_s(child.pid) - first
                answers = await asyncio.to_thread(_stop, child)
                self.answers.update(answers)
                self.last_rate = sum(n for what, n in answers.items()
                                     if what.endswith(" 200")) / seconds
        return samples

    def figures(self) -> dict[str, Any]:
        def percent(cpu: float) -> float:
            return round(100 * cpu / self.seconds, 1) if self.seconds else 0.0

        out: dict[str, Any] = {"daemon_cpu_percent": percent(self.daemon_cpu)}
        if self.answers:
            out["readers_cpu_percent"] = percent(self.readers_cpu)
            out["answers"] = dict(sorted(self.answers.items()))
            reads = sum(n for what, n in self.answers.items() if what.endswith(" 200"))
            out["reads_answered_per_s"] = round(reads / self.seconds, 1)
        if self.server_cpu:
            out["other_server_cpu_percent"] = percent(self.server_cpu)
        return out


def lan_load_ms(rounds: int = 3, seconds: float = 1.0) -> dict[str, Any]:
    """``rounds`` interleaved rounds of ``seconds`` each per case (see the module)."""
    return asyncio.run(_measure(rounds, seconds))


if __name__ == "__main__":
    print(json.dumps(lan_load_ms(), indent=1))
