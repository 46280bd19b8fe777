"""Issue 29 (items 3-5) on real parts: the LAN can't stall the bank with reads, a reconnect
storm never closes a request that arrived whole or a player's phone feed, and the live feed
encodes each message once whatever the number of pages."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import aiohttp

from companion.app.commands import GetJournal, Transfer
from companion.bank.bank import Bank
from companion.web.api import HUB, JOURNAL_BURST
from tests.test_web_api import AUTH, TOKEN, serving


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


async def test_the_whole_journal_needs_the_token_and_comes_in_pieces(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        mario = app.bank.run(lambda bank: bank.players()[0].id)
        for n in range(1, 451):
            await app.table.act(Transfer("bank", mario, 1, f"n{n}"))
        url = server.url + "api/journal"
        async with s.get(url) as reply:  # no token: no whole journal, nothing read
            assert reply.status == 401 and "token" in (await reply.json())["error"]
        async with s.get(url, headers=AUTH) as reply:
            assert reply.status == 200 and reply.headers["Transfer-Encoding"] == "chunked"
            assert reply.content_type == "application/json"
            whole = json.loads(await reply.read())
        assert whole["game"] is None and len(whole["moves"]) == 451
        assert len(whole["entries"]) == 3 + 450
        expected = await app.table.read(GetJournal())
        assert whole == {"game": None, **json.loads(json.dumps(expected))}
        async with s.get(url + "?limit=5") as reply:  # a page: open to read
            assert reply.status == 200 and len((await reply.json())["moves"]) == 5


async def test_readers_without_the_token_are_slowed_down_per_address(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        url = server.url + "api/journal?limit=500"
        statuses = []
        for _ in range(JOURNAL_BURST + 5):
            async with s.get(url) as reply:
                statuses.append(reply.status)
                if reply.status == 429:
                    body = await reply.json()
                    assert int(reply.headers["Retry-After"]) >= 1 and body["error"]
        assert statuses[:JOURNAL_BURST] == [200] * JOURNAL_BURST
        assert statuses[JOURNAL_BURST:] == [429] * 5
        async with s.get(url, headers=AUTH) as reply:  # the banker's tablet is never slowed
            assert reply.status == 200


async def test_a_read_in_progress_never_holds_up_a_write(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        mario = app.bank.run(lambda bank: bank.players()[0].id)
        release, reading = threading.Event(), threading.Event()

        def slow_read(bank: Bank) -> tuple[int, int]:  # a long read: a big journal, say
            first = len(bank.moves())
            reading.set()
            assert release.wait(30)
            return first, len(bank.moves())

        held_up = asyncio.ensure_future(app.bank.read(slow_read))
        await asyncio.to_thread(reading.wait, 30)
        journal = asyncio.ensure_future(s.get(server.url + "api/journal", headers=AUTH))
        transfer = {"from": "bank", "to": mario, "amount": 3, "note": "during a read"}
        async with asyncio.timeout(10):  # a hang guard: without the fix, they wait for it
            async with s.post(server.url + "api/transfers", headers=AUTH,
                              data=json.dumps(transfer)) as reply:
                assert reply.status == 201  # answered while the read goes on
            async with s.post(server.url + "api/press", headers=AUTH) as reply:
                assert reply.status == 200  # a press too
        assert not held_up.done() and not journal.done()
        release.set()
        assert await held_up == (1, 1)  # one snapshot throughout: the opening alone
        async with await journal as reply:  # queued after it: sees both writes
            moves = (await reply.json())["moves"]
        assert moves[-1]["text"].endswith("during a read") and len(moves) == 2
