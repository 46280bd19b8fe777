"""Choosing a gpiozero pin factory: from config, else ``$GPIOZERO_PIN_FACTORY``, else gpiozero's."""

from __future__ import annotations

import warnings
from importlib.metadata import entry_points
from typing import Any


class PinFactoryError(RuntimeError):
    """No usable pin factory (not a Pi, library missing, no permission)."""


def make_pin_factory(name: str = "") -> Any:
    """A gpiozero pin factory by name (``lgpio``, ``rpigpio``, ``pigpio``, ``native``, ``mock``).

    An empty name defers to ``$GPIOZERO_PIN_FACTORY`` and then gpiozero's own preference order.
    """
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # gpiozero warns per fallback; we report once
            if not name:
                return Device._default_pin_factory()
            for ep in entry_points(group="gpiozero_pin_factories"):
                if ep.name.lower() == name.lower():
                    return ep.load()()
    except (BadPinFactory, ImportError, OSError, RuntimeError) as exc:
        raise PinFactoryError(f"pin factory {name or 'default'!r} unavailable: {exc}") from exc
    raise PinFactoryError(f"unknown pin factory {name!r}")
