"""A described board as a file (issue 44, item 9b): ``companion board export`` and ``GET
/api/board/file`` write the same file; ``companion board import`` and ``POST /api/board/file``
read it on a second companion (its own data folder, its own daemon), which then has the same
board. A bad file (not JSON, another version, too few spaces, an unknown kind, another
edition) is refused in words, exit 2 or a 400 with a JSON error, and changes nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import BROWSER_TOKEN, run_companion
from tests.page_fit import pick_characters, write_config
from tests.test_board_ring import gamer_board
from tests.test_ring_page import put
from tests.test_tablet_browser import daemon, state_of


def request(base: str, path: str, body: bytes | None = None) -> tuple[int, Any, str]:
    """The API with the table token: its status, its body (JSON where it is) and its file
    name (a download's)."""
    req = urllib.request.Request(base + path.lstrip("/"), data=body, headers={
        "Authorization": f"Bearer {BROWSER_TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as reply:
            text = reply.read().decode()
            return reply.status, text, reply.headers.get("Content-Disposition", "")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), ""


def bad_files(good: dict[str, Any]) -> dict[str, tuple[bytes, str]]:
    """Each bad file, and the words that say what is wrong with it."""
    short = {**good, "spaces": good["spaces"][:5]}
    unknown = {**good, "spaces": [*good["spaces"][:3], {"kind": "lucky_dip", "name": ""},
                                  *good["spaces"][4:]]}
    return {
        "not JSON": (b"GO, Acorn Plains, ...", "not JSON"),
        "another version": (json.dumps({**good, "version": 2}).encode(),
                            "version 2 is not one this companion reads (it reads version 1)"),
        "too few spaces": (json.dumps(short).encode(),
                           "spaces must list the board's 8 to 64 spaces, from GO"),
        "an unknown kind": (json.dumps(unknown).encode(),
                            "space 3's kind 'lucky_dip' is not one of this board's"),
        "another edition": (json.dumps({**good, "edition": "celebration"}).encode(),
                            "has no board to describe"),
        "not a board file": (json.dumps({"spaces": good["spaces"]}).encode(),
                             "not a board file"),
    }


def test_a_board_exported_imports_on_a_second_companion_and_a_bad_file_changes_nothing(
        tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    first_config, second_config = write_config(first, "gamer"), write_config(second, "gamer")
    board = gamer_board()
    board["spaces"][1].update(points=1, price=1, rent=1)
    with daemon(first_config) as base:
        pick_characters(base)
        status, _, _ = request(base, "/api/board/file")
        assert status == 400  # nothing described yet: nothing to export
        described = put(base, "/api/board", board)
        status, served, named = request(base, "/api/board/file")
        assert status == 200 and 'filename="question-block-board-gamer.json"' in named
        out = tmp_path / "board.json"
        done = run_companion("board", "export", str(out), "--config", str(first_config))
        assert done.returncode == 0, done.stderr
    assert out.read_text() == served  # the page's download is the command's file
    data = json.loads(served)
    assert data == {"format": "question-block-board", "version": 1, "edition": "gamer",
                    "spaces": described["spaces"], "faces": described["faces"]}
    with daemon(second_config) as base:
        assert state_of(base)["ring"] is None
        for what, (body, words) in bad_files(data).items():
            bad = tmp_path / "bad.json"
            bad.write_bytes(body)
            done = run_companion("board", "import", str(bad), "--config", str(second_config))
            assert done.returncode == 2, (what, done.stderr)
            assert words in done.stderr and "Traceback" not in done.stderr, (what, done.stderr)
            assert done.stdout == ""
            status, answer, _ = request(base, "/api/board/file", body)
            assert 400 <= status < 500 and isinstance(answer, dict), (what, answer)
            assert answer["error"], (what, answer)
            if what != "not JSON":
                assert words.lower() in answer["error"].lower(), (what, answer)
            assert state_of(base)["ring"] is None, what  # nothing changed
        done = run_companion("board", "import", str(out), "--config", str(second_config))
        assert done.returncode == 0, done.stderr
        assert "Monopoly Gamer's board: 16 spaces" in done.stdout
        ring = state_of(base)["ring"]
        assert ring["spaces"] == described["spaces"] and ring["faces"] == described["faces"]
        assert ring["labels"] == described["labels"]
        # The same file through the API (the page's import): the same board, answered.
        status, answer, _ = request(base, "/api/board/file", out.read_bytes())
        assert status == 200 and json.loads(answer)["labels"] == described["labels"]


def test_board_export_says_why_it_has_nothing_to_write(tmp_path: Path) -> None:
    done = run_companion("board", "export", "--config", str(write_config(tmp_path, "gamer")))
    assert done.returncode == 1 and "no bank at" in done.stderr
    missing = run_companion("board", "import", str(tmp_path / "nowhere.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_the_rulebooks_name_the_first_property_and_nothing_else_of_the_order() -> None:
    """What the describe editor fills in (item 9c): the first Property's name, from the line
    that says so; the rest of the board's order is printed on the board only."""
    from companion.core.editions import editions

    for edition, name in (("gamer", "Acorn Plains"), ("mario_kart", "Mario Kart Stadium")):
        board = editions()[edition].board
        assert board is not None and board.first_property == name
        assert board.first_property_quote == (
            "Properties are set up on the board from least expensive to most expensive, "
            f"starting with {name}.",)
        assert board.to_json()["first_property"]["name"] == name
    assert editions()["celebration"].board is None or \
        not editions()["celebration"].board.first_property
