"""A strict API (issue 29, item 6), against a real daemon and a real aiohttp server on 127.0.0.1:
request ids checked on every keyed route, a reused id must repeat the whole request, ids are
whole numbers (not ``true``, not ``2.0``), a Boss card holds only its numbers, a body is UTF-8
JSON without a byte order mark, and malformed HTTP is answered in JSON without echoing it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.test_game_api import AUTH, TOKEN, Api, game
from tests.test_gamer_game import BOSS


async def raw_http(api: Api, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as it is over a real socket; the status, headers and body answered
    (the server closes the connection after it)."""
    url = urlsplit(api.base)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        writer.write(request)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    return int(status_line.split()[1]), headers, body


def post_bytes(path: str, body: bytes, *extra: bytes) -> bytes:
    """A POST with the table token, ``extra`` header lines as they are."""
    return b"\r\n".join([f"POST {path} HTTP/1.1".encode(), b"Host: 127.0.0.1",
                         f"Authorization: Bearer {TOKEN}".encode(),
                         b"Content-Type: application/json", b"Connection: close",
                         f"Content-Length: {len(body)}".encode(), *extra, b"", body])


async def keyed(api: Api, path: str, body: dict[str, Any], key: str) -> tuple[int, Any]:
    async with api.session.post(api.base + path, data=json.dumps(body),
                                headers={**AUTH, "Idempotency-Key": key}) as reply:
        return reply.status, await reply.json()


async def test_redo_checks_its_key_as_every_keyed_route_does(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, app):
        mario, _ = await api.ids()
        await api.post("/api/transfers", {"from": mario, "to": "bank", "amount": 2})
        await api.post("/api/undo", {})
        before = await api.state()
        redo = before["redo"]["move"]
        body = json.dumps({"move": redo}).encode()
        for path, key in (("/api/redo", b"\xff\xfe not UTF-8"),
                          ("/api/redo", b"k" * 3000),
                          ("/api/transfers", b"\xc3\x28"),
                          ("/api/redo", b"")):
            sent = body if path == "/api/redo" else json.dumps(
                {"from": mario, "to": "bank", "amount": 1}).encode()
            status, headers, answer = await raw_http(api, post_bytes(
                path, sent, b"Idempotency-Key: " + key))
            assert status == 400, (path, key[:20], status, answer[:200])
            assert headers["content-type"].startswith("application/json")
            assert json.loads(answer)["error"] == "request id must be 1-100 printable characters"
            assert await api.state() == before
        twice = post_bytes("/api/redo", body, b"Idempotency-Key: a", b"Idempotency-Key: b")
        assert (await raw_http(api, twice))[0] == 400
        assert await api.state() == before
        rows = app.bank.run(lambda bank: bank.db.execute(
            "SELECT COUNT(*) FROM moves WHERE request_id IS NOT NULL").fetchone()[0])
        assert rows == 0  # no key was kept
        assert await keyed(api, "/api/redo", {"move": redo}, "redo-1") == \
            await keyed(api, "/api/redo", {"move": redo}, "redo-1")  # a retry: the same move


async def test_a_reused_key_must_repeat_the_whole_request(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, _):
        mario, luigi, peach = await api.ids()
        assert await keyed(api, "/api/next", {"from": mario}, "next-1") == (200, {
            "current_player": luigi})
        state = await api.state()
        for body in ({}, {"from": luigi}):
            status, error = await keyed(api, "/api/next", body, "next-1")
            assert status == 409 and error["error"] == \
                "request id 'next-1' was already used for another operation", (body, error)
            assert await api.state() == state
        assert await keyed(api, "/api/next", {"from": mario}, "next-1") == (200, {
            "current_player": luigi})  # the very same request: its first answer
        state = await api.state()
        status, _ = await keyed(api, "/api/transfers", {"from": peach, "to": "bank",
                                                        "amount": 1}, "next-1")
        assert status == 409 and await api.state() == state

    async with game(tmp_path / "gamer", "gamer", ("Ann", "Ben", "Cat")) as (api, _):
        ann, ben, cat = await api.ids()
        for pid, who in ((ann, "mario"), (ben, "peach"), (cat, "yoshi")):
            await api.post("/api/characters", {"player": pid, "characters": [who]})
        shell = {"player": ann, "ability": "red_shell", "targets": [ben],
                 "spaces": {str(ben): "Acorn Plains"}}
        status, first = await keyed(api, "/api/abilities", shell, "shell-1")
        assert status == 201
        state = await api.state()
        for other in ({**shell, "targets": [cat], "spaces": {str(cat): "Acorn Plains"}},
                      {**shell, "spaces": {str(ben): "Warp Pipe"}}):
            status, error = await keyed(api, "/api/abilities", other, "shell-1")
            assert status == 409 and "'shell-1'" in error["error"], error
            assert await api.state() == state
        assert await keyed(api, "/api/abilities", shell, "shell-1") == (201, first)

        await api.post("/api/go", {})  # a card is flipped at the end of a turn past GO
        status, opened = await keyed(api, "/api/boss", {"action": "open", "card": BOSS},
                                     "open-1")
        assert status == 201
        state = await api.state()
        status, error = await keyed(api, "/api/boss", {"action": "open",
                                                       "card": {**BOSS, "points": 30}}, "open-1")
        assert status == 409 and "'open-1'" in error["error"]
        assert await api.state() == state
        assert await keyed(api, "/api/boss", {"action": "open", "card": BOSS}, "open-1") == (
            201, opened)


