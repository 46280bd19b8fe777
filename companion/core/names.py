"""A player's name: what may be typed, what is stored, and when two names are one.

Names are judged by what a person at the table sees, with ICU (PyICU): its grapheme clusters
(UAX #29), its character properties and its UTS #39 confusable skeletons, all from the one
Unicode version of the system's libicu (:data:`UNICODE_VERSION`).

- **Length**: 1 to :data:`MAX_NAME` user-perceived characters (grapheme clusters: a family
  emoji or an accented letter is one), and at most :data:`MAX_CODE_POINTS` code points.
- **Refused anywhere**: control characters (Cc), direction controls (U+061C, U+200E/U+200F,
  U+202A-U+202E, U+2066-U+2069), line and paragraph separators, spaces other than U+0020,
  private-use, unassigned and surrogate code points, and every other invisible character
  (format characters, Default_Ignorable_Code_Point: soft hyphen, zero-width space, fillers,
  variation selectors); a combining mark with no letter before it.
- **Emoji**: the zero-width joiner U+200D, the emoji presentation selector U+FE0F, the keycap
  U+20E3, tag characters and skin-tone modifiers are allowed only where they build an emoji,
  that is within a grapheme cluster of the shape UTS #51 calls a possible emoji (ZWJ sequences,
  flags, keycaps, skin tones, tag flags). A joiner in a word (as Indic scripts sometimes use),
  or ZWNJ, is refused: invisible, it would make two names that look the same differ.
- **Stored**: stripped of surrounding spaces, in NFC (``"Jose\\u0301"`` is stored ``"José"``).
- **The same name**: the same ignoring case, or alike by the skeletons (:func:`look_alike`):
  ``"M\\u0430rio"`` with a Cyrillic a, ``"MARIO"`` and the fullwidth
  ``"\\uff2d\\uff41\\uff52\\uff49\\uff4f"`` are all ``"Mario"``.
"""

from __future__ import annotations

from functools import cache

import icu

from companion.exc import Refused, shown
from companion.i18n.said import Said, say, say_n

MAX_NAME = 24
"""A name's length, in characters as a person counts them."""
MAX_CODE_POINTS = 4 * MAX_NAME
"""A name of 24 clusters can't hide hundreds of code points (a family emoji with skin tones is
11, a tag flag 7, a Devanagari cluster up to about 4)."""

UNICODE_VERSION: str = icu.UNICODE_VERSION
"""The Unicode version of ICU's data: later characters are unassigned here."""

ZWJ = "\u200d"
VS16 = "\ufe0f"
KEYCAP = "\u20e3"
CANCEL_TAG = "\U000e007f"
_EMOJI_ONLY = frozenset({ZWJ, VS16, KEYCAP, CANCEL_TAG} | {chr(c) for c in range(0xE0020, 0xE007F)})
"""Invisible or combining pieces that only make sense inside an emoji."""

_Cat = icu.UCharCategory
_Prop = icu.UProperty
_MARKS = frozenset({_Cat.NON_SPACING_MARK, _Cat.COMBINING_SPACING_MARK, _Cat.ENCLOSING_MARK})
_ALIASES = {0x00: "NULL", 0x09: "TAB", 0x0A: "LINE FEED", 0x0D: "CARRIAGE RETURN"}
"""Control characters have no Unicode name: the common ones by their name aliases."""


def check_name(name: object) -> str:
    """The name as stored (stripped, NFC), or :class:`Refused` naming the problem."""
    if not isinstance(name, str) or not name.strip():
        raise Refused(say("player name must be non-empty text, got {value}", value=shown(name)))
    text = name.strip()
    # NFC can shrink a name (a letter and its accent, Hangul jamo) but not by more than 3 to 1:
    # cut a hostile input short before any work on it.
    if len(text) > 3 * MAX_CODE_POINTS:
        raise _too_many_code_points(text)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise Refused(say("player name has a broken character (a lone UTF-16 surrogate): "
                          "{value}", value=shown(text)))
    text = icu.Normalizer2.getNFCInstance().normalize(text)
    for c in text:
        if problem := _refusal(c, shown(text)):
            raise Refused(problem)
    if icu.Char.charType(text[0]) in _MARKS:
        raise Refused(say("player name starts with a combining mark ({char}) that has no "
                          "letter to sit on: {value}", char=_label(text[0]), value=shown(text)))
    clusters = graphemes(text)
    if len(clusters) > MAX_NAME:
        raise Refused(say("player name must be 1-{most} printable characters, {value} has "
                          "{count}", most=MAX_NAME, value=shown(text), count=len(clusters)))
    if len(text) > MAX_CODE_POINTS:
        raise _too_many_code_points(text)
    for cluster in clusters:
        if any(_emoji_only(c) for c in cluster) and not _possible_emoji(cluster):
            part = next(c for c in cluster if _emoji_only(c))
            raise Refused(say("player name has an emoji part ({char}) with no emoji to join "
                              "or change: {value}", char=_label(part), value=shown(text)))
    return text


def graphemes(text: str) -> list[str]:
    """``text`` cut into user-perceived characters (extended grapheme clusters, UAX #29)."""
    units = icu.UnicodeString(text)  # ICU counts UTF-16 units: slice its own string
    breaks = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())
    breaks.setText(units)
    start = breaks.first()
    clusters = []
    for end in breaks:
        clusters.append(str(units[start:end]))
        start = end
    return clusters


