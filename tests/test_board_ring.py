"""The board the table describes once (Gamer, Mario Kart) and the tokens on it: the ring's walk
(pure), then on a real daemon through the API: a roll scoops every pile passed or landed on but
not the start, GO pays, a Warp Pipe warps, a Thwomp drops, Go to Jail takes no coins on the way;
drops land where the token stands; positions survive a restart and undo moves tokens back;
every coin accounted for after every step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.core.board_ring import JAIL_CORNER, Effect, check_ring
from companion.core.editions import editions
from companion.exc import Refused
from tests.test_board_coins import coins, conserved, piles
from tests.test_game_api import game, refused, turn

GAMER_KINDS = editions()["gamer"].board.kinds
ABILITIES = ("red_shell", "green_shell", "blooper", "pow", "coins")


def gamer_board() -> dict[str, Any]:
    """A small board as a table might describe it (16 spaces, not the real one: the test
    needs every kind, not the box's layout)."""
    spaces = [("go", "GO"), ("property", "Acorn Plains"), (None, ""), ("coin_block", ""),
              ("warp_pipe", ""), ("just_visiting", ""), ("property", "Peach's Castle"),
              ("super_star", ""), ("drop_two", "Thwomp"), (None, ""), ("warp_pipe", ""),
              ("property", "Bowser's Castle"), ("go_to_jail", ""), ("coin_block", ""),
              (None, "Lakitu"), ("property", "Rainbow Road")]
    return {"spaces": [{"kind": k, "name": n} for k, n in spaces],
            "faces": ["red_shell", "green_shell", "blooper", "pow", "coins", "coins"]}


def test_labels_name_each_space_once() -> None:
    ring = check_ring(gamer_board(), GAMER_KINDS, ABILITIES)
    assert ring.labels()[:6] == ("GO", "Acorn Plains", "space 2", "Coin Block 3",
                                 "Warp Pipe 4", "Just Visiting")
    assert ring.label(10) == "Warp Pipe 10" and ring.label(14) == "Lakitu"
    assert ring.find("warp pipe 10") == 10 and ring.find("Nowhere") is None
    assert ring.jail_corner == 5 and ring.effect(12) is Effect.TO_JAIL


def test_a_walk_passes_spaces_but_not_its_start_and_wraps_past_go() -> None:
    ring = check_ring(gamer_board(), GAMER_KINDS, ABILITIES)
    walk = ring.walk(13, 4)
    assert walk.path == (14, 15, 0, 1) and walk.passed_go and walk.end == 1
    assert ring.walk(1, 3).path == (2, 3, 4) and not ring.walk(1, 3).passed_go
    assert ring.walk(0, 2, stops=frozenset({1})).path == (1,)  # a Banana stops it
    assert ring.warp(4).path == (5, 6, 7, 8, 9, 10)
    assert ring.warp(10).path == (11, 12, 13, 14, 15, 0, 1, 2, 3, 4) and ring.warp(10).passed_go
    assert ring.walk(JAIL_CORNER, 2).path == (6, 7)  # out of Jail: from Just Visiting


@pytest.mark.parametrize(("change", "words"), [
    (lambda b: b["spaces"].pop(), None),  # 15 spaces: fine
    (lambda b: b.update(spaces=b["spaces"][:7]), "8 to 64 spaces"),
    (lambda b: b["spaces"].__setitem__(0, {"kind": "property", "name": "X"}), "first space is GO"),
    (lambda b: b["spaces"].__setitem__(9, {"kind": "just_visiting"}), "one Just Visiting"),
    (lambda b: b["spaces"].__setitem__(2, {"kind": "castle"}), "kind 'castle'"),
    (lambda b: b["spaces"].__setitem__(2, {"name": "x" * 41}), "at most 40"),
    (lambda b: b["spaces"].__setitem__(2, {"name": 7}), "name must be text"),
    (lambda b: b["spaces"].__setitem__(2, {"points": 5}), "only a Property has points"),
    (lambda b: b["spaces"].__setitem__(1, {"kind": "property", "points": -1}), "0 to 1000"),
    (lambda b: b["spaces"].__setitem__(1, {"kind": "property", "colour": "red"}), "an object"),
    (lambda b: b.update(faces=["coins"] * 6), "'red_shell' is on no face"),
    (lambda b: b.update(faces=["red_shell"] * 5), "6 faces"),
    (lambda b: b.update(faces=[*ABILITIES, "banana"]), "'banana' is not one"),
    (lambda b: b.update(colour="red"), "unknown field 'colour'"),
])
def test_a_description_is_checked_field_by_field(change: Any, words: str | None) -> None:
    board = gamer_board()
    change(board)
    if words is None:
        assert len(check_ring(board, GAMER_KINDS, ABILITIES)) == 15
        return
    with pytest.raises(Refused, match=words):
        check_ring(board, GAMER_KINDS, ABILITIES)


async def test_tokens_move_scoop_and_pay_go_through_the_api(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach", "Yoshi")) as (api, app):
        mario, peach, yoshi = await api.ids()
        state = await api.state()
        assert state["ring"] is None and state["players"][0]["position"] is None
        await api.post("/api/tokens", {"player": mario, "steps": 3}, status=400)
        ring = await api.put("/api/board", gamer_board())
        assert ring["labels"][3] == "Coin Block 3" and ring["faces"][5] == "coins"
        state = await api.state()
        assert state["ring"]["labels"] == ring["labels"]
        assert [p["position"] for p in state["players"]] == [0, 0, 0]
        # Peach drops 2 where she stands (GO: nobody said where), Yoshi drops 3 on space 2.
        await api.post("/api/drops", {"player": peach, "coins": 2})
        await api.post("/api/drops", {"player": yoshi, "space": "space 2", "coins": 3})
        assert piles(await api.state()) == {"GO": 2, "space 2": 3}
        # Mario rolls 3 from GO: passes space 2 (scoops 3), lands on Coin Block 3; GO's pile
        # is his start, so it stays.
        move = await api.post("/api/tokens", {"player": mario, "steps": 3})
        assert move["kind"] == "token"
        assert move["text"] == "Mario moves 3 spaces to Coin Block 3: scoops 3 from space 2"
        assert app.speaker.backend.played[-1] == app.table.library.sounds["scoop"]  # heard
        state = await api.state()
        assert piles(state) == {"GO": 2} and coins(state) == [13, 8, 7]
        assert state["players"][0]["position"] == 3
        await conserved(api)
        # 1 more: a Warp Pipe, on to the next one (10), past the Thwomp's space.
        await api.post("/api/drops", {"player": yoshi, "space": "Thwomp", "coins": 1})
        move = await api.post("/api/tokens", {"player": mario, "steps": 1})
        assert move["text"] == ("Mario moves 1 space, warps to Warp Pipe 10: scoops 1 from "
                                "Thwomp")
        assert move["data"]["path"] == [4, 5, 6, 7, 8, 9, 10]
        # 2 more: lands on Go to Jail: in Jail at once, no coins on the way (GO is not passed
        # here, but the pile on Bowser's Castle stays).
        await api.post("/api/drops", {"player": yoshi, "space": "Bowser's Castle", "coins": 1})
        before = coins(await api.state())
        jailed = await api.post("/api/tokens", {"player": mario, "steps": 2})
        assert jailed["kind"] == "jailed"
        state = await api.state()
        assert coins(state) == before and piles(state)["Bowser's Castle"] == 1
        assert state["players"][0]["in_jail"] and state["players"][0]["position"] == JAIL_CORNER
        # Peach's turn now; a move of Mario's (the banker's correction) is refused all the
        # same: he is in Jail.
        await refused(api, "/api/tokens", {"player": mario, "steps": 2, "correction": True}, 400,
                      "Mario is in Jail")
        await conserved(api)
        # Peach rolls 8 from GO... a die says 1-6; a boosted move up to 12. 6 then 2: the
        # Super Star, then the Thwomp: she drops 2 there.
        await api.post("/api/tokens", {"player": peach, "steps": 6})
        await api.post("/api/tokens", {"player": peach, "steps": 1})
        move = await api.post("/api/tokens", {"player": peach, "steps": 1})
        assert move["text"] == "Peach moves 1 space to Thwomp: drops 2 on Thwomp"
        # Yoshi: 11 to Bowser's Castle (its pile), then 6 past GO to Acorn Plains: GO pays
        # 2 and Peach's pile on GO is scooped: he passed it.
        await turn(api, yoshi)
        await api.post("/api/tokens", {"player": yoshi, "steps": 11})
        move = await api.post("/api/tokens", {"player": yoshi, "steps": 6})
        assert move["text"] == ("Yoshi moves 6 spaces to Acorn Plains: scoops 2 from GO, "
                                "passes GO: collects 2")
        await conserved(api)
        state = await api.state()
        assert [p["position"] for p in state["players"]] == [JAIL_CORNER, 8, 1]
        # Undo moves the token back and puts the pile back on GO.
        before_undo = coins(state)
        await api.post("/api/undo", {})
        state = await api.state()
        assert [p["position"] for p in state["players"]] == [JAIL_CORNER, 8, 11]
        assert piles(state)["GO"] == 2 and coins(state)[2] == before_undo[2] - 4
        await conserved(api)
        await api.post("/api/tokens", {"player": yoshi, "steps": 2})  # Go to Jail? 13: no
    # A restart: every token where it was, the board as described.
    async with game(tmp_path, "gamer", ("Mario", "Peach", "Yoshi")) as (api, _app):
        state = await api.state()
        assert [p["position"] for p in state["players"]] == [JAIL_CORNER, 8, 13]
        assert state["ring"]["labels"][10] == "Warp Pipe 10"
        await conserved(api)


async def test_bad_moves_are_refused_in_words_and_change_nothing(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, _peach = await api.ids()
        await refused(api, "/api/tokens", {"player": mario, "steps": 2}, 400,
                      "describe the board first")
        await api.put("/api/board", gamer_board())
        for body, words in (({"player": mario, "steps": 0}, "steps must be a whole number"),
                            ({"player": mario, "steps": 13}, "from 1 to 12"),
                            ({"player": mario, "steps": "3"}, "steps must be"),
                            ({"player": mario, "steps": True}, "steps must be"),
                            ({"player": mario, "how": "fly"}, "how must be roll, warp or place"),
                            ({"player": mario, "how": "place", "to": 16}, "0 to 15"),
                            ({"player": mario, "how": "warp"}, "is not on a Warp Pipe"),
                            ({"player": 99, "steps": 2}, "unknown player 99"),
                            ({"player": mario, "steps": 2, "colour": 1}, "unknown field")):
            await refused(api, "/api/tokens", body, 400, words)
        before = await api.state()
        reply = await api.put("/api/board", {"spaces": []}, status=400)
        assert "8 to 64 spaces" in reply["error"] and await api.state() == before
        reply = await api.put("/api/board", [1, 2], status=400)
        assert "must be a JSON object" in reply["error"]


async def test_warp_and_place_are_one_tap_and_an_ability_drops_where_tokens_stand(
        tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach", "Yoshi")) as (api, _app):
        mario, peach, yoshi = await api.ids()
        await api.put("/api/board", gamer_board())
        # Luigi-style: onto a space, no coins on the way, no GO.
        await api.post("/api/drops", {"player": yoshi, "space": "Acorn Plains", "coins": 1})
        await turn(api, peach)
        move = await api.post("/api/tokens", {"player": peach, "how": "place", "to": 4})
        assert move["text"] == "Peach's token goes to Warp Pipe 4" and not move["entries"]
        move = await api.post("/api/tokens", {"player": peach, "how": "warp"})
        assert move["text"] == "Peach warps to Warp Pipe 10" and move["data"]["to"] == 10
        # POW: everyone else drops 1 where they stand: nobody names a space.
        await api.post("/api/characters", {"player": mario, "characters": ["mario"]})
        await turn(api, mario)
        move = await api.post("/api/abilities", {"player": mario, "ability": "pow"})
        assert sorted((e["from"], e["space"]) for e in move["entries"]) == \
            sorted([(peach, "Warp Pipe 10"), (yoshi, "GO")])
        await conserved(api)


async def test_passing_go_on_a_roll_makes_the_boss_card_due(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach", "Yoshi", "Toad")) as (api, _app):
        mario, *_ = await api.ids()
        await api.put("/api/board", gamer_board())
        await api.post("/api/current", {"player": mario})
        await api.post("/api/tokens", {"player": mario, "steps": 6})
        assert not (await api.state())["next_card"]["due"]
        await api.post("/api/tokens", {"player": mario, "how": "place", "to": 14})
        await api.post("/api/tokens", {"player": mario, "steps": 3})
        assert (await api.state())["next_card"]["due"]


async def test_the_board_is_kept_for_the_next_game_of_its_edition_only(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        await api.put("/api/board", gamer_board())
        await api.post("/api/tokens", {"player": (await api.ids())[0], "steps": 2})
        await api.post("/api/games", {"edition": "gamer", "players": ["Ann", "Ben"]})
        state = await api.state()
        assert state["ring"]["labels"][1] == "Acorn Plains"
        assert [p["position"] for p in state["players"]] == [0, 0]  # a new game: on GO
        await api.post("/api/games", {"edition": "mario_kart", "players": ["Ann", "Ben"]})
        state = await api.state()
        assert state["ring"] is None and state["players"][0]["position"] is None
        await api.post("/api/games", {"edition": "celebration", "players": ["Ann", "Ben"]})
        reply = await api.put("/api/board", gamer_board(), status=400)
        assert "has no board to describe" in reply["error"]


async def test_a_press_rolls_both_dice_and_moves_the_token_once_the_faces_are_typed(
        tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, _peach = await api.ids()
        await api.post("/api/current", {"player": mario})
        board = gamer_board()
        await api.put("/api/board", {**board, "faces": []})
        press = await api.post("/api/press")  # no faces typed: the Coin Block, as before
        assert press["kind"] == "coins"
        assert (await api.state())["players"][0]["position"] == 0
        await api.put("/api/board", board)
        start = 0
        for _ in range(6):
            before = await api.state()
            assert not before["turn_rolled"]
            press = await api.post("/api/press")
            assert press["kind"] == "move" and press["mode"] == "move", press
            die, face = press["rolls"]
            ability = board["faces"][face - 1]
            name = {"red_shell": "Red Shell", "green_shell": "Green Shell", "blooper": "Blooper",
                    "pow": "POW", "coins": "Coins"}[ability]
            state = await api.state()
            shown = state["last_outcome"]
            assert shown["params"]["face"] == ability
            assert f"Power-up die shows {name}" in shown["instruction"]
            me = state["players"][0]
            if me["in_jail"]:  # landed on Go to Jail: the press is kept, the turn is over
                assert me["position"] == JAIL_CORNER
                break
            ring = check_ring(board, GAMER_KINDS, ABILITIES)
            walk = ring.walk(start, die)
            end = ring.warp(walk.end).end if ring.effect(walk.end) is Effect.WARP else walk.end
            assert me["position"] == end, (start, die)
            assert state["version"] != before["version"] and state["turn_rolled"]
            start = end
            await conserved(api)
            # "Roll both dice" once a turn: a second press is the roll of the space landed
            # on, a Coin Block's; on any other space there is nothing to roll.
            if ring.effect(end) is Effect.COIN_ROLL:
                again = await api.post("/api/press")
                assert again["kind"] == "coins"
            else:
                again = await api.post("/api/press", status=409)
                assert "a press rolls for a Coin Block only" in again["error"]
            await conserved(api)
            await api.post("/api/next", {})
            await api.post("/api/next", {})  # Peach's turn passes: Mario's again
        # Undo a press's move: the token goes back, the outcome is unassigned again.
        before = (await api.state())["players"][0]["position"]
        assert (await api.post("/api/press"))["kind"] == "move"
        await api.post("/api/undo", {})
        state = await api.state()
        assert state["unassigned"] and state["unassigned"][0]["kind"] == "move"
        assert state["players"][0]["position"] == before
        await conserved(api)


def kart_board() -> dict[str, Any]:
    spaces = [("go", "GO"), ("property", "Mario Kart Stadium"), ("item_box", ""),
              ("boost_pad", ""), ("property", "Water Park"), (None, ""),
              ("just_visiting", ""), ("thwomp", ""), ("super_star", ""), ("free_parking", ""),
              ("property", "Toad Harbor"), ("go_to_jail", "")]
    return {"spaces": [{"kind": k, "name": n} for k, n in spaces],
            "faces": ["spiny_shell", "green_shell", "lightning", "coins", "banana", "banana"]}


async def test_bananas_stop_tokens_four_at_most_and_go_back_to_the_pile(tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Mario", "Luigi")) as (api, _app):
        mario, luigi = await api.ids()
        ring = await api.put("/api/board", kart_board())
        assert ring["labels"][3] == "Boost Pad" and ring["labels"][7] == "Thwomp"
        await api.post("/api/current", {"player": luigi})
        move = await api.post("/api/bananas", {"space": 4})
        assert move["text"] == "Luigi drops a Banana on Water Park"
        assert (await api.state())["bananas"] == [4]
        await refused(api, "/api/bananas", {"space": 4}, 400, "a space has only one")
        # Mario rolls 6 from GO: the Banana on Water Park stops him there, and goes back.
        await api.post("/api/drops", {"player": luigi, "space": "space 5", "coins": 2})
        await turn(api, mario)
        move = await api.post("/api/tokens", {"player": mario, "steps": 6})
        assert move["text"] == "Mario moves 6 spaces to Water Park: stops on a Banana"
        state = await api.state()
        assert state["bananas"] == [] and state["players"][0]["position"] == 4
        assert piles(state) == {"space 5": 2}  # not reached
        # Undo: the Banana is back, and so is Mario's token.
        await api.post("/api/undo", {})
        state = await api.state()
        assert state["bananas"] == [4] and state["players"][0]["position"] == 0
        for space in (1, 2, 5):
            await api.post("/api/bananas", {"space": space})
        await refused(api, "/api/bananas", {"space": 8}, 400, "4 Bananas on the board already")
        await api.post("/api/bananas", {"space": 1, "on": False})
        await refused(api, "/api/bananas", {"space": 1, "on": False}, 400, "no Banana on")
        await refused(api, "/api/bananas", {"space": 12}, 400, "0 to 11")
        await refused(api, "/api/bananas", {"space": 8, "on": "yes"}, 400, "on must be true")
        # A Boost Pad's roll is a move like any: from space 3, 4 more stops on the Banana at 5.
        await turn(api, luigi)
        await api.post("/api/tokens", {"player": luigi, "how": "place", "to": 3})
        move = await api.post("/api/tokens", {"player": luigi, "steps": 4})
        assert move["data"]["to"] == 4  # the Banana on Water Park (4) comes first
        await conserved(api)
    async with game(tmp_path / "g", "gamer", ("Mario", "Peach")) as (api, _app):
        await api.put("/api/board", gamer_board())
        await refused(api, "/api/bananas", {"space": 3}, 400, "has no Bananas")


async def test_final_score_counts_the_deeds_held_at_the_points_typed_once(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, peach = await api.ids()
        board = gamer_board()
        await api.put("/api/board", board)
        await refused(api, "/api/points", {"player": mario, "deeds": [1]}, 400,
                      "type the points printed on Acorn Plains's deed first")
        for space, points in ((1, 10), (6, 20), (11, 40)):
            board["spaces"][space]["points"] = points
        await api.put("/api/board", board)
        move = await api.post("/api/points", {"player": mario, "deeds": [11, 1]})
        assert move["text"] == "Mario: 50 points, 2 cards" and move["data"]["deeds"] == [1, 11]
        for body, words in (({"player": peach, "deeds": [1]}, "Acorn Plains is Mario's deed"),
                            ({"player": peach, "deeds": [2]}, "space 2 is not a Property"),
                            ({"player": peach, "deeds": [6, 6]}, "one Property twice"),
                            ({"player": peach, "deeds": "6"}, "deeds must list"),
                            ({"player": peach, "deeds": [6], "points": 3}, "not both")):
            await refused(api, "/api/points", body, 400, words)
        await api.post("/api/points", {"player": peach, "deeds": [6]})
        standings = {s["player"]: s for s in (await api.state())["standings"]}
        assert (standings[mario]["points"], standings[mario]["total"]) == (50, 50 + 40)  # 20 coins
        assert (standings[peach]["points"], standings[peach]["cards"]) == (20, 1)
        # The points typed are the board's: kept for the next game.
        await api.post("/api/games", {"edition": "gamer", "players": ["Ann", "Ben"]})
        assert (await api.state())["ring"]["spaces"][11]["points"] == 40


async def two_each(api: Any) -> list[int]:
    """A game of two: Ann plays Mario and Peach, Ben Yoshi and Donkey Kong; the board
    described. The players' ids."""
    ann, ben = await api.ids()
    await api.post("/api/characters", {"player": ann, "characters": ["mario", "peach"]})
    await api.post("/api/characters", {"player": ben, "characters": ["yoshi", "donkey_kong"]})
    await api.put("/api/board", gamer_board())
    return [ann, ben]


async def test_a_game_of_two_has_two_tokens_each(tmp_path: Path) -> None:
    """"Each player chooses two Characters and places both of those tokens on GO." """
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _app):
        ann, _ben = await two_each(api)
        state = await api.state()
        assert state["players"][0]["position"] is None
        assert state["players"][0]["tokens"] == {"mario": 0, "peach": 0}
        await refused(api, "/api/tokens", {"player": ann, "steps": 2}, 400,
                      "which of Ann's tokens moves?")
        await api.post("/api/tokens", {"player": ann, "steps": 2, "character": "peach"})
        state = await api.state()
        assert state["players"][0]["tokens"] == {"mario": 0, "peach": 2}
        # Both of Ann's tokens on different spaces: a drop names its space.
        await refused(api, "/api/drops", {"player": ann, "coins": 1}, 400,
                      "which of Ann's tokens drops?")
        await api.post("/api/tokens", {"player": ann, "steps": 1, "character": "mario"})
        await api.post("/api/tokens", {"player": ann, "steps": 1, "character": "mario"})
        move = await api.post("/api/drops", {"player": ann, "coins": 1})  # both on space 2
        assert move["entries"][0]["space"] == "space 2"
        await api.post("/api/undo", {})
        await api.post("/api/undo", {})
        assert (await api.state())["players"][0]["tokens"] == {"mario": 1, "peach": 2}
        await conserved(api)


async def test_deeds_are_bought_traded_and_counted_at_the_end(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach", "Yoshi")) as (api, _app):
        mario, peach, yoshi = await api.ids()
        board = gamer_board()
        board["spaces"][1].update(price=2, rent=1, points=10)
        board["spaces"][6].update(price=4, points=20)
        await api.put("/api/board", board)
        move = await api.post("/api/deeds", {"space": 1, "player": mario, "price": 2})
        assert move["text"] == "Mario buys Acorn Plains for 2"
        state = await api.state()
        assert state["deeds"] == {"1": mario} and coins(state) == [8, 10, 10]
        # An auction: Yoshi's bid of 7 goes to the Bank.
        await api.post("/api/deeds", {"space": 6, "player": yoshi, "price": 7})
        for body, words in (({"space": 1, "player": peach, "price": 2}, "price is paid for a "
                                                                         "deed the Bank holds"),
                            ({"space": 2, "player": peach, "correction": True},
                             "number of a Property"),
                            ({"space": 1, "player": mario}, "Mario's already"),
                            ({"space": 11, "player": peach, "price": 11}, "can't pay 11"),
                            ({"space": 11, "player": peach, "price": -1}, "0 to 1000"),
                            ({"space": 11}, "player is required")):
            await refused(api, "/api/deeds", body, 400, words)
        # A trade on Peach's turn: Yoshi's deed to Peach (her coins to him are a payment of
        # their own).
        await turn(api, peach)
        move = await api.post("/api/deeds", {"space": 6, "player": peach})
        assert move["text"] == "Peach's Castle's deed goes from Yoshi to Peach"
        await refused(api, "/api/points", {"player": mario, "deeds": [6]}, 400,
                      "Peach's Castle is Peach's deed")
        await api.post("/api/points", {"player": peach, "deeds": [6]})
        await api.post("/api/undo", {})
        await api.post("/api/undo", {})
        assert (await api.state())["deeds"] == {"1": mario, "6": yoshi}
        await conserved(api)



async def test_found_in_review_a_redo_of_a_press_move_gives_the_outcome_back(
        tmp_path: Path) -> None:
    """A press's move undone and redone: its outcome is Mario's again, never given twice."""
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, _peach = await api.ids()
        await api.post("/api/current", {"player": mario})
        await api.put("/api/board", gamer_board())
        await api.post("/api/press")
        moved = (await api.state())["players"][0]["position"]
        await api.post("/api/undo", {})
        state = await api.state()
        assert state["unassigned"] and state["players"][0]["position"] == 0
        await api.post("/api/redo", {"move": state["redo"]["move"]})
        state = await api.state()
        assert not state["unassigned"] and state["players"][0]["position"] == moved


async def test_found_in_review_a_banana_on_go_to_jail_goes_back_to_the_pile(
        tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Mario", "Luigi")) as (api, _app):
        mario, _luigi = await api.ids()
        await api.put("/api/board", kart_board())
        await api.post("/api/bananas", {"space": 11})  # on Go to Jail
        await api.post("/api/tokens", {"player": mario, "how": "place", "to": 9})
        jailed = await api.post("/api/tokens", {"player": mario, "steps": 4})
        assert jailed["kind"] == "jailed" and jailed["data"]["banana"] == 11
        assert (await api.state())["bananas"] == []
        await api.post("/api/undo", {})
        assert (await api.state())["bananas"] == [11]


async def test_found_in_review_labels_pile_names_and_a_board_changed_mid_game(
        tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, peach = await api.ids()
        board = gamer_board()
        board["spaces"][9] = {"kind": None, "name": "space 2"}  # another space's name
        reply = await api.put("/api/board", board, status=400)
        assert "spaces 2 and 9 would both be called space 2" in reply["error"]
        board["spaces"][9] = {"kind": [1]}  # not a kind at all: 400, not 500
        assert "is not one of this board's" in (await api.put("/api/board", board, 400))["error"]
        await api.put("/api/board", gamer_board())
        # Once described, a drop names one of its spaces (or a pile already down): the
        # rulebook's "Coin Block" is two spaces here.
        move = await api.post("/api/drops", {"player": peach, "space": "coin block 13",
                                             "coins": 1})
        assert move["entries"][0]["space"] == "Coin Block 13"
        move = await api.post("/api/drops", {"player": peach, "space": "Coin Block", "coins": 1})
        assert move["entries"][0]["space"] == "Coin Block"  # a name typed: kept, as before
        # A drop where the token stands depends on where it stands: the move that put it there
        # is not undone under it.
        await turn(api, peach)
        step = await api.post("/api/tokens", {"player": peach, "steps": 2})
        await api.post("/api/drops", {"player": peach, "coins": 1})
        reply = await api.post("/api/undo", {"move": step["id"]}, status=409)
        assert "where Peach's token stands" in reply["error"]
        # Tokens are on the board: it keeps its 16 spaces; names and kinds can be corrected.
        smaller = gamer_board()
        smaller["spaces"] = smaller["spaces"][:12]
        reply = await api.put("/api/board", smaller, status=400)
        assert "keeps its 16 spaces" in reply["error"]
        fixed = gamer_board()
        fixed["spaces"][14] = {"kind": "coin_block", "name": ""}
        assert (await api.put("/api/board", fixed))["labels"][14] == "Coin Block 14"
        await turn(api, mario)
        await api.post("/api/tokens", {"player": mario, "steps": 1})
        await conserved(api)


async def test_found_in_review_two_tokens_one_in_jail_the_other_moves(tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _app):
        ann, _ben = await two_each(api)
        await turn(api, ann)
        await api.post("/api/tokens", {"player": ann, "steps": 3, "character": "peach"})
        await api.post("/api/tokens", {"player": ann, "how": "place", "to": 10,
                                       "character": "mario"})
        jailed = await api.post("/api/tokens", {"player": ann, "steps": 2, "character": "mario"})
        assert jailed["kind"] == "jailed"
        assert (await api.state())["players"][0]["tokens"] == {"mario": JAIL_CORNER, "peach": 3}
        await turn(api, ann)  # her turn ended with it: on her next, Mario stays in Jail
        await refused(api, "/api/tokens", {"player": ann, "steps": 1, "character": "mario"},
                      400, "Ann is in Jail")
        move = await api.post("/api/tokens", {"player": ann, "steps": 2, "character": "peach"})
        assert move["data"]["to"] == 5


async def test_found_in_review_points_follow_the_deed_not_an_earlier_count(
        tmp_path: Path) -> None:
    async with game(tmp_path, "gamer", ("Mario", "Peach")) as (api, _app):
        mario, peach = await api.ids()
        board = gamer_board()
        board["spaces"][1].update(points=10)
        await api.put("/api/board", board)
        taken = await api.post("/api/deeds", {"space": 1, "player": mario})
        await api.post("/api/points", {"player": mario, "deeds": [1]})
        reply = await api.post("/api/undo", {"move": taken["id"]}, status=409)
        assert "who holds the deeds" in reply["error"]
        await api.post("/api/deeds", {"space": 1, "player": peach})  # traded since
        await api.post("/api/points", {"player": peach, "deeds": [1]})
        await refused(api, "/api/points", {"player": mario, "deeds": [1]}, 400,
                      "Acorn Plains is Peach's deed")
