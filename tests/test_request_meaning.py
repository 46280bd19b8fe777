"""One meaning for every request (issue 43, items 1-5), against a real daemon and a real aiohttp
server on 127.0.0.1: a repeated key, a field the request does not use, ``null`` where a field
takes none, a number JSON can't carry, a lone surrogate, a body in a coding the API does not
take, an outcome no table draws: each refused with a 4xx and a JSON ``error``, and the state
byte for byte what it was."""

from __future__ import annotations

import gzip
import json
import logging
import random
import time
from pathlib import Path
from typing import Any

import pytest

from companion.core import typed
from companion.web.join_code import JoinCodes
from tests.test_api_strict import post_bytes, raw_http
from tests.test_game_api import AUTH, TOKEN, Api, game

EDITIONS = {"celebration": ("Mario", "Luigi"), "gamer": ("Mario", "Luigi"),
            "mario_kart": ("Mario", "Luigi"), "movie": ("Mario", "Luigi", "Peach"),
            "wiggly_worms": ("Ann", "Bob")}
ODD = ("NaN", "Infinity", "-Infinity", "1e400", "-1e400", '"\\ud800"', '"a\\udfffb"',
       "9007199254740993", json.dumps("x" * 15_000))
"""Values as JSON text that no field takes: not numbers JSON carries, not Unicode text, a
whole number past 2**53, a string longer than any field's."""


async def state_bytes(api: Api) -> bytes:
    async with api.session.get(api.base + "/api/state", headers=AUTH) as reply:
        assert reply.status == 200
        return await reply.read()


async def send(api: Api, method: str, path: str, text: str | bytes) -> tuple[int, Any]:
    data = text.encode() if isinstance(text, str) else text
    async with api.session.request(method, api.base + path, data=data,
                                   headers={**AUTH, "Content-Type": "application/json"}) as r:
        return r.status, await r.json(content_type=None)


def written_routes(document: dict[str, Any], ids: list[int]) -> list[tuple[str, str, dict]]:
    """Every route of the API's document that takes a body: (method, path with ids filled in,
    its body's schema)."""
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in ("post", "put", "delete"):
                continue
            schema = (operation.get("requestBody", {}).get("content", {})
                      .get("application/json", {}).get("schema", {"properties": {}}))
            filled = path
            for name in ("id", "game", "player"):
                filled = filled.replace("{" + name + "}", str(ids[0]))
            found.append((method.upper(), filled, schema))
    return found


def wrong_type(schema: dict[str, Any]) -> Any:
    """A value of a type ``schema`` does not take (None: it takes every type)."""
    for value in ("1", 1, True, [1], {"a": 1}, None, 1.5):
        if not typed.fits(value, schema):
            return value
    return None


@pytest.mark.parametrize("edition", list(EDITIONS))
async def test_every_route_refuses_what_it_cannot_mean_and_changes_nothing(
        tmp_path: Path, edition: str) -> None:
    """The fuzz, bounded and seeded: for every route of the edition that takes a body, a
    repeated key, a field it does not know, and for each of its fields a value of the wrong
    type, ``null`` where it takes none, and the odd values (:data:`ODD`): all 4xx, all JSON,
    the state unchanged byte for byte."""
    dice = random.Random(43)
    async with game(tmp_path, edition, EDITIONS[edition]) as (api, _):
        ids = await api.ids()
        document = await api.get("/api/openapi.json")
        before = await state_bytes(api)
        sent = 0
        for method, path, schema in written_routes(document, ids):
            fields = {name: s for name, s in schema.get("properties", {}).items()
                      if name != "correction"}
            bodies = ['{"unused_field": 1}']
            for name, field_schema in fields.items():
                bodies.append(f'{{"{name}": 1, "{name}": 2}}')
                wrong = wrong_type(field_schema)
                if wrong is not None:
                    bodies.append(json.dumps({name: wrong}))
                bodies.extend(f'{{"{name}": {odd}}}' for odd in dice.sample(ODD, 4))
            for body in bodies:
                status, answer = await send(api, method, path, body)
                sent += 1
                assert 400 <= status < 500, (method, path, body[:80], status, answer)
                assert isinstance(answer, dict) and answer.get("error"), (path, answer)
            assert await state_bytes(api) == before, (method, path)
        assert sent > 100


