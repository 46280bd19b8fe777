"""The example of a move declared once (issue 42): a note in the history is one module
(:mod:`companion.bank.moves.note`) and one ``MoveKind``; its bank method, its dispatch, its
route with its validation and its place in the API's description are made from that module."""

from __future__ import annotations

from pathlib import Path

from companion.bank.moves import ACTIONS
from tests.conftest import ROOT
from tests.test_game_api import game, refused


async def test_a_note_is_written_undone_and_redone_through_its_own_route(
        tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Ann", "Ben")) as (api, _app):
        ann, _ben = await api.ids()
        wrote = await api.post("/api/notes", {"text": "Ann trades her Get Out of Jail Free "
                                                      "card to Ben", "player": ann})
        assert wrote["kind"] == "note" and wrote["entries"] == []
        assert wrote["text"] == "Ann: Ann trades her Get Out of Jail Free card to Ben"
        state = await api.state()
        assert state["undo"]["text"] == wrote["text"]
        undone = await api.post("/api/undo", {})
        assert undone["undid"]["id"] == wrote["id"]
        redone = await api.post("/api/redo", {"move": undone["move"]["id"]})
        assert redone["move"]["kind"] == "note"
        await refused(api, "/api/notes", {"text": ""}, 400, "text is required")
        await refused(api, "/api/notes", {"text": "x" * 201}, 400, "at most 200")
        await refused(api, "/api/notes", {"text": "hi", "colour": "red"}, 400,
                      "unknown field(s): colour")
        await refused(api, "/api/notes", {"text": "hi", "player": 999}, 400,
                      "unknown player 999")
        doc = await api.get("/api/openapi.json")
        assert doc["paths"]["/api/notes"]["post"]["operationId"] == "write_note"


def test_no_file_but_its_module_and_its_kind_names_the_note() -> None:
    """Added as one module and one MoveKind member: no other source file of the package
    names it (its route, bank method, dispatch and description come from the module)."""
    assert ACTIONS["write_note"].route == "POST /api/notes"
    naming = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "companion").rglob("*.py")
                    if any(word in path.read_text(encoding="utf-8")
                           for word in ("write_note", "/api/notes", "MoveKind.NOTE",
                                        'NOTE = "note"')))
    assert naming == ["companion/bank/moves/note.py", "companion/core/ledger.py"], naming
