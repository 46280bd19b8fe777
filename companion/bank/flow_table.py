"""The flow's table: for each edition, every move with a moment or a player of its own, its
route, when it is made and by whom, with the rulebook's words; made from the editions' rules
and the moves' declarations (``companion flow``; README's table is its output)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from companion.core.actions import Action
from companion.core.editions.ruleset import Ruleset
from companion.core.flow import When


@dataclass(frozen=True, slots=True)
class Row:
    """One rule of one edition's flow."""

    rule: str
    routes: tuple[str, ...]
    when: When


def rows(rules: Ruleset, actions: Mapping[str, Action]) -> list[Row]:
    """The edition's flow, rule by rule: those its rulebook gives (any time included: an
    exception it names), and the moves' own defaults where it names none."""
    reasons = [r.id for r in rules.reasons]
    found: dict[str, When] = {a.flow.name: a.flow.default for a in actions.values()
                              if isinstance(a.flow.name, str)}
    found.update(rules.flow)
    table = []
    for rule, when in found.items():
        if when.free and rule not in rules.flow:  # a move's own "any time": nothing to say
            continue
        routes = tuple(a.route for a in actions.values()
                       if a.route is not None and a.flow.covers(rule, reasons)
                       and (a.plays is None or a.plays(rules)))
        table.append(Row(rule, routes, when))
    order = {"start": 0, "turn": 1, "end": 2, "any": 3, "never": 4}
    return sorted(table, key=lambda r: (order[r.when.moment.value], r.rule))


def markdown(rules: Ruleset, actions: Mapping[str, Action]) -> str:
    """The edition's flow as a Markdown table (README's)."""
    table = rows(rules, actions)
    if not table:
        return f"**{rules.name}**: no move has a moment of its own; every one is made at " \
               "any time.\n"
    lines = [f"**{rules.name}**", "", "| move | route | when | who | the rulebook |",
             "| --- | --- | --- | --- | --- |"]
    for row in table:
        when = row.when.moment.value + (", once a turn" if row.when.once else "")
        quote = " ".join(row.when.quote).replace("|", "\\|")
        lines.append(f"| `{row.rule}` | {', '.join(f'`{r}`' for r in row.routes)} | {when} | "
                     f"{row.when.who.value} | {quote} |")
    return "\n".join(lines) + "\n"
