"""Child process for the SIGTERM test: the daemon busy (motor running, presses, bank writes)
when systemd's SIGTERM arrives. Prints "busy" when it is, and the motor pin's level after the
daemon returned."""

from __future__ import annotations

import asyncio
import json
import sys

from gpiozero.pins.mock import MockFactory

from companion.app.commands import Move, StartTimer
from companion.config import AudioConfig, Config, DataConfig, LeverConfig, WebConfig
from companion.daemon import Daemon
from companion.frontends import from_config


async def main(data_dir: str) -> None:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=data_dir),
                    web=WebConfig(host="127.0.0.1", port=0),
                    lever=LeverConfig(motor_pin=22, seconds=600))
    app = Daemon(config, pin_factory=MockFactory())
    runner = asyncio.ensure_future(app.run(from_config(config)))
    await app.ready.wait()
    motor = app.lever.motor.pin
    await app.table.act(StartTimer())

    async def activity() -> None:
        players = await app.bank.call(lambda bank: [p.id for p in bank.players()])
        while not app.closed:
            try:
                app.table.press(source="test")
                await app.table.act(Move("transfer", {"from": players[0], "to": players[1],
                                                      "amount": 1}))
            except Exception:  # the daemon is stopping under us: that is the point
                return
            await asyncio.sleep(0.005)

    busy = asyncio.ensure_future(activity())
    await asyncio.sleep(0.3)
    print("busy", flush=True)
    await runner
    busy.cancel()
    print(json.dumps({"motor": motor.state}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