async def test_ids_and_numbers_are_whole_numbers_not_true_or_floats(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, _ = await api.ids()
        assert mario == 1  # so true == 1 would pass for Mario
        await api.post("/api/transfers", {"from": mario, "to": "bank", "amount": 2})
        undo = (await api.state())["undo"]["move"]
        state = await api.state()
        for path, body in (("/api/next", {"from": True}), ("/api/next", {"from": float(mario)}),
                           ("/api/undo", {"move": float(undo)}), ("/api/undo", {"move": True})):
            reply = await api.post(path, body, status=400)
            assert reply["error"] in (f"unknown player {body['from']!r}" if "from" in body
                                      else f"move must be a move id (a whole number from 1), "
                                           f"got {body['move']!r}"), reply
            assert await api.state() == state
        await api.post("/api/undo", {"move": undo})
        state = await api.state()
        redo = state["redo"]["move"]
        for bad in (float(redo), True):
            reply = await api.post("/api/redo", {"move": bad}, status=400)
            assert reply["error"] == f"move must be a move id (a whole number from 1), got {bad!r}"
            assert await api.state() == state

    async with game(tmp_path / "gamer", "gamer", ("Ann", "Ben", "Cat")) as (api, _):
        ann, ben, _ = await api.ids()
        await api.post("/api/characters", {"player": ann, "characters": ["mario"]})
        state = await api.state()
        reply = await api.post("/api/abilities", {
            "player": ann, "ability": "red_shell", "targets": [float(ben)],
            "spaces": {str(float(ben)): "Acorn Plains"}}, status=400)  # was Ben, as 2.0
        assert reply["error"] == "targets: 2.0 is not another player in the game"
        assert await api.state() == state


async def test_a_boss_card_holds_only_its_printed_numbers(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _):
        await api.post("/api/go", {})  # a card is flipped at the end of a turn past GO
        state = await api.state()
        for extra in ({"chance": "1/2"}, {"bouns": 5}):
            reply = await api.post("/api/boss", {"action": "open", "card": {**BOSS, **extra}},
                                   status=400)
            assert reply["error"] == f"unknown field(s): card.{next(iter(extra))}"
            assert await api.state() == state
        await api.post("/api/boss", {"action": "open", "card": BOSS})
    async with game(tmp_path / "kart", "mario_kart", ("Ann", "Ben")) as (api, _):
        await api.post("/api/go", {})
        state = await api.state()
        card = {"fee": 1, "prizes": [5, 2], "points": 30}
        reply = await api.post("/api/race", {"action": "open", "card": {**card, "cost": 1}},
                               status=400)
        assert reply["error"] == "unknown field(s): card.cost"
        assert await api.state() == state
        await api.post("/api/race", {"action": "open", "card": card})


async def test_a_body_is_utf8_json_without_a_byte_order_mark(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, _ = await api.ids()
        state = await api.state()
        text = json.dumps({"from": mario, "to": "bank", "amount": 1})
        for body in (b"\xef\xbb\xbf" + text.encode(), text.encode("utf-16"),
                     text.encode("utf-32")):
            status, _, answer = await raw_http(api, post_bytes("/api/transfers", body))
            assert status == 400 and json.loads(answer)["error"] == "the body must be JSON"
            assert await api.state() == state
        status, _, _ = await raw_http(api, post_bytes("/api/transfers", text.encode()))
        assert status == 201


MARK = b"<script>marker-29</script>"


async def test_malformed_http_is_answered_in_json_without_echoing_it(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        state = await api.state()
        for request in (
                b"GET /" + MARK + b"\x01 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                b"G\x01T" + MARK + b" / HTTP/1.1\r\n\r\n",
                b"GET / HTTP/9" + MARK + b"\r\n\r\n",
                b"GET /api/state HTTP/1.1\r\nBad" + MARK + b": 1\r\n\r\n",
                b"GET /api/state HTTP/1.1\r\nX-Long: " + MARK * 1000 + b"\r\n\r\n",
                b"GET /api/state HTTP/1.1\r\nContent-Length: " + MARK + b"\r\n\r\n",
                b"POST /api/transfers HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"zz" + MARK + b"\r\n"):
            status, headers, body = await raw_http(api, request)
            assert 400 <= status < 500, (request[:40], status, body[:200])
            assert headers["content-type"].startswith("application/json"), (request[:40], body)
            error = json.loads(body)["error"]
            assert error == "the request is not well-formed HTTP; nothing was done"
            assert b"marker" not in body and b"script" not in body
        assert await api.state() == state
