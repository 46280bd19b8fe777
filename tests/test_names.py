"""Player names on real strings: emoji sequences and every script welcome, invisible and
control characters refused with their name, NFC stored, look-alike names refused as one (ICU's
UTS #39 skeletons); through the bank's SQLite file and the tablet's HTTP API."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.bank import DB_NAME, Bank
from companion.config import ConfigError, from_dict
from companion.core.ledger import check_names
from companion.core.names import (
    MAX_CODE_POINTS,
    MAX_NAME,
    check_name,
    graphemes,
    look_alike,
    skeletons,
)
from companion.exc import Refused
from tests.conftest import ROOT, StepClock
from tests.test_game_api import game, refused

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl
RAINBOW = "\U0001f3f3\ufe0f\u200d\U0001f308"  # white flag VS16 ZWJ rainbow
FRANCE = "\U0001f1eb\U0001f1f7"  # regional indicators F R
ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"  # tags
THUMB = "\U0001f44d\U0001f3fd"  # thumbs up, medium skin tone
CODER = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # woman, skin tone, ZWJ, laptop
KEYCAP_1 = "1\ufe0f\u20e3"
CYRILLIC_A = "M\u0430rio"  # Cyrillic small a
FULLWIDTH = "\uff2d\uff41\uff52\uff49\uff4f"
GREEK_CAPS = "\u039c\u0391R\u0399\u039f"  # Greek Mu Alpha, Latin R, Greek Iota Omicron


@pytest.mark.parametrize("name", [
    FAMILY, RAINBOW, FRANCE + "\U0001f1e9\U0001f1ea", ENGLAND, THUMB, CODER, KEYCAP_1,
    "#\ufe0f\u20e3", "\u2764\ufe0f", "Peach \U0001f451", "Zo\u00eb", "\u5c71\u7530\u592a\u90ce",
    "\u0645\u062d\u0645\u062f", "\u0639\u0628\u062f \u0627\u0644\u0644\u0647",
    "\u0905\u0928\u0941\u0937\u094d\u0915\u093e", "\ud55c\uc9c0\ubbfc", "Zo\u00eb" * 8,
])
def test_emoji_sequences_and_every_script_are_allowed_as_typed(name: str) -> None:
    assert check_name(name) == name
    assert check_name(f"  {name}\n") == name  # surrounding space is not part of a name


def test_a_name_is_stored_in_nfc() -> None:
    assert check_name("Jose\u0301") == "Jos\u00e9"  # e + combining acute -> precomposed
    assert check_name("Zoe\u0308") == "Zo\u00eb"
    assert check_names(["Jose\u0301", "Zo\u00eb"], 2, 6) == ["Jos\u00e9", "Zo\u00eb"]


def test_length_counts_what_a_person_sees() -> None:
    assert graphemes(FAMILY + FRANCE + KEYCAP_1 + "Jose\u0301") == [
        FAMILY, FRANCE, KEYCAP_1, "J", "o", "s", "e\u0301"]
    assert check_name(FAMILY * (MAX_NAME // 2))  # 12 clusters, 60 code points
    assert len(check_name(ENGLAND * 13)) == 91  # 7 code points a flag, under the cap


@pytest.mark.parametrize(("name", "problem"), [
    ("Mario\u202e", "has an invisible control character (U+202E RIGHT-TO-LEFT OVERRIDE)"),
    ("\u2066Mario\u2069", "invisible control character (U+2066 LEFT-TO-RIGHT ISOLATE)"),
    ("Ma\u200frio", "invisible control character (U+200F RIGHT-TO-LEFT MARK)"),
    ("Ma\x00rio", "invisible control character (U+0000 NULL)"),
    ("Ma\nrio", "invisible control character (U+000A LINE FEED)"),
    ("Ma\trio", "invisible control character (U+0009 TAB)"),
    ("Ma\u2028rio", "a line break (U+2028 LINE SEPARATOR)"),
    ("\u200d", "an emoji part (U+200D ZERO WIDTH JOINER) with no emoji"),
    ("Ma\u200drio", "an emoji part (U+200D ZERO WIDTH JOINER) with no emoji"),
    ("\U0001f468\u200d", "an emoji part (U+200D ZERO WIDTH JOINER)"),
    ("\U0001f468\u200d\u200d\U0001f469", "an emoji part (U+200D ZERO WIDTH JOINER)"),
    ("Luigi\ufe0f", "an emoji part (U+FE0F VARIATION SELECTOR-16)"),
    ("Luigi\U0001f3fd", "an emoji part (U+1F3FD EMOJI MODIFIER FITZPATRICK TYPE-4)"),
    ("1\u20e3", "an emoji part (U+20E3 COMBINING ENCLOSING KEYCAP)"),
    ("Mario\ue000", "a private-use character (U+E000)"),
    ("Mario\u0378", "a character unknown to this companion (U+0378: not in Unicode"),
    ("Mario\ud800", "a broken character (a lone UTF-16 surrogate)"),
    ("Ma\u00adrio", "an invisible character (U+00AD SOFT HYPHEN)"),
    ("Ma\u200brio", "an invisible character (U+200B ZERO WIDTH SPACE)"),
    ("Ma\u200crio", "an invisible character (U+200C ZERO WIDTH NON-JOINER)"),
    ("\u3164", "an invisible character (U+3164 HANGUL FILLER)"),
    ("Luigi\ufe0e", "an invisible character (U+FE0E VARIATION SELECTOR-15)"),
    ("Yamada\u3000Taro", "an unusual space (U+3000 IDEOGRAPHIC SPACE): use an ordinary space"),
    ("\u0301Mario", "starts with a combining mark (U+0301 COMBINING ACUTE ACCENT)"),
    ("x" * (MAX_NAME + 1), f"must be 1-{MAX_NAME} printable characters, 'xxxxx"),
    ("Zo\u00eb" * 8 + "!", f"has {MAX_NAME + 1}"),
    ("a\u0300\u0301\u0302\u0303\u0304" * 20, f"has 100 code points (letters, accents and "
                                             f"emoji parts), at most {MAX_CODE_POINTS}"),
    ("a" + "\u0301" * 10_000, "player name is too long: 'a"),
    ("", "must be non-empty text"),
    ("  \t ", "must be non-empty text"),
    (None, "must be non-empty text, got None"),
    (7, "must be non-empty text, got 7"),
])
def test_a_bad_name_is_refused_naming_the_problem(name: object, problem: str) -> None:
    with pytest.raises(Refused) as info:
        check_name(name)
    message = str(info.value)
    assert problem in message and message.startswith("player name")
    assert len(message) < 200  # quoted short, escaped: the message never carries the trick
    assert not any(c in message for c in "\u202e\u2066\u200f\x00\n\t\u2028\u200d\ue000")


@pytest.mark.parametrize(("first", "second", "message"), [
    ("Mario", CYRILLIC_A, f'"{CYRILLIC_A}" looks the same as "Mario": pick a name the table '
                          f"can tell apart"),
    ("OTTO", "\u039fTTO", "looks the same as \"OTTO\""),  # Greek capital Omicron
    ("Mario", FULLWIDTH, f'"{FULLWIDTH}" looks the same as "Mario"'),
    ("Mario", GREEK_CAPS, "looks the same"),  # as "MARIO" would be the same name
    ("MARIO", GREEK_CAPS, "looks the same"),
    ("Mario Kart", "Mario  Kart", "looks the same"),
    ("MARIO", "mario", 'two players are called "MARIO" and "mario": pick a name'),
    ("Mario", "Mario", 'two players are called "Mario": pick a name'),
    ("Mario", " Mario ", 'two players are called "Mario"'),
    ("Jos\u00e9", "Jose\u0301", 'two players are called "Jos\u00e9"'),
    ("Ivan", "lvan", "looks the same"),  # small L and capital i: one shape in sans serif
])
def test_names_that_look_the_same_are_one_name(first: str, second: str, message: str) -> None:
    assert look_alike(check_name(first), check_name(second))
    with pytest.raises(Refused) as info:
        check_names(["Luigi", first, second], 2, 6)
    assert message in str(info.value)


def test_rn_and_m_as_the_library_judges_them() -> None:
    # Unicode's confusables data (ICU) maps m to rn: "Marnie" and "Mamie" are one name.
    assert skeletons("m")[0] == "rn"
    assert look_alike("rn", "m") and look_alike("Marnie", "Mamie")
    assert look_alike("RN", "M")  # case is ignored, as for "MARIO" and "mario"
    with pytest.raises(Refused, match='"Mamie" looks the same as "Marnie"'):
        check_names(["Marnie", "Mamie"], 2, 6)


@pytest.mark.parametrize(("first", "second"), [
    ("Lan", "Ian"), ("Zo\u00eb", "Zoe"), ("Jos\u00e9", "Jose"), ("Ann", "Anna"),
    (THUMB, "\U0001f44d\U0001f3ff"), ("Luigi", "Luigi \U0001f451"), (FAMILY, RAINBOW),
    ("\u0645\u062d\u0645\u062f", "\u0623\u062d\u0645\u062f"),
])
def test_names_that_differ_to_the_eye_may_sit_together(first: str, second: str) -> None:
    assert not look_alike(first, second)
    assert check_names([first, second], 2, 6) == [first, second]


def test_the_config_refuses_look_alike_players_naming_the_key() -> None:
    with pytest.raises(ConfigError) as info:
        from_dict({"game": {"players": ["Mario", CYRILLIC_A]}})
    assert info.value.key == "game.players" and "looks the same" in str(info.value)
    assert from_dict({"game": {"players": [FAMILY, RAINBOW]}}).game.players == (FAMILY, RAINBOW)


def test_the_bank_stores_emoji_names_exactly_and_writes_nothing_for_look_alikes(
        tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    bank = Bank(path, clock=StepClock(1_800_000_000.0, 1))
    bank.new_game("celebration", [FAMILY, " Jose\u0301", RAINBOW, ENGLAND])
    stored = [FAMILY, "Jos\u00e9", RAINBOW, ENGLAND]
    assert [p.name for p in bank.players()] == stored
    before = (bank.journal(), [p.name for p in bank.players()], bank.latest_game())
    with pytest.raises(Refused, match="looks the same as"):
        bank.new_game("celebration", ["Mario", CYRILLIC_A])
    with pytest.raises(Refused, match="emoji part"):
        bank.ensure_game("celebration", ["Mario", "Luigi\u200d"])
    assert (bank.journal(), [p.name for p in bank.players()], bank.latest_game()) == before
    bank.close()
    with sqlite3.connect(path) as db:  # the file itself, read apart from the bank
        assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (1,)
        rows = db.execute("SELECT name FROM players ORDER BY seat").fetchall()
    assert [r[0] for r in rows] == stored
    reopened = Bank(path, clock=StepClock(1_800_000_100.0, 1))
    assert [p.name for p in reopened.players()] == stored
    reopened.close()


ENSURE = """
import sys
from pathlib import Path
from companion.bank import Bank
from companion.exc import Refused
bank = Bank(Path(sys.argv[1]))
try:
    print(bank.ensure_game("celebration", sys.argv[2:]), "icu" in sys.modules)