async def test_a_repeated_key_is_refused_naming_it(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, luigi = await api.ids()
        before = await state_bytes(api)
        status, answer = await send(api, "POST", "/api/transfers", f'{{"from": {mario}, '
                                    f'"to": {luigi}, "amount": -5, "amount": 3}}')
        assert status == 400
        assert answer["error"] == "the body names amount twice: give each field once"
        code = JoinCodes(TOKEN).code(json.loads(before)["game"]["id"])
        async with api.session.post(api.base + "/api/join", data=f'{{"player": {mario}, '
                                    f'"player": {luigi}}}',
                                    headers={"Authorization": f"Bearer {code}"}) as reply:
            assert reply.status == 400
            assert (await reply.json())["error"] == \
                "the body names player twice: give each field once"
        nested = '{"from": %d, "to": "bank", "amount": 1, "note": "x", "x": {"a": 1, "a": 2}}'
        assert (await send(api, "POST", "/api/transfers", nested % mario))[0] == 400
        assert await state_bytes(api) == before
        await api.post("/api/transfers", {"from": mario, "to": luigi, "amount": 3})  # still pays


async def test_fields_a_request_does_not_use_are_refused(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, luigi = await api.ids()
        before = await state_bytes(api)
        rent = {"mode": "utility_rent", "payer": mario, "owner": luigi, "utilities": 1}
        for extra in ({"leader": mario}, {"teammate": 3}, {"leader": None}):
            status, answer = await send(api, "POST", "/api/mode", json.dumps({**rent, **extra}))
            assert status == 400, answer
            assert "takes nothing more" in answer["error"]
        assert await state_bytes(api) == before
        await api.post("/api/mode", rent)  # the same without them: armed
    async with game(tmp_path / "gamer", "gamer", ("Mario", "Luigi")) as (api, _):
        mario, _luigi = await api.ids()
        before = await state_bytes(api)
        for body in ({"player": mario, "steps": 3, "to": 5},
                     {"player": mario, "how": "place", "to": 5, "steps": 2},
                     {"player": mario, "how": "warp", "steps": 2}):
            status, answer = await send(api, "POST", "/api/tokens", json.dumps(body))
            assert status == 400, (body, answer)
            assert "is not used when how is" in answer["error"]
        assert await state_bytes(api) == before
    async with game(tmp_path / "worms", "wiggly_worms", ("Ann", "Bob")) as (api, _):
        before = await state_bytes(api)
        status, answer = await send(api, "POST", "/api/options",
                                    '{"simultaneous": null, "dealt": true}')
        assert status == 400
        assert answer["error"] == "simultaneous must be true or false, got None"
        assert await state_bytes(api) == before


async def test_turning_off_a_link_reads_its_body_and_writes_nothing_when_there_is_none(
        tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, app):
        mario, _ = await api.ids()
        version = app.bank.run(lambda bank: bank.db.execute(
            "SELECT version FROM table_state").fetchone()[0])
        for body in ('{"player": 2}', "not json", '{"a": 1, "a": 1}'):
            status, answer = await send(api, "DELETE", f"/api/players/{mario}/link", body)
            assert status == 400, (body, answer)
        status, answer = await send(api, "DELETE", f"/api/players/{mario}/link", b"")
        assert (status, answer["revoked"]) == (200, False)
        assert app.bank.run(lambda bank: bank.db.execute(
            "SELECT version FROM table_state").fetchone()[0]) == version  # nothing written
        await api.post(f"/api/players/{mario}/link", {})
        status, answer = await send(api, "DELETE", f"/api/players/{mario}/link", b"{}")
        assert (status, answer["revoked"]) == (200, True)


async def test_a_body_in_a_coding_the_api_does_not_take_is_refused(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, luigi = await api.ids()
        before = await state_bytes(api)
        plain = json.dumps({"from": mario, "to": luigi, "amount": 3}).encode()
        chunk = b"%x\r\n%s\r\n0\r\n\r\n" % (len(plain), plain)
        for coding in (b"gzip, chunked", b"deflate, chunked", b"GZIP,chunked"):
            request = post_bytes("/api/transfers", b"").replace(
                b"Content-Length: 0\r\n", b"Transfer-Encoding: " + coding + b"\r\n") + chunk
            status, headers, answer = await raw_http(api, request)
            assert status in (400, 415), (coding, status, answer[:200])
            assert headers["content-type"].startswith("application/json")
        zipped = gzip.compress(plain)
        status, _, answer = await raw_http(api, post_bytes("/api/transfers", zipped,
                                                           b"Content-Encoding: gzip"))
        assert status == 415, answer[:200]
        assert "Content-Encoding" in json.loads(answer)["error"]
        assert await state_bytes(api) == before


async def test_a_press_given_back_is_checked_against_its_table(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, _ = await api.ids()
        state = await api.state()

        def press(press_id: str, kind: str, coins: int, rolls: list[int]) -> dict[str, Any]:
            return {"id": press_id, "at": time.time(), "mode": "question_block", "kind": kind,
                    "coins": coins, "rolls": rolls, "step": 0, "source": "tablet",
                    "game": state["game"]["id"], "player": mario, "known": True, "params": {}}

        before = await state_bytes(api)
        forged = [press("forged-1", "coins", 1000, [1, 6]), press("forged-2", "coins", 4, [1, 3]),
                  press("forged-3", "bowser", 50, [3]), press("forged-4", "power_up", 0, [6])]
        answer = await api.post("/api/held", {"presses": forged})
        assert answer["presses"] == {p["id"]: "refused" for p in forged}
        assert await state_bytes(api) == before
        answer = await api.post("/api/held", {"presses": [press("real-1", "coins", 4, [2, 4])]})
        assert answer["presses"] == {"real-1": "banked"}
        coins = {p["id"]: p["balance"] for p in (await api.state())["players"]}
        start = {p["id"]: p["balance"] for p in state["players"]}
        assert coins[mario] == start[mario] + 4


async def test_a_name_too_long_for_a_file_is_a_quiet_404(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        caplog.set_level(logging.INFO)
        for name in ("a" * 300, "b" * 256 + "/c.js", "%s.js" % ("é" * 200)):
            async with api.session.get(f"{api.base}/static/{name}") as reply:
                assert reply.status == 404, (name[:20], await reply.text())
                assert (await reply.json())["error"]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], \
            [r.getMessage()[:200] for r in caplog.records]
