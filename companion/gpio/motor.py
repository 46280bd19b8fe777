"""The worm motor's driver input: on only while the countdown runs.

A gpiozero ``OutputDevice`` (or ``PWMOutputDevice`` below full power) that starts off. gpiozero
closes its devices when the interpreter exits, and the wiring guide puts a pull-down on the
driver's input, so a daemon that stops or crashes leaves the motor off."""

from __future__ import annotations

from typing import Any

from gpiozero import OutputDevice, PWMOutputDevice


class Motor:
    def __init__(self, pin: int, *, pin_factory: Any, active_high: bool = True,
                 power: int = 100) -> None:
        self.power = power
        self.device: OutputDevice | PWMOutputDevice
        if power >= 100:
            self.device = OutputDevice(pin, active_high=active_high, initial_value=False,
                                       pin_factory=pin_factory)
        else:
            self.device = PWMOutputDevice(pin, active_high=active_high, initial_value=0,
                                          pin_factory=pin_factory)

    @property
    def pin(self) -> Any:
        return self.device.pin

    @property
    def running(self) -> bool:
        return bool(self.device.value)

    def on(self) -> None:
        if isinstance(self.device, PWMOutputDevice):
            self.device.value = self.power / 100
        else:
            self.device.on()

    def off(self) -> None:
        self.device.off()

    def close(self) -> None:
        try:
            self.off()
        finally:
            self.device.close()
