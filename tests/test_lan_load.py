"""Issue 29 (items 3-5) on real parts: the LAN can't stall the bank with reads, a reconnect
storm never closes a request that arrived whole or a player's phone feed, and the live feed
encodes each message once whatever the number of pages."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp

from companion.app.commands import Transfer
from companion.web.api import HUB
from tests.test_web_api import TOKEN, serving


async def test_every_page_gets_the_same_frame_encoded_once(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        url = server.url.replace("http", "ws") + "ws"
        banker = [await s.ws_connect(url + f"?token={TOKEN}") for _ in range(3)]
        viewers = [await s.ws_connect(url) for _ in range(3)]
        for ws in banker + viewers:
            await ws.receive_json(timeout=5)  # the hello
        hub = server.runner.app[HUB]
        stalled = [asyncio.Queue[Any]() for _ in range(4)]  # pages whose sender is behind
        for n, queue in enumerate(stalled):
            hub.clients[queue] = None  # type: ignore[assignment]
            if n < 2:
                hub.trusted.add(queue)
        mario = app.bank.run(lambda bank: bank.players()[0].id)
        await app.table.act(Transfer("bank", mario, 5, "five"))
        held = [queue.get_nowait() for queue in stalled]
        for queue in stalled:
            del hub.clients[queue]
            hub.trusted.discard(queue)
        assert all(isinstance(item, str) for item in held)  # encoded, not a dict per page
        assert held[0] is held[1] and held[2] is held[3]  # one text each for all the pages
        assert json.loads(held[0])["state"]["players"][0]["balance"] == 35

        async def frame(ws: aiohttp.ClientWebSocketResponse) -> str:
            while True:
                message = await ws.receive(timeout=5)
                if json.loads(message.data)["type"] == "state":
                    return str(message.data)

        frames = [await frame(ws) for ws in banker + viewers]
        assert frames[:3] == [held[0]] * 3 and frames[3:] == [held[2]] * 3  # byte for byte
