"""Who may act, and when (issue 42): the turn as the engine's own structure. Each of the table's
slips is played through the API on a real daemon, its SQLite file and server: the move out of
its moment, or for a player whose turn it is not, is refused (409) with the rulebook's words and
changes nothing; the banker's correction makes it all the same, kept and shown as one. Each test
fails without its fix."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.test_board_coins import conserved
from tests.test_board_ring import gamer_board
from tests.test_game_api import Api, game
from tests.test_movie_game import Faces, movie, roll


async def out_of_turn(api: Api, path: str, body: dict[str, Any], words: str,
                      quoted: str) -> dict[str, Any]:
    """A 409 naming why, quoting the rulebook, offering a correction; nothing changed."""
    before = await api.state()
    reply = await api.post(path, body, status=409)
    assert words in reply["error"], reply
    assert any(quoted in line for line in reply["quote"]), reply
    assert reply["correction"] is True and reply["rule"], reply
    assert await api.state() == before
    return reply


async def corrected(api: Api, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The banker's correction: made, kept as one, said as one in the history."""
    reply: dict[str, Any] = await api.post(path, {**body, "correction": True})
    move = reply.get("move", reply) if "data" not in reply else reply
    state = await api.state()
    assert state["undo"]["text"].startswith("Correction: "), state["undo"]
    if "data" in move:
        assert move["data"]["correction"]["rule"], move
    return reply


# -- 1. A roll for a 6 is the jailed player's own, at the start of their turn -----------------


async def test_a_roll_for_a_six_is_made_by_the_jailed_player_on_their_own_turn(
        tmp_path: Path) -> None:
    """"Roll a 6 on your next turn. ... You can use up to 3 turns to try for a 6." With Ann
    current, Ben's roll is refused; on his turn he rolls once, and a miss passes it."""
    async with game(tmp_path, "celebration", ("Ann", "Ben", "Cy")) as (api, _app):
        ann, ben, _cy = await api.ids()
        # Sending Ben to Jail in Ann's turn is a correction ("Move your token to the In Jail
        # space immediately!" is the lander's own move).
        await out_of_turn(api, "/api/jail", {"player": ben, "in_jail": True},
                          "it is Ann's turn: Ben may do this only on their own turn",
                          "Move your token to the In Jail space immediately!")
        await corrected(api, "/api/jail", {"player": ben, "in_jail": True})
        await out_of_turn(api, "/api/jail/roll", {"player": ben, "six": False},
                          "it is Ann's turn", "Roll a 6 on your next turn.")
        await api.post("/api/next", {})
        missed = await api.post("/api/jail/roll", {"player": ben, "six": False})
        assert missed["data"]["try"] == 1 and missed["data"]["current_after"] is not None
        await out_of_turn(api, "/api/jail/roll", {"player": ben, "six": False},
                          "it is Cy's turn", "Roll a 6 on your next turn.")
        state = await api.state()
        assert state["players"][1]["jail_tries"] == 1 and state["players"][1]["in_jail"]
        # The current player sent to Jail: the turn passes, and their roll waits for theirs.
        await api.post("/api/next", {})  # Ann's turn
        await api.post("/api/jail", {"player": ann, "in_jail": True})
        await out_of_turn(api, "/api/jail/roll", {"player": ann, "six": True},
                          "it is Ben's turn: Ann may do this only on their own turn",
                          "Roll a 6 on your next turn.")


async def test_gamer_a_jailed_player_is_not_out_free_in_the_turn_they_went_in(
        tmp_path: Path) -> None:
    """Gamer: "If you fail to roll a 6, your turn ends. After your second attempt at rolling,
    you may exit Jail for free": two misses in one turn used to free him."""
    async with game(tmp_path, "gamer", ("Ann", "Ben", "Cy")) as (api, _app):
        _ann, ben, _cy = await api.ids()
        await corrected(api, "/api/jail", {"player": ben, "in_jail": True})
        for _ in range(2):
            await out_of_turn(api, "/api/jail/roll", {"player": ben, "six": False},
                              "it is Ann's turn", "If you fail to roll a 6, your turn ends.")
        assert (await api.state())["players"][1]["in_jail"]


