"""Child process for the lever's ALSA test: the daemon with a mock lever and real simpleaudio.

Pulls the lever (mock pin), lets go, waits past the countdown's end, then stops. Prints the
timer events it saw as JSON lines. ``HOME`` points at an ``.asoundrc`` whose default PCM is
ALSA's ``file`` plugin.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile

from gpiozero.pins.mock import MockFactory

from companion.config import AudioConfig, Config, DataConfig, LeverConfig, WebConfig
from companion.daemon import Daemon
from companion.events import Event, TimerChanged
from companion.frontends import from_config


async def main(sound: str, seconds: float, wait: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(audio=AudioConfig(backend="simpleaudio"), data=DataConfig(dir=tmp),
                        web=WebConfig(enabled=False),
                        lever=LeverConfig(seconds=seconds, sound=sound))
        app = Daemon(config, pin_factory=MockFactory())
        seen: list[Event] = []
        app.table.subscribe(seen.append)
        runner = asyncio.ensure_future(app.run(from_config(config)))
        await app.ready.wait()
        pin = app.lever.switch.pin
        pin.drive_low()  # pull the lever back
        await asyncio.sleep(0.3)
        pin.drive_high()  # let go: the countdown starts
        await asyncio.sleep(wait)
        app.request_stop()
        await runner
        for event in seen:
            if isinstance(event, TimerChanged):
                print(json.dumps({"what": event.what, "source": event.source}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3])))
