"""A whole Monopoly Gamer: Mario Kart game on a real daemon through the tablet's API and the
block's pin: every Power-up ability with and without its boost, every Super Star, drops and
scoops, a Race with a three-way tie re-rolled, a tie for second re-rolled among the two, a
discarded card, a lone entrant, the final Race and its rematch, and the final score with the
Grand Prix points counted by the companion; every coin accounted for at every step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.test_board_coins import piles
from tests.test_game_api import Api, game, refused, turn
from tests.test_gamer_game import coins, heard, press, step
from tests.test_movie_game import Faces

CARD = {"fee": 2, "prizes": [5, 3, 1], "points": 30}
"""The numbers the table types from a Grand Prix card (made up here: the cards print them)."""


async def race_state(api: Api) -> dict[str, Any]:
    return (await api.state())["race"]  # type: ignore[no-any-return]


async def test_a_whole_mario_kart_game_to_the_final_score(tmp_path: Path) -> None:
    faces = Faces()
    async with game(tmp_path, "mario_kart", ("Ann", "Ben", "Cat"), rng=faces) as (api, app):
        ann, ben, cat = await api.ids()
        for pid, who in ((ann, "mario"), (ben, "peach"), (cat, "toad")):
            await api.post("/api/characters", {"player": pid, "characters": [who]})

        # Spiny Shell: one player (Peach: one or two).
        move = await step(api, "/api/abilities", {"player": ann, "ability": "spiny_shell",
                                                  "targets": [ben],
                                                  "spaces": {str(ben): "Thwomp"}})
        assert move["text"] == "Ann: Spiny Shell: Ben drops 3 on Thwomp"
        await refused(api, "/api/abilities", {"player": ann, "ability": "spiny_shell",
                                              "targets": [ben, cat]}, 400,
                      "one other player")
        await turn(api, ben)
        move = await step(api, "/api/abilities", {
            "player": ben, "ability": "spiny_shell", "targets": [ann, cat],
            "spaces": {str(ann): "Boost Pad", str(cat): "Thwomp"}})
        assert move["data"]["boost"] and len(move["entries"]) == 2
        # Green Shell.
        await turn(api, cat)
        await step(api, "/api/abilities", {"player": cat, "ability": "green_shell",
                                           "targets": [ann], "spaces": {str(ann): "GO"}})
        # Lightning: all others drop 1; Toad's: and each gives him 1.
        before = coins(await api.state())
        await turn(api, ann)
        move = await step(api, "/api/abilities", {
            "player": ann, "ability": "lightning",
            "spaces": {str(ben): "Item Box", str(cat): "Item Box"}})
        after = coins(await api.state())
        assert [before[n] - after[n] for n in ("Ann", "Ben", "Cat")] == [0, 1, 1]
        before = after
        await turn(api, cat)
        move = await step(api, "/api/abilities", {
            "player": cat, "ability": "lightning",
            "spaces": {str(ann): "Item Box", str(ben): "Item Box"}})
        after = coins(await api.state())
        assert move["data"]["boost"] and after["Cat"] - before["Cat"] == 2
        assert (before["Ann"] - after["Ann"], before["Ben"] - after["Ben"]) == (2, 2)
        # Coins: collect 3; Mario may take spaces instead.
        before = coins(await api.state())
        await turn(api, ben)
        await step(api, "/api/abilities", {"player": ben, "ability": "coins"})
        await turn(api, ann)
        move = await step(api, "/api/abilities", {"player": ann, "ability": "coins",
                                                  "spaces_instead": True})
        assert move["entries"] == [] and "spaces instead" in move["text"]
        await step(api, "/api/abilities", {"player": ann, "ability": "coins"})
        after = coins(await api.state())
        assert (after["Ann"] - before["Ann"], after["Ben"] - before["Ben"]) == (3, 3)
        await turn(api, ben)
        await refused(api, "/api/abilities", {"player": ben, "ability": "coins",
                                              "spaces_instead": True}, 400,
                      "only for an ability that offers spaces")
        await turn(api, ann)
        # Banana: no coins, shown and logged (Luigi's boost is his own; nobody plays him).
        move = await step(api, "/api/abilities", {"player": ann, "ability": "banana"})
        assert move["entries"] == [] and "Banana" in move["text"]
        # Super Stars: Mario collects 3; Peach's and Luigi's move no coins; Toad drops up to 5.
        before = coins(await api.state())
        await step(api, "/api/abilities", {"player": ann, "ability": "super_star"})
        await turn(api, ben)
        move = await step(api, "/api/abilities", {"player": ben, "ability": "super_star"})
        assert move["entries"] == []
        await turn(api, cat)
        move = await step(api, "/api/abilities", {"player": cat, "ability": "super_star",
                                                  "coins": 4,
                                                  "spaces": {str(cat): "Free Parking"}})
        after = coins(await api.state())
        assert (after["Ann"] - before["Ann"], before["Cat"] - after["Cat"]) == (3, 4)
        assert piles(await api.state())["Free Parking"] == 4
        await refused(api, "/api/abilities", {"player": cat, "ability": "super_star",
                                              "coins": 6, "spaces": {str(cat): "GO"}}, 400,
                      "0 to 5")
        # Scoops: Ben passes Item Box and Thwomp.
        await turn(api, ben)
        for space in ("Item Box", "Thwomp"):
            await step(api, "/api/scoops", {"player": ben, "space": space})

        # Grand Prix 1: all three enter and pay; a three-way tie, re-rolled. (Each card is
        # flipped at the end of a turn that landed on or passed GO.)
        assert (await api.state())["next_card"]["number"] == 1
        await turn(api, ann)
        await api.post("/api/go", {})
        await step(api, "/api/race", {"action": "open", "card": CARD, "player": ann})
        await refused(api, "/api/race", {"action": "start"}, 400, "nobody has entered")
        before = coins(await api.state())
        for pid in (cat, ann, ben):
            await step(api, "/api/race", {"action": "enter", "player": pid})
        await refused(api, "/api/race", {"action": "enter", "player": ann}, 400,
                      "entered already")
        await refused(api, "/api/race", {"action": "close"}, 400, "start the race")
        await step(api, "/api/race", {"action": "start"})
        assert heard(app) == app.table.library.sounds["race_countdown"]
        race = await race_state(api)
        assert race["entrants"] == [ann, ben, cat] and race["roller"] == ann  # the flipper
        assert (await api.state())["mode"]["id"] == "race"
        for face in (4, 4, 4):
            await press(api, app, faces, face)
        assert heard(app) == app.table.library.sounds["dice_roll"]  # no finish yet: a tie
        race = await race_state(api)
        assert race["tied"] == [ann, ben, cat] and race["places"] == [] and \
            race["roller"] == ann
        for face in (2, 6, 5):  # Ann 2, Ben 6, Cat 5
            await press(api, app, faces, face)
        library = app.table.library
        assert heard(app) == library.sounds["dice_roll"] + library.sounds["race_finish"]
        race = await race_state(api)
        assert race["over"] and race["places"] == [ben, cat, ann] and race["winner"] == ben
        assert race["prizes"] == [{"player": ben, "coins": 5}, {"player": cat, "coins": 3},
                                  {"player": ann, "coins": 1}]
        after = coins(await api.state())
        assert [after[n] - before[n] for n in ("Ann", "Ben", "Cat")] == [-2 + 1, -2 + 5, -2 + 3]
        await refused(api, "/api/race", {"action": "enter", "player": ann}, 400, "started")
        await step(api, "/api/race", {"action": "close"})
        assert [p["won"] for p in (await api.state())["players"]] == [[], [1], []]

        # Grand Prix 2: a tie for second only: Ann wins, Ben and Cat re-roll between them.
        await turn(api, cat)
        await api.post("/api/go", {})
        await step(api, "/api/race", {"action": "open", "card": {**CARD, "points": 40},
                                      "player": cat})
        for pid in (ann, ben, cat):
            await step(api, "/api/race", {"action": "enter", "player": pid})
        await step(api, "/api/race", {"action": "start"})
        for face in (3, 6, 3):  # from Cat: Cat 3, Ann 6, Ben 3
            await press(api, app, faces, face)
        race = await race_state(api)
        assert race["places"] == [ann] and race["tied"] == [cat, ben] and race["roller"] == cat
        for face in (1, 2):
            await press(api, app, faces, face)
        race = await race_state(api)
        assert race["places"] == [ann, ben, cat] and race["over"]
        await step(api, "/api/race", {"action": "close"})

        # Grand Prix 3: nobody enters: the card is discarded.
        await api.post("/api/go", {})
        await step(api, "/api/race", {"action": "open", "card": CARD})
        await step(api, "/api/race", {"action": "close"})
        # Grand Prix 4-7: one entrant each wins without a roll.
        for number, pid in zip(range(4, 8), (cat, cat, ann, ben), strict=True):
            state = await api.state()
            assert state["next_card"]["number"] == number
            await api.post("/api/go", {})
            await step(api, "/api/race", {"action": "open", "card": {**CARD, "points": 10}})
            await step(api, "/api/race", {"action": "enter", "player": pid})
            await step(api, "/api/race", {"action": "start"})
            assert (await race_state(api))["winner"] == pid
            await step(api, "/api/race", {"action": "close"})

        # Grand Prix 8, the final Race: no prize but a rematch; Cat goes to Jail on her turn
        # (Ann's next).
        await api.post("/api/jail", {"player": cat, "in_jail": True})
        assert (await api.state())["next_card"]["final"]
        await api.post("/api/go", {})
        await step(api, "/api/race", {"action": "open", "card": {**CARD, "points": 50}})
        await refused(api, "/api/race", {"action": "enter", "player": cat}, 400, "in Jail")
        for pid in (ann, ben):
            await step(api, "/api/race", {"action": "enter", "player": pid})
        await step(api, "/api/race", {"action": "start"})
        before = coins(await api.state())
        await press(api, app, faces, 5)
        await press(api, app, faces, 2)
        state = await api.state()
        assert state["race"]["winner"] == ann and state["race"]["prizes"] == []
        assert coins(state) == before
        assert state["next_card"]["rematch_due"] and state["next_card"]["held"] == [
            1, 2, 4, 5, 6, 7, 8]
        await refused(api, "/api/race", {"action": "open", "rematch": 3}, 400,
                      "a Grand Prix card a player holds")
        # Ann picks Grand Prix 1 (Ben's) for the rematch: its numbers, everyone may enter.
        await step(api, "/api/race", {"action": "open", "rematch": 1})
        race = await race_state(api)
        assert race["rematch"] and race["card"]["number"] == 1 and race["card"]["fee"] == 2
        # (No Get Out of Jail Free card in this box: the banker's correction lets her out.)
        await api.post("/api/jail", {"player": cat, "in_jail": False, "correction": True})
        for pid in (ann, ben):
            await step(api, "/api/race", {"action": "enter", "player": pid})
        await step(api, "/api/race", {"action": "start"})
        await press(api, app, faces, 6)
        await press(api, app, faces, 1)
        race = await race_state(api)
        assert race["winner"] == ann and race["prizes"][0] == {"player": ann, "coins": 5}
        state = await api.state()
        assert sorted(state["players"][0]["won"]) == [1, 2, 6, 8]  # card 1 is Ann's now
        assert state["players"][1]["won"] == [7]
        await api.post("/api/points", {"player": ben, "points": 90, "cards": 3})
        end = await step(api, "/api/race", {"action": "close"})
        assert end["ends"]
        state = await api.state()
        rows = {s["player"]: s for s in state["standings"]}
        assert rows[ann]["points"] == 30 + 40 + 10 + 50 and rows[ann]["cards"] == 4
        assert rows[ben]["points"] == 90 + 10 and rows[ben]["cards"] == 3 + 1
        assert rows[cat]["points"] == 20 and rows[cat]["cards"] == 2
        assert state["ended"] and state["race"] is None


async def test_a_race_closed_before_its_rematch_ends_the_game(tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Ann", "Ben")) as (api, _app):
        ann, _ben = await api.ids()
        for _ in range(7):
            await api.post("/api/go", {})
            await api.post("/api/race", {"action": "open", "card": CARD})
            await api.post("/api/race", {"action": "enter", "player": ann})
            await api.post("/api/race", {"action": "start"})
            await api.post("/api/race", {"action": "close"})
        await api.post("/api/go", {})
        await api.post("/api/race", {"action": "open", "card": CARD})  # the final: nobody
        end = await api.post("/api/race", {"action": "close"})
        assert end["ends"] and (await api.state())["winners"] == [ann]
        await refused(api, "/api/race", {"action": "open", "rematch": 1}, 409, "ended")


async def test_presses_back_to_back_roll_for_each_racer_in_turn(tmp_path: Path) -> None:
    """The press path folds each roll into the race before the bank has it: a second press
    right after the first is the next racer's, never the same racer's again."""
    import asyncio

    faces = Faces()
    async with game(tmp_path, "mario_kart", ("Ann", "Ben", "Cat"), rng=faces) as (api, app):
        ann, ben, cat = await api.ids()
        await turn(api, ben)
        await api.post("/api/go", {})
        await api.post("/api/race", {"action": "open", "card": CARD, "player": ben})
        for pid in (ann, ben, cat):
            await api.post("/api/race", {"action": "enter", "player": pid})
        await api.post("/api/race", {"action": "start"})
        faces.load(2, 5, 3)
        pin = app.button.pin
        for _ in range(3):  # no wait for the bank between presses
            pin.drive_low()
            await asyncio.sleep(0.01)
            pin.drive_high()
            await asyncio.sleep(0.01)
        await app.table.drain()
        race = await race_state(api)
        assert [(r["player"], r["roll"]) for r in race["rolls"]] == [(ben, 2), (cat, 5),
                                                                     (ann, 3)]
        assert race["places"] == [cat, ann, ben] and race["over"]
        assert (await api.state())["mode"]["id"] == "item_box"  # the race is decided


async def test_undoing_a_close_reopens_the_race_as_it_ended(tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Ann", "Ben")) as (api, _app):
        ann, ben = await api.ids()
        await api.post("/api/go", {})
        await api.post("/api/race", {"action": "open", "card": CARD})
        await api.post("/api/race", {"action": "enter", "player": ben})
        await api.post("/api/race", {"action": "start"})
        await api.post("/api/race", {"action": "close"})
        await api.post("/api/race", {"action": "open", "card": {**CARD, "points": 5},
                                     "correction": True})  # a second card in one turn
        await api.post("/api/race", {"action": "close"})  # nobody entered: discarded
        state = await api.state()
        assert state["players"][1]["won"] == [1] and state["next_card"]["number"] == 3
        undone = await api.post("/api/undo")
        assert undone["undid"]["data"]["action"] == "close"
        state = await api.state()
        assert state["race"]["card"]["number"] == 2 and state["race"]["entrants"] == []
        await api.post("/api/undo")  # the open of card 2
        await api.post("/api/undo")  # the close of card 1: Ben's win shows again
        state = await api.state()
        assert state["race"]["winner"] == ben and state["players"][1]["won"] == [1]
        assert state["redo"] is None  # a contest's step is taken again, not redone
        await refused(api, "/api/race", {"action": "enter", "player": ann}, 400, "started")


async def test_found_in_review_rematch_undo_jail_and_stray_fields(tmp_path: Path) -> None:
    """A review found these: undoing a rematch left no way to end the game; a player sent to
    Jail after entering still raced; ``rematch: true`` passed for card 1; fields that mean
    nothing for a step were stored or ignored."""
    faces = Faces()
    async with game(tmp_path, "mario_kart", ("Ann", "Ben"), rng=faces) as (api, app):
        ann, ben = await api.ids()
        await api.post("/api/go", {})
        await api.post("/api/race", {"action": "open", "card": CARD})
        await refused(api, "/api/race", {"action": "enter", "player": ann, "card": CARD}, 400,
                      "card is only for opening a card")
        await api.post("/api/race", {"action": "enter", "player": ben})
        # Ben sent to Jail in Ann's turn, and let out (no such card in this box): corrections.
        await api.post("/api/jail", {"player": ben, "in_jail": True, "correction": True})
        await refused(api, "/api/race", {"action": "start"}, 400,
                      "Ben went to Jail after entering")
        await refused(api, "/api/race", {"action": "enter", "player": ben}, 400, "in Jail")
        await api.post("/api/jail", {"player": ben, "in_jail": False, "correction": True})
        await refused(api, "/api/race", {"action": "start", "player": {"junk": 1}}, 400,
                      "start takes no player")
        await api.post("/api/race", {"action": "start"})
        await refused(api, "/api/race", {"action": "close", "player": "x" * 50}, 400,
                      "close takes no player")
        await api.post("/api/race", {"action": "close"})
        for _ in range(6):
            await api.post("/api/go", {})
            await api.post("/api/race", {"action": "open", "card": CARD})
            await api.post("/api/race", {"action": "enter", "player": ann})
            await api.post("/api/race", {"action": "start"})
            await api.post("/api/race", {"action": "close"})
        await api.post("/api/go", {})
        await api.post("/api/race", {"action": "open", "card": {**CARD, "points": 50}})
        await api.post("/api/race", {"action": "enter", "player": ann})
        await api.post("/api/race", {"action": "enter", "player": ben})
        await api.post("/api/race", {"action": "start"})
        await press(api, app, faces, 2)
        await press(api, app, faces, 6)  # Ben wins the final Race: card 8 and a rematch
        assert (await api.state())["next_card"]["rematch_due"]
        await refused(api, "/api/race", {"action": "open", "rematch": True}, 400,
                      "a Grand Prix card a player holds")
        opened = await api.post("/api/race", {"action": "open", "rematch": 2})
        assert opened["text"] == "Ann flips the rematch of Grand Prix 2: the race opens"
        state = await api.state()
        assert sorted(state["players"][1]["won"]) == [1, 8] and state["race"]["rematch"]
        await api.post("/api/undo")  # the rematch taken back: the final Race stands as it ended
        state = await api.state()
        assert state["race"]["final"] and state["race"]["winner"] == ben
        assert state["next_card"]["rematch_due"] and state["players"][1]["won"] == [1, 8]
        end = await api.post("/api/race", {"action": "close"})  # no rematch: the end
        assert end["ends"] and (await api.state())["ended"]


async def test_the_final_race_is_flipped_without_prizes_its_rematch_asks_them(
        tmp_path: Path) -> None:
    """"There is one prize for the final Race, and that is to choose one Grand Prix card from
    any player and have a rematch of that Race": the final card is flipped with its fee and
    points only (a card before it still needs its prizes); a rematch of that card itself pays
    its prizes ("Prizes are handed out according to the card"), so they are typed then."""
    async with game(tmp_path, "mario_kart", ("Ann", "Ben")) as (api, _app):
        ann, ben = await api.ids()
        bare = {"fee": 0, "points": 40}
        for _ in range(7):
            await api.post("/api/go", {})
            await refused(api, "/api/race", {"action": "open", "card": bare}, 400,
                          "prizes must list the coins for 1st, 2nd")
            await api.post("/api/race", {"action": "open", "card": {**CARD, "fee": 0}})
            await api.post("/api/race", {"action": "enter", "player": ann})
            await api.post("/api/race", {"action": "start"})
            await api.post("/api/race", {"action": "close"})
        await api.post("/api/go", {})
        await api.post("/api/race", {"action": "open", "card": bare})  # the final: no prizes
        race = await race_state(api)
        assert race["final"] and race["card"]["prizes"] == []
        await api.post("/api/race", {"action": "enter", "player": ben})
        before = coins(await api.state())
        await api.post("/api/race", {"action": "start"})  # the only racer: Ben wins card 8
        assert coins(await api.state()) == before  # no coins by place
        assert (await race_state(api))["winner"] == ben
        await refused(api, "/api/race", {"action": "open", "rematch": 8}, 400,
                      "type the prizes printed on Grand Prix 8: its rematch pays them")
        await api.post("/api/race", {"action": "open", "rematch": 8,
                                     "card": {**bare, "prizes": [6, 2]}})
        race = await race_state(api)
        assert race["rematch"] and race["card"]["prizes"] == [6, 2]
        await api.post("/api/race", {"action": "enter", "player": ann})
        await api.post("/api/race", {"action": "start"})  # Ann alone: 1st, its prize paid
        after = coins(await api.state())
        assert after["Ann"] == before["Ann"] + 6 and after["Ben"] == before["Ben"]
        end = await api.post("/api/race", {"action": "close"})
        state = await api.state()
        assert end["ends"] and state["ended"]
        assert sorted(state["players"][0]["won"]) == [1, 2, 3, 4, 5, 6, 7, 8]
        # The next game: card 8 flipped as the final Race again, its prizes not asked: those
        # typed for the rematch are kept with the card (for another rematch), none is paid.
        await api.post("/api/games", {"edition": "mario_kart", "players": ["Ann", "Ben"]})
        for _ in range(7):
            await api.post("/api/race", {"action": "open", "card": CARD, "correction": True})
            await api.post("/api/race", {"action": "close"})
        await api.post("/api/race", {"action": "open", "card": bare, "correction": True})
        race = await race_state(api)
        assert race["final"] and race["card"]["prizes"] == [6, 2] and race["prizes"] == []