# -- 2. The jail fee at the start of the jailed player's next turn -----------------------------


async def test_the_jail_fee_is_paid_at_the_start_of_the_jailed_players_next_turn(
        tmp_path: Path) -> None:
    """The Movie: "Pay one coin to the Bank at the start of your turn." Luigi jailed in
    Mario's turn pays on his own turn, before he rolls; not in Mario's."""
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, _peach = await api.ids()
        await corrected(api, "/api/jail", {"player": luigi, "in_jail": True})
        await out_of_turn(api, "/api/jail", {"player": luigi}, "it is Mario's turn",
                          "Pay one coin to the Bank at the start of your turn.")
        await out_of_turn(api, "/api/jail", {"player": luigi, "in_jail": False},
                          "it is Mario's turn", "Use a Get Out of Jail free card")
        await api.post("/api/next", {})
        paid = await api.post("/api/jail", {"player": luigi})
        assert paid["amount"] == 1
        assert not (await api.state())["players"][1]["in_jail"]
        # Once the roll is made, the start of the turn is over: Mario sent to Jail (by a
        # correction) pays on his next turn, not after Luigi's roll.
        await corrected(api, "/api/jail", {"player": mario, "in_jail": True})
        await roll(api, app, faces, 2, 3)  # Luigi's roll
        await api.post("/api/next", {})  # Peach's turn
        await api.post("/api/next", {})  # Mario's turn
        await roll(api, app, faces, 1, 2)  # Mario rolls for doubles from Jail and misses
        state = await api.state()
        assert state["current_player"] == luigi
        await out_of_turn(api, "/api/jail", {"player": mario}, "it is Luigi's turn",
                          "Pay one coin to the Bank at the start of your turn.")


async def test_the_fee_before_the_roll_in_gamer(tmp_path: Path) -> None:
    """Gamer: "Pay 5 Coins to the Bank before you roll the dice for your turn": after his
    roll (the token moved, GO passed) the fee is refused; the rulebook's ways out are the
    fee and the die, no Get Out of Jail Free card."""
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _app):
        ann, ben = await api.ids()
        await api.post("/api/jail", {"player": ann, "in_jail": True})  # Ann's own turn
        assert (await api.state())["current_player"] == ben
        await api.post("/api/go", {})  # Ben moves
        await api.post("/api/next", {})
        await out_of_turn(api, "/api/jail", {"player": ann, "in_jail": False},
                          "the rulebook has no such move",
                          "Pay 5 Coins to the Bank before you roll the dice for your turn.")
        await api.post("/api/jail/roll", {"six": True})  # out with a 6, moves with it
        await api.post("/api/jail", {"in_jail": True})  # Ann again: Ben's turn
        await api.post("/api/next", {})  # ... and Ann's again, in Jail
        paid = await api.post("/api/jail", {})
        assert paid["amount"] == 5


# -- 3. Bankruptcy's creditor is a fact of the journal ----------------------------------------


async def test_the_creditor_is_whom_the_latest_unpaid_payment_went_to(tmp_path: Path) -> None:
    """Pay 35 of 30 to Luigi, then lines by others: Mario still owes Luigi, however many lines
    followed; the page reads it from the state, not from its last eight lines."""
    async with game(tmp_path, "celebration", ("Mario", "Luigi", "Peach")) as (api, _app):
        mario, luigi, peach = await api.ids()
        await api.post("/api/transfers", {"from": mario, "to": luigi, "amount": 35})
        await api.post("/api/next", {})
        for _ in range(6):
            await api.post("/api/go", {})  # Luigi's turn: GO, over and over
        await api.post("/api/transfers", {"from": peach, "to": luigi, "amount": 2})
        await api.post("/api/transfers", {"from": luigi, "to": peach, "amount": 1})
        state = await api.state()
        owes = {p["name"]: p["owes_to"] for p in state["players"]}
        assert owes == {"Mario": luigi, "Luigi": None, "Peach": None}
        assert all(line["from"] != mario for line in state["recent"])  # off the last lines
        # Mario pays the Bank a fee he doesn't have: now he owes the Bank.
        await api.post("/api/transfers", {"from": mario, "to": "bank", "amount": 1})
        assert (await api.state())["players"][0]["owes_to"] == "bank"
        await api.post("/api/undo", {})
        assert (await api.state())["players"][0]["owes_to"] == luigi