except Refused as exc:
    print("refused", "icu" in sys.modules)
"""


def test_a_start_with_the_games_own_names_needs_no_icu_and_other_names_are_checked(
        tmp_path: Path) -> None:
    """A Pi boots with its game and the same configured names: the names were checked when
    the game was made, so ICU (8 MiB) is not loaded; any other names are checked as ever."""
    path = str(tmp_path / DB_NAME)

    def ensure(*names: str) -> str:
        done = subprocess.run([sys.executable, "-c", ENSURE, path, *names], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert ensure("Mario", "Luigi") == "1 True"  # a new game: checked with ICU
    assert ensure("Mario", "Luigi") == "None False"  # the game's own names: nothing to check
    assert ensure("Mario", "Luigi\u200d") == "refused True"  # other names: checked, refused
    assert ensure("Mario", "Peach") == "None True"  # valid, and the bank keeps its game


PENDING = """
import sys
from pathlib import Path
from companion.bank import Bank
from companion.config import SETUP_PLAYERS
bank = Bank(Path(sys.argv[1]))
print(bank.ensure_game("celebration", SETUP_PLAYERS[:4], pending=True), "icu" in sys.modules)
"""


def test_a_boot_naming_no_players_with_a_game_made_on_the_tablet_needs_no_icu(
        tmp_path: Path) -> None:
    """No players in the config (the tablet leads the setup) and a game the table made with its
    own names: a boot offers the setup's stand-ins, ours, with nothing typed to check."""
    path = str(tmp_path / DB_NAME)
    made = subprocess.run([sys.executable, "-c", ENSURE, path, "Ann", "Ben"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert made.stdout.strip() == "1 True", made.stderr  # typed names: checked with ICU
    done = subprocess.run([sys.executable, "-c", PENDING, path], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None False"  # the game kept, ICU not loaded


async def test_the_tablet_starts_a_game_with_emoji_names_and_refuses_look_alikes(
        tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        await api.post("/api/games", {"edition": "celebration",
                                      "players": [FAMILY, FRANCE, "Jose\u0301", KEYCAP_1]})
        names = [p["name"] for p in (await api.state())["players"]]
        assert names == [FAMILY, FRANCE, "Jos\u00e9", KEYCAP_1]
        await refused(api, "/api/games", {"edition": "celebration",
                                          "players": ["Mario", CYRILLIC_A]}, 400,
                      f'"{CYRILLIC_A}" looks the same as "Mario"')
        await refused(api, "/api/games", {"edition": "celebration",
                                          "players": ["Mario", "Luigi\u202e"]}, 400,
                      "invisible control character (U+202E RIGHT-TO-LEFT OVERRIDE)")
