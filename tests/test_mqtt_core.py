"""The MQTT frontend's pure parts: which triggers an edition has (each table's outcome kinds,
drawn face by face), the discovery configs of every edition against Home Assistant's schema,
the state's JSON, the ids and topics, and the password file's rules."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from companion.bank import Bank
from companion.core.editions import editions
from companion.core.editions.modes import KINDS, SIDES, TABLES
from companion.core.lever import Phase, TimerState
from companion.exc import Refused
from companion.i18n import translator
from companion.mqtt.discovery import Device, configs, triggers
from companion.mqtt.messages import seconds_left, state_message
from companion.mqtt.topics import Topics, slug
from companion.password_file import SecretError, read_password
from tests import ha_discovery

TOPICS = Topics.for_host("question-block", "homeassistant", "tablepi")


class Faces:
    """A die that shows the given faces in turn."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        self.faces = iter(faces)

    def randint(self, a: int, b: int) -> int:
        return next(self.faces)


PARAMS = ({}, {"doubles": 2}, {"first": 6}, {"first": 1}, {"tries": 0}, {"tries": 2},
          {"payer": 1, "owner": 2, "utilities": 1},
          *({"required": r} for r in range(1, SIDES + 1)))
"""Where the table may stand at a press: doubles rolled, a battle's first die, tries from
Jail, a Boss's required roll."""


def test_each_tables_kinds_are_what_its_faces_draw() -> None:
    assert set(KINDS) == set(TABLES)
    for rules in editions().values():
        for mode in rules.modes:
            drawn = set()
            for faces in itertools.product(range(1, SIDES + 1), repeat=2):
                for params in PARAMS:
                    try:
                        drawn.add(mode.draw(Faces((*faces, *faces)), params).kind)
                    except (Refused, KeyError, StopIteration):
                        continue  # a press this mode can't make there (the lever)
            assert drawn == set(mode.kinds), (rules.id, mode.id, drawn)


def test_each_edition_has_the_triggers_of_its_own_outcomes() -> None:
    keys = {e: {t.key for t in triggers(rules)} for e, rules in editions().items()}
    common = {"card_player", "card_action", "card_unknown", "timer_started", "timer_stopped",
              "time_up", "game_started", "game_won"}
    assert keys["celebration"] == common | {"coins", "bowser", "power_up", "game_over", "rent"}
    assert {"dice", "doubles", "third_doubles", "battle_won", "battle_lost", "piranha",
            "super_star", "jail_free", "jail_stay", "jail_paid"} <= keys["movie"]
    assert {"boss_won", "boss_lost", "move", "coins"} <= keys["gamer"]
    assert {"race_roll", "move", "coins"} <= keys["mario_kart"]
    assert keys["wiggly_worms"] == common  # the lever: a press draws nothing
    for rules in editions().values():  # a device's (type, subtype) pairs are unique
        pairs = [(t.type, t.subtype) for t in triggers(rules)]
        assert len(pairs) == len(set(pairs))


@pytest.mark.parametrize("edition", list(editions()))
def test_every_editions_configs_are_valid_discovery(tmp_path: Path, edition: str) -> None:
    rules = editions()[edition]
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game(edition, ["Mario", "Luigi", "Zoë"][:max(2, min(3, rules.max_players))])
    state = bank.state()
    found = configs(state, state.game.rules or rules, TOPICS,
                    Device("tablepi", "1.0", "http://192.168.1.20:8080/"))
    for topic, raw in found.items():
        component, node, _object_id = ha_discovery.parse_topic(topic)
        assert node == TOPICS.node and TOPICS.is_config(topic)
        payload = json.loads(raw)
        assert ha_discovery.problems(component, payload) == [], (topic, payload)
    sensors = {t.split("/")[3] for t in found if "/sensor/" in t}
    counted = "worms" if edition == "wiggly_worms" else "coins"
    assert {f"{counted}_mario", f"{counted}_luigi"} <= sensors
    assert {"current_player", "edition", "game_state", "winner", "timer", "last_card"} <= \
        sensors
    assert configs(state, state.game.rules or rules, TOPICS, Device("tablepi", "1.0")) \
        .keys() == found.keys()  # the same table, the same entities


