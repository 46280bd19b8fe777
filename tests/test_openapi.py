"""The API described once (issue 42): ``GET /api/openapi.json`` is made from the moves'
declarations and the routes', and schemathesis reads it against the real daemon, its SQLite
file and server, in every edition: a bounded number of examples per route, a fixed seed. No
answer is a 5xx, every answer fits its schema and its documented status, and a refused
request changes nothing."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from gpiozero.pins.mock import MockFactory
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode, checks

from companion.audio.null_backend import NullBackend
from companion.bank.moves import ACTIONS
from companion.config import AudioConfig, Config, DataConfig, GameConfig
from companion.daemon import Daemon
from companion.web.server import start_web
from tests.conftest import StepClock

TOKEN = "openapi-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TABLES = {"celebration": ("Ann", "Ben", "Cy"), "movie": ("Mario", "Luigi", "Peach"),
          "gamer": ("Ann", "Ben", "Cy"), "mario_kart": ("Ann", "Ben"),
          "wiggly_worms": ("Ann", "Ben")}
EXAMPLES = 10
"""Examples per route and edition: a bounded run (each one is a real request, and two reads
of the state around it)."""
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
"""Requests that fit the schema, and requests that don't (each must be refused cleanly)."""
CHECKS = [checks.not_a_server_error, checks.status_code_conformance,
          checks.content_type_conformance, checks.response_schema_conformance]


@contextlib.contextmanager
def daemon(folder: Path, edition: str) -> Iterator[str]:
    """The real daemon on mock pins with its web server, on a loop of its own thread (the
    requests schemathesis makes wait for their answers)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(folder)),
                    game=GameConfig(edition=edition, players=TABLES[edition]))

    async def start() -> Any:
        app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(7),
                     backend=NullBackend(), clock=StepClock(100.0, 10))
        app.start(asyncio.get_running_loop())
        return app, await start_web(app.table, "127.0.0.1", 0, TOKEN)

    async def stop(app: Any, server: Any) -> None:
        await server.stop()
        await app.table.drain()
        app.close()

    app, server = asyncio.run_coroutine_threadsafe(start(), loop).result(60)
    try:
        yield server.url.rstrip("/")
    finally:
        asyncio.run_coroutine_threadsafe(stop(app, server), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def unchanged(state: dict[str, Any]) -> dict[str, Any]:
    """The table as a refusal must leave it (the lever timer counts down by itself)."""
    return {k: v for k, v in state.items() if k != "timer"}


def test_the_document_is_made_from_every_move_and_route(tmp_path: Path) -> None:
    with daemon(tmp_path, "celebration") as base:
        doc = requests.get(base + "/api/openapi.json", timeout=30).json()
    assert doc["openapi"] == "3.1.0"
    for action in ACTIONS.routed():
        operation = doc["paths"][action.path][action.method.lower()]
        assert operation["operationId"] == action.name
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert set(body["properties"]) - {"correction"} == {
            f.name for f in action.fields if not f.path}
        assert ("correction" in body["properties"]) == action.corrects
        assert "409" in operation["responses"]
    assert doc["paths"]["/api/state"]["get"]["responses"]["200"]
    assert "/ws" not in doc["paths"] and "/" not in doc["paths"]


@pytest.mark.parametrize("edition", list(TABLES))
def test_schemathesis_finds_no_5xx_no_answer_off_its_schema_and_no_refusal_that_writes(
        tmp_path: Path, edition: str) -> None:
    counts = {"requests": 0, "refused": 0, "written": 0}
    with daemon(tmp_path, edition) as base, requests.Session() as session:
        schema = schemathesis.openapi.from_url(base + "/api/openapi.json")
        for found, mode in itertools.product(schema.get_all_operations(), MODES):
            operation = found.ok()

            @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                      phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode))
            def request(case: Any) -> None:
                before = session.get(base + "/api/state", headers=AUTH, timeout=30).json()
                response = case.call(base_url=base, session=session, headers=AUTH,
                                     timeout=30)
                case.validate_response(response, checks=CHECKS)
                counts["requests"] += 1
                if response.status_code >= 400:
                    counts["refused"] += 1
                    after = session.get(base + "/api/state", headers=AUTH, timeout=30).json()
                    assert unchanged(after) == unchanged(before), (
                        case.method, case.path, response.status_code, response.text[:300])
                elif case.method != "GET":
                    counts["written"] += 1

            try:
                request()
            except Unsatisfiable:  # nothing in this route a request could get wrong
                if mode is not GenerationMode.NEGATIVE:
                    raise
    print(f"schemathesis, {edition}: {counts}")
    assert counts["requests"] >= EXAMPLES * 20 and counts["refused"] and counts["written"]
