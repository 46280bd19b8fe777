"""A setup the page leads, on a real daemon (mock pins, a real SQLite file) through the API on a
real aiohttp server: a fresh install boots into a game awaiting its setup (the block works
meanwhile), ``GET /api/setup`` offers every edition from its ruleset, ``POST /api/games``
starts a game in one write (colours, order, who starts, characters, house rules) or refuses
naming the problem and makes nothing, and the Free Parking pot (a house rule) takes the fees and
taxes paid to the Bank until someone lands there, every coin accounted for."""

from __future__ import annotations

import contextlib
import json
import random
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from companion.bank import DB_NAME, Bank
from companion.config import ConfigError, from_dict, load
from companion.core.editions import editions, parse
from companion.core.ledger import COLOURS
from companion.daemon import Daemon
from companion.exc import RulesetError
from tests.conftest import run_companion
from tests.test_board_coins import conserved, piles
from tests.test_game_api import AUTH, TOKEN, Api, press_the_button, serving, turn
from tests.test_movie_game import Faces

KIDS = """# Kids' table: Bowser costs 3 and Game Over 7.
"""


@contextlib.asynccontextmanager
async def table(tmp_path: Path, game: str = "", rng: Any = None
                ) -> AsyncIterator[tuple[Api, Daemon]]:
    """A daemon from a config file whose ``[game]`` section is ``game`` (none: a fresh
    install's), with its web server."""
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\n[data]\ndir = "{tmp_path}"\n'
                    f'[web]\ntoken = "{TOKEN}"\n' + (f"[game]\n{game}\n" if game else ""))
    async with serving(load(path), rng or random.Random(5)) as served:
        yield served


async def start(api: Api, body: dict[str, Any], key: str | None = None) -> tuple[int, Any]:
    """``POST /api/games`` (with an Idempotency-Key when given): its status and answer."""
    headers = {**AUTH, **({"Idempotency-Key": key} if key else {})}
    async with api.session.post(api.base + "/api/games", data=json.dumps(body),
                                headers=headers) as reply:
        return reply.status, await reply.json()


async def games(api: Api) -> list[dict[str, Any]]:
    return (await api.get("/api/games"))["games"]  # type: ignore[no-any-return]


def kept_games(folder: Path) -> list[int]:
    """Every game in the bank file, read beside the daemon (nothing is ever deleted)."""
    bank = Bank(folder / DB_NAME, readonly=True)
    try:
        return [g["id"] for g in bank.games()]
    finally:
        bank.close()


def house_folder(tmp_path: Path) -> Path:
    """A ``[game] house_rules`` folder with one file: Celebration with a cheaper block."""
    folder = tmp_path / "house"
    folder.mkdir()
    packaged = (Path(__file__).resolve().parent.parent / "companion" / "core" / "editions" /
                "celebration.toml").read_text()
    body = packaged.split("\n", 4)[4]  # its own comment lines left out: the file's first line
    (folder / "kids_table.toml").write_text(KIDS + body.replace(
        "fees = { bowser = 5, game_over = 10 }", "fees = { bowser = 3, game_over = 7 }"))
    return folder


# -- a fresh install ----------------------------------------------------------------------


async def test_a_fresh_install_boots_into_a_game_awaiting_its_setup(tmp_path: Path) -> None:
    faces = Faces()
    async with table(tmp_path, rng=faces) as (api, _app):
        state = await api.state()
        assert state["game"]["setup_pending"] is True and state["game"]["house"] == []
        assert [p["name"] for p in state["players"]] == ["Mario", "Luigi", "Peach", "Yoshi"]
        # The block works meanwhile: a payment made in it is play (a press is not: below).
        mario, luigi = (p["id"] for p in state["players"][:2])
        await api.post("/api/transfers", {"from": mario, "to": luigi, "amount": 2})
        pending = state["game"]["id"]
        # Start from the setup: the pending game, played in, stays among the earlier games.
        status, made = await start(api, {"edition": "celebration", "players": ["Ann", "Bob"]})
        assert status == 201
        started = await api.state()
        assert started["game"]["id"] == made["game"] and not started["game"]["setup_pending"]
        assert [g["id"] for g in await games(api)] == [made["game"], pending]


