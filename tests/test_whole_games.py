"""A referee plays every edition through the API to its rulebook ending, on a real daemon, its
SQLite file and server (issue 42): each move on its player's turn and in its moment, never a
correction, every coin accounted for after every move (players + the Board's piles = what the
Bank paid out, from the journal's lines). A move the rules refuse would fail the game: the
flow lets a whole game be played by its rulebook, and keeps every coin."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.test_board_coins import conserved
from tests.test_board_ring import gamer_board, kart_board
from tests.test_game_api import Api, game

MOST_TURNS = 400
"""A game that has not ended by then is a failure of the referee's rules (or the table's)."""


class Referee:
    """Makes moves through the API and checks the books after each."""

    def __init__(self, api: Api, seed: int) -> None:
        self.api = api
        self.rng = random.Random(seed)
        self.moves = 0

    async def do(self, path: str, body: Any = None) -> Any:
        reply = await self.api.post(path, body if body is not None else {})
        self.moves += 1
        await conserved(self.api)
        return reply

    async def press(self) -> dict[str, Any] | None:
        """The block, pressed from the page: its outcome (None: ignored, saying why)."""
        async with self.api.session.post(self.api.base + "/api/press", headers=AUTH) as reply:
            data = await reply.json()
            assert reply.status in (200, 409), data
        self.moves += 1
        await conserved(self.api)
        return data if reply.status == 200 else None

    async def state(self) -> dict[str, Any]:
        return await self.api.state()

    async def end_turn(self, before: int | None) -> None:
        """Next, unless the turn has passed already (Jail, a missed roll)."""
        state = await self.state()
        if not state["ended"] and state["current_player"] == before:
            await self.do("/api/next", {"from": before})


AUTH = {"Authorization": "Bearer game-test-token-0123456789"}


def player(state: dict[str, Any], pid: int | None) -> dict[str, Any]:
    return next(p for p in state["players"] if p["id"] == pid)


async def bankrupt_the_broke(ref: Referee) -> None:
    """A player below zero at the end of a turn is declared bankrupt to whom they owe (the
    state's creditor, from the journal)."""
    state = await ref.state()
    for p in state["players"]:
        if not p["out"] and p["balance"] < 0 and not state["ended"]:
            await ref.do("/api/bankruptcy", {"player": p["id"], "creditor": p["owes_to"]})
            state = await ref.state()


async def test_celebration_to_the_last_player(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Ann", "Ben", "Cy"), seed=11) as (api, _app):
        ref = Referee(api, 11)
        for _ in range(MOST_TURNS):
            state = await ref.state()
            if state["ended"]:
                break
            me = state["current_player"]
            others = [p["id"] for p in state["players"] if not p["out"] and p["id"] != me]
            if player(state, me)["in_jail"]:  # the start of the turn: the fee, or a roll
                if ref.rng.random() < 0.5:
                    await ref.do("/api/jail", {})
                else:
                    await ref.do("/api/jail/roll", {"six": ref.rng.random() < 1 / 6})
                    if (await ref.state())["current_player"] != me:
                        continue  # a miss: the turn is over
            if ref.rng.random() < 0.3:
                await ref.do("/api/go", {})
            if ref.rng.random() < 0.4:
                await ref.press()  # landed on a Question Block space
            if ref.rng.random() < 0.5:
                await ref.do("/api/transfers", {"from": me, "to": ref.rng.choice(others),
                                                "amount": ref.rng.randint(4, 16),
                                                "note": "rent"})
            if ref.rng.random() < 0.2:
                await ref.do("/api/transfers", {"from": me, "to": "bank",
                                                "amount": ref.rng.randint(1, 8),
                                                "reason": "tax"})
            if ref.rng.random() < 0.1:
                await ref.do("/api/jail", {"in_jail": True})  # Go to Jail: the turn is over
                await bankrupt_the_broke(ref)
                continue
            await bankrupt_the_broke(ref)
            await ref.end_turn(me)
        state = await ref.state()
        assert state["ended"] and len(state["winners"]) == 1, ref.moves
        assert [p["id"] for p in state["players"] if not p["out"]] == state["winners"]
        print(f"celebration: {ref.moves} moves")


async def test_the_movie_to_the_last_player(tmp_path: Path) -> None:
    async with game(tmp_path, "movie", ("Mario", "Luigi", "Peach"), seed=12) as (api, _app):
        ref = Referee(api, 12)
        for _ in range(MOST_TURNS):
            state = await ref.state()
            if state["ended"]:
                break
            me = state["current_player"]
            free = [p["id"] for p in state["players"]
                    if not p["out"] and not p["in_jail"] and p["id"] != me]
            if player(state, me)["in_jail"]:
                if ref.rng.random() < 0.4:
                    await ref.do("/api/jail", {})  # the fee, then the turn's roll
                else:  # a press rolls for doubles from Jail
                    await ref.press()
                    if (await ref.state())["current_player"] != me:
                        continue
            if free and not state["bowser_waits"] and ref.rng.random() < 0.3:
                await ref.do("/api/toll", {"players": [ref.rng.choice(free)]})
            if free and ref.rng.random() < 0.15:  # landed on Bowser's space
                await ref.do("/api/battle", {"leader": me, "teammate": ref.rng.choice(free)})
                await ref.press()
                await ref.press()
            else:
                outcome = await ref.press()  # the turn's roll
                if outcome is not None and outcome["kind"] == "third_doubles":
                    await bankrupt_the_broke(ref)
                    continue
            state = await ref.state()
            if state["ended"] or state["current_player"] != me:
                await bankrupt_the_broke(ref)
                continue
            others = [p["id"] for p in state["players"] if not p["out"] and p["id"] != me]
            if ref.rng.random() < 0.25:
                await ref.do("/api/go", {})
            if others and ref.rng.random() < 0.6:
                await ref.do("/api/transfers", {"from": me, "to": ref.rng.choice(others),
                                                "amount": ref.rng.randint(3, 14)})
            await bankrupt_the_broke(ref)
            await ref.end_turn(me)
        state = await ref.state()
        assert state["ended"] and len(state["winners"]) == 1, ref.moves
        print(f"movie: {ref.moves} moves")


async def play_on_the_board(ref: Referee, contest: str, card: dict[str, Any]) -> None:
    """Gamer, Mario Kart on a described board: the press moves the token; a Coin Block or an
    Item Box rolls; the Power-up face is used; a Property is bought or its rent paid (a sale
    first when coins are short); a card is flipped at the end of a turn past GO."""
    for _ in range(MOST_TURNS):
        state = await ref.state()
        if state["ended"]:
            return
        me = state["current_player"]
        if player(state, me)["in_jail"]:
            if player(state, me)["balance"] >= 5 and ref.rng.random() < 0.5:
                await ref.do("/api/jail", {})
            else:
                await ref.do("/api/jail/roll", {"six": ref.rng.random() < 1 / 6})
                if (await ref.state())["current_player"] != me:
                    continue  # a miss: the turn is over
        moved = await ref.press()
        state = await ref.state()
        if moved is None or state["current_player"] != me or state["ended"]:
            continue  # to Jail: the turn is over
        ring = state["ring"]
        if state["landed"] is not None and ring["spaces"][state["landed"]]["kind"] in (
                "coin_block", "item_box"):
            await ref.press()
        face = state["last_outcome"]["params"].get("face", "")
        await use_face(ref, me, face)
        await land(ref, me)
        state = await ref.state()
        if state["next_card"] and state["next_card"]["due"] and not state["ended"]:
            await a_contest(ref, contest, card)
        await ref.end_turn(me)


async def use_face(ref: Referee, me: int, face: str) -> None:
    state = await ref.state()
    others = [p for p in state["players"] if p["id"] != me and not p["out"]]
    body: dict[str, Any] = {"player": me, "ability": face}
    if face in ("red_shell", "spiny_shell", "blooper"):
        body["targets"] = [ref.rng.choice(others)["id"]]
    elif face == "green_shell":  # the next player on the board, from my position
        size = len(state["ring"]["spaces"])

        def space(p: dict[str, Any]) -> int:  # In Jail (-1): the Just Visiting corner
            return int(state["ring"]["jail_corner"] if p["position"] < 0 else p["position"])

        here = space(player(state, me))

        def ahead(p: dict[str, Any]) -> int:
            gap = (space(p) - here) % size
            return gap or size
        body["targets"] = [min(others, key=ahead)["id"]]
    elif face == "banana":
        return  # (the Banana token is placed by the table: nothing to count)
    await ref.do("/api/abilities", body)


async def land(ref: Referee, me: int) -> None:
    """A Property landed on: bought if the Bank holds it and it is affordable, else its rent
    paid to its holder (selling deeds first when coins are short)."""
    state = await ref.state()
    space = state["landed"]
    if space is None or state["ring"]["spaces"][space]["kind"] != "property":
        return
    holder = state["deeds"].get(str(space))
    price = state["ring"]["spaces"][space].get("price", 0)
    if holder is None:
        if player(state, me)["balance"] >= price:
            await ref.do("/api/deeds", {"space": space, "player": me, "price": price})
        return
    if holder == me:
        return
    rent = state["ring"]["spaces"][space].get("rent", 1)
    async with ref.api.session.post(ref.api.base + "/api/transfers", headers=AUTH, json={
            "from": me, "to": holder, "amount": rent, "note": "rent"}) as reply:
        data = await reply.json()
    ref.moves += 1
    if reply.status == 409:  # "you must sell Property you own back to the Bank" first
        assert data["rule"] == "sell_first", data
        mine = [int(s) for s, p in state["deeds"].items() if p == me]
        await ref.do("/api/transfers", {"from": me, "to": holder, "amount": rent,
                                        "deeds": mine, "note": "rent"})
    else:
        assert reply.status < 300, data
        await conserved(ref.api)


async def a_contest(ref: Referee, contest: str, card: dict[str, Any]) -> None:
    """The card flipped: a fight (each in order fights when they can, else passes) or a race
    (who can afford it enters); the block rolls; then it is closed (the last: the end)."""
    await ref.do(f"/api/{contest}", {"action": "open", "card": card})
    for _ in range(60):
        state = await ref.state()
        if contest == "boss":
            fight = state["fight"]
            if fight["over"]:
                break
            if fight["fighter"] is not None:
                await ref.press()
                continue
            up = fight["up"]
            rich = player(state, up)["balance"] >= card["cost"]
            action = "fight" if rich and ref.rng.random() < 0.5 else "pass"
            await ref.do("/api/boss", {"action": action, "player": up})
        else:
            race = state["race"]
            if race["over"]:
                break
            if not race["started"]:
                entered = False
                for p in state["players"]:
                    if not p["in_jail"] and p["balance"] >= card["fee"]:
                        await ref.do("/api/race", {"action": "enter", "player": p["id"]})
                        entered = True
                if not entered:
                    break
                await ref.do("/api/race", {"action": "start"})
                continue
            await ref.press()
    await ref.do(f"/api/{contest}", {"action": "close"})


def priced(board: dict[str, Any]) -> dict[str, Any]:
    """The board with each Property's price, rent and points typed (as the table would)."""
    for n, space in enumerate(board["spaces"]):
        if space["kind"] == "property":
            space.update(price=2 + n % 4, rent=1 + n % 3, points=10)
    return board


async def test_gamer_to_the_final_boss(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Ann", "Ben", "Cy"), seed=13) as (api, _app):
        ann, ben, cy = await api.ids()
        for pid, who in ((ann, "mario"), (ben, "peach"), (cy, "yoshi")):
            await api.post("/api/characters", {"player": pid, "characters": [who]})
        await api.put("/api/board", priced(gamer_board()))
        ref = Referee(api, 13)
        card = {"cost": 2, "required": 4, "pay_to": "bank", "bonus": 3, "points": 20}
        await play_on_the_board(ref, "boss", card)
        state = await ref.state()
        assert state["ended"] and state["winners"], ref.moves
        print(f"gamer: {ref.moves} moves")


async def test_mario_kart_to_the_final_race(tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Ann", "Ben", "Cy"), seed=14) as (api, _app):
        ann, ben, cy = await api.ids()
        for pid, who in ((ann, "mario"), (ben, "peach"), (cy, "toad")):
            await api.post("/api/characters", {"player": pid, "characters": [who]})
        await api.put("/api/board", priced(kart_board()))
        ref = Referee(api, 14)
        card = {"fee": 2, "prizes": [5, 3, 1], "points": 30}
        await play_on_the_board(ref, "race", card)
        state = await ref.state()
        assert state["ended"] and state["winners"], ref.moves
        print(f"mario_kart: {ref.moves} moves")


async def test_wiggly_worms_to_the_first_who_finds_them_all(tmp_path: Path) -> None:
    async with game(tmp_path, "wiggly_worms", ("Ann", "Ben"), seed=15) as (api, _app):
        ref = Referee(api, 15)
        found = {p: 0 for p in await api.ids()}
        for _ in range(MOST_TURNS):
            state = await ref.state()
            if state["ended"]:
                break
            me = state["current_player"]
            found[me] = min(state["game"]["worms"], found[me] + ref.rng.randint(0, 2))
            await ref.do("/api/worms", {"player": me, "found": found[me]})
            await ref.end_turn(me)
        state = await ref.state()
        assert state["ended"] and found[state["winners"][0]] == state["game"]["worms"]
        print(f"wiggly_worms: {ref.moves} moves")
