"""Choosing a gpiozero pin factory: from config, else ``$GPIOZERO_PIN_FACTORY``, else gpiozero's."""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from typing import Any

log = logging.getLogger(__name__)

PIN_FACTORIES = ("lgpio", "rpigpio", "pigpio", "native", "mock")
"""The gpiozero pin factories ``[gpio] pin_factory`` can name."""


class PinFactoryError(RuntimeError):
    """No usable pin factory (not a Pi, library missing, no permission)."""


def make_pin_factory(name: str = "") -> Any:
    """A gpiozero pin factory by name (``lgpio``, ``rpigpio``, ``pigpio``, ``native``, ``mock``).

    An empty name defers to ``$GPIOZERO_PIN_FACTORY`` and then gpiozero's own preference order.
    """
    from importlib.metadata import entry_points

    from gpiozero import Device
    from gpiozero.exc import BadPinFactory

    writable_workdir()
    fallbacks: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # gpiozero warns once per fallback it tries
            try:
                if not name:
                    return Device._default_pin_factory()
                for ep in entry_points(group="gpiozero_pin_factories"):
                    if ep.name.lower() == name.lower():
                        return ep.load()()
            finally:
                fallbacks = [str(w.message) for w in caught]
    except (BadPinFactory, ImportError, OSError, RuntimeError) as exc:
        why = f"; tried: {' | '.join(fallbacks)}" if fallbacks else ""
        raise PinFactoryError(f"pin factory {name or 'default'!r} unavailable: {exc}{why}"
                              ) from exc
    finally:
        for message in fallbacks:
            log.debug("gpiozero: %s", message)
    raise PinFactoryError(f"unknown pin factory {name!r}")


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