def coins_by_name(state: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["balance"] for p in state["players"]}


async def test_a_press_during_the_setup_is_kept_for_who_starts_never_for_a_stand_in(
        tmp_path: Path) -> None:
    """Issue 44 (6): a child presses the block while the parents read the setup: its sound
    plays, nobody's coins move (Mario, Luigi, ... are the fresh install's stand-ins); at Start
    it is charged to who starts, as if pressed in their turn."""
    faces = Faces()
    async with table(tmp_path, rng=faces) as (api, app):
        before = await api.state()
        assert before["game"]["setup_pending"] is True
        faces.load(4)  # a 4: Bowser, pay the Bank 5 (Celebration's block, 1d6)
        await press_the_button(app)
        during = await api.state()
        assert coins_by_name(during) == coins_by_name(before)  # no stand-in pays
        held = during["last_outcome"]
        assert (held["kind"], held["player"], held["assigned"]) == ("bowser", None, False)
        assert [o["id"] for o in during["unassigned"]] == [held["id"]]
        status, made = await start(api, {"edition": "celebration", "players": ["Ann", "Bob"],
                                         "first": 1})
        assert status == 201
        after = await api.state()
        assert coins_by_name(after) == {"Ann": 30, "Bob": 25}  # Bob starts: Bowser's 5 is his
        outcome = after["last_outcome"]
        bob = after["players"][1]["id"]
        assert (outcome["id"], outcome["player"], outcome["game"]) == (held["id"], bob,
                                                                       made["game"])
        assert after["unassigned"] == []
        # Nothing was played in the setup's stand-in game: it is left out of the earlier games.
        assert [g["id"] for g in await games(api)] == [made["game"]]


async def test_a_press_during_the_setup_can_be_kept_uncharged(tmp_path: Path) -> None:
    faces = Faces()
    async with table(tmp_path, rng=faces) as (api, app):
        pending = (await api.state())["game"]["id"]
        faces.load(4)
        await press_the_button(app)
        await refused_start(api, {"edition": "celebration", "players": ["Ann", "Bob"],
                                  "setup_presses": "Bob"}, "setup_presses must be first or keep")
        assert (await api.state())["game"]["id"] == pending  # nothing started
        status, made = await start(api, {"edition": "celebration", "players": ["Ann", "Bob"],
                                         "setup_presses": "keep"})
        assert status == 201
        after = await api.state()
        assert coins_by_name(after) == {"Ann": 30, "Bob": 30} and after["last_outcome"] is None
        assert kept_games(tmp_path) == [pending, made["game"]]  # the press stays in the journal


async def refused_start(api: Api, body: dict[str, Any], words: str) -> None:
    status, answer = await start(api, body)
    assert status == 400 and words in answer["error"], (status, answer)


async def test_an_untouched_pending_game_is_left_out_once_a_game_starts(tmp_path: Path) -> None:
    async with table(tmp_path) as (api, _app):
        pending = (await api.state())["game"]["id"]
        assert [(g["id"], g["current"]) for g in await games(api)] == [(pending, True)]
        status, made = await start(api, {"edition": "movie", "players": ["Ann", "Bob"]})
        assert status == 201
        assert [g["id"] for g in await games(api)] == [made["game"]]
        # Nothing is deleted: the journal keeps it, and it can be resumed by its id.
        assert kept_games(tmp_path) == [pending, made["game"]]
        await api.post(f"/api/games/{pending}/resume")
        assert (await api.state())["game"]["setup_pending"] is True
        assert [g["id"] for g in await games(api)] == [made["game"], pending]


