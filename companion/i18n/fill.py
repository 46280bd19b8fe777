"""Translations into a catalog from a JSON file a translator wrote:
``python -m companion.i18n.fill de de.json``; ``--todo de`` prints what is left to translate
as JSON (each message, its plural, the forms wanted, where it is used).

The file maps each message (its English, as in ``companion.pot``) to its translation, or to
the list of its plural forms (``nplurals`` of the catalog's header). An entry whose ``{slots}``
differ from the English, whose forms are the wrong number, or whose message is not in the
catalog is refused and listed; the rest are written, and what is still untranslated counted."""

from __future__ import annotations

import json
import string
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "locales"


def slots(text: str) -> set[str]:
    """The ``{names}`` a message fills."""
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


def fill(code: str, translations: dict[str, str | list[str]]) -> tuple[int, list[str], int]:
    """Write ``translations`` into ``locales/<code>.po``: (written, refusals, still missing)."""
    from babel.messages.pofile import read_po, write_po

    path = FOLDER / f"{code}.po"
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=code)
    forms = catalog.num_plurals
    written, refused = 0, []
    for key, value in translations.items():
        message = catalog.get(key)
        if message is None:
            refused.append(f"not in the catalog: {key!r}")
            continue
        plural = message.id[1] if isinstance(message.id, tuple) else None
        strings = [value] if isinstance(value, str) else list(value)
        if plural is not None and len(strings) == 1:
            strings = strings * forms if forms == 1 else strings
        wanted = forms if plural is not None else 1
        try:
            problem = _problem(key, plural, strings, wanted)
        except ValueError as exc:  # a stray brace: not a format string
            problem = f"{exc}"
        if problem:
            refused.append(f"{key!r}: {problem}")
            continue
        message.string = tuple(strings) if plural is not None else strings[0]
        written += 1
    with path.open("wb") as out:
        write_po(out, catalog, width=100, ignore_obsolete=True)
    missing = sum(1 for m in catalog if m.id and not all(
        m.string if isinstance(m.string, tuple) else (m.string,)))
    return written, refused, missing


def todo(code: str) -> list[dict[str, object]]:
    """The messages of ``locales/<code>.po`` still untranslated, for a translator."""
    from babel.messages.pofile import read_po

    with (FOLDER / f"{code}.po").open("rb") as handle:
        catalog = read_po(handle, locale=code)
    left: list[dict[str, object]] = []
    for m in catalog:
        if not m.id or all(m.string if isinstance(m.string, tuple) else (m.string,)):
            continue
        plural = m.id[1] if isinstance(m.id, tuple) else None
        left.append({"message": m.id[0] if plural else m.id, "plural": plural,
                     "forms": catalog.num_plurals if plural else 1,
                     "where": [f"{f}:{n}" for f, n in m.locations][:3],
                     "comment": " ".join(m.auto_comments)})
    return left


def _problem(key: str, plural: str | None, strings: list[str], wanted: int) -> str | None:
    if len(strings) != wanted:
        return f"{len(strings)} form(s), the language has {wanted}"
    allowed = slots(plural or key) | slots(key)
    for text in strings:
        if not isinstance(text, str) or not text.strip():
            return "an empty translation"
        if not slots(text) <= allowed:
            return f"slots {sorted(slots(text) - allowed)} are not in the English"
        if "name" in slots(key) and "name" not in slots(text):
            return "it drops {name} (who it is about)"
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m companion.i18n.fill CODE FILE.json | --todo CODE",
              file=sys.stderr)
        return 2
    if argv[0] == "--todo":
        print(json.dumps(todo(argv[1]), ensure_ascii=False, indent=1))
        return 0
    code, file = argv
    translations = json.loads(Path(file).read_text(encoding="utf-8"))
    written, refused, missing = fill(code, translations)
    for line in refused:
        print(f"refused {line}")
    print(f"{code}: {written} written, {len(refused)} refused, {missing} still to translate")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
