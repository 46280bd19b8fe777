"""The discovery checker (tests/ha_discovery.py) passes Home Assistant's own examples and fails
what Home Assistant would drop or misread."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ha_discovery import discovery_topic, expand, parse_topic, problems

# The examples of the docs' pages (the button's is its YAML "Full configuration" as JSON).
SENSOR = {  # sensor.mqtt, "Processing Unix EPOCH timestamps"
    "name": "turned on", "state_topic": "pump/timestamp_on", "device_class": "timestamp",
    "value_template": "{{ as_datetime(value) }}", "unique_id": "hp_1231232_ts_on",
    "device": {"name": "Heat pump", "identifiers": ["hp_1231232"]}}
BUTTON = {  # button.mqtt, "Full configuration"
    "unique_id": "bedroom_switch_reboot_btn", "name": "Restart Bedroom Switch",
    "command_topic": "home/bedroom/switch1/commands", "payload_press": "restart",
    "availability": [{"topic": "home/bedroom/switch1/available"}], "qos": 0, "retain": False,
    "entity_category": "config", "device_class": "restart"}
TRIGGER = {  # device_trigger.mqtt, "Left arrow click configuration"
    "automation_type": "trigger", "type": "action", "subtype": "arrow_left_click",
    "payload": "arrow_left_click", "topic": "zigbee2mqtt/0x90fd9ffffedf1266/action",
    "device": {"identifiers": ["zigbee2mqtt_0x90fd9ffffedf1266"], "name": "0x90fd9ffffedf1266",
               "sw_version": "Zigbee2MQTT 1.14.0",
               "model": "TRADFRI remote control (E1524/E1810)", "manufacturer": "IKEA"}}
ABBREVIATED = {  # a sensor with the mqtt page's short keys and base topic
    "~": "table/kitchen", "name": "Coins", "stat_t": "~/state", "uniq_id": "kitchen_coins",
    "avty": [{"t": "~/status", "pl_avail": "up"}], "stat_cla": "measurement",
    "dev": {"ids": "kitchen", "mf": "Us", "mdl_id": "QB-1"},
    "o": {"name": "companion", "sw": "1.0", "url": "https://example.org/help"}}


def about(found: list[str], key: str) -> bool:
    """Whether some problem names ``key``."""
    return any(repr(key) in problem for problem in found)


@pytest.mark.parametrize(("component", "payload"), [
    ("sensor", SENSOR), ("button", BUTTON), ("device_automation", TRIGGER),
    ("sensor", ABBREVIATED),
    ("sensor", {**SENSOR, "device_class": "enum", "options": ["setup", "playing"]})])
def test_the_documented_examples_pass(component: str, payload: dict[str, Any]) -> None:
    assert problems(component, payload) == []


def test_abbreviations_and_the_base_topic_are_spelt_out() -> None:
    assert expand(ABBREVIATED) == {
        "name": "Coins", "state_topic": "table/kitchen/state", "unique_id": "kitchen_coins",
        "availability": [{"topic": "table/kitchen/status", "payload_available": "up"}],
        "state_class": "measurement",
        "device": {"identifiers": "kitchen", "manufacturer": "Us", "model_id": "QB-1"},
        "origin": {"name": "companion", "sw_version": "1.0",
                   "support_url": "https://example.org/help"}}
    assert "~" in ABBREVIATED and "stat_t" in ABBREVIATED  # the payload is left as it was


def test_a_misspelt_key_is_unknown() -> None:
    found = problems("sensor", {**SENSOR, "unit_of_measurment": "coins"})
    assert about(found, "unit_of_measurment")
    assert about(problems("sensor", {**SENSOR, "object_id": "x"}), "object_id")


@pytest.mark.parametrize(("component", "payload", "key"), [
    ("sensor", SENSOR, "state_topic"), ("button", BUTTON, "command_topic"),
    ("device_automation", TRIGGER, "device"), ("device_automation", TRIGGER, "subtype")])
def test_a_missing_required_key_is_named(component: str, payload: dict[str, Any],
                                         key: str) -> None:
    found = problems(component, {k: v for k, v in payload.items() if k != key})
    assert about(found, key)


def test_a_device_needs_identifiers_or_connections() -> None:
    found = problems("sensor", {**SENSOR, "device": {"name": "Heat pump"}})
    assert about(found, "identifiers")
    assert about(problems("device_automation", {**TRIGGER, "device": {"ids": []}}),
                 "identifiers")
    assert problems("sensor", {**SENSOR, "device": {"cns": [["mac", "02:5b:26:a8:dc:12"]]}}) == []
    assert about(problems("sensor", {k: v for k, v in SENSOR.items() if k != "unique_id"}),
                 "unique_id")  # a device without a unique id is ignored


def test_options_go_with_the_enum_device_class_only() -> None:
    assert about(problems("sensor", {**SENSOR, "options": ["a", "b"]}), "options")
    enum = {**SENSOR, "device_class": "enum"}
    assert about(problems("sensor", {**enum, "options": []}), "options")
    assert about(problems("sensor", {**enum, "options": ["a"], "unit_of_measurement": "s"}),
                 "options")
    # Home Assistant (sensor.py, sensor/entity.py) takes an enum sensor without options.
    assert problems("sensor", enum) == []


@pytest.mark.parametrize(("component", "change", "key"), [
    ("button", {"command_topic": "home/+/set"}, "command_topic"),
    ("sensor", {"state_topic": "home/a#"}, "state_topic"),
    ("sensor", {"qos": 3}, "qos"),
    ("sensor", {"entity_category": "config"}, "entity_category"),
    ("sensor", {"state_class": "measure"}, "state_class"),
    ("sensor", {"availability_mode": "most"}, "availability_mode"),
    ("sensor", {"unique_id": ""}, "unique_id"),
    ("sensor", {"default_entity_id": "button.x"}, "default_entity_id"),
    ("sensor", {"availability_topic": "a", "availability": [{"topic": "b"}]}, "availability"),
    ("sensor", {"o": {"sw": "1.0"}}, "origin"),
    ("sensor", {"stat_t": "a", "state_topic": "b"}, "stat_t"),
    ("button", {"payload_press": 1}, "payload_press"),
    ("button", {"device_class": "reboot"}, "device_class"),
    ("device_automation", {"automation_type": "action"}, "automation_type")])
def test_a_bad_value_is_named(component: str, change: dict[str, Any], key: str) -> None:
    payload = {"sensor": SENSOR, "button": BUTTON, "device_automation": TRIGGER}[component]
    assert about(problems(component, {**payload, **change}), key)


def test_discovery_topics() -> None:
    assert discovery_topic("homeassistant", "sensor", None, "coins") == \
        "homeassistant/sensor/coins/config"
    topic = discovery_topic("ha/x", "device_automation", "question_block_pi", "trigger_won")
    assert topic == "ha/x/device_automation/question_block_pi/trigger_won/config"
    assert parse_topic(topic, "ha/x") == ("device_automation", "question_block_pi", "trigger_won")
    assert parse_topic("homeassistant/sensor/coins/config") == ("sensor", None, "coins")
    for bad in ("homeassistant/sensor/a.b/config", "homeassistant/sensor/config",
                "other/sensor/coins/config", "homeassistant/sensor/a/b/c/config"):
        with pytest.raises(ValueError):
            parse_topic(bad)
    with pytest.raises(ValueError):
        discovery_topic("homeassistant", "sensor", "my node", "coins")