async def test_a_config_that_names_the_players_starts_as_before(tmp_path: Path) -> None:
    async with table(tmp_path, 'edition = "gamer"\nplayers = ["Toad", "Daisy"]') as (api, _):
        state = await api.state()
        assert state["game"]["setup_pending"] is False and state["game"]["edition"] == "gamer"
        assert [p["name"] for p in state["players"]] == ["Toad", "Daisy"]
        assert (await api.get("/api/setup"))["last"]["players"][1]["name"] == "Daisy"


def test_the_config_leaves_the_players_to_the_setup_or_names_them_right(tmp_path: Path) -> None:
    assert from_dict({}).game.awaits_setup and from_dict({"game": {"players": []}}).game.players \
        == ()
    assert from_dict({"game": {"edition": "movie"}}).game.first_players() == (
        "Mario", "Luigi", "Peach", "Yoshi")
    assert not from_dict({"game": {"players": ["Ann", "Bob"]}}).game.awaits_setup
    with pytest.raises(ConfigError) as info:
        from_dict({"game": {"edition": "gamer", "players": list("ABCDE")}})
    assert info.value.key == "game.players"
    bad = tmp_path / "bad.toml"
    bad.write_text('[game]\nplayers = ["Solo"]\n')
    done = run_companion("config", "--check", "--config", str(bad))
    assert done.returncode == 2 and "game.players" in done.stderr


# -- what a setup is offered --------------------------------------------------------------


EDITIONS = Path(__file__).resolve().parent.parent / "companion" / "core" / "editions"


@pytest.mark.parametrize(("edition", "change", "words"), [
    ("celebration", ('box_colours = ["#e3000f", "#5cc4f0", "#f8b800"]', 'box_colours = ["red"]'),
     "presentation.box_colours: must be two or three colours"),
    ("celebration", ('{ payment = "tax",', '{ payment = "rent",'),
     "free_parking_pot.fees[0].payment: each once, one of jail, bowser, game_over, tax"),
    ("celebration", ('{ payment = "bowser",', '{ payment = "tax",'),
     "free_parking_pot.fees[2].payment: each once"),
    ("movie", ('{ payment = "toll",', '{ payment = "bowser",'),
     "free_parking_pot.fees[1].payment: each once, one of jail, toll, piranha, "
     "continue_cost"),
    ("celebration", ('space = "Free Parking"\n', 'space = "Free Parking"\nodds = 1\n'),
     "free_parking_pot: unknown keys ['odds']"),
    ("celebration", ('id = "tax"', 'id = "a tax"'), "reasons[0].id: must be a name"),
])
def test_a_rulesets_pot_and_box_colours_are_read_strictly(edition: str,
                                                          change: tuple[str, str],
                                                          words: str) -> None:
    text = (EDITIONS / f"{edition}.toml").read_text()
    assert change[0] in text
    with pytest.raises(RulesetError) as info:
        parse(tomllib.loads(text.replace(*change)), f"{edition}.toml")
    assert words in str(info.value)


def test_a_pot_is_refused_where_coins_already_lie_on_the_board() -> None:
    gamer = (EDITIONS / "gamer.toml").read_text()
    with_pot = gamer + '\n[free_parking_pot]\nspace = "Free Parking"\nquote = ["x"]\n' \
        'fees = [{ payment = "jail", quote = ["Pay 5 Coins to the Bank"] }]\n'
    with pytest.raises(RulesetError, match="already has its own rule for them: no pot"):
        parse(tomllib.loads(with_pot), "gamer.toml")



