"""A game: started from a setup (its opening balances, one move), resumed, its options (Wiggly
Worms' variants) and its board as the table describes it (Gamer, Mario Kart)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.bank import board_file, ring, start
from companion.bank.facts import Facts
from companion.bank.kinds import Move
from companion.core.actions import FLAG, ID, TEXT, Action, Field
from companion.core.board_ring import Ring
from companion.core.ledger import MoveKind, is_id
from companion.core.state import MoveView
from companion.exc import Refused, shown
from companion.i18n.said import Said, say, say_n

if TYPE_CHECKING:
    from companion.bank.journal import Journal

OMITTED: Any = object()
"""A part of the board's description the request left out."""


def resume_game(bank: Journal, game: object) -> int:
    """Play an earlier game again (nothing of the one being played is lost: it can be
    resumed in turn)."""
    with bank.write() as db:
        gid = bank.game(game) if is_id(game) else None
        if gid is None:
            raise Refused(say("game must be a game id, got {value}", value=shown(game)))
        start.play(db, gid)
    return gid


def set_options(bank: Journal, *, simultaneous: object = None, dealt: object = None,
                game_id: int | None = None) -> dict[str, bool]:
    """Wiggly Worms' variants: everyone plays at once (time-up then hands the lever to
    the next player instead of the turn), and the worm cards dealt out evenly (each
    player then finds ``deck // players`` worms; only before any worm is found). Left
    out (None): as it was. Answers both."""
    if simultaneous is None and dealt is None:
        raise Refused(say("give simultaneous or dealt (true or false)"))
    for key, value in (("simultaneous", simultaneous), ("dealt", dealt)):
        if value is not None and not isinstance(value, bool):
            raise Refused(say("{key} must be true or false", key=key))
    with bank.write() as db:
        facts = bank.open_facts(game_id)
        name = Said(facts.rules.name)
        if simultaneous is not None and not facts.rules.at_once_quote:
            raise Refused(say("{edition} has no mode where everyone plays at once",
                              edition=name))
        if dealt is not None and not facts.rules.dealt_quote:
            raise Refused(say("{edition} has no variant where cards are dealt",
                              edition=name))
        if dealt is not None and dealt != bool(facts.options.get("dealt")) and \
                any(facts.worms.values()):
            raise Refused(say("worms have been found already: the cards are dealt (or "
                              "not) before the game starts"))
        options = {**facts.options, **{k: v for k, v in (("simultaneous", simultaneous),
                                                         ("dealt", dealt)) if v is not None}}
        db.execute("UPDATE games SET options = ? WHERE id = ?",
                   (json.dumps(options), facts.gid))
    return {"simultaneous": bool(options.get("simultaneous")),
            "dealt": bool(options.get("dealt"))}


def describe_board(bank: Journal, spaces: object = OMITTED, faces: object = OMITTED) -> Ring:
    """``PUT /api/board``: the board as the table describes it (its parts as given)."""
    board = {k: v for k, v in (("spaces", spaces), ("faces", faces)) if v is not OMITTED}
    return ring.describe_board(bank, board)


def import_board(bank: Journal, file_format: object = OMITTED, version: object = OMITTED,
                 edition: object = OMITTED, spaces: object = OMITTED,
                 faces: object = OMITTED) -> Ring:
    """``POST /api/board/file``: a board file (``companion board export``) read in whole."""
    given = {"format": file_format, "version": version, "edition": edition, "spaces": spaces,
             "faces": faces}
    return board_file.import_board(bank, {k: v for k, v in given.items() if v is not OMITTED})[1]


def _opening_text(move: MoveView, facts: Facts) -> str | Said:
    coins = sum(e.amount for e in move.entries)
    return say_n("Everyone starts with {n} coin", "Everyone starts with {n} coins",
                 move.data.get("coins", coins))


