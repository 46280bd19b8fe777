"""Issue 43 items 6-8, on Debian's mosquitto: a stranger on the LAN flooding the house's
buttons (``<prefix>/command/press``) and the device's discovery topics. The table's presses
are all served, remote presses beyond the rate are dropped, counted and said once, a flood
leaves at most a short queue behind (a broker lost after it is noticed), and the journal of
the real daemon stays under a fixed number of bytes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from companion.app import commands as c
from companion.bench.mosquitto import Mosquitto, find_binary
from companion.events import BlockOutcome, Event, PressIgnored
from companion.mqtt.remote import QUEUE
from companion.mqtt.topics import Topics, hostname
from tests.conftest import spawn_companion, wait_for_line
from tests.mqtt_heard import home_config, listening, running

if find_binary() is None:  # make test installs it (Makefile APT_TEST_PACKAGES)
    raise RuntimeError("the MQTT tests need Debian's mosquitto: apt install mosquitto")

PRESS_TOPIC = "question-block/command/press"
LOG_BYTES = 24_000
"""The most the daemon may log (start and stop included) under 4,000 PRESSes and 4,000 fake
discovery configs; the old code logged about 800 KB."""


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker that queues every message for a busy subscriber (mosquitto's default drops
    the 1,001st: the tests' last message, the one that says the rest were heard)."""
    mosquitto = Mosquitto(tmp_path / "broker")
    with mosquitto.config.open("a") as config:
        config.write("max_queued_messages 0\n")
    with mosquitto as running_broker:
        yield running_broker


