"""A whole Monopoly Super Mario Bros. Movie game on a real daemon (MockFactory pins, a real SQLite
file) through the tablet's API on a real aiohttp server and the block's pin: the turn roll with
three doubles to Jail, Bowser's toll, a won and a lost battle, Piranha Plant and Super Star,
rolling out of Jail, a bankruptcy, and the end by "Bowser wins"; then the last player standing."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

from companion.daemon import Daemon
from tests.test_game_api import Api, game, press_the_button, refused


class Faces:
    """The dice the test wants, in order (the companion's own RNG is the OS's entropy; a
    daemon takes any ``randint``). Running out is a test bug, said loudly."""

    def __init__(self) -> None:
        self.faces: list[int] = []

    def load(self, *faces: int) -> None:
        self.faces.extend(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        assert self.faces, "the test rolled more dice than it loaded"
        return self.faces.pop(0)


def movie(tmp_path: Path, faces: Faces | random.Random,
          players: tuple[str, ...] = ("Mario", "Luigi", "Peach"),
          ) -> contextlib.AbstractAsyncContextManager[tuple[Api, Daemon]]:
    """A Movie table on a real daemon and server, its dice ``faces``."""
    return game(tmp_path, "movie", players, rng=faces)


async def roll(api: Api, app: Daemon, faces: Faces, *dice: int) -> dict[str, Any]:
    """Press the block by its pin with ``dice`` loaded: the outcome as the page sees it."""
    faces.load(*dice)
    await press_the_button(app)
    assert not faces.faces, "the press did not roll every die loaded"
    return (await api.state())["last_outcome"]  # type: ignore[no-any-return]


def banked(folder: Path) -> list[Any]:
    """The outcomes in the bank file, newest first (read-only, beside the daemon)."""
    from companion.bank import DB_NAME, Bank

    bank = Bank(folder / DB_NAME, readonly=True)
    try:
        return bank.outcomes()
    finally:
        bank.close()


def coins(state: dict[str, Any]) -> list[int]:
    return [p["balance"] for p in state["players"]]


def jailed(state: dict[str, Any]) -> list[bool]:
    return [p["in_jail"] for p in state["players"]]


async def test_a_movie_game_from_the_first_roll_to_bowser_and_the_last_player(
        tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, peach = await api.ids()
        start = await api.state()
        assert coins(start) == [30, 30, 30] and start["current_player"] == mario
        assert start["mode"]["id"] == "turn" and start["mode"]["default"]

        # The turn roll: both dice; Bowser moves the black one; no coins move.
        turn = await roll(api, app, faces, 3, 5)
        assert (turn["kind"], turn["red"], turn["black"], turn["total"]) == ("dice", 3, 5, 8)
        assert turn["player"] == mario and not turn["doubles"]
        assert turn["instruction"] == "Bowser moves 5 (black die), then you move 8"
        assert coins(await api.state()) == [30, 30, 30]

        # Luigi: doubles, doubles, doubles: Jail, no GO coins, the run counted on the way.
        await api.post("/api/next")
        first = await roll(api, app, faces, 2, 2)
        assert first["doubles"] and first["step"] == 1 and "another turn" in first["instruction"]
        state = await api.state()
        assert state["doubles"] == 1 and state["mode"]["text"] == "Turn roll: doubles 1 of 3"
        assert (await roll(api, app, faces, 4, 4))["step"] == 2
        third = await roll(api, app, faces, 6, 6)
        assert (third["kind"], third["step"]) == ("third_doubles", 3)
        state = await api.state()
        assert jailed(state) == [False, True, False] and state["doubles"] == 0
        assert coins(state) == [30, 30, 30]
        assert state["current_player"] == peach  # "Your turn then ends"
        journal = await api.get("/api/journal")
        assert journal["moves"][-1]["text"] == \
            "Luigi goes to Jail (third doubles in a row); Peach's turn"

        # Bowser's toll: a player in Jail is refused by name and nothing moves; then one move.
        await refused(api, "/api/toll", {"players": [mario, luigi]}, 400,
                      "Luigi is in Jail and pays no toll")
        toll = await api.post("/api/toll", {"players": [mario, peach]})
        assert toll["kind"] == "toll" and len(toll["entries"]) == 2
        assert app.speaker.backend.played[-1] == app.table.library.sounds["toll"]  # the low stomp
        assert toll["text"] == "Bowser's toll: Mario, Peach each pay 1 coin"
        assert coins(await api.state()) == [29, 30, 29]
        await api.post("/api/undo")  # one undo takes back the whole toll
        assert coins(await api.state()) == [30, 30, 30]
        await api.post("/api/toll", {"players": [mario, peach]})

        # A won battle: Peach leads with Mario (Luigi, in Jail, can't battle).
        await refused(api, "/api/battle", {"leader": peach, "teammate": luigi}, 400,
                      "in Jail")
        armed = (await api.post("/api/battle", {"leader": peach, "teammate": mario}))["mode"]
        assert armed["text"] == "Battle Bowser: Peach leads with Mario; Peach presses first"
        lead = await roll(api, app, faces, 3)
        assert (lead["kind"], lead["rolls"], lead["player"]) == ("battle_roll", [3], peach)
        state = await api.state()
        assert state["mode"]["id"] == "battle" and state["mode"]["first"] == 3
        assert "Mario presses for the second die" in state["mode"]["text"]
        won = await roll(api, app, faces, 4)
        assert (won["kind"], won["rolls"], won["coins"]) == ("battle_won", [3, 4], 2)
        state = await api.state()
        assert coins(state) == [29 + 2, 30, 29 + 2] and state["bowser_waits"]
        assert state["mode"]["id"] == "turn"  # the battle is over: back to the turn roll
        # Bowser waits on GO until everyone has had their next turn, Peach's too (the FAQ).
        for _ in range(3):
            await api.post("/api/next")
            assert (await api.state())["bowser_waits"]
        await api.post("/api/next")
        assert not (await api.state())["bowser_waits"]
        assert (await api.state())["current_player"] == mario

        # A lost battle: Mario leads with Peach; 2 + 4 = 6 sends the leader to Jail.
        await api.post("/api/battle", {"leader": mario, "teammate": peach})
        await roll(api, app, faces, 2)
        lost = await roll(api, app, faces, 4)
        assert (lost["kind"], lost["rolls"]) == ("battle_lost", [2, 4])
        state = await api.state()
        assert jailed(state) == [True, True, False] and coins(state) == [31, 30, 31]
        assert state["current_player"] == luigi  # the leader's turn ended with the battle

        # Piranha Plant and Super Star: one press each, armed on the tablet, for Peach.
        await api.post("/api/next")  # Peach
        await api.post("/api/mode", {"mode": "piranha"})
        bite = await roll(api, app, faces, 5)
        assert (bite["kind"], bite["coins"]) == ("piranha", 5)
        await api.post("/api/mode", {"mode": "super_star"})
        star = await roll(api, app, faces, 6)
        assert (star["kind"], star["coins"]) == ("super_star", 6)
        assert coins(await api.state()) == [31, 30, 31 - 5 + 6]

        # Mario rolls from Jail: two misses stay, the third pays 1 and moves with the roll.
        await api.post("/api/next")  # Mario, in Jail: a press rolls for doubles
        state = await api.state()
        assert state["mode"]["id"] == "jail" and "try 1 of 3" in state["mode"]["text"]
        miss = await roll(api, app, faces, 1, 2)
        assert (miss["kind"], miss["step"]) == ("jail_stay", 1)
        state = await api.state()
        assert state["players"][0]["jail_tries"] == 1
        assert state["current_player"] == luigi  # no doubles: he stays, and his turn is over
        for _ in range(2):
            await api.post("/api/next")  # his next turn
        assert (await roll(api, app, faces, 3, 4))["kind"] == "jail_stay"
        for _ in range(2):
            await api.post("/api/next")
        paid = await roll(api, app, faces, 5, 6)
        assert (paid["kind"], paid["coins"], paid["total"]) == ("jail_paid", 1, 11)
        state = await api.state()
        assert jailed(state) == [False, True, False] and coins(state)[0] == 30
        # Luigi rolls doubles from Jail: out, and moves with them.
        await api.post("/api/next")
        free = await roll(api, app, faces, 3, 3)
        assert free["kind"] == "jail_free" and free["total"] == 6
        assert jailed(await api.state()) == [False, False, False]

        # Bankruptcy: Peach to the Bank; two players are left, the game goes on.
        await api.post("/api/bankruptcy", {"player": peach, "creditor": "bank"})
        assert not (await api.state())["ended"]

        # Every deed on its Game Over side: Bowser wins, everyone loses.
        laughs = app.speaker.backend.played.count(app.table.library.sounds["bowser"])
        end = await api.post("/api/bowser-wins")
        assert app.speaker.backend.played.count(app.table.library.sounds["bowser"]) == laughs + 1
        assert end["ends"] and end["data"]["winners"] == [] and end["data"]["bowser"]
        over = await api.state()
        assert over["ended"] and over["bowser_won"] and over["winners"] == []
        await refused(api, "/api/press", None, 409, "ended")
        # Undo reopens it; Luigi goes bankrupt to Mario, the last player with coins wins.
        await api.post("/api/undo")
        assert not (await api.state())["ended"]
        last = await api.post("/api/bankruptcy", {"player": luigi, "creditor": mario})
        assert last["ends"] and last["data"]["winners"] == [mario]
        final = await api.state()
        assert final["winner"] == mario and not final["bowser_won"]
        # Coins are conserved: every coin a player holds came from the Bank's journal lines.
        entries = (await api.get("/api/journal"))["entries"]
        issued = sum(e["amount"] for e in entries if e["from"] == "bank") - sum(
            e["amount"] for e in entries if e["to"] == "bank")
        assert issued == sum(coins(final))


async def test_an_outcome_is_past_once_its_turn_has_passed_and_a_jailing_one_after_the_next(
        tmp_path: Path) -> None:
    """Issue 44 (5): the state's ``turn.past_outcomes`` says which outcomes a page shows as
    history. Next makes the turn's press past; a press that passed the turn itself (third
    doubles: Jail, "Your turn then ends") is the news of the turn it began, until Next."""
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, _luigi, peach = await api.ids()
        assert (await api.state())["turn"]["past_outcomes"] == 0
        mine = await roll(api, app, faces, 3, 5)
        assert mine["id"] > (await api.state())["turn"]["past_outcomes"]  # his turn's news
        await api.post("/api/next", {"from": mario})
        assert mine["id"] <= (await api.state())["turn"]["past_outcomes"]  # history now
        await roll(api, app, faces, 2, 2)
        await roll(api, app, faces, 4, 4)
        third = await roll(api, app, faces, 6, 6)
        state = await api.state()
        assert third["kind"] == "third_doubles" and state["current_player"] == peach
        assert state["turn"]["past_outcomes"] == third["id"] - 1  # shown as news to Peach
        await api.post("/api/next", {"from": peach})
        state = await api.state()
        assert state["turn"]["past_outcomes"] == third["id"]
        await api.post("/api/undo")  # the Next undone: Peach's turn again, and its news
        assert (await api.state())["turn"]["past_outcomes"] == third["id"] - 1


async def test_jail_by_hand_pay_to_leave_and_undo_takes_jail_back(tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        mario, luigi = await api.ids()
        await api.post("/api/next")  # Luigi's turn: he lands on Go to Jail
        sent = await api.post("/api/jail", {"player": luigi, "in_jail": True})
        assert sent["kind"] == "jailed"
        assert sent["text"] == "Luigi goes to Jail (sent by the banker); Mario's turn"
        await refused(api, "/api/jail", {"player": luigi, "in_jail": True, "correction": True},
                      400, "already in Jail")
        await refused(api, "/api/jail", {"player": luigi, "in_jail": "yes", "correction": True},
                      400, "in_jail must be true")
        await refused(api, "/api/jail", {"player": 999, "in_jail": True}, 400, "unknown player")
        # Paying the fee at the start of his next turn frees him: one coin to the Bank.
        await api.post("/api/next")
        fee = await api.post("/api/jail", {"player": luigi})
        assert (fee["from"], fee["to"], fee["amount"]) == (luigi, "bank", 1)
        state = await api.state()
        assert jailed(state) == [False, False] and coins(state) == [30, 29]
        await api.post("/api/undo")  # back in Jail, the coin back
        state = await api.state()
        assert jailed(state) == [False, True] and coins(state) == [30, 30]
        # A Get Out of Jail Free card: out without paying.
        await api.post("/api/jail", {"player": luigi, "in_jail": False})
        assert jailed(await api.state()) == [False, False]
        await api.post("/api/undo")
        assert jailed(await api.state()) == [False, True]
        # Undo of an outcome's Jail: third doubles, undone, and he is out again.
        await api.post("/api/jail", {"player": luigi, "in_jail": False})
        await api.post("/api/next")  # Mario rolls
        await roll(api, app, faces, 1, 1)
        await roll(api, app, faces, 2, 2)
        await roll(api, app, faces, 5, 5)
        state = await api.state()
        assert jailed(state) == [True, False] and state["current_player"] == luigi
        undone = await api.post("/api/undo")  # one undo: out of Jail, and his turn again
        assert undone["undid"]["kind"] == "jailed"
        state = await api.state()
        assert jailed(state) == [False, False] and state["current_player"] == mario
        assert (await api.post("/api/redo", {"move": undone["move"]["id"]}))["move"]
        state = await api.state()
        assert jailed(state) == [True, False] and state["current_player"] == luigi


async def test_the_movies_bad_input_is_refused_by_name_and_changes_nothing(
        tmp_path: Path) -> None:
    async with movie(tmp_path, Faces()) as (api, _app):
        mario, luigi, peach = await api.ids()
        for body, words in (({}, "players is required"),
                            ({"players": []}, "non-empty list"),
                            ({"players": "everyone"}, "non-empty list"),
                            ({"players": [mario, mario]}, "Mario is listed twice"),
                            ({"players": [mario, 999]}, "unknown player 999"),
                            ({"players": [mario], "coins": 5}, "unknown field(s): coins")):
            await refused(api, "/api/toll", body, 400, words)
        for body, words in (({"teammate": luigi}, "leader is required"),
                            ({"leader": mario, "teammate": mario}, "another player"),
                            ({"leader": mario}, "teammate is required"),
                            ({"leader": "Mario", "teammate": luigi}, "leader must be a player"),
                            ({"leader": mario, "teammate": luigi, "first": 6},
                             "unknown field(s): first")):
            await refused(api, "/api/battle", body, 400, words)
        await refused(api, "/api/mode", {"mode": "jail"}, 400, "not armed by hand")
        await refused(api, "/api/mode", {"mode": "piranha", "leader": mario}, 400,
                      "takes nothing more")
        await refused(api, "/api/bowser-wins", {"why": "deeds"}, 400, "unknown field(s)")
        # The other editions have no toll and no Bowser win.
        await api.post("/api/games", {"edition": "celebration", "players": ["A", "B"]})
        a, _b = await api.ids()
        await refused(api, "/api/toll", {"players": [a]}, 400, "no Bowser's toll")
        await refused(api, "/api/bowser-wins", {}, 400, "Bowser can't win")
        await refused(api, "/api/battle", {"leader": a, "teammate": _b}, 400, "has no 'battle'")
        del peach


async def test_a_lone_leader_rolls_both_dice_when_everyone_else_is_in_jail(
        tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        mario, luigi = await api.ids()
        await api.post("/api/jail", {"player": luigi, "in_jail": True, "correction": True})
        armed = (await api.post("/api/battle", {"leader": mario, "teammate": None}))["mode"]
        assert "Mario leads alone" in armed["text"]
        await roll(api, app, faces, 6)
        won = await roll(api, app, faces, 2)
        assert won["kind"] == "battle_won"
        assert coins(await api.state()) == [32, 30]  # the leader alone is paid
        # ... and the words say so: no teammate to pay.
        assert won["instruction"] == ("The leader collects 2 coins. Bowser goes to GO and waits "
                                      "there until everyone has had a turn")
        assert "teammate" not in won["description"]


async def test_the_doubles_run_and_jail_tries_survive_a_restart(tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        await roll(api, app, faces, 4, 4)
        assert (await api.state())["doubles"] == 1
    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        assert (await api.state())["doubles"] == 1  # from the bank, not from memory
        assert (await roll(api, app, faces, 3, 3))["step"] == 2
        third = await roll(api, app, faces, 1, 1)
        assert third["kind"] == "third_doubles"
        await api.post("/api/next")  # Mario again (his turn ended with Jail), in Jail
        await roll(api, app, faces, 1, 2)
    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        state = await api.state()
        assert state["players"][0]["in_jail"] and state["players"][0]["jail_tries"] == 1
        assert state["current_player"] == state["players"][1]["id"]  # the miss ended his turn
        await api.post("/api/next")
        assert "try 2 of 3" in (await api.state())["mode"]["text"]


async def test_the_odds_of_every_movie_mode_on_a_real_daemon_fit_the_rulebook(
        tmp_path: Path) -> None:
    """Presses through the API with the OS's entropy: the tally of each mode fits its exact
    odds (chi-square), so the daemon draws from the tables ``companion odds`` proves."""
    from companion.core.editions import editions
    from companion.core.odds import report

    rules = editions()["movie"]
    async with movie(tmp_path, random.SystemRandom(), ("Mario", "Luigi")) as (api, _app):
        mario, luigi = await api.ids()
        tallies: dict[str, dict[str, int]] = {m.id: {} for m in rules.modes}
        for mode, presses in (("turn", 720), ("piranha", 120), ("super_star", 120)):
            for _ in range(presses):
                if mode != "turn":
                    await api.post("/api/mode", {"mode": mode})
                outcome = await api.post("/api/press")
                label = outcome["label"]
                tallies[mode][label] = tallies[mode].get(label, 0) + 1
                if outcome["kind"] == "third_doubles":  # Jail: out, to keep rolling the dice
                    jailed_one = (await api.state())["last_outcome"]["player"]
                    await api.post("/api/jail", {"player": jailed_one, "in_jail": False,
                                                 "correction": True})
                    continue  # the turn has passed with it
                await api.post("/api/next")
        for _ in range(120):
            await api.post("/api/battle", {"leader": mario, "teammate": luigi})
            await api.post("/api/press")
            label = (await api.post("/api/press"))["label"]
            tallies["battle"][label] = tallies["battle"].get(label, 0) + 1
            if label == "lost":
                await api.post("/api/jail", {"player": mario, "in_jail": False,
                                             "correction": True})
        for mode in ("turn", "piranha", "super_star", "battle"):
            fit = report("movie", rules.mode(mode), tallies[mode])
            assert fit.p_value > 1e-4, (mode, fit)
        # Every press is in the bank: 720 + 120 + 120 one-press outcomes, 120 battles of two.
        assert len(banked(tmp_path)) == 720 + 120 + 120 + 2 * 120
        assert not (await api.state())["ended"]


async def test_battle_piranha_and_super_star_cards_at_the_table(tmp_path: Path) -> None:
    """Action cards on the reader: a Battle card makes the current player the leader and the
    next player card tapped the teammate; presses wait for that tap."""
    from companion.app import commands as c

    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, peach = await api.ids()
        for uid, body in (("04A1B2C3", {"action": "battle"}), ("04A1B2C4", {"action": "piranha"}),
                          ("04A1B2C5", {"action": "super_star"}),
                          ("04D1D2D3", {"player": luigi}), ("04D1D2D4", {"player": mario})):
            await api.post("/api/cards", {"uid": uid, **body})
        tapped = await app.table.act(c.Tap("04A1B2C3"), source="reader")
        assert tapped["did"] == "next press: Battle Bowser: Mario leads; tap the teammate's card"
        state = await api.state()
        before = state["version"]
        await press_the_button(app)  # ignored: nobody to battle with yet
        assert (await api.state())["version"] == before and not faces.faces
        refused_tap = await app.table.act(c.Tap("04D1D2D4"), source="reader")
        assert "another player" in refused_tap["did"]  # the leader can't team with himself
        joined = await app.table.act(c.Tap("04D1D2D3"), source="reader")
        assert joined["did"] == "Luigi joins Mario's battle"
        assert (await api.state())["current_player"] == mario  # the tap did not pass the turn
        await roll(api, app, faces, 6)
        assert (await roll(api, app, faces, 1))["kind"] == "battle_won"
        assert coins(await api.state()) == [32, 32, 30]
        await app.table.act(c.Tap("04A1B2C4"), source="reader")
        assert (await roll(api, app, faces, 2))["kind"] == "piranha"
        await app.table.act(c.Tap("04A1B2C5"), source="reader")
        assert (await roll(api, app, faces, 3))["kind"] == "super_star"
        assert coins(await api.state()) == [33, 32, 30]
        del peach


# -- what a review found: each case as the table would meet it ------------------------------


async def test_a_battler_sent_to_jail_after_arming_disarms_it_and_nothing_is_lost(
        tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, _peach = await api.ids()
        await api.post("/api/battle", {"leader": mario, "teammate": luigi})
        await roll(api, app, faces, 4)  # Mario's die
        await api.post("/api/jail", {"player": luigi, "in_jail": True, "correction": True})
        state = await api.state()
        assert state["mode"]["id"] == "turn"  # a battle with a jailed teammate is no battle
        turn = await roll(api, app, faces, 2, 5)  # the next press is Mario's turn roll
        assert turn["kind"] == "dice" and turn["player"] == mario
        # Nothing lost: Mario's die and the turn roll are both in the bank; no coins moved.
        assert [o.outcome.kind.value for o in reversed(banked(tmp_path))] == [
            "battle_roll", "dice"]
        assert coins(await api.state()) == [30, 30, 30]


async def test_arming_the_same_battle_again_keeps_its_first_die(tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, _peach = await api.ids()
        body = {"leader": mario, "teammate": luigi}
        await api.post("/api/battle", body)
        await roll(api, app, faces, 5)
        again = (await api.post("/api/battle", body))["mode"]  # a retry of the same request
        assert again["first"] == 5 and "Mario rolled 5" in again["text"]
        assert (await roll(api, app, faces, 2))["kind"] == "battle_won"


async def test_undoing_doubles_out_of_jail_gives_the_try_back(tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        mario, _luigi = await api.ids()
        await api.post("/api/jail", {"player": mario, "in_jail": True})  # Luigi's turn now
        await api.post("/api/next")  # Mario's next turn: he rolls for doubles
        free = await roll(api, app, faces, 4, 4)
        assert free["kind"] == "jail_free"
        await api.post("/api/undo")
        state = await api.state()
        assert state["players"][0]["in_jail"] and state["players"][0]["jail_tries"] == 0
        assert "try 1 of 3" in state["mode"]["text"]
        assert [o["kind"] for o in state["unassigned"]] == ["jail_free"]  # for the banker


async def test_a_turn_that_ended_in_jail_counts_as_a_turn(tmp_path: Path) -> None:
    """Bowser on GO waits until everyone has had their next turn, however the turn passed;
    the doubles of a turn that ended in Jail don't carry over to the next player."""
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, peach = await api.ids()
        await api.post("/api/battle", {"leader": mario, "teammate": luigi})
        await roll(api, app, faces, 6)
        await roll(api, app, faces, 6)  # won: Bowser waits
        await api.post("/api/next")  # Luigi
        for face in (1, 2, 3):
            await roll(api, app, faces, face, face)  # three doubles: Jail, Peach's turn
        state = await api.state()
        assert state["current_player"] == peach and state["doubles"] == 0
        assert state["bowser_waits"]
        await api.post("/api/next")  # Mario's next turn: the FAQ lets him have it first
        assert (await api.state())["bowser_waits"]
        await api.post("/api/next")  # the fourth pass since the battle (three players)
        assert not (await api.state())["bowser_waits"]


