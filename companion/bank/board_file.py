"""A described board as a file (Gamer, Mario Kart): written by one companion, read by another
with the same box, so one family's description serves every table (issue 44).

The file is JSON, version 1::

    {"format": "question-block-board", "version": 1, "edition": "gamer",
     "spaces": [{"kind": "go", "name": ""}, ...], "faces": ["red_shell", ...]}

``spaces`` and ``faces`` are exactly what ``PUT /api/board`` takes, and are checked by the
same rules (:func:`companion.core.board_ring.check_ring`); a file refused changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import ring
from companion.core.board_ring import Ring, check_ring
from companion.core.editions.ruleset import Ruleset
from companion.exc import Refused, shown
from companion.i18n.said import Said, say

if TYPE_CHECKING:
    from companion.bank.journal import Journal

FORMAT = "question-block-board"
VERSION = 1
FIELDS = ("format", "version", "edition", "spaces", "faces")
FILE_NAME = "question-block-board-{edition}.json"


def board_file(bank: Journal, edition: object = None) -> dict[str, Any]:
    """The board the table described for ``edition`` (None: the game played's) as the file's
    JSON; refused while it is not described."""
    rules = _rules(bank, edition)
    found = ring.read_ring(bank.db, rules)
    if found is None:
        raise Refused(say("{edition}'s board is not described yet: nothing to export",
                          edition=Said(rules.name)))
    return {"format": FORMAT, "version": VERSION, "edition": rules.id,
            "spaces": [s.to_json() for s in found.spaces], "faces": list(found.faces)}


def file_text(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def import_board(bank: Journal, data: object) -> tuple[Ruleset, Ring]:
    """A board file read into this companion: checked whole (its format, version, edition,
    then its spaces and faces as ``PUT /api/board`` checks them), then kept for its edition
    as if the table had described it here."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise Refused(say("not a board file: a board file is a JSON object with format "
                          "{format} (from a companion's board export)", format=FORMAT))
    unknown = sorted(str(k) for k in set(data) - set(FIELDS))
    if unknown:
        raise Refused(say("unknown field {value} in the board", value=shown(unknown[0])))
    version = data.get("version")
    if version != VERSION or isinstance(version, bool):
        raise Refused(say("the board file's version {value} is not one this companion "
                          "reads (it reads version {version})", value=shown(version),
                          version=VERSION))
    rules = _with_board(bank.editions.get_edition(data.get("edition")))
    board = {k: data[k] for k in ("spaces", "faces") if k in data}
    with bank.write():
        latest = bank.latest_game()
        if latest is not None and bank.ruleset(latest).id == rules.id:  # its tokens stay put
            return bank.facts(latest).rules, ring.describe_board(bank, board, latest)
        found = check_ring(board, rules.board.kinds, ring.abilities(rules))  # type: ignore[union-attr]
        ring.keep(bank, rules, found)
        return rules, found


def _with_board(rules: Ruleset) -> Ruleset:
    if rules.board is None or not rules.board.kinds:
        raise Refused(say("{edition} has no board to describe", edition=Said(rules.name)))
    return rules


def _rules(bank: Journal, edition: object) -> Ruleset:
    """``edition``'s rules (None: the game played's), refused unless it has a board."""
    return _with_board(bank.ruleset() if edition is None else bank.editions.get_edition(edition))
