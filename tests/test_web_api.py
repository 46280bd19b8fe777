"""The tablet's API against a real aiohttp server on 127.0.0.1 (work in progress for issue 4)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
from gpiozero.pins.mock import MockFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.app.commands import Move
from companion.audio.null_backend import NullBackend
from companion.config import AudioConfig, Config, DataConfig, GameConfig
from companion.daemon import Daemon
from companion.web.api import HUB
from companion.web.server import WebServer, start_web
from companion.web.token import load_or_create_token
from tests.conftest import StepClock

TOKEN = "test-token-0123456789abcdef"


@contextlib.asynccontextmanager
async def serving(tmp_path: Path) -> AsyncIterator[tuple[WebServer, Daemon]]:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                    game=GameConfig(players=("Mario", "Luigi", "Peach")))
    app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(5),
                    backend=NullBackend(), clock=StepClock(100.0, 10))  # never "sounding"
    app.start(asyncio.get_running_loop())
    server = await start_web(app.table, "127.0.0.1", 0, TOKEN)
    try:
        yield server, app
    finally:
        await server.stop()
        await app.table.drain()
        app.close()


AUTH = {"Authorization": f"Bearer {TOKEN}"}


async def call(session: aiohttp.ClientSession, server: WebServer, method: str, path: str,
               body: Any = None, headers: dict[str, str] | None = None,
               raw: bytes | None = None) -> tuple[int, Any]:
    data = raw if raw is not None else (None if body is None else json.dumps(body))
    async with session.request(method, server.url.rstrip("/") + path, data=data,
                               headers=headers) as resp:
        text = await resp.text()
        return resp.status, json.loads(text) if text else None


async def test_read_routes(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        status, health = await call(s, server, "GET", "/healthz")
        assert status == 200 and health["ok"] is True
        assert health["parts"]["bank"] == {"ok": True, "detail": "ok", "required": True}
        assert health["storage"] == {"ok": True, "problem": None, "held": 0, "kept": True,
                                     "presses": [], "warning": ""}
        status, state = await call(s, server, "GET", "/api/state")
        assert status == 200
        assert [(p["name"], p["balance"]) for p in state["players"]] == [
            ("Mario", 30), ("Luigi", 30), ("Peach", 30)]
        assert state["current_player"] == state["players"][0]["id"]
        assert state["last_outcome"] is None
        assert state["timer"]["phase"] == "idle" and state["timer"]["running"] is False
        status, journal = await call(s, server, "GET", f"/api/journal?game={state['game']['id']}",
                                     headers=AUTH)
        assert status == 200 and len(journal["entries"]) == 3


async def test_the_journal_by_pages(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        mario = app.bank.run(lambda bank: bank.players()[0].id)
        for n in range(1, 13):
            await app.table.act(Move("transfer", {"from": "bank", "to": mario, "amount": n,
                                                 "note": f"n{n}"}))
        await app.table.act(Move("undo"))  # the 12 coins
        status, whole = await call(s, server, "GET", "/api/journal",  # no paging: the game
                                   headers=AUTH)
        assert status == 200 and len(whole["entries"]) == 3 + 12 + 1
        ids = [m["id"] for m in whole["moves"]]  # oldest first: the opening, 12, the undo
        status, page = await call(s, server, "GET", "/api/journal?limit=5")
        assert status == 200 and "entries" not in page  # each move carries its entries
        assert [m["id"] for m in page["moves"]] == ids[::-1][:5]  # newest first
        assert (page["game"], page["latest"], page["next_before"], page["next_after"]) == (
            whole["moves"][0]["game"], ids[-1], ids[-5], None)
        assert page["moves"][0]["text"] == "Undo: the Bank pays Mario 12 · n12"
        assert page["moves"][1]["undone_by"] == ids[-1]
        assert page["moves"] == whole["moves"][::-1][:5]  # each move as the whole game has it
        pages, before = [page["moves"]], page["next_before"]
        while before is not None:  # older and older, down to the opening
            status, page = await call(s, server, "GET", f"/api/journal?before={before}&limit=5")
            pages.append(page["moves"])
            before = page["next_before"]
        assert [m for moves in pages for m in moves] == whole["moves"][::-1]
        # An undo alone on its page still says what it undid.
        _, alone = await call(s, server, "GET", "/api/journal?limit=1")
        assert alone["moves"][0]["text"] == "Undo: the Bank pays Mario 12 · n12"
        # Catching up: after a move, oldest first, in as many pages as it takes.
        _, newer = await call(s, server, "GET", f"/api/journal?after={ids[-4]}&limit=2")
        assert [m["id"] for m in newer["moves"]] == ids[-3:-1]
        assert (newer["next_after"], newer["next_before"]) == (ids[-2], None)
        _, rest = await call(s, server, "GET", f"/api/journal?after={ids[-2]}&limit=2")
        assert [m["id"] for m in rest["moves"]] == ids[-1:] and rest["next_after"] is None
        assert (await call(s, server, "GET", f"/api/journal?after={ids[-1]}"))[1]["moves"] == []
        _, all_of_it = await call(s, server, "GET", "/api/journal?after=0&limit=500")
        assert all_of_it["moves"] == whole["moves"]
        # Bad values: 400 naming the parameter, nothing changed.
        _, before_state = await call(s, server, "GET", "/api/state")
        for query, named in (("before=abc", "before"), ("before=-1", "before"),
                             ("before=0", "before"), ("before=", "before"),
                             ("after=1.5", "after"), ("limit=0", "limit"),
                             ("limit=501", "limit"), ("limit=10000", "limit"),
                             ("limit=-5", "limit"), ("limit=" + "9" * 30, "limit"),
                             ("limit=1&limit=2", "limit"), ("before=3&after=1", "before or after"),
                             ("befor=3", "befor"), ("game=abc", "game")):
            status, reply = await call(s, server, "GET", "/api/journal?" + query)
            assert status == 400 and named in reply["error"], (query, reply)
        assert (await call(s, server, "GET", "/api/state"))[1] == before_state


async def test_write_routes_with_the_token(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, _peach = (p["id"] for p in state["players"])
        status, outcome = await call(s, server, "POST", "/api/press", headers=AUTH)
        assert status == 200 and outcome["kind"] in {"coins", "bowser", "power_up", "game_over"}
        assert ("coins" in outcome) == (outcome["kind"] == "coins")
        status, entry = await call(s, server, "POST", "/api/transfers",
                                   {"from": mario, "to": luigi, "amount": 4, "note": "rent"},
                                   headers=AUTH)
        assert status == 201 and entry["amount"] == 4 and entry["from"] == mario
        status, undo = await call(s, server, "POST", "/api/undo", headers=AUTH)
        assert status == 201 and undo["undoes"] == entry["id"]
        assert await call(s, server, "POST", "/api/current", {"player": luigi},
                          headers=AUTH) == (200, {"current_player": luigi})
        status, game = await call(s, server, "POST", "/api/games",
                                  {"edition": "celebration", "players": ["Toad", "Daisy"]},
                                  headers=AUTH)
        assert status == 201
        _, state = await call(s, server, "GET", "/api/state")
        assert state["game"]["id"] == game["game"]
        assert [p["name"] for p in state["players"]] == ["Toad", "Daisy"]


async def test_a_retried_transfer_with_the_same_key_is_written_once(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario = state["players"][0]["id"]
        body = {"from": mario, "to": "bank", "amount": 3}
        headers = {**AUTH, "Idempotency-Key": "tablet-1"}
        first = await call(s, server, "POST", "/api/transfers", body, headers=headers)
        again = await call(s, server, "POST", "/api/transfers", body, headers=headers)
        assert first == again and first[0] == 201
        _, state = await call(s, server, "GET", "/api/state")
        assert state["players"][0]["balance"] == 27


async def test_page_editions_assign_next_and_go(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        async with s.get(server.url) as page:
            assert page.status == 200 and "Question Block" in await page.text()
        async with s.get(server.url + "static/page/main.js") as script:
            assert script.status == 200 and "WebSocket" in await script.text()
        status, editions = await call(s, server, "GET", "/api/editions")
        assert [e["id"] for e in editions["editions"]] == ["celebration", "gamer",
                                                          "mario_kart", "movie", "wiggly_worms"]
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        assert await call(s, server, "POST", "/api/next", headers=AUTH) == (
            200, {"current_player": luigi})
        status, entry = await call(s, server, "POST", "/api/go", {"player": luigi},
                                   headers=AUTH)
        assert status == 201 and entry["to"] == luigi and entry["amount"] == 2
        status, refusal = await call(s, server, "POST", "/api/go", {"player": peach},
                                     headers=AUTH)  # Peach's GO is on her own turn
        assert status == 409 and refusal["rule"] == "pass_go"
        await call(s, server, "POST", "/api/current", {"player": None}, headers=AUTH)
        await call(s, server, "POST", "/api/press", headers=AUTH)
        await asyncio.sleep(0)
        _, state = await call(s, server, "GET", "/api/state")
        waiting = state["unassigned"][0]["id"]
        status, record = await call(s, server, "POST", "/api/assign",
                                    {"outcome": waiting, "player": mario}, headers=AUTH)
        assert status == 200 and record["player"] == mario and record["assigned"]
        status, reply = await call(s, server, "POST", "/api/assign",
                                   {"outcome": waiting, "player": luigi}, headers=AUTH)
        assert status == 400 and "already assigned" in reply["error"]


BAD_WRITES = [
    ("/api/transfers", {"from": 999, "to": "bank", "amount": 5}, "unknown payer 999"),
    ("/api/transfers", {"from": "bank", "to": "bank", "amount": 5}, "cannot pay itself"),
    ("/api/transfers", {"from": "P1", "to": "bank", "amount": 0}, "between 1 and 10000"),
    ("/api/transfers", {"from": "P1", "to": "bank", "amount": 10001}, "between 1 and 10000"),
    ("/api/transfers", {"from": "P1", "to": "bank", "amount": "5"}, "whole number"),
    ("/api/transfers", {"from": "P1", "to": "P1", "amount": 5}, "cannot pay themselves"),
    ("/api/transfers", {"from": "P1", "to": "bank", "amount": 5, "x": 1}, "unknown field"),
    ("/api/transfers", [1, 2], "JSON object"),
    ("/api/current", {}, "player is required"),
    ("/api/current", {"player": "Mario"}, "unknown player"),
    ("/api/games", {"edition": "classic", "players": ["A", "B"]}, "unknown edition"),
    ("/api/games", {"players": ["A"]}, "2 to 6 players"),
    ("/api/games", {"players": "AB"}, "must be a list"),
    ("/api/press", {"force": True}, "unknown field"),
]


async def test_bad_input_is_a_400_with_an_error_and_changes_nothing(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        _, before = await call(s, server, "GET", "/api/state")
        p1 = before["players"][0]["id"]
        for path, body, problem in BAD_WRITES:
            if isinstance(body, dict):
                body = {k: (p1 if v == "P1" else v) for k, v in body.items()}
            status, reply = await call(s, server, "POST", path, body, headers=AUTH)
            assert status == 400, (path, body, reply)
            assert problem in reply["error"], (path, reply)
        for raw in (b"{not json", b"\xff\xfe", b"[]", b'"text"'):
            status, reply = await call(s, server, "POST", "/api/transfers", raw=raw,
                                       headers=AUTH)
            assert status == 400 and "error" in reply
        status, reply = await call(s, server, "POST", "/api/undo", headers=AUTH)
        assert status == 400 and reply["error"] == "nothing to undo"
        status, reply = await call(s, server, "GET", "/api/journal?game=abc")
        assert status == 400
        for path, raw in (("/api/transfers", b'{"from": "bank", "to": P1, "amount": 1,'
                                             b' "note": "\\ud800"}'),
                          ("/api/transfers", b"[" * 10000),
                          ("/api/assign",
                           b'{"outcome": ' + str(2**70).encode() + b', "player": 1}'),
                          ("/api/go", b'{"player": 99999999999999999999999}')):
            raw = raw.replace(b"P1", str(p1).encode())
            status, reply = await call(s, server, "POST", path, raw=raw, headers=AUTH)
            assert status == 400 and "error" in reply, (path, raw[:60], reply)
        status, reply = await call(s, server, "GET", "/api/journal?game=%C2%B2")
        assert status == 400
        status, reply = await call(s, server, "POST", "/api/transfers",
                                   raw=b'{"note": "' + b"x" * 20000 + b'"}', headers=AUTH)
        assert status == 413 and "error" in reply
        status, reply = await call(s, server, "GET", "/api/nothing-here")
        assert status == 404 and "error" in reply
        _, after = await call(s, server, "GET", "/api/state")
        assert after == before


async def test_writes_need_the_table_token(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        _, before = await call(s, server, "GET", "/api/state")
        mario = before["players"][0]["id"]
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN},
                        {"Authorization": "Bearer \u00ff\u00fe"}):
            for path, body in (("/api/press", None), ("/api/undo", None), ("/api/next", None),
                               ("/api/go", {"player": mario}),
                               ("/api/assign", {"outcome": 1, "player": mario}),
                               ("/api/transfers", {"from": mario, "to": "bank", "amount": 1}),
                               ("/api/current", {"player": None}),
                               ("/api/games", {"players": ["A", "B"]})):
                status, reply = await call(s, server, "POST", path, body, headers=headers)
                assert status == 401 and reply == {
                    "error": "missing or wrong table token",
                    "error_said": {"m": "missing or wrong table token"}}
        _, after = await call(s, server, "GET", "/api/state")
        assert after == before


async def test_websocket_pushes_every_change_to_every_page(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        ws_url = server.url.replace("http", "ws") + "ws"
        async with s.ws_connect(ws_url) as one, s.ws_connect(ws_url) as two:
            for ws in (one, two):
                hello = await ws.receive_json(timeout=5)
                assert hello["type"] == "state" and hello["action"] == "hello"
            status, outcome = await call(s, server, "POST", "/api/press", headers=AUTH)
            assert status == 200
            for ws in (one, two):
                pushed = await ws.receive_json(timeout=5)
                assert pushed["type"] == "outcome" and pushed["kind"] == outcome["kind"]
                state = await ws.receive_json(timeout=5)
                assert state["type"] == "state" and state["action"] == "outcome"
                assert state["state"]["last_outcome"]["kind"] == outcome["kind"]


write_bodies = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=8,
)
field_bodies = st.fixed_dictionaries({}, optional={
    "from": write_bodies, "to": write_bodies, "amount": write_bodies, "note": write_bodies,
    "player": write_bodies, "edition": write_bodies, "players": write_bodies,
    "outcome": write_bodies})


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(st.tuples(
    st.sampled_from(["/api/transfers", "/api/current", "/api/games", "/api/undo",
                     "/api/assign", "/api/go", "/api/next"]),
    st.one_of(field_bodies, write_bodies)), min_size=1, max_size=6))
def test_fuzzed_writes_never_5xx_and_rejections_change_nothing(
    tmp_path: Path, calls: list[tuple[str, Any]]
) -> None:
    async def run() -> None:
        folder = Path(tempfile.mkdtemp(dir=tmp_path))
        async with serving(folder) as (server, _), aiohttp.ClientSession() as s:
            for path, body in calls:
                _, before = await call(s, server, "GET", "/api/state")
                status, reply = await call(s, server, "POST", path, body, headers=AUTH)
                assert status < 500, (path, body, reply)
                if status >= 400:
                    assert isinstance(reply["error"], str)
                    _, after = await call(s, server, "GET", "/api/state")
                    assert after == before, (path, body)

    asyncio.run(run())


def test_table_token_is_made_once_and_kept(tmp_path: Path) -> None:
    first = load_or_create_token("", tmp_path)
    assert len(first) >= 16 and (tmp_path / "table-token").stat().st_mode & 0o777 == 0o600
    assert load_or_create_token("", tmp_path) == first
    assert load_or_create_token("from-config-0123456789", tmp_path) == "from-config-0123456789"
    (tmp_path / "table-token").write_text("short\n")
    assert load_or_create_token("", tmp_path) not in ("short", first)


async def test_press_while_sounding_is_a_409(tmp_path: Path) -> None:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)))
    app = Daemon(config, pin_factory=MockFactory(), backend=NullBackend(),
                    clock=lambda: 5.0)  # time stands still: the first outcome never ends
    app.start(asyncio.get_running_loop())
    server = await start_web(app.table, "127.0.0.1", 0, TOKEN)
    try:
        async with aiohttp.ClientSession() as s:
            assert (await call(s, server, "POST", "/api/press", headers=AUTH))[0] == 200
            status, reply = await call(s, server, "POST", "/api/press", headers=AUTH)
            assert (status, reply["error"]) == (409, "the block is still sounding")
            assert str(_said_from_json(reply["error_said"])) == reply["error"]
    finally:
        await server.stop()
        app.close()


async def test_a_page_that_never_reads_cannot_hold_up_others_or_shutdown(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        ws_url = server.url.replace("http", "ws") + "ws"
        stuck = await s.ws_connect(ws_url)  # connects, then never reads again
        reader = await s.ws_connect(ws_url)
        await reader.receive_json(timeout=5)
        first = app.bank.run(lambda bank: bank.players()[0].id)
        for _ in range(150):  # more than a slow page's queue holds
            await app.table.act(Move("transfer", {"from": first, "to": "bank", "amount": 1}))
        last = None
        while last is None or last["state"]["players"][0]["balance"] != 30 - 150:
            message = await reader.receive_json(timeout=5)
            last = message if message["type"] == "state" else last
        hub = server.runner.app[HUB]
        assert len(hub.clients) == 2
        assert all(q.qsize() <= 100 for q in hub.clients)
        await asyncio.wait_for(server.stop(), 10)  # a hang guard, not a timing claim
        ends = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
        kinds = [(await stuck.receive(timeout=5)).type for _ in range(300) if not stuck.closed]
        assert stuck.closed or kinds[-1] in ends  # the stuck page was closed by the server


def _said_from_json(data: Any) -> Any:
    """A server's ``*_said`` JSON back as a Said (plain text as it is), to put into words."""
    from companion.i18n.said import Said

    if isinstance(data, list):
        return tuple(_said_from_json(d) for d in data)
    if not isinstance(data, dict):
        return data
    args = tuple((k, _said_from_json(v)) for k, v in (data.get("a") or {}).items())
    return Said(data["m"], data.get("p"), data.get("n"), args)


