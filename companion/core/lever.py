"""The Wiggly Worms lever timer as a pure state machine: raw lever edges and a clock in, effects
out (start, stop, time up). No hardware, no sleeping: the caller passes ``now``.

On the toy a player slides the lever all the way back and lets go: the timer starts and the
worms move until time runs out. Pulling the lever back while it runs stops it; letting go
starts a fresh time. In wind-up mode the time is proportional to how long the lever was held
back, up to a maximum, like winding a spring.

The lever switch is debounced here too: a new level counts only once it has held for
``lockout`` seconds without another edge (contact chatter and one-off glitches never start or
stop anything). The caller reports raw edges with :meth:`LeverTimer.edge` and calls
:meth:`LeverTimer.settle` at :meth:`LeverTimer.recheck_at`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from companion.i18n.said import Said, texts


class Phase(StrEnum):
    IDLE = "idle"
    HELD = "held"  # the lever is pulled back: armed, waiting for the release
    RUNNING = "running"


LAST_SECONDS = 5.0
"""The countdown's last seconds: faster ticks, a flashing screen."""
MUSIC_LOOP = 2.0
"""Length of the ``timer_loop`` music (it loops seamlessly)."""

EPS = 1e-9
"""Float rounding allowance when comparing elapsed time with the lockout."""

MIN_SECONDS = 1.0
"""The shortest wind-up time: a flick of the lever still gives a countdown worth seeing."""


@dataclass(frozen=True, slots=True)
class LeverSettings:
    seconds: float = 14.0
    wind_up: bool = False
    max_seconds: float = 30.0
    full_wind: float = 2.0
    """Wind-up mode: holding the lever back this long gives ``max_seconds``."""
    lockout: float = 0.05

    def __post_init__(self) -> None:
        if not (self.seconds > 0 and self.max_seconds >= MIN_SECONDS and self.full_wind > 0
                and self.lockout >= 0):
            raise ValueError(f"impossible lever settings: {self}")

    def duration(self, held: float) -> float:
        """Seconds of countdown for a lever held back ``held`` seconds."""
        if not self.wind_up:
            return self.seconds
        share = min(1.0, max(0.0, held) / self.full_wind)
        return max(MIN_SECONDS, self.max_seconds * share)


@dataclass(frozen=True, slots=True)
class Started:
    duration: float
    deadline: float
    source: str  # "lever" or "tablet"


@dataclass(frozen=True, slots=True)
class Stopped:
    reason: str  # "lever" (pulled while running), "tablet", "shutdown"


@dataclass(frozen=True, slots=True)
class TimeUp:
    at: float


Effect = Started | Stopped | TimeUp


@dataclass(frozen=True, slots=True)
class TimerState:
    """The timer as the tablet and the API see it; ``remaining`` in seconds at the reading."""

    phase: Phase
    remaining: float
    duration: float | None
    lever_held: bool
    runs: int
    seconds: float
    wind_up: bool
    max_seconds: float
    label: str | Said = "Time is running"
    lever: bool = False
    """A lever switch is wired."""
    motor: bool = False
    """A worm motor is wired."""

    @property
    def running(self) -> bool:
        return self.phase is Phase.RUNNING

    def to_json(self) -> dict[str, Any]:
        return {"phase": self.phase.value, "running": self.running,
                "remaining": self.remaining, "duration": self.duration,
                "lever_held": self.lever_held, "runs": self.runs, "seconds": self.seconds,
                "wind_up": self.wind_up, "max_seconds": self.max_seconds, **texts(label=self.label),
                "lever": self.lever, "motor": self.motor}