async def test_the_setup_offers_every_edition_from_its_ruleset(tmp_path: Path) -> None:
    game = f'house_rules = "{house_folder(tmp_path)}"'
    async with table(tmp_path, game) as (api, _app):
        async with api.session.get(api.base + "/api/setup") as reply:  # open, no token
            assert reply.status == 200
            offer = await reply.json()
        assert offer["colours"] == list(COLOURS) and offer["default_edition"] == "celebration"
        assert offer["last"] is None  # a fresh install: nobody to offer, nobody pre-typed
        offered = {e["id"]: e for e in offer["editions"]}
        assert set(offered) == set(editions())
        for edition, rules in editions().items():
            shown = offered[edition]
            assert (shown["players"]["min"], shown["players"]["max"]) == (
                rules.min_players, rules.max_players)
            assert shown["start_coins"] == {str(n): rules.start_coins(n) for n in
                                            range(rules.min_players, rules.max_players + 1)}
            assert shown["box_colours"] == list(rules.box_colours)
            assert 2 <= len(shown["box_colours"]) <= 3
            assert all(len(c) == 7 and c.startswith("#") for c in shown["box_colours"])
            if rules.powers is None:
                assert shown["characters"] is None
            else:
                assert shown["characters"]["characters"] == [
                    {"id": c.id, "name": c.name} for c in rules.powers.characters]
                assert shown["characters"]["picks"] == {"2": 2, "3": 1, "4": 1}
        assert offered["gamer"]["start_coins"] == {"2": 20, "3": 10, "4": 10}
        pots = {e: [r for r in offered[e]["house_rules"] if r["kind"] == "pot"]
                for e in offered}
        assert [f["payment"] for f in pots["celebration"][0]["fees"]] == [
            "tax", "jail", "bowser", "game_over"]
        assert [f["payment"] for f in pots["movie"][0]["fees"]] == ["jail", "toll", "piranha"]
        assert pots["celebration"][0]["name"] == "Free Parking pot"
        assert pots["celebration"][0]["default"] is False
        assert pots["gamer"] == pots["mario_kart"] == pots["wiggly_worms"] == []
        files = [r for r in offered["celebration"]["house_rules"] if r["kind"] == "file"]
        assert files == [{"id": "kids_table.toml", "kind": "file", "name": "kids table",
                          "description": "Kids' table: Bowser costs 3 and Game Over 7.",
                          "edition": "celebration", "default": True}]
        assert all(r["kind"] != "file" for r in offered["movie"]["house_rules"])
        # Once a game is set up, its players are offered again (not the pending stand-ins).
        status, made = await start(api, {
            "edition": "gamer", "players": ["Toad", "Daisy", "Wario"],
            "colours": ["#fbd000", "#f49ac1", "#8e44ad"],
            "characters": [["mario"], ["peach"], ["donkey_kong"]]})
        assert status == 201
        last = (await api.get("/api/setup"))["last"]
        assert last == {"game": made["game"], "edition": "gamer", "players": [
            {"name": "Toad", "colour": "#fbd000", "seat": 0, "characters": ["mario"]},
            {"name": "Daisy", "colour": "#f49ac1", "seat": 1, "characters": ["peach"]},
            {"name": "Wario", "colour": "#8e44ad", "seat": 2, "characters": ["donkey_kong"]}]}


# -- Start --------------------------------------------------------------------------------