async def test_a_battle_card_with_nobody_free_is_the_leader_alone(tmp_path: Path) -> None:
    from companion.app import commands as c

    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        _mario, luigi = await api.ids()
        await api.post("/api/jail", {"player": luigi, "in_jail": True, "correction": True})
        await api.post("/api/cards", {"uid": "04A1B2C3", "action": "battle"})
        tapped = await app.table.act(c.Tap("04A1B2C3"), source="reader")
        assert tapped["did"] == "next press: Battle Bowser: Mario leads alone; Mario presses " \
                                "first"
        await roll(api, app, faces, 3)
        lost = await roll(api, app, faces, 3)
        assert (lost["kind"], lost["rolls"]) == ("battle_lost", [3, 3])  # 6 or less
        assert (await api.state())["players"][0]["in_jail"]  # the leader goes to Jail


def test_a_held_battle_keeps_its_lone_leader_and_a_held_doubles_its_step() -> None:
    """The held-presses file keeps what a press was armed with, a lone leader's missing
    teammate included, and which doubles in a row it was."""
    from companion.bank.held import HeldPress
    from companion.core.outcomes import Kind, Outcome

    battle = HeldPress("a" * 32, 1.0, Outcome(Kind.BATTLE_WON, 2, (3, 5), "battle", 2),
                       "button", 1, 1, True, {"leader": 1, "teammate": None, "first": 3})
    doubles = HeldPress("b" * 32, 2.0, Outcome(Kind.DICE, 0, (4, 4), "turn", 2), "button",
                        1, 1, True, {"doubles": 1})
    for press in (battle, doubles):
        assert HeldPress.from_json(json.loads(json.dumps(press.to_json()))) == press


