"""Every language the Celebration rulebook ships in: gettext catalogs (``locales/<code>.po``,
read with Babel), each language's plural rule, its native name, its espeak-ng voice and its
writing direction. The same catalogs are what the page gets as JSON.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from companion.exc import Refused, shown


@dataclass(frozen=True, slots=True)
class Language:
    code: str
    name: str
    """The language's own name for itself."""
    voice: str
    """The espeak-ng voice that speaks it."""
    rtl: bool = False


LANGUAGES = {lang.code: lang for lang in (
    Language("en", "English", "en"),
    Language("de", "Deutsch", "de"),
    Language("es", "Español", "es"),
    Language("pt", "Português", "pt"),
    Language("it", "Italiano", "it"),
    Language("nl", "Nederlands", "nl"),
    Language("sv", "Svenska", "sv"),
    Language("da", "Dansk", "da"),
    Language("nb", "Norsk bokmål", "nb"),
    Language("fi", "Suomi", "fi"),
    Language("pl", "Polski", "pl"),
    Language("hu", "Magyar", "hu"),
    Language("tr", "Türkçe", "tr"),
    Language("cs", "Čeština", "cs"),
    Language("sk", "Slovenčina", "sk"),
    Language("ro", "Română", "ro"),
    Language("hr", "Hrvatski", "hr"),
    Language("lt", "Lietuvių", "lt"),
    Language("sl", "Slovenščina", "sl"),
    Language("et", "Eesti", "et"),
    Language("lv", "Latviešu", "lv"),
    Language("ar", "العربية", "ar", rtl=True),
)}
"""The languages of the Celebration rulebook, in its order."""

SOURCE = "en"
PLURAL_TABLE = 200
MILLION = 1_000_000


def check_language(code: object) -> str:
    if not isinstance(code, str) or code not in LANGUAGES:
        raise Refused(f"language must be one of {', '.join(LANGUAGES)}, got {shown(code)}")
    return code


@dataclass(frozen=True)
class Translator:
    """One language's messages: ``gettext`` and ``ngettext`` (its own plural rule)."""

    language: Language
    messages: dict[str, tuple[str, ...]]
    plural: Callable[[int], int]

    def gettext(self, message: str) -> str:
        found = self.messages.get(message)
        return found[0] if found and found[0] else message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        found = self.messages.get(singular)
        if not found or not any(found):  # not translated yet: the English
            return singular if n == 1 else plural
        form = self.plural(n)
        return found[form] if form < len(found) and found[form] else found[-1]

    def to_json(self) -> dict[str, Any]:
        """The catalog for the page: its messages and its plural rule as a table (``plural``
        for n 0-199; for larger n the form of ``100 + n % 100``, but a whole number of millions
        takes ``million``'s: CLDR's "many" of Spanish, Portuguese and Italian, "un millón de
        monedas". Every rule of these languages agrees with that, for any count.)"""
        return {"language": self.language.code, "name": self.language.name,
                "rtl": self.language.rtl,
                "messages": {k: list(v) for k, v in self.messages.items()},
                "plural": [self.plural(n) for n in range(PLURAL_TABLE)],
                "million": self.plural(MILLION)}


@cache
def translator(code: str) -> Translator:
    """The catalog of ``code`` (English: the messages as written)."""
    language = LANGUAGES[check_language(code)]
    if code == SOURCE:
        return Translator(language, {}, lambda n: int(n != 1))
    from babel.messages.pofile import read_po

    path = resources.files("companion.i18n") / "locales" / f"{code}.po"
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=code)
    messages: dict[str, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        messages[key] = tuple(strings)
    return Translator(language, messages, gettext.c2py(catalog.plural_expr))
