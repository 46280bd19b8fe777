"""The journal's JSON kept per move (issue 43, item 9): the same bytes as the journal rendered
anew, and a read after a write sees it (a new move, an undo, a change of the game's facts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.bank import DB_NAME, Bank
from companion.bank.rendered import RenderedJournal
from companion.core.ledger import BANK
from companion.core.outcomes import Kind, Outcome
from tests.conftest import StepClock


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    bank = Bank(tmp_path / DB_NAME, clock=StepClock(1_800_000_000.0, 1))
    bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
    mario, luigi, peach = (p.id for p in bank.players())
    for n in range(1, 30):
        bank.transfer(mario, luigi, n, note=f"rent {n}")
        bank.record_outcome(Outcome(Kind.COINS, coins=n % 6 + 1))
    bank.undo()
    bank.undo()
    bank.pass_go(peach)
    bank.undo()
    bank.transfer(BANK, luigi, 4, note="a refund")
    return bank


def fresh_page(bank: Bank, **query: Any) -> bytes:
    """What ``GET /api/journal`` sent for a page before the moves' JSON was kept."""
    return json.dumps(bank.move_page(**query).to_json()).encode()


def fresh_whole(bank: Bank, game: int | None = None) -> bytes:
    return json.dumps({"game": game, "entries": bank.journal_json(game),
                       "moves": [m.to_json() for m in bank.moves(game)]}).encode()


PAGES: list[dict[str, Any]] = [{}, {"limit": 1}, {"limit": 7}, {"limit": 500},
                               {"after": 0, "limit": 4}, {"after": 50}]


def test_kept_json_is_byte_for_byte_the_journal_rendered_anew(bank: Bank) -> None:
    rendered = RenderedJournal()
    latest = bank.move_page(limit=1).latest
    assert latest is not None
    queries = [*PAGES, {"before": latest - 3, "limit": 5}, {"before": latest, "limit": 2}]
    for _ in range(2):  # rendered, then read again from what was kept
        for query in queries:
            assert rendered.page(bank, **query) == fresh_page(bank, **query), query
        assert b"".join(rendered.whole(bank)) == fresh_whole(bank)
    gid = bank.latest_game()
    assert b"".join(rendered.whole(bank, gid)) == fresh_whole(bank, gid)
    json.loads(b"".join(rendered.whole(bank)))  # and it is JSON


def test_a_read_after_a_write_sees_it(bank: Bank) -> None:
    rendered = RenderedJournal()
    mario, luigi, _ = (p.id for p in bank.players())
    rendered.page(bank, limit=500)
    rendered.whole(bank)
    done = rendered.rendered
    page = rendered.page(bank, limit=500)
    assert page == fresh_page(bank, limit=500)
    undos = sum(move["kind"] == "undo" for move in json.loads(page)["moves"])
    assert undos == 3 and rendered.rendered == done + undos  # kept, but for the undos
    done = rendered.rendered

    bank.transfer(mario, luigi, 3, note="late rent")
    page = rendered.page(bank, limit=500)
    assert page == fresh_page(bank, limit=500) and b"late rent" in page
    assert b"".join(rendered.whole(bank)) == fresh_whole(bank)
    assert rendered.rendered == done + 1 + undos  # the new move (and the undos) only

    bank.undo()  # an earlier move, kept, is undone now: its undone_by changes
    page = rendered.page(bank, limit=500)
    assert page == fresh_page(bank, limit=500)
    late = next(m for m in json.loads(page)["moves"] if m["note"] == "late rent")
    assert late["undone_by"] is not None
    assert b"".join(rendered.whole(bank)) == fresh_whole(bank)

    for change in (bank.next_player, lambda: bank.bankruptcy(luigi, mario)):
        done = rendered.rendered  # the game's facts change: every move in words again
        change()
        page = rendered.page(bank, limit=500)
        assert page == fresh_page(bank, limit=500)
        assert b"".join(rendered.whole(bank)) == fresh_whole(bank)
        assert rendered.rendered > done + 1


def test_a_long_game_keeps_only_the_newest_moves(bank: Bank) -> None:
    rendered = RenderedJournal(most=10)
    for _ in range(2):
        assert rendered.page(bank, limit=500) == fresh_page(bank, limit=500)
        assert b"".join(rendered.whole(bank)) == fresh_whole(bank)


def test_a_read_with_nothing_written_since_is_answered_as_last_time(bank: Bank,
                                                                     tmp_path: Path) -> None:
    reader = Bank(tmp_path / DB_NAME, readonly=True)  # the reading thread's connection
    mario, luigi, _ = (p.id for p in bank.players())
    try:
        rendered = RenderedJournal()
        page, whole = rendered.page(reader, limit=500), rendered.whole(reader)
        done = rendered.rendered
        assert rendered.page(reader, limit=500) == page and rendered.whole(reader) == whole
        assert rendered.repeated == 2 and rendered.rendered == done  # nothing looked up again
        assert rendered.page(reader, limit=5) == fresh_page(reader, limit=5)  # another read
        bank.transfer(mario, luigi, 3, note="late rent")  # the writer's connection
        page = rendered.page(reader, limit=500)
        assert page == fresh_page(reader, limit=500) and b"late rent" in page
        assert b"".join(rendered.whole(reader)) == fresh_whole(reader)
        assert rendered.repeated == 2
    finally:
        reader.close()
    rendered = RenderedJournal()  # on the writer's own connection (the reader is down): its
    rendered.page(bank, limit=500)  # writes do not change what it sees of the file, so
    bank.transfer(mario, luigi, 4, note="later rent")  # it never answers as last time
    assert b"later rent" in rendered.page(bank, limit=500) and rendered.repeated == 0
