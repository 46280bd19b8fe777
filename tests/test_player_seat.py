"""A player's phone is their own seat: their whole history a page at a time, each block outcome
given to them as it happens (its sound only once the phone's Sound is on), and "that was a
mistake" on their latest payment, which the banker undoes or keeps.

The bank on a real SQLite file, the API on a real aiohttp server on 127.0.0.1, then a phone
(390x844) and the banker's API in headless Chromium against the real daemon. The async tests
come before the browser test: the module's sync Playwright fixture runs its own loop."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.request
import wave
from pathlib import Path
from typing import Any

import aiohttp
from playwright.sync_api import Browser, Page, Request, expect

from companion.audio.library import builtin_path, sound_name
from companion.bank import Bank
from companion.bank.seat import MOVES, OUTCOMES
from companion.bank.store import SCHEMA_VERSION
from companion.core.outcomes import Kind, Outcome
from tests.conftest import ROOT
from tests.test_bank_cost import long_game, opcodes
from tests.test_player_phones import SMALLEST, VIBRATE_STUB, bearer, post
from tests.test_tablet_browser import daemon
from tests.test_web_api import AUTH, call, serving

SHOTS = ROOT / "tests" / "screenshots"


def written(path: Path) -> tuple[Any, ...]:
    """What a refused request must leave as it was: the requests, the table's version."""
    db = sqlite3.connect(path)
    try:
        return (db.execute("SELECT * FROM undo_requests ORDER BY id").fetchall(),
                db.execute("SELECT version FROM table_state").fetchall())
    finally:
        db.close()


async def link(s: aiohttp.ClientSession, server: Any, player: int) -> dict[str, str]:
    status, made = await call(s, server, "POST", f"/api/players/{player}/link", headers=AUTH)
    assert status == 201
    return bearer(made["token"])


async def whole_history(s: aiohttp.ClientSession, server: Any, phone: dict[str, str],
                        limit: int) -> list[dict[str, Any]]:
    """Every line of a phone's history, page after page (``Older``)."""
    items: list[dict[str, Any]] = []
    query = f"limit={limit}"
    while True:
        status, page = await call(s, server, "GET", f"/api/players/me/journal?{query}",
                                  headers=phone)
        assert status == 200, page
        assert len(page["items"]) <= limit
        items += page["items"]
        if not page["more"]:
            return items
        query = (f"before={page['next_before']}&outcomes_before="
                 f"{page['next_outcomes_before']}&limit={limit}")


# -- the history ---------------------------------------------------------------------------------


