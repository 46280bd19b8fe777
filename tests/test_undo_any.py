"""Undo any move, not only the latest: from the history, a move that nothing later depends on is
reversed by a compensating move (the journal stays append-only); one that a later move depends
on is refused (409) naming it, ``blocked_by`` listing them all, and nothing changes. On a real
daemon with its bank file, through the tablet's API on a real aiohttp server; the property on a
real bank file."""

from __future__ import annotations

import random
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.bank import Bank
from companion.core.ledger import BANK
from companion.exc import Blocked, Conflict
from tests.test_game_api import AUTH, Api, game


def coins(state: dict[str, Any]) -> list[int]:
    return [p["balance"] for p in state["players"]]


def rows(data_dir: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the journal's two tables, as the file holds them."""
    db = sqlite3.connect(data_dir / "bank.sqlite3")
    try:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
                for table in ("moves", "entries")}
    finally:
        db.close()


async def moves(api: Api) -> list[dict[str, Any]]:
    """The game's moves, oldest first (the history's pages, read back to the start)."""
    return list(reversed((await api.get("/api/journal?limit=500"))["moves"]))


async def last_move(api: Api) -> dict[str, Any]:
    return (await moves(api))[-1]


async def pay(api: Api, payer: object, payee: object, amount: int) -> int:
    """A payment; its move's id."""
    paid = await api.post("/api/transfers", {"from": payer, "to": payee, "amount": amount})
    return int(paid["move"])


async def can_undo(api: Api, move: object, status: int = 200) -> dict[str, Any]:
    async with api.session.get(f"{api.base}/api/moves/{move}/undo", headers=AUTH) as reply:
        assert reply.status == status, await reply.text()
        return await reply.json()  # type: ignore[no-any-return]


async def blocked(api: Api, data_dir: Path, move: int, by: list[int], *words: str) -> None:
    """Undo of ``move`` is refused (409) naming the nearest of ``by``, and changes nothing;
    the light read says the same."""
    before, kept = await api.state(), rows(data_dir)
    reply = await api.post("/api/undo", {"move": move}, status=409)
    assert reply["blocked_by"] == by, reply
    for word in words:
        assert word in reply["error"], (word, reply["error"])
    assert reply["error_said"]["m"].startswith("can't undo")
    assert await api.state() == before and rows(data_dir) == kept
    check = await can_undo(api, move)
    assert check == {"move": move, "undoable": False, "blocked_by": by,
                     "error": reply["error"], "error_said": reply["error_said"]}


async def undone(api: Api, move: int) -> dict[str, Any]:
    """Undo of ``move`` goes through (the light read said it would)."""
    assert (await can_undo(api, move))["undoable"] is True
    reply = await api.post("/api/undo", {"move": move}, status=201)
    assert reply["undid"]["id"] == move and reply["move"]["undoes"] == move
    return reply


# -- a payment from the history, later ones standing -------------------------------------------


