"""Whole games on a real daemon (mock GPIO pins, a real SQLite file) through the tablet's API on
a real aiohttp server: every edition plays by its own rulebook to its end."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
from gpiozero.pins.mock import MockFactory

from companion.audio.null_backend import NullBackend
from companion.config import AudioConfig, Config, DataConfig, GameConfig, LeverConfig
from companion.core.editions import editions
from companion.daemon import Daemon
from companion.web.server import WebServer, start_web
from tests.conftest import StepClock

TOKEN = "game-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class Api:
    """The tablet's side of the conversation."""

    def __init__(self, session: aiohttp.ClientSession, server: WebServer) -> None:
        self.session, self.base = session, server.url.rstrip("/")

    async def get(self, path: str) -> Any:
        async with self.session.get(self.base + path, headers=AUTH) as reply:  # the banker
            assert reply.status == 200, (path, await reply.text())
            return await reply.json()

    async def post(self, path: str, body: Any = None, status: int | None = None) -> Any:
        async with self.session.post(self.base + path, headers=AUTH,
                                     data=None if body is None else json.dumps(body)) as reply:
            data = await reply.json()
            if status is not None:
                assert reply.status == status, (path, body, reply.status, data)
            else:
                assert reply.status < 300, (path, body, reply.status, data)
            return data

    async def put(self, path: str, body: Any, status: int = 200) -> Any:
        async with self.session.put(self.base + path, headers=AUTH,
                                    data=json.dumps(body)) as reply:
            data = await reply.json()
            assert reply.status == status, (path, body, reply.status, data)
            return data

    async def state(self) -> dict[str, Any]:
        return await self.get("/api/state")

    async def ids(self) -> list[int]:
        return [p["id"] for p in (await self.state())["players"]]


@contextlib.asynccontextmanager
async def game(tmp_path: Path, edition: str, players: tuple[str, ...], *,
               lever: LeverConfig | None = None, seed: int = 5,
               clock: Any = None, rng: Any = None) -> AsyncIterator[tuple[Api, Daemon]]:
    """A daemon of ``edition`` on mock pins with its web server (``rng``: the dice, default a
    seeded ``random.Random``)."""
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                    game=GameConfig(edition=edition, players=players),
                    lever=lever or LeverConfig())
    async with serving(config, rng or random.Random(seed), clock) as served:
        yield served


@contextlib.asynccontextmanager
async def serving(config: Config, rng: Any, clock: Any = None
                  ) -> AsyncIterator[tuple[Api, Daemon]]:
    """The daemon of ``config`` on mock pins, started, with its web server on 127.0.0.1."""
    app = Daemon(config, pin_factory=MockFactory(), rng=rng, backend=NullBackend(),
                 clock=clock or StepClock(100.0, 10))  # never "still sounding"
    app.start(asyncio.get_running_loop())
    server = await start_web(app.table, "127.0.0.1", 0, TOKEN)
    try:
        async with aiohttp.ClientSession() as session:
            yield Api(session, server), app
    finally:
        await server.stop()
        await app.table.drain()
        app.close()


async def press_the_button(app: Daemon) -> None:
    """The physical block: the mock pin goes low and high, through our debounce."""
    pin = app.button.pin
    pin.drive_low()
    await asyncio.sleep(0.01)
    pin.drive_high()
    await asyncio.sleep(0.01)
    await app.table.drain()


async def turn(api: Api, player: int) -> None:
    """``player``'s turn (a move of theirs is made on it: who may act, and when)."""
    await api.post("/api/current", {"player": player})


async def refused(api: Api, path: str, body: Any, status: int, words: str) -> None:
    """A refusal names the problem and changes nothing."""
    before = await api.state()
    reply = await api.post(path, body, status=status)
    assert words in reply["error"], (path, reply)
    assert await api.state() == before


async def test_the_rules_route_is_the_current_games_ruleset(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _):
        assert await api.get("/api/rules") == editions()["celebration"].to_json()
        for edition, names in (("gamer", ["Toad", "Daisy"]), ("wiggly_worms", ["Ann", "Ben"]),
                               ("movie", ["Mario", "Luigi"]), ("mario_kart", ["A", "B", "C"])):
            await api.post("/api/games", {"edition": edition, "players": names})
            rules = await api.get("/api/rules")
            assert rules == editions()[edition].to_json()
        listed = (await api.get("/api/editions"))["editions"]
        gamer = next(e for e in listed if e["id"] == "gamer")
        assert (gamer["min_players"], gamer["max_players"], gamer["end"]) == (2, 4, "points")


