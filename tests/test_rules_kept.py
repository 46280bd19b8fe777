"""The rules the companion used to bend, each played through the API on a real daemon, server
and SQLite file: every test fails without its fix (issue 28)."""

from __future__ import annotations

from pathlib import Path

from companion.bank import DB_NAME, Bank
from tests.test_game_api import game, refused
from tests.test_movie_game import Faces, coins, movie, roll


def players_coins(folder: Path) -> tuple[dict[int, int], int, int]:
    """Coins conserved: each player's, the Board's piles, and the Bank's net (what it paid
    out less what it took in), read beside the daemon."""
    bank = Bank(folder / DB_NAME, readonly=True)
    try:
        journal = bank.journal()
        bank_net = sum(e.amount for e in journal if e.payer == "bank" and e.space is None) - \
            sum(e.amount for e in journal if e.payee == "bank" and e.space is None)
        return bank.balances(), sum(bank.board().values()), bank_net
    finally:
        bank.close()


# -- 3. Going to Jail ends the turn, in the same move ------------------------------------------


async def test_going_to_jail_passes_the_turn_in_one_move_and_one_undo(tmp_path: Path) -> None:
    """"Your turn is now over." (Celebration): sending the current player to Jail passes the
    turn with the same move; its undo gives both back; the next press is not a Jail try."""
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, _app):
        mario, luigi, _peach = await api.ids()
        sent = await api.post("/api/jail", {"player": mario, "in_jail": True})
        assert sent["text"] == "Mario goes to Jail (sent by the banker); Luigi's turn"
        state = await api.state()
        assert state["current_player"] == luigi and state["players"][0]["in_jail"]
        assert state["undo"]["text"] == sent["text"]  # one move: one undo
        await api.post("/api/undo")
        state = await api.state()
        assert state["current_player"] == mario and not state["players"][0]["in_jail"]
        # Sending someone else to Jail (the banker's correction: a Go to Jail is the mover's)
        # does not touch whose turn it is.
        sent = await api.post("/api/jail", {"player": luigi, "in_jail": True,
                                            "correction": True})
        assert sent["text"] == "Correction: Luigi goes to Jail (sent by the banker)"
        assert (await api.state())["current_player"] == mario


async def test_a_movie_player_sent_to_jail_does_not_roll_from_jail_in_the_same_turn(
        tmp_path: Path) -> None:
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, _ = await api.ids()
        await api.post("/api/jail", {"player": mario, "in_jail": True})
        turn = await roll(api, app, faces, 2, 3)  # Luigi's turn roll, not Mario's try
        assert (turn["kind"], turn["player"]) == ("dice", luigi)
        assert (await api.state())["players"][0]["jail_tries"] == 0


# -- 4. The jail fee is a way out --------------------------------------------------------------


async def test_the_jail_fee_is_refused_to_a_player_not_in_jail(tmp_path: Path) -> None:
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _app):
        mario, _luigi = await api.ids()
        before = await api.state()
        await refused(api, "/api/jail", {"player": mario}, 400,
                      "Mario is not in Jail: the jail fee is only a way out of it")
        assert coins(await api.state()) == coins(before)
        await api.post("/api/jail", {"player": mario, "in_jail": True})  # Luigi's turn
        await api.post("/api/next")  # "Pay 5 coins at the start of your next turn"
        paid = await api.post("/api/jail", {"player": mario})
        assert paid["amount"] == 5
        state = await api.state()
        assert coins(state) == [25, 30] and not state["players"][0]["in_jail"]


# -- 6. Bowser waits on GO ---------------------------------------------------------------------


async def test_while_bowser_waits_the_turn_roll_moves_no_bowser(tmp_path: Path) -> None:
    """"Bowser stays on the GO space until all of the players have completed their next
    turn": the roll says so and uses no black die for him; after, he moves again."""
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, _peach = await api.ids()
        await api.post("/api/battle", {"leader": mario, "teammate": luigi})
        await roll(api, app, faces, 3)
        assert (await roll(api, app, faces, 4))["kind"] == "battle_won"
        assert (await api.state())["bowser_waits"]
        waits = await roll(api, app, faces, 2, 5)
        assert waits["bowser_waits"] and waits["instruction"] == "Bowser waits on GO: you move 7"
        assert "black die" not in waits["description"]
        for _ in range(4):  # everyone's next turn, Mario's too
            await api.post("/api/next")
        assert not (await api.state())["bowser_waits"]
        moves = await roll(api, app, faces, 2, 5)
        assert "bowser_waits" not in moves
        assert moves["instruction"] == "Bowser moves 5 (black die), then you move 7"


