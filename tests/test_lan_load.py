"""Issue 29 (items 3-5) on real parts: the LAN can't stall the bank with reads, a reconnect
storm never closes a request that arrived whole or a player's phone feed, and the live feed
encodes each message once whatever the number of pages."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from companion.app.commands import GetJournal, Move
from companion.bank.bank import Bank
from companion.web.api import HOLDS, HUB, JOURNAL_BURST, WRITES
from companion.web.guard import ConnectionGuard, _unread
from tests.test_web_api import AUTH, TOKEN, serving
from tests.test_web_guard import closed_by_server, connect, guard_of, response, until


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
        await app.table.act(Move("transfer", {"from": "bank", "to": mario, "amount": 5,
                                             "note": "five"}))
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
            await app.table.act(Move("transfer", {"from": "bank", "to": mario, "amount": 1,
                                                 "note": f"n{n}"}))
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


async def test_a_refused_reader_hears_so_when_it_could_ask_again(tmp_path: Path) -> None:
    """Issue 43: a reader past its bucket is refused once it could have asked again (a loop
    of readers asks a few times a second, not thousands: each answer costs the loop); a few
    refusals held per address, past them refused at once, all of them answered at shutdown."""
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        holds = server.runner.app[HOLDS]
        holds.longest = 60.0  # held until closed below (the test waits for events)
        url = server.url + "api/journal?limit=5"

        async def status() -> int:
            async with s.get(url) as reply:
                if reply.status == 429:
                    assert int(reply.headers["Retry-After"]) >= 1
                    assert (await reply.json())["error"]
                return reply.status

        for _ in range(JOURNAL_BURST):
            assert await status() == 200
        held = [asyncio.ensure_future(status()) for _ in range(holds.per_address)]
        await until(lambda: holds.held.get("127.0.0.1") == holds.per_address)
        assert await status() == 429  # past what one address may have held: at once
        assert not any(task.done() for task in held)
        async with s.get(url, headers=AUTH) as reply:  # the banker's tablet is never held
            assert reply.status == 200
        holds.close()
        assert await asyncio.gather(*held) == [429] * holds.per_address
        assert holds.held == {}


async def test_a_journal_read_waits_for_the_writes_in_flight(tmp_path: Path) -> None:
    """Issue 43: a read of the journal waits (a while at most) for the writes through the API
    in flight, so the readers' work does not slow the banker's; it then sees them."""
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        writes = server.runner.app[WRITES]
        writes.longest = 60.0  # as long as the write takes here (the test waits for events)
        mario = app.bank.run(lambda bank: bank.players()[0].id)
        busy, release = threading.Event(), threading.Event()

        def blocked(_bank: Bank) -> None:  # the writer thread busy with an earlier write
            busy.set()
            assert release.wait(30)

        earlier = asyncio.ensure_future(app.bank.call(blocked))
        await asyncio.to_thread(busy.wait, 30)
        body = json.dumps({"from": "bank", "to": mario, "amount": 7, "note": "in flight"})
        writing = asyncio.ensure_future(s.post(server.url + "api/transfers", data=body,
                                               headers=AUTH))
        await until(lambda: writes.writing == 1)
        pages = [asyncio.ensure_future(s.get(server.url + "api/journal?limit=5")),
                 asyncio.ensure_future(s.get(server.url + "api/journal", headers=AUTH))]
        await until(lambda: writes.waiting == 2)
        assert not any(page.done() for page in pages)
        release.set()
        await earlier
        async with await writing as reply:
            assert reply.status == 201
        for page in pages:
            async with await page as reply:
                assert reply.status == 200
                assert (await reply.json())["moves"][-1 if reply.headers.get(
                    "Transfer-Encoding") else 0]["note"] == "in flight"  # it waited: sees it
        assert writes.writing == writes.waiting == 0


async def test_a_read_goes_on_while_the_writer_holds_a_transaction_open(
        tmp_path: Path) -> None:
    """The journal is read on a connection and thread of its own: a write transaction held
    open on the writer's connection (the real file, in WAL) holds up no read."""
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        inside, release = threading.Event(), threading.Event()

        def held_open(bank: Bank) -> None:
            bank.db.execute("BEGIN IMMEDIATE")
            try:
                bank.db.execute("UPDATE table_state SET version = version + 1")
                inside.set()
                assert release.wait(30)
            finally:
                bank.db.execute("ROLLBACK")

        writing = asyncio.ensure_future(app.bank.call(held_open))
        await asyncio.to_thread(inside.wait, 30)
        async with asyncio.timeout(10):  # a hang guard: a read behind the writer waits
            async with s.get(server.url + "api/journal?limit=5") as reply:
                assert reply.status == 200 and len((await reply.json())["moves"]) == 1
            async with s.get(server.url + "api/journal", headers=AUTH) as reply:
                assert reply.status == 200 and len((await reply.json())["moves"]) == 1
        assert not writing.done()
        release.set()
        await writing


