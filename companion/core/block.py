"""The block as a player meets it: one press, one outcome, no press while it sounds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from companion.core.outcomes import DieRng, Outcome


@dataclass
class Block:
    """The block's dice and, like the Hasbro Question Block unit, its busy time: presses
    while an outcome is sounding are ignored. Outcomes are drawn ahead with ``rng``
    (:mod:`companion.core.dice_ahead`) and taken by a press with :meth:`take`.

    ``sound_seconds`` tells how long an outcome's sound lasts; times are the caller's clock.
    """

    rng: DieRng
    sound_seconds: Callable[[Outcome], float] = lambda _outcome: 0.0
    busy_until: float = field(default=float("-inf"), init=False)
    presses: int = field(default=0, init=False)
    ignored: int = field(default=0, init=False)

    def take(self, now: float, seconds: float) -> bool:
        """Press at ``now`` for an outcome drawn ahead that sounds ``seconds``: False (and
        ignored) if the previous outcome is still sounding."""
        if now < self.busy_until:
            self.ignored += 1
            return False
        self.presses += 1
        self.busy_until = now + max(0.0, seconds)
        return True

    def is_sounding(self, now: float) -> bool:
        """True while the last outcome's sound is still playing."""
        return now < self.busy_until
