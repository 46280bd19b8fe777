"""A move as a request declares it, once: its fields and their types, who may make it and when,
the write that carries it out, and the answer it gives (:class:`Action`).

Each move's module (:mod:`companion.bank.moves`) declares its actions beside its writes and its
words; the bank's methods, the table's dispatch, the HTTP routes with their validation and the
API's OpenAPI document are all made from the table of them (:class:`Actions`), never written
again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.core import typed
from companion.core.flow import ANY_TIME, Turn, When
from companion.exc import Refused
from companion.i18n.said import Said, joined, say

Schema = Mapping[str, Any]
"""A JSON Schema (OpenAPI 3.1)."""

ID: Schema = {"type": "integer", "minimum": 1}
"""A database id (a player, a move, an outcome, a game)."""
PARTY: Schema = {"oneOf": [ID, {"const": "bank"}]}
"""A player's id, or the Bank."""
COUNT: Schema = {"type": "integer", "minimum": 0}
TEXT: Schema = {"type": "string"}
FLAG: Schema = {"type": "boolean"}
IDS: Schema = {"type": "array", "items": ID}
SPACE_NUMBER: Schema = {"type": "integer", "minimum": 0}
"""A space of the described board, by its number from GO (0)."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a request's JSON body (or of its path)."""

    name: str
    schema: Schema = field(default_factory=dict)
    doc: str = ""
    arg: str = ""
    """The write's parameter it fills ('': the same name)."""
    required: bool | Said = False
    """A field the request must give (a :class:`Said`: what to say when it is left out)."""
    path: bool = False
    """A part of the route's path (``/api/games/{game}/resume``), not of the body."""
    default: Any = None
    """What a field left out means, where the write's own default does not say it (None:
    the write's)."""

    @property
    def param(self) -> str:
        return self.arg or self.name


@dataclass(frozen=True, slots=True)
class Flow:
    """Who may make an action and when: the name its edition's ``[flow]`` gives the rule
    under (a function of the request where it depends on it: a transfer naming a tax is a
    ``tax``), the rule where the edition gives none, and the players the request names as
    making it (default: its ``player``, else the current player)."""

    name: str | Callable[[Any, Callable[[], Turn], Mapping[str, Any]], str | None] | None = None
    """None: the banker's bookkeeping, made at any time (no check at all). A function of the
    game's facts, the turn (read when it is asked for) and the request's arguments: the
    rule's name for this request (None: none applies)."""
    default: When = ANY_TIME
    actors: Callable[[Any, Mapping[str, Any]], tuple[object, ...]] | None = None
    names: tuple[str, ...] = ()
    """The rule names a function ``name`` may give (for the flow's table and the page)."""
    reasons: bool = False
    """A payment's reason names its rule too (a tax, the Continue cost)."""

    def covers(self, rule: str, reasons: Iterable[str] = ()) -> bool:
        """Whether this action's requests may be made under ``rule`` (the edition's reasons
        for a payment, ``reasons``)."""
        if rule == self.name or rule in self.names:
            return True
        return self.reasons and rule.removesuffix("_acquired") in set(reasons)

    def rule_name(self, facts: Any, turn: Callable[[], Turn],
                  args: Mapping[str, Any]) -> str | None:
        return self.name(facts, turn, args) if callable(self.name) else self.name


def _to_json(result: Any, _args: Mapping[str, Any]) -> tuple[Any, int]:
    return result.to_json(), 201


Answer = Callable[[Any, Mapping[str, Any]], tuple[Any, int]]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the table may be asked to write, declared in its move's module."""

    name: str
    """The bank's method and the table's command: ``transfer``."""
    write: Callable[..., Any]
    """The write: ``(bank, <fields by param>, source=, request_id=)``."""
    fields: tuple[Field, ...] = ()
    route: str | None = None
    """``"POST /api/transfers"``; None: no route (the press's own writes)."""
    doc: str = ""
    """What it does, for the API's description."""
    flow: Flow = field(default_factory=Flow)
    kind: str | None = None
    """The kind of move it writes (a move made once a turn counts them)."""
    keyed: bool = True
    """It takes a request id (an ``Idempotency-Key``): a retry writes once."""
    ends: bool = False
    """It may end the game, change which game is played or what a press means: presses wait
    for it."""
    event: str = ""
    """The words its change is announced with (``pass GO``); '' : its name."""
    answer: Answer = _to_json
    """Its result as the API answers it: the JSON body and the status."""
    answers: str = "Move"
    """The OpenAPI schema of its answer."""
    fixed: Mapping[str, Any] = field(default_factory=dict)
    """Arguments its route fixes (``/api/boss`` is the contest of kind ``boss``)."""
    plays: Callable[[Any], bool] | None = None
    """Whether an edition's ruleset has this move at all (None: the rules it names say)."""
    summary: Callable[[Any, Any], str | Said] | None = None
    """Its line in the activity feed when its result is not a move of the journal (a game
    started): ``(result, state)``."""

    @property
    def said_as(self) -> str:
        return self.event or self.name

    @property
    def method(self) -> str:
        return (self.route or "POST ").split(" ", 1)[0]

    @property
    def path(self) -> str:
        return (self.route or " ").split(" ", 1)[1]

    @property
    def corrects(self) -> bool:
        """It has a moment or a player of its own: the banker may make it out of them, as a
        correction."""
        return self.flow.name is not None

    def arguments(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The write's arguments from a request's fields (their JSON names): an unknown field,
        or a required one left out, is refused naming it."""
        known = {f.name for f in self.fields} | ({"correction"} if self.corrects else set())
        extra = sorted(str(k) for k in set(body) - known)
        if extra:
            raise Refused(say("unknown field(s): {fields}", fields=joined(
                [name[:40] for name in extra[:5]])))
        for f in self.fields:
            if f.required and f.name not in body:
                raise Refused(f.required if isinstance(f.required, Said) else
                              say("{key} is required", key=f.name))
        args = {f.param: body.get(f.name, f.default) for f in self.fields
                if f.name in body or f.default is not None}
        return {**args, **self.fixed}


    def mistyped(self, body: Mapping[str, Any]) -> Refused | None:
        """The refusal of the first field given that is not what its schema says (``null``
        included, where the schema does not take it), None: every one is. The path's are the
        write's to check."""
        for f in self.fields:
            if f.name in body and not f.path and not typed.fits(body[f.name], f.schema):
                try:
                    typed.check(f.name, body[f.name], f.schema)
                except Refused as refused:
                    return refused
        return None


class Actions(Mapping[str, Action]):
    """Every action, by name (one route each at most)."""

    def __init__(self, actions: Iterable[Action]) -> None:
        self._actions: dict[str, Action] = {}
        routes: set[str] = set()
        for action in actions:
            if action.name in self._actions:
                raise ValueError(f"two actions are called {action.name!r}")
            if action.route is not None:
                if action.route in routes:
                    raise ValueError(f"two actions take {action.route}")
                routes.add(action.route)
            self._actions[action.name] = action

    def __getitem__(self, name: str) -> Action:
        return self._actions[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def routed(self) -> list[Action]:
        """The actions a request can ask for, in the order declared."""
        return [a for a in self._actions.values() if a.route is not None]
