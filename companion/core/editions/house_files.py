"""A table's house-rules files as a setup offers them, and the payments an edition's Free
Parking pot can take (pure: what :mod:`companion.core.editions.house` knows, read against a
:class:`~companion.core.editions.ruleset.Ruleset`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core.editions.house import FIXED_PAYMENTS, POT, POT_NAME, Pot
from companion.core.editions.ruleset import Ruleset
from companion.i18n.said import Said


def payments(rules: Ruleset) -> tuple[str, ...]:
    """The payments to the Bank an edition can name for its pot: those it has."""
    tables = {m.table for m in rules.modes}
    have = {"jail": rules.jail_fee is not None, "toll": rules.toll is not None,
            "bowser": "question_block" in tables, "game_over": "question_block" in tables,
            "piranha": "red_die_pay" in tables}
    return (*(p for p in FIXED_PAYMENTS if have[p]), *(r.id for r in rules.reasons))



@dataclass(frozen=True, slots=True)
class HouseFile:
    """One file of ``[game] house_rules``: the edition it replaces (``ruleset``), named by
    its file (``file``, the id a setup sends), with a name and a line taken from it."""

    file: str
    ruleset: Ruleset
    name: str
    description: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.file, "kind": "file", "name": self.name,
                "description": self.description, "edition": self.ruleset.id}


def house_file(path: Path, text: str, ruleset: Ruleset) -> HouseFile:
    """A house-rules file as the setup offers it: named by its file ("kids_bowser.toml" is
    "kids bowser"), described by its first comment line (else its first note)."""
    name = " ".join(path.stem.replace("_", " ").replace("-", " ").split()) or path.name
    line = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        line = stripped.lstrip("#").strip()
        if line:
            break
    if not line and ruleset.notes:
        line = ruleset.notes[0]
    return HouseFile(path.name, ruleset, name, line)


def named(pot: Pot | None, files: tuple[HouseFile, ...]) -> tuple[tuple[str, str | Said], ...]:
    """A game's house rules as its header shows them: (id, name), the pot first."""
    first = ((POT, POT_NAME),) if pot is not None else ()
    return first + tuple((f.file, f.name) for f in files)
