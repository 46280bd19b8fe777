"""Starting a game: from a setup the page leads (one write, one move: the players, their
colours and characters, who starts, the house rules, the opening balances), or at boot from the
config (a fresh install's game awaits its setup); and what a setup is offered of the games
before."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from companion.bank.journal import REQUEST
from companion.core.ledger import BANK, EntryKind, MoveKind, check_request_id
from companion.core.setup import Setup, check_setup
from companion.exc import Conflict, Refused, shown
from companion.i18n.said import say

if TYPE_CHECKING:
    from companion.bank.journal import Journal

PENDING = "pending"
"""``games.options["setup"]`` of a game made at boot that awaits the table's setup."""
SETUP_PRESSES = ("first", "keep")
"""What a start does with the presses made while a fresh install awaited its setup (kept
unassigned: nobody was named yet): charge them to who starts, or keep them uncharged."""


def new_game(bank: Journal, edition: object, names: Sequence[object],
             colours: Sequence[object] | None = None, *, first: object = None,
             characters: object = None, house: object = None, setup_presses: object = "first",
             request_id: str | None = None) -> int:
    """Start a game (:func:`companion.core.setup.check_setup` checks it whole first): players
    in seat order with their colours (default: the palette's order) and characters, ``first``
    current, the house rules kept with it, opening balances paid by the Bank. Old games stay
    as they were. ``request_id``: a retry of the very same start answers the same game.
    ``setup_presses``: the presses made while a fresh install awaited this setup are charged
    to who starts (``first``) or kept uncharged (``keep``)."""
    if setup_presses not in SETUP_PRESSES:
        raise Refused(say("setup_presses must be {choices}, not {value}",
                          choices=" or ".join(SETUP_PRESSES), value=shown(setup_presses)))
    with bank.write() as db:
        if check_request_id(request_id) is not None:
            again = _replayed(bank, db, request_id)  # type: ignore[arg-type]
            if again is not None:
                return again
        setup = check_setup(bank.editions, edition, names, colours, first, characters, house)
        options = dict(setup.options)
        if request_id is not None:
            options.update({"request_id": request_id, REQUEST: bank.asked})
        awaited = bank.latest_game()
        game_id = write_game(bank, db, setup, options, request_id)
        if setup_presses == "first" and awaited is not None and _pending(db, awaited):
            charge_setup_presses(bank, db, awaited, game_id)
        return game_id


def _pending(db: sqlite3.Connection, game_id: int) -> bool:
    row = db.execute("SELECT json_extract(options, '$.setup') FROM games WHERE id = ?",
                     (game_id,)).fetchone()
    return row is not None and row[0] == PENDING


def charge_setup_presses(bank: Journal, db: sqlite3.Connection, awaited: int,
                         game_id: int) -> None:
    """The presses made while ``awaited`` waited for its setup (kept unassigned: nobody was
    named yet) go to the new game, each charged to who starts, as if pressed in their turn.
    A press the new game's block could not have made (another edition) stays uncharged with
    the setup it was made in (the journal keeps it)."""
    from companion.bank.moves import block  # block's moves need the bank's whole

    for row in db.execute("SELECT * FROM outcomes WHERE game_id = ? AND player_id IS NULL"
                          " ORDER BY id", (awaited,)).fetchall():
        facts = bank.facts(game_id)
        outcome = block.outcome_of(row)
        mode = facts.rules.find_mode(outcome.mode)
        params = json.loads(row["params"])
        if mode is None or mode.needs or not mode.could_draw(outcome, params) or \
                facts.current is None:
            continue
        db.execute("UPDATE outcomes SET game_id = ? WHERE id = ?", (game_id, row["id"]))
        block.apply(bank, db, facts, row["id"], facts.current, "new game")


def _replayed(bank: Journal, db: sqlite3.Connection, request_id: str) -> int | None:
    """The game an earlier try of this very start made; a key used for anything else: 409."""
    row = db.execute("SELECT id, options FROM games WHERE json_extract(options, '$.request_id')"
                     " = ?", (request_id,)).fetchone()
    used = db.execute("SELECT game_id, kind FROM moves WHERE request_id = ?",
                      (request_id,)).fetchone()
    if row is None and used is None:
        return None
    if row is None or json.loads(row["options"]).get(REQUEST) != bank.asked or (
            used is not None and used["game_id"] != row["id"]):
        raise Conflict(say("request id {id} was already used for another operation",
                           id=repr(request_id)))
    return int(row["id"])


