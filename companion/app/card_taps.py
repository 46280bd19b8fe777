"""What a card tap does, and the feed of recent taps (tablet, screen, ``GET /api/activity``).

A card linked on the tablet (a player of the current game, or an action) comes first, then the
config's ``[reader] cards``; anything else is a new card for the tablet to link. The taps are
carried out through the table's own contract, like any frontend's commands.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from companion.app import commands as c
from companion.app.contract import Table
from companion.core.editions.modes import BY_CARD
from companion.core.uid import fingerprint
from companion.events import BlockOutcome, CardTapped, LeverPressed
from companion.exc import CompanionError, Refused
from companion.i18n.said import Said, say, texts

log = logging.getLogger(__name__)

ACTIVITY = 50
"""Taps kept in the feed."""


class CardTaps:
    def __init__(self, named: Mapping[str, str], publish: Callable[[CardTapped], None]) -> None:
        self.named = dict(named)
        self.publish = publish
        self.feed: deque[dict[str, Any]] = deque(maxlen=ACTIVITY)

    async def tap(self, table: Table, uid: str, source: str) -> dict[str, Any]:
        """Carry out a tap of ``uid``; the feed's new line (what it did, in words)."""
        kind, did = "unknown", say("new card")
        try:
            kind, meaning = await table.read(c.CardMeaning(uid, self.named))
            if kind == "unmatched":
                did = say("card of {name}, who is not in this game: link it on the tablet",
                          name=str(meaning))
            elif kind == "player":
                did = await self._player(table, meaning, uid)
            elif kind == "action":
                did = await self._action(table, str(meaning), uid)
        except CompanionError as exc:
            kind = "error" if kind == "unknown" else kind
            did = say("refused: {why}", why=exc.said)
        except Exception:
            log.exception("%s: handling the tap failed", fingerprint(uid))
            kind, did = "error", say("failed (see the log)")
        entry = {"at": time.time(), "uid": uid, "source": source, "kind": kind,
                 **texts(did=did)}
        self.feed.appendleft(entry)
        log.info("%s: %s", fingerprint(uid), did)
        self.publish(CardTapped(uid, kind, did, entry))
        return entry

    @staticmethod
    async def _player(table: Table, player: Any, uid: str) -> Said:
        """A player's card makes them current; while a battle waits for its teammate (a
        Battle card armed it), it makes them the teammate instead."""
        state = await table.read(c.GetState())
        mode = state.mode
        if mode is not None and mode.params.get("teammate") == BY_CARD:
            leader = mode.params["leader"]
            await table.act(c.ArmMode(mode.id, {"leader": leader, "teammate": player}),
                            source=_source(uid))
            return say("{name} joins {leader}'s battle", name=state.name_of(player),
                       leader=state.name_of(leader))
        await table.act(c.Move("set_current", {"player": player}), source=_source(uid))
        return say("{name} is current",
                   name=(await table.read(c.GetState())).name_of(player))

    @staticmethod
    async def _action(table: Table, action: str, uid: str) -> Said:
        source = _source(uid)
        if action in ("piranha", "super_star"):
            view = await table.act(c.ArmMode(action), source=source)
            return say("next press: {mode}", mode=view.text)
        if action == "battle":
            state = await table.read(c.GetState())
            if state.current_player is None:
                raise Refused(say("nobody is current: tap the leader's card first"))
            free = [p for p in state.active if p.id != state.current_player and not p.in_jail]
            view = await table.act(c.ArmMode("battle", {  # nobody free: the leader alone
                "leader": state.current_player, "teammate": BY_CARD if free else None}),
                source=source)
            return say("next press: {mode}", mode=view.text)
        if action == "next_player":
            pid = await table.act(c.Move("next_player"), source=source)
            return say("next player: {name}",
                       name=(await table.read(c.GetState())).name_of(pid))
        if action == "pass_go":
            await table.act(c.Move("pass_go"), source=source)
            return say("pass GO")
        if action == "undo":
            await table.act(c.Move("undo"), source=source)
            return say("undo")
        if action == "press":
            event = table.press(source="card")
            if isinstance(event, BlockOutcome):
                return say("pressed the block")
            if isinstance(event, LeverPressed):
                return say("timer started") if event.started else say("timer stopped")
            return say("press ignored: {reason}", reason=getattr(event, "reason", None)
                       or say("the block is busy"))
        if action == "timer":
            timer = await table.act(c.ToggleTimer(), source="card")
            return say("timer started") if timer.running else say("timer stopped")
        raise CompanionError(say("unknown card action {action}", action=repr(action)))

    def new_cards(self, linked: set[str]) -> list[str]:
        """Cards tapped recently that mean nobody here (unknown, or the config's name for
        someone not in this game) and are still not linked on the tablet, newest first."""
        seen: list[str] = []
        for entry in self.feed:
            uid = entry["uid"]
            if entry["kind"] in ("unknown", "unmatched") and uid not in linked \
                    and uid not in seen:
                seen.append(uid)
        return seen


def _source(uid: str) -> str:
    return f"card:{uid}"[:40]
