"""A whole Monopoly Gamer game on a real daemon (MockFactory pins, a real SQLite file) through
the tablet's API on a real aiohttp server and the block's pin: characters picked, every
Power-up ability with and without its character's boost, every Super Star, drops and scoops,
a Boss won, a Boss that gets away when everyone passes, the whole deck to the final score with
the Boss points counted by the companion; every coin accounted for at every step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.core.editions import editions
from tests.test_board_coins import conserved, piles
from tests.test_game_api import AUTH, Api, game, press_the_button, refused, turn
from tests.test_movie_game import Faces

BOSS = {"cost": 2, "required": 4, "pay_to": "bank", "bonus": 3, "points": 20}
"""The numbers the table types from a Boss card (made up here: the cards print them)."""


def coins(state: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["balance"] for p in state["players"]}


async def step(api: Api, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A write, then every coin accounted for."""
    reply: dict[str, Any] = await api.post(path, body)
    await conserved(api)
    return reply


def heard(app: Any) -> Any:
    """The last sound the daemon played (the null backend keeps them)."""
    return app.speaker.backend.played[-1]


async def press(api: Api, app: Any, faces: Faces, face: int) -> dict[str, Any]:
    faces.load(face)
    await press_the_button(app)
    assert not faces.faces, "the press did not roll the die loaded"
    await conserved(api)
    return await api.state()


