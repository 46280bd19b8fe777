"""A request's field checked against the JSON Schema its route declares (the part of JSON Schema
the routes use: ``type``, ``minimum``, ``maximum``, ``enum``, ``const``, ``oneOf``, ``items``,
``additionalProperties``): what the API's document says a field is, it is, or the request is
refused naming the field. ``null`` is a value like any other: refused where the schema does not
allow it (it never means "left out")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.exc import Refused, shown
from companion.i18n.said import Said, say

Schema = Mapping[str, Any]

_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,), "number": (int, float), "string": (str,), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),),
}


def fits(value: Any, schema: Schema) -> bool:
    """Whether ``value`` (as JSON gives it) is what ``schema`` says."""
    if "oneOf" in schema:
        return sum(fits(value, s) for s in schema["oneOf"]) == 1
    if "const" in schema and not _same(value, schema["const"]):
        return False
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        return False
    kind = schema.get("type")
    if kind is not None:
        if isinstance(value, bool) and kind not in ("boolean",):
            return False
        if not isinstance(value, _TYPES[kind]):
            return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return False
        if "maximum" in schema and value > schema["maximum"]:
            return False
    if isinstance(value, list) and "items" in schema:
        return all(fits(item, schema["items"]) for item in value)
    if isinstance(value, dict) and "additionalProperties" in schema:
        return all(fits(item, schema["additionalProperties"]) for item in value.values())
    return True


def _same(value: Any, expected: Any) -> bool:
    """JSON's equality: ``true`` is not ``1``."""
    return type(value) is type(expected) and value == expected


def described(schema: Schema) -> Said | str:
    """What ``schema`` asks for, in words."""
    if "oneOf" in schema:
        return say("{one} or {other}", one=described(schema["oneOf"][0]),
                   other=_joined([described(s) for s in schema["oneOf"][1:]]))
    if "const" in schema:
        return repr(schema["const"])
    if "enum" in schema:
        return say("one of {choices}", choices=", ".join(repr(e) for e in schema["enum"]))
    kind = schema.get("type")
    if kind == "integer":
        least, most = schema.get("minimum"), schema.get("maximum")
        if least is not None and most is not None:
            return say("a whole number from {least} to {most}", least=least, most=most)
        if least is not None:
            return say("a whole number from {least}", least=least)
        return say("a whole number")
    return {"number": say("a number"), "string": say("text"), "boolean": say("true or false"),
            "array": say("a list"), "object": say("an object"),
            "null": say("null (nobody)")}.get(kind or "", say("a JSON value"))


def _joined(parts: list[Said | str]) -> Said | str:
    return parts[0] if len(parts) == 1 else say("{one} or {other}", one=parts[0],
                                                 other=_joined(parts[1:]))


def check(name: str, value: Any, schema: Schema) -> None:
    """Refused, naming ``name``, when ``value`` is not what ``schema`` says."""
    if not fits(value, schema):
        raise Refused(say("{key} must be {expected}, got {value}", key=name,
                          expected=described(schema), value=shown(value)))
