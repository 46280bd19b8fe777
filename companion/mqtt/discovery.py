"""Home Assistant's view of the table, as MQTT discovery configs: one device ("Question Block"
with the Pi's name), a trigger per outcome kind of the edition being played and per card tap,
sensors for the game and each player's coins, and two buttons. Pure: the same table gives the
same configs, so what vanishes from one table to the next is what to remove."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.core.editions.ruleset import Ruleset
from companion.core.outcomes import Kind
from companion.core.state import TableState
from companion.i18n import Translator
from companion.i18n.said import Said, say
from companion.mqtt.topics import OFFLINE, ONLINE, PRESS, Topics, slug

VALUE = "{{ value_json.trigger }}"
"""How a trigger reads an event: its ``trigger`` field, matched against the trigger's
``payload``."""

CARD_KINDS = {"player": "player_card", "action": "action_card", "unknown": "new_card"}
"""A tapped card's kind (:class:`companion.events.CardTapped`) -> its trigger's subtype."""

TIMER_TRIGGERS = {"timer_started": "started", "timer_stopped": "stopped", "time_up": "time_up"}
GAME_TRIGGERS = {"game_started": "started", "game_won": "won"}


@dataclass(frozen=True, slots=True)
class Trigger:
    """A device trigger: ``key`` is the event's ``trigger`` field; Home Assistant shows a type
    it does not know as "subtype type" ("bowser outcome")."""

    key: str
    type: str
    subtype: str


@dataclass(frozen=True, slots=True)
class Device:
    """The one device: its id (the topics' node) and what Home Assistant shows of it."""

    host: str
    version: str
    link: str | None = None
    """The table's page on the LAN (Home Assistant's "Visit" link), without its token."""


def outcome_key(kind: Kind, doubles: bool = False) -> str:
    """An outcome's trigger: its kind, and the Movie's doubles apart from its plain rolls."""
    return "doubles" if kind is Kind.DICE and doubles else kind.value


def triggers(rules: Ruleset) -> tuple[Trigger, ...]:
    """The edition's triggers: each outcome kind its modes can draw, each kind of card tap,
    the timer's and the game's."""
    keys: dict[str, None] = {}
    for mode in rules.modes:
        for kind in mode.kinds:
            keys[outcome_key(kind)] = None
            if kind is Kind.DICE:
                keys[outcome_key(kind, doubles=True)] = None
    return (*(Trigger(key, "outcome", key) for key in keys),
            *(Trigger(f"card_{kind}", "card_tapped", sub) for kind, sub in CARD_KINDS.items()),
            *(Trigger(key, "timer", sub) for key, sub in TIMER_TRIGGERS.items()),
            *(Trigger(key, "game", sub) for key, sub in GAME_TRIGGERS.items()))


def configs(state: TableState, rules: Ruleset, topics: Topics, device: Device,
            tr: Translator | None = None) -> dict[str, str]:
    """Every discovery config for ``state`` (topic -> JSON), entities named in ``tr``'s
    language."""
    base = _common(topics, device)
    found: dict[str, str] = {}
    for component, object_id, fields in _entities(state, rules, topics, tr):
        payload = {**fields, **base} if component == "device_automation" else \
            {**fields, **base, **_available(topics), "unique_id": f"{topics.node}_{object_id}"}
        found[topics.config(component, object_id)] = json.dumps(payload, ensure_ascii=False)
    return found


def _common(topics: Topics, device: Device) -> dict[str, Any]:
    info: dict[str, Any] = {"identifiers": [topics.node],
                            "name": f"Question Block ({device.host})",
                            "manufacturer": "Question Block companion",
                            "model": "Question Block", "sw_version": device.version}
    if device.link:
        info["configuration_url"] = device.link
    return {"device": info, "origin": {"name": "Question Block companion",
                                       "sw_version": device.version}}


def _available(topics: Topics) -> dict[str, Any]:
    return {"availability_topic": topics.status, "payload_available": ONLINE,
            "payload_not_available": OFFLINE}


def _entities(state: TableState, rules: Ruleset, topics: Topics, tr: Translator | None
              ) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for trigger in triggers(rules):
        yield "device_automation", f"trigger_{trigger.key}", {
            "automation_type": "trigger", "topic": topics.event, "type": trigger.type,
            "subtype": trigger.subtype, "payload": trigger.key, "value_template": VALUE}

    def sensor(object_id: str, name: Said, value: str, **more: Any
               ) -> tuple[str, str, dict[str, Any]]:
        return "sensor", object_id, {"name": name.render(tr), "state_topic": topics.state,
                                     "value_template": value, **more}

    yield sensor("current_player", say("Current player"),
                 "{{ value_json.current_player }}", icon="mdi:account-arrow-right")
    yield sensor("edition", say("Edition"), "{{ value_json.edition_name }}",
                 icon="mdi:dice-multiple")
    yield sensor("game_state", say("Game state"), "{{ value_json.game_state }}",
                 device_class="enum", options=list(GAME_STATES), icon="mdi:flag-checkered")
    yield sensor("winner", say("Winner"), "{{ value_json.winner }}", icon="mdi:trophy")
    yield sensor("timer", say("Timer"), "{{ value_json.timer }}", device_class="duration",
                 unit_of_measurement="s", icon="mdi:timer-sand")
    yield sensor("last_card", say("Last card"), "{{ value_json.last_card }}",
                 icon="mdi:card-account-details")
    counted = _counted(state, rules)
    for player in state.players:
        key = slug(player.name)
        read = f"value_json.players.get('{key}', {{}})"
        if counted == "coins":
            yield sensor(f"coins_{key}", say("{name}'s coins", name=player.name),
                         f"{{{{ {read}.get('coins') }}}}", unit_of_measurement="coins",
                         state_class="measurement", icon="mdi:circle-multiple")
        elif counted == "worms":
            yield sensor(f"worms_{key}", say("{name}'s worms", name=player.name),
                         f"{{{{ {read}.get('worms') }}}}", unit_of_measurement="worms",
                         state_class="measurement", icon="mdi:worm")
    for command, name, icon in (("press", say("Press the block"), "mdi:help-box"),
                                ("timer", say("Start the timer"), "mdi:timer-play")):
        yield "button", command, {"name": name.render(tr), "command_topic":
                                  topics.command(command), "payload_press": PRESS,
                                  "icon": icon}


GAME_STATES = ("setup", "playing", "ended")
"""The game state sensor's values (an enum sensor: stable words for automations)."""


def _counted(state: TableState, rules: Ruleset) -> str | None:
    """What each player has a sensor for: coins where the game keeps a bank, worms found in
    Wiggly Worms."""
    if state.game.bank and rules.coins:
        return "coins"
    if state.game.worms is not None or any(p.worms is not None for p in state.players):
        return "worms"
    return None


def game_state(state: TableState) -> str:
    if state.ended:
        return "ended"
    return "setup" if state.game.setup_pending else "playing"