async def test_a_phone_reads_its_own_players_whole_history_a_page_at_a_time(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        phone = await link(s, server, mario)
        for n in range(1, 13):  # twelve payments of Mario's own, from his phone
            status, _ = await call(s, server, "POST", "/api/transfers",
                                   {"from": mario, "to": luigi if n % 2 else "bank",
                                    "amount": n % 3 + 1}, headers=phone)
            assert status == 201
        await call(s, server, "POST", "/api/transfers", {"from": luigi, "to": peach,
                                                         "amount": 4}, headers=AUTH)
        await call(s, server, "POST", "/api/transfers", {"from": peach, "to": mario,
                                                         "amount": 6}, headers=AUTH)
        pressed = await call(s, server, "POST", "/api/press", headers=AUTH)  # Mario's turn
        assert pressed[0] == 200 and pressed[1]["kind"] == "power_up"  # rng 5: no coins
        _, journal = await call(s, server, "GET", "/api/journal", headers=AUTH)

        items = await whole_history(s, server, phone, 5)
        moves = [i for i in items if i["type"] == "move"]
        outcomes = [i for i in items if i["type"] == "outcome"]
        touching = [m for m in journal["moves"]
                    if any(mario in (e["from"], e["to"]) for e in m["entries"])]
        assert [m["id"] for m in moves] == [m["id"] for m in touching][::-1]  # newest first
        assert len(moves) == 1 + 12 + 1  # the opening, his payments, Peach's 6
        assert [o["id"] for o in outcomes] == [pressed[1]["outcome_id"]]
        assert outcomes[0]["description"] == "Power-up ring: roll the die and move again"
        assert items[0]["type"] == "outcome"  # the newest: the press came last
        assert not any("Luigi pays Peach" in m["text"] for m in moves)
        assert moves[0]["text"] == "Peach pays Mario 6" and moves[0]["coins"] == 6
        assert moves[1]["text"] == "Mario pays the Bank 1" and moves[1]["coins"] == -1
        assert moves[-1]["coins"] == 30  # the opening balance
        _, now = await call(s, server, "GET", "/api/state")
        assert sum(m["coins"] for m in moves) == now["players"][0]["balance"]
        assert items == await whole_history(s, server, phone, 500)  # the same, in one page
        assert items == await whole_history(s, server, phone, 2)  # (4 reads a second)

        # A page from the newest stays as it was read: later lines are not on older pages.
        _, first = await call(s, server, "GET", "/api/players/me/journal?limit=3",
                              headers=phone)
        await call(s, server, "POST", "/api/transfers", {"from": mario, "to": peach,
                                                         "amount": 1}, headers=phone)
        _, second = await call(s, server, "GET", "/api/players/me/journal?before="
                               f"{first['next_before']}&outcomes_before="
                               f"{first['next_outcomes_before']}&limit=3", headers=phone)
        assert [i["id"] for i in second["items"]] == [i["id"] for i in items[3:6]], second

        # Only a live phone link reads it: its own player's, nobody else's.
        luigis = await link(s, server, luigi)
        _, his = await call(s, server, "GET", "/api/players/me/journal", headers=luigis)
        assert {i["id"] for i in his["items"]} & {m["id"] for m in moves} == {
            m["id"] for m in moves if "Luigi" in m["text"]} | {moves[-1]["id"]}
        status, reply = await call(s, server, "GET", "/api/players/me/journal", headers=AUTH)
        assert status == 403 and "banker's token" in reply["error"]
        for headers in ({}, bearer("not-a-live-link-0123456789")):
            status, reply = await call(s, server, "GET", "/api/players/me/journal",
                                       headers=headers)
            assert status == 401 and reply["error_said"]
        await asyncio.sleep(2.5)  # reads from one address refill at 4 a second
        for query, named in (("before=abc", "before"), ("before=0", "before"),
                             ("outcomes_before=-1", "outcomes_before"),
                             ("outcomes_before=1.5", "outcomes_before"),
                             ("limit=0", "limit"), ("limit=501", "limit"),
                             ("before=3&before=4", "before"), ("page=2", "page")):
            status, reply = await call(s, server, "GET", f"/api/players/me/journal?{query}",
                                       headers=phone)
            assert status == 400 and named in reply["error"], (query, reply)


def test_a_players_page_costs_the_same_in_a_long_game(tmp_path: Path) -> None:
    """Each stream walks its own index in order (merged, never sorted whole), and a page
    of a 3000-move game does the work of a page of a 300-move one."""
    costs = []
    for moves in (300, 3000):
        bank = Bank(long_game(tmp_path / f"bank-{moves}.sqlite3", moves))
        mario = bank.players()[0].id
        bank.record_outcome(Outcome(Kind.POWER_UP))
        page = bank.seat_page(mario, limit=20)
        assert len(page.items) == 20 and page.more
        costs.append(opcodes(bank, lambda b=bank, m=mario: b.seat_page(m, limit=20)))
        plan = " ".join(str(row[3]) for row in bank.db.execute(
            "EXPLAIN QUERY PLAN " + MOVES, (mario, 10**9, 21)))
        assert "MERGE (UNION)" in plan and "TEMP B-TREE" not in plan and " SCAN " not in \
            f" {plan} ", plan
        assert plan.count("USING COVERING INDEX") == 4, plan
        plan = " ".join(str(row[3]) for row in bank.db.execute(
            "EXPLAIN QUERY PLAN " + OUTCOMES, (mario, 10**9, 21)))
        assert "outcomes_coinless" in plan and "TEMP B-TREE" not in plan, plan
        bank.close()
    assert costs[1] < costs[0] * 1.3, costs


def test_a_schema_8_bank_gets_the_requests_and_indexes_in_place(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite3"
    bank = Bank(path)
    bank.new_game("celebration", ["Mario", "Luigi"])
    mario, luigi = (p.id for p in bank.players())
    bank.transfer(mario, luigi, 3)
    bank.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE undo_requests; DROP INDEX entries_by_payer;"
                     " DROP INDEX entries_by_payee; DROP INDEX moves_by_player;"
                     " DROP INDEX outcomes_coinless; PRAGMA user_version = 8;")
    db.close()
    bank = Bank(path)
    assert bank.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 11
    asked, new = bank.ask_undo(mario, bank.seat_page(mario).latest_payment)
    assert new and asked.status == "open" and str(asked.text) == "Mario pays Luigi 3"
    bank.close()
    bank = Bank(path)  # kept on the card: a restart still has it
    assert [(r.id, r.move_id, r.status) for r in bank.state().requests] == [
        (asked.id, asked.move_id, "open")]
    bank.close()


# -- the block's outcome, live -------------------------------------------------------------------


async def test_a_phone_hears_the_block_outcomes_given_to_its_player(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, _peach = (p["id"] for p in state["players"])
        phones = {}
        for player in (mario, luigi):
            _, made = await call(s, server, "POST", f"/api/players/{player}/link",
                                 headers=AUTH)
            phones[player] = made["token"]
        url = server.url.replace("http", "ws") + "ws"
        async with s.ws_connect(f"{url}?token={phones[mario]}") as m, \
                s.ws_connect(f"{url}?token={phones[luigi]}") as lu, \
                s.ws_connect(url) as stranger:
            for ws in (m, lu, stranger):
                assert (await ws.receive_json(timeout=5))["type"] == "state"

            async def news(ws: aiohttp.ClientWebSocketResponse, until: str) -> list[Any]:
                seen = [await ws.receive_json(timeout=5)]
                while seen[-1]["type"] != until:
                    seen.append(await ws.receive_json(timeout=5))
                return seen

            status, pressed = await call(s, server, "POST", "/api/press", headers=AUTH)
            assert status == 200  # Mario is current: his
            seen = await news(m, "my_outcome")
            mine = seen[-1]
            assert (mine["id"], mine["player"], mine["kind"], mine["headline"]) == (
                pressed["outcome_id"], mario, pressed["kind"], pressed["headline"])
            assert mine["headline_said"] == pressed["headline_said"]
            assert mine["sound"] == sound_name(Outcome(Kind(pressed["kind"])))
            # Nobody current: the next press waits; given to Luigi, his phone hears it.
            assert (await call(s, server, "POST", "/api/current", {"player": None},
                               headers=AUTH))[0] == 200
            status, waiting = await call(s, server, "POST", "/api/press", headers=AUTH)
            assert status == 200 and waiting["outcome_id"] is not None
            assert (await call(s, server, "POST", "/api/assign",
                               {"outcome": waiting["outcome_id"], "player": luigi},
                               headers=AUTH))[0] == 200
            his = (await news(lu, "my_outcome"))[-1]
            assert (his["id"], his["player"]) == (waiting["outcome_id"], luigi)
            # Mario's phone heard states only since; nobody else ever hears "my_outcome".
            await call(s, server, "POST", "/api/current", {"player": mario}, headers=AUTH)
            await call(s, server, "POST", "/api/go", {"player": mario}, headers=AUTH)
            rest = await news(m, "coins")
            assert not [x for x in rest if x["type"] == "my_outcome"]
            heard = []
            while True:
                try:
                    heard.append(await stranger.receive_json(timeout=0.5))
                except TimeoutError:
                    break
            assert heard and not [x for x in heard if x["type"] in ("my_outcome", "coins")]


async def test_the_sounds_are_served_read_only_and_cached(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        async with s.get(server.url + "sounds/coin.wav") as reply:
            assert reply.status == 200 and reply.content_type == "audio/wav"
            assert reply.headers["Cache-Control"] == "public, max-age=86400"
            assert await reply.read() == builtin_path("coin").read_bytes()
            stamp = reply.headers["Last-Modified"]
        async with s.get(server.url + "sounds/coin.wav",
                         headers={"If-Modified-Since": stamp}) as reply:
            assert reply.status == 304
        for path in ("sounds/nope.wav", "sounds/generate.wav", "sounds/%2E%2E%2Fapi.wav",
                     "sounds/coin.ogg"):
            async with s.get(server.url + path) as reply:
                assert reply.status == 404, path
        async with s.post(server.url + "sounds/coin.wav", headers=AUTH) as reply:
            assert reply.status == 405


# -- "that was a mistake" ------------------------------------------------------------------------


async def test_that_was_a_mistake_asks_the_banker_who_undoes_or_keeps_it(
        tmp_path: Path) -> None:
    bank_file = tmp_path / "bank.sqlite3"
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        phone, luigis = await link(s, server, mario), await link(s, server, luigi)

        async def pay(payer: int, payee: int | str, amount: int,
                      headers: dict[str, str]) -> int:
            status, paid = await call(s, server, "POST", "/api/transfers",
                                      {"from": payer, "to": payee, "amount": amount},
                                      headers=headers)
            assert status == 201
            return int(paid["move"])

        first = await pay(mario, luigi, 4, phone)
        theirs = await pay(luigi, mario, 2, luigis)
        latest = await pay(mario, peach, 15, AUTH)  # the banker paid it from him: his too
        _, page = await call(s, server, "GET", "/api/players/me/journal", headers=phone)
        assert page["latest_payment"] == latest and page["requests"] == []
        _, journal = await call(s, server, "GET", "/api/journal?limit=20")
        opening = journal["moves"][-1]["id"]
        status, pressed = await call(s, server, "POST", "/api/press", headers=AUTH)
        block = pressed["outcome_id"]  # a power-up: no move; a move that is no payment:
        _, went = await call(s, server, "POST", "/api/go", {"player": mario}, headers=AUTH)

        # Bad asks: 4xx with a JSON error, nothing written.
        before = written(bank_file)
        for body, headers, code, words in (
                ({"move": theirs}, phone, 400, "not your payment"),
                ({"move": latest}, luigis, 400, "not your payment"),
                ({"move": opening}, phone, 400, "not a payment"),
                ({"move": went["move"]}, phone, 400, "not a payment"),
                ({"move": first}, phone, 409, "only your latest payment"),
                ({"move": "abc"}, phone, 400, "move must be a move id"),
                ({"move": 1.5}, phone, 400, "move must be a move id"),
                ({"move": True}, phone, 400, "move must be a move id"),
                ({"move": None}, phone, 400, "move must be a move id"),
                ({"move": 10**6}, phone, 400, "unknown move"),
                ({}, phone, 400, "move is required"),
                ({"move": latest, "why": "oops"}, phone, 400, "unknown field"),
                ({"move": latest}, AUTH, 403, "only a player's phone"),
                ({"move": latest}, {}, 401, "missing or wrong table token"),
                ({"move": latest}, bearer("not-a-live-link-0123456789"), 401, "missing")):
            status, reply = await call(s, server, "POST", "/api/players/me/mistakes", body,
                                       headers=headers)
            assert (status, words in reply["error"]) == (code, True), (body, reply)
            assert reply["error_said"]
        assert written(bank_file) == before
        assert block is not None

        # Asked: the table's state carries it for the banker; asked again, the same one.
        status, asked = await call(s, server, "POST", "/api/players/me/mistakes",
                                   {"move": latest}, headers=phone)
        assert status == 201
        request = asked["request"]
        assert (request["player"], request["move"], request["text"], request["status"]) == (
            mario, latest, "Mario pays Peach 15", "open")
        assert request["text_said"] == {"m": "{payer} pays {payee} {amount}",
                                        "a": {"payer": "Mario", "payee": "Peach",
                                              "amount": 15}}
        _, state = await call(s, server, "GET", "/api/state")
        assert state["requests"] == [request]
        assert await call(s, server, "POST", "/api/players/me/mistakes", {"move": latest},
                          headers=phone) == (200, asked)
        assert len(written(bank_file)[0]) == 1

        # Only the banker answers; "keep" is the only answer; unknown ids are refused.
        before = written(bank_file)
        for method, path, body, headers, code in (
                ("POST", f"/api/requests/{request['id']}", {"answer": "keep"}, phone, 403),
                ("DELETE", f"/api/requests/{request['id']}", None, luigis, 403),
                ("DELETE", f"/api/requests/{request['id']}", None, {}, 401),
                ("POST", f"/api/requests/{request['id']}", {"answer": "undo"}, AUTH, 400),
                ("POST", f"/api/requests/{request['id']}", {}, AUTH, 400),
                ("POST", f"/api/requests/{request['id']}", {"answer": "keep", "x": 1}, AUTH,
                 400),
                ("DELETE", "/api/requests/999999", None, AUTH, 400),
                ("DELETE", "/api/requests/abc", None, AUTH, 400)):
            status, reply = await call(s, server, method, path, body, headers=headers)
            assert status == code and reply["error"], (method, path, body, reply)
        assert written(bank_file) == before

        # The banker undoes that very payment: the request is settled, and the phone sees it.
        assert (await call(s, server, "POST", "/api/undo", {"move": went["move"]},
                           headers=AUTH))[0] == 201  # the GO first: then his payment is latest
        status, undone = await call(s, server, "POST", "/api/undo", {"move": latest},
                                    headers=AUTH)
        assert status == 201
        _, state = await call(s, server, "GET", "/api/state")
        assert state["requests"] == []
        _, page = await call(s, server, "GET", "/api/players/me/journal", headers=phone)
        assert [(r["id"], r["status"]) for r in page["requests"]] == [(request["id"],
                                                                      "undone")]
        assert page["requests"][0]["settled_at"] == undone["move"]["at"]
        assert page["latest_payment"] == first  # the one before is his latest now
        status, reply = await call(s, server, "DELETE", f"/api/requests/{request['id']}",
                                   headers=AUTH)
        assert status == 409 and "undone already" in reply["error"]
        status, reply = await call(s, server, "POST", "/api/players/me/mistakes",
                                   {"move": latest}, headers=phone)
        assert (status, reply["request"]["status"]) == (200, "undone")  # the same request

        # An undone payment nobody asked about can't be asked about any more.
        again = await pay(mario, luigi, 1, phone)
        await call(s, server, "POST", "/api/undo", {"move": again}, headers=AUTH)
        status, reply = await call(s, server, "POST", "/api/players/me/mistakes",
                                   {"move": again}, headers=phone)
        assert status == 409 and "undone already" in reply["error"]

        # Kept: DELETE (or POST "keep") settles it; answered again, the same answer.
        kept_move = await pay(mario, "bank", 2, phone)
        _, asked = await call(s, server, "POST", "/api/players/me/mistakes",
                              {"move": kept_move}, headers=phone)
        status, kept = await call(s, server, "DELETE", f"/api/requests/{asked['request']['id']}",
                                  headers=AUTH)
        assert status == 200 and kept["request"]["status"] == "kept"
        assert kept["request"]["settled_at"] is not None
        assert await call(s, server, "POST", f"/api/requests/{asked['request']['id']}",
                          {"answer": "keep"}, headers=AUTH) == (200, kept)
        _, state = await call(s, server, "GET", "/api/state")
        assert state["requests"] == []
        _, page = await call(s, server, "GET", "/api/players/me/journal", headers=phone)
        assert [r["status"] for r in page["requests"]] == ["kept", "undone"]


# -- the phone, in Chromium ----------------------------------------------------------------------


AUDIO_WATCH = """
window.__played = [];
const start = AudioBufferSourceNode.prototype.start;
AudioBufferSourceNode.prototype.start = function (...args) {
  window.__played.push(this.buffer ? this.buffer.duration : null);
  return start.apply(this, args);
};
"""
"""Every buffer of sound the page starts, by its length in seconds (the page plays the
companion's WAVs through Web Audio)."""


def seconds(name: str) -> float:
    with wave.open(str(builtin_path(name))) as w:
        return w.getnframes() / w.getframerate()


def api_json(base: str, path: str) -> Any:
    return json.loads(urllib.request.urlopen(base + path, timeout=10).read())


def lines(page: Page) -> list[str]:
    return page.locator("#history li .what").all_inner_texts()


def test_a_phone_is_its_players_own_seat(browser: Browser, config: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        state = api_json(base, "api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        made = post(base, f"api/players/{mario}/link")[1]
        token = made["token"]
        for n in range(1, 13):  # twelve payments of his own before the phone is opened
            status, _ = post(base, "api/transfers", token,
                             body={"from": mario, "to": (luigi, peach, "bank")[n % 3],
                                   "amount": 1})
            assert status == 201
        context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                      is_mobile=True, device_scale_factor=2)
        context.add_init_script(VIBRATE_STUB + AUDIO_WATCH)
        page = context.new_page()
        sounds: list[str] = []

        def fetched(request: Request) -> None:
            if "/sounds/" in request.url:
                sounds.append(request.url.rsplit("/", 1)[1])

        page.on("request", fetched)
        page.goto(made["link"])
        expect(page.locator("#link")).to_have_text("live")

        # The whole history, a page at a time: ten lines, then Older for the rest.
        history = page.locator("#history li")
        expect(history).to_have_count(10)
        expect(page.locator("#older")).to_be_visible()
        page.locator("#older").tap()
        expect(history).to_have_count(13)  # twelve payments and the opening balance
        expect(page.locator("#older")).to_be_hidden()
        shown = lines(page)
        assert "Nothing yet." not in shown
        assert sum("Mario pays" in line for line in shown) == 12
        assert page.locator("#history li .amt").all_inner_texts()[:12] == ["\u22121"] * 12

        # The block, given to him: shown at once; no sound is fetched or played while off.
        expect(page.locator("#outcome-headline")).to_have_text("Nothing from the block yet.")
        expect(page.locator("#sound")).to_have_text("Sound off")
        assert page.evaluate("localStorage.getItem('companion-phone-sound')") is None
        status, pressed = post(base, "api/press")
        assert status == 200
        expect(page.locator("#outcome-headline")).to_have_text(pressed["headline"])
        expect(page.locator("#outcome-say")).to_have_text(pressed["instruction"])
        page.wait_for_timeout(300)
        assert sounds == [] and page.evaluate("window.__played") == []

        # Sound on (the tap lets the page play): a coin to say so, then each outcome's own.
        page.locator("#sound").tap()
        expect(page.locator("#sound")).to_have_text("Sound on")
        assert page.evaluate("localStorage.getItem('companion-phone-sound')") == "on"
        page.wait_for_function("() => window.__played.length === 1")
        assert sounds == ["coin.wav"]
        assert abs(page.evaluate("window.__played[0]") - seconds("coin")) < 0.01
        page.wait_for_timeout(int(pressed["sound_seconds"] * 1000) + 300)  # done sounding
        status, again = post(base, "api/press")
        assert status == 200, again
        name = sound_name(Outcome(Kind(again["kind"])))
        page.wait_for_function("() => window.__played.length === 2")
        assert abs(page.evaluate("window.__played[1]") - seconds(name)) < 0.01
        assert sounds == ["coin.wav"] + ([] if name == "coin" else [f"{name}.wav"])
        expect(page.locator("#outcome-headline")).to_have_text(again["headline"])

        # His latest payment: "That was a mistake" asks the banker, who sees it in the state.
        assert post(base, "api/transfers", body={"from": "bank", "to": mario,
                                                  "amount": 50})[0] == 201  # whatever befell
        page.locator("#payees .payee:has-text('Luigi')").tap()
        page.locator("#keys .digit", has_text="5").first.tap()
        page.locator("#send").tap()
        expect(page.locator("#pad")).to_be_hidden()
        expect(page.locator("#history li").first.locator(".what")).to_have_text(
            "Mario pays Luigi 5")
        key = page.locator("#history li").first.get_attribute("data-key")
        newest = page.locator(f"#history li[data-key='{key}']")  # wherever it goes later
        mistake = newest.locator("button.mistake")
        expect(mistake).to_have_text("That was a mistake")
        expect(page.locator("#history button.mistake")).to_have_count(1)
        expect(page.locator("#toast")).to_be_hidden()  # "Paid Luigi 5" has gone
        assert page.evaluate(SMALLEST) == {"target": [], "font": []}  # 44 px targets
        page.screenshot(path=str(SHOTS / "phone-seat.png"), full_page=True)
        mistake.tap()
        expect(newest.locator(".asked")).to_have_text("Waiting for the banker…")
        requests = api_json(base, "api/state")["requests"]
        assert [(r["player"], r["text"], r["status"]) for r in requests] == [
            (mario, "Mario pays Luigi 5", "open")]

        # The banker undoes it (today's Undo: it is the latest move): the phone says so.
        status, _ = post(base, "api/undo", body={"move": requests[0]["move"]})
        assert status == 201
        expect(newest.locator(".asked")).to_have_text("The banker undid it")
        expect(page.locator("#toast")).to_contain_text("The banker undid it: Mario pays Luigi 5")
        expect(newest).to_have_class("line move undone")
        assert api_json(base, "api/state")["requests"] == []

        # Another payment, another mistake: the banker keeps this one.
        status, paid = post(base, "api/transfers", token,
                            body={"from": mario, "to": "bank", "amount": 3})
        kept = page.locator(f"#history li[data-key='m{paid['move']}']")
        expect(kept.locator(".what")).to_have_text("Mario pays the Bank 3")
        kept.locator("button.mistake").tap()
        expect(kept.locator(".asked")).to_have_text("Waiting for the banker…")
        request = api_json(base, "api/state")["requests"][0]
        assert request["move"] == paid["move"]
        assert post(base, f"api/requests/{request['id']}", method="DELETE")[0] == 200
        expect(kept.locator(".asked")).to_have_text("The banker kept it")
        assert api_json(base, "api/state")["requests"] == []

        # A reload keeps this phone's Sound, and the answers.
        page.reload()
        expect(page.locator("#sound")).to_have_text("Sound on")
        expect(page.locator("#history li .asked")).to_have_text(["The banker kept it",
                                                                 "The banker undid it"])
        context.close()
