"""Home Assistant through MQTT, on a real broker: Debian's mosquitto started on 127.0.0.1 by
each test, the daemon with mock pins and its MQTT frontend, and a real MQTT client hearing
what Home Assistant would (its discovery configs checked against its documented schema)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
import yaml
from gpiozero.pins.mock import MockFactory

from companion.app import commands as c
from companion.audio.null_backend import NullBackend
from companion.bench.mosquitto import Mosquitto, find_binary
from companion.config import GpioConfig
from companion.daemon import Daemon
from companion.mqtt.frontend import HomeFrontend
from tests import ha_discovery
from tests.conftest import ROOT, StepClock, run_companion
from tests.mqtt_heard import HOST, NODE, Heard, home_config, listening, press_pin, running

if find_binary() is None:  # make test installs it (Makefile APT_TEST_PACKAGES)
    raise RuntimeError("the MQTT tests need Debian's mosquitto: apt install mosquitto")

PASSWORD = "s3cret-Bowser-laugh"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path / "broker") as running_broker:
        yield running_broker


class _Json(dict):  # type: ignore[type-arg]
    """JSON as a Jinja template reads it: ``a.b`` is ``a["b"]``."""

    def __getattr__(self, name: str) -> Any:
        return self.get(name)


def _wrap(value: Any) -> Any:
    if isinstance(value, dict):
        return _Json({k: _wrap(v) for k, v in value.items()})
    return value


def render(template: str, payload: Any) -> str:
    """A discovery config's ``value_template`` read as Home Assistant reads it: the one
    expression between ``{{ }}`` on ``value_json``, rendered as text (None as "None", which
    an MQTT sensor shows as unknown)."""
    match = re.fullmatch(r"\{\{\s*(value_json[\w.'(){}, \[\]]*?)\s*\}\}", template)
    assert match, f"not a plain value_json template: {template!r}"
    return str(eval(match.group(1), {"__builtins__": {}}, {"value_json": _wrap(payload)}))


def sensor(heard: Heard, object_id: str) -> str:
    """A sensor's state now, as Home Assistant would show it: its config's template on the
    retained state it points to."""
    config = heard.configs()[("sensor", object_id)]
    return render(config["value_template"], heard.json(config["state_topic"]))


def fired(heard: Heard, topic: str, payload: bytes) -> list[str]:
    """The device triggers a message fires: those on its topic whose template's value on it
    equals their payload (Home Assistant's MQTT device trigger)."""
    found = []
    for (component, object_id), config in heard.configs().items():
        if component == "device_automation" and config["topic"] == topic:
            value = render(config["value_template"], json.loads(payload))
            if value == config["payload"]:
                found.append(object_id)
    return found


async def test_discovery_announces_one_device_home_assistant_can_read(
        tmp_path: Path, broker: Mosquitto) -> None:
    async with listening(broker.port) as heard, \
            running(home_config(tmp_path / "data", broker.port)):
        await heard.until(lambda: ("button", "timer") in heard.configs()
                          and heard.state(), what="the configs and the state")
        configs = heard.configs()
        for (component, object_id), payload in configs.items():
            assert ha_discovery.problems(component, payload) == [], (object_id, payload)
        devices = {json.dumps(p["device"], sort_keys=True) for p in configs.values()}
        assert len(devices) == 1  # one device
        device = configs[("sensor", "winner")]["device"]
        assert device["name"] == f"Question Block ({HOST})" and device["identifiers"] == [NODE]
        triggers = {p["subtype"]: p for (k, _), p in configs.items() if k == "device_automation"}
        # Celebration's modes: the no-sound table, the Coin Block's roll, utility rent
        assert {"coins", "bowser", "power_up", "game_over", "rent"} <= set(triggers)
        assert "doubles" not in triggers and "boss_won" not in triggers  # other editions'
        assert {"player_card", "action_card", "new_card", "time_up", "won"} <= set(triggers)
        assert ("sensor", "coins_mario") in configs and ("sensor", "coins_luigi") in configs
        assert configs[("sensor", "coins_mario")]["name"] == "Mario's coins"
        assert sensor(heard, "coins_mario") == "30" and sensor(heard, "current_player") == \
            "Mario"
        assert sensor(heard, "game_state") == "playing" and sensor(heard, "winner") == "None"
        assert sensor(heard, "edition") == "Monopoly: Super Mario Celebration"
        assert heard.latest["question-block/status"] == b"online"
        retained = {t for t, _, r in heard.log if r}
        assert all(t.endswith("/config") or t.endswith(("/state", "/status"))
                   for t in retained)


async def test_a_pin_press_arrives_as_its_device_trigger_and_the_coins_follow(
        tmp_path: Path, broker: Mosquitto) -> None:
    async with listening(broker.port) as heard, \
            running(home_config(tmp_path / "data", broker.port)) as (app, _home):
        await heard.until(lambda: heard.state(), what="the state")
        await press_pin(app)
        event = await heard.until(lambda: next((e for e in heard.events()
                                                if e["type"] == "outcome"), None))
        raw = next(p for t, p, _ in heard.log if t == "question-block/event"
                   and json.loads(p)["type"] == "outcome")
        assert fired(heard, "question-block/event", raw) == [f"trigger_{event['kind']}"]
        assert event["source"] == "button" and event["player"] == "Mario"
        assert event["headline"] and event["headline_said"]["m"]  # the page's words
        coins = {"coins": 30 + event.get("coins", 0),
                 "bowser": 30 - event.get("coins", 0),
                 "game_over": 30 - event.get("coins", 0)}.get(event["kind"], 30)
        await heard.until(lambda: sensor(heard, "coins_mario") == str(coins),
                          what=f"Mario's coins at {coins}")


async def test_a_payment_updates_both_balances(tmp_path: Path, broker: Mosquitto) -> None:
    async with listening(broker.port) as heard, \
            running(home_config(tmp_path / "data", broker.port)) as (app, _home):
        await heard.until(lambda: heard.state(), what="the state")
        state = await app.table.read(c.GetState())
        mario, luigi = (p.id for p in state.players)
        await app.table.act(c.Move("transfer", {"from": mario, "to": luigi, "amount": 7}))
        await heard.until(lambda: sensor(heard, "coins_mario") == "23"
                          and sensor(heard, "coins_luigi") == "37", what="23 and 37")
        table = [e for e in heard.events() if e["type"] == "table"]
        assert table and table[-1]["action"] == "transfer" and "summary_said" in table[-1]


async def test_the_button_entity_presses_the_block_by_the_pins_rule(
        tmp_path: Path, broker: Mosquitto) -> None:
    config = home_config(tmp_path / "data", broker.port)
    async with aiomqtt.Client("127.0.0.1", broker.port) as other:  # a stale retained press
        await other.publish("question-block/command/press", "PRESS", qos=1, retain=True)
    async with listening(broker.port) as heard, running(config) as (app, home):
        await heard.until(lambda: ("button", "press") in heard.configs(), what="the button")
        button = heard.configs()[("button", "press")]
        await heard.until(lambda: home.link.ignored == 1, what="the retained press ignored")
        assert app.table.health().presses == 0  # it never presses
        # two presses at once: one outcome, the second ignored while it sounds (as the pin)
        for _ in range(2):
            await heard.client.publish(button["command_topic"], button["payload_press"])
        ignored = await heard.until(lambda: [e for e in heard.events()
                                             if e["type"] == "press_ignored"])
        outcomes = await heard.until(lambda: [e for e in heard.events()
                                              if e["type"] == "outcome"])
        assert len(outcomes) == 1 and outcomes[0]["source"] == "home"
        assert app.table.health().presses == 1 and app.table.health().ignored == 1
        assert len(ignored) == 1 and ignored[0]["reason"] == "the block is still sounding"
        await heard.client.publish(button["command_topic"], "garbage")
        await asyncio.sleep(0.3)
        assert app.table.health().presses == 1


async def test_the_timer_button_starts_the_timer_and_its_seconds_count_down(
        tmp_path: Path, broker: Mosquitto) -> None:
    async with listening(broker.port) as heard, \
            running(home_config(tmp_path / "data", broker.port)):
        await heard.until(lambda: ("button", "timer") in heard.configs() and heard.state(),
                          what="the button and the state")
        assert sensor(heard, "timer") == "0"
        await heard.client.publish(heard.configs()[("button", "timer")]["command_topic"],
                                   "PRESS")
        started = await heard.until(lambda: [e for e in heard.events()
                                             if e["trigger"] == "timer_started"])
        assert started[0]["seconds"] == 14  # [lever] seconds
        raw = next(p for t, p, _ in heard.log
                   if t == "question-block/event" and b"timer_started" in p)
        assert fired(heard, "question-block/event", raw) == ["trigger_timer_started"]
        await heard.until(lambda: 0 < int(sensor(heard, "timer")) < 14,
                          what="a second gone from the timer")


async def test_a_new_game_replaces_the_players_entities_and_leaves_none_stale(
        tmp_path: Path, broker: Mosquitto) -> None:
    stale = f"homeassistant/sensor/{NODE}/coins_daisy/config"
    async with aiomqtt.Client("127.0.0.1", broker.port) as old:  # from a game long ago
        await old.publish(stale, json.dumps({"name": "Daisy's coins"}), qos=1, retain=True)
    async with listening(broker.port) as heard, \
            running(home_config(tmp_path / "data", broker.port)) as (app, _home):
        await heard.until(lambda: heard.latest.get(stale) == b"", what="the stale one cleared")
        await app.table.act(c.Move("new_game", {"edition": "movie",
                                                  "players": ["Peach", "Yoshi", "Toad"]}))
        await heard.until(lambda: ("sensor", "coins_toad") in heard.configs(), what="Toad")
        configs = heard.configs()
        assert ("sensor", "coins_mario") not in configs
        assert ("sensor", "coins_luigi") not in configs
        triggers = {p["subtype"] for (k, _), p in configs.items() if k == "device_automation"}
        assert {"dice", "doubles", "third_doubles", "battle_won", "jail_free"} <= triggers
        assert "rent" not in triggers  # Celebration's, gone with its game
        assert any(e["trigger"] == "game_started" and e["players"] == ["Peach", "Yoshi", "Toad"]
                   for e in heard.events())
        await heard.until(lambda: sensor(heard, "edition") ==
                          "Monopoly: The Super Mario Bros. Movie", what="the Movie")


async def test_the_broker_killed_and_restarted_mid_game_changes_nothing_at_the_table(
        tmp_path: Path, broker: Mosquitto, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="companion")
    config = replace(home_config(tmp_path / "data", broker.port),
                     gpio=GpioConfig(status_led_pin=23))
    async with running(config) as (app, home):
        async with listening(broker.port) as heard:
            await heard.until(lambda: heard.state(), what="the state")
        broker.kill()
        await asyncio.sleep(0.3)
        await press_pin(app)  # the table plays on
        await app.table.drain()
        assert app.table.health().presses == 1 and app.table.health().ok
        health = await app.table.read(c.GetHealth())
        mqtt = next(p for p in health.parts if p.name == "mqtt")
        assert not mqtt.ok and not mqtt.required and "down" in mqtt.detail
        assert health.ok  # /healthz stays 200: the table is whole
        seen = set()
        for _ in range(10):  # steady, not blinking: nothing is missing at the table
            seen.add(app.status_led.pin.state)
            await asyncio.sleep(0.1)
        assert seen == {1}
        state = await app.table.read(c.GetState())
        coins = next(p.balance for p in state.players if p.name == "Mario")
        broker.start()  # persistence off: it lost every retained message
        async with listening(broker.port) as heard:
            await heard.until(lambda: heard.state() and heard.state()["players"]["mario"][
                "coins"] == coins, what="the state republished", timeout=20)
            await heard.until(lambda: ("sensor", "coins_mario") in heard.configs(),
                              what="the configs republished")
            assert heard.latest["question-block/status"] == b"online"
        assert home.healthy
        lines = [r.getMessage() for r in caplog.records if r.name == "companion.mqtt.link"]
        assert sum("unreachable" in line or "lost" in line for line in lines) == 1, lines
        assert any("connected to" in line and "again" in line for line in lines), lines


async def test_the_last_will_says_offline_when_the_companion_vanishes(
        tmp_path: Path, broker: Mosquitto) -> None:
    async with listening(broker.port) as heard:
        async with running(home_config(tmp_path / "data", broker.port)):
            await heard.until(lambda: heard.latest.get("question-block/status") == b"online")
        await heard.until(lambda: heard.latest.get("question-block/status") == b"offline",
                          what="offline on a clean stop")
    configs = heard.configs()
    assert configs[("sensor", "winner")]["availability_topic"] == "question-block/status"


async def test_a_clean_stop_right_after_a_move_leaves_its_state_on_the_broker(
        tmp_path: Path, broker: Mosquitto) -> None:
    """What was queued when the stop came (the last move's state, the configs of a link
    only just up) is sent before "offline", not dropped with the connection."""
    async with listening(broker.port) as heard:
        async with running(home_config(tmp_path / "data", broker.port)) as (app, _home):
            await heard.until(lambda: heard.latest.get("question-block/status") == b"online")
            state = await app.table.read(c.GetState())
            mario, luigi = (p.id for p in state.players)
            await app.table.act(c.Move("transfer", {"from": mario, "to": luigi, "amount": 4}))
        await heard.until(lambda: heard.latest.get("question-block/status") == b"offline",
                          what="offline on a clean stop")
        status = [i for i, (t, _, _) in enumerate(heard.log) if t == "question-block/status"]
        states = [i for i, (t, _, _) in enumerate(heard.log) if t == "question-block/state"]
        assert states and states[-1] < status[-1]  # the last state came before "offline"
        coins = {p["name"]: p["coins"] for p in heard.state()["players"].values()}
    assert coins == {"Mario": 26, "Luigi": 34}


async def test_bad_credentials_are_one_clear_log_line_and_no_retry_storm(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    secret = tmp_path / "mqtt-password"
    secret.write_text("not-the-password\n")
    secret.chmod(0o600)
    with Mosquitto(tmp_path / "broker", users={"table": PASSWORD}) as broker:
        config = home_config(tmp_path / "data", broker.port, username="table",
                             password_file=str(secret))
        async with running(config) as (app, home):
            await asyncio.sleep(3.0)  # a storm would be dozens of attempts by now
            assert home.link.attempts == 1 and not home.healthy
            assert app.table.health().ok
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1, [r.getMessage() for r in errors]
        line = errors[0].getMessage()
        assert "refused the login of user 'table'" in line and "password_file" in line
        assert broker.log_text().count("not authorised") <= 1
        secret.write_text(PASSWORD + "\n")  # the right one: it connects, and never says it
        async with listening(broker.port, username="table", password=PASSWORD) as heard, \
                running(config) as (app, home):
            await heard.until(lambda: heard.state(), what="the state with the password")
            assert home.healthy
    assert all(PASSWORD not in r.getMessage() and "not-the-password" not in r.getMessage()
               for r in caplog.records)


@pytest.mark.parametrize(("text", "key"), [
    ('[mqtt]\nenabled = true\nusername = "t"\npassword_file = "{open}"\n', "mqtt.password_file"),
    ('[mqtt]\nenabled = true\npassword_file = "{mine}"\n', "mqtt.username"),
    ('[mqtt]\nenabled = true\nusername = "t"\npassword_file = "nope"\n', "mqtt.password_file"),
    ('[mqtt]\nprefix = "house/#"\n', "mqtt.prefix"),
    ('[mqtt]\nprefix = "/table"\n', "mqtt.prefix"),
    ('[mqtt]\nport = 0\n', "mqtt.port"),
    ('[mqtt]\nhost = ""\n', "mqtt.host"),
    ('[mqtt]\nenabled = true\ntls = true\nca_file = "missing.pem"\n', "mqtt.ca_file"),
    ('[mqtt]\nbroker = "x"\n', "mqtt.broker"),
    ('[mqtt]\nremote_presses_per_minute = 0\n', "mqtt.remote_presses_per_minute"),
    ('[mqtt]\nremote_presses_per_minute = 2.5\n', "mqtt.remote_presses_per_minute"),
    ('[mqtt]\nquiet_after_table_press_s = -1\n', "mqtt.quiet_after_table_press_s"),
    ('[mqtt]\nquiet_after_table_press_s = "30"\n', "mqtt.quiet_after_table_press_s"),
])
def test_bad_mqtt_config_exits_2_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    readable = tmp_path / "open-password"
    readable.write_text(PASSWORD)
    readable.chmod(0o644)
    mine = tmp_path / "my-password"
    mine.write_text(PASSWORD)
    mine.chmod(0o600)
    path = tmp_path / "bad.toml"
    path.write_text(text.format(open=readable, mine=mine))
    done = run_companion("config", "--check", "--config", str(path))
    assert done.returncode == 2 and key in done.stderr and "Traceback" not in done.stderr, done
    assert PASSWORD not in done.stderr + done.stdout


def test_the_readme_automation_flashes_a_light_on_bowser_as_the_trigger_reads_it() -> None:
    """README's automation, read as YAML: an MQTT trigger on the event topic whose template
    and payload are those of the Bowser device trigger in the discovery configs."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- home-assistant-automation -->\n```yaml\n(.*?)```", readme, re.S)
    assert block, "README has no Home Assistant automation"
    assert len(block.group(1).strip().splitlines()) <= 5
    automation = yaml.safe_load(block.group(1))
    trigger = automation["triggers"][0] if isinstance(automation, dict) else \
        automation[0]["triggers"][0]
    assert trigger["trigger"] == "mqtt"
    from companion.core.editions import editions
    from companion.mqtt.discovery import VALUE, triggers
    from companion.mqtt.topics import Topics

    bowser = next(t for t in triggers(editions()["celebration"]) if t.key == "bowser")
    assert trigger["topic"] == Topics.for_host("question-block", "homeassistant", HOST).event
    assert trigger["value_template"] == VALUE and trigger["payload"] == bowser.key
    event = {"type": "outcome", "trigger": "bowser", "kind": "bowser", "coins": 5}
    assert render(trigger["value_template"], event) == trigger["payload"]


async def test_the_readme_automation_fires_on_a_real_bowser(
        tmp_path: Path, broker: Mosquitto) -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- home-assistant-automation -->\n```yaml\n(.*?)```", readme, re.S)
    assert block
    automation = yaml.safe_load(block.group(1))
    trigger = (automation if isinstance(automation, dict) else automation[0])["triggers"][0]
    async with listening(broker.port) as heard, \
            running(home_config(tmp_path / "data", broker.port),
                    clock=StepClock(100.0, 10)) as (app, _home):  # never still sounding
        await heard.until(lambda: heard.state(), what="the state")
        for _ in range(40):  # the block's own odds: Bowser is 1 in 3
            await app.table.act(c.Press(), source="test")
            await asyncio.sleep(0.05)
            if any(e.get("kind") == "bowser" for e in heard.events()):
                break
        bowser = await heard.until(lambda: next((p for t, p, _ in heard.log
                                                 if t == trigger["topic"]
                                                 and b'"bowser"' in p), None))
        assert render(trigger["value_template"], json.loads(bowser)) == trigger["payload"]
        assert fired(heard, trigger["topic"], bowser) == ["trigger_bowser"]


def _certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA of the test's own and a certificate it signed for 127.0.0.1: (CA, cert, key), with
    the extensions Python 3.13's strict checking (VERIFY_X509_STRICT) asks of them."""
    folder.mkdir()
    ca, ca_key = folder / "ca.pem", folder / "ca.key"
    cert, key, request = folder / "broker.pem", folder / "broker.key", folder / "broker.csr"
    extensions = folder / "san.cnf"
    extensions.write_text("subjectAltName = IP:127.0.0.1\nbasicConstraints = CA:FALSE\n"
                          "keyUsage = critical, digitalSignature, keyEncipherment\n"
                          "extendedKeyUsage = serverAuth\nsubjectKeyIdentifier = hash\n"
                          "authorityKeyIdentifier = keyid, issuer\n")
    for command in (
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=Question Block test CA", "-addext", "basicConstraints = critical, CA:TRUE",
             "-addext", "keyUsage = critical, keyCertSign, cRLSign", "-keyout", ca_key,
             "-out", ca],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key,
             "-out", request],
            ["x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
             "-days", "2", "-extfile", extensions, "-out", cert]):
        subprocess.run(["openssl", *map(str, command)], check=True, capture_output=True)
    return ca, cert, key


