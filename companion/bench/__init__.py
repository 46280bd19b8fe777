"""``companion bench``: measured figures, printed as JSON (never asserted in tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ASOUNDRC = """pcm.!default {{
    type file
    slave.pcm "null"
    file "{fifo}"
    format "raw"
}}
pcm.{device} {{
    type file
    slave.pcm "null"
    file "{device_fifo}"
    format "raw"
}}
"""
STREAM_DEVICE = "qb_bench"
"""The ALSA PCM the bench gives the stream backend: a FIFO of its own, so that its silence never
mixes with the floor's bytes."""
PRESS_BACKENDS = ("stream", "simpleaudio")
"""The backends ``press_to_pcm`` times (the shipped default is the headline figure)."""


def _child(module: str, args: list[str], env: dict[str, str],
           timeout: float = 600) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", module, *args], env=env, check=True,
                         capture_output=True, text=True, timeout=timeout)
    return json.loads(out.stdout)


def write_growth(data_dir: Path, writes: int = 100_000) -> dict[str, Any]:
    """``writes`` tablet writes (a transfer and the state after it) in one game, on the data
    folder's disk: the last 1000 against the first 1000, and the journal's page size."""
    return _child("companion.bench.write_growth", ["--writes", str(writes), "--dir",
                                                   str(data_dir)], dict(os.environ),
                  timeout=max(600, writes * 0.05))


def press_to_pcm(presses: int, backend: str = "stream") -> dict[str, Any]:
    """Mock pin edge -> the sound's first frame handed to ALSA (the ``file`` plugin into a
    FIFO), the daemon's presses on ``backend`` interleaved with the bare stack's (the floor)
    on the same kind of sink and the same sound."""
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as tmp:
        home = Path(tmp)
        fifo, device_fifo = home / "pcm.fifo", home / "device.fifo"
        os.mkfifo(fifo)
        os.mkfifo(device_fifo)
        (home / ".asoundrc").write_text(ASOUNDRC.format(fifo=fifo, device=STREAM_DEVICE,
                                                        device_fifo=device_fifo))
        env = {**os.environ, "HOME": str(home)}
        return _child("companion.bench.press_latency",
                      ["--presses", str(presses), "--backend", backend, "--fifo", str(fifo),
                       "--device-fifo", str(device_fifo)], env)


def display_figures(presses: int = 100, idle_seconds: float = 10.0) -> dict[str, Any]:
    """The screen: press -> frame latencies and idle CPU with the display on (dummy SDL)."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy"}
    return _child("companion.bench.display",
                  ["--presses", str(presses), "--idle-seconds", str(idle_seconds)], env)


def lever_and_cards(n: int = 50) -> dict[str, Any]:
    """Lever release -> motor on, and a card's UID on the serial line -> its player current."""
    return _child("companion.bench.lever_cards", ["-n", str(n)], dict(os.environ))


