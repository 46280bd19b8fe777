"""A sentence chosen but not yet put into words: its English message, its count, its
arguments. The core says :func:`say` (or :func:`say_n` for a count) where it used to write an
English f-string; each reader puts it into its own language: the small screen and the voice
with the table's catalog, the page with the device's (the JSON carries the message, not the
words). ``str()`` of it is the English, for the log and the CLI's English."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:
    from companion.i18n import Translator

Arg = Union[str, int, float, "Said", tuple["Arg", ...], None]


@dataclass(frozen=True, slots=True)
class Said:
    """``message`` (and ``plural``, chosen by ``n``) with ``{name}`` slots filled from
    ``args``; an argument may be a :class:`Said` itself (put into the same language) or a
    tuple of them (joined with ", ")."""

    message: str
    plural: str | None = None
    n: int | None = None
    args: tuple[tuple[str, Arg], ...] = ()

    def render(self, tr: Translator | None = None) -> str:
        """The words in ``tr``'s language (None: English)."""
        if tr is None:
            text = self.message if self.plural is None or self.n == 1 else self.plural
        elif self.plural is None:
            text = tr.gettext(self.message)
        else:
            text = tr.ngettext(self.message, self.plural, self.n or 0)
        if not self.args:
            return text
        return text.format_map({k: _arg(v, tr) for k, v in self.args})

    def __str__(self) -> str:
        return self.render()

    def to_json(self) -> dict[str, Any]:
        """The page's form: ``m`` the message, ``p`` its plural and ``n``, ``a`` the args."""
        data: dict[str, Any] = {"m": self.message}
        if self.plural is not None:
            data["p"], data["n"] = self.plural, self.n
        if self.args:
            data["a"] = {k: _json(v) for k, v in self.args}
        return data


def from_json(data: Any) -> Said | None:
    """A :class:`Said` back from :meth:`Said.to_json` (kept with a move in the bank); None
    for anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("m"), str):
        return None
    args = data.get("a") or {}
    if not isinstance(args, dict):
        return None
    plural = data.get("p") if isinstance(data.get("p"), str) else None
    n = data.get("n") if isinstance(data.get("n"), int) else None
    return Said(data["m"], plural, n, tuple((str(k), _back(v)) for k, v in args.items()))


def stored(data: Any, key: str) -> str | Said:
    """A text kept in a move's data: its :class:`Said` (``<key>_said``) when there is one,
    else the English (``<key>``) as it was written."""
    if not isinstance(data, dict):
        return ""
    return from_json(data.get(f"{key}_said")) or str(data.get(key) or "")


def say(message: str, **args: Arg) -> Said:
    """A message to put into words later (extracted for translation as ``_`` is)."""
    return Said(message, args=tuple(args.items()))


def say_n(singular: str, plural: str, n: int, **args: Arg) -> Said:
    """A message with a count: ``{n}`` is the count, its form the language's plural rule."""
    return Said(singular, plural, n, tuple({"n": n, **args}.items()))


def joined(items: Iterable[Arg]) -> tuple[Arg, ...]:
    """A list argument: its items put into words and joined with ", "."""
    return tuple(items)


def words(text: str | Said | None, tr: Translator | None = None) -> str:
    """Plain text as it is, a :class:`Said` in ``tr``'s language."""
    if text is None:
        return ""
    return text.render(tr) if isinstance(text, Said) else text


def as_json(text: str | Said | None) -> Any:
    """A text for the page: plain text as it is, a :class:`Said` as its message."""
    return text.to_json() if isinstance(text, Said) else text


def texts(**fields: str | Said) -> dict[str, Any]:
    """Texts for the page: each in English under its own key and, when it is a :class:`Said`,
    as its message under ``<key>_said`` (the page puts it into its own language)."""
    found: dict[str, Any] = {}
    for key, text in fields.items():
        found[key] = str(text)
        if isinstance(text, Said):
            found[f"{key}_said"] = as_json(text)
    return found


def _arg(value: Arg, tr: Translator | None) -> object:
    if isinstance(value, Said):
        return value.render(tr)
    if isinstance(value, tuple):
        return ", ".join(str(_arg(v, tr)) for v in value)
    return "" if value is None else value


def _back(value: Any) -> Arg:
    if isinstance(value, dict):
        return from_json(value) or ""
    if isinstance(value, list):
        return tuple(_back(v) for v in value)
    return value if isinstance(value, str | int | float) or value is None else str(value)


def _json(value: Arg) -> Any:
    if isinstance(value, Said):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value