def test_the_press_path_lays_a_press_over_the_state_as_the_bank_will_have_it(
        tmp_path: Path) -> None:
    """``TableState.pressed``: coins alone leave the state as it is (the bank's answer says
    them); the Movie's doubles, Jail and turn are as the bank will write them."""
    from companion.bank import DB_NAME, Bank
    from companion.core.outcomes import Kind, Outcome

    bank = Bank(tmp_path / DB_NAME)
    bank.new_game("movie", ["Mario", "Luigi", "Peach"])
    mario, luigi, _peach = (p.id for p in bank.players())
    bank.set_current(mario)
    state = bank.state()
    assert state.pressed(Outcome(Kind.SUPER_STAR, 4, (4,), "super_star"), mario) is state
    twice = state.pressed(Outcome(Kind.DICE, 0, (2, 2), "turn", 1), mario) \
        .pressed(Outcome(Kind.DICE, 0, (5, 5), "turn", 2), mario)
    assert twice.doubles == 2 and twice.current_player == mario
    jailed = twice.pressed(Outcome(Kind.THIRD_DOUBLES, 0, (1, 1), "turn", 3), mario)
    assert jailed.doubles == 0 and jailed.current_player == luigi
    assert [p.in_jail for p in jailed.players] == [True, False, False]
    for outcome in (Outcome(Kind.DICE, 0, (2, 2), "turn", 1),
                    Outcome(Kind.DICE, 0, (5, 5), "turn", 2),
                    Outcome(Kind.THIRD_DOUBLES, 0, (1, 1), "turn", 3)):
        bank.record_outcome(outcome)  # the same presses, banked
    after = bank.state()
    assert (after.doubles, after.current_player, [p.in_jail for p in after.players]) == (
        jailed.doubles, jailed.current_player, [p.in_jail for p in jailed.players])
    bank.close()