async def test_a_whole_gamer_game_to_the_final_score(tmp_path: Path) -> None:
    faces = Faces()
    async with game(tmp_path, "gamer", ("Ann", "Ben", "Cat", "Dan"), rng=faces) as (api, app):
        ann, ben, cat, dan = await api.ids()
        rules = await api.get("/api/rules")
        assert [c["name"] for c in rules["powers"]["characters"]] == [
            "Mario", "Princess Peach", "Yoshi", "Donkey Kong"]
        assert rules["contest"]["decks"]["4"] == [1, 2, 3, 4, 5, 6, 7, 8]
        # Characters: one each, each token once at the table.
        for pid, who in ((ann, "mario"), (ben, "Princess Peach"), (cat, "yoshi"),
                         (dan, "donkey_kong")):
            await api.post("/api/characters", {"player": pid, "characters": [who]})
        await refused(api, "/api/characters", {"player": ann, "characters": ["yoshi"]}, 400,
                      "Yoshi is Cat's")
        await refused(api, "/api/characters", {"player": ann, "characters": ["mario", "yoshi"]},
                      400, "characters must list 1 character")
        state = await api.state()
        assert [p["characters"] for p in state["players"]] == [
            ["mario"], ["peach"], ["yoshi"], ["donkey_kong"]]
        assert coins(state) == {"Ann": 10, "Ben": 10, "Cat": 10, "Dan": 10}

        # The Coin Block by the block's pin: Ann collects the die.
        state = await press(api, app, faces, 4)
        assert coins(state)["Ann"] == 14

        # Red Shell: Ann (Mario) hits Ben: 3 on his space; Ben (Peach) hits Ann: 4.
        move = await step(api, "/api/abilities", {"player": ann, "ability": "red_shell",
                                                  "targets": [ben],
                                                  "spaces": {str(ben): "Acorn Plains"}})
        assert move["text"] == "Ann: Red Shell: Ben drops 3 on Acorn Plains"
        assert heard(app) == app.table.library.sounds["shell"]
        await turn(api, ben)
        move = await step(api, "/api/abilities", {"player": ben, "ability": "red_shell",
                                                  "targets": [ann],
                                                  "spaces": {str(ann): "Warp Pipe"}})
        assert move["text"] == "Ben: Red Shell (boost): Ann drops 4 on Warp Pipe"
        # Green Shell, with and without Yoshi's boost (the table picks who: front or behind).
        await turn(api, ann)
        move = await step(api, "/api/abilities", {"player": ann, "ability": "green_shell",
                                                  "targets": [cat],
                                                  "spaces": {str(cat): "acorn plains"}})
        assert move["data"]["boost"] is False
        await turn(api, cat)
        move = await step(api, "/api/abilities", {"player": cat, "ability": "green_shell",
                                                  "targets": [dan],
                                                  "spaces": {str(dan): "GO"}})
        assert move["data"]["boost"] is True and "drops 3 on GO" in move["text"]
        assert piles(await api.state()) == {"Acorn Plains": 6, "Warp Pipe": 4, "GO": 3}
        # Blooper: steal 2 from any player.
        await turn(api, dan)
        move = await step(api, "/api/abilities", {"player": dan, "ability": "blooper",
                                                  "targets": [ann]})
        assert move["text"] == "Dan: Blooper: takes 2 from Ann"
        assert heard(app) == app.table.library.sounds["blooper"]
        # POW: all others drop 1 (Donkey Kong: 2), each on their own space.
        spaces = {str(ann): "Coin Block", str(ben): "Coin Block", str(cat): "Super Star"}
        before = coins(await api.state())
        move = await step(api, "/api/abilities", {"player": dan, "ability": "pow",
                                                  "spaces": spaces})
        assert move["data"]["boost"] is True and heard(app) == app.table.library.sounds["pow"]
        after = coins(await api.state())
        assert [before[n] - after[n] for n in ("Ann", "Ben", "Cat", "Dan")] == [2, 2, 2, 0]
        spaces = {str(ben): "Coin Block", str(cat): "Super Star", str(dan): "GO"}
        await turn(api, ann)
        move = await step(api, "/api/abilities", {"player": ann, "ability": "pow",
                                                  "spaces": spaces})
        assert move["data"]["boost"] is False and len(move["entries"]) == 3
        # Coins: collect 3 (Mario: 4).
        before = coins(await api.state())
        await step(api, "/api/abilities", {"player": ann, "ability": "coins"})
        await turn(api, ben)
        await step(api, "/api/abilities", {"player": ben, "ability": "coins"})
        after = coins(await api.state())
        assert (after["Ann"] - before["Ann"], after["Ben"] - before["Ben"]) == (4, 3)

        # Super Stars: Mario rolls (the table's die, typed) plus 5; Peach's rent typed;
        # Donkey Kong steals 3 from each; Yoshi collects every pile on the board.
        before = coins(await api.state())
        await turn(api, ann)
        await step(api, "/api/abilities", {"player": ann, "ability": "super_star", "coins": 2})
        await turn(api, ben)
        await step(api, "/api/abilities", {"player": ben, "ability": "super_star", "coins": 6})
        after = coins(await api.state())
        assert (after["Ann"] - before["Ann"], after["Ben"] - before["Ben"]) == (7, 6)
        before = coins(await api.state())
        await turn(api, dan)
        move = await step(api, "/api/abilities", {"player": dan, "ability": "super_star"})
        after = coins(await api.state())
        assert after["Dan"] - before["Dan"] == sum(
            min(3, before[n]) for n in ("Ann", "Ben", "Cat"))
        board = sum(piles(await api.state()).values())
        before = coins(await api.state())
        await turn(api, cat)
        move = await step(api, "/api/abilities", {"player": cat, "ability": "super_star"})
        assert piles(await api.state()) == {} and move["text"].startswith("Cat: Yoshi's Super")
        assert coins(await api.state())["Cat"] - before["Cat"] == board
        # A plain scoop: Ben drops, Ann passes the space.
        await step(api, "/api/drops", {"player": ben, "space": "Warp Pipe", "coins": 2})
        assert heard(app) == app.table.library.sounds["coin_drop"]
        await turn(api, ann)  # Ann's roll passes the space
        await step(api, "/api/scoops", {"player": ann, "space": "Warp Pipe"})
        assert heard(app) == app.table.library.sounds["scoop"]

        # Bad input names the problem and changes nothing.
        await refused(api, "/api/abilities", {"player": ann, "ability": "banana"}, 400,
                      "unknown ability 'banana'")
        await refused(api, "/api/abilities", {"player": ann, "ability": "red_shell",
                                              "targets": [ann], "spaces": {}}, 400,
                      "hits another player")
        await refused(api, "/api/abilities", {"player": ann, "ability": "red_shell",
                                              "targets": [ben]}, 400, "where does Ben stand")
        await refused(api, "/api/abilities", {"player": ann, "ability": "super_star",
                                              "coins": 7}, 400, "the numbered die's roll")
        await refused(api, "/api/abilities", {"player": ann, "ability": "coins",
                                              "targets": [ben]}, 400, "hits nobody")

        # Ann passes GO: at the end of her turn, the next Boss card is due.
        assert (await api.state())["next_card"]["due"] is False
        await api.post("/api/go", {"player": ann})
        assert (await api.state())["next_card"]["due"] is True
        await api.post("/api/undo")
        # Ben's GO in Ann's turn is a correction (his turn, his move); it makes no card due.
        await api.post("/api/go", {"player": ben, "correction": True})
        assert (await api.state())["next_card"]["due"] is False
        await api.post("/api/go", {"player": ann})

        # Boss 1: the card's numbers typed; Ann fights and loses, the others pass, Ann
        # fights again and wins: bonus 3, the card's 20 points.
        state = await api.state()
        assert state["next_card"]["number"] == 1 and state["next_card"]["values"] is None
        await refused(api, "/api/boss", {"action": "open"}, 400, "type the numbers printed")
        await refused(api, "/api/boss", {"action": "open", "card": {**BOSS, "required": 7}},
                      400, "required must be a whole number from 1 to 6")
        await step(api, "/api/boss", {"action": "open", "card": BOSS, "player": ann})
        assert (await api.state())["next_card"]["due"] is False  # flipped
        fight = (await api.state())["fight"]
        assert (fight["up"], fight["card"]["chance"], fight["order"]) == (
            ann, "1/2", [ann, ben, cat, dan])
        await refused(api, "/api/boss", {"action": "fight", "player": ben}, 400,
                      "fights or passes first")
        await step(api, "/api/boss", {"action": "fight", "player": ann})
        state = await api.state()
        assert state["mode"]["id"] == "boss" and "Ann fights" in state["mode"]["text"]
        state = await press(api, app, faces, 3)  # 3 < 4: lost
        assert state["last_outcome"]["kind"] == "boss_lost"
        assert state["fight"]["up"] == ben and state["mode"]["id"] == "coin_block"
        for pid in (ben, cat, dan):
            await step(api, "/api/boss", {"action": "pass", "player": pid})
        assert (await api.state())["fight"]["up"] == ann  # only Ann left: her choice again
        money = coins(await api.state())["Ann"]
        await step(api, "/api/boss", {"action": "fight", "player": ann})
        state = await press(api, app, faces, 4)  # 4: "equal to or higher" wins
        assert state["last_outcome"]["kind"] == "boss_won"
        library = app.table.library
        assert heard(app) == library.sounds["dice_roll"] + library.sounds["boss_won"]
        assert state["fight"]["winner"] == ann and state["fight"]["over"]
        assert coins(state)["Ann"] == money - 2 + 3
        assert state["players"][0]["won"] == [1]
        await step(api, "/api/boss", {"action": "close"})

        # Boss 2 gets away: everyone passes; the Boss is removed from the game. (Each card is
        # flipped at the end of a turn that landed on or passed GO.)
        await turn(api, ben)
        await api.post("/api/go", {})
        await step(api, "/api/boss", {"action": "open",
                                      "card": {**BOSS, "pay_to": "card", "points": 30}})
        await step(api, "/api/boss", {"action": "pass", "player": ben})  # Ben flipped it
        await step(api, "/api/boss", {"action": "pass", "player": cat})
        await refused(api, "/api/boss", {"action": "close"}, 400, "goes on")
        await step(api, "/api/boss", {"action": "pass", "player": dan})
        await step(api, "/api/boss", {"action": "pass", "player": ann})
        state = await api.state()
        assert state["fight"]["got_away"] and state["fight"]["winner"] is None
        assert heard(app) == app.table.library.sounds["boss_lost"]
        await step(api, "/api/boss", {"action": "close"})

        # Boss 3: paid onto the card; Cat loses once (2 on the card), then Dan wins it all.
        await turn(api, cat)
        await api.post("/api/go", {})
        await step(api, "/api/boss", {"action": "open",
                                      "card": {**BOSS, "pay_to": "card", "bonus": 0,
                                               "required": 6, "points": 40},
                                      "player": cat})
        await step(api, "/api/boss", {"action": "fight", "player": cat})
        await press(api, app, faces, 5)
        await step(api, "/api/boss", {"action": "fight", "player": dan})
        before = coins(await api.state())["Dan"]
        state = await press(api, app, faces, 6)
        assert state["fight"]["pot"] == 4 and coins(state)["Dan"] == before + 4
        await step(api, "/api/boss", {"action": "close"})

        # Boss 4-7 get away; the numbers of each are typed once.
        for number in range(4, 8):
            state = await api.state()
            assert state["next_card"]["number"] == number and not state["next_card"]["final"]
            await turn(api, ann)
            await api.post("/api/go", {})
            await step(api, "/api/boss", {"action": "open", "card": BOSS})
            for pid in (ann, ben, cat, dan):
                await step(api, "/api/boss", {"action": "pass", "player": pid})
            await step(api, "/api/boss", {"action": "close"})

        # A player in Jail can't fight: Ben goes to Jail on his turn (it passes to Cat), Boss 8
        # (the last) skips him.
        await turn(api, ben)
        await api.post("/api/jail", {"player": ben, "in_jail": True})
        await api.post("/api/go", {})
        state = await api.state()
        assert state["next_card"]["final"] and state["next_card"]["number"] == 8
        await step(api, "/api/boss", {"action": "open", "card": {**BOSS, "points": 50},
                                      "player": cat})
        assert (await api.state())["fight"]["order"] == [cat, dan, ann]
        await refused(api, "/api/boss", {"action": "open", "card": BOSS}, 400, "still open")
        # Property points typed (the Boss points are the companion's own count).
        await api.post("/api/points", {"player": ann, "points": 60, "cards": 2})
        await api.post("/api/points", {"player": dan, "points": 20, "cards": 1})
        await step(api, "/api/boss", {"action": "fight", "player": cat})
        await press(api, app, faces, 6)
        end = await step(api, "/api/boss", {"action": "close"})
        assert end["ends"]
        state = await api.state()
        assert (state["ended"], state["next_card"], state["fight"]) == (True, None, None)
        rows = {s["player"]: s for s in state["standings"]}
        money = coins(state)
        scoring = editions()["gamer"].scoring
        assert scoring is not None
        assert rows[ann]["points"] == 60 + 20 and rows[ann]["cards"] == 2 + 1
        assert rows[cat]["points"] == 50 and rows[dan]["points"] == 20 + 40
        for pid, name in ((ann, "Ann"), (ben, "Ben"), (cat, "Cat"), (dan, "Dan")):
            assert rows[pid]["total"] == rows[pid]["points"] + scoring.coin_points(money[name])
        best = max((r["total"], r["cards"]) for r in rows.values())
        assert state["winners"] == [p for p, r in rows.items()
                                    if (r["total"], r["cards"]) == best]
        assert [s["player"] for s in state["standings"] if s["rank"] == 1] == state["winners"]
        await refused(api, "/api/boss", {"action": "open", "card": BOSS}, 409, "ended")


