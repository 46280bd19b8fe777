"""The one reader of a request's JSON body: every route, the phone guard and the live feed read
bodies through it, so a body means one thing everywhere.

JSON as RFC 8259 and I-JSON (RFC 7493) say it travels: UTF-8 without a byte order mark, names
unique within an object (``{"amount": -5, "amount": 3}`` is refused, not read as its last
``amount``), numbers that are numbers (no ``NaN`` or ``Infinity``, no ``1e400`` that a float
can't hold; a whole number's range is its field's to check), and strings of Unicode characters
(no lone surrogate escapes: ``"\\ud800"``). Anything else is a
:class:`~companion.exc.Refused` naming what is wrong, before any route sees it.
"""

from __future__ import annotations

import json
import math
from typing import Any

from aiohttp import web

from companion.exc import Refused
from companion.i18n.said import Said, say

MAX_BODY = 16 * 1024
"""Bytes in a request's body: the biggest (a board of 40 spaces) is a few kilobytes."""
CODINGS_TAKEN = frozenset({"", "identity"})
"""The content codings a body may come in: none (a body is small; gzip would only hide it)."""


class _Bad(ValueError):
    """What is wrong with a body, said."""

    def __init__(self, said: Said) -> None:
        super().__init__(str(said))
        self.said = said


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _Bad(say("the body names {key} twice: give each field once",
                           key=_printable(key)))
        data[key] = value
    return data


def _constant(name: str) -> float:
    raise _Bad(say("{value} is not a JSON number", value=name))


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Bad(say("the number {value} is too large", value=text[:40]))
    return value


def _printable(key: str) -> str:
    return key[:40].encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")


def _unicode(value: Any) -> None:
    """Refused: a string (or a name) holding a lone surrogate, which no text can store."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise _Bad(say("a string holds a lone surrogate (\\ud800-\\udfff): not "
                               "Unicode text")) from None
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse(raw: bytes | str) -> Any:
    """``raw`` as JSON by the rules above (Refused: why not)."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if text.startswith("\ufeff"):
            raise ValueError("a byte order mark")
        data = json.loads(text, object_pairs_hook=_object, parse_constant=_constant,
                          parse_float=_float)
        if "\\u" in text:  # UTF-8 text holds no surrogate: only an escape can make one
            _unicode(data)
    except _Bad as bad:
        raise Refused(bad.said) from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused(say("the body must be JSON")) from None
    return data


def check_coding(request: web.Request) -> None:
    """Refused (415): a body in a content coding the API does not take (gzip, deflate), by
    ``Content-Encoding`` or by a ``Transfer-Encoding`` other than chunked."""
    for header in ("Content-Encoding", "Transfer-Encoding"):
        for value in request.headers.getall(header, []):
            codings = {part.strip().lower() for part in value.split(",")}
            codings -= {"chunked"} if header == "Transfer-Encoding" else set()
            if not codings <= CODINGS_TAKEN:
                raise web.HTTPUnsupportedMediaType(
                    reason=f"{header}: {value[:40]} is not taken: send the JSON as it is")


async def read_object(request: web.Request) -> dict[str, Any]:
    """A request's body as a JSON object (no body: ``{}``); read once, a second read is the
    same bytes."""
    check_coding(request)
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY,
                                            actual_size=request.content_length)
    raw = await request.read()
    if not raw.strip():
        return {}
    data = parse(raw)
    if not isinstance(data, dict):
        raise Refused(say("the body must be a JSON object"))
    return data
