"""Home Assistant MQTT discovery payloads checked the way Home Assistant reads them (test helper).

Sources: Home Assistant core 2026.11.0 (PyPI ``homeassistant``; github.com/home-assistant/core)
``homeassistant/components/mqtt/``: abbreviations.py, discovery.py, schemas.py, config.py,
util.py, entity.py, sensor.py, button.py, device_trigger.py, device_automation.py. The docs,
home-assistant/home-assistant.io ``source/_integrations/`` (www.home-assistant.io/integrations/
<page>/): mqtt.markdown @0a314403e71f72c2fa6fdcb51b28d4876b4ab7c2, sensor.mqtt.markdown
@9e4a69ab998700a518e366a7f54551a150fccf94 and button.mqtt.markdown
@d72255663705fa665050cd738a270e89f0ae8db3 (their object_id now default_entity_id, as since
2025.10), device_trigger.mqtt.markdown @ccf3963220d728fca9c34b77fc734fe1f204f7fc.

Home Assistant ignores keys it does not know (mqtt page, "Discovery payload"); this checker
reports them, so that a misspelt key fails a test instead of vanishing without a word.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

# The abbreviations (abbreviations.py ABBREVIATIONS, listed in the docs) of the keys in KEYS;
# Home Assistant's list has about 250 more, for other components.
ABBREVIATIONS: dict[str, str] = {
    "atype": "automation_type", "avty": "availability", "avty_mode": "availability_mode",
    "avty_t": "availability_topic", "avty_tpl": "availability_template",
    "cmd_t": "command_topic", "cmd_tpl": "command_template", "def_ent_id": "default_entity_id",
    "dev": "device", "dev_cla": "device_class", "e": "encoding", "en": "enabled_by_default",
    "ent_cat": "entity_category", "ent_pic": "entity_picture", "exp_aft": "expire_after",
    "frc_upd": "force_update", "ic": "icon", "json_attr_t": "json_attributes_topic",
    "json_attr_tpl": "json_attributes_template", "lrst_val_tpl": "last_reset_value_template",
    "o": "origin", "ops": "options", "p": "platform", "pl": "payload",
    "pl_avail": "payload_available", "pl_not_avail": "payload_not_available",
    "pl_prs": "payload_press", "ret": "retain", "stat_cla": "state_class",
    "stat_t": "state_topic", "stype": "subtype", "sug_dsp_prc": "suggested_display_precision",
    "t": "topic", "uniq_id": "unique_id", "unit_of_meas": "unit_of_measurement",
    "val_tpl": "value_template",
}  # `obj_id` (object_id) is gone: 2026.11 accepts only default_entity_id.
DEVICE_ABBREVIATIONS: dict[str, str] = {
    "cns": "connections", "cu": "configuration_url", "hw": "hw_version", "ids": "identifiers",
    "mdl": "model", "mdl_id": "model_id", "mf": "manufacturer", "sa": "suggested_area",
    "sn": "serial_number", "sw": "sw_version",
}  # `name` and `via_device` have no short form.
ORIGIN_ABBREVIATIONS: dict[str, str] = {"sw": "sw_version", "url": "support_url"}

# The keys of `device` (every page's `device` map), `origin` (mqtt page, "Adding information
# about the origin") and of each `availability` item (the entity pages).
DEVICE_KEYS = frozenset({
    "configuration_url", "connections", "hw_version", "identifiers", "manufacturer", "model",
    "model_id", "name", "serial_number", "suggested_area", "sw_version", "via_device"})
ORIGIN_KEYS = frozenset({"name", "sw_version", "support_url"})
AVAILABILITY_KEYS = frozenset({"topic", "payload_available", "payload_not_available",
                               "value_template"})

# What each page lists; `origin` is from the mqtt page (any discovery payload may carry it).
_ENTITY = frozenset({  # listed alike by the sensor and button pages
    "availability", "availability_mode", "availability_template", "availability_topic",
    "default_entity_id", "device", "enabled_by_default", "encoding", "entity_category",
    "entity_picture", "icon", "json_attributes_template", "json_attributes_topic", "name",
    "origin", "payload_available", "payload_not_available", "platform", "qos", "unique_id"})
KEYS: dict[str, frozenset[str]] = {
    "sensor": _ENTITY | {  # sensor.mqtt
        "device_class", "expire_after", "force_update", "last_reset_value_template", "options",
        "state_class", "state_topic", "suggested_display_precision", "unit_of_measurement",
        "value_template"},
    "button": _ENTITY | {  # button.mqtt
        "command_template", "command_topic", "device_class", "payload_press", "retain"},
    "device_automation": frozenset({  # device_trigger.mqtt
        "automation_type", "device", "origin", "payload", "platform", "qos", "subtype", "topic",
        "type", "value_template"}),
}
# `platform` is "required" only in device-based discovery (cmps), not in these payloads.
REQUIRED: dict[str, frozenset[str]] = {
    "sensor": frozenset({"state_topic"}),
    "button": frozenset({"command_topic"}),
    "device_automation": frozenset({"automation_type", "topic", "type", "subtype", "device"}),
}

_HINTS = {"object_id": " (Home Assistant dropped it: use default_entity_id, 'sensor.x')"}
_ID = re.compile(r"[a-zA-Z0-9_-]+")  # node_id and object_id (mqtt page, "Discovery topic")
_TOPIC = re.compile(r"(\w+)/(?:([a-zA-Z0-9_-]+)/)?([a-zA-Z0-9_-]+)/config")  # discovery.py
_PUBLISHED = frozenset({"command_topic"})  # util.valid_publish_topic: no wildcards
_STATE_CLASSES = ("measurement", "measurement_angle", "total", "total_increasing")
_BUTTON_CLASSES = ("identify", "restart", "update")  # /integrations/button/
_STRINGS = frozenset({
    "automation_type", "availability_template", "command_template", "default_entity_id",
    "encoding", "json_attributes_template", "last_reset_value_template", "payload_available",
    "payload_not_available", "payload_press", "subtype", "type", "value_template"})
_NULLABLE = frozenset({"device_class", "name", "payload", "state_class", "unit_of_measurement"})
_BOOLS = frozenset({"enabled_by_default", "force_update", "retain"})
_COUNTS = frozenset({"expire_after", "suggested_display_precision"})  # cv.positive_int


def _spelt_out(mapping: Any, table: dict[str, str]) -> Any:
    """A copy of a mapping with its short keys spelt out; a short key beats its long form."""
    if not isinstance(mapping, dict):
        return mapping
    out = {key: value for key, value in mapping.items() if key not in table}
    out.update((table[key], value) for key, value in mapping.items() if key in table)
    return out


def _items(value: Any) -> list[Any]:
    """`availability` as a list: Home Assistant takes a lone item as a list of one."""
    return value if isinstance(value, list) else [value]


def _rebased(topic: str, base: str) -> str:
    """``~`` at the start or end of a topic replaced by the base topic."""
    topic = base + topic[1:] if topic.startswith("~") else topic
    return topic[:-1] + base if topic.endswith("~") else topic


def expand(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as Home Assistant reads it: every abbreviation spelt out (top level,
    `device`, `origin`, each `availability` item) and the ``~`` base topic put into the values
    of keys ending in ``topic`` and of availability topics. The payload is not changed."""
    config = _spelt_out(payload, ABBREVIATIONS)
    for key, table in (("device", DEVICE_ABBREVIATIONS), ("origin", ORIGIN_ABBREVIATIONS)):
        if key in config:
            config[key] = _spelt_out(config[key], table)
    if "availability" in config:
        items = [_spelt_out(item, ABBREVIATIONS) for item in _items(config["availability"])]
        config["availability"] = items if isinstance(config["availability"], list) else items[0]
    if "~" in config:
        base = str(config.pop("~"))
        for key, value in config.items():
            if key.endswith("topic") and isinstance(value, str):
                config[key] = _rebased(value, base)
        for item in _items(config.get("availability")):
            if isinstance(item, dict) and isinstance(item.get("topic"), str):
                item["topic"] = _rebased(item["topic"], base)
    return config


