"""The API described once, as OpenAPI 3.1 (``GET /api/openapi.json``): every move's route made
from its own declaration (:class:`companion.core.actions.Action`: its fields and their types,
who may make it and when), every other route from the one declared beside its handler
(:class:`Route`), and the shapes of the answers (:data:`SCHEMAS`).

schemathesis reads it against the real daemon in the tests: no 5xx, every answer fits its
schema, and a refused request changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from companion.core.actions import Action, Actions, Field, Schema

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# -- the shapes of the answers ----------------------------------------------------------------

NULL = {"type": "null"}
STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}
ANY = {}
OBJ = {"type": "object"}
SAID = {"anyOf": [OBJ, STR, NULL]}
"""A sentence for the page to put into its own language (``*_said``)."""
PARTY = {"anyOf": [INT, {"enum": ["bank", "board"]}]}


def obj(required: Mapping[str, Schema], optional: Mapping[str, Schema] | None = None,
        *, closed: bool = False) -> Schema:
    """An object with these keys (``required``: always there)."""
    return {"type": "object", "properties": {**required, **(optional or {})},
            "required": sorted(required), "additionalProperties": not closed}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def either(*schemas: Schema) -> Schema:
    return {"anyOf": list(schemas)}


def maybe(schema: Schema) -> Schema:
    return either(schema, NULL)


def items(schema: Schema) -> Schema:
    return {"type": "array", "items": schema}


ENTRY = obj({"id": INT, "game": INT, "at": NUM, "from": PARTY, "to": PARTY, "amount": INT,
             "kind": STR, "note": STR, "source": STR, "outcome": maybe(INT),
             "undoes": maybe(INT), "undone_by": maybe(INT), "move": maybe(INT)},
            {"space": STR, "outcome_kind": maybe(STR), "note_said": SAID})
MOVE = obj({"id": INT, "game": INT, "at": NUM, "kind": STR, "player": maybe(INT),
            "data": OBJ, "note": STR, "source": STR, "ends": BOOL, "undoes": maybe(INT),
            "undone_by": maybe(INT), "entries": items(ref("Entry")), "text": STR},
           {"text_said": SAID})
ERROR = obj({"error": STR}, {"error_said": SAID, "blocked_by": items(INT),
                             "saved": maybe(BOOL), "retry_after": NUM})
REFUSAL = obj({"error": STR, "rule": STR, "quote": items(STR), "correction": BOOL},
              {"error_said": SAID, "moment": STR, "who": STR})
"""A move the rulebook does not allow now: why, the rule and its lines; the banker may make it
as a correction (``"correction": true`` in the request)."""
OUTCOME = obj({"id": INT, "game": INT, "at": NUM, "kind": STR, "source": STR,
               "player": maybe(INT), "assigned": BOOL, "params": OBJ})
PLAYER = obj({"id": INT, "name": STR, "colour": STR, "seat": INT, "balance": INT,
              "owes": BOOL, "current": BOOL, "out": BOOL, "in_jail": BOOL,
              "jail_tries": INT, "owes_to": maybe(PARTY)})
TURN = obj({"player": maybe(INT), "began": INT, "moment": {"enum": ["start", "turn"]},
            "rolled": BOOL, "go_passed": BOOL, "past_outcomes": INT})
STATE = obj({"game": obj({"id": INT, "edition": STR, "name": STR, "bank": BOOL}),
             "players": items(ref("Player")), "current_player": maybe(INT),
             "last_outcome": maybe(ref("Outcome")), "unassigned": items(ref("Outcome")),
             "recent": items(ref("Entry")), "ended": BOOL, "winner": maybe(INT),
             "winners": items(INT), "standings": items(OBJ), "version": STR,
             "undo": maybe(OBJ), "redo": maybe(OBJ), "storage": OBJ,
             "turn": maybe(ref("Turn")), "flow": {"type": "object",
                                                  "additionalProperties": maybe(ref("Refusal"))},
             "deeds": OBJ, "landed": maybe(INT), "space_rolled": BOOL})

SCHEMAS: dict[str, Schema] = {
    "Error": ERROR,
    "Refusal": REFUSAL,
    "Entry": ENTRY,
    "Move": MOVE,
    "Outcome": OUTCOME,
    "Player": PLAYER,
    "Turn": TURN,
    "State": STATE,
    "Payment": obj({"id": maybe(INT), "amount": INT, "asked": INT, "capped": BOOL,
                    "sold": INT}, {"message": STR, "message_said": SAID}),
    "Jail": either(ref("Entry"), ref("Move")),
    "Undone": obj({"move": ref("Move"), "undid": ref("Move"), "text": STR}),
    "Redone": obj({"move": ref("Move")}),
    "Current": obj({"current_player": maybe(INT)}),
    "Characters": obj({"player": ANY, "characters": items(STR)}),
    "Options": obj({"simultaneous": BOOL, "dealt": BOOL}),
    "Ring": obj({"spaces": items(OBJ), "faces": items(STR), "labels": items(STR),
                 "jail_corner": INT}),
    "Game": obj({"game": INT}),
    "Health": obj({"ok": BOOL, "parts": OBJ, "storage": OBJ, "presses": INT,
                   "ignored": INT}, {"error": STR}),
    "Journal": obj({"game": maybe(INT), "moves": items(ref("Move"))},
                   {"entries": items(ref("Entry")), "next_before": maybe(INT),
                    "next_after": maybe(INT), "latest": maybe(INT)}),
    "Pressed": either(obj({"kind": STR, "press": INT, "saved": BOOL}),
                      obj({"kind": {"const": "lever"}, "started": BOOL})),
    "Given": obj({"presses": {"type": "object", "additionalProperties": STR}}),
    "UndoCheck": obj({"move": INT, "undoable": BOOL, "blocked_by": items(INT),
                      "error": maybe(STR)}),
    "Games": obj({"games": items(obj({"id": INT, "edition": STR, "name": STR,
                                      "players": items(STR), "ended": BOOL,
                                      "current": BOOL}))}),
    "Editions": obj({"editions": items(obj({"id": STR, "name": STR}))}),
    "Setup": obj({"editions": items(OBJ), "colours": items(STR)}),
    "Rules": obj({"id": STR, "name": STR, "modes": items(OBJ), "flow": OBJ}),
    "Languages": obj({"languages": items(OBJ), "table": STR}),
    "Catalog": OBJ,
    "Mode": obj({"mode": obj({"id": STR, "name": STR, "default": BOOL})}),
    "Timer": obj({"timer": OBJ}),
    "Activity": obj({"activity": items(OBJ), "new_cards": items(ANY),
                     "card_actions": OBJ}),
    "Card": obj({"uid": maybe(STR)}),
    "Link": obj({"player": INT, "token": STR, "link": STR}),
    "Revoked": obj({"player": INT, "revoked": BOOL}),
    "Me": obj({"player": INT, "name": STR}),
    "Seat": obj({"items": items(OBJ)}),
    "Request": obj({"request": OBJ}),
    "Share": obj({"url": STR}),
    "Join": obj({"game": INT}),
    "OpenAPI": obj({"openapi": STR, "paths": OBJ}),
    "Export": ANY,
    "Coins": obj({"game": INT, "moves": items(maybe(INT)), "at": items(maybe(NUM)),
                  "players": items(obj({"player": INT, "coins": items(INT), "start": INT,
                                        "high": INT, "low": INT, "end": INT}))}),
}
"""Every answer's shape, by name (the routes' answers name them)."""

# -- the routes that are not moves, each declared beside its handler ---------------------------


@dataclass(frozen=True, slots=True)
class Route:
    """A route that is not one of the moves: its handler, its fields and its answers."""

    method: str
    path: str
    handler: Handler
    doc: str = ""
    body: tuple[Field, ...] | None = None
    """The body's fields (None: no body is read; () : an empty JSON object at most)."""
    query: tuple[Field, ...] = ()
    answers: Mapping[int, str] = field(default_factory=lambda: {200: "Error"})
    writes: bool = False
    """A write: the table token (or a phone's own link, where it says so)."""
    described: bool = True
    """In the API's description (the pages, the WebSocket and the static files are not)."""
    media: tuple[str, ...] = ("application/json",)
    """What its answers are (an export: CSV, or JSON)."""