# -- 4 and 5. Property sold back to the Bank goes back to the Bank; a sale comes first -----------


def described(prices: dict[int, int]) -> dict[str, Any]:
    board = gamer_board()
    for space, price in prices.items():
        board["spaces"][space]["price"] = price
    return board


async def test_a_property_sold_back_to_the_bank_is_the_banks_again(tmp_path: Path) -> None:
    """"You must sell Property you own back to the Bank for face value": the deed goes back
    with the sale, one move; its undo gives it back."""
    async with game(tmp_path, "gamer", ("Ann", "Ben", "Cy")) as (api, _app):
        ann, ben, _cy = await api.ids()
        await api.put("/api/board", {**described({1: 3}), "faces": []})
        await api.post("/api/deeds", {"space": 1, "player": ann, "price": 3})
        assert (await api.state())["deeds"] == {"1": ann}
        await api.post("/api/transfers", {"from": ann, "to": ben, "amount": 8, "sold": 3},
                       status=400)  # which Property? Ann holds one
        sold = await api.post("/api/transfers", {"from": ann, "to": ben, "amount": 8,
                                                 "deeds": [1]})  # at the price typed
        assert sold["sold"] == 3 and sold["amount"] == 8 and not sold["capped"]
        state = await api.state()
        assert state["deeds"] == {} and state["undo"]["text"].startswith(
            "Ann sells Acorn Plains back to the Bank for 3, then: Ann pays Ben 8")
        await conserved(api)
        await api.post("/api/undo", {})
        assert (await api.state())["deeds"] == {"1": ann}
        await conserved(api)


async def test_a_capped_payment_waits_for_the_sale_of_the_deeds_the_payer_holds(
        tmp_path: Path) -> None:
    """Cy holds space 3's deed with 7 coins and owes 12: "If you do not have enough Coins,
    you must sell Property you own ... Then drop or give any Coins you still owe." Refused
    until the deed is sold (or the banker corrects it)."""
    async with game(tmp_path, "gamer", ("Ann", "Ben", "Cy")) as (api, _app):
        ann, _ben, cy = await api.ids()
        board = described({1: 3, 6: 4})
        await api.put("/api/board", {**board, "faces": []})
        await api.post("/api/transfers", {"from": cy, "to": "bank", "amount": 3})
        await api.post("/api/deeds", {"space": 6, "player": cy, "price": 0, "correction": True})
        assert (await api.state())["players"][2]["balance"] == 7
        await out_of_turn(api, "/api/transfers", {"from": cy, "to": ann, "amount": 12},
                          "Cy has 7 coins of 12 and holds Peach's Castle: sell Property first",
                          "you must sell Property you own back to the Bank")
        paid = await api.post("/api/transfers", {"from": cy, "to": ann, "amount": 12,
                                                 "deeds": [6]})
        assert (paid["sold"], paid["amount"], paid["capped"]) == (4, 11, True)
        await conserved(api)
        # Once nothing is left to sell, a capped payment is what they have ("Hang in there").
        broke = await api.post("/api/transfers", {"from": cy, "to": ann, "amount": 5})
        assert broke["amount"] == 0 and broke["capped"]


# -- 6. A Green Shell hits the next player on the board ----------------------------------------