def problems(component: str, payload: dict[str, Any]) -> list[str]:
    """What keeps Home Assistant from reading ``payload``, a discovery config of ``component``,
    as documented, in words; an empty list when nothing does."""
    if component not in KEYS:
        return [f"component {component!r} is not one of {sorted(KEYS)}"]
    if not isinstance(payload, dict):
        return ["the payload must be a JSON object"]  # mqtt page, "Discovery payload"
    config = expand(payload)
    found = _clashes(payload) + _unknown(config, KEYS[component])
    found += [f"missing required key {key!r}" for key in sorted(REQUIRED[component] - set(config))]
    return found + _values(component, config) + (_sensor(config) if component == "sensor" else [])


def _unknown(mapping: dict[str, Any], keys: frozenset[str], where: str = "") -> list[str]:
    """A problem for each key of ``mapping`` not among ``keys``."""
    return [f"unknown {where}key {key!r}{_HINTS.get(key, '')}"
            for key in sorted(set(mapping) - keys)]


def _not_strings(mapping: dict[str, Any], keys: frozenset[str], where: str = "") -> list[str]:
    """A problem for each of ``keys`` in ``mapping`` whose value is not a string."""
    return [f"{where}{key!r} must be a string" for key in sorted(keys & set(mapping))
            if not isinstance(mapping[key], str)]


