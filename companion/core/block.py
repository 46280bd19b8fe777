"""The block as a player meets it: one press, one outcome, no press while it sounds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from companion.core.outcomes import DieRng, Outcome


@dataclass
class Block:
    """Draws outcomes and, like the Hasbro Question Block unit, ignores presses while an
    outcome is sounding.

    ``sound_seconds`` tells how long an outcome's sound lasts; times are the caller's clock.
    """

    rng: DieRng
    sound_seconds: Callable[[Outcome], float] = lambda _outcome: 0.0
    busy_until: float = field(default=float("-inf"), init=False)
    presses: int = field(default=0, init=False)
    ignored: int = field(default=0, init=False)

    def press(self, now: float, draw: Callable[[DieRng], Outcome]) -> Outcome | None:
        """Press at ``now`` and ``draw`` with the block's dice: the outcome, or None if the
        previous outcome is still sounding."""
        if now < self.busy_until:
            self.ignored += 1
            return None
        outcome = draw(self.rng)
        self.presses += 1
        self.busy_until = now + max(0.0, self.sound_seconds(outcome))
        return outcome

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