async def test_a_green_shell_hits_the_next_player_ahead_on_the_board(tmp_path: Path) -> None:
    """"the next player on the board, from your position, drops 3 Coins": with the tokens
    known, another target is refused (or made as a correction)."""
    async with game(tmp_path, "gamer", ("Ann", "Ben", "Cy")) as (api, _app):
        ann, ben, cy = await api.ids()
        await api.put("/api/board", {**gamer_board(), "faces": []})
        for pid, to in ((ann, 2), (ben, 9), (cy, 14)):
            await api.post("/api/tokens", {"player": pid, "how": "place", "to": to,
                                           "correction": pid != ann})
        await out_of_turn(api, "/api/abilities", {"player": ann, "ability": "green_shell",
                                                  "targets": [cy]},
                          "the Green Shell hits the next player on the board from Ann's "
                          "space: Ben", "the next player on the board, from your position")
        hit = await api.post("/api/abilities", {"player": ann, "ability": "green_shell",
                                                "targets": [ben]})
        assert hit["entries"][0]["from"] == ben and hit["entries"][0]["amount"] == 3
        await conserved(api)


# -- 7. A Boss card is flipped at the end of a turn that passed GO -------------------------------


async def test_a_boss_card_is_flipped_only_after_the_turn_landed_on_or_passed_go(
        tmp_path: Path) -> None:
    """"At the end of your turn, if you landed on or passed GO, flip over the top Boss card":
    a new game's card is not due, and is not flipped."""
    card = {"cost": 2, "required": 4, "pay_to": "bank", "bonus": 3, "points": 10}
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _app):
        await out_of_turn(api, "/api/boss", {"action": "open", "card": card},
                          "Ann has not landed on or passed GO this turn",
                          "if you landed on or passed GO, flip over the top Boss card")
        assert (await api.state())["next_card"]["due"] is False
        await api.post("/api/go", {})
        assert (await api.state())["next_card"]["due"] is True
        opened = await api.post("/api/boss", {"action": "open", "card": card})
        assert opened["data"]["action"] == "open"


# -- 8. A press rolls for the space the token landed on -----------------------------------------


async def test_a_press_after_the_move_rolls_only_for_a_coin_block(tmp_path: Path) -> None:
    """"Coin Block When you land here, roll the numbered die, and collect": once the token
    has moved, a press on a Property is ignored, saying why; on a Coin Block it rolls once."""
    rng = random.Random(3)
    async with game(tmp_path, "gamer", ("Ann", "Ben"), rng=rng) as (api, _app):
        ann, _ben = await api.ids()
        board = gamer_board()
        # The board's first six spaces, the ones a roll from GO lands on: all Property.
        for space in range(1, 7):
            board["spaces"][space] = {"kind": "property", "name": f"Lot {space}"}
        await api.put("/api/board", board)
        moved = await api.post("/api/press")
        assert moved["kind"] == "move"
        state = await api.state()
        assert state["landed"] == state["players"][0]["position"] and state["landed"] in range(
            1, 7)
        before = await api.state()
        ignored = await api.post("/api/press", status=409)
        assert "Ann landed on Lot" in ignored["error"] and "Coin Block" in ignored["error"]
        after = await api.state()
        assert [p["balance"] for p in after["players"]] == [p["balance"] for p in
                                                            before["players"]]
        # Placed on a Coin Block this turn: one roll, then nothing more to roll.
        await api.post("/api/tokens", {"player": ann, "how": "place", "to": 13})
        rolled = await api.post("/api/press")
        assert rolled["kind"] == "coins" and rolled["coins"] >= 1
        again = await api.post("/api/press", status=409)
        assert "Ann has rolled for this Coin Block already" in again["error"]
        await conserved(api)


# -- 9. Bowser waits on GO: he passes nobody ------------------------------------------------------