async def test_rolling_out_of_jail_says_where_bowser_goes(tmp_path: Path) -> None:
    """"Each time the players roll the dice to move they will use the black die to move
    Bowser": doubles out of Jail move him first."""
    faces = Faces()
    async with movie(tmp_path, faces, ("Mario", "Luigi")) as (api, app):
        mario, _luigi = await api.ids()
        await api.post("/api/jail", {"player": mario, "in_jail": True})
        await api.post("/api/next")
        free = await roll(api, app, faces, 4, 4)
        assert free["kind"] == "jail_free"
        assert free["instruction"] == \
            "Out of Jail with the doubles. Bowser moves 4 (black die), then you move 8"


# -- 7. Debt in Gamer and Mario Kart: sell first -----------------------------------------------


async def test_a_gamer_sells_property_back_before_a_capped_payment(tmp_path: Path) -> None:
    """"If you do not have enough Coins, you must sell Property you own back to the Bank for
    face value ... Then drop or give any Coins you still owe": the sale and the payment are
    one move, and every coin is accounted for."""
    async with game(tmp_path, "gamer", ("Toad", "Daisy")) as (api, _app):
        toad, daisy = await api.ids()
        before = players_coins(tmp_path)
        await refused(api, "/api/transfers", {"from": toad, "to": daisy, "amount": 5,
                                              "sold": 8}, 400,
                      "Toad has 20 coins, enough to pay 5: nothing to sell")
        await refused(api, "/api/transfers", {"from": toad, "to": daisy, "amount": 30,
                                              "sold": 0}, 400, "sold must be the face value")
        await refused(api, "/api/transfers", {"from": "bank", "to": daisy, "amount": 30,
                                              "sold": 8}, 400, "not the Bank")
        assert players_coins(tmp_path) == before
        paid = await api.post("/api/transfers", {"from": toad, "to": daisy, "amount": 30,
                                                 "sold": 6, "note": "rent"})
        assert (paid["amount"], paid["asked"], paid["sold"], paid["capped"]) == (26, 30, 6, True)
        state = await api.state()
        assert coins(state) == [0, 46]
        assert state["recent"][0]["kind"] == "transfer"
        words = state["undo"]["text"]
        assert words == ("Toad sells Property back to the Bank for 6, then: Toad pays Daisy 26 "
                         "of 30 · rent")
        balances, board, bank_net = players_coins(tmp_path)
        # Conserved: the players and the Board hold what the Bank paid out, net: the
        # opening 20 + 20 and the sale's 6.
        assert sum(balances.values()) + board == bank_net == 40 + 6
        await api.post("/api/undo")  # the sale and the payment, one undo
        assert coins(await api.state()) == [20, 20]
        assert players_coins(tmp_path) == before


# -- 8. Tries out of Jail in every edition that has them -----------------------------------------


async def test_celebration_counts_three_tries_for_a_6_then_pays_and_moves(
        tmp_path: Path) -> None:
    """"You can use up to 3 turns to try for a 6. If you dont roll a 6 by your third turn in
    Jail, pay 5 coins and use your last roll to move." A miss ends the turn."""
    async with game(tmp_path, "celebration", ("Mario", "Luigi")) as (api, _app):
        mario, luigi = await api.ids()
        await api.post("/api/jail", {"player": mario, "in_jail": True})
        await api.post("/api/next")
        for tried in (1, 2):
            miss = await api.post("/api/jail/roll", {"player": mario, "six": False})
            assert miss["text"] == (f"Mario missed a 6 (try {tried} of 3): stays in Jail; "
                                    "Luigi's turn")
            state = await api.state()
            assert state["players"][0]["jail_tries"] == tried
            assert state["current_player"] == luigi
            await api.post("/api/next")
        last = await api.post("/api/jail/roll", {"player": mario, "six": False})
        assert last["text"] == "Mario missed a 6 (try 3 of 3): pays 5 and moves out of Jail"
        state = await api.state()
        assert coins(state) == [25, 30] and not state["players"][0]["in_jail"]
        assert state["current_player"] == mario  # "use your last roll to move"
        await api.post("/api/undo")
        state = await api.state()
        assert coins(state) == [30, 30] and state["players"][0]["jail_tries"] == 2
        rules = await api.get("/api/rules")
        assert rules["jail_tries"] == 3 and rules["jail_rolls"]["last"] == "pay"