@dataclass
class LeverTimer:
    """The lever and its countdown. Every method returns the effects to carry out, in order."""

    settings: LeverSettings = field(default_factory=LeverSettings)
    phase: Phase = Phase.IDLE
    deadline: float | None = None
    duration: float | None = None
    runs: int = 0
    chatter: int = 0
    """Lever edges that came within ``lockout`` of the previous one (contact bounce)."""
    _closed: bool = False  # the settled level
    _raw: bool = False  # the last raw edge's level
    _raw_since: float = -math.inf
    _held_since: float | None = None

    # -- the lever -----------------------------------------------------------------------------

    def edge(self, now: float, closed: bool) -> list[Effect]:
        """The lever switch changed (``closed``: pulled back); counts once it has settled."""
        effects = self.expire(now)
        if closed != self._raw:
            if now - self._raw_since < self.settings.lockout:
                self.chatter += 1
            self._raw = closed
            self._raw_since = now
        return effects + self.settle(now)

    @property
    def unsettled(self) -> bool:
        """The last edge's level is not accepted yet (call :meth:`settle` at recheck_at)."""
        return self._raw != self._closed

    def recheck_at(self) -> float:
        """When to call :meth:`settle`: the last edge's level will have held long enough."""
        return self._raw_since + self.settings.lockout

    def settle(self, now: float) -> list[Effect]:
        """Accept the lever's level if it has held for ``lockout`` since the last edge."""
        effects = self.expire(now)
        if self._raw == self._closed or now - self._raw_since < self.settings.lockout - EPS:
            return effects
        self._closed = self._raw
        return effects + (self._pulled(self._raw_since) if self._closed
                          else self._released(now, self._raw_since))

    def _pulled(self, now: float) -> list[Effect]:
        effects: list[Effect] = []
        if self.phase is Phase.RUNNING:
            effects.append(self._halt("lever"))
        self.phase = Phase.HELD
        self._held_since = now
        return effects

    def _released(self, now: float, let_go: float) -> list[Effect]:
        if self.phase is not Phase.HELD:
            return []  # e.g. the tablet started the timer while the lever was held
        held = let_go - (self._held_since if self._held_since is not None else let_go)
        self._held_since = None
        return [self._run(now, self.settings.duration(held), "lever")]

    # -- the tablet ----------------------------------------------------------------------------

    def start(self, now: float, seconds: float | None = None, source: str = "tablet"
              ) -> list[Effect]:
        """Start (or restart with a fresh time) without the lever."""
        duration = self.settings.seconds if seconds is None else seconds
        if not (math.isfinite(duration) and duration > 0):  # refused before anything changes
            raise ValueError("a countdown needs a positive, finite number of seconds")
        effects = self.expire(now)
        if self.phase is Phase.RUNNING:
            effects.append(self._halt(source))
        self._held_since = None
        return [*effects, self._run(now, duration, source)]

    def stop(self, now: float, reason: str = "tablet") -> list[Effect]:
        """Stop a running countdown (nothing to do when none runs)."""
        effects = self.expire(now)
        if self.phase is Phase.RUNNING:
            effects.append(self._halt(reason))
            self.phase = Phase.HELD if self._closed else Phase.IDLE
            if self._closed:
                self._held_since = now
        return effects

    # -- the clock -----------------------------------------------------------------------------

    def expire(self, now: float) -> list[Effect]:
        """Time's up if the deadline has passed (call at the deadline; harmless any time)."""
        if self.phase is Phase.RUNNING and self.deadline is not None and now >= self.deadline:
            at = self.deadline
            self.phase = Phase.HELD if self._closed else Phase.IDLE
            if self._closed:
                self._held_since = now
            self.deadline = None
            return [TimeUp(at)]
        return []

    def remaining(self, now: float) -> float:
        if self.phase is not Phase.RUNNING or self.deadline is None:
            return 0.0
        return max(0.0, self.deadline - now)

    def state(self, now: float) -> TimerState:
        """The timer now, for the tablet and the API."""
        return TimerState(self.phase, round(self.remaining(now), 3),
                          self.duration if self.phase is Phase.RUNNING else None,
                          self._closed, self.runs, self.settings.seconds,
                          self.settings.wind_up, self.settings.max_seconds)

    def _run(self, now: float, duration: float, source: str) -> Started:
        self.phase = Phase.RUNNING
        self.duration = duration
        self.deadline = now + duration
        self.runs += 1
        return Started(duration, self.deadline, source)

    def _halt(self, reason: str) -> Stopped:
        self.phase = Phase.IDLE
        self.deadline = None
        return Stopped(reason)


def cue(remaining: float, mode: str) -> tuple[str | None, float]:
    """The running sound: what to play with ``remaining`` seconds left (a sound name or None)
    and how many seconds until the next cue. Music loops until the last seconds; ticks come
    every second, then every half and quarter second as time runs out."""
    if remaining <= 0 or mode == "off":
        return None, math.inf
    if remaining > LAST_SECONDS:
        step = MUSIC_LOOP if mode == "music" else 1.0
        return ("timer_loop" if mode == "music" else "timer_tick",
                min(step, remaining - LAST_SECONDS))
    return "timer_tick", 0.5 if remaining > 2.0 else 0.25
