"""A table press during an MQTT PRESS flood in ``companion bench``: the tablet's press (its
outcome drawn, sounded and banked) while another process on the broker publishes ``PRESS`` to
``<prefix>/command/press`` as fast as it can, against the same press with the flood stopped,
interleaved in one run. Also how many of the table's presses the flood made "still sounding"
(issue 43: 16 of 17) and how many remote commands the daemon heard and dropped."""

from __future__ import annotations

import asyncio
import itertools
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bench.mosquitto import Mosquitto, find_binary
from companion.bench.stats import summary

FLOODER = """
import sys, threading
import paho.mqtt.client as mqtt
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-flooder")
client.connect("127.0.0.1", int(sys.argv[1]))
client.loop_start()
on = threading.Event()
def flood():
    while True:
        on.wait()
        client.publish(sys.argv[2], "PRESS", qos=0)
threading.Thread(target=flood, daemon=True).start()
print("ready", flush=True)
for line in sys.stdin:
    (on.set if line.strip() == "on" else on.clear)()
"""
"""Another process (another host on the LAN): "on" and "off" on its stdin."""
HEARD_FIRST = 50
"""Flood commands the daemon hears before a flooded round's press."""
SETTLE_S = 0.3
"""After the flood stops: its last messages reach the daemon before the quiet round."""


def table_press_in_flood_ms(rounds: int = 40) -> dict[str, Any]:
    """The tablet's press with and without a PRESS flood, ``rounds`` each, interleaved."""
    if find_binary() is None:
        return {"skipped": "mosquitto is not installed (apt install mosquitto)"}
    with tempfile.TemporaryDirectory(prefix="companion-bench-flood-") as tmp, \
            Mosquitto(Path(tmp) / "broker") as broker:
        return asyncio.run(_measure(broker.port, Path(tmp) / "data", rounds))


async def _measure(port: int, data: Path, rounds: int) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from companion.app import commands as c
    from companion.audio.null_backend import NullBackend
    from companion.config import AudioConfig, Config, DataConfig, GameConfig, MqttConfig
    from companion.daemon import Daemon
    from companion.events import BlockOutcome
    from companion.mqtt.frontend import HomeFrontend

    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(data)),
                    game=GameConfig(players=("Mario", "Luigi")),
                    mqtt=MqttConfig(enabled=True, host="127.0.0.1", port=port))
    ticks = itertools.count(0, 60)  # each reading a minute on: the table's last press is over
    app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(5),
                 backend=NullBackend(), clock=lambda: float(next(ticks)))
    home = HomeFrontend(config.mqtt, host="bench")
    runner = asyncio.ensure_future(app.run([home]))
    await app.ready.wait()
    flooder = subprocess.Popen([sys.executable, "-c", FLOODER, str(port),
                                home.topics.command("press")], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert flooder.stdin is not None and flooder.stdout is not None
    flooded: list[float] = []
    quiet: list[float] = []
    refused = {"flood": 0, "quiet": 0}
    try:
        await asyncio.to_thread(flooder.stdout.readline)  # "ready"
        while not home.link.connected:
            await asyncio.sleep(0.05)

        async def press(into: list[float], kind: str) -> None:
            start = time.perf_counter()
            answer = await app.table.act(c.Press(), source="tablet")
            if isinstance(answer.event, BlockOutcome):
                into.append((time.perf_counter() - start) * 1000)
            else:
                refused[kind] += 1

        async def with_flood() -> None:
            flooder.stdin.write("on\n")  # type: ignore[union-attr]
            flooder.stdin.flush()  # type: ignore[union-attr]
            heard = home.remote.heard
            while home.remote.heard < heard + HEARD_FIRST:
                await asyncio.sleep(0.005)
            await press(flooded, "flood")
            flooder.stdin.write("off\n")  # type: ignore[union-attr]
            flooder.stdin.flush()  # type: ignore[union-attr]
            await asyncio.sleep(SETTLE_S)

        async def without() -> None:
            await press(quiet, "quiet")

        warm = rounds // 5
        for i in range(rounds + warm):
            kept = (len(flooded), len(quiet))
            for step in ((with_flood, without) if i % 2 == 0 else (without, with_flood)):
                await step()
            if i < warm:
                del flooded[kept[0]:], quiet[kept[1]:]
    finally:
        flooder.kill()
        flooder.communicate(timeout=10)
        app.request_stop()
        await runner
    during, alone = summary(flooded, rounds), summary(quiet, rounds)
    ratio = round(during["p50"] / alone["p50"], 2) if "p50" in during and "p50" in alone \
        else None
    return {"table_press_during_flood_ms": during, "table_press_alone_ms": alone,
            "ratio_p50": ratio, "table_presses_refused": refused,
            "remote_commands_heard": home.remote.heard,
            "remote_commands_dropped": home.remote.dropped + home.remote.quiet_refused}
