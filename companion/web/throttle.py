"""A token bucket per client address: how often a reader without the table token may ask."""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Iterator


class Buckets:
    """``rate`` requests a second per address, up to ``burst`` at once; at most ``most``
    addresses are remembered (the one seen the longest ago is forgotten first: a full bucket
    again)."""

    def __init__(self, rate: float, burst: int, *, most: int = 1024,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.most, self.clock = rate, burst, most, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # address: (tokens, when)

    def take(self, address: str) -> float:
        """0 when ``address`` may go ahead now (one token taken); else the seconds until it
        may."""
        now = self.clock()
        tokens, when = self._buckets.pop(address, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - when) * self.rate)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / self.rate
        self._buckets[address] = (tokens, now)  # the newest last
        while len(self._buckets) > self.most:
            del self._buckets[next(iter(self._buckets))]
        return wait

    def waiting(self, address: str) -> float:
        """As :meth:`take`, without taking a token: 0 when ``address`` may go ahead now."""
        found = self._buckets.get(address)
        if found is None:
            return 0.0
        tokens, when = found
        tokens = min(float(self.burst), tokens + (self.clock() - when) * self.rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    @staticmethod
    def retry_after(wait: float) -> str:
        """``wait`` as a Retry-After header's whole seconds (at least 1)."""
        return str(max(1, math.ceil(wait)))


class Holds:
    """Refusals held back: a client past its bucket hears its 429 only when it may ask again
    (at most ``longest`` seconds later), so one that asks again at once, or ignores
    Retry-After, asks a few times a second, not thousands (each answer costs the loop, which
    the banker's writes wait for). At most ``per_address`` held for one address and ``most``
    in all (past that, refused at once, as before); :meth:`close` answers them all. The
    caller spends what the bucket refilled meanwhile on the refusal: a client that asks again
    without waiting as told stays refused; one that waits is served."""

    def __init__(self, per_address: int = 4, most: int = 64, longest: float = 1.0) -> None:
        self.per_address, self.most, self.longest = per_address, most, longest
        self.held: dict[str, int] = {}
        """Address -> refusals held back now."""
        self._closed = asyncio.Event()

    async def hold(self, address: str, wait: float) -> bool:
        """Return after ``wait`` seconds (at most :attr:`longest`; True), or at once when
        this address, or everyone, has as many held as allowed (False), or at :meth:`close`."""
        held = self.held.get(address, 0)
        if held >= self.per_address or sum(self.held.values()) >= self.most:
            return False
        self.held[address] = held + 1
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closed.wait(), min(wait, self.longest))
        finally:
            self.held[address] -= 1
            if not self.held[address]:
                del self.held[address]
        return True

    def close(self) -> None:
        self._closed.set()


class WritesFirst:
    """Writes in flight (requests that are not reads), and a wait for them: a journal read
    waits for them before it starts and between the pieces it sends, at most ``longest``
    seconds in all, so the banker's write is not slowed by the readers' work (and the read
    sees it)."""

    def __init__(self, longest: float = 0.25) -> None:
        self.longest = longest
        self.writing = 0
        self.waiting = 0
        """Reads waiting for the writes now."""
        self._quiet = asyncio.Event()
        self._quiet.set()

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        self.writing += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self.writing -= 1
            if not self.writing:
                self._quiet.set()

    async def quiet(self, budget: list[float]) -> None:
        """Return once no write is in flight, or when ``budget[0]`` seconds (what this read
        may still wait, lessened by the wait) have passed."""
        if not self.writing or budget[0] <= 0:
            return
        start = time.monotonic()
        self.waiting += 1
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._quiet.wait(), budget[0])
        finally:
            self.waiting -= 1
            budget[0] -= time.monotonic() - start