async def test_a_refusal_carries_its_words_for_the_page(tmp_path: Path) -> None:
    """Every refusal's JSON has ``error_said``: the same message for the page to put into its
    own language; in English it is the ``error`` word for word, and any catalog renders it."""
    from companion.i18n import translator
    from companion.i18n.said import words

    german = translator("de")
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        _, before = await call(s, server, "GET", "/api/state")
        p1 = before["players"][0]["id"]
        replies = []
        for path, body, _problem in BAD_WRITES:
            if isinstance(body, dict):
                body = {k: (p1 if v == "P1" else v) for k, v in body.items()}
            replies.append(await call(s, server, "POST", path, body, headers=AUTH))
        replies.append(await call(s, server, "POST", "/api/undo", headers=AUTH))
        replies.append(await call(s, server, "GET", "/api/journal?limit=x"))
        replies.append(await call(s, server, "POST", "/api/undo"))  # no token: 401
        for status, reply in replies:
            assert status in (400, 401) and "error_said" in reply, reply
            said = _said_from_json(reply["error_said"])
            assert isinstance(reply["error_said"], dict), reply  # chosen with say()
            assert words(said) == reply["error"], reply
            assert isinstance(words(said, german), str) and words(said, german)
        status, reply = await call(s, server, "POST", "/api/transfers",
                                   {"from": 999, "to": "bank", "amount": 5}, headers=AUTH)
        assert reply["error_said"] == {"m": "unknown {what} {value}",
                                       "a": {"what": "payer", "value": "999"}}