async def test_undo_takes_a_fight_back_step_by_step(tmp_path: Path) -> None:
    faces = Faces()
    async with game(tmp_path, "gamer", ("Ann", "Ben"), rng=faces) as (api, app):
        ann, ben = await api.ids()
        assert (await api.state())["next_card"]["number"] == 1
        await api.post("/api/go", {})  # the card is flipped at the end of a turn past GO
        await api.post("/api/boss", {"action": "open", "card": BOSS})
        await api.post("/api/boss", {"action": "fight", "player": ann})
        state = await press(api, app, faces, 6)
        assert state["fight"]["winner"] == ann and coins(state)["Ann"] == 20 + 2 - 2 + 3
        undone = await api.post("/api/undo")  # the roll: the bonus back, the outcome unassigned
        assert undone["undid"]["data"]["action"] == "roll"
        state = await api.state()
        assert state["fight"]["fighter"] == ann and coins(state)["Ann"] == 20
        assert [o["kind"] for o in state["unassigned"]] == ["boss_won"]
        # The held-over outcome goes back to the fighter it was rolled for, and no one else.
        outcome = state["unassigned"][0]["id"]
        await refused(api, "/api/assign", {"outcome": outcome, "player": ben}, 400,
                      "whose roll is due")
        await api.post("/api/assign", {"outcome": outcome, "player": ann})
        assert (await api.state())["fight"]["winner"] == ann
        await api.post("/api/undo")
        await api.post("/api/undo")  # the fight: the cost back
        await api.post("/api/undo")  # the open: no fight, Boss 1 is next again
        state = await api.state()
        assert state["fight"] is None and state["next_card"]["number"] == 1
        assert state["next_card"]["values"]["required"] == 4  # typed once, kept
        assert coins(state) == {"Ann": 22, "Ben": 20}  # her GO stands: the card is due again
        assert state["next_card"]["due"]


