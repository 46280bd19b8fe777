"""Choosing a gpiozero pin factory: from config, else ``$GPIOZERO_PIN_FACTORY``, else the first
of :data:`DEFAULT_ORDER` that opens (ours on libgpiod v2, then lgpio, then gpiozero's own
order), and saying which and why."""

from __future__ import annotations

import importlib
import logging
import os
import tempfile
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

PIN_FACTORIES = ("gpiod", "lgpio", "rpigpio", "pigpio", "native", "mock")
"""The pin factories ``[gpio] pin_factory`` can name: ours on libgpiod v2 (``gpiod``), then
gpiozero's."""

DEFAULT_ORDER = ("gpiod", "lgpio", "rpigpio", "pigpio", "native")
"""Tried in turn when none is named: the kernel's edge events first, then gpiozero's order."""


GPIOZERO_FACTORIES = {
    "lgpio": "gpiozero.pins.lgpio:LGPIOFactory",
    "rpigpio": "gpiozero.pins.rpigpio:RPiGPIOFactory",
    "pigpio": "gpiozero.pins.pigpio:PiGPIOFactory",
    "native": "gpiozero.pins.native:NativeFactory",
    "mock": "gpiozero.pins.mock:MockFactory",
}
"""gpiozero's own factories, as its ``gpiozero_pin_factories`` entry points name them (looking
them up through ``importlib.metadata`` reads every installed package's metadata: 10-25 ms of a
boot); any other name is still looked up there."""


class PinFactoryError(RuntimeError):
    """No usable pin factory (not a Pi, library missing, no permission)."""


@dataclass(frozen=True)
class PinChoice:
    """A pin factory opened, its name and why it is the one."""

    factory: Any
    name: str
    why: str

    def __str__(self) -> str:
        return f"{self.name} ({self.why})" if self.why else self.name


def build(name: str) -> Any:
    """The pin factory called ``name`` (ours, or one of gpiozero's entry points), opened."""
    if name.lower() == "gpiod":
        import gpiod

        if not hasattr(gpiod, "request_lines"):
            raise ImportError(f"gpiod {getattr(gpiod, '__version__', '1.x')} at "
                              f"{getattr(gpiod, '__file__', '?')} is libgpiod v1 (Debian "
                              "bookworm's python3-libgpiod?): ours needs v2, the lock's gpiod")
        from companion.gpio.gpiod_pins import GpiodFactory

        return GpiodFactory()
    if name.lower() in GPIOZERO_FACTORIES:  # imported directly: no scan of every package's
        module, _, cls = GPIOZERO_FACTORIES[name.lower()].partition(":")  # metadata at boot
        return getattr(importlib.import_module(module), cls)()
    from importlib.metadata import entry_points

    for ep in entry_points(group="gpiozero_pin_factories"):
        if ep.name.lower() == name.lower():
            return ep.load()()
    raise PinFactoryError(f"unknown pin factory {name!r}")


def describe(name: str, factory: Any) -> str:
    """What the factory is, in a few words (the gpiochip it found, for ours)."""
    if name == "gpiod":
        return (f"kernel edge events on {factory.chip_path} [{factory.chip_label}], "
                f"{factory.chip_reason}")
    return ""


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]


def open_pin_factory(name: str = "", order: tuple[str, ...] | None = None) -> PinChoice:
    """The pin factory named (``[gpio] pin_factory``), else ``$GPIOZERO_PIN_FACTORY``, else
    the first of ``order`` (:data:`DEFAULT_ORDER`) that opens; :class:`PinFactoryError` says
    what each one lacked."""
    writable_workdir()
    source = "[gpio] pin_factory" if name else ""
    if not name and os.environ.get("GPIOZERO_PIN_FACTORY"):
        name, source = os.environ["GPIOZERO_PIN_FACTORY"], "$GPIOZERO_PIN_FACTORY"
    if name:
        name = name.lower()
        try:
            factory = build(name)
        except PinFactoryError:
            raise
        except Exception as exc:  # each library fails its own way (ImportError, lgpio.error..)
            raise PinFactoryError(f"pin factory {name!r} ({source}) unavailable: "
                                  f"{_reason(exc)}") from exc
        words = "; ".join(w for w in (describe(name, factory), source) if w)
        return PinChoice(factory, name, words)
    missing: list[str] = []
    for candidate in order or DEFAULT_ORDER:
        try:
            factory = build(candidate)
        except Exception as exc:
            missing.append(f"{candidate} unavailable: {_reason(exc)}")
            continue
        words = "; ".join(w for w in (describe(candidate, factory), *missing) if w)
        return PinChoice(factory, candidate, words)
    raise PinFactoryError(f"no pin factory: {'; '.join(missing)}")


def make_pin_factory(name: str = "") -> Any:
    """:func:`open_pin_factory`'s factory alone."""
    return open_pin_factory(name).factory


def writable_workdir() -> None:
    """lgpio (gpiozero's pin library on Raspberry Pi OS) makes a notification pipe in the current
    folder: move to one we can write (the service's runtime folder, else a private temporary
    one) when the current one is not, as for a service started in ``/``."""
    if os.access(os.getcwd(), os.W_OK):
        return
    folder = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if not folder or not os.access(folder, os.W_OK):
        folder = tempfile.mkdtemp(prefix="companion-gpio-")
    os.chdir(folder)
    log.info("working folder %s (lgpio writes its pipe there)", folder)
