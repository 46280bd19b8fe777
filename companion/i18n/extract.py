"""The messages to translate, found in the sources by Babel's extractors (Python's ``_``,
``gettext``, ``ngettext``, ``say``, ``say_n`` calls; the page's ``t`` and ``tn``; the page's
HTML elements marked ``data-i18n``; the editions' words: each ruleset's ``name``, ``text``,
``hint``, ``label``, ``note``, a contest's ``card`` and the board's ``spaces``), and the
catalogs brought up to
date with them: ``python -m companion.i18n.extract`` (``make catalogs``) writes
``companion.pot`` and adds any new message, untranslated, to every ``locales/<code>.po`` (the
tests then fail until it is translated)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any

PACKAGE = Path(__file__).resolve().parent.parent
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "say": None, "say_n": (1, 2),
            "t": None, "tn": (1, 2)}
"""Python's ``_``, ``gettext``, ``ngettext``, ``say``, ``say_n``; the page's ``t`` and
``tn`` (its catalog arrives from ``GET /api/i18n/<code>``)."""
METHODS = [("**.py", "python"), ("web/static/**.js", "javascript"),
           ("web/static/**.html", "companion.i18n.extract:extract_html"),
           ("core/editions/**.toml", "companion.i18n.extract:extract_ruleset")]
RULESET_WORDS = ("name", "text", "hint", "label", "note", "card", "spaces")
"""The keys of an edition's ruleset whose values the table reads (the rest are ids and the
rulebook's own quoted lines, which stay as the rulebook prints them)."""


def words_of(text: str) -> str:
    """Text as the page shows it: runs of whitespace as one space, trimmed."""
    return " ".join(text.split())


class _Marked(HTMLParser):
    """The page's words: the text of each element marked ``data-i18n`` and each attribute
    named in its ``data-i18n-attrs``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[str, int, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        line = self.getpos()[0]
        for attr in (named.get("data-i18n-attrs") or "").split():
            if named.get(attr):
                self.found.append((line, words_of(named[attr] or "")))
        if self._open:
            self._open[-1][2].append("\0")  # markup inside a marked element: a mistake
        if "data-i18n" in named:
            self._open.append((tag, line, []))

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1][0] == tag:
            _tag, line, parts = self._open.pop()
            text = "".join(parts)
            if "\0" in text:
                raise ValueError(f"line {line}: a data-i18n element holds markup; mark its "
                                 "text in a span of its own")
            if words_of(text):
                self.found.append((line, words_of(text)))

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2].append(data)


def extract_html(fileobj: IO[bytes], _keywords: Any, _tags: Any,
                 options: Any) -> Iterator[tuple[int, None, str, list[str]]]:
    """Babel extraction method for the page's HTML (``data-i18n``, ``data-i18n-attrs``)."""
    parser = _Marked()
    parser.feed(fileobj.read().decode("utf-8"))
    parser.close()
    for line, text in parser.found:
        yield line, None, text, []


def extract_ruleset(fileobj: IO[bytes], _keywords: Any, _tags: Any,
                    options: Any) -> Iterator[tuple[int, None, str, list[str]]]:
    """Babel extraction method for an edition's ruleset: the words of :data:`RULESET_WORDS`
    (the line of each is found by its text)."""
    import tomllib

    raw = fileobj.read().decode("utf-8")
    lines = raw.splitlines()

    def walk(node: object) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in RULESET_WORDS and isinstance(value, str):
                    yield value
                elif key in RULESET_WORDS and isinstance(value, list) and all(
                        isinstance(v, str) for v in value):
                    yield from value  # the board's spaces
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    for text in walk(tomllib.loads(raw)):
        line = next((i for i, s in enumerate(lines, 1) if text in s), 0)
        yield line, None, text, ["an edition's word"]


def template() -> object:
    """The catalog template: every message marked in the package's sources."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    catalog = Catalog(project="Question Block companion", version="1")
    for filename, lineno, message, comments, context in extract_from_dir(
            PACKAGE, METHODS, keywords=KEYWORDS):
        catalog.add(message, None, [(f"companion/{filename}", lineno)],
                    auto_comments=comments, context=context)
    return catalog


def messages() -> list[tuple[str, str | None]]:
    """(singular, plural or None) of every message to translate."""
    found = []
    for message in template():  # type: ignore[attr-defined]
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            found.append((message.id[0], message.id[1]))
        else:
            found.append((message.id, None))
    return found


def update() -> None:
    """Write the template and bring every language's catalog up to date with it."""
    from babel.messages.pofile import read_po, write_po

    from companion.i18n import LANGUAGES, SOURCE

    pot = template()
    folder = Path(__file__).resolve().parent
    with (folder / "companion.pot").open("wb") as out:
        write_po(out, pot, width=100)  # type: ignore[arg-type]
    for code in LANGUAGES:
        if code == SOURCE:
            continue
        path = folder / "locales" / f"{code}.po"
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=code)
        catalog.update(pot, no_fuzzy_matching=True)  # type: ignore[arg-type]
        with path.open("wb") as out:
            write_po(out, catalog, width=100, ignore_obsolete=True)
        missing = sum(1 for m in catalog if m.id and not all(
            m.string if isinstance(m.string, tuple) else (m.string,)))
        print(f"{code}: {len(catalog)} messages, {missing} to translate")


if __name__ == "__main__":
    update()
    sys.exit(0)
