"""The catalogs: every language of the Celebration rulebook, every spoken message translated,
each language's own plural rule (Babel's), placeholders kept, and lines said in each."""

from __future__ import annotations

import gettext
import re
import string

import pytest
from babel.messages.plurals import get_plural

from companion.core.outcomes import Kind, Outcome
from companion.exc import Refused
from companion.i18n import LANGUAGES, check_language, translator
from companion.i18n.extract import messages
from companion.speech.lines import outcome_line, seconds_line, turn_line

OTHERS = [code for code in LANGUAGES if code != "en"]
MESSAGES = messages()
"""Every message marked in the sources, found by Babel's extractor: each must be translated."""


NAMES = {"Mario", "Luigi", "Peach", "Toad", "Yoshi", "Bowser", "Donkey Kong", "Wario", "Daisy",
         "POW", "GO", "Game Over", "Boss", "Grand Prix", "Blooper", "Thwomp", "Mario Kart",
         "Monopoly Gamer", "Monopoly Gamer: Mario Kart", "Wiggly Worms", "Question Block",
         "Monopoly: Super Mario Celebration", "Monopoly: The Super Mario Bros. Movie",
         "Mario Kart Stadium", "Acorn Plains", "Free Parking", "Just Visiting", "Super Star",
         "Bowser!", "Game Over!", "Power-up", "Power-up!", "OK", "QR", "BOWSER!", "GAME OVER",
         "POWER-UP!", "power-up", "{name}: Power-up", "Piranha Plant", "Warp Pipe", "Boost Pad",
         "BOSS {n}", "GRAND PRIX {n}", "Go to Jail", "Jail", "JAIL", "IN JAIL", "in Jail",
         "CSV", "JSON"}
"""Names (characters, games, spaces and items as several rulebooks keep them in English:
Polish prints "Go to Jail", Italian, Swedish and Finnish "Jail"), and file formats (CSV, JSON),
which a language may keep."""
SAME_IN = {
    "Bank": {"de", "nl", "sv", "da", "nb", "pl", "hu"},
    "bank: {error}": {"nl", "sv", "da", "nb", "pl", "hu"},
    "bank: {summary}": {"nl", "sv", "da", "nb", "pl", "hu"},
    "+{coins} bonus": {"nl", "da", "nb", "tr", "cs", "sk", "ro", "hr", "sl"},
    "bonus {coins}": {"es", "it", "nl", "sv", "da", "nb", "pl", "tr", "cs", "sk", "ro", "hr",
                      "sl"},
    "Banana": {"pt", "it", "hr", "sl"},
    "Edition": {"de"},
    "Error {status}": {"es"},
    "FINAL": {"es", "pt", "ro"},
    "Later": {"nl"},
    "Menu": {"cs", "da", "it", "nl", "pl", "pt", "sk"},
    "Note": {"da"},
    "Race": {"nl", "sv"},
    "Start": {"de", "nl", "da", "nb", "pl", "cs"},
    "start": {"nl", "sv", "da", "nb", "pl", "cs", "ro"},
    "Start timer": {"da", "nb"},
    "Stop": {"nl", "da", "pl", "cs"},
    "cost {coins}": {"ro"},
    "live": {"de", "nl", "sv", "da"},
    "Timer": {"de", "it", "nl", "sv", "da"},
    "timer {clock}": {"it", "nl", "sv", "da", "nb"},
    "timer: {seconds} s ({source}): {label}": {"it", "nl", "sv", "da", "nb"},
    "{chance} chance": {"da"},
    "{name} {n} worm": {"nl"},
    "{n} worm": {"nl"},
    "{n} point": {"da"},
    "{name}: {ability} (boost): {parts}": {"nl", "sv", "da", "nb"},
    "{seconds} s": {"de", "es", "pt", "it", "nl", "sv", "da", "nb", "fi", "pl", "cs", "sk", "ro",
                    "hr", "lt", "sl", "et", "lv"},
}
"""Words spelled the same in these languages (German "Bank", Dutch "Later", Danish "Note",
Italian "Banana"), each checked by eye: any other English left is a missing translation."""


def same_everywhere(message: str) -> bool:
    """A name, or only symbols and slots ("+{n}", "{n} = {total}"): a language may keep it."""
    return message in NAMES or not re.search(r"[^\W\d_]", re.sub(r"\{\w+\}", "", message))


def test_only_names_and_symbols_may_stay_as_they_are() -> None:
    assert same_everywhere("Mario") and same_everywhere("+{n}") and same_everywhere("POW")
    assert same_everywhere("{n} = {total}") and same_everywhere("{name}: {n}")
    assert not same_everywhere("Pass GO") and not same_everywhere("{name}'s turn")
    assert not same_everywhere("Undo") and not same_everywhere("Time is up!")


def fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


def test_the_sources_mark_the_spoken_lines() -> None:
    assert ("{name} collects {n} coin", "{name} collects {n} coins") in MESSAGES
    assert ("Time is up!", None) in MESSAGES


