"""Finding English left on a screen or a page that shows another language: a text that is an
English message (or an English message with its slots filled) which the language's catalog
says otherwise."""

from __future__ import annotations

import re
from functools import cache

from companion.i18n import translator
from companion.i18n.extract import messages


def _pattern(message: str) -> re.Pattern[str]:
    parts = re.split(r"\{\w+\}", message)
    return re.compile("(.+?)".join(re.escape(p) for p in parts), re.S)


@cache
def _catalog(code: str) -> tuple[frozenset[str], tuple[re.Pattern[str], ...],
                                  tuple[re.Pattern[str], ...]]:
    """The English messages ``code`` says otherwise: the plain ones, the ones with slots (as
    patterns, when they hold a few letters of their own), and every translated form."""
    tr = translator(code)
    plain: set[str] = set()
    slotted: list[re.Pattern[str]] = []
    forms: list[re.Pattern[str]] = []
    for singular, plural in messages():
        found = tr.messages.get(singular, ())
        english = [singular] if plural is None else [singular, plural]
        if any(e in found for e in english):
            continue
        forms.extend(_pattern(f) for f in found if f)
        for key in english:
            if "{" not in key:
                plain.add(key)
            elif len(re.sub(r"\{\w+\}|[^A-Za-z]", "", key)) >= 6:
                slotted.append(_pattern(key))
    return frozenset(plain), tuple(slotted), tuple(forms)


def english_left(texts: list[str], code: str, names: tuple[str, ...] = ()) -> list[str]:
    """The texts (names as typed aside) that are English the catalog of ``code`` translates."""
    plain, slotted, forms = _catalog(code)
    left = set()
    for text in set(texts) - set(names):
        if text in plain or (any(p.fullmatch(text) for p in slotted) and not any(
                f.fullmatch(text) for f in forms)):
            left.add(text)
    return sorted(left)
