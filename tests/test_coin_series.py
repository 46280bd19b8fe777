"""Each player's coins over a game (the end-of-game chart's series): the pure function, exact,
then the same read from a real bank's journal, in the export and from the API."""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
import pytest

from companion.bank import Bank
from companion.bank.export import export_journal, game_coins
from companion.core.coin_series import CoinPoint, coin_series
from companion.core.ledger import BANK, Entry, EntryKind
from tests.conftest import StepClock
from tests.test_web_api import AUTH, call, serving

A, B, C = 11, 12, 13


def entry(n: int, payer: object, payee: object, amount: int, move: int | None,
          kind: EntryKind = EntryKind.TRANSFER, space: str | None = None) -> Entry:
    return Entry(n, 1, 100.0 + n, payer, payee, amount, kind,  # type: ignore[arg-type]
                 move_id=move, space=space)


def test_the_opening_is_the_start_and_each_move_that_changes_coins_is_a_point() -> None:
    entries = [entry(1, BANK, A, 30, 1, EntryKind.OPENING),
               entry(2, BANK, B, 30, 1, EntryKind.OPENING),
               entry(3, A, B, 6, 2),                       # a payment
               entry(4, A, BANK, 2, 3, space="Thwomp"),  # A drops 2 on a pile
               entry(5, BANK, B, 3, 4, space="Thwomp"),   # the Board's pile: B scoops 3
               entry(6, B, A, 10, 5), entry(7, B, BANK, 5, 5)]  # one move, two lines
    series = coin_series(1, [A, B], entries)
    assert series.points == (
        CoinPoint(None, 102.0, (30, 30)),
        CoinPoint(2, 103.0, (24, 36)),
        CoinPoint(3, 104.0, (22, 36)),
        CoinPoint(4, 105.0, (22, 39)),
        CoinPoint(5, 107.0, (32, 24)))  # the move's two lines are one step
    a, b = series.lines()
    assert (a.start, a.high, a.low, a.end) == (30, 32, 22, 32)
    assert (b.start, b.high, b.low, b.end) == (30, 39, 24, 24)
    assert series.to_json() == {
        "game": 1, "moves": [None, 2, 3, 4, 5], "at": [102.0, 103.0, 104.0, 105.0, 107.0],
        "players": [
            {"player": A, "coins": [30, 24, 22, 22, 32], "start": 30, "high": 32, "low": 22,
             "end": 32},
            {"player": B, "coins": [30, 36, 36, 39, 24], "start": 30, "high": 39, "low": 24,
             "end": 24}]}


def test_a_move_that_moves_no_players_coins_adds_no_point_and_an_undo_does() -> None:
    entries = [entry(1, BANK, A, 10, 1, EntryKind.OPENING),
               entry(2, BANK, B, 10, 1, EntryKind.OPENING),
               entry(3, A, B, 4, 2),
               entry(4, B, A, 4, 3, EntryKind.UNDO),       # the payment undone
               entry(5, BANK, BANK, 1, 4, space="GO")]     # nothing a player holds
    series = coin_series(1, [A, B], entries)
    assert [p.coins for p in series.points] == [(10, 10), (6, 14), (10, 10)]
    assert [p.move for p in series.points] == [None, 2, 3]


def test_a_game_with_no_coins_has_one_point_of_zeros_and_a_game_without_opening_starts_at_0(
        ) -> None:
    assert coin_series(5, [A, B, C], []).points == (CoinPoint(None, None, (0, 0, 0)),)
    series = coin_series(5, [A, B], [entry(1, BANK, A, 5, 1, EntryKind.BLOCK)])
    assert [p.coins for p in series.points] == [(0, 0), (5, 0)]
    loose = coin_series(5, [A, B], [entry(1, BANK, A, 5, None), entry(2, BANK, A, 1, None)])
    assert [p.coins for p in loose.points] == [(0, 0), (5, 0), (6, 0)]  # a line a step


def test_a_bankruptcy_goes_to_zero_and_the_creditor_gets_it_in_one_step() -> None:
    entries = [entry(1, BANK, A, 5, 1, EntryKind.OPENING),
               entry(2, BANK, B, 5, 1, EntryKind.OPENING),
               entry(3, A, B, 8, 2),                       # A pays 8 with 5: -3
               entry(4, B, A, 3, 3, EntryKind.BANKRUPTCY)]  # gives back what wasn't there
    series = coin_series(1, [A, B], entries)
    assert [p.coins for p in series.points] == [(5, 5), (-3, 13), (0, 10)]
    assert series.lines()[0].low == -3


# -- from a real bank -------------------------------------------------------------------------


@pytest.fixture
def bank(tmp_path: Path) -> Bank:
    b = Bank(tmp_path / "bank.sqlite3", clock=StepClock(1_800_000_000.0, 1))
    b.new_game("celebration", ["Mario", "Luigi", "Peach"])
    return b


def test_the_series_of_a_real_game_ends_at_its_balances_and_is_in_the_json_export(
        bank: Bank) -> None:
    mario, luigi, peach = (p.id for p in bank.players())
    bank.transfer(mario, luigi, 6)
    bank.transfer(BANK, peach, 4)
    bank.undo()
    bank.transfer(luigi, BANK, 1)
    series = game_coins(bank)
    assert [p.coins for p in series.points] == [
        (30, 30, 30), (24, 36, 30), (24, 36, 34), (24, 36, 30), (24, 35, 30)]
    assert dict(zip(series.players, series.points[-1].coins, strict=True)) == bank.balances()
    doc = json.loads(export_journal(bank, None, "json"))
    assert doc["coins"] == series.to_json()
    assert [p["player"] for p in doc["coins"]["players"]] == [mario, luigi, peach]
    assert game_coins(bank, bank.latest_game()) == series
    bank.close()


async def test_the_api_serves_a_games_coins_to_anyone_and_refuses_bad_input(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        game = state["game"]["id"]
        assert (await call(s, server, "POST", "/api/transfers",
                           {"from": mario, "to": luigi, "amount": 4}, headers=AUTH))[0] == 201
        status, coins = await call(s, server, "GET", f"/api/games/{game}/coins")  # no token
        assert status == 200 and coins["game"] == game
        assert [(p["player"], p["start"], p["end"]) for p in coins["players"]] == [
            (mario, 30, 26), (luigi, 30, 34), (peach, 30, 30)]
        assert len(coins["moves"]) == len(coins["at"]) == 2 and coins["moves"][0] is None
        _, state = await call(s, server, "GET", "/api/state")
        before = state["version"]
        for path, words in ((f"/api/games/{game}/coins?format=csv", "unknown parameter"),
                            ("/api/games/abc/coins", "game must be a game id"),
                            ("/api/games/0/coins", "game must be a game id"),
                            ("/api/games/999/coins", "unknown game")):
            status, reply = await call(s, server, "GET", path)
            assert status == 400 and words in reply["error"], (path, reply)
        _, state = await call(s, server, "GET", "/api/state")
        assert state["version"] == before  # reading changed nothing


async def test_without_the_token_the_coins_are_read_at_the_journals_pace(
        tmp_path: Path) -> None:
    from companion.web.api import JOURNAL_BURST

    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        path = f"/api/games/{state['game']['id']}/coins"
        for _ in range(JOURNAL_BURST):
            assert (await call(s, server, "GET", path))[0] == 200
        async with s.get(f"{server.url}{path.lstrip('/')}") as reply:
            assert reply.status == 429 and reply.headers["Retry-After"]
            assert "too many journal reads" in (await reply.json())["error"]
        assert (await call(s, server, "GET", path, headers=AUTH))[0] == 200  # the banker's