async def test_tls_checks_the_brokers_certificate(tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    ca, cert, key = _certificates(tmp_path / "tls")
    with Mosquitto(tmp_path / "broker", tls=(cert, key)) as broker:
        config = home_config(tmp_path / "data", broker.port, tls=True, ca_file=str(ca))
        async with running(config) as (_app, home):
            await _until_connected(home)
        caplog.set_level(logging.WARNING, logger="companion.mqtt")
        strange = home_config(tmp_path / "data", broker.port, tls=True)  # the system's CAs
        async with running(strange) as (_app, home):
            await asyncio.sleep(1.0)
            assert not home.healthy and "certificate verify failed" in home.status()
        plain = home_config(tmp_path / "data", broker.port)  # no TLS to a TLS listener
        async with running(plain) as (_app, home):
            await asyncio.sleep(1.0)
            assert not home.healthy


async def _until_connected(home: HomeFrontend, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not home.healthy:
        assert loop.time() < deadline, home.status()
        await asyncio.sleep(0.05)


def test_doctor_says_whether_the_broker_takes_the_table(tmp_path: Path) -> None:
    with Mosquitto(tmp_path / "broker") as broker:
        path = tmp_path / "companion.toml"
        path.write_text(f'[mqtt]\nenabled = true\nhost = "127.0.0.1"\nport = {broker.port}\n'
                        f'[data]\ndir = "{tmp_path / "data"}"\n[web]\nenabled = false\n')
        done = run_companion("doctor", "--config", str(path))
        line = next(x for x in done.stdout.splitlines() if " mqtt " in x)
        assert line.startswith("PASS") and f"127.0.0.1:{broker.port}" in line, done.stdout
    done = run_companion("doctor", "--config", str(path))
    line = next(x for x in done.stdout.splitlines() if " mqtt " in x)
    assert line.startswith("WARN") and "unreachable" in line, done.stdout


async def test_mqtt_off_by_default_and_a_frontend_without_a_broker_never_blocks_a_press(
        tmp_path: Path) -> None:
    from companion.config import Config

    assert not Config().mqtt.enabled
    config = home_config(tmp_path / "data", 1)  # nothing listens on port 1
    app = Daemon(config, pin_factory=MockFactory(), backend=NullBackend())
    home = HomeFrontend(config.mqtt, host=HOST)
    task = asyncio.ensure_future(app.run([home]))
    await app.ready.wait()
    event = app.table.press("test")
    assert event.__class__.__name__ == "BlockOutcome"
    await asyncio.sleep(0.2)
    assert not home.healthy and "unreachable" in home.status()
    app.request_stop()
    await task
