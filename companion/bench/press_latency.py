"""Child process of ``companion bench``: times press -> the sound's first PCM frame through ALSA.

Runs with ``HOME`` pointing at a folder whose ``.asoundrc`` makes ALSA's ``default`` PCM, and a
second PCM (``qb_bench``) for the stream backend, the ``file`` plugin writing raw PCM into a
FIFO each (``null`` underneath: no card needed). The daemon runs as in production (MockFactory
pin, debounce, event loop, the backend under test), with short override sounds so that presses
need not wait for a full outcome to finish sounding; the floor (the bare stack: a gpiozero
button calling ``simpleaudio.play_buffer``) is timed in the same run, interleaved.

What ALSA's ``file`` plugin shows: it writes a frame to its file once a whole buffer was
written after it (it plays the card that still has a buffer to play), and everything at once
when a stream drains. simpleaudio drains each sound, so its first byte leaves at once; the
stream backend never drains, so its sound leaves one buffer (``lag``) later. Either way the
frame ``lag`` frames before the sound's first one leaves ALSA in the same ``write`` that handed
ALSA the sound's first frame: that frame's arrival is the one timed. ``lag`` is read from the
run itself: the first chunk after a press starts ``lag`` frames before the sound, or further
back when the writer's top-up came between the press and its sound (never nearer), so it is
the least over the presses; how many presses showed it is reported.
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from companion.audio.library import SOUND_NAMES
from companion.audio.pcm import RATE
from companion.bench import PRESS_BACKENDS, STREAM_DEVICE
from companion.bench.stats import percentile
from companion.config import AudioConfig, Config, DataConfig
from companion.daemon import Daemon
from companion.events import BlockOutcome, Event

SHORT_SOUND_SECONDS = 0.02
PRESS_TIMEOUT = 2.0
FLOOR_PIN = 5
"""The floor's bare button: a pin the daemon does not use."""


def write_short_sounds(folder: Path) -> None:
    """Every sound as 20 ms of a square wave (no zero sample: its first frame is found in the
    stream's silence): presses need not wait for long sounds."""
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
at = 0
while True:
    data = os.read(fd, 65536)
    now = time.perf_counter()
    frames = len(data) // 2
    loud = next((i for i in range(frames) if data[2 * i] or data[2 * i + 1]), -1)
    out.write(struct.pack("=dqqq", now, at, frames, -1 if loud < 0 else at + loud))
    out.flush()
    at += frames
"""
"""The FIFO's reader, in a process of its own: each chunk ALSA writes is stamped the moment it
arrives (CLOCK_MONOTONIC, the same clock in every process), never late because one of the
daemon's threads holds this process's GIL; with where it starts in the stream (frames), its
length, and the stream's first non-zero frame in it (-1: silence)."""


@dataclass(frozen=True)
class Chunk:
    at: float
    start: int
    frames: int
    loud: int

    @property
    def end(self) -> int:
        return self.start + self.frames


@dataclass
class Sink:
    """One FIFO and its stamper: the chunks ALSA wrote, as they arrive."""

    fifo: Path
    arrivals: queue.Queue[Chunk] = field(default_factory=queue.Queue)
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", STAMPER, str(self.fifo)],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

        def forward(out: IO[bytes]) -> None:
            record = struct.calcsize("=dqqq")
            while len(chunk := out.read(record)) == record:
                self.arrivals.put(Chunk(*struct.unpack("=dqqq", chunk)))

        assert self.process.stdout is not None
        threading.Thread(target=forward, args=(self.process.stdout,), daemon=True).start()

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait()

    def drain(self) -> None:
        while not self.arrivals.empty():
            self.arrivals.get_nowait()

    def sound(self, start: float, frames: Callable[[], int | None]) -> Heard | None:
        """The chunks from ``start`` until a sound of ``frames()`` frames has wholly left ALSA
        (None: it did not within PRESS_TIMEOUT)."""
        chunks: list[Chunk] = []
        first: int | None = None
        deadline = start + PRESS_TIMEOUT
        while time.perf_counter() < deadline:
            wanted = frames()
            if first is not None and wanted is not None and chunks[-1].end >= first + wanted:
                return Heard(start, chunks, first)
            try:
                chunk = self.arrivals.get(timeout=0.0005)
            except queue.Empty:
                continue
            if chunk.at < start:
                continue  # written before the press
            chunks.append(chunk)
            if first is None and chunk.loud >= 0:
                first = chunk.loud
        return None


@dataclass(frozen=True)
class Heard:
    """One press's sound as it left ALSA: the press's time, the chunks since, and the stream
    frame where the sound starts."""

    start: float
    chunks: list[Chunk]
    first: int

    def lag(self) -> int:
        """Frames between the first chunk after the press and the sound (0: it came first)."""
        return self.first - self.chunks[0].start

    def handed_ms(self, lag: int) -> float | None:
        """ms from the press to the arrival of the chunk holding frame ``first - lag``: the
        write that handed ALSA the sound's first frame (None: no chunk after the press held it)."""
        target = self.first - lag
        for chunk in self.chunks:
            if chunk.start <= target < chunk.end:
                return (chunk.at - self.start) * 1000
        return None