def ensure_game(bank: Journal, edition: object, names: Sequence[object], *,
                pending: bool = False) -> int | None:
    """Start a game only if the bank has none (atomic: two starters make one game); a bank
    with a game is only read. ``pending``: the config named no players (a fresh install): the
    game is marked as awaiting the table's setup (the block works meanwhile)."""
    latest = bank.latest_game()
    if latest is not None and (pending or list(names) == [p.name for p in bank.players(latest)]):
        # The game's own names were checked when it was made, and a setup's stand-ins are
        # ours: nothing typed to check, so no ICU (8 MiB) at each boot.
        return None
    setup = check_setup(bank.editions, edition, list(names))
    if latest is not None:
        return None
    with bank.write() as db:
        if bank.latest_game() is not None:
            return None
        return write_game(bank, db, setup, {"setup": PENDING} if pending else {})


def write_game(bank: Journal, db: sqlite3.Connection, setup: Setup, options: dict[str, Any],
               request_id: str | None = None) -> int:
    """Write a checked setup (inside a write): the game, its players, the opening balances
    (one move), who starts; it becomes the game the table plays."""
    rules = setup.rules
    playing = bank.latest_game()  # the game a sticker's player name carries over from
    game_id = db.execute("INSERT INTO games (edition, created_at, options) VALUES (?, ?, ?)",
                         (rules.id, bank.clock(), json.dumps(options))).lastrowid
    assert game_id is not None
    ids = []
    for seat, name in enumerate(setup.names):
        picked = setup.characters[seat] if setup.characters is not None else ()
        ids.append(db.execute(
            "INSERT INTO players (game_id, seat, name, colour, characters) VALUES"
            " (?, ?, ?, ?, ?)", (game_id, seat, name, setup.colours[seat],
                                 json.dumps(list(picked)))).lastrowid)
    opening = rules.start_coins(len(setup.names))
    if opening > 0:
        move = bank.add_move(db, game_id, MoveKind.OPENING, note="opening balances",
                             source="new game", data={"coins": opening},
                             request_id=request_id)
        for pid in ids:
            bank.add_entry(db, game_id, move, BANK, pid, opening, EntryKind.OPENING,
                           "opening balance", "new game")
    db.execute("UPDATE games SET current_player = ? WHERE id = ?", (ids[setup.first], game_id))
    play(db, game_id)
    if playing is not None:  # a sticker stays with its player's name from one game to the next
        db.execute(
            "UPDATE players SET card_uid = (SELECT p.card_uid FROM players p WHERE"
            " p.game_id = ? AND lower(p.name) = lower(players.name)) WHERE game_id = ?",
            (playing, game_id))
    return int(game_id)


def untouched(bank: Journal) -> set[int]:
    """Games made at boot to await a setup that nothing was played in (no move but the
    opening balances, no press charged: one made during the setup and kept uncharged is no
    play) and that the table does not play now: the earlier games
    leave them out (they stay in the journal)."""
    playing = bank.latest_game()
    found = set()
    for row in bank.db.execute("SELECT id FROM games WHERE json_extract(options, '$.setup') = ?"
                               " AND NOT EXISTS (SELECT 1 FROM moves m WHERE m.game_id ="
                               " games.id AND m.kind != ?) AND NOT EXISTS (SELECT 1 FROM"
                               " outcomes o WHERE o.game_id = games.id AND o.player_id IS NOT"
                               " NULL)",
                               (PENDING, MoveKind.OPENING.value)):
        if row["id"] != playing:
            found.add(row["id"])
    return found


def last_players(bank: Journal) -> dict[str, Any] | None:
    """The players of the last game the table set up (the one played now, else the newest
    other; never a game awaiting its setup): to offer again in a setup."""
    with bank.snapshot():
        playing = bank.latest_game()
        rows = bank.db.execute("SELECT id, edition FROM games WHERE json_extract(options,"
                               " '$.setup') IS NOT ? ORDER BY id = ? DESC, id DESC LIMIT 1",
                               (PENDING, playing)).fetchone()
        if rows is None:
            return None
        return {"game": rows["id"], "edition": rows["edition"],
                "players": [{"name": p.name, "colour": p.colour, "seat": p.seat,
                             "characters": list(p.characters)}
                            for p in bank.players(rows["id"])]}


def play(db: sqlite3.Connection, game_id: int) -> None:
    """Make ``game_id`` the game the table plays."""
    db.execute("INSERT INTO table_state (id, current_game) VALUES (1, ?) ON CONFLICT (id)"
               " DO UPDATE SET current_game = excluded.current_game", (game_id,))
    # A phone link is for a player of the game being played: the others' end here (a game
    # resumed later gets new links from the banker).
    db.execute("DELETE FROM player_links WHERE player_id NOT IN"
               " (SELECT id FROM players WHERE game_id = ?)", (game_id,))