def test_entity_names_are_in_the_tables_language(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi"])
    state = bank.state()
    assert state.game.rules is not None
    german = translator("de")
    found = configs(state, state.game.rules, TOPICS, Device("tablepi", "1.0"), german)
    names = {json.loads(p).get("name") for p in found.values()}
    assert {"Aktueller Spieler", german.gettext("{name}'s coins").format(name="Mario"),
            german.gettext("Press the block")} <= names


def test_the_state_message_says_who_plays_and_who_won(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi"])
    state = bank.state()
    message = state_message(state, 9, "Mario's card")
    assert message["current_player"] == "Mario" and message["winner"] is None
    assert message["game_state"] == "playing" and message["timer"] == 9
    assert message["players"]["mario"]["coins"] == 30 and message["last_card"] == "Mario's card"
    luigi = state.players[1].id
    ended = state_message(replace(state, ended=True, winners=(luigi,)))
    assert ended["winner"] == "Luigi" and ended["game_state"] == "ended"
    assert ended["current_player"] is None
    assert state_message(replace(state, ended=True, winners=(state.players[0].id, luigi))
                         )["winner"] == "Mario, Luigi"  # a shared win


def test_seconds_left_round_up_until_time_is_out() -> None:
    timer = TimerState(Phase.RUNNING, 13.2, 14.0, False, 1, 14.0, False, 30.0)
    assert seconds_left(timer) == 14 and seconds_left(timer, 0.2) == 13
    assert seconds_left(timer, 13.1) == 1 and seconds_left(timer, 20) == 0
    assert seconds_left(replace(timer, phase=Phase.IDLE)) == 0 and seconds_left(None) == 0


def test_ids_are_stable_and_keep_players_apart() -> None:
    assert slug("Mario") == "mario" and slug("Princess Peach") == "princess_peach"
    assert slug("Zoë") != slug("Zoe") and slug("Zoë").startswith("zoe_")
    assert slug("李") == slug("李") and slug("李").startswith("p_") and slug("李") != slug("王")
    assert TOPICS.node == "question_block_tablepi"
    assert TOPICS.is_config("homeassistant/sensor/question_block_tablepi/winner/config")
    assert not TOPICS.is_config("homeassistant/sensor/question_block_other/winner/config")
    assert not TOPICS.is_config("question-block/state")
    nested = Topics.for_host("house/table-2", "ha/discovery", "Pi.Local")
    assert nested.is_config(nested.config("button", "press"))
    assert nested.event == "house/table-2/event" and nested.node == "question_block_pi_local"


def test_the_password_file_must_be_its_owners_alone(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    with pytest.raises(SecretError, match="does not exist"):
        read_password(secret)
    secret.write_text("hunter2\nignored\n")
    secret.chmod(0o644)
    with pytest.raises(SecretError, match="chmod 600") as refused:
        read_password(secret)
    assert "hunter2" not in str(refused.value)
    secret.chmod(0o600)
    password = read_password(secret)
    assert password == "hunter2" and "hunter2" not in repr(password)
    secret.write_text("\n")
    with pytest.raises(SecretError, match="empty"):
        read_password(secret)
    with pytest.raises(SecretError, match="must be a file"):
        read_password(tmp_path)
    secret.write_bytes(b"\xff\xfe")
    with pytest.raises(SecretError, match="UTF-8"):
        read_password(secret)


def test_a_game_says_when_it_starts_and_when_it_is_won(tmp_path: Path) -> None:
    from companion.mqtt.messages import game_message

    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("celebration", ["Mario", "Luigi"])
    first = bank.state()
    assert game_message(None, first) is None and game_message(first, first) is None
    won = replace(first, ended=True, winners=(first.players[1].id,))
    news = game_message(first, won)
    assert news is not None and news.pop("time").endswith("+00:00")
    assert news == {"type": "game", "game": first.game.id, "edition": "celebration",
                    "trigger": "game_won", "winner": "Luigi", "winners": ["Luigi"]}
    assert game_message(won, won) is None  # said once
    bank.new_game("movie", ["Peach", "Yoshi"])
    started = game_message(won, bank.state())
    assert started is not None and started["trigger"] == "game_started"
    assert started["players"] == ["Peach", "Yoshi"] and started["edition"] == "movie"