class Timed:
    """One side's presses: what each press's sound did, worked out once the run's lag is known."""

    def __init__(self) -> None:
        self.heard: list[Heard] = []
        self.lost = 0

    def add(self, heard: Heard | None) -> None:
        if heard is None:
            self.lost += 1
        else:
            self.heard.append(heard)

    def figures(self, n: int) -> dict[str, Any]:
        if not self.heard:
            raise SystemExit("no press reached ALSA")
        lags = [heard.lag() for heard in self.heard]
        lag = min(lags)
        agreed = lags.count(lag)
        took = [ms for heard in self.heard if (ms := heard.handed_ms(lag)) is not None]
        return {**_spread(took, n, self.lost + len(self.heard) - len(took)),
                "lag_frames": lag, "lag_agreed": agreed}


async def measure(presses: int, backend: str, fifo: Path, device_fifo: Path
                  ) -> dict[str, object]:
    """The daemon's presses on ``backend`` and the floor's, interleaved (the order swapped every
    round): the floor is the bare stack doing the same job, a gpiozero ``Button`` on the same
    mock pin factory whose ``when_pressed`` calls ``simpleaudio.play_buffer`` with the same
    20 ms sound, into the same kind of ALSA sink."""
    floor_sink = Sink(fifo)
    daemon_sink = Sink(device_fifo) if backend == "stream" else floor_sink
    sinks = {floor_sink.fifo: floor_sink, daemon_sink.fifo: daemon_sink}
    for sink in sinks.values():
        sink.start()
    try:
        return await _interleaved(presses, backend, daemon_sink, floor_sink)
    finally:
        for sink in sinks.values():
            sink.stop()


async def _interleaved(presses: int, backend: str, daemon_sink: Sink, floor_sink: Sink
                       ) -> dict[str, object]:
    import simpleaudio
    from gpiozero import Button
    from gpiozero.pins.mock import MockFactory

    with tempfile.TemporaryDirectory() as tmp:
        write_short_sounds(Path(tmp))
        device = STREAM_DEVICE if backend == "stream" else "default"
        config = Config(audio=AudioConfig(backend=backend, device=device, sounds_dir=tmp),
                        data=DataConfig(dir=tmp))
        factory = MockFactory()
        app = Daemon(config, pin_factory=factory)
        app.start(asyncio.get_running_loop())
        if not app.speaker.available or app.speaker.backend.name != backend:
            raise SystemExit(f"the {backend} backend did not open")
        pin = app.button.pin
        sound = app.table.library.sounds["coin"]
        frames = len(sound.data) // 2
        bare = Button(FLOOR_PIN, pin_factory=factory)
        plays: list[object] = []
        bare.when_pressed = lambda: plays.append(
            simpleaudio.play_buffer(sound.data, 1, 2, RATE))
        await asyncio.sleep(0.2)
        events: list[Event] = []
        app.table.subscribe(events.append)
        ours, floor = Timed(), Timed()
        loop = asyncio.get_running_loop()

        async def one_daemon_press() -> None:
            events.clear()
            daemon_sink.drain()
            start = time.perf_counter()
            pin.drive_low()

            def expected() -> int | None:
                if events and isinstance(events[0], BlockOutcome):
                    return len(app.table.library.for_outcome(events[0].outcome).data) // 2
                return None

            ours.add(await loop.run_in_executor(None, daemon_sink.sound, start, expected))
            pin.drive_high()
            # Like a player: wait for the outcome to finish sounding (presses meanwhile are
            # ignored by design), and respect the debounce's release settle and lockout.
            await asyncio.sleep(max(0.1, app.table.block.busy_until - app.clock() + 0.01))

        async def one_floor_press() -> None:
            floor_sink.drain()
            plays.clear()
            start = time.perf_counter()
            bare.pin.drive_low()
            floor.add(await loop.run_in_executor(None, floor_sink.sound, start,
                                                 lambda: frames))
            bare.pin.drive_high()
            for play in plays:
                play.wait_done()  # type: ignore[attr-defined]
            await asyncio.sleep(0.1)

        sides: tuple[Callable[[], Awaitable[None]], ...] = (one_daemon_press, one_floor_press)
        for i in range(presses):
            for side in sides if i % 2 == 0 else sides[::-1]:
                await side()
        bare.close()
        app.close()
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    ours_figures, floor_figures = ours.figures(presses), floor.figures(presses)
    return {
        "backend": backend,
        "press_to_pcm_ms": ours_figures,
        "press_to_pcm_floor_ms": floor_figures,
        "press_to_pcm_ratio": {q: round(ours_figures[q] / floor_figures[q], 2)
                               for q in ("p50", "p90", "p99")},
        "rss_mib": round(rss_kib / 1024, 1),
    }


def _spread(values: list[float], n: int, lost: int) -> dict[str, Any]:
    if not values:
        raise SystemExit("no press reached ALSA")
    values = sorted(values)
    return {"n": n, **{f"p{round(q * 100)}": round(percentile(values, q), 3)
                       for q in (0.5, 0.9, 0.99)},
            "max": round(values[-1], 3), "lost": lost}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--backend", choices=PRESS_BACKENDS, default="stream")
    parser.add_argument("--fifo", type=Path, required=True)
    parser.add_argument("--device-fifo", type=Path, required=True)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.presses, args.backend, args.fifo,
                                         args.device_fifo))))


if __name__ == "__main__":
    main()