async def test_two_players_play_two_characters_each_and_the_short_deck(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _app):
        ann, ben = await api.ids()
        assert (await api.get("/api/rules"))["contest"]["decks"]["2"] == [1, 2, 3, 5, 6, 8]
        await refused(api, "/api/characters", {"player": ann, "characters": ["mario"]}, 400,
                      "2 characters for each player")
        await api.post("/api/characters", {"player": ann, "characters": ["mario", "yoshi"]})
        await api.post("/api/characters", {"player": ben, "characters": ["peach",
                                                                          "donkey_kong"]})
        # Which character takes the turn decides the boost.
        await refused(api, "/api/abilities", {"player": ann, "ability": "coins"}, 400,
                      "which of their characters")
        await refused(api, "/api/abilities", {"player": ann, "ability": "coins",
                                              "character": "peach"}, 400,
                      "not one of this player's characters")
        move = await api.post("/api/abilities", {"player": ann, "ability": "coins",
                                                 "character": "mario"})
        assert move["data"]["boost"] and move["entries"][0]["amount"] == 4
        move = await api.post("/api/abilities", {"player": ann, "ability": "coins",
                                                 "character": "yoshi"})
        assert not move["data"]["boost"] and move["entries"][0]["amount"] == 3
        # POW hits only the opponent; a player in Jail drops on Just Visiting.
        await turn(api, ben)
        await api.post("/api/jail", {"player": ben, "in_jail": True})  # Ann's turn again
        move = await api.post("/api/abilities", {"player": ann, "ability": "pow",
                                                 "character": "yoshi"})
        assert move["text"] == "Ann: POW: Ben drops 1 on Just Visiting"
        # Boss cards of a two-player deck: 1, 2, 3, 5, 6, 8.
        for number in (1, 2, 3, 5, 6):
            assert (await api.state())["next_card"]["number"] == number
            await api.post("/api/go", {})
            await api.post("/api/boss", {"action": "open", "card": BOSS, "player": ann})
            await api.post("/api/boss", {"action": "pass", "player": ann})  # Ben is in Jail
            await api.post("/api/boss", {"action": "close"})
        assert (await api.state())["next_card"] == {
            "kind": "boss", "card_name": "Boss", "number": 8, "values": None, "final": True,
            "rematch_due": False, "held": [], "due": False, "left": 1}