# -- the document -------------------------------------------------------------------------------

TOKEN = [{"table": []}]
KEY = {"name": "Idempotency-Key", "in": "header", "required": False,
       "schema": {"type": "string", "minLength": 1, "maxLength": 100},
       "description": "A retry with the same key is written once (the same request only)."}
REFUSED = {"400": "bad input, or something the edition's rules don't have",
           "401": "a write without the table token", "403": "a phone link may not do this",
           "409": "not now: the table's state refuses it", "503": "the bank is unavailable"}


def _body_schema(fields: Iterable[Field], corrects: bool) -> Schema:
    props: dict[str, Any] = {}
    required = []
    for f in fields:
        if f.path:
            continue
        props[f.name] = {**f.schema, **({"description": f.doc} if f.doc else {})}
        if f.required:
            required.append(f.name)
    if corrects:
        props["correction"] = {"type": "boolean", "description": (
            "the banker's correction: make it though the rulebook does not allow it now "
            "(kept and shown as one)")}
    schema: dict[str, Any] = {"type": "object", "properties": props,
                              "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _path_params(fields: Iterable[Field], path: str) -> list[dict[str, Any]]:
    return [{"name": f.name, "in": "path", "required": True, "schema": f.schema,
             **({"description": f.doc} if f.doc else {})}
            for f in fields if f.path and "{" + f.name + "}" in path]


def _responses(answers: Mapping[int, str], refusal: bool,
               media: tuple[str, ...] = ("application/json",)) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for status, name in answers.items():
        schema = ref(name) if name in SCHEMAS else ANY
        kinds = media if status < 400 else ("application/json",)
        found[str(status)] = {"description": name, "content": {
            kind: {"schema": schema if kind == "application/json" else STR}
            for kind in kinds}}
    for status, words in REFUSED.items():
        schema = either(ref("Error"), ref("Refusal")) if status == "409" and refusal \
            else ref("Error")
        found.setdefault(status, {"description": words,
                                  "content": {"application/json": {"schema": schema}}})
    found.setdefault("429", {"description": "too many requests from this address", "content": {
        "application/json": {"schema": ref("Error")}}})
    return found


def _move(action: Action) -> dict[str, Any]:
    params = _path_params(action.fields, action.path)
    if action.keyed:
        params.append(KEY)
    operation: dict[str, Any] = {
        "operationId": action.name, "summary": action.doc.split(". ")[0][:120],
        "description": action.doc, "tags": ["moves"], "security": TOKEN,
        "requestBody": {"required": False, "content": {"application/json": {
            "schema": _body_schema(action.fields, action.corrects)}}},
        "responses": _responses({200: action.answers, 201: action.answers},
                                action.corrects)}
    if params:
        operation["parameters"] = params
    if action.flow.name is not None:
        operation["x-flow"] = action.flow.name if isinstance(action.flow.name, str) else \
            "by the request"
    return operation


def _route(route: Route) -> dict[str, Any]:
    params = [*_path_params(route.body or (), route.path),
              *[{"name": f.name, "in": "query", "required": bool(f.required), "schema": f.schema,
                 **({"description": f.doc} if f.doc else {})} for f in route.query]]
    operation: dict[str, Any] = {
        "operationId": route.handler.__name__, "summary": route.doc.split(". ")[0][:120],
        "description": route.doc, "tags": ["table" if not route.writes else "writes"],
        "responses": _responses(route.answers, False, route.media)}
    if route.writes:
        operation["security"] = TOKEN
    if route.body is not None and route.method in ("POST", "PUT", "DELETE"):
        operation["requestBody"] = {"required": False, "content": {"application/json": {
            "schema": _body_schema(route.body, False)}}}
    if params:
        operation["parameters"] = params
    return operation


def document(actions: Actions, routes: Iterable[Route], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every described route."""
    paths: dict[str, dict[str, Any]] = {}
    for action in actions.routed():
        paths.setdefault(action.path, {})[action.method.lower()] = _move(action)
    for route in routes:
        if route.described:
            paths.setdefault(route.path, {})[route.method.lower()] = _route(route)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Question Block companion", "version": version, "description": (
            "The table's API: reads are open on the LAN, writes need the table token "
            "(Authorization: Bearer). A move the rulebook does not allow now is a 409 with "
            "its rule; the banker may make it as a correction.")},
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": SCHEMAS, "securitySchemes": {
            "table": {"type": "http", "scheme": "bearer"}}},
    }
