"""Banker writes under LAN load, for ``companion bench`` (issue 29): the same daemon and web
server, its writes timed alone and, interleaved round for round, with 4 readers without the
token hammering the journal of a 2,000-move game (and with 4 tablets with it reading it
whole), or with 32 live pages while the banker writes 50 times a second. The load comes from
a child process, so its own work is not on the daemon's loop."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from typing import Any

import aiohttp

from companion.bench.stats import percentile

TOKEN = "bench-token-0123456789abcdef"
MOVES = 2000

READERS = """
import collections, json, sys, threading, urllib.request, urllib.error
url, token, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
headers = {"Authorization": "Bearer " + token} if token else {}
paths = ["api/journal", "api/journal?limit=500"]
answers = collections.Counter()
def read(i):
    k = i
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
for i in range(n):
    threading.Thread(target=read, args=(i,), daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
print(json.dumps(dict(answers)), flush=True)
"""
"""``n`` readers, each reading the whole journal and a page of 500 moves in turn, forever;
when stdin closes, how many answers of each status each path got (0: no answer)."""

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


def _load(script: str, *args: str) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", script, *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


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
        journal_runs: dict[str, list[float]] = {"alone": [], "4_readers_without_token": [],
                                                "4_readers_with_token": []}
        fanout_runs: dict[str, list[float]] = {"alone": [], "32_pages": []}
        try:
            async with aiohttp.ClientSession() as s:
                await _writes(s, base, player, 0.5, None)  # warm-up
                for _ in range(rounds):
                    journal_runs["alone"] += await _writes(s, base, player, seconds, None)
                    for name, token in (("4_readers_without_token", ""),
                                        ("4_readers_with_token", TOKEN)):
                        child = await asyncio.to_thread(_load, READERS, base, token, "4")
                        try:
                            journal_runs[name] += await _writes(s, base, player, seconds, None)
                        finally:
                            await asyncio.to_thread(_stop, child)
                    fanout_runs["alone"] += await _writes(s, base, player, seconds, 50)
                    child = await asyncio.to_thread(_load, PAGES, ws_url, TOKEN, "32")
                    try:
                        fanout_runs["32_pages"] += await _writes(s, base, player, seconds, 50)
                    finally:
                        await asyncio.to_thread(_stop, child)
        finally:
            await server.stop()
            app.close()
    return {"journal_readers": {**_figures(journal_runs, "alone"), "moves": MOVES},
            "fanout": {**_figures(fanout_runs, "alone"), "writes_per_s": 50}}


def lan_load_ms(rounds: int = 3, seconds: float = 1.0) -> dict[str, Any]:
    """``rounds`` interleaved rounds of ``seconds`` each per case (see the module)."""
    return asyncio.run(_measure(rounds, seconds))


if __name__ == "__main__":
    print(json.dumps(lan_load_ms(), indent=1))
