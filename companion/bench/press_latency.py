"""Child process of ``companion bench``: times press -> first PCM byte through real ALSA.

Runs with ``HOME`` pointing at a folder whose ``.asoundrc`` makes ALSA's default PCM the
``file`` plugin writing into a FIFO. The daemon runs as in production (MockFactory pin,
debounce, event loop, simpleaudio), with short override sounds so that presses need not wait
for a full outcome to finish sounding.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import resource
import tempfile
import threading
import time
import wave
from pathlib import Path

from companion.audio.library import SOUND_NAMES
from companion.audio.pcm import RATE
from companion.bench.stats import percentile
from companion.config import AudioConfig, Config, DataConfig
from companion.daemon import Daemon
from companion.events import BlockOutcome, Event

SHORT_SOUND_SECONDS = 0.02
PRESS_TIMEOUT = 2.0


def write_short_sounds(folder: Path) -> None:
    """Every sound as 20 ms of a square wave: presses need not wait for long sounds."""
    frames = int(RATE * SHORT_SOUND_SECONDS)
    data = b"".join((8000 if (i // 20) % 2 else -8000).to_bytes(2, "little", signed=True)
                    for i in range(frames))
    for name in SOUND_NAMES:
        with wave.open(str(folder / f"{name}.wav"), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(RATE)
            wav.writeframes(data)


def _reader(fifo: Path, arrivals: queue.Queue[tuple[float, int]]) -> None:
    # O_RDWR keeps the FIFO open between ALSA streams, so reads never see EOF.
    fd = os.open(fifo, os.O_RDWR)
    while True:
        chunk = os.read(fd, 65536)
        arrivals.put((time.perf_counter(), len(chunk)))




async def measure(presses: int, fifo: Path) -> dict[str, object]:
    arrivals: queue.Queue[tuple[float, int]] = queue.Queue()
    threading.Thread(target=_reader, args=(fifo, arrivals), daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        write_short_sounds(Path(tmp))
        config = Config(audio=AudioConfig(backend="simpleaudio", sounds_dir=tmp),
                        data=DataConfig(dir=tmp))
        from gpiozero.pins.mock import MockFactory

        app = Daemon(config, pin_factory=MockFactory())
        app.start(asyncio.get_running_loop())
        pin = app.button.pin
        await asyncio.sleep(0.2)
        while not arrivals.empty():  # the device probe's silence
            arrivals.get_nowait()
        events: list[Event] = []
        app.table.subscribe(events.append)
        latencies: list[float] = []
        lost = 0
        for _ in range(presses):
            events.clear()
            start = time.perf_counter()
            pin.drive_low()
            first: float | None = None
            received, expected = 0, None
            deadline = start + PRESS_TIMEOUT
            while (expected is None or received < expected) and time.perf_counter() < deadline:
                await asyncio.sleep(0)  # lets the loop run the press
                if expected is None and events and isinstance(events[0], BlockOutcome):
                    expected = len(app.table.library.for_outcome(events[0].outcome).data)
                try:
                    at, size = arrivals.get(timeout=0.0005)
                except queue.Empty:
                    continue
                first = at if first is None else first
                received += size
            if first is None or expected is None or received < expected:
                lost += 1
            else:
                latencies.append((first - start) * 1000)
            pin.drive_high()
            # Like a player: wait for the outcome to finish sounding (presses meanwhile are
            # ignored by design), and respect the debounce's release settle and lockout.
            await asyncio.sleep(max(0.1, app.table.block.busy_until - app.clock() + 0.01))
        app.close()
    if not latencies:
        raise SystemExit("no press reached ALSA")
    latencies.sort()
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "press_to_pcm_ms": {
            "n": presses,
            "p50": round(percentile(latencies, 0.50), 3),
            "p99": round(percentile(latencies, 0.99), 3),
            "max": round(latencies[-1], 3),
            "lost": lost,
        },
        "rss_mib": round(rss_kib / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--fifo", type=Path, required=True)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.presses, args.fifo))))


if __name__ == "__main__":
    main()
