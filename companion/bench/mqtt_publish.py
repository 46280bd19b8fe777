"""Press to MQTT in ``companion bench``: a press on the block's (mock) pin until its outcome's
event reaches a subscriber through a private mosquitto, against a floor in the same run,
interleaved: a bare paho-mqtt client publishing a message of the same size to the same broker
and subscriber. The press's time is also split where the outcome reaches the table's bus:
before it, the press path (its sound starts first: ``SETTLE_AFTER_S``); after it, ours."""

from __future__ import annotations

import asyncio
import itertools
import queue
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion.bench.mosquitto import Mosquitto, find_binary
from companion.bench.stats import summary

FLOOR_TOPIC = "bench/floor"
WAIT_S = 3.0


def press_to_mqtt_ms(rounds: int = 100) -> dict[str, Any]:
    """Pin edge -> the outcome's event heard, and the bare publish -> heard, ``rounds`` each."""
    if find_binary() is None:
        return {"skipped": "mosquitto is not installed (apt install mosquitto)"}
    with tempfile.TemporaryDirectory(prefix="companion-bench-mqtt-") as tmp, \
            Mosquitto(Path(tmp) / "broker") as broker:
        return asyncio.run(_measure(broker.port, Path(tmp) / "data", rounds))


def _heard_by(port: int, topics: tuple[str, ...]) -> tuple[Any, queue.Queue[tuple[str, float]]]:
    """A paho subscriber on its own thread: (topic, arrival) for each message."""
    import paho.mqtt.client as mqtt

    arrivals: queue.Queue[tuple[str, float]] = queue.Queue()
    ready = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-listener")
    client.on_message = lambda _c, _u, msg: arrivals.put((msg.topic, time.perf_counter()))
    client.on_subscribe = lambda *_a: ready.set()
    client.on_connect = lambda c, *_a: c.subscribe([(t, 1) for t in topics])
    client.connect("127.0.0.1", port)
    client.loop_start()
    if not ready.wait(5):
        raise RuntimeError("the bench's subscriber did not subscribe")
    return client, arrivals


def _publisher(port: int) -> Any:
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-floor")
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


def _arrival(arrivals: queue.Queue[tuple[str, float]], topic: str) -> float | None:
    deadline = time.perf_counter() + WAIT_S
    while (left := deadline - time.perf_counter()) > 0:
        try:
            got, at = arrivals.get(timeout=left)
        except queue.Empty:
            return None
        if got == topic:
            return at
    return None


async def _measure(port: int, data: Path, rounds: int) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from companion.audio.null_backend import NullBackend
    from companion.config import AudioConfig, Config, DataConfig, GameConfig, MqttConfig
    from companion.daemon import Daemon
    from companion.mqtt.frontend import HomeFrontend

    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(data)),
                    game=GameConfig(players=("Mario", "Luigi")),
                    mqtt=MqttConfig(enabled=True, host="127.0.0.1", port=port))
    ticks = itertools.count(0, 60)  # each reading a minute on: no press is still sounding
    app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(5),
                 backend=NullBackend(), clock=lambda: float(next(ticks)))
    home = HomeFrontend(config.mqtt, host="bench")
    runner = asyncio.ensure_future(app.run([home]))
    await app.ready.wait()
    listener, arrivals = _heard_by(port, (home.topics.event, FLOOR_TOPIC))
    floor_client = _publisher(port)
    loop = asyncio.get_running_loop()
    try:
        while not home.link.connected:
            await asyncio.sleep(0.05)
        ours: list[float] = []
        after_bus: list[float] = []
        floor: list[float] = []
        on_bus: list[float] = []
        app.table.subscribe(lambda e: on_bus.append(time.perf_counter())
                            if type(e).__name__ == "BlockOutcome" else None)
        payload = b"x" * 700  # an outcome's event is about this long

        async def one_press() -> None:
            pin = app.button.pin
            pin.drive_high()
            await asyncio.sleep(0.03)  # released longer than [block] release_ms
            _drain(arrivals)
            on_bus.clear()
            start = time.perf_counter()
            pin.drive_low()
            at = await loop.run_in_executor(None, _arrival, arrivals, home.topics.event)
            if at is not None and on_bus:
                ours.append((at - start) * 1000)
                after_bus.append((at - on_bus[0]) * 1000)
            await asyncio.sleep(0.05)  # the state and table events after it

        async def one_floor() -> None:
            _drain(arrivals)
            start = time.perf_counter()
            floor_client.publish(FLOOR_TOPIC, payload, qos=1)
            at = await loop.run_in_executor(None, _arrival, arrivals, FLOOR_TOPIC)
            if at is not None:
                floor.append((at - start) * 1000)

        for i in range(rounds + rounds // 5):  # the first fifth warms up
            first, second = (one_press, one_floor) if i % 2 == 0 else (one_floor, one_press)
            kept = (len(ours), len(floor))
            await first()
            await second()
            if i < rounds // 5:
                del ours[kept[0]:], after_bus[kept[0]:], floor[kept[1]:]
    finally:
        floor_client.loop_stop()
        floor_client.disconnect()
        listener.loop_stop()
        listener.disconnect()
        app.request_stop()
        await runner
    mine, bare = summary(ours, rounds), summary(floor, rounds)
    ours_only = summary(after_bus, rounds)

    def ratio(figure: dict[str, Any]) -> float | None:
        return round(figure["p50"] / bare["p50"], 2) if "p50" in figure and "p50" in bare \
            else None

    return {"press_to_mqtt_ms": mine, "outcome_to_mqtt_ms": ours_only,
            "bare_paho_publish_ms": bare, "ratio_p50": ratio(mine),
            "outcome_ratio_p50": ratio(ours_only)}


def _drain(arrivals: queue.Queue[tuple[str, float]]) -> None:
    while True:
        try:
            arrivals.get_nowait()
        except queue.Empty:
            return