async def test_start_is_one_write_with_colours_order_first_and_characters(tmp_path: Path
                                                                         ) -> None:
    async with table(tmp_path) as (api, _app):
        body = {"edition": "mario_kart", "players": ["Toad", "Daisy", "Wario"],
                "colours": ["#049CD8", "#43b047", "#e52521"], "first": "daisy",
                "characters": [["toad"], ["Princess Peach"], ["mario"]],
                "house": {"free_parking_pot": False, "files": []}}
        status, made = await start(api, body, key="start-1")
        assert status == 201
        state = await api.state()
        assert state["game"]["id"] == made["game"] and state["game"]["edition"] == "mario_kart"
        assert [(p["name"], p["colour"], p["seat"], p["characters"]) for p in state["players"]] \
            == [("Toad", "#049cd8", 0, ["toad"]), ("Daisy", "#43b047", 1, ["peach"]),
                ("Wario", "#e52521", 2, ["mario"])]
        daisy = state["players"][1]["id"]
        assert state["current_player"] == daisy and state["players"][1]["current"]
        assert state["game"]["house"] == [] and state["pot"] is None
        moves = (await api.get(f"/api/journal?game={made['game']}&limit=50"))["moves"]
        assert [m["kind"] for m in moves] == ["opening"]  # one move: one undo-proof write
        # A retry of the very start answers the same game; the key for another start: 409.
        assert await start(api, body, key="start-1") == (201, made)
        assert [g["id"] for g in await games(api)] == [made["game"]]  # the pending: left out
        other = await start(api, {**body, "first": 0}, key="start-1")
        assert other[0] == 409 and "already used" in other[1]["error"]
        async with api.session.post(api.base + "/api/transfers", headers={
                **AUTH, "Idempotency-Key": "start-1"}, data=json.dumps(
                    {"from": daisy, "to": "bank", "amount": 1})) as reply:
            assert reply.status == 409
        # A seat works as well as a name; left out, the first name starts.
        _, second = await start(api, {"edition": "celebration", "players": ["A", "B", "C"],
                                      "first": 2})
        assert (await api.state())["players"][2]["current"]
        _, third = await start(api, {"players": ["A", "B"]})
        state = await api.state()
        assert state["players"][0]["current"] and state["game"]["edition"] == "celebration"
        assert [p["colour"] for p in state["players"]] == list(COLOURS[:2])
        assert second["game"] != third["game"]


BAD_STARTS = [
    ({"players": ["A", "B"], "colour": ["#e52521"]}, "unknown field(s): colour"),
    ({"edition": "classic", "players": ["A", "B"]}, "unknown edition 'classic'"),
    ({"edition": "celebration"}, "players is required"),
    ({"players": ["A"]}, "a game needs 2 to 6 players, got 1"),
    ({"edition": "gamer", "players": list("ABCDE")}, "a game needs 2 to 4 players, got 5"),
    ({"players": ["A", "B"], "colours": ["#e52521", "#E52521"]},
     "two players can't both be #e52521"),
    ({"players": ["A", "B"], "colours": ["#e52521", "#123456"]},
     "colour #123456 is not one of the table's colours"),
    ({"players": ["A", "B"], "colours": ["#e52521"]}, "one colour for each of the 2 players"),
    ({"players": ["A", "B"], "colours": ["red", "green"]}, "colour must look like #e52521"),
    ({"players": ["A", "B"], "first": 2}, "first must be a player's seat (0 to 1) or name"),
    ({"players": ["A", "B"], "first": "Zed"}, "first must be a player's seat (0 to 1) or name"),
    ({"players": ["A", "B"], "first": True}, "first must be a player's seat"),
    ({"edition": "gamer", "players": ["A", "B", "C"],
      "characters": [["mario"], ["yoshi"], ["mario"]]}, "Mario is picked twice"),
    ({"edition": "gamer", "players": ["A", "B"], "characters": [["mario", "mario"],
                                                               ["yoshi", "peach"]]},
     "Mario is picked twice"),
    ({"edition": "gamer", "players": ["A", "B", "C"],
      "characters": [["mario"], ["luigi"], ["yoshi"]]}, "unknown character 'luigi'"),
    ({"edition": "gamer", "players": ["A", "B"], "characters": [["mario"], ["yoshi"]]},
     "characters must list 2 characters for each player in a game of 2"),
    ({"edition": "gamer", "players": ["A", "B", "C"], "characters": [["mario"], ["yoshi"]]},
     "one list for each of the 3 players"),
    ({"players": ["A", "B"], "characters": [["mario"], ["luigi"]]},
     "Monopoly: Super Mario Celebration has no characters"),
    ({"players": ["A", "B"], "house": {"free_parking": True}},
     "unknown house rule(s): free_parking"),
    ({"players": ["A", "B"], "house": {"files": ["nope.toml"]}},
     "unknown house rule 'nope.toml'"),
    ({"players": ["A", "B"], "house": {"free_parking_pot": "yes"}},
     "free_parking_pot must be true or false"),
    ({"players": ["A", "B"], "house": ["free_parking_pot"]}, "house must be an object"),
    ({"edition": "gamer", "players": ["A", "B"], "house": {"free_parking_pot": True}},
     "Monopoly Gamer offers no Free Parking pot"),
    ({"edition": "mario_kart", "players": ["A", "B"], "house": {"free_parking_pot": True}},
     "Monopoly Gamer: Mario Kart offers no Free Parking pot"),
    ({"edition": "wiggly_worms", "players": ["A", "B"], "house": {"free_parking_pot": True}},
     "Wiggly Worms offers no Free Parking pot"),
]