def _clashes(payload: dict[str, Any]) -> list[str]:
    """Keys given both short and long: discovery.py keeps the short one's value, unsaid."""
    found: list[str] = []
    for mapping, table, where in (
            (payload, ABBREVIATIONS, ""),
            (payload.get("dev", payload.get("device")), DEVICE_ABBREVIATIONS, "device "),
            (payload.get("o", payload.get("origin")), ORIGIN_ABBREVIATIONS, "origin "),
            *((item, ABBREVIATIONS, "availability ")
              for item in _items(payload.get("avty", payload.get("availability"))))):
        if isinstance(mapping, dict):
            found += [f"{where}{short!r} and {long!r} both given ({short!r} wins)"
                      for short, long in table.items() if short in mapping and long in mapping]
    return found


def _values(component: str, config: dict[str, Any]) -> list[str]:
    """The values' rules (schemas.py, config.py, util.py, button.py, device_automation.py and
    entity.py; the pages' types)."""
    found = _not_strings(config, _STRINGS)
    for key, value in config.items():
        if key.endswith("topic"):
            found += _topic(key, value, key in _PUBLISHED)
        elif key in _NULLABLE and not isinstance(value, str | None):
            found.append(f"{key!r} must be a string or null")
        elif key in _BOOLS and not isinstance(value, bool):
            found.append(f"{key!r} must be true or false")
        elif key in _COUNTS and (type(value) is not int or value < 0):
            found.append(f"{key!r} must be a whole number >= 0")
    if "qos" in config and (type(config["qos"]) is not int or config["qos"] not in (0, 1, 2)):
        found.append("'qos' must be 0, 1 or 2")
    if config.get("availability_mode", "latest") not in ("all", "any", "latest"):
        found.append("'availability_mode' must be 'all', 'any' or 'latest'")
    if config.get("entity_category", "config") not in ("config", "diagnostic"):
        found.append("'entity_category' must be 'config' or 'diagnostic'")
    if "icon" in config and not (isinstance(config["icon"], str) and ":" in config["icon"]):
        found.append("'icon' must be 'prefix:name', as 'mdi:dice-5'")  # cv.icon
    if "entity_picture" in config:
        found += _url("'entity_picture'", config["entity_picture"], {"http", "https"})
    if "unique_id" in config and not (isinstance(config["unique_id"], str) and config["unique_id"]):
        found.append("'unique_id' must be a non-empty string")
    entity_id = config.get("default_entity_id")  # the docs' 'sensor.foobar'; entity.py warns
    if isinstance(entity_id, str) and not re.fullmatch(rf"{component}\..+", entity_id):
        found.append(f"'default_entity_id' must be '{component}.<object id>'")
    if config.get("platform", component) != component:
        found.append(f"'platform' must be {component!r}")
    if component == "button" and config.get("device_class") not in (*_BUTTON_CLASSES, None):
        found.append(f"'device_class' of a button must be one of {_BUTTON_CLASSES}")
    if component == "device_automation" and config.get("automation_type", "trigger") != "trigger":
        found.append("'automation_type' must be 'trigger'")
    if "device" in config:
        found += _device(config["device"])
        if component != "device_automation" and "unique_id" not in config:
            found.append("'device' is ignored without 'unique_id'")  # entity pages, entity.py
    if "origin" in config:
        found += _origin(config["origin"])
    return found + _availability(config)


def _topic(key: str, value: Any, published: bool) -> list[str]:
    """util.py's topic rules: a topic Home Assistant publishes to has no wildcard; one it
    subscribes to may, each '+' a whole level and one '#' as the whole last level."""
    if not isinstance(value, str) or not value:
        return [f"{key!r} must be a non-empty string"]
    if any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in value):
        return [f"{key!r} has a control character"]
    if published:
        return [f"{key!r} cannot have a wildcard ('+', '#')"] if {"+", "#"} & set(value) else []
    levels = value.split("/")
    if any("+" in level and level != "+" for level in levels) or (
            "#" in value and (value.count("#") > 1 or levels[-1] != "#")):
        return [f"{key!r} has a wildcard that is not a whole level (or a '#' not last)"]
    return []


def _url(what: str, value: Any, schemes: set[str]) -> list[str]:
    """cv.url and cv.configuration_url: an absolute URL with one of ``schemes``."""
    parsed = urlparse(value) if isinstance(value, str) else None
    if parsed is None or parsed.scheme not in schemes or not parsed.netloc:
        return [f"{what} must be a {'/'.join(sorted(schemes))} URL"]
    return []