def skeletons(name: str) -> tuple[str, str, str]:
    """ICU's UTS #39 skeletons of ``name`` as typed, case-folded and upper-cased, each taken in
    NFKC (fullwidth and other compatibility forms as their plain letters) with runs of spaces
    as one. Two names look alike when one of the three matches (:func:`look_alike`).

    One casing is not enough: the skeleton sees capital I as l but not small i (``"MARIO"``
    and ``"mario"`` meet folded), and Greek capital Mu as M but not small mu as m (Greek
    ``"\u039c\u0391R\u0399\u039f"`` and ``"Mario"`` meet upper-cased). Compared position by
    position only: ``"Lan"`` folded is ``"lan"``, which ``"Ian"`` looks like as typed, yet the
    two do not look alike.
    """
    text = " ".join(icu.Normalizer2.getNFKCInstance().normalize(name).split())
    checker = _spoof_checker()
    return (checker.getSkeleton(0, text),
            checker.getSkeleton(0, str(icu.UnicodeString(text).foldCase())),
            checker.getSkeleton(0, str(icu.UnicodeString(text).toUpper(icu.Locale.getRoot()))))


def look_alike(a: str, b: str) -> bool:
    """True if the table could take names ``a`` and ``b`` for one another: the same ignoring
    case, or confusable by their skeletons (:func:`skeletons`)."""
    return any(x == y for x, y in zip(skeletons(a), skeletons(b), strict=True))


@cache
def _spoof_checker() -> icu.SpoofChecker:
    return icu.SpoofChecker()


def _refusal(c: str, value: str) -> Said | None:
    """What is wrong with code point ``c`` anywhere in a name (``value``: the name as the
    refusal quotes it), as the whole refusal (None: nothing on its own)."""
    kind = icu.Char.charType(c)
    if kind == _Cat.CONTROL_CHAR:
        return say("player name has an invisible control character ({char}): {value}",
                   char=_label(c), value=value)
    if icu.Char.hasBinaryProperty(c, _Prop.BIDI_CONTROL):
        return say("player name has an invisible control character ({char}) that reorders "
                   "text: {value}", char=_label(c), value=value)
    if kind in (_Cat.LINE_SEPARATOR, _Cat.PARAGRAPH_SEPARATOR):
        return say("player name has a line break ({char}): {value}", char=_label(c),
                   value=value)
    if kind == _Cat.SPACE_SEPARATOR and c != " ":
        return say("player name has an unusual space ({char}): use an ordinary space: "
                   "{value}", char=_label(c), value=value)
    if kind == _Cat.PRIVATE_USE_CHAR:
        return say("player name has a private-use character ({char}) that shows differently "
                   "on every device: {value}", char=_label(c), value=value)
    if kind == _Cat.UNASSIGNED:
        return say("player name has a character unknown to this companion ({code}: not in "
                   "Unicode {version}): {value}", code=f"U+{ord(c):04X}",
                   version=UNICODE_VERSION, value=value)
    if c in _EMOJI_ONLY:
        return None  # judged in its cluster
    if kind == _Cat.FORMAT_CHAR or icu.Char.hasBinaryProperty(
            c, _Prop.DEFAULT_IGNORABLE_CODE_POINT):
        return say("player name has an invisible character ({char}): {value}",
                   char=_label(c), value=value)
    return None


def _emoji_only(c: str) -> bool:
    return c in _EMOJI_ONLY or icu.Char.hasBinaryProperty(c, _Prop.EMOJI_MODIFIER)


def _possible_emoji(cluster: str) -> bool:
    """UTS #51's possible emoji: elements joined by ZWJ, each a flag (two regional indicators)
    or an emoji character with at most one modification (a skin tone, VS16 with an optional
    keycap, or a tag sequence)."""
    return all(_zwj_element(element) for element in cluster.split(ZWJ))


def _zwj_element(element: str) -> bool:
    if not element:
        return False  # a joiner at an end, or two in a row
    if len(element) == 2 and all(
            icu.Char.hasBinaryProperty(c, _Prop.REGIONAL_INDICATOR) for c in element):
        return True
    base, rest = element[0], element[1:]
    if not icu.Char.hasBinaryProperty(base, _Prop.EMOJI):
        return False
    if rest in ("", VS16, VS16 + KEYCAP):
        return True
    if len(rest) == 1:
        return icu.Char.hasBinaryProperty(rest, _Prop.EMOJI_MODIFIER)
    tags, cancel = rest[:-1], rest[-1]
    return cancel == CANCEL_TAG and all(0xE0020 <= ord(c) <= 0xE007E for c in tags)


def _label(c: str) -> str:
    """``U+202E RIGHT-TO-LEFT OVERRIDE``, as a person can look it up."""
    name = icu.Char.charName(c) or _ALIASES.get(ord(c), "")
    return f"U+{ord(c):04X} {name}".rstrip()


def _too_many_code_points(text: str) -> Refused:
    return Refused(say_n("player name is too long: {value} has {n} code point (letters, "
                         "accents and emoji parts), at most {most}",
                         "player name is too long: {value} has {n} code points (letters, "
                         "accents and emoji parts), at most {most}", len(text),
                         value=shown(text), most=MAX_CODE_POINTS))
