"""The one gate every requested move passes: its fields checked by its declaration, then who may
make it and when (its edition's flow, read against the journal's turn), then its write, all in
one transaction (as boardgame.io's engine refuses a move outside its phase or stage).

A move out of its moment, or made for a player whose turn it is not, is refused
(:class:`~companion.exc.OutOfTurn`, 409) with the rulebook's words. The banker may make it all
the same as a *correction*: the journal keeps it as one, and the history says so.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import turns
from companion.bank.journal import keyed
from companion.core.actions import Action
from companion.core.flow import Turn, When, refusal
from companion.core.ledger import is_id
from companion.exc import CompanionError, OutOfTurn, Refused
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.facts import Facts
    from companion.bank.journal import Journal

_NONE = inspect.Parameter.empty


_WRITES: dict[int, tuple[Callable[..., Any], frozenset[str], tuple[str, ...]]] = {}


def _write(action: Action) -> tuple[Callable[..., Any], frozenset[str], tuple[str, ...]]:
    """The action's write (keyed where it takes a request id), the parameters it takes, and
    those it has no default for (a field left out gives them None, as the request's
    ``data.get`` did: the write refuses it naming the field). Worked out once an action."""
    found = _WRITES.get(id(action))
    if found is None:
        found = _WRITES[id(action)] = _worked_out(action)
    return found


def _worked_out(action: Action) -> tuple[Callable[..., Any], frozenset[str], tuple[str, ...]]:
    params = inspect.signature(action.write).parameters
    names = frozenset(params)
    bare = tuple(n for n, p in list(params.items())[1:]
                 if p.default is _NONE and p.kind is not p.VAR_KEYWORD)
    write = keyed(action.write) if action.keyed and "request_id" in names else action.write
    return write, names, bare


def perform(bank: Journal, action: Action, fields: Mapping[str, Any], *, source: str = "",
            request_id: str | None = None) -> Any:
    """Carry out ``action`` for a request's ``fields`` (their JSON names): checked by its
    declaration, by its flow, then written, in one transaction. A field that is not what its
    schema says is refused: in the write's own words where the write refuses it, else in the
    schema's, the write undone (a field given is never ignored)."""
    args = action.arguments(fields)
    mistyped = action.mistyped(fields)
    correction = fields.get("correction", False) if action.corrects else False
    if not isinstance(correction, bool):
        raise Refused(say("correction must be true (the banker's correction of a move out of "
                          "its turn) or false"))
    write, names, bare = _write(action)
    call = {**dict.fromkeys(bare), **args}
    if "source" in names:
        call["source"] = source
    if "request_id" in names:
        call["request_id"] = request_id
    with bank.write():
        bank.may_correct = correction
        try:
            if action.flow.name is not None and not (request_id is not None and
                                                     bank.has_request(request_id)):
                facts = bank.open_facts(None)  # (a retry: its write answers it, or refuses)
                broken = check(bank, facts, action, args)
                if broken is not None:
                    bank.overrule(broken)  # refused, unless the banker's correction
                bank.hand(facts)
            try:
                result = write(bank, **call)
            except CompanionError:  # the write's own words, which know the move best
                raise
            except Exception:
                if mistyped is None:
                    raise
                raise mistyped from None
            if mistyped is not None:  # a field the write took without reading it as
                raise mistyped        # declared: refused, and the transaction undone
            return result
        finally:
            bank.may_correct = False
            bank.correcting = None


def check(bank: Journal, facts: Facts, action: Action,
          args: Mapping[str, Any]) -> OutOfTurn | None:
    """Why ``action`` may not be made now for ``args`` (None: it may). A request naming no
    player of the game as its maker is left to its write, which refuses it."""
    read: list[Turn] = []

    def turn() -> Turn:  # read once, and only for a rule that asks
        if not read:
            read.append(turns.turn_of(bank.db, facts))
        return read[0]

    name = action.flow.rule_name(facts, turn, args)
    if name is None:
        return None
    when = facts.rules.when(name, action.flow.default)
    if when.free:
        return None
    actors = actors_of(facts, action, args)
    if actors is None:
        return None
    why = refusal(when, turn(), actors, facts.name, kind=action.kind)
    return None if why is None else out_of_turn(why, name, when)


def out_of_turn(why: Said, rule: str, when: When) -> OutOfTurn:
    """The refusal of a move out of its moment (or player), with its rule's words."""
    return OutOfTurn(why, rule, when.quote, when.moment.value, when.who.value)


def actors_of(facts: Facts, action: Action, args: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The players the request names as making the move (its ``player``, else the current
    player); None when it names none (the Bank pays), or one of them is no player still in
    the game (the write refuses it)."""
    if action.flow.actors is not None:
        named = action.flow.actors(facts, args)
    else:
        player = args.get("player")
        named = (facts.current if player is None else player,)
    if not named or not all(is_id(p) and p in facts.active for p in named):
        return None
    return tuple(named)  # type: ignore[arg-type]


def rules(facts: Facts, actions: Mapping[str, Action]) -> dict[str, When]:
    """Every named flow of this game: the edition's, and the moves' own defaults."""
    found = {a.flow.name: a.flow.default for a in actions.values()
             if isinstance(a.flow.name, str)}
    return {**found, **facts.rules.flow}


def allowed(facts: Facts, turn: Turn, actions: Mapping[str, Action]) -> dict[str, Any]:
    """For the page: each flow with a moment or a player of its own, and whether the current
    player may make its move now (None) or why not (the refusal with its rule, as a 409 would
    say it)."""
    actors = () if turn.player is None else (turn.player,)
    found: dict[str, Any] = {}
    for name, when in sorted(rules(facts, actions).items()):
        if when.free:
            continue
        why = refusal(when, turn, actors, facts.name, kind=_kind(actions, name))
        found[name] = None if why is None else out_of_turn(why, name, when).to_json()
    return found


def _kind(actions: Mapping[str, Action], name: str) -> str | None:
    """The kind of move the flow ``name``'s action writes (a flow made once a turn)."""
    return next((a.kind for a in actions.values() if a.flow.covers(name)), None)
