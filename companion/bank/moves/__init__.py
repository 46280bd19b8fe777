"""The table's moves, one kind to a module, as boardgame.io splits a game into moves.

Each module declares, once:

- ``WRITES``: its writes, functions of the journal that :class:`~companion.bank.bank.Bank`
  binds as its methods (they check, then write through
  :class:`~companion.bank.journal.Journal`);
- ``ACTIONS``: its requests (:class:`~companion.core.actions.Action`): their fields and types,
  who may make them and when, the write each is carried out by, the answer it gives. The
  table's dispatch (:mod:`companion.bank.gate`), the HTTP routes and the API's OpenAPI
  document are made from them;
- ``MOVES``: its kinds of move as the journal knows them (:class:`~companion.bank.kinds.Move`):
  their words, their effect on the table's facts and what undoing or redoing them changes
  besides their coins.

Every module of this package is found by itself: a new kind of move is a new module here
(and, where its kind is new, a :class:`~companion.core.ledger.MoveKind`). The journal knows no
kind but through :data:`KINDS`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import Any

from companion.bank.kinds import Kinds, Move
from companion.core.actions import Action, Actions


def _modules() -> list[ModuleType]:
    """Every module of this package, by name."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)]


MODULES = _modules()
WRITES: tuple[Callable[..., Any], ...] = tuple(
    write for module in MODULES for write in getattr(module, "WRITES", ()))
"""Every write, bound as the bank's method of its name."""
ACTIONS = Actions(action for module in MODULES for action in getattr(module, "ACTIONS", ()))
"""Every request the table takes for its journal, by name."""
KINDS = Kinds(move for module in MODULES for move in getattr(module, "MOVES", ()))
"""Every kind of move the bank writes."""

__all__ = ["ACTIONS", "KINDS", "MODULES", "WRITES", "Action", "Move"]