def cold_import_ms(runs: int = 5) -> float:
    """Median time for a fresh interpreter to import the daemon, minus a bare interpreter."""

    def timed(code: str) -> float:
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            samples.append(time.perf_counter() - start)
        return sorted(samples)[len(samples) // 2]

    return round((timed("import companion.daemon") - timed("pass")) * 1000, 1)


STARTUP = """
import sys, time
start = time.perf_counter()
import asyncio
from gpiozero.pins.mock import MockFactory
from companion.config import AudioConfig, Config, DataConfig
from companion.daemon import Daemon
app = Daemon(Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=sys.argv[1])),
             pin_factory=MockFactory())
app.start(asyncio.new_event_loop())
print(time.perf_counter() - start)
"""
"""A daemon started in a fresh interpreter, its bank in a scratch folder (``argv[1]``): the
bench leaves nothing in the user's data folder."""


def startup_ms(runs: int = 5) -> float:
    """Median time from a fresh interpreter's first line to a ready daemon: imports (gpiozero
    included), sound loading, button claimed (mock pin, null audio)."""
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="companion-bench-") as scratch:
            out = subprocess.run([sys.executable, "-c", STARTUP, scratch], check=True,
                                 capture_output=True, text=True)
        samples.append(float(out.stdout))
    return round(sorted(samples)[len(samples) // 2] * 1000, 1)


def draws_per_second(n: int = 100_000) -> dict[str, int]:
    """How fast the core draws each edition's press modes with the OS-entropy RNG."""
    from companion.core.editions import editions
    from companion.core.outcomes import default_rng

    rng = default_rng()
    rates = {}
    for edition in editions().values():
        for mode in edition.modes:
            if not mode.draws:
                continue
            params = {"utilities": 2} if mode.needs else None
            start = time.perf_counter()
            for _ in range(n):
                mode.draw(rng, params)
            rates[f"{edition.id}/{mode.id}"] = int(n / (time.perf_counter() - start))
    return rates


def run_all(presses: int = 200, data_dir: Path | None = None,
            writes: int = 100_000) -> dict[str, Any]:
    """Every figure ``companion bench`` reports (``writes``: for ``write_cost_growth``).

    ``presses`` also bounds the samples of the other figures that repeat one kind of event (the
    voice's rounds, the fresh starts with the screen), so a short run is short throughout; the
    default run takes each figure's full sample."""
    from companion.bench.bank_io import load_game_ms, moves_vs_sqlite, write_latency_ms
    from companion.bench.board import board_state_ms
    from companion.bench.contests import contest_state_ms
    from companion.bench.held import held_press_ms
    from companion.bench.json_body import json_body_us
    from companion.bench.lan_load import lan_load_ms
    from companion.bench.movie import movie_state_ms
    from companion.bench.mqtt_flood import table_press_in_flood_ms
    from companion.bench.mqtt_publish import press_to_mqtt_ms
    from companion.bench.startup import startup_with_display
    from companion.bench.tokens import token_move_ms
    from companion.bench.undo_any import undo_check_ms
    from companion.bench.voice import voice_after_outcome_ms
    from companion.bench.ws_fanout import ws_fanout_ms
    from companion.config import AudioConfig, default_data_dir

    folder = data_dir or Path(default_data_dir())
    shipped = AudioConfig().backend
    latency = press_to_pcm(presses, shipped)
    others = {name: press_to_pcm(presses, name) for name in PRESS_BACKENDS if name != shipped}
    display = display_figures(min(presses, 100))
    lever_cards = lever_and_cards(min(presses, 50))
    draws = draws_per_second()
    growth = write_growth(folder, writes)
    lan = lan_load_ms()
    return {
        "write_cost_growth": growth["write_cost_growth"],
        "journal_page_bytes": growth["journal_page_bytes"],
        "bank_write_ms": write_latency_ms(folder),
        "held_press_ms": held_press_ms(folder),
        "bank_moves_vs_sqlite_ms": moves_vs_sqlite(folder),
        "bank_load_10k_entries_ms": load_game_ms(folder),
        "ws_fanout_ms": ws_fanout_ms(),
        "write_ms_with_journal_readers": lan["journal_readers"],
        "write_ms_with_32_pages": lan["fanout"],
        "json_body_us": json_body_us(),
        "movie_state_read_ms": movie_state_ms(folder),
        "board_state_read_ms": board_state_ms(folder),
        "contest_state_read_ms": contest_state_ms(folder),
        "undo_check_ms": undo_check_ms(folder, rounds=min(presses, 40)),
        "token_move_ms": token_move_ms(folder, rounds=min(presses, 60)),
        "voice_after_outcome_ms": voice_after_outcome_ms(2 * min(presses, 100)),
        "press_to_mqtt": press_to_mqtt_ms(min(presses, 100)),
        "table_press_in_mqtt_flood": table_press_in_flood_ms(min(presses, 40)),
        "press_to_pcm_backend": shipped,
        "press_to_pcm_ms": latency["press_to_pcm_ms"],
        "press_to_pcm_floor_ms": latency["press_to_pcm_floor_ms"],
        "press_to_pcm_ratio": latency["press_to_pcm_ratio"],
        **{f"press_to_pcm_{name}_{figure}": other[f"press_to_pcm_{figure}"]
           for name, other in others.items() for figure in ("ms", "floor_ms", "ratio")},
        "daemon_rss_mib": latency["rss_mib"],
        "display_press_to_outcome_frame_ms": display["press_to_outcome_frame_ms"],
        "display_press_to_balance_frame_ms": display["press_to_balance_frame_ms"],
        "display_idle_cpu_percent": display["idle_cpu_percent_display_on"],
        "display_idle_renders_in_10_s": display["idle_renders"],
        "lever_release_to_motor_ms": lever_cards["lever_release_to_motor_ms"],
        "card_tap_to_current_ms": lever_cards["card_tap_to_current_ms"],
        "cold_import_ms": cold_import_ms(),
        "startup_to_ready_ms": startup_ms(),
        **startup_with_display(max(1, min(presses, 7))),
        "odds_draws_per_s": draws["celebration/question_block"],
        "mode_draws_per_s": draws,
        "python": sys.version.split()[0],
    }
