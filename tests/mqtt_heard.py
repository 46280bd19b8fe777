"""The tests' side of the broker: a real MQTT client that hears everything under the table's
and Home Assistant's prefixes, and the daemon with its MQTT frontend on a private mosquitto."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt
from gpiozero.pins.mock import MockFactory

from companion.audio.null_backend import NullBackend
from companion.config import AudioConfig, Config, DataConfig, GameConfig, MqttConfig
from companion.daemon import Daemon
from companion.mqtt.frontend import HomeFrontend

HANG_S = 120.0
"""How long a test waits for what it must hear, or for the daemon to start or stop: a hang
guard, generous for a loaded machine (it was 15 s, which one overran)."""
HOST = "tablepi"
NODE = f"question_block_{HOST}"


@dataclass
class Heard:
    """Every message heard, in order, and the latest payload of each topic."""

    client: aiomqtt.Client
    log: list[tuple[str, bytes, bool]] = field(default_factory=list)
    latest: dict[str, bytes] = field(default_factory=dict)
    _new: asyncio.Event = field(default_factory=asyncio.Event)

    async def pump(self) -> None:
        async for message in self.client.messages:
            payload = message.payload if isinstance(message.payload, bytes) else \
                str(message.payload or "").encode()
            self.log.append((message.topic.value, payload, message.retain))
            self.latest[message.topic.value] = payload
            self._new.set()

    async def until(self, found: Callable[[], Any], timeout: float = HANG_S,
                    what: str = "") -> Any:
        """Wait until ``found()`` is truthy; its value."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (value := found()):
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"never heard {what or found}; heard: "
                                     f"{[t for t, _, _ in self.log][-40:]}")
            self._new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), min(left, 0.2))
        return value

    def json(self, topic: str) -> Any:
        raw = self.latest.get(topic)
        return json.loads(raw) if raw else None

    def configs(self, discovery: str = "homeassistant") -> dict[tuple[str, str], Any]:
        """The retained discovery configs now: (component, object id) -> payload."""
        found = {}
        for topic, raw in self.latest.items():
            parts = topic.split("/")
            if parts[0] == discovery and len(parts) == 5 and parts[2] == NODE and raw:
                found[(parts[1], parts[3])] = json.loads(raw)
        return found

    def events(self, prefix: str = "question-block") -> list[dict[str, Any]]:
        return [json.loads(p) for t, p, _ in self.log if t == f"{prefix}/event"]

    def state(self, prefix: str = "question-block") -> Any:
        return self.json(f"{prefix}/state")


@contextlib.asynccontextmanager
async def listening(port: int, topics: tuple[str, ...] = ("question-block/#",
                                                          "homeassistant/#"),
                    **login: Any) -> AsyncIterator[Heard]:
    async with aiomqtt.Client("127.0.0.1", port, **login) as client:
        for topic in topics:
            await client.subscribe(topic, qos=1)
        heard = Heard(client)
        pump = asyncio.ensure_future(heard.pump())
        try:
            yield heard
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await pump


def home_config(data: Path, port: int, *, players: tuple[str, ...] = ("Mario", "Luigi"),
                edition: str = "celebration", **mqtt: Any) -> Config:
    return Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(data)),
                  game=GameConfig(edition=edition, players=players),
                  mqtt=MqttConfig(enabled=True, host="127.0.0.1", port=port, **mqtt))


@contextlib.asynccontextmanager
async def running(config: Config, seed: int = 3, **daemon: Any
                  ) -> AsyncIterator[tuple[Daemon, HomeFrontend]]:
    """The daemon (mock pins, never sounding) running with its MQTT frontend only."""
    app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(seed),
                 backend=NullBackend(), **daemon)
    home = HomeFrontend(config.mqtt, host=HOST, language=config.table.language)
    task = asyncio.ensure_future(app.run([home]))
    await asyncio.wait_for(app.ready.wait(), HANG_S)
    try:
        yield app, home
    finally:
        app.request_stop()
        await asyncio.wait_for(task, HANG_S)


async def press_pin(app: Daemon) -> None:
    pin = app.button.pin
    pin.drive_high()
    pin.drive_low()
    for _ in range(5):
        await asyncio.sleep(0)
