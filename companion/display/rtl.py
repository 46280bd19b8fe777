"""Right-to-left text for the small screen: pygame draws glyphs left to right as given, so an
Arabic line is shaped (each letter in its joined form) and put into visual order first, with
ICU (PyICU, already the names' dependency): ``u_shapeArabic`` then the Unicode bidi algorithm.
A line with no right-to-left letter is drawn as it is."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

RTL_CLASSES = frozenset({"R", "AL"})


def has_rtl(text: str) -> bool:
    """True when ``text`` holds a right-to-left letter (Arabic, Hebrew)."""
    return any(unicodedata.bidirectional(ch) in RTL_CLASSES for ch in text)


@lru_cache(maxsize=1024)
def visual(text: str) -> str:
    """``text`` as pygame must draw it: shaped and in visual (left-to-right) order; a line
    with a right-to-left letter reads from the right (its paragraph level is right-to-left)."""
    if not has_rtl(text):
        return text
    import icu

    shape = icu.Shape
    shaped = shape.shapeArabic(text, shape.LETTERS_SHAPE | shape.LENGTH_GROW_SHRINK
                               | shape.TEXT_DIRECTION_LOGICAL)
    bidi = icu.Bidi()
    bidi.setPara(icu.UnicodeString(shaped), 1)  # 1: a right-to-left paragraph
    return str(bidi.writeReordered(icu.Bidi.DO_MIRRORING))
