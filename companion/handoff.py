"""Handing calls from hardware threads (gpiozero, pyserial, the display) to the event loop.

State lives on the loop; a thread never touches it. It hands the call over with
``call_soon_threadsafe`` through a :class:`Handoff`, which drops calls once it is closed (the
daemon is stopping, or the loop is gone), so a late edge can never act after shutdown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TypeVarTuple

log = logging.getLogger(__name__)

Ts = TypeVarTuple("Ts")


class Handoff:
    """One way from any thread onto one loop; open between :meth:`open` and :meth:`close`."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._loop: asyncio.AbstractEventLoop | None = None
        self.dropped = 0

    def open(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def close(self) -> None:
        self._loop = None

    @property
    def is_open(self) -> bool:
        return self._loop is not None

    def __call__(self, fn: Callable[[*Ts], object], *args: *Ts) -> bool:
        """Queue ``fn(*args)`` on the loop (from any thread); False when it was dropped."""
        loop = self._loop
        if loop is None:
            self.dropped += 1
            return False
        try:
            loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop closed between the check and the call: shutting down
            self.dropped += 1
            log.debug("%s dropped: the daemon is stopping", self.what)
            return False
        return True
