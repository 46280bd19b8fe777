"""Writing a game's journal as CSV or JSON (``companion export``)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime

from companion.bank.bank import Bank
from companion.core.ledger import BANK

CSV_FIELDS = ("id", "at", "from", "to", "amount", "kind", "note", "source", "outcome", "undoes",
              "undone_by")


def export_journal(bank: Bank, game_id: int | None, fmt: str) -> str:
    """The journal of a game (default: the latest) with names beside player ids."""
    players = {p.id: p.name for p in bank.players(game_id)}
    entries = bank.journal_json(game_id)

    def name(party: object) -> str:
        return "Bank" if party == BANK else players.get(party, str(party))  # type: ignore[arg-type]

    if fmt == "json":
        state = bank.state(game_id)
        doc = {"game": state["game"], "players": state["players"], "entries": entries}
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore",
                                lineterminator="\n")
        writer.writeheader()
        for e in entries:
            when = datetime.fromtimestamp(e["at"]).astimezone().isoformat(timespec="seconds")
            writer.writerow({**e, "at": when, "from": name(e["from"]), "to": name(e["to"])})
        return out.getvalue()
    raise ValueError(f"unknown format {fmt!r}")
