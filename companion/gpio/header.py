"""Who else uses the 40-pin header: the sound's I2S pins, the UART a reader may sit on, and
the pins a screen HAT's overlay takes. The config refuses a part on a pin that is taken
(``companion.config``); ``hardware/wiring.md`` has the same table for the builder.

Pins are BCM GPIO numbers, each with its role. The HATs' pins are their overlays' (Raspberry
Pi's ``piscreen``, ``pitft35-resistive``, ``rpi-display``; Waveshare's ``waveshare35a``, which
its clones sold as "3.5 inch RPi LCD (A)" / "MHS-3.5" share) and the example in the kernel's
``panel-mipi-dbi-spi`` binding. Every SPI screen also takes SPI0: GPIO 8 (CE0) to 11, and
GPIO 7 (CE1) when it has a touch controller.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

SPI0 = {8: "SPI0 CE0 (screen select)", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK"}
SPI0_TOUCH = {**SPI0, 7: "SPI0 CE1 (touch select)"}


@dataclass(frozen=True)
class Hat:
    """A screen HAT (or a panel wired as one): its name and the pins its overlay takes."""

    title: str
    overlay: str
    pins: MappingProxyType[int, str]


def _hat(title: str, overlay: str, pins: dict[int, str]) -> Hat:
    return Hat(title, overlay, MappingProxyType(dict(sorted(pins.items()))))


HATS: dict[str, Hat] = {
    "waveshare35a": _hat('Waveshare 3.5" RPi LCD (A) and its clones (MHS-3.5, "tft35a")',
                         "waveshare35a", {**SPI0_TOUCH, 17: "touch interrupt",
                                          24: "data/command", 25: "reset"}),
    "piscreen": _hat('PiScreen 3.5" (OzzMaker)', "piscreen",
                     {**SPI0_TOUCH, 17: "touch pen-down", 22: "backlight",
                      24: "data/command", 25: "reset"}),
    "pitft35": _hat('Adafruit PiTFT 3.5" resistive', "pitft35-resistive",
                    {**SPI0_TOUCH, 24: "touch interrupt", 25: "data/command"}),
    "rpi-display": _hat("Watterott RPi-Display", "rpi-display",
                        {**SPI0_TOUCH, 18: "backlight", 23: "reset", 24: "data/command",
                         25: "touch interrupt"}),
    "mipi-dbi-spi": _hat("a panel on the kernel's mipi-dbi-spi driver, wired as its example",
                         "mipi-dbi-spi", {**SPI0, 18: "backlight", 23: "reset",
                                          24: "data/command"}),
}
"""The screen HATs ``[display] hat`` can name."""

I2S = MappingProxyType({18: "I2S bit clock (BCLK)", 19: "I2S frame clock (LRC)",
                        20: "I2S data in (the overlay takes it)", 21: "I2S data out (DIN)"})
"""The MAX98357A's pins (``dtoverlay=max98357a``; I2S takes GPIO 20 too)."""

UART = MappingProxyType({14: "UART TX", 15: "UART RX"})
"""The Pi's own UART, for a reader wired to the header instead of USB."""

UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
"""Device names of the UART on GPIO 14 and 15 (serial0 is Raspberry Pi OS's stable link to it;
a Pi 5's /dev/ttyAMA10 is its separate debug connector, not the header)."""


def uses_header_uart(port: str) -> bool:
    """A reader on this port is wired to GPIO 14 and 15, not to USB."""
    return port in UART_PORTS