def _client(port: int, name: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client


@contextlib.contextmanager
def _flooding(port: int) -> Iterator[list[int]]:
    """Another client on its own thread publishing PRESS on the press button without end
    (paced a little, so the table's process still gets the CPU): the count sent so far."""
    client = _client(port, "stranger")
    sent = [0]
    stop = threading.Event()

    def flood() -> None:
        while not stop.is_set():
            client.publish(PRESS_TOPIC, "PRESS", qos=0)
            sent[0] += 1
            stop.wait(0.002)

    thread = threading.Thread(target=flood, daemon=True)
    thread.start()
    try:
        yield sent
    finally:
        stop.set()
        thread.join(5)
        client.loop_stop()
        client.disconnect()


def _publish_all(port: int, messages: list[tuple[str, str, bool]]) -> None:
    """Publish ``messages`` (topic, payload, retained) at QoS 1 and wait until the broker has
    every one (in order: one client's messages reach a subscriber in the order sent)."""
    client = _client(port, "stranger-qos1")
    try:
        infos = [client.publish(topic, payload, qos=1, retain=retain)
                 for topic, payload, retain in messages]
        for info in infos:
            info.wait_for_publish(30)
    finally:
        client.loop_stop()
        client.disconnect()


async def _until(found: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Wait until ``found()`` is truthy (looking again each loop turn or so)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := found()):
        assert loop.time() < deadline, f"never: {what}"
        await asyncio.sleep(0.02)
    return value


async def test_a_press_flood_never_takes_the_block_from_the_table(
        tmp_path: Path, broker: Mosquitto) -> None:
    heard: list[Event] = []
    async with running(home_config(tmp_path / "data", broker.port)) as (app, home):
        app.table.subscribe(heard.append)
        await _until(lambda: home.link.connected, "connected")
        answers = [await app.table.act(c.Press(), source="tablet")]
        with _flooding(broker.port):
            async with listening(broker.port, ("question-block/command/#",)) as flood:
                for _ in range(3):  # the table presses each time its outcome has sounded
                    await _until(lambda: app.table.health().quiet,
                                 "the block quiet for the table (a flood keeps it sounding)",
                                 timeout=20)
                    # a player's reaction: the flood is heard a while longer, then the press
                    n = len(flood.log)
                    await flood.until(lambda n=n: len(flood.log) > n + 50, what="the flood")
                    answers.append(await app.table.act(c.Press(), source="tablet"))
            refused = [e for e in heard if isinstance(e, PressIgnored) and e.source == "tablet"]
            assert all(isinstance(a.event, BlockOutcome) for a in answers), refused[:3]
            assert not [e for e in heard if isinstance(e, BlockOutcome) and e.source == "home"]
            await _until(lambda: home.remote.dropped, "the flood seen")
        assert home.remote.quiet_refused >= 1  # the first few a minute: the table's time
        assert "remote presses flooding" in home.status()


async def test_presses_beyond_the_rate_are_dropped_counted_said_once_and_on_healthz(
        tmp_path: Path, broker: Mosquitto, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="companion")
    flood = 300
    config = home_config(tmp_path / "data", broker.port, quiet_after_table_press_s=0.0)
    async with running(config) as (app, home):
        await _until(lambda: home.link.connected, "connected")
        # the presses, then one message the link ignores: once it is, every press was heard
        await asyncio.to_thread(_publish_all, broker.port,
                                [(PRESS_TOPIC, "PRESS", False)] * flood +
                                [(PRESS_TOPIC, "garbage", False)])
        await _until(lambda: home.link.ignored == 1, "the last message heard")
        health = app.table.health
        await _until(lambda: health().presses + health().ignored >= 4, "4 presses")
        await app.table.drain()
        assert health().presses + health().ignored == config.mqtt.remote_presses_per_minute == 4
        assert home.remote.over_rate == flood - 4 and home.remote.dropped == flood - 4
        parts = {p.name: p for p in (await app.table.read(c.GetHealth())).parts}
        assert parts["mqtt"].ok
        assert parts["mqtt"].detail.endswith(f"remote presses flooding: {flood - 4} dropped")
    flooded = [r for r in caplog.records if "flooding" in r.getMessage()]
    assert len(flooded) == 1 and flooded[0].levelno == logging.WARNING, flooded


async def test_a_command_flood_leaves_a_bounded_queue_and_a_lost_broker_is_noticed(
        tmp_path: Path, broker: Mosquitto) -> None:
    flood = 2000
    config = home_config(tmp_path / "data", broker.port, quiet_after_table_press_s=0.0,
                         remote_presses_per_minute=60)
    async with running(config) as (app, home):
        await _until(lambda: home.link.connected, "connected")
        loop = asyncio.get_running_loop()
        created = [0]

        def counting(loop: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> asyncio.Task:
            code = getattr(coro, "cr_code", None)  # aiomqtt makes two for each message
            created[0] += code is not None and f"{os.sep}companion{os.sep}" in code.co_filename
            return asyncio.Task(coro, loop=loop, **kw)

        loop.set_task_factory(counting)  # every task of ours made on the loop from now on
        await asyncio.to_thread(_publish_all, broker.port,
                                [(PRESS_TOPIC, "PRESS", False),
                                 ("question-block/command/timer", "PRESS", False)] * (flood // 2)
                                + [(PRESS_TOPIC, "garbage", False)])
        await _until(lambda: home.link.ignored == 1, "the last message heard")
        await app.table.drain()
        # Not a task each: at most a few for each of the 120 the rate lets through (a
        # press's bank write, a timer's ticker), none for the 1,880 dropped.
        assert created[0] < flood // 4, created
        await _until(lambda: home.pending == 0, "the queue emptied")
        await app.table.drain()
        loop.set_task_factory(None)
        assert home.most_pending <= QUEUE
        health = app.table.health()
        served = health.presses + health.ignored
        admitted = flood - home.remote.over_rate
        assert home.remote.over_rate == flood - 120 and served <= 60
        assert served + home.remote.overflow <= admitted  # the rest were timer starts
        broker.kill()
        await _until(lambda: not home.link.connected, "the broker's loss noticed")
        assert "down" in home.status()


def _daemon_config(tmp_path: Path, port: int) -> Path:
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path / "data"}"\n[web]\nhost = "127.0.0.1"\n'
                      f'port = 0\n[reader]\nenabled = false\n[display]\nenabled = false\n'
                      f'[mqtt]\nenabled = true\nhost = "127.0.0.1"\nport = {port}\n')
    return config


async def test_the_journal_stays_small_under_a_flood_of_presses_and_fake_configs(
        tmp_path: Path, broker: Mosquitto) -> None:
    n = 4000
    node = Topics.for_host("question-block", "homeassistant", hostname()).node
    fakes = [f"homeassistant/sensor/{node}/fake_{i}{'x' * 60_000 * (i < 20)}/config"
             for i in range(n)]  # the first few with a 60 KB name, logged as they come
    env = {k: v for k, v in os.environ.items() if k != "JOURNAL_STREAM"}
    with spawn_companion("run", "--config", str(_daemon_config(tmp_path, broker.port)),
                         env=env) as proc:
        assert proc.stderr is not None
        seen = wait_for_line(proc.stderr, "web: the tablet API is at")
        api = seen.rsplit(" at ", 1)[1].split()[0].rstrip("/").removesuffix("/api/state")
        if "MQTT: connected" not in seen:
            seen += wait_for_line(proc.stderr, "MQTT: connected")
        rest: list[str] = []  # read all along: a full pipe would stall the daemon
        drain = threading.Thread(target=lambda: rest.extend(proc.stderr or ()), daemon=True)
        drain.start()
        async with listening(broker.port, ("homeassistant/#",)) as heard:
            await asyncio.to_thread(_publish_all, broker.port,
                                    [(PRESS_TOPIC, "PRESS", False)] * n +
                                    [(t, json.dumps({"name": "fake"}), True) for t in fakes])
            # the last fake config cleared (an empty retained message; they are cleared in
            # the order heard): every message was heard
            await heard.until(lambda: heard.latest.get(fakes[-1]) == b"", timeout=120,
                              what="the fake configs cleared")
            cleared = all(heard.latest.get(t) == b"" for t in fakes)
        with urllib.request.urlopen(api + "/healthz", timeout=10) as answer:
            mqtt_line = json.loads(answer.read())["parts"]["mqtt"]["detail"]
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 30) == 0
        drain.join(10)
    log = (seen + "".join(rest)).encode()
    print(f"daemon log under {n} PRESSes and {n} fake configs: {len(log)} bytes")
    assert len(log) < LOG_BYTES, log[-3000:].decode()
    assert "remote presses flooding" in mqtt_line, mqtt_line
    text = log.decode()
    assert text.count("flooding") == 1, text[-3000:]
    assert "suppress" in text and "removing a stale entity" in text
    assert cleared  # each one, though only the first few were logged
