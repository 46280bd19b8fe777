"""Child process of ``companion bench``: the lever and the card reader, through the daemon.

- ``lever_release_to_motor_ms``: the lever's mock pin released -> the motor's mock pin high;
- ``card_tap_to_current_ms``: a UID line written on a pty (the reader's serial port, the
  ``lines`` protocol) -> the bank has made that card's player current (StateChanged emitted).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
import tty
from typing import Any

from companion.bench.stats import summary
from companion.config import (
    AudioConfig,
    Config,
    DataConfig,
    LeverConfig,
    ReaderConfig,
    WebConfig,
)
from companion.events import StateChanged


async def _until(predicate: Any, timeout: float = 2.0) -> bool:
    end = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > end:
            return False
        await asyncio.sleep(0.0002)
    return True


async def measure(n: int) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from companion.cards import CardReader
    from companion.daemon import Daemon
    from companion.frontends import from_config

    master, slave = os.openpty()
    tty.setraw(slave)
    with tempfile.TemporaryDirectory() as tmp:
        config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=tmp),
                        web=WebConfig(enabled=False),
                        lever=LeverConfig(motor_pin=22, seconds=600, sound="off"),
                        reader=ReaderConfig(port=os.ttyname(slave), protocol="lines",
                                            tap_gap_ms=100,
                                            cards=("04A224B9 = Mario", "0A0B0C0D = Luigi")))
        app = Daemon(config, pin_factory=MockFactory())
        runner = asyncio.ensure_future(app.run(from_config(config)))
        await app.ready.wait()
        cards = next(f for f in app.frontends if isinstance(f, CardReader))
        await _until(lambda: cards.reader.status.connected, 5)
        lever, motor = app.lever.switch.pin, app.lever.motor.pin
        released: list[float] = []
        for _ in range(n):
            lever.drive_low()  # pulled back: stops a running countdown, motor off
            await asyncio.sleep(0.06)  # past the lever's debounce
            start = time.perf_counter()
            lever.drive_high()
            if await _until(lambda: motor.state == 1):
                released.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.06)
        current: list[str] = []
        app.table.subscribe(lambda e: current.append(str(e.summary))
                            if isinstance(e, StateChanged) else None)
        os.write(master, b"\n")  # the reader skips the line it opened in
        await asyncio.sleep(0.05)
        tapped: list[float] = []
        for i in range(n):
            uid, name = ("04A224B9", "Mario") if i % 2 else ("0A0B0C0D", "Luigi")
            current.clear()
            start = time.perf_counter()
            os.write(master, f"{uid}\n".encode())
            if await _until(lambda name=name: any(name in c for c in current)):
                tapped.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.12)  # the reader's tap gap
        app.request_stop()
        await runner
    os.close(master)
    os.close(slave)
    return {"lever_release_to_motor_ms": summary(released, n),
            "card_tap_to_current_ms": summary(tapped, n)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=50)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.n))))


if __name__ == "__main__":
    main()
