"""Coins on the board (Gamer, Mario Kart): a player drops coins on a space, anyone who passes
or lands there scoops up the pile. On a real daemon through the API: what a player has at most,
a player in Jail on Just Visiting, one space one pile whatever its spelling, undo and redo, and
every coin accounted for (players + the Board + what the Bank holds = what was issued)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from companion.bank import Bank
from companion.bank.store import SCHEMA_VERSION
from companion.core.editions import editions
from tests.test_game_api import AUTH, game, refused


def coins(state: dict[str, Any]) -> list[int]:
    return [p["balance"] for p in state["players"]]


def piles(state: dict[str, Any]) -> dict[str, int]:
    return {pile["space"]: pile["coins"] for pile in state["board"]}


async def conserved(api: Any) -> None:
    """Players' coins + the Board's piles = what the Bank has paid out (net), from the
    journal's lines."""
    state = await api.state()
    entries = (await api.get("/api/journal"))["entries"]
    bank_out = sum(e["amount"] for e in entries if e["from"] == "bank") - sum(
        e["amount"] for e in entries if e["to"] == "bank")
    assert sum(coins(state)) + sum(piles(state).values()) == bank_out


async def test_drops_and_scoops_move_coins_through_the_board(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach", "Yoshi")) as (api, _app):
        mario, peach, yoshi = await api.ids()
        assert coins(await api.state()) == [10, 10, 10] and piles(await api.state()) == {}
        rules = await api.get("/api/rules")
        assert rules["board"]["spaces"] == list(editions()["gamer"].board.spaces)
        # A Red Shell: Peach drops 3 on her space (typed as printed on the board).
        drop = await api.post("/api/drops", {"player": peach, "space": "Bowser's Castle",
                                             "coins": 3})
        assert drop["kind"] == "drop" and drop["text"] == "Peach drops 3 coins on Bowser's Castle"
        assert drop["entries"][0]["to"] == "board" and drop["entries"][0]["space"] == \
            "Bowser's Castle"
        # POW: everyone else drops 1; Yoshi on the same space, spelled otherwise: one pile.
        await api.post("/api/drops", {"player": yoshi, "space": "  bowser's   castle ",
                                      "coins": 1})
        await api.post("/api/drops", {"player": mario, "space": "coin block", "coins": 1})
        state = await api.state()
        assert piles(state) == {"Bowser's Castle": 4, "Coin Block": 1}  # the rules' spelling
        assert coins(state) == [9, 7, 9]
        await conserved(api)
        # Mario passes Bowser's Castle: he scoops up the whole pile.
        scoop = await api.post("/api/scoops", {"player": mario, "space": "Bowser's Castle"})
        assert scoop["text"] == "Mario scoops up 4 coins from Bowser's Castle"
        state = await api.state()
        assert piles(state) == {"Coin Block": 1} and coins(state) == [13, 7, 9]
        await refused(api, "/api/scoops", {"player": mario, "space": "Bowser's Castle"}, 400,
                      "there are no coins on Bowser's Castle")
        # Undo takes the scoop back whole; redo brings it again.
        undone = await api.post("/api/undo")
        state = await api.state()
        assert piles(state)["Bowser's Castle"] == 4 and coins(state) == [9, 7, 9]
        await api.post("/api/redo", {"move": undone["move"]["id"]})
        assert piles(await api.state()) == {"Coin Block": 1}
        await conserved(api)


async def test_a_player_drops_what_they_have_and_no_more(tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Toad", "Daisy")) as (api, _app):
        toad, daisy = await api.ids()
        assert coins(await api.state()) == [20, 20]  # two players: 20 each
        drop = await api.post("/api/drops", {"player": daisy, "space": "Thwomp", "coins": 25})
        assert drop["data"]["message"] == "Daisy had only 20 of 25 coins: dropped 20"
        assert drop["text"] == "Daisy drops 20 coins on Thwomp (had only 20 of 25)"
        nothing = await api.post("/api/drops", {"player": daisy, "space": "Thwomp", "coins": 2})
        assert nothing["entries"] == [] and "has no coins" in nothing["text"]
        state = await api.state()
        assert coins(state) == [20, 0] and piles(state) == {"Thwomp": 20}
        await conserved(api)
        del toad


async def test_a_player_in_jail_drops_on_just_visiting(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, _peach = await api.ids()
        await api.post("/api/jail", {"player": mario, "in_jail": True})
        await refused(api, "/api/drops", {"player": mario, "space": "Warp Pipe", "coins": 1},
                      400, "a player in Jail drops coins on Just Visiting")
        await api.post("/api/drops", {"player": mario, "space": "just visiting", "coins": 2})
        assert piles(await api.state()) == {"Just Visiting": 2}


async def test_bad_drops_and_scoops_are_refused_and_change_nothing(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, _peach = await api.ids()
        for body, words in (({"space": "GO", "coins": 1}, "player is required"),
                            ({"player": mario, "coins": 1}, "where does Mario stand"),
                            ({"player": mario, "space": "GO"}, "coins is required"),
                            ({"player": mario, "space": "", "coins": 1}, "space must be"),
                            ({"player": mario, "space": "x" * 41, "coins": 1},
                             "1-40 printable"),
                            ({"player": mario, "space": 7, "coins": 1}, "space must be"),
                            ({"player": mario, "space": "GO\u202e", "coins": 1},
                             "printable"),
                            ({"player": mario, "space": "GO", "coins": 0}, "between 1"),
                            ({"player": mario, "space": "GO", "coins": "3"}, "whole number"),
                            ({"player": 999, "space": "GO", "coins": 1}, "unknown player"),
                            ({"player": mario, "space": "GO", "coins": 1, "why": "shell"},
                             "unknown field(s): why")):
            await refused(api, "/api/drops", body, 400, words)
        await refused(api, "/api/scoops", {"player": mario}, 400, "space is required")
        await refused(api, "/api/scoops", {"player": mario, "space": "GO"}, 400,
                      "there are no coins on GO")
        await api.post("/api/games", {"edition": "celebration", "players": ["A", "B"]})
        a, _b = await api.ids()
        await refused(api, "/api/drops", {"player": a, "space": "GO", "coins": 1}, 400,
                      "has no coins on the board")


def test_an_older_bank_gets_the_board_column_in_place(tmp_path: Path) -> None:
    """Schema 7 adds the board's column to a bank made before it; its lines stay the Bank's."""
    path = tmp_path / "bank.sqlite3"
    bank = Bank(path)
    bank.new_game("gamer", ["Mario", "Peach"])
    bank.close()
    db = sqlite3.connect(path)
    db.executescript("DROP INDEX entries_on_board; ALTER TABLE entries DROP COLUMN space;"
                     "ALTER TABLE players DROP COLUMN characters; DROP TABLE contest_cards;"
                     "PRAGMA user_version = 6;")
    db.close()
    bank = Bank(path)
    mario = bank.players()[0].id
    bank.drop(mario, "GO", 2)
    assert bank.board() == {"GO": 2} and bank.balances()[mario] == 20 - 2  # two players: 20
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    bank.close()


def test_the_board_in_the_export_and_on_the_screens_coin_log(tmp_path: Path) -> None:
    from companion.bank.export import export_journal
    from companion.display.scene import log_lines

    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("mario_kart", ["Toad", "Daisy"])
    toad, daisy = (p.id for p in bank.players())
    bank.drop(toad, "Thwomp", 2)
    bank.scoop(daisy, "thwomp")
    csv = export_journal(bank, None, "csv")
    assert "Toad,the Board: Thwomp,2,drop" in csv and "the Board: Thwomp,Daisy,2,scoop" in csv
    state = bank.state()
    words = [(line.who, line.delta, line.why) for recent in state.recent[:2]
             for line in log_lines(recent, state)]
    assert words == [("Daisy", 2, "from Thwomp"), ("Toad", -2, "on Thwomp")]
    bank.close()


def test_the_piles_kept_with_every_line_are_the_journals_sum(tmp_path: Path) -> None:
    """Drops, scoops, undos and redos at random: the piles the bank keeps (read on every
    state) are always what the journal's lines add up to, and a pile emptied and filled again
    is the newest."""
    import random

    from companion.exc import CompanionError

    rng = random.Random(16)
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("gamer", ["Mario", "Peach", "Yoshi"])
    ids = [p.id for p in bank.players()]
    spaces = ["GO", "Thwomp", "Coin Block", "Bowser's Castle"]
    last_undo = None
    for _ in range(400):
        roll = rng.random()
        try:
            if roll < 0.45:
                bank.drop(rng.choice(ids), rng.choice(spaces), rng.randint(1, 4))
            elif roll < 0.7:
                bank.scoop(rng.choice(ids), rng.choice(spaces))
            elif roll < 0.85:
                last_undo = bank.undo().move.id
            elif last_undo is not None:
                bank.redo(last_undo)
                last_undo = None
        except CompanionError:
            pass  # an empty pile, nothing to redo: refused, nothing written
        assert bank.board() == bank.board_summed()
        total = sum(bank.balances().values()) + sum(bank.board().values())
        assert total == 3 * 10  # every coin is a player's or on the board (no Bank moves)
    richest = max(ids, key=lambda p: bank.balances()[p])
    bank.drop(richest, "Warp Pipe", 1)
    assert list(bank.board())[-1] == "Warp Pipe"  # the newest pile last
    first = next(iter(bank.board()))
    bank.scoop(richest, first)
    bank.drop(richest, first, 1)  # emptied and filled again: the newest now
    assert list(bank.board())[-1] == first
    bank.close()


async def test_a_retried_drop_or_scoop_is_written_once(tmp_path: Path) -> None:
    """The same Idempotency-Key, the same request (a space typed in any case): one move; the
    key for another request: 400."""
    import json

    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, peach = await api.ids()

        async def post(path: str, body: dict[str, Any], key: str) -> tuple[int, Any]:
            async with api.session.post(api.base + path, data=json.dumps(body), headers={
                    **AUTH, "Idempotency-Key": key}) as reply:
                return reply.status, await reply.json()

        body = {"player": mario, "space": "  warp pipe ", "coins": 2}
        first = await post("/api/drops", body, "drop-1")
        again = await post("/api/drops", body, "drop-1")
        assert first[0] == again[0] == 201 and first[1]["id"] == again[1]["id"]
        assert piles(await api.state()) == {"Warp Pipe": 2}
        other = await post("/api/drops", {**body, "coins": 3}, "drop-1")
        assert other[0] == 409 and "already used" in other[1]["error"]
        scoop = {"player": peach, "space": "WARP PIPE"}
        await api.post("/api/current", {"player": peach})  # her roll passes the pile
        assert (await post("/api/scoops", scoop, "scoop-1"))[1]["id"] == \
            (await post("/api/scoops", scoop, "scoop-1"))[1]["id"]
        assert coins(await api.state()) == [20 - 2, 20 + 2] and piles(await api.state()) == {}
