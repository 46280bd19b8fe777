"""Writing a game's journal as CSV or JSON (``companion export``)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Any

from companion.bank.bank import Bank
from companion.core.coin_series import CoinSeries, coin_series
from companion.core.ledger import BANK, BOARD

CSV_FIELDS = ("id", "at", "from", "to", "amount", "kind", "note", "source", "outcome", "undoes",
              "undone_by")


def _cell(value: object) -> object:
    """Text a spreadsheet would run as a formula gets a leading apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


STANDINGS_FIELDS = ("rank", "player", "coins", "points", "total", "cards", "worms", "out")


def game_coins(bank: Bank, game_id: int | None = None) -> CoinSeries:
    """Every player's coins over a game (default: the latest), move by move, read from its
    journal in one snapshot (the end-of-game chart's series)."""
    with bank.snapshot():
        facts = bank.facts(game_id)
        entries = bank.journal(facts.gid)
    return coin_series(facts.gid, [p.id for p in facts.players], entries)


def export_journal(bank: Bank, game_id: int | None, fmt: str) -> str:
    """The journal of a game (default: the latest) with names beside player ids, and for a
    game that has ended its final standings; one snapshot. JSON adds ``coins``: every player's
    coins over the evening (:func:`game_coins`)."""
    if fmt not in ("csv", "json"):
        raise ValueError(f"unknown format {fmt!r}")
    with bank.snapshot():
        state = bank.state(game_id)
        entries = bank.journal_json(game_id)
        moves = [m.to_json() for m in bank.moves(game_id)]
        outcomes = [o.to_json() for o in reversed(bank.outcomes(game_id))]
        series = game_coins(bank, state.game.id) if fmt == "json" else None
    def name(party: object) -> str:
        return "Bank" if party == BANK else state.name_of(party)

    standings = [{**s.to_json(), "name": state.name_of(s.player)} for s in state.standings]
    if fmt == "json":
        doc = {"game": state.game.to_json(), "players": [p.to_json() for p in state.players],
               "ended": state.ended, "winners": list(state.winners), "standings": standings,
               "entries": entries, "moves": moves, "outcomes": outcomes,
               "coins": series.to_json() if series is not None else None}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for e in entries:
        when = datetime.fromtimestamp(e["at"]).astimezone().isoformat(timespec="seconds")
        row = {**e, "at": when, "from": _side(name, e, "from"), "to": _side(name, e, "to")}
        writer.writerow({key: _cell(value) for key, value in row.items()})
    if state.ended:  # the final standings, as a second table under the journal
        out.write("\n")
        table = csv.DictWriter(out, fieldnames=STANDINGS_FIELDS, extrasaction="ignore",
                               lineterminator="\n")
        table.writeheader()
        for row in standings:
            table.writerow({**row, "player": _cell(row["name"])})
    return out.getvalue()


def _side(name: Any, entry: dict[str, Any], key: str) -> str:
    """A line's side in words: a player's name, the Bank, or the Board's pile on a space."""
    if entry[key] == BOARD:
        return f"the Board: {entry.get('space')}"
    return str(name(entry[key]))
