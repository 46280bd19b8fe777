"""WebSocket fan-out for ``companion bench``: a block press -> the new bank state (what the
page draws) at each of 10 pages."""

from __future__ import annotations

import asyncio
import itertools
import random
import tempfile
import time
from typing import Any

import aiohttp


async def _measure(events: int, clients: int) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from companion.audio.null_backend import NullBackend
    from companion.config import AudioConfig, Config, DataConfig
    from companion.daemon import Daemon
    from companion.web.server import start_web

    steps = itertools.count(step=100.0)  # never "still sounding": every press is answered
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=tmp))
        app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(1),
                        backend=NullBackend(), clock=lambda: next(steps))
        app.start(asyncio.get_running_loop())
        server = await start_web(app.table, "127.0.0.1", 0, "bench-token-0123456789")
        samples: list[float] = []
        async with aiohttp.ClientSession() as session:
            sockets = [await session.ws_connect(server.url.replace("http", "ws") + "ws")
                       for _ in range(clients)]
            for ws in sockets:
                await ws.receive_json()  # the hello state

            async def first_outcome(ws: aiohttp.ClientWebSocketResponse) -> float:
                while True:  # the state push after the outcome is banked
                    message = await ws.receive_json()
                    if message["type"] == "state" and message["action"] == "outcome":
                        return time.perf_counter()

            for _ in range(events):
                waiters = [asyncio.ensure_future(first_outcome(ws)) for ws in sockets]
                await asyncio.sleep(0)
                start = time.perf_counter()
                app.table.press(source="bench")
                arrived = await asyncio.gather(*waiters)
                samples.extend((t - start) * 1000 for t in arrived)
                await app.table.drain()
            for ws in sockets:
                await ws.close()
        await server.stop()
        app.close()
    samples.sort()

    def at(q: float) -> float:
        return round(samples[min(len(samples) - 1, round(q * (len(samples) - 1)))], 3)

    return {"clients": clients, "events": events, "p50": at(0.5), "p99": at(0.99),
            "max": round(samples[-1], 3)}


def ws_fanout_ms(events: int = 200, clients: int = 10) -> dict[str, Any]:
    """Press (in the daemon) -> the outcome message received by every one of ``clients``."""
    return asyncio.run(_measure(events, clients))