async def test_a_page_is_sent_as_the_journal_has_it(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        mario = app.bank.run(lambda bank: bank.players()[0].id)
        for n in range(1, 8):
            await app.table.act(Move("transfer", {"from": "bank", "to": mario, "amount": n,
                                                 "note": f"n{n}"}))
        await app.table.act(Move("undo"))
        for query in ("?limit=3", "?limit=500", "?after=0&limit=2"):
            async with s.get(server.url + "api/journal" + query) as reply:
                sent = await reply.read()
                assert reply.content_type == "application/json" and reply.charset == "utf-8"
            paging = dict(pair.split("=") for pair in query[1:].split("&"))
            page = await app.table.read(GetJournal(**{k: int(v) for k, v in paging.items()}))
            assert sent == json.dumps({"game": None, **page}).encode(), query  # byte for byte


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


def send_now(writer: asyncio.StreamWriter, text: str) -> None:
    """Send at once, without the loop (which this blocks, as a busy one would be)."""
    fd = writer.transport.get_extra_info("socket").fileno()
    with socket.socket(fileno=os.dup(fd)) as sock:
        sock.sendall(text.encode())


def only_the_cap(guard: ConnectionGuard) -> None:
    """The guard's deadlines out of reach: only the cap closes anything (on a loaded machine a
    test's steps may take longer than a connection's 10 s to send its first request)."""
    guard.first_request_s = guard.keepalive_s = guard.request_timeout_s = 3600.0
    guard.slow_request_s = 3600.0


async def test_a_request_that_arrived_whole_is_never_closed_to_make_room(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _):
        guard = guard_of(server)
        guard.max_connections = 2
        only_the_cap(guard)
        asking, asking_writer = await connect(server)
        await until(lambda: len(guard.live) == 1)
        trickling, trickle_writer = await connect(server)  # younger: a request on its way
        trickle_writer.write(b"GET /healthz HTTP/1.1\r\n")
        await until(lambda: any(c.partial for c in guard.live.values()))
        # The loop is busy (blocked here): a new connection comes, then the whole of the
        # older one's request; the loop reads both in one turn, and accepts the newcomer
        # before it takes that request up.
        newcomer = socket.create_connection(("127.0.0.1", server.port))
        send_now(asking_writer, f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n")
        time.sleep(0.2)
        with newcomer:
            assert (await response(asking)).startswith(b"HTTP/1.1 200")  # answered, not closed
            assert await closed_by_server(trickling)  # the partial one made room
            assert guard.stats.evicted_partial == 1 and guard.stats.evicted_idle == 0


async def test_a_request_waiting_whole_in_the_socket_is_never_closed(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _):
        guard = guard_of(server)
        guard.max_connections = 2
        only_the_cap(guard)
        asking, asking_writer = await connect(server)  # an idle keep-alive connection ...
        asking_writer.write(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n"
                            .encode())
        assert (await response(asking)).startswith(b"HTTP/1.1 200")
        trickling, trickle_writer = await connect(server)
        trickle_writer.write(b"GET /healthz HTTP/1.1\r\n")
        await until(lambda: any(c.partial for c in guard.live.values()))
        # ... whose next request is all in the socket, not read yet, when a newcomer comes
        # (a loop too busy to read it: here its reading is paused)
        kept = next(c for c in guard.live.values() if c.requests == 1)
        assert kept.transport is not None
        kept.transport.pause_reading()
        asking_writer.write(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n"
                            .encode())
        await until(lambda: _unread(kept.transport) > 0)  # type: ignore[arg-type]
        newcomer, _newcomer_writer = await connect(server)
        await until(lambda: guard.stats.evicted_partial + guard.stats.evicted_idle > 0)
        kept.transport.resume_reading()
        assert (await response(asking)).startswith(b"HTTP/1.1 200")
        assert await closed_by_server(trickling)
        assert guard.stats.evicted_partial == 1 and guard.stats.evicted_idle == 0
        assert not newcomer.at_eof()


async def test_a_players_phone_feed_ranks_with_the_table_pages(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        guard = guard_of(server)
        guard.max_websockets = 2
        url = server.url.replace("http", "ws") + "ws"
        luigi = app.bank.run(lambda bank: bank.players()[1].id)
        async with s.post(server.url + f"api/players/{luigi}/link", headers=AUTH) as reply:
            link = (await reply.json())["token"]

        async def page(token: str | None) -> aiohttp.ClientWebSocketResponse:
            ws = await s.ws_connect(url if token is None else f"{url}?token={token}")
            assert (await ws.receive_json(timeout=5))["action"] == "hello"
            return ws

        phone = await page(link)
        strangers = [await page(None)]
        for _ in range(40):  # token-less connects, each replacing the last: never the phone
            strangers.append(await page(None))
            await until(lambda: strangers[-2].closed or guard.counts()["websockets"] <= 2)
        assert not phone.closed and guard.stats.websocket_evicted == 40
        table = await page(TOKEN)  # the table's page replaces the stranger, not the phone
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await page(None)
        assert refused.value.status == 503 and not phone.closed and not table.closed
        async with s.post(server.url + "api/transfers", headers=AUTH, data=json.dumps(
                {"from": "bank", "to": luigi, "amount": 2})) as reply:
            assert reply.status == 201
        coins = None
        while coins is None:  # the phone's feed still works: told of the coins
            message = await phone.receive_json(timeout=5)
            coins = message if message["type"] == "coins" else None
        assert coins["amount"] == 2
        for ws in (phone, table, *strangers):
            await ws.close()
