"""The messages to translate, found in the sources by Babel's extractors (Python's ``_``,
``gettext``, ``ngettext`` calls; the page's ``t`` and ``tn``), and the catalogs brought up to
date with them: ``python -m companion.i18n.extract`` (``make catalogs``) writes
``companion.pot`` and adds any new message, untranslated, to every ``locales/<code>.po`` (the
tests then fail until it is translated)."""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "t": None, "tn": (1, 2)}
"""Python's ``_``, ``gettext``, ``ngettext``; the page's ``t`` and ``tn`` (its catalog arrives
from ``GET /api/i18n/<code>``)."""
METHODS = [("**.py", "python"), ("web/static/**.js", "javascript")]


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