def test_every_source_of_words_is_found() -> None:
    """The page's HTML and script, the screen, the server's sentences and the editions' words
    all reach the catalogs (one message of each, found where it is written)."""
    found = {singular for singular, _plural in MESSAGES}
    assert {"Big text", "Redo", "TIME'S UP!", "{name} passed GO: +{coins}", "Just Visiting",
            "Red Shell", "the SD card is full: free some space (the companion keeps trying)"
            } <= found
    assert len(MESSAGES) > 900


def test_the_rulebooks_languages_are_all_there() -> None:
    assert list(LANGUAGES) == ["en", "de", "es", "pt", "it", "nl", "sv", "da", "nb", "fi", "pl",
                               "hu", "tr", "cs", "sk", "ro", "hr", "lt", "sl", "et", "lv",
                               "ar"]
    assert [c for c, lang in LANGUAGES.items() if lang.rtl] == ["ar"]
    with pytest.raises(Refused, match="language must be one of"):
        check_language("xx")


@pytest.mark.parametrize("code", OTHERS)
def test_every_message_is_translated_with_the_languages_plural_forms(code: str) -> None:
    t = translator(code)
    forms, _expr = get_plural(code)
    for singular, plural in MESSAGES:
        assert singular in t.messages, f"{code}: {singular!r} is missing"
        found = t.messages[singular]
        assert len(found) == (forms if plural else 1), (code, singular, found)
        for text in found:
            assert text.strip(), (code, singular)
            assert (same_everywhere(singular) or code in SAME_IN.get(singular, ())
                    or text not in (singular, plural)), (code, singular)
            assert fields(text) <= fields(plural or singular), (code, text)
            assert fields(singular) & {"name"} <= fields(text), (code, text)  # who: said


@pytest.mark.parametrize("code", OTHERS)
def test_the_catalog_says_each_plural_form_of_its_language(code: str) -> None:
    t = translator(code)
    lines = {n: t.ngettext("{n} second left", "{n} seconds left", n).format(n=n)
             for n in (0, 1, 2, 3, 5, 11, 21, 22, 101, 102)}
    assert all(lines.values())
    forms, expr = get_plural(code)
    counts = [*range(0, 200), 10**6, 2 * 10**6, 10**9]
    assert len({t.plural(n) for n in counts}) == forms
    babel = gettext.c2py(expr)  # the pinned Babel's CLDR rule: the catalog's header must agree
    assert [t.plural(n) for n in counts] == [babel(n) for n in counts], code


def page_form(catalog: dict, n: int) -> int:
    """The form the page picks from the catalog's JSON (``pluralForm`` in i18n.js)."""
    table = catalog["plural"]
    if n < len(table):
        return table[n]
    return catalog["million"] if n % 10**6 == 0 else table[100 + n % 100]


@pytest.mark.parametrize("code", OTHERS)
def test_the_pages_plural_table_gives_the_rules_form_for_any_count(code: str) -> None:
    """The table of 200 and the million's form agree with the language's rule far past them
    (Spanish "1 000 000 de monedas", Polish "22 monety" but "25 monet")."""
    t = translator(code)
    catalog = t.to_json()
    counts = [*range(0, 3000), *range(10**6 - 250, 10**6 + 250),
              *(k * 10**6 for k in range(1, 40)), 10**9, 123_456_789, 2_000_001]
    wrong = [n for n in counts if page_form(catalog, n) != t.plural(n)]
    assert not wrong, (code, wrong[:5])


def test_lines_in_some_languages() -> None:
    coins = Outcome(Kind.COINS, 4, (1, 4))
    assert outcome_line(translator("en"), coins, "Luigi") == "Luigi collects 4 coins"
    assert outcome_line(translator("de"), coins, "Luigi") == "Luigi bekommt 4 Münzen"
    assert outcome_line(translator("pl"), coins, "Luigi") == "Luigi pobiera 4 monety"
    assert outcome_line(translator("pl"), Outcome(Kind.COINS, 5, (1, 5)), "Luigi") == \
        "Luigi pobiera 5 monet"
    bowser = Outcome(Kind.BOWSER, 5, (3,))
    assert outcome_line(translator("en"), bowser, "Peach") == "Bowser! Peach pays 5 coins"
    assert outcome_line(translator("es"), bowser, "Peach") == "¡Bowser! Peach paga 5 monedas"
    assert outcome_line(translator("sl"), Outcome(Kind.COINS, 2, (1, 2)), "Toad") == \
        "Toad dobi 2 kovanca"
    assert outcome_line(translator("ar"), Outcome(Kind.COINS, 2, (1, 2)), "Toad") == \
        "Toad يحصل على عملتين"
    assert turn_line(translator("en"), "Mario") == "Mario's turn"
    assert seconds_line(translator("en"), 10) == "10 seconds left"
    assert seconds_line(translator("cs"), 3) == "Zbývají 3 sekundy"
    assert outcome_line(translator("en"), coins, None) is None


def test_names_are_said_as_typed_whatever_they_hold() -> None:
    odd = "{n} {name} 50%"
    line = outcome_line(translator("de"), Outcome(Kind.BOWSER, 5, (4,)), odd)
    assert line == f"Bowser! {odd} zahlt 5 Münzen"
    assert re.search(r"\{", turn_line(translator("fi"), "{x}")) is not None
