"""One intent writes once; turns are moves, undone in order; Undo says what it undoes, Redo
brings it back; earlier games can be resumed. A real aiohttp server on 127.0.0.1 and a real
SQLite file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp

from companion.web.server import WebServer
from tests.test_web_api import AUTH, call, serving


async def state(s: aiohttp.ClientSession, server: WebServer) -> dict[str, Any]:
    return (await call(s, server, "GET", "/api/state"))[1]  # type: ignore[no-any-return]


def keyed(intent: str, seen: dict[str, Any], body: object) -> dict[str, str]:
    """What the page sends: a key made of the intent and the state it was made from."""
    return {**AUTH, "Idempotency-Key": f"{intent}:{seen['version']}:{json.dumps(body)}"}


async def test_a_double_tap_writes_once_and_a_later_same_payment_writes_again(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        seen = await state(s, server)
        mario, luigi, _ = (p["id"] for p in seen["players"])
        pay = {"from": mario, "to": luigi, "amount": 3}
        first = await call(s, server, "POST", "/api/transfers", pay, keyed("pay", seen, pay))
        second = await call(s, server, "POST", "/api/transfers", pay, keyed("pay", seen, pay))
        assert first == second and first[0] == 201  # the same answer, one entry
        after = await state(s, server)
        assert after["version"] != seen["version"]
        assert [p["balance"] for p in after["players"]] == [27, 33, 30]
        again = await call(s, server, "POST", "/api/transfers", pay, keyed("pay", after, pay))
        assert again[0] == 201  # the same payment made from the new state: a new intent
        assert [p["balance"] for p in (await state(s, server))["players"]] == [24, 36, 30]


async def test_next_passes_the_turn_once_from_the_player_the_page_showed(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        seen = await state(s, server)
        mario, luigi, _ = (p["id"] for p in seen["players"])
        body = {"from": mario}
        assert await call(s, server, "POST", "/api/next", body, keyed("next", seen, body)) == (
            200, {"current_player": luigi})
        # The second tap of the same Next: the same key, the same answer, nothing passed.
        assert await call(s, server, "POST", "/api/next", body, keyed("next", seen, body)) == (
            200, {"current_player": luigi})
        # Another page that still showed Mario (another key): refused, nothing passed.
        status, error = await call(s, server, "POST", "/api/next", body, AUTH)
        assert status == 409 and "already passed" in error["error"]
        assert (await state(s, server))["current_player"] == luigi


async def test_turns_are_undone_in_order_and_undo_names_what_it_undoes(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        seen = await state(s, server)
        mario, luigi, peach = (p["id"] for p in seen["players"])
        assert seen["undo"] is None and seen["redo"] is None
        await call(s, server, "POST", "/api/transfers", {"from": luigi, "to": peach,
                                                         "amount": 7}, AUTH)
        await call(s, server, "POST", "/api/next", {"from": mario}, AUTH)  # a mistaken Next
        await call(s, server, "POST", "/api/next", {"from": luigi}, AUTH)  # and a second
        seen = await state(s, server)
        assert seen["undo"]["text"] == "Turn: Luigi -> Peach"
        first = seen["undo"]["move"] - 1  # the first Next: the second one passed on from it
        status, blocked = await call(s, server, "POST", "/api/undo", {"move": first}, AUTH)
        assert status == 409 and blocked["blocked_by"] == [seen["undo"]["move"]]
        assert "Turn: Luigi -> Peach" in blocked["error"]
        assert await state(s, server) == seen  # nothing undone
        for text in ("Turn: Luigi -> Peach", "Turn: Mario -> Luigi"):  # in order
            move = (await state(s, server))["undo"]["move"]
            status, undone = await call(s, server, "POST", "/api/undo", {"move": move}, AUTH)
            assert status == 201 and undone["undid"]["text"] == text
        seen = await state(s, server)
        assert seen["current_player"] == mario  # the turn is back, the rent stays
        assert seen["undo"]["text"] == "Luigi pays Peach 7"
        assert [p["balance"] for p in seen["players"]] == [30, 23, 37]
        moves = (await call(s, server, "GET", "/api/journal?limit=10"))[1]["moves"]
        assert all("#" not in m["text"] for m in moves)  # words, never entry numbers


async def test_redo_brings_back_what_undo_took_and_only_right_after_it(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        seen = await state(s, server)
        mario, luigi, peach = (p["id"] for p in seen["players"])
        await call(s, server, "POST", "/api/transfers", {"from": luigi, "to": peach,
                                                         "amount": 7, "note": "rent"}, AUTH)
        seen = await state(s, server)
        await call(s, server, "POST", "/api/undo", {"move": seen["undo"]["move"]}, AUTH)
        seen = await state(s, server)
        assert seen["redo"]["text"] == "Luigi pays Peach 7 · rent"
        body = {"move": seen["redo"]["move"]}
        status, redone = await call(s, server, "POST", "/api/redo", body,
                                    keyed("redo", seen, body))
        assert status == 201 and redone["move"]["text"] == "Luigi pays Peach 7 · rent"
        again = await call(s, server, "POST", "/api/redo", body, keyed("redo", seen, body))
        assert again == (status, redone)  # a double tap of Redo: once
        seen = await state(s, server)
        assert [p["balance"] for p in seen["players"]] == [30, 23, 37]
        assert seen["redo"] is None and seen["undo"]["text"] == "Luigi pays Peach 7 · rent"
        status, error = await call(s, server, "POST", "/api/redo", body, AUTH)
        assert status == 409 and "nothing to redo" in error["error"]
        # A turn can be redone; a bankruptcy is declared again instead.
        await call(s, server, "POST", "/api/next", {"from": mario}, AUTH)
        seen = await state(s, server)
        await call(s, server, "POST", "/api/undo", {"move": seen["undo"]["move"]}, AUTH)
        seen = await state(s, server)
        assert seen["redo"]["text"] == "Turn: Mario -> Luigi"
        await call(s, server, "POST", "/api/redo", {"move": seen["redo"]["move"]}, AUTH)
        assert (await state(s, server))["current_player"] == luigi
        await call(s, server, "POST", "/api/bankruptcy", {"player": peach, "creditor": "bank"},
                   AUTH)
        seen = await state(s, server)
        await call(s, server, "POST", "/api/undo", {"move": seen["undo"]["move"]}, AUTH)
        seen = await state(s, server)
        assert seen["redo"] is None  # nothing offered ...
        undo_id = seen["undo"]["move"] + 100
        status, error = await call(s, server, "POST", "/api/redo", {"move": undo_id}, AUTH)
        assert status == 409  # ... and nothing done


async def test_a_bad_redo_or_undo_body_is_a_400_and_changes_nothing(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        before = await state(s, server)
        for path, body in (("/api/redo", {}), ("/api/redo", {"move": 1, "x": 2}),
                           ("/api/undo", {"moves": 1}), ("/api/next", {"to": 1})):
            status, error = await call(s, server, "POST", path, body, AUTH)
            assert status == 400 and error["error"], (path, body)
        assert await state(s, server) == before


async def test_earlier_games_are_listed_and_resumed(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        first = (await state(s, server))["game"]["id"]
        status, made = await call(s, server, "POST", "/api/games",
                                  {"edition": "gamer", "players": ["Ann", "Bob"]}, AUTH)
        assert status == 201
        games = (await call(s, server, "GET", "/api/games"))[1]["games"]
        assert [(g["id"], g["current"], g["ended"]) for g in games] == [
            (made["game"], True, False), (first, False, False)]
        assert games[1]["players"] == ["Mario", "Luigi", "Peach"]
        assert games[0]["name"] == "Monopoly Gamer"
        assert await call(s, server, "POST", f"/api/games/{first}/resume", None, AUTH) == (
            200, {"game": first})
        resumed = await state(s, server)
        assert resumed["game"]["id"] == first and len(resumed["players"]) == 3
        for bad in ("abc", "99999", "-1"):
            status, error = await call(s, server, "POST", f"/api/games/{bad}/resume", None,
                                       AUTH)
            assert status in (400, 404) and error["error"], bad
        status, _ = await call(s, server, "POST", f"/api/games/{first}/resume")
        assert status == 401  # the banker's token only


async def test_a_request_id_is_one_intent_in_one_game_never_another(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        seen = await state(s, server)
        mario, luigi, peach = (p["id"] for p in seen["players"])
        key = {**AUTH, "Idempotency-Key": "k1"}
        assert (await call(s, server, "POST", "/api/current", {"player": luigi}, key))[0] == 200
        for path, body in (("/api/current", {"player": peach}), ("/api/next", {}),
                           ("/api/undo", {}), ("/api/redo", {"move": 1}),
                           ("/api/transfers", {"from": mario, "to": luigi, "amount": 1})):
            status, error = await call(s, server, "POST", path, body, key)
            assert status == 409 and "already used for another operation" in error["error"], \
                (path, status, error)
        assert (await state(s, server))["current_player"] == luigi
        await call(s, server, "POST", "/api/games", {"players": ["Ann", "Bob"]}, AUTH)
        status, error = await call(s, server, "POST", "/api/current", {"player": luigi}, key)
        assert status == 409  # the same words in another game: not a retry of that one


async def test_the_version_changes_with_every_write(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        seen = await state(s, server)
        mario = seen["players"][0]["id"]
        versions = [seen["version"]]
        for path, body in (("/api/current", {"player": None}), ("/api/press", {}),
                           ("/api/cards", {"uid": "04A224B9", "player": mario}),
                           ("/api/assign", {"outcome": 1, "player": mario})):
            status, answer = await call(s, server, "POST", path, body, AUTH)
            assert status in (200, 201), (path, answer)
            await app.table.drain()
            versions.append((await state(s, server))["version"])
        assert len(set(versions)) == len(versions), versions


async def test_a_new_game_ends_the_old_games_phone_links_for_good(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _), aiohttp.ClientSession() as s:
        seen = await state(s, server)
        first, luigi = seen["game"]["id"], seen["players"][1]["id"]
        status, link = await call(s, server, "POST", f"/api/players/{luigi}/link", None, AUTH)
        assert status == 201
        phone = {"Authorization": f"Bearer {link['token']}"}
        assert (await call(s, server, "GET", "/api/players/me", None, phone))[0] == 200
        await call(s, server, "POST", "/api/games", {"players": ["Ann", "Bob"]}, AUTH)
        assert (await call(s, server, "GET", "/api/players/me", None, phone))[0] == 401
        await call(s, server, "POST", f"/api/games/{first}/resume", None, AUTH)
        assert (await call(s, server, "GET", "/api/players/me", None, phone))[0] == 401
        assert not any(p["linked"] for p in (await state(s, server))["players"])


async def test_a_press_while_the_game_is_switched_waits_and_resuming_a_won_game_is_quiet(
        tmp_path: Path) -> None:
    from companion.app import commands as c
    from companion.events import PressIgnored

    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        first = (await state(s, server))["game"]["id"]
        pending = asyncio.ensure_future(app.table.act(c.Move("new_game", {
            "players": ["Ann", "Bob"]})))
        await asyncio.sleep(0)  # the page's request is under way ...
        ignored = app.table.press(source="tablet")  # ... when the block is pressed
        assert isinstance(ignored, PressIgnored) and "press again" in str(ignored.reason)
        second = await pending
        bob = (await state(s, server))["players"][1]["id"]
        await call(s, server, "POST", "/api/bankruptcy", {"player": bob, "creditor": "bank"},
                   AUTH)
        assert (await state(s, server))["ended"]  # won just now: the fanfare played
        played: list[object] = []
        original = app.speaker.play

        def play(sound: object, priority: object) -> bool:
            played.append(sound)
            return original(sound, priority)  # type: ignore[arg-type]

        app.speaker.play = play  # type: ignore[method-assign]
        await app.table.act(c.Move("resume_game", {"game": first}))
        # the won game again: no fanfare
        await app.table.act(c.Move("resume_game", {"game": second}))
        assert played == []
        assert app.bank is not None
        assert app.bank.run(lambda bank: bank.outcomes(first)) == []  # nothing banked there


async def test_a_press_says_how_long_its_sound_lasts(tmp_path: Path) -> None:
    """The page pulses the ? for as long as the companion's own sound for the outcome."""
    from companion.core.outcomes import Kind, Outcome

    async with serving(tmp_path) as (server, app), aiohttp.ClientSession() as s:
        status, pressed = await call(s, server, "POST", "/api/press", None, AUTH)
        assert status == 200
        outcome = Outcome(Kind(pressed["kind"]), pressed.get("coins", 0),
                          tuple(pressed["rolls"]), pressed["mode"])
        assert pressed["sound_seconds"] == round(app.table.library.seconds(outcome), 3) > 0