async def test_a_retried_contest_step_is_written_once(tmp_path: Path) -> None:
    """The page keys each step on the state it saw: a retry writes nothing more."""
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _app):
        ann, ben = await api.ids()

        async def keyed(body: dict[str, Any], key: str, status: int = 201) -> Any:
            async with api.session.post(api.base + "/api/boss", json=body, headers={
                    **AUTH, "Idempotency-Key": key}) as reply:
                assert reply.status == status, await reply.text()
                return await reply.json()

        await api.post("/api/go", {})
        first = await keyed({"action": "open", "card": BOSS}, "open-1")
        again = await keyed({"action": "open", "card": BOSS}, "open-1")
        assert first["id"] == again["id"]
        fight = await keyed({"action": "fight", "player": ann}, "fight-1")
        assert (await keyed({"action": "fight", "player": ann}, "fight-1"))["id"] == fight["id"]
        assert coins(await api.state())["Ann"] == 20 + 2 - 2  # paid once
        refusal = await keyed({"action": "pass", "player": ben}, "fight-1", status=409)
        assert "already used for another operation" in refusal["error"]


async def test_found_in_review_a_roll_counts_only_in_its_own_fight(tmp_path: Path) -> None:
    """A review found an undone winning roll could be given to another fighter in a later
    fight; and a player sent to Jail could still fight."""
    faces = Faces()
    async with game(tmp_path, "gamer", ("Ann", "Ben", "Cat"), rng=faces) as (api, app):
        ann, ben, cat = await api.ids()
        await api.post("/api/go", {})
        await api.post("/api/boss", {"action": "open", "card": {**BOSS, "required": 6}})
        await api.post("/api/boss", {"action": "fight", "player": ann})
        await press(api, app, faces, 6)
        await api.post("/api/undo")  # the roll
        await api.post("/api/undo")  # the fight
        outcome = (await api.state())["unassigned"][0]["id"]
        for pid in (ann, ben, cat):
            await api.post("/api/boss", {"action": "pass", "player": pid})
        await api.post("/api/boss", {"action": "close"})
        await turn(api, ben)
        await api.post("/api/go", {})
        await api.post("/api/boss", {"action": "open", "card": BOSS, "player": ben})
        # Cat sent to Jail in Ben's turn: the banker's correction (a Go to Jail is the lander's)
        await api.post("/api/jail", {"player": cat, "in_jail": True, "correction": True})
        await api.post("/api/boss", {"action": "pass", "player": ben})
        await refused(api, "/api/boss", {"action": "fight", "player": cat}, 400,
                      "Cat is in Jail: a player in Jail may not take part in Boss Fights")
        await api.post("/api/boss", {"action": "pass", "player": cat})
        await api.post("/api/boss", {"action": "fight", "player": ann})
        await refused(api, "/api/assign", {"outcome": outcome, "player": ann}, 400,
                      "in the fight or race it was rolled in")
        state = await press(api, app, faces, 1)
        assert state["fight"]["winner"] is None and state["fight"]["rolls"] == [
            {"player": ann, "roll": 1}]