async def test_a_payment_three_moves_back_is_undone_and_the_later_ones_stand(
        tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach", "Yoshi")) as (api, _):
        mario, luigi, peach, yoshi = await api.ids()
        start = coins(await api.state())
        mistake = await pay(api, mario, luigi, 5)
        await pay(api, peach, yoshi, 3)
        await pay(api, yoshi, BANK, 2)
        await pay(api, luigi, peach, 1)
        seen = await api.state()
        assert seen["undo"]["text"] == "Luigi pays Peach 1"  # the button: the latest
        kept = rows(tmp_path)
        reply = await undone(api, mistake)
        assert reply["undid"]["text"] == "Mario pays Luigi 5"
        assert reply["move"]["text"] == "Undo: Mario pays Luigi 5"
        state = await api.state()
        m, lu, p, y = start
        assert coins(state) == [m, lu - 1, p - 3 + 1, y + 3 - 2]  # as if never paid
        assert state["undo"]["text"] == "Luigi pays Peach 1"  # the latest still
        assert state["redo"]["text"] == "Mario pays Luigi 5"
        # Append-only: every earlier row as it was, one move and one line more.
        after = rows(tmp_path)
        assert after["moves"][:len(kept["moves"])] == kept["moves"]
        assert after["entries"][:len(kept["entries"])] == kept["entries"]
        assert (len(after["moves"]), len(after["entries"])) == (
            len(kept["moves"]) + 1, len(kept["entries"]) + 1)
        # The history strikes the old move through; the undo says what it undid.
        history = {m["id"]: m for m in await moves(api)}
        assert history[mistake]["undone_by"] == reply["move"]["id"]
        assert history[reply["move"]["id"]]["text"] == "Undo: Mario pays Luigi 5"
        assert all(m["undone_by"] is None for i, m in history.items() if i > mistake)
        journal = await api.get("/api/journal")
        assert sum(e["amount"] if e["to"] == mario else -e["amount"] if e["from"] == mario
                   else 0 for e in journal["entries"]) == m
        # The later payments can each be undone too; the history offers each.
        for move in history:
            if move > mistake and history[move]["kind"] == "transfer":
                assert (await can_undo(api, move))["undoable"] is True


# -- what depends on what ----------------------------------------------------------------------


async def test_a_turn_passed_after_a_turn_blocks_it_and_a_payment_does_not(
        tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, _):
        mario, luigi, peach = await api.ids()
        await api.post("/api/next", {"from": mario})
        first = (await last_move(api))["id"]
        rent = await pay(api, luigi, peach, 4)
        await api.post("/api/next", {"from": luigi})
        second = (await last_move(api))["id"]
        await blocked(api, tmp_path, first, [second], "Turn: Mario -> Luigi",
                      "Turn: Luigi -> Peach", f"(move {second})", "whose turn it is")
        assert (await can_undo(api, rent))["undoable"] is True  # the turn reads no coins
        await undone(api, second)
        await undone(api, first)  # nothing stands on it now
        state = await api.state()
        assert state["current_player"] == mario
        assert coins(state)[1:] == [coins(state)[0] - 4, coins(state)[0] + 4]  # the rent stands


async def test_the_movie_a_jail_is_blocked_by_the_fee_that_let_the_player_out(
        tmp_path: Path) -> None:
    async with game(tmp_path, "movie", ("Mario", "Luigi", "Peach")) as (api, _):
        mario, luigi, peach = await api.ids()
        sent = await api.post("/api/jail", {"player": mario, "in_jail": True})
        assert sent["text"] == "Mario goes to Jail (sent by the banker); Luigi's turn"
        await pay(api, peach, luigi, 2)  # another player's rent: independent
        await api.post("/api/current", {"player": mario})  # his next turn
        turned = (await last_move(api))["id"]
        await api.post("/api/jail", {"player": mario})  # the fee at its start: out of Jail
        fee = (await last_move(api))["id"]
        await blocked(api, tmp_path, sent["id"], [turned, fee], "Turn: Luigi -> Mario")
        # The fee alone: it stands on his Jail.
        reply = await api.post("/api/undo", {"move": sent["id"]}, status=409)
        assert fee in reply["blocked_by"]
        await undone(api, fee)
        await undone(api, turned)  # the turn that came after his went to Luigi
        before = coins(await api.state())
        await undone(api, sent["id"])  # the rent after it stands
        state = await api.state()
        assert coins(state) == before and state["current_player"] == mario
        assert not next(p for p in state["players"] if p["id"] == mario)["in_jail"]


async def test_gamer_a_drop_is_blocked_by_the_scoop_of_its_pile_not_by_another_drop(
        tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach", "Yoshi")) as (api, _):
        mario, peach, yoshi = await api.ids()
        drop = (await api.post("/api/drops", {"player": mario, "space": "Coin Block",
                                              "coins": 2}))["id"]
        other = (await api.post("/api/drops", {"player": peach, "space": "Coin Block",
                                               "coins": 1}))["id"]
        assert (await can_undo(api, drop))["undoable"] is True  # drops onto one pile: both
        await api.post("/api/current", {"player": yoshi})  # his roll passes the pile
        scoop = await api.post("/api/scoops", {"player": yoshi, "space": "Coin Block"})
        assert scoop["text"] == "Yoshi scoops up 3 coins from Coin Block"
        await blocked(api, tmp_path, drop, [scoop["id"]], "Yoshi scoops up 3 coins",
                      "the coins on Coin Block")
        await blocked(api, tmp_path, other, [scoop["id"]])
        await undone(api, scoop["id"])
        await undone(api, drop)  # Peach's drop stands on the pile
        state = await api.state()
        assert state["board"] == [{"space": "Coin Block", "coins": 1}]
        assert coins(state) == [10, 9, 10]


async def test_a_capped_payment_reads_the_payers_coins_where_payments_are_capped(
        tmp_path: Path) -> None:
    for edition, capped in (("mario_kart", True), ("celebration", False)):
        folder = tmp_path / edition
        async with game(folder, edition, ("Mario", "Luigi", "Peach")) as (api, _):
            mario, luigi, peach = await api.ids()
            gift = await pay(api, BANK, luigi, 5)
            other = await pay(api, peach, mario, 2)  # Peach's coins: not what the gift moved
            later = await pay(api, luigi, peach, 3)  # Luigi's: capped at what he has
            if capped:
                await blocked(api, folder, gift, [later], "Luigi pays Peach 3",
                              "Luigi's coins")
            else:  # fixed amounts: the payments stand apart
                assert (await can_undo(api, gift))["undoable"] is True
            assert (await can_undo(api, other))["undoable"] is True


async def test_a_bankruptcy_hands_over_what_the_payments_before_it_left(
        tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach", "Yoshi")) as (api, _):
        mario, luigi, peach, yoshi = await api.ids()
        await api.post("/api/next", {"from": mario})  # Luigi's turn: Mario's stays his
        start = coins(await api.state())
        paid = await pay(api, mario, luigi, 5)
        await pay(api, peach, yoshi, 1)
        broke = (await api.post("/api/bankruptcy", {"player": mario, "creditor": luigi}))["id"]
        await blocked(api, tmp_path, paid, [broke], "Mario is bankrupt to Luigi",
                      "Mario's coins")
        # Yoshi's payment after a bankruptcy stands apart from it; the turn passed after it
        # skipped the player who is out, so it depends on it.
        await pay(api, yoshi, peach, 2)
        assert (await can_undo(api, broke))["undoable"] is True
        await api.post("/api/next")
        turn = (await last_move(api))["id"]
        await blocked(api, tmp_path, broke, [turn], "Turn: Luigi -> Peach",
                      "whether Mario is still in the game")
        await undone(api, turn)
        await undone(api, broke)
        state = await api.state()
        assert not any(p["out"] for p in state["players"])
        m, lu, p, y = start
        assert coins(state) == [m - 5, lu + 5, p - 1 + 2, y + 1 - 2]


async def test_the_end_of_the_game_reads_the_whole_table(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _):
        mario, peach = await api.ids()
        paid = await pay(api, mario, peach, 2)
        await api.post("/api/end", {"early": True})
        end = (await last_move(api))["id"]
        await blocked(api, tmp_path, paid, [end], "The final score", "the whole table")
        await undone(api, end)  # the game is open again ...
        await undone(api, paid)  # ... and the payment before it can go
        assert coins(await api.state()) == [20, 20]  # two players: 20 each


# -- what is never undone, twice, or from bad input ----------------------------------------------


async def test_an_undo_or_the_opening_is_never_undone(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, luigi = await api.ids()
        opening = (await moves(api))[0]
        assert opening["kind"] == "opening"
        paid = await pay(api, mario, luigi, 3)
        undo = (await api.post("/api/undo", {"move": paid}))["move"]["id"]
        state, kept = await api.state(), rows(tmp_path)
        for move, words in ((undo, "an undo can't be undone"),
                            (opening["id"], "the opening balances can't be undone")):
            reply = await api.post("/api/undo", {"move": move}, status=400)
            assert reply["error"].startswith(words)
            assert await can_undo(api, move) == {"move": move, "undoable": False,
                                                 "blocked_by": [], "error": reply["error"],
                                                 "error_said": reply["error_said"]}
        assert await api.state() == state and rows(tmp_path) == kept


async def test_the_same_move_undone_twice_is_undone_once(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, _):
        mario, luigi, peach = await api.ids()
        await pay(api, mario, luigi, 3)
        await pay(api, luigi, peach, 2)
        target = (await api.state())["undo"]["move"]  # what the page's Undo button shows
        first = await api.post("/api/undo", {"move": target}, status=201)
        state, kept = await api.state(), rows(tmp_path)
        second = await api.post("/api/undo", {"move": target}, status=409)  # a double tap
        assert second["error"] == "\"Luigi pays Peach 2\" is already undone"
        assert "blocked_by" not in second
        assert await api.state() == state and rows(tmp_path) == kept  # nothing else undone
        assert await can_undo(api, target) == {"move": target, "undoable": False,
                                               "blocked_by": [], "error": second["error"],
                                               "error_said": second["error_said"]}
        # The same tap with its Idempotency-Key: the first answer again, nothing written.
        target = (await api.state())["undo"]["move"]
        headers = {**AUTH, "Idempotency-Key": "undo-twice"}
        answers = []
        for _ in range(2):
            async with api.session.post(f"{api.base}/api/undo", json={"move": target},
                                        headers=headers) as reply:
                answers.append((reply.status, await reply.json()))
        assert answers[0] == answers[1] and answers[0][0] == 201
        assert first["undid"]["id"] != answers[0][1]["undid"]["id"] == target
        assert len(rows(tmp_path)["moves"]) == len(kept["moves"]) + 1
        # The same key for another move: refused, nothing undone.
        other = await pay(api, peach, mario, 1)
        async with api.session.post(f"{api.base}/api/undo", json={"move": other},
                                    headers=headers) as reply:
            assert reply.status == 409 and "already used" in (await reply.json())["error"]
        # {} is still the latest.
        assert (await api.post("/api/undo", status=201))["undid"]["id"] == other


async def test_bad_input_is_a_400_and_changes_nothing(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, luigi = await api.ids()
        old = await pay(api, mario, luigi, 3)
        await api.post("/api/games", {"edition": "celebration", "players": ["Peach", "Daisy"]})
        peach, daisy = await api.ids()
        paid = await pay(api, peach, daisy, 1)
        state, kept = await api.state(), rows(tmp_path)
        for bad, words in ((str(paid), "move must be a move id"),
                           (float(paid), "move must be a move id"),
                           (True, "move must be a move id"), (0, "move must be a move id"),
                           (-1, "move must be a move id"), (2**70, "move must be a move id"),
                           (old, "unknown move"), (paid + 1000, "unknown move")):
            reply = await api.post("/api/undo", {"move": bad}, status=400)
            assert reply["error"].startswith(words), (bad, reply)
        for bad in ("abc", "1.0", "-1", "%20" + str(paid)):
            reply = await can_undo(api, bad, status=400)
            assert reply["error"].startswith("move must be a move id"), (bad, reply)
        for bad in (old, paid + 1000):
            reply = await can_undo(api, bad, status=400)
            assert reply["error"].startswith("unknown move"), (bad, reply)
        reply = await api.post("/api/undo", {"move": paid, "game": 1}, status=400)
        assert reply["error"].startswith("unknown field")
        assert await api.state() == state and rows(tmp_path) == kept


async def test_the_light_read_needs_no_token_but_is_rate_limited(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        mario, luigi = await api.ids()
        paid = await pay(api, mario, luigi, 3)
        async with aiohttp.ClientSession() as stranger:
            statuses = []
            for _ in range(40):
                async with stranger.get(f"{api.base}/api/moves/{paid}/undo") as reply:
                    statuses.append(reply.status)
                    if reply.status == 429:
                        assert reply.headers["Retry-After"]
        assert statuses[0] == 200 and 429 in statuses


# -- redo after an older move was undone -------------------------------------------------------


async def test_redo_brings_an_older_move_back_unless_what_it_read_moved_since(
        tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Mario", "Luigi", "Peach")) as (api, _):
        mario, luigi, peach = await api.ids()
        start = coins(await api.state())
        rent = await pay(api, mario, luigi, 3)  # capped: read Mario's coins
        await pay(api, peach, luigi, 1)  # nothing of Mario's
        undo = await undone(api, rent)
        state = await api.state()
        assert state["redo"]["move"] == undo["move"]["id"]
        assert state["redo"]["text"] == "Mario pays Luigi 3"
        redone = (await api.post("/api/redo", {"move": undo["move"]["id"]}))["move"]
        assert redone["text"] == "Mario pays Luigi 3" and redone["id"] > undo["move"]["id"]
        m, lu, p = start
        assert coins(await api.state()) == [m - 3, lu + 4, p - 1]
        # Coins came to Mario after the payment: his payment, capped at what he had, can't
        # come back as it was; Redo is not offered, and refused.
        await pay(api, BANK, mario, 4)
        undo = await undone(api, redone["id"])
        state, kept = await api.state(), rows(tmp_path)
        assert state["redo"] is None
        reply = await api.post("/api/redo", {"move": undo["move"]["id"]}, status=409)
        gift = undo["move"]["id"] - 1
        assert reply["error"] == (f"\"Mario pays Luigi 3\" can't be redone: \"the Bank pays "
                                  f"Mario 4\" (move {gift}) came after it and changed Mario's "
                                  "coins: declare it again")
        assert await api.state() == state and rows(tmp_path) == kept


# -- the property: independent payments ---------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(1, 20)),
                min_size=2, max_size=12), st.randoms(use_true_random=False))
def test_undoing_any_fixed_payment_is_the_game_without_it(
        payments: list[tuple[int, int, int]], rnd: random.Random) -> None:
    """Random fixed payments (Celebration: amounts never capped): undo a random earlier one;
    the balances are those of the game without it, and the rest stand."""
    folder = Path(tempfile.mkdtemp(prefix="undo-any-"))
    try:
        bank = Bank(folder / "bank.sqlite3")
        bank.new_game("celebration", ["Mario", "Luigi", "Peach", "Yoshi"])
        parties: list[int | str] = [*(p.id for p in bank.players()), BANK]
        start = bank.balances()
        made = []
        for a, b, n in payments:
            if a == b:
                b = (b + 1) % len(parties)
            paid = bank.transfer(parties[a], parties[b], n)
            assert paid.entry is not None
            made.append((paid.entry.move_id, parties[a], parties[b], n))
        gone = rnd.choice(made)
        assert bank.check_undo(gone[0]).undoable
        bank.undo(move=gone[0])
        expected = dict(start)
        for move, payer, payee, n in made:
            if move != gone[0]:
                for party, delta in ((payer, -n), (payee, n)):
                    if party != BANK:
                        expected[party] += delta  # type: ignore[index]
        assert bank.balances() == expected == bank.summed_balances()
        assert all(bank.check_undo(m).undoable == (m != gone[0]) for m, *_ in made)
        bank.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_light_read_says_what_undo_does_for_every_move_of_a_mixed_game(
        tmp_path: Path) -> None:
    """Every move of a game of Gamer: what ``check_undo`` answers is what undo then does (on a
    copy of the file each time)."""
    bank = Bank(tmp_path / "bank.sqlite3")
    bank.new_game("gamer", ["Mario", "Peach", "Yoshi"])
    mario, peach, yoshi = (p.id for p in bank.players())
    bank.transfer(mario, peach, 2)
    bank.drop(peach, "Coin Block", 3)
    bank.next_player()
    bank.transfer(BANK, yoshi, 4)
    bank.drop(mario, "Coin Block", 1)
    bank.scoop(yoshi, "Coin Block")
    bank.transfer(yoshi, mario, 5)
    bank.pass_go()
    bank.next_player()
    bank.set_jail(mario, True)
    bank.transfer(peach, yoshi, 1)
    bank.roll_from_jail(mario, False)
    bank.set_points(peach, 4, 1)
    ids = [m.id for m in bank.moves()]
    checks = {m: bank.check_undo(m) for m in ids[1:]}
    bank.close()
    assert any(c.undoable for c in checks.values()) and any(
        c.blocked_by for c in checks.values())
    for move, check in checks.items():
        copy = tmp_path / f"copy-{move}"
        copy.mkdir()
        shutil.copy(tmp_path / "bank.sqlite3", copy / "bank.sqlite3")
        other = Bank(copy / "bank.sqlite3")
        try:
            other.undo(move=move)
            assert check.undoable, (move, check)
        except Blocked as exc:
            assert exc.blocked_by == check.blocked_by and not check.undoable
            assert str(exc) == str(check.error)
        except Conflict:
            raise
        finally:
            other.close()
