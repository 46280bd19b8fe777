"""Child process of ``companion bench``: times press -> first PCM byte through real ALSA.

Runs with ``HOME`` pointing at a folder whose ``.asoundrc`` makes ALSA's default PCM the
``file`` plugin writing into a FIFO. The daemon runs as in production (MockFactory pin,
debounce, event loop, simpleaudio), with short override sounds so that presses need not wait
for a full outcome to finish sounding; the floor (the bare stack: a gpiozero button calling
``simpleaudio.play_buffer``) is timed in the same run, interleaved.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import queue
import resource
import struct
import subprocess
import sys
import tempfile
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from companion.audio.library import SOUND_NAMES
from companion.audio.pcm import RATE
from companion.bench.stats import percentile
from companion.config import AudioConfig, Config, DataConfig
from companion.daemon import Daemon
from companion.events import BlockOutcome, Event

SHORT_SOUND_SECONDS = 0.02
PRESS_TIMEOUT = 2.0
FLOOR_PIN = 5
"""The floor's bare button: a pin the daemon does not use."""


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


STAMPER = """
import os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)  # O_RDWR: open between ALSA streams, reads never see EOF
out = sys.stdout.buffer
while True:
    size = len(os.read(fd, 65536))
    out.write(struct.pack("=dq", time.perf_counter(), size))
    out.flush()
"""
"""The FIFO's reader, in a process of its own: each chunk ALSA writes is stamped the moment it
arrives (CLOCK_MONOTONIC, the same clock in every process), never late because one of the
daemon's threads holds this process's GIL. The sound itself is written by simpleaudio's C
thread, which never takes the GIL either."""


def _stamps(fifo: Path, arrivals: queue.Queue[tuple[float, int]]) -> subprocess.Popen[bytes]:
    """Start the stamper; its stamps arrive in ``arrivals`` (terminate it when done)."""
    stamper = subprocess.Popen([sys.executable, "-c", STAMPER, str(fifo)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def forward(out: IO[bytes]) -> None:
        record = struct.calcsize("=dq")
        while chunk := out.read(record):
            arrivals.put(struct.unpack("=dq", chunk))

    assert stamper.stdout is not None
    threading.Thread(target=forward, args=(stamper.stdout,), daemon=True).start()
    return stamper


def _first_byte(arrivals: queue.Queue[tuple[float, int]], start: float,
                expected: Callable[[], int | None]) -> float | None:
    """ms from ``start`` to the first PCM byte, once all ``expected()`` bytes arrived (None:
    the sound never fully arrived within PRESS_TIMEOUT)."""
    first: float | None = None
    received, deadline = 0, start + PRESS_TIMEOUT
    while time.perf_counter() < deadline:
        wanted = expected()
        if wanted is not None and received >= wanted:
            return None if first is None else (first - start) * 1000
        try:
            at, size = arrivals.get(timeout=0.0005)
        except queue.Empty:
            continue
        first = at if first is None else first
        received += size
    return None


def _drain(arrivals: queue.Queue[tuple[float, int]]) -> None:
    while not arrivals.empty():
        arrivals.get_nowait()


async def measure(presses: int, fifo: Path) -> dict[str, object]:
    """The daemon's presses and the floor's, interleaved (the order swapped every round): the
    floor is the bare stack doing the same job, a gpiozero ``Button`` on the same mock pin
    factory whose ``when_pressed`` calls ``simpleaudio.play_buffer`` with the same 20 ms
    sound, into the same ALSA sink."""

    arrivals: queue.Queue[tuple[float, int]] = queue.Queue()
    stamper = _stamps(fifo, arrivals)
    try:
        return await _interleaved(presses, arrivals)
    finally:
        stamper.terminate()
        stamper.wait()


async def _interleaved(presses: int, arrivals: queue.Queue[tuple[float, int]]
                       ) -> dict[str, object]:
    import simpleaudio
    from gpiozero import Button
    from gpiozero.pins.mock import MockFactory

    with tempfile.TemporaryDirectory() as tmp:
        write_short_sounds(Path(tmp))
        config = Config(audio=AudioConfig(backend="simpleaudio", sounds_dir=tmp),
                        data=DataConfig(dir=tmp))
        factory = MockFactory()
        app = Daemon(config, pin_factory=factory)
        app.start(asyncio.get_running_loop())
        pin = app.button.pin
        sound = app.table.library.sounds["coin"]
        bare = Button(FLOOR_PIN, pin_factory=factory)
        plays: list[object] = []
        bare.when_pressed = lambda: plays.append(
            simpleaudio.play_buffer(sound.data, 1, 2, RATE))
        await asyncio.sleep(0.2)
        _drain(arrivals)  # the device probe's silence
        events: list[Event] = []
        app.table.subscribe(events.append)
        daemon_ms: list[float] = []
        floor_ms: list[float] = []
        lost = floor_lost = 0

        async def one_daemon_press() -> None:
            nonlocal lost
            events.clear()
            _drain(arrivals)
            start = time.perf_counter()
            pin.drive_low()

            def expected() -> int | None:
                if events and isinstance(events[0], BlockOutcome):
                    return len(app.table.library.for_outcome(events[0].outcome).data)
                return None

            loop = asyncio.get_running_loop()
            took = await loop.run_in_executor(None, _first_byte, arrivals, start, expected)
            if took is None:
                lost += 1
            else:
                daemon_ms.append(took)
            pin.drive_high()
            # Like a player: wait for the outcome to finish sounding (presses meanwhile are
            # ignored by design), and respect the debounce's release settle and lockout.
            await asyncio.sleep(max(0.1, app.table.block.busy_until - app.clock() + 0.01))

        async def one_floor_press() -> None:
            nonlocal floor_lost
            _drain(arrivals)
            plays.clear()
            start = time.perf_counter()
            bare.pin.drive_low()
            took = await asyncio.get_running_loop().run_in_executor(
                None, _first_byte, arrivals, start, lambda: len(sound.data))
            if took is None:
                floor_lost += 1
            else:
                floor_ms.append(took)
            bare.pin.drive_high()
            for play in plays:
                play.wait_done()  # type: ignore[attr-defined]
            await asyncio.sleep(0.1)

        for i in range(presses):
            first, second = ((one_daemon_press, one_floor_press) if i % 2 == 0
                             else (one_floor_press, one_daemon_press))
            await first()
            await second()
        bare.close()
        app.close()
    if not daemon_ms or not floor_ms:
        raise SystemExit("no press reached ALSA")
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    ours, floor = _spread(daemon_ms, presses, lost), _spread(floor_ms, presses, floor_lost)
    return {
        "press_to_pcm_ms": ours,
        "press_to_pcm_floor_ms": floor,
        "press_to_pcm_ratio": {q: round(ours[q] / floor[q], 2) for q in ("p50", "p90", "p99")},
        "rss_mib": round(rss_kib / 1024, 1),
    }


def _spread(values: list[float], n: int, lost: int) -> dict[str, Any]:
    values = sorted(values)
    return {"n": n, **{f"p{round(q * 100)}": round(percentile(values, q), 3)
                       for q in (0.5, 0.9, 0.99)},
            "max": round(values[-1], 3), "lost": lost}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--fifo", type=Path, required=True)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.presses, args.fifo))))


if __name__ == "__main__":
    main()