async def test_every_bad_start_is_refused_naming_it_and_makes_no_game(tmp_path: Path) -> None:
    async with table(tmp_path) as (api, _app):
        before, listed = await api.state(), await games(api)
        for body, words in BAD_STARTS:
            status, answer = await start(api, body)
            assert status == 400 and words in answer["error"], (body, status, answer)
            assert answer["error_said"]  # for the page to put in its own language
        assert await api.state() == before and await games(api) == listed
        assert kept_games(tmp_path) == [before["game"]["id"]]


async def test_a_house_rules_file_is_chosen_game_by_game(tmp_path: Path) -> None:
    folder = house_folder(tmp_path)
    faces = Faces()
    game = f'players = ["Ann", "Bob"]\nhouse_rules = "{folder}"'
    async with table(tmp_path, game, rng=faces) as (api, app):
        # Started from the config as before: the folder's file of its edition applies.
        state = await api.state()
        assert state["game"]["house"] == [{"id": "kids_table.toml", "name": "kids table"}]
        assert (await api.get("/api/rules"))["default_mode"] == "question_block"
        faces.load(3)  # Bowser
        await press_the_button(app)
        assert (await api.state())["last_outcome"]["coins"] == 3
        # A setup without it plays the rulebook's numbers...
        await start(api, {"players": ["Ann", "Bob"], "house": {"files": []}})
        assert (await api.state())["game"]["house"] == []
        rules = await api.get("/api/rules")
        assert next(m for m in rules["modes"] if m["id"] == "question_block")["fees"] == {
            "bowser": 5, "game_over": 10}
        faces.load(3)
        await press_the_button(app)
        assert (await api.state())["last_outcome"]["coins"] == 5
        # ... and one with it, the file's, named in the game's header with the pot.
        await start(api, {"players": ["Ann", "Bob"],
                          "house": {"files": ["kids_table.toml"], "free_parking_pot": True}})
        state = await api.state()
        assert state["game"]["house"] == [
            {"id": "free_parking_pot", "name": "Free Parking pot",
             "name_said": {"m": "Free Parking pot"}},
            {"id": "kids_table.toml", "name": "kids table"}]
        faces.load(6)  # Game Over, on the pot
        await press_the_button(app)
        assert (await api.state())["last_outcome"]["coins"] == 7
        assert (await api.state())["pot"] == {"space": "Free Parking", "coins": 7}


# -- the Free Parking pot -----------------------------------------------------------------


def balances(state: dict[str, Any]) -> list[int]:
    return [p["balance"] for p in state["players"]]


