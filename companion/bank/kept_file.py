"""Held presses as a file the banker can carry: out of a companion (``companion export
--held``, or a tablet's "Save them as a file") and back into one (``companion give-back FILE``,
or the tablet's "Give back presses from a file").

A file given back goes into the data folder's held-presses file; the companion banks it at its
next start (each press once, by its id), on this card or a new one.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from companion.bank.held import FILE_NAME, HeldFile, HeldPress, press_from_page
from companion.bank.store import make_data_dir
from companion.exc import Refused
from companion.i18n.said import say

KIND = "companion-kept"
"""What the file says it is (a tablet's file has the same shape)."""


def export_held(data_dir: Path) -> str:
    """The presses held in ``data_dir`` as a JSON file's text (none: an empty list)."""
    path = data_dir / FILE_NAME
    presses = HeldFile.peek(path) if path.exists() else []
    return json.dumps({"kind": KIND, "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                       "held_presses": [p.to_json() for p in presses], "writes": []},
                      indent=1) + "\n"


def give_back(data_dir: Path, source: Path) -> tuple[int, int]:
    """Add the presses of ``source`` (such a file) to ``data_dir``'s held presses; (added,
    already there). Refused: the file is not one; OSError: the folder can't take them, or a
    companion running on it holds the file (give them back from its tablet then)."""
    try:
        data = json.loads(source.read_bytes())
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused(say("{file} is not a file of kept presses (not JSON)",
                          file=str(source))) from None
    presses = data.get("held_presses") if isinstance(data, dict) else None
    if not isinstance(presses, list):
        raise Refused(say("{file} is not a file of kept presses (no held_presses list)",
                          file=str(source)))
    given = [press_from_page(p) for p in presses]
    make_data_dir(data_dir)
    held = HeldFile(data_dir / FILE_NAME)
    found = held.open()
    try:
        there = {p.press_id for p in found}
        new: list[HeldPress] = []
        for press in given:
            if press.press_id not in there:
                there.add(press.press_id)
                new.append(press)
        if new and not held.write([*found, *new]):
            raise Refused(say("{n} presses do not fit in the held-presses file: give them back "
                              "from the tablet instead", n=len(found) + len(new)))
    finally:
        held.close()
    return len(new), len(given) - len(new)