async def test_gamer_leaves_jail_free_after_the_second_try(tmp_path: Path) -> None:
    """"After your second attempt at rolling, you may exit Jail for free and roll both dice
    normally on your next turn"; a 6 frees at once."""
    async with game(tmp_path, "gamer", ("Toad", "Daisy")) as (api, _app):
        toad, daisy = await api.ids()
        await api.post("/api/jail", {"player": toad, "in_jail": True})
        await api.post("/api/next")
        await api.post("/api/jail/roll", {"player": toad, "six": False})
        await api.post("/api/next")
        second = await api.post("/api/jail/roll", {"player": toad, "six": False})
        assert second["text"] == ("Toad missed a 6 (try 2 of 2): leaves Jail for free and "
                                  "moves next turn; Daisy's turn")
        state = await api.state()
        assert not state["players"][0]["in_jail"] and coins(state) == [20, 20]
        assert state["current_player"] == daisy
        await api.post("/api/jail", {"player": daisy, "in_jail": True})  # Toad's turn again
        await api.post("/api/next")  # Daisy's next turn: she rolls for a 6
        six = await api.post("/api/jail/roll", {"player": daisy, "six": True})
        assert six["text"] == "Daisy rolled a 6: out of Jail (try 1 of 2)"
        assert not (await api.state())["players"][1]["in_jail"]
        await refused(api, "/api/jail/roll", {"player": daisy, "six": False}, 400,
                      "Daisy is not in Jail")
        await api.post("/api/next")  # Toad's turn: his bad requests are refused by name
        await refused(api, "/api/jail/roll", {"player": toad, "six": "no"}, 400,
                      "six must be true")
        await refused(api, "/api/jail/roll", {"player": toad}, 400, "six is required")


async def test_the_movie_rolls_from_jail_on_the_block_not_by_hand(tmp_path: Path) -> None:
    async with movie(tmp_path, Faces(), ("Mario", "Luigi")) as (api, _app):
        mario, _ = await api.ids()
        await api.post("/api/jail", {"player": mario, "in_jail": True})
        await refused(api, "/api/jail/roll", {"player": mario, "six": False}, 400,
                      "the block rolls for doubles from Jail: press it")
        assert (await api.get("/api/rules"))["jail_tries"] == 3


# -- 9. Points games end with their last card ----------------------------------------------------


async def test_mario_kart_ends_only_with_the_final_race_or_the_named_house_rule(
        tmp_path: Path) -> None:
    async with game(tmp_path, "mario_kart", ("Toad", "Daisy")) as (api, _app):
        await refused(api, "/api/end", None, 400,
                      "ends when its final Grand Prix card has been played, and 8 cards are "
                      "still to play")
        assert not (await api.state())["ended"]
        end = await api.post("/api/end", {"early": True})
        assert end["text"].startswith("The final score (house rule: ended before the last card)")


# -- 10. Wiggly Worms: the dealt variant, and who slides the lever -----------------------------


async def test_dealt_wiggly_worms_with_two_players_is_won_at_ten_worms(tmp_path: Path) -> None:
    """"shuffle all of the cards and randomly deal cards to each player. Each player should
    get the same number of cards": 20 worm cards, two players, ten each."""
    async with game(tmp_path, "wiggly_worms", ("Ann", "Ben")) as (api, _app):
        ann, ben = await api.ids()
        assert (await api.state())["game"]["worms"] == 5
        await refused(api, "/api/options", {"dealt": "yes"}, 400, "dealt must be true or false")
        await refused(api, "/api/options", {}, 400, "give simultaneous or dealt")
        assert not (await api.state())["game"]["dealt"]
        assert await api.post("/api/options", {"dealt": True}) == {
            "simultaneous": False, "dealt": True}
        state = await api.state()
        assert state["game"]["worms"] == 10 and state["game"]["dealt"]
        await api.post("/api/worms", {"player": ben, "found": 6})  # refused before: over 5
        await refused(api, "/api/options", {"dealt": False}, 400, "worms have been found")
        await refused(api, "/api/worms", {"player": ann, "found": 11}, 400, "found must be")
        assert not (await api.state())["ended"]
        won = await api.post("/api/worms", {"player": ben, "found": 10})
        assert won["ends"] and won["text"] == "Ben has found 10 worms: Ben wins!"
        state = await api.state()
        assert state["ended"] and state["winners"] == [ben]