async def test_the_pot_takes_taxes_and_fees_and_whoever_lands_there_scoops_it(
        tmp_path: Path) -> None:
    faces = Faces()
    async with table(tmp_path, rng=faces) as (api, app):
        status, _ = await start(api, {"players": ["Ann", "Bob", "Cy"],
                                      "house": {"free_parking_pot": True}})
        assert status == 201
        state = await api.state()
        ann, bob, cy = (p["id"] for p in state["players"])
        assert state["pot"] == {"space": "Free Parking", "coins": 0} and state["board"] == []
        assert state["game"]["house"][0]["id"] == "free_parking_pot"
        # A tax space: the payment names the ruleset's reason; its coins go on Free Parking.
        tax = await api.post("/api/transfers", {"from": ann, "to": "bank", "amount": 4,
                                                "reason": "tax"})
        assert (tax["to"], tax["space"], tax["note"]) == (
            "board", "Free Parking", "Tax: the amount on the board space")
        state = await api.state()
        assert state["pot"]["coins"] == 4 and balances(state) == [26, 30, 30]
        await conserved(api)
        # Buying something from the Bank is no fee: it stays the Bank's.
        await api.post("/api/transfers", {"from": bob, "to": "bank", "amount": 2,
                                          "note": "Bowser Jr."})
        assert (await api.state())["pot"]["coins"] == 4
        await conserved(api)
        # The jail fee: Bob goes to Jail on his turn, and pays at the start of his next.
        await turn(api, bob)
        await api.post("/api/jail", {"player": bob, "in_jail": True})
        await turn(api, bob)
        fee = await api.post("/api/jail", {"player": bob})
        assert fee["space"] == "Free Parking"
        assert (await api.state())["pot"]["coins"] == 9
        await conserved(api)
        # The block's Bowser (3 or 4) and Game Over (6) for the current player, Cy.
        await api.post("/api/current", {"player": cy})
        pot = 9
        for face, coins in ((4, 5), (6, 10)):
            faces.load(face)
            await press_the_button(app)
            pot += coins
            state = await api.state()
            assert (state["last_outcome"]["coins"], state["pot"]["coins"]) == (coins, pot)
        state = await api.state()
        assert state["pot"]["coins"] == 24 and balances(state) == [26, 30 - 2 - 5, 15]
        recent = [line for line in state["recent"] if line["kind"] == "block"]
        assert [(line["to"], line["space"], line["amount"]) for line in recent] == [
            ("board", "Free Parking", 10), ("board", "Free Parking", 5)]
        await conserved(api)
        # Undo of a fee puts it back with the payer; redo puts it on the pot again.
        undone = await api.post("/api/undo")
        assert undone["undid"]["text"].endswith("· on Free Parking")
        assert (await api.state())["pot"]["coins"] == 14
        await conserved(api)
        await api.post("/api/redo", {"move": undone["move"]["id"]})
        assert (await api.state())["pot"]["coins"] == 24
        # Landing there scoops it all.
        scoop = await api.post("/api/scoops", {"player": ann, "space": "free parking"})
        assert scoop["text"] == "Ann scoops up 24 coins from Free Parking"
        state = await api.state()
        assert state["pot"]["coins"] == 0 and balances(state) == [26 + 24, 23, 15]
        await conserved(api)
        refused = await start_refusal(api, "/api/scoops", {"player": bob,
                                                           "space": "Free Parking"})
        assert "there are no coins on Free Parking" in refused
        refused = await start_refusal(api, "/api/scoops", {"player": bob, "space": "GO"})
        assert "only Free Parking has coins on it" in refused
        refused = await start_refusal(api, "/api/drops", {"player": bob, "space": "Free Parking",
                                                          "coins": 1})
        assert "has no coins on the board" in refused
        refused = await start_refusal(api, "/api/transfers", {"from": bob, "to": "bank",
                                                              "amount": 1, "reason": "rent"})
        assert "unknown reason 'rent'" in refused
        # Undo of the scoop fills the pot again.
        await api.post("/api/undo")
        state = await api.state()
        assert state["pot"]["coins"] == 24 and balances(state) == [26, 23, 15]
        await conserved(api)


async def start_refusal(api: Api, path: str, body: dict[str, Any]) -> str:
    """A 400 that changes nothing: its error."""
    before = await api.state()
    answer = await api.post(path, body, status=400)
    assert await api.state() == before
    return str(answer["error"])


