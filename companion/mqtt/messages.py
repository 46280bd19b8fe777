"""The table's JSON on the broker: its state (retained, the sensors read it) and each event
(the triggers and any automation read it), in the page's words: English text and, for a
:class:`companion.i18n.said.Said`, its message and values under ``<key>_said``."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from typing import Any

from companion.core.lever import TimerState
from companion.core.state import TableState
from companion.events import (
    BlockOutcome,
    CardTapped,
    Event,
    PressIgnored,
    StateChanged,
    StorageChanged,
    TimerChanged,
)
from companion.i18n import Translator
from companion.i18n.said import Said, texts
from companion.mqtt.discovery import game_state, outcome_key
from companion.mqtt.topics import slug


def seconds_left(timer: TimerState | None, elapsed: float = 0.0) -> int:
    """The timer's whole seconds left (rounded up: "1" until it is out), ``elapsed`` seconds
    after ``timer`` was read."""
    if timer is None or not timer.running:
        return 0
    return max(0, math.ceil(timer.remaining - elapsed))


def state_message(state: TableState, timer: int = 0, last_card: str | None = None,
                  tr: Translator | None = None) -> dict[str, Any]:
    """What the sensors read: the game (its edition's name in ``tr``'s language), whose turn,
    who won, each player, the timer."""
    rules = state.game.rules
    winners = [str(state.name_of(pid)) for pid in state.winners]
    current = state.current
    return {
        "edition": state.game.edition,
        "edition_name": Said(rules.name if rules is not None else state.game.name).render(tr),
        "game": state.game.id,
        "game_state": game_state(state),
        "current_player": None if current is None or state.ended else current.name,
        "winner": ", ".join(winners) if winners else None,
        "winners": winners,
        "players": {slug(p.name): {"name": p.name, "coins": p.balance if state.game.bank
                                   else None, "points": p.points, "worms": p.worms,
                                   "out": p.out, "current": p.current, "in_jail": p.in_jail,
                                   "position": p.position}
                    for p in state.players},
        "timer": timer,
        "last_card": last_card,
    }


def event_message(event: Event, state: TableState | None) -> dict[str, Any] | None:
    """An event as JSON; its ``trigger`` names the device trigger it fires (None: no trigger
    of its own). None for an event the house has no use for."""
    body = _body(event, state)
    if body is None:
        return None
    edition = None if state is None else state.game.edition
    return {**body, "edition": edition, "time": _now()}


def _body(event: Event, state: TableState | None) -> dict[str, Any] | None:
    if isinstance(event, BlockOutcome):
        outcome = event.outcome
        player = None if event.player is None or state is None else \
            str(state.name_of(event.player))
        return {"type": "outcome", "trigger": outcome_key(outcome.kind, outcome.doubles),
                "press": event.number, "source": event.source, "player": player,
                **outcome.to_json(),
                **texts(headline=event.headline, instruction=event.instruction,
                        description=event.description)}
    if isinstance(event, CardTapped):
        return {"type": "card", "trigger": f"card_{event.kind}", **event.entry}
    if isinstance(event, TimerChanged):
        trigger = "time_up" if event.what == "time_up" else f"timer_{event.what}"
        return {"type": "timer", "trigger": trigger, "what": event.what,
                "source": event.source, "seconds": seconds_left(event.state),
                "timer": event.state.to_json()}
    if isinstance(event, PressIgnored):
        return {"type": "press_ignored", "trigger": None, "source": event.source,
                **texts(reason=event.reason)}
    if isinstance(event, StateChanged):
        return {"type": "table", "trigger": None, "action": event.action,
                **texts(summary=event.summary)}
    if isinstance(event, StorageChanged):
        return {"type": "storage", "trigger": None, **texts(summary=event.summary),
                "storage": event.storage.to_json()}
    return None  # LeverPressed: its TimerChanged follows


def game_message(before: TableState | None, after: TableState) -> dict[str, Any] | None:
    """A game started (a new game id) or won (it just ended): its own event, with its
    trigger; None when neither (or when there was no table before to compare with)."""
    if before is None:
        return None
    game = {"type": "game", "game": after.game.id, "edition": after.game.edition}
    if before.game.id != after.game.id:
        return {**game, "trigger": "game_started", "players": [p.name for p in after.players],
                "time": _now()}
    if after.ended and not before.ended:
        winners = [str(after.name_of(pid)) for pid in after.winners]
        return {**game, "trigger": "game_won", "winner": ", ".join(winners) or None,
                "winners": winners, "time": _now()}
    return None


def _now() -> str:
    return datetime.fromtimestamp(time.time(), UTC).isoformat(timespec="milliseconds")
