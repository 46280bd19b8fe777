"""README's table of who may act, and when, is made from the rules (issue 42): it is what
``companion flow`` prints from each edition's ``[flow]`` and the moves' declarations, word for
word, so the documentation is never written twice."""

from __future__ import annotations

import subprocess
import sys

from companion.bank.flow_table import markdown, rows
from companion.bank.moves import ACTIONS
from companion.core.editions import editions
from tests.conftest import ROOT


def test_readme_holds_every_editions_flow_as_companion_flow_prints_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    printed = subprocess.run([sys.executable, "-m", "companion", "flow"], capture_output=True,
                             text=True, check=True, cwd=ROOT).stdout
    assert printed == "\n".join(markdown(rules, ACTIONS) for rules in editions().values())
    assert printed in readme


def test_every_rule_has_its_lines_and_a_move_to_make_it() -> None:
    for rules in editions().values():
        for row in rows(rules, ACTIONS):
            assert row.when.quote, (rules.id, row.rule)
            assert row.routes, (rules.id, row.rule)  # a rule no move is made under: a typo
        for name in rules.flow:
            reasons = [r.id for r in rules.reasons]
            assert any(a.flow.covers(name, reasons) for a in ACTIONS.values()), (rules.id, name)


def test_an_edition_without_moments_says_so() -> None:
    assert "no move has a moment of its own" in markdown(editions()["wiggly_worms"], ACTIONS)
