"""Child process of ``companion bench``: the small screen's figures.

- press -> the first frame showing the outcome on the display, and -> the frame showing who
  got it with their new balance (after the bank wrote it), through the real daemon with the
  display on SDL's dummy video driver at 480x320;
- CPU used by an idle daemon with the display (and web server) on, over a quiet stretch.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.app.commands import GetState, Move
from companion.bench.press_latency import write_short_sounds
from companion.bench.stats import summary
from companion.config import AudioConfig, Config, DataConfig, DisplayConfig, WebConfig


def _config(folder: Path, sounds: Path | None = None) -> Config:
    return Config(audio=AudioConfig(backend="null", sounds_dir=str(sounds or "")),
                  data=DataConfig(dir=str(folder)), web=WebConfig(host="127.0.0.1", port=0),
                  display=DisplayConfig(enabled=True, size="480x320"))




async def outcome_to_frame(presses: int) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from companion.daemon import Daemon
    from companion.display.frontend import ScreenFrontend
    from companion.frontends import from_config

    with tempfile.TemporaryDirectory() as tmp:
        sounds = Path(tmp) / "sounds"
        sounds.mkdir()
        write_short_sounds(sounds)
        config = _config(Path(tmp), sounds)
        app = Daemon(config, pin_factory=MockFactory())
        runner = asyncio.ensure_future(app.run(from_config(config)))
        await app.ready.wait()
        players = (await app.table.read(GetState())).players
        await app.table.act(Move("set_current", {"player": players[0].id}))
        screen = next(f for f in app.frontends if isinstance(f, ScreenFrontend)).screen
        assert screen is not None and screen.ready.wait(10) and screen.available
        marks: dict[str, float] = {}

        def on_frame(scene: Any, _at: float) -> None:
            face = scene.outcome
            if face is None or "start" not in marks:
                return
            if face.frame == 0 and "shown" not in marks:  # a new outcome's first frame
                marks["shown"] = time.perf_counter()
            if "shown" in marks and not face.waiting and "settled" not in marks:
                marks["settled"] = time.perf_counter()

        screen.frame_listeners.append(on_frame)
        shown, settled = [], []
        pin = app.button.pin
        for _ in range(presses):
            await asyncio.sleep(max(0.15, app.table.block.busy_until - app.clock() + 0.01))
            marks.clear()
            start = time.perf_counter()
            marks["start"] = start
            pin.drive_low()
            end = start + 2.0
            while "settled" not in marks and time.perf_counter() < end:
                await asyncio.sleep(0.0005)
            pin.drive_high()
            if "shown" in marks:
                shown.append((marks["shown"] - start) * 1000)
            if "settled" in marks:
                settled.append((marks["settled"] - start) * 1000)
        app.request_stop()
        await runner
    return {"press_to_outcome_frame_ms": summary(shown, presses),
            "press_to_balance_frame_ms": summary(settled, presses)}


async def idle_cpu(seconds: float) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from companion.daemon import Daemon
    from companion.display.frontend import ScreenFrontend
    from companion.frontends import from_config

    with tempfile.TemporaryDirectory() as tmp:
        config = _config(Path(tmp))
        app = Daemon(config, pin_factory=MockFactory())
        runner = asyncio.ensure_future(app.run(from_config(config)))
        await app.ready.wait()
        screen = next(f for f in app.frontends if isinstance(f, ScreenFrontend)).screen
        assert screen is not None and screen.ready.wait(10) and screen.available
        await asyncio.sleep(1.0)  # let start-up and the first frames pass
        renders = screen.renders
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(seconds)
        used = time.process_time() - cpu
        elapsed = time.perf_counter() - wall
        renders = screen.renders - renders
        app.request_stop()
        await runner
    return {"idle_cpu_percent_display_on": round(100 * used / elapsed, 3),
            "idle_seconds": seconds, "idle_renders": renders}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    args = parser.parse_args()
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    result = asyncio.run(outcome_to_frame(args.presses))
    result.update(asyncio.run(idle_cpu(args.idle_seconds)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