def _game(game: int, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    return {"game": game}, 201


def _resumed(game: int, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    return {"game": game}, 200


def _as_is(result: Any, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    return result, 200


def _ring(found: Ring, _fields: Mapping[str, Any]) -> tuple[Any, int]:
    return found.to_json(), 200


def _started(game: int, state: Any) -> Said:
    return say("game {game} started: {edition}, {players}", game=game,
               edition=Said(state.game.name), players=tuple(p.name for p in state.players))


def _resumed_said(game: int, state: Any) -> Said:
    return say("game {game} resumed: {edition}, {players}", game=game,
               edition=Said(state.game.name), players=tuple(p.name for p in state.players))


WRITES = (start.new_game, resume_game, set_options)
ACTIONS = (
    Action("new_game", start.new_game, route="POST /api/games", event="new game", ends=True,
           kind=MoveKind.OPENING, answer=_game, answers="Game", summary=_started,
           fields=(Field("edition", TEXT, default="celebration"),
                   Field("players", {"type": "array", "items": TEXT},
                         "the players' names in seat order", arg="names", required=True),
                   Field("colours", {"type": "array", "items": TEXT},
                         "one each, from the palette (GET /api/setup)"),
                   Field("first", {"oneOf": [{"type": "integer"}, TEXT]},
                         "who starts: a seat or a name"),
                   Field("characters", {"type": "array", "items": {"type": "array"}},
                         "each player's characters (Gamer, Mario Kart)"),
                   Field("house", {"type": "object"}, "house rules: free_parking_pot, "
                         "files"),
                   Field("setup_presses", {"enum": list(start.SETUP_PRESSES)},
                         "the presses made while a fresh install awaited this setup: "
                         "charged to who starts (first, the default) or kept uncharged")),
           doc="Start a game from a setup (GET /api/setup offers it): one write, one move; "
               "the new game becomes the one played, the others stay as they are."),
    Action("resume_game", resume_game, route="POST /api/games/{game}/resume",
           event="resume game", ends=True, keyed=False, answer=_resumed, answers="Game",
           summary=_resumed_said,
           fields=(Field("game", ID, "the game to play again", path=True),),
           doc="Play an earlier game again (the one being played stays as it is)."),
    Action("set_options", set_options, route="POST /api/options", event="options",
           keyed=False, answer=_as_is, answers="Options",
           fields=(Field("simultaneous", FLAG, "everyone plays at once"),
                   Field("dealt", FLAG, "the worm cards dealt out evenly")),
           doc="Wiggly Worms' variants: everyone at once (time-up hands the lever on), the "
               "cards dealt (only before any worm is found). Answers both."),
    Action("describe_board", describe_board, route="PUT /api/board", event="board",
           keyed=False, answer=_ring, answers="Ring",
           fields=(Field("spaces", {"type": "array", "items": {"type": "object"}},
                         "from GO clockwise: each {kind, name, points, price, rent}"),
                   Field("faces", {"type": "array", "items": TEXT},
                         "the Power-up die's six faces (ability ids), or []")),
           doc="Gamer, Mario Kart: the board as the table describes it once, kept for every "
               "later game of the edition; answered with its labels."),
    Action("import_board", import_board, route="POST /api/board/file", event="board",
           keyed=False, answer=_ring, answers="Ring",
           fields=(Field("format", TEXT, f'"{board_file.FORMAT}"', arg="file_format"),
                   Field("version", {"type": "integer"}, f"{board_file.VERSION}"),
                   Field("edition", TEXT, "the edition the board is of (gamer, mario_kart)"),
                   Field("spaces", {"type": "array", "items": {"type": "object"}},
                         "as PUT /api/board takes them"),
                   Field("faces", {"type": "array", "items": TEXT}, "as PUT /api/board")),
           doc="Gamer, Mario Kart: a board file (GET /api/board/file, `companion board "
               "export`) read in whole and kept for its edition, checked as PUT /api/board "
               "checks a board; a file refused changes nothing."),
)
"""A game's requests."""

MOVES = (Move(MoveKind.OPENING, _opening_text),)