async def test_a_celebration_game_to_its_winner(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, app):
        mario, luigi, peach = await api.ids()
        state = await api.state()
        assert [p["balance"] for p in state["players"]] == [30, 30, 30]
        assert state["mode"]["id"] == "question_block" and state["mode"]["default"]
        # The block by its pin: an outcome for Mario, priced by the ruleset.
        await press_the_button(app)
        last = (await api.state())["last_outcome"]
        assert last["player"] == mario and last["mode"] == "question_block"
        assert last["headline"] and last["instruction"] and last["description"]
        # Utility rent: armed on the tablet, one press, then back to the Question Block.
        await api.post("/api/next")  # Luigi's turn
        mode = (await api.post("/api/mode", {"mode": "utility_rent", "payer": luigi,
                                             "owner": peach, "utilities": 2}))["mode"]
        assert mode["text"] == "Utility rent: Luigi pays Peach, 2 utilities"
        armed = await api.state()
        assert armed["mode"]["id"] == "utility_rent" and armed["mode"]["owner"] == peach
        before = {p["id"]: p["balance"] for p in armed["players"]}
        rent = await api.post("/api/press")
        assert rent["kind"] == "rent" and rent["coins"] == 2 * rent["rolls"][0]
        await app.table.drain()
        after = await api.state()
        assert after["players"][1]["balance"] == before[luigi] - rent["coins"]
        assert after["players"][2]["balance"] == before[peach] + rent["coins"]
        assert after["mode"]["id"] == "question_block"  # one press, then the default again
        # Jail: going there ends Luigi's turn ("Your turn is now over"); his fee is his way out.
        await refused(api, "/api/jail", {}, 400, "Luigi is not in Jail: the jail fee is only "
                                                 "a way out of it")
        sent = await api.post("/api/jail", {"player": luigi, "in_jail": True})
        assert sent["text"] == "Luigi goes to Jail (sent by the banker); Peach's turn"
        assert (await api.state())["current_player"] == peach
        # "Pay 5 coins at the start of your next turn": not in Peach's.
        await refused(api, "/api/jail", {"player": luigi}, 409, "it is Peach's turn")
        await api.post("/api/next")  # Mario's turn
        await api.post("/api/next")  # Luigi's: the fee before his roll
        jail = await api.post("/api/jail", {"player": luigi})
        assert (jail["from"], jail["amount"]) == (luigi, 5)
        # Luigi is bankrupt to Mario: he is out, skipped and refused.
        move = await api.post("/api/bankruptcy", {"player": luigi, "creditor": mario})
        assert move["kind"] == "bankruptcy" and not move["ends"]
        state = await api.state()
        assert [p["out"] for p in state["players"]] == [False, True, False]
        assert state["current_player"] == peach  # the turn went on
        assert (await api.post("/api/next"))["current_player"] == mario
        await refused(api, "/api/transfers", {"from": luigi, "to": "bank", "amount": 1}, 400,
                      "Luigi is out of the game")
        await refused(api, "/api/bankruptcy", {"player": luigi, "creditor": "bank"}, 400,
                      "Luigi is out of the game")
        # Mario too, to the Bank: Peach is the last player left and wins.
        final = await api.post("/api/bankruptcy", {"player": mario, "creditor": "bank"})
        assert final["ends"] and final["data"]["winners"] == [peach]
        over = await api.state()
        assert over["ended"] and over["winner"] == peach and over["winners"] == [peach]
        assert [(s["player"], s["rank"]) for s in over["standings"]] == [
            (peach, 1), (mario, 2), (luigi, 3)]
        # An ended game is read-only: 409, naming why.
        for path, body in (("/api/press", None), ("/api/go", {"player": peach}),
                           ("/api/next", None), ("/api/mode", {"mode": "utility_rent"}),
                           ("/api/transfers", {"from": peach, "to": "bank", "amount": 1})):
            await refused(api, path, body, 409, "ended")
        # Undo reopens it whole: Mario is back in, the game goes on.
        await api.post("/api/undo")
        back = await api.state()
        assert not back["ended"] and back["winner"] is None
        assert [p["out"] for p in back["players"]] == [False, True, False]
        journal = await api.get("/api/journal")
        kinds = [m["kind"] for m in journal["moves"]]
        assert kinds[-1] == "undo" and "bankruptcy" in kinds
        assert journal["moves"][-1]["text"].startswith("Undo: Mario is bankrupt")