def _device(device: Any) -> list[str]:
    """schemas.py's device map: at least one of 'identifiers' and 'connections', non-empty."""
    if not isinstance(device, dict):
        return ["'device' must be a JSON object"]
    found = _unknown(device, DEVICE_KEYS, "device ")
    found += _not_strings(device, DEVICE_KEYS - {"identifiers", "connections"}, "device ")
    ids, connections = device.get("identifiers"), device.get("connections")
    if not ids and not connections:
        found.append("'device' needs 'identifiers' or 'connections'")
    if ids and not all(isinstance(one, str) for one in _items(ids)):
        found.append("device 'identifiers' must be a string or a list of strings")
    if connections is not None and not (isinstance(connections, list) and all(
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
            for pair in connections)):
        found.append("device 'connections' must be a list of [type, id] pairs")
    if "configuration_url" in device:
        found += _url("device 'configuration_url'", device["configuration_url"],
                      {"http", "https", "homeassistant"})
    return found


def _origin(origin: Any) -> list[str]:
    """schemas.py's origin map; discovery.py drops the whole message when it is invalid."""
    if not isinstance(origin, dict):
        return ["'origin' must be a JSON object"]
    found = _unknown(origin, ORIGIN_KEYS, "origin ") + _not_strings(origin, ORIGIN_KEYS, "origin ")
    if "name" not in origin:
        found.append("'origin' needs a 'name'")
    if "support_url" in origin:
        found += _url("origin 'support_url'", origin["support_url"],
                      {"http", "https", "homeassistant"})
    return found


def _availability(config: dict[str, Any]) -> list[str]:
    """The `availability` list, never together with `availability_topic` (vol.Exclusive)."""
    if "availability" not in config:
        return []
    found = []
    if "availability_topic" in config:
        found.append("'availability' cannot go with 'availability_topic'")
    if not isinstance(config["availability"], list):
        found.append("'availability' must be a list")
    for item in _items(config["availability"]):
        if not isinstance(item, dict):
            found.append("each 'availability' item must be a JSON object")
            continue
        found += _unknown(item, AVAILABILITY_KEYS, "availability ")
        found += _not_strings(item, AVAILABILITY_KEYS - {"topic"}, "availability ")
        found += _topic("availability topic", item["topic"], False) if "topic" in item else [
            "each 'availability' item needs a 'topic'"]
    return found


def _sensor(config: dict[str, Any]) -> list[str]:
    """sensor.py: state class, last reset, `options` (only with device class 'enum', though
    Home Assistant lets an 'enum' sensor go without them) and no 'config' category."""
    found: list[str] = []
    state_class, unit = config.get("state_class"), config.get("unit_of_measurement")
    if state_class is not None and state_class not in _STATE_CLASSES:
        found.append(f"'state_class' must be one of {_STATE_CLASSES}")
    if "last_reset_value_template" in config and state_class != "total":
        found.append("'last_reset_value_template' needs 'state_class' 'total'")
    if "options" in config:
        if not isinstance(config["options"], list) or not config["options"]:
            found.append("'options' must be a non-empty list")
        if config.get("device_class") != "enum":
            found.append("'options' needs 'device_class' 'enum'")
        if state_class or (isinstance(unit, str) and unit.strip()):
            found.append("'options' cannot go with 'state_class' or 'unit_of_measurement'")
    if config.get("entity_category") == "config":
        found.append("'entity_category' of a sensor cannot be 'config'")  # util.py
    return found


def discovery_topic(prefix: str, component: str, node_id: str | None, object_id: str) -> str:
    """``<prefix>/<component>/[<node_id>/]<object_id>/config`` (mqtt page, "Discovery topic");
    ValueError for a node or object id not of ``[a-zA-Z0-9_-]+``."""
    for what, value in (("node_id", node_id), ("object_id", object_id)):
        if value is not None and not _ID.fullmatch(value):
            raise ValueError(f"{what} {value!r} must be of [a-zA-Z0-9_-]+")
    node = "" if node_id is None else f"{node_id}/"
    return f"{prefix}/{component}/{node}{object_id}/config"


def parse_topic(topic: str, prefix: str = "homeassistant") -> tuple[str, str | None, str]:
    """``(component, node_id, object_id)`` of a discovery topic under ``prefix``, node_id None
    when it has none, matched as discovery.py does; ValueError for any other topic."""
    head = f"{prefix}/"
    match = _TOPIC.fullmatch(topic[len(head):]) if topic.startswith(head) else None
    if match is None:
        raise ValueError(f"{topic!r} is not a discovery topic under {prefix!r}")
    component, node_id, object_id = match.groups()
    return component, node_id, object_id