async def test_the_pot_is_off_unless_the_setup_chose_it(tmp_path: Path) -> None:
    async with table(tmp_path) as (api, _app):
        await start(api, {"players": ["Ann", "Bob"], "house": {"files": []}})
        state = await api.state()
        ann = state["players"][0]["id"]
        assert state["pot"] is None and state["game"]["house"] == []
        tax = await api.post("/api/transfers", {"from": ann, "to": "bank", "amount": 4,
                                                "reason": "tax"})
        assert tax["to"] == "bank" and "space" not in tax
        state = await api.state()
        assert state["board"] == [] and state["pot"] is None
        assert "only" not in await start_refusal(api, "/api/scoops", {
            "player": ann, "space": "Free Parking"})


async def test_the_movies_pot_takes_the_toll_the_piranha_and_the_jail_fee(tmp_path: Path
                                                                         ) -> None:
    faces = Faces()
    async with table(tmp_path, rng=faces) as (api, app):
        await start(api, {"edition": "movie", "players": ["Ann", "Bob", "Cy"],
                          "house": {"free_parking_pot": True}})
        ann, bob, cy = await api.ids()
        toll = await api.post("/api/toll", {"players": [bob, cy]})
        assert {e["space"] for e in toll["entries"]} == {"Free Parking"}
        assert toll["text"] == "Bowser's toll: Bob, Cy each pay 1 coin · on Free Parking"
        await api.post("/api/mode", {"mode": "piranha"})
        faces.load(4)
        await press_the_button(app)
        assert (await api.state())["pot"]["coins"] == 2 + 4
        await conserved(api)
        # The Continue cost (at the start of Bob's turn) buys a deed back: the Bank's, not a
        # fee.
        await turn(api, bob)
        await api.post("/api/transfers", {"from": bob, "to": "bank", "amount": 3,
                                          "reason": "continue_cost"})
        assert (await api.state())["pot"]["coins"] == 6
        await turn(api, cy)
        await api.post("/api/jail", {"player": cy, "in_jail": True})
        await turn(api, cy)  # the fee at the start of her next turn
        await api.post("/api/jail", {"player": cy})
        state = await api.state()
        assert state["pot"]["coins"] == 7 and piles(state) == {"Free Parking": 7}
        await conserved(api)
        await api.post("/api/scoops", {"player": ann, "space": "Free Parking"})
        state = await api.state()
        assert state["pot"]["coins"] == 0 and balances(state) == [30 - 4 + 7, 26, 28]
        await conserved(api)


async def test_a_bankrupt_players_fees_the_pot_never_had_go_back(tmp_path: Path) -> None:
    """Coins a player paid into the pot without having them come back from it when they go
    bankrupt (as from any creditor); the pot keeps what there really was."""
    async with table(tmp_path) as (api, _app):
        await start(api, {"players": ["Ann", "Bob", "Cy"], "house": {"free_parking_pot": True}})
        ann, bob, _cy = await api.ids()
        await turn(api, bob)  # the tax is the lander's: on their turn
        await api.post("/api/transfers", {"from": bob, "to": "bank", "amount": 3,
                                          "reason": "tax"})
        await turn(api, ann)
        await api.post("/api/transfers", {"from": ann, "to": "bank", "amount": 34,
                                          "reason": "tax"})
        state = await api.state()
        assert state["pot"]["coins"] == 37 and state["players"][0]["owes"]
        out = await api.post("/api/bankruptcy", {"player": ann, "creditor": "bank"})
        assert out["text"] == "Ann is bankrupt to the Bank (Free Parking gives back 4)"
        state = await api.state()
        assert state["pot"]["coins"] == 33 and balances(state) == [0, 27, 30]
        await conserved(api)
        await api.post("/api/undo")
        assert (await api.state())["pot"]["coins"] == 37
        await conserved(api)
