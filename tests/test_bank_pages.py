"""The journal by pages (``Bank.move_page``): the same moves, in the same words, as the whole
game read at once, newest first below a move or oldest first after one."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.bank import DB_NAME, Bank
from companion.bank.bank import MAX_PAGE
from companion.core.ledger import BANK
from companion.core.outcomes import Kind, Outcome
from companion.exc import Refused
from tests.conftest import StepClock


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    bank = Bank(tmp_path / DB_NAME, clock=StepClock(1_800_000_000.0, 1))
    bank.new_game("celebration", ["Mario", "Luigi", "Peach"])
    mario, luigi, peach = (p.id for p in bank.players())
    for n in range(1, 8):
        bank.transfer(mario, luigi, n, note=f"rent {n}")
        bank.record_outcome(Outcome(Kind.COINS, coins=n % 6 + 1))
    bank.undo()
    bank.undo()
    bank.pass_go(peach)
    bank.undo()
    bank.bankruptcy(luigi, BANK)
    return bank


def test_pages_below_hold_the_whole_game_newest_first(bank: Bank) -> None:
    whole = [m.to_json() for m in bank.moves()]
    for size in (1, 2, 5, MAX_PAGE):
        paged, before = [], None
        while True:
            page = bank.move_page(before=before, limit=size)
            assert len(page.moves) <= size and page.latest == whole[-1]["id"]
            paged += [m.to_json() for m in page.moves]
            if page.next_before is None:
                break
            assert page.next_before == page.moves[-1].id
            before = page.next_before
        assert paged == whole[::-1], size  # an undo alone on its page says what it undid


def test_pages_after_catch_up_oldest_first(bank: Bank) -> None:
    whole = [m.to_json() for m in bank.moves()]
    caught, after = [], 0
    while True:
        page = bank.move_page(after=after, limit=3)
        caught += [m.to_json() for m in page.moves]
        if page.next_after is None:
            break
        after = page.next_after
    assert caught == whole
    assert bank.move_page(after=whole[-1]["id"]).moves == ()
    texts = [str(m.text) for m in bank.move_page(after=whole[-3]["id"]).moves]
    assert texts == ["Undo: Peach passed GO: +2", "Luigi is bankrupt to the Bank: 51 coins to "
                                                  "the Bank"]


def test_an_older_game_by_pages_and_a_game_with_no_moves(tmp_path: Path, bank: Bank) -> None:
    first = bank.latest_game()
    assert first is not None
    whole = bank.moves(first)
    bank.new_game("wiggly_worms", ["Ann", "Ben"])  # no coins: no opening move
    empty = bank.move_page()
    assert (empty.moves, empty.next_before, empty.latest) == ((), None, None)
    page = bank.move_page(first, limit=4)
    assert [m.id for m in page.moves] == [m.id for m in whole[::-1][:4]]


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"before": 0}, "before"), ({"before": -3}, "before"), ({"before": "7"}, "before"),
    ({"before": True}, "before"), ({"after": -1}, "after"), ({"after": 2.0}, "after"),
    ({"limit": 0}, "limit"), ({"limit": MAX_PAGE + 1}, "limit"), ({"limit": None}, "limit"),
    ({"before": 5, "after": 1}, "before or after"),
])
def test_bad_page_values_are_refused(bank: Bank, kwargs: dict[str, object],
                                     named: str) -> None:
    with pytest.raises(Refused, match=named):
        bank.move_page(**kwargs)  # type: ignore[arg-type]