async def test_the_mario_kart_worked_example_through_the_api(tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Toad", "Daisy")) as (api, app):
        toad, daisy = await api.ids()
        assert [p["balance"] for p in (await api.state())["players"]] == [20, 20]
        await press_the_button(app)  # the Item Box: Toad collects 1-6
        last = (await api.state())["last_outcome"]
        assert last["mode"] == "item_box" and last["kind"] == "coins"
        coins = (await api.state())["players"][0]["balance"]
        await api.post("/api/transfers", {"from": toad, "to": "bank", "amount": coins - 13,
                                          "note": "Race entry"})
        # "This player owns 3 Properties, won 2 Races, and has 13 Coins."
        await api.post("/api/points", {"player": toad, "points": 70 + 60, "cards": 5})
        await api.post("/api/points", {"player": daisy, "points": 80, "cards": 6})
        # A payment larger than the balance moves what there is, and says so.
        paid = await api.post("/api/transfers", {"from": daisy, "to": toad, "amount": 50})
        assert (paid["amount"], paid["asked"], paid["capped"]) == (20, 50, True)
        assert "had only 20 of 50 coins" in paid["message"]
        broke = await api.post("/api/transfers", {"from": daisy, "to": toad, "amount": 1},
                               status=200)
        assert broke["amount"] == 0 and "Hang in there!" in broke["message"]
        await api.post("/api/transfers", {"from": toad, "to": daisy, "amount": 20})  # back
        await refused(api, "/api/bankruptcy", {"player": daisy, "creditor": toad}, 400,
                      "nobody goes bankrupt in Monopoly Gamer: Mario Kart")
        await refused(api, "/api/end", None, 400, "8 cards are still to play")
        await refused(api, "/api/end", {"early": "yes"}, 400, "early must be true")
        end = await api.post("/api/end", {"early": True})  # the house rule, named
        assert end["ends"] and end["text"] == \
            "The final score (house rule: ended before the last card): Toad wins!"
        state = await api.state()
        rows = {s["player"]: s for s in state["standings"]}
        assert (rows[toad]["points"], rows[toad]["coins"], rows[toad]["total"]) == (130, 13, 150)
        assert (rows[daisy]["total"], rows[daisy]["rank"]) == (80 + 40, 2)
        assert state["winner"] == toad
        await refused(api, "/api/points", {"player": daisy, "points": 500, "cards": 9}, 409,
                      "ended")


async def test_a_wiggly_worms_game_to_five_worms(tmp_path: Path) -> None:
    async with game(tmp_path, "wiggly_worms", ("Ann", "Ben", "Cal"),
                    lever=LeverConfig(seconds=1.0, sound="off"),
                    clock=time.monotonic) as (api, app):
        ann, ben, cal = await api.ids()
        # The block is a second lever here: a press starts the countdown ...
        assert await api.post("/api/press") == {"kind": "lever", "started": True}
        assert (await api.get("/api/timer"))["timer"]["running"]
        # ... and when time runs out, the turn passes to the next player.
        for _ in range(300):
            await asyncio.sleep(0.01)
            if (await api.state())["current_player"] == ben:
                break
        assert (await api.state())["current_player"] == ben
        # Everyone at once (the rules' other mode): "When the timer runs out, a different
        # player slides the lever": the next seat, and the state says who.
        assert await api.post("/api/options", {"simultaneous": True}) == {
            "simultaneous": True, "dealt": False}
        await api.post("/api/timer/start", {"seconds": 1})
        for _ in range(300):
            await asyncio.sleep(0.01)
            if (await api.state())["current_player"] == cal:
                break
        await app.table.drain()
        state = await api.state()
        assert state["current_player"] == cal and state["game"]["simultaneous"]
        for player, found in ((ann, 2), (cal, 4), (ann, 3), (cal, 3)):
            await api.post("/api/worms", {"player": player, "found": found})
        assert [p["worms"] for p in (await api.state())["players"]] == [3, 0, 3]
        await refused(api, "/api/worms", {"player": ben, "found": 6}, 400,
                      "found must be a whole number from 0 to 5")
        won = await api.post("/api/worms", {"player": ben, "found": 5})
        assert won["ends"] and won["text"] == "Ben has found 5 worms: Ben wins!"
        over = await api.state()
        assert over["ended"] and over["winner"] == ben and over["game"]["worms"] == 5
        await refused(api, "/api/press", None, 409, "the game has ended")


async def test_the_rulesets_refuse_what_an_edition_lacks(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, _):
        mario, luigi, _peach = await api.ids()
        await refused(api, "/api/mode", {"mode": "item_box"}, 400,
                      "has no 'item_box' mode; it has question_block, utility_rent")
        await refused(api, "/api/mode", {"mode": "utility_rent", "payer": mario}, 400,
                      "owner must be a player still in the game")
        await refused(api, "/api/mode", {"mode": "utility_rent", "payer": mario,
                                         "owner": luigi, "utilities": 3}, 400,
                      "utilities must be 1 or 2")
        await refused(api, "/api/mode", {"mode": "question_block", "payer": mario}, 400,
                      "Question Block takes nothing more")
        await refused(api, "/api/mode", {}, 400, "mode is required")
        await refused(api, "/api/points", {"player": mario, "points": 10, "cards": 1}, 400,
                      "is not won on points")
        await refused(api, "/api/worms", {"player": mario, "found": 1}, 400,
                      "has no worms to find")
        await refused(api, "/api/end", None, 400,
                      "ends when every other player has gone bankrupt")
        await refused(api, "/api/options", {"simultaneous": True}, 400,
                      "has no mode where everyone plays at once")
        await refused(api, "/api/bankruptcy", {"player": mario}, 400, "creditor is required")
        await refused(api, "/api/bankruptcy", {"player": mario, "creditor": mario}, 400,
                      "bankrupt to themselves")
        await refused(api, "/api/jail", {"player": 999}, 400, "unknown player 999")
        await refused(api, "/api/games", {"edition": "gamer",
                                          "players": ["A", "B", "C", "D", "E"]}, 400,
                      "a game needs 2 to 4 players, got 5")
        await api.post("/api/games", {"edition": "wiggly_worms", "players": ["Ann", "Ben"]})
        ann = (await api.ids())[0]
        await refused(api, "/api/jail", {"player": ann}, 400, "Wiggly Worms has no Jail")
        await refused(api, "/api/transfers", {"from": ann, "to": "bank", "amount": 1}, 400,
                      "keeps no coins")
        await refused(api, "/api/mode", {"mode": "question_block"}, 400,
                      "Wiggly Worms has no 'question_block' mode")


async def test_found_in_review_retries_races_and_odd_numbers(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, app):
        mario, luigi, _ = await api.ids()
        # A retried jail fee (no player named: the current one) after the turn moved on is
        # answered with the first payment, not refused or charged to the next player.
        key = {**AUTH, "Idempotency-Key": "jail-1"}
        await api.post("/api/jail", {"player": mario, "in_jail": True})  # Luigi's turn
        await api.post("/api/next")
        await api.post("/api/next")  # Mario's again, in Jail
        async with api.session.post(api.base + "/api/jail", headers=key, json={}) as r:
            first = await r.json()
        await api.post("/api/next")
        async with api.session.post(api.base + "/api/jail", headers=key, json={}) as r:
            assert r.status == 201 and await r.json() == first
        assert [p["balance"] for p in (await api.state())["players"]][:2] == [25, 30]
        await refused(api, "/api/mode", {"mode": "utility_rent", "payer": mario,
                                         "owner": luigi, "utilities": 2.0}, 400,
                      "utilities must be 1 or 2")
        # A press racing the write that ends the game is never announced and then lost.
        await api.post("/api/bankruptcy", {"player": luigi, "creditor": "bank"})
        presses = []

        async def press() -> None:
            async with api.session.post(api.base + "/api/press", headers=AUTH) as r:
                presses.append((r.status, await r.json()))

        async def end() -> None:
            await api.post("/api/bankruptcy", {"player": mario, "creditor": "bank"})

        await asyncio.gather(end(), press())
        await app.table.drain()
        state = await api.state()
        assert state["ended"]
        for status, reply in presses:
            if status == 200:  # it came first: it is banked, before the end
                assert state["last_outcome"]["rolls"] == reply["rolls"]
            else:
                assert status == 409, reply


async def test_a_game_of_an_edition_no_longer_known_does_not_stop_the_daemon(
        tmp_path: Path) -> None:
    import sqlite3

    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (_api, _app):
        pass
    db = sqlite3.connect(tmp_path / "bank.sqlite3")
    with db:
        db.execute("UPDATE games SET edition = 'house_special'")  # its house rules removed
    db.close()
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, app):
        async with api.session.get(api.base + "/api/state") as r:
            assert r.status == 503 and "house_special" in (await r.json())["error"]
        assert app.table.state is None
        await api.post("/api/games", {"edition": "gamer", "players": ["Toad", "Daisy"]})
        assert (await api.state())["game"]["edition"] == "gamer"