async def test_no_toll_while_bowser_waits_on_go(tmp_path: Path) -> None:
    """"Bowser stays on the GO space until all of the players have completed their next
    turn": while he waits he passes nobody, so no toll (but as the banker's correction)."""
    faces = Faces()
    async with movie(tmp_path, faces) as (api, app):
        mario, luigi, _peach = await api.ids()
        await api.post("/api/battle", {"leader": mario, "teammate": luigi})
        await roll(api, app, faces, 4)
        await roll(api, app, faces, 5)  # 9: Bowser is beaten, and waits on GO
        assert (await api.state())["bowser_waits"]
        await out_of_turn(api, "/api/toll", {"players": [luigi]},
                          "Bowser waits on GO until every player has completed their next "
                          "turn", "Bowser stays on the GO space")
        await corrected(api, "/api/toll", {"players": [luigi]})


# -- the flow in the state, and who may correct ---------------------------------------------------


async def test_the_state_says_what_the_moment_allows(tmp_path: Path) -> None:
    """The page offers what the moment allows: the state's turn and, for each move with a
    moment of its own, None or why not."""
    async with game(tmp_path, "celebration", ("Ann", "Ben")) as (api, _app):
        state = await api.state()
        assert state["turn"]["moment"] == "start" and state["turn"]["player"] == state[
            "current_player"]
        assert state["flow"]["jail"] is None and state["flow"]["roll_from_jail"] is None
        await api.post("/api/go", {})
        state = await api.state()
        assert state["turn"]["moment"] == "turn"
        refusal = state["flow"]["jail"]
        assert refusal["moment"] == "start" and "has rolled this turn" in refusal["error"]
        assert state["flow"]["pass_go"] is None


async def test_a_retry_after_the_turn_moved_on_is_the_first_answer(tmp_path: Path) -> None:
    """A roll from Jail that passed the turn, retried with its Idempotency-Key: the same
    answer, not "it is Ben's turn"."""
    async with game(tmp_path, "celebration", ("Ann", "Ben")) as (api, _app):
        ann, _ben = await api.ids()
        await api.post("/api/jail", {"player": ann, "in_jail": True})
        await api.post("/api/next", {})
        headers = {"Idempotency-Key": "roll-1"}
        async with api.session.post(api.base + "/api/jail/roll", json={"six": False},
                                    headers={**headers, **AUTH}) as reply:
            first = await reply.json()
            assert reply.status == 201, first
        async with api.session.post(api.base + "/api/jail/roll", json={"six": False},
                                    headers={**headers, **AUTH}) as reply:
            again = await reply.json()
            assert reply.status == 201 and again["id"] == first["id"], again


AUTH = {"Authorization": "Bearer game-test-token-0123456789"}


async def test_a_phone_never_makes_a_correction(tmp_path: Path) -> None:
    """A player's own phone pays from its own coins, by the rules: a correction is 403."""
    async with game(tmp_path, "gamer", ("Ann", "Ben")) as (api, _app):
        ann, ben = await api.ids()
        link = await api.post(f"/api/players/{ann}/link", {})
        phone = {"Authorization": f"Bearer {link['token']}"}
        before = await api.state()
        async with api.session.post(api.base + "/api/transfers", headers=phone, json={
                "from": ann, "to": ben, "amount": 1, "correction": True}) as reply:
            assert reply.status == 403
            assert "only the banker makes a correction" in (await reply.json())["error"]
        assert (await api.state())["version"] == before["version"]
        async with api.session.post(api.base + "/api/transfers", headers=phone, json={
                "from": ann, "to": ben, "amount": 1}) as reply:
            assert reply.status == 201


def test_a_rule_made_once_a_turn_writes_a_move_the_turn_counts() -> None:
    """The turn counts only the moves that show a roll (``turns.ROLLED``): a rule made "once a
    turn" must write one of them, else it would never be refused a second time."""
    from companion.bank.moves import ACTIONS
    from companion.bank.turns import ROLLED
    from companion.core.editions import editions

    counted = set(ROLLED)
    once = [(edition, name) for edition, rules in editions().items()
            for name, when in rules.flow.items() if when.once]
    assert once  # the roll for a 6 from Jail, at least
    for edition, name in once:
        kinds = {a.kind for a in ACTIONS.values() if a.flow.covers(name)}
        assert kinds and kinds <= counted, (edition, name, kinds)
