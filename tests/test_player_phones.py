"""Every player's own phone (issue 14): a link per player whose token pays from that player's
coins only. The API on a real aiohttp server on 127.0.0.1, then two phones and the banker's
page in headless Chromium (Debian's, driven by Playwright) against the real daemon.

The async tests come before the browser tests: the module's sync Playwright fixture runs its
own event loop."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from companion.web.address import lan_address
from companion.web.players import OWN_COINS
from companion.web.server import start_web
from tests.conftest import BROWSER_TOKEN, ROOT
from tests.test_tablet_browser import daemon
from tests.test_web_api import AUTH, TOKEN, call, serving

SHOTS = ROOT / "tests" / "screenshots"
UID = "DEADBEEF01"


def bearer(token: str, key: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


def table_of(state: dict[str, Any]) -> tuple[Any, ...]:
    """What a refused write must leave as it was: coins, turn, the journal's newest lines."""
    return (tuple((p["id"], p["balance"], p["out"]) for p in state["players"]),
            state["current_player"], json.dumps(state["recent"]), state["game"]["id"])


# -- the API ----------------------------------------------------------------------------------


async def test_a_phone_link_pays_from_its_own_coins_only(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        assert not any(p["linked"] for p in state["players"])
        status, made = await call(s, server, "POST", f"/api/players/{luigi}/link", headers=AUTH)
        assert status == 201, made
        token = made["token"]
        assert (made["player"], made["name"]) == (luigi, "Luigi")
        assert made["link"] == f"{server.url}p#token={token}"
        assert made["lan_link"] is None  # served on loopback only: no LAN address to give
        assert made["qr_svg"].startswith("<svg") and "</svg>" in made["qr_svg"]
        _, state = await call(s, server, "GET", "/api/state")
        assert [p["linked"] for p in state["players"]] == [False, True, False]
        phone = bearer(token)

        # Its own coins: to another player, and to the Bank; a retried request writes once.
        status, paid = await call(s, server, "POST", "/api/transfers",
                                  {"from": luigi, "to": mario, "amount": 3},
                                  headers=bearer(token, "pay:v1:luigi:mario:3"))
        assert status == 201 and (paid["from"], paid["to"], paid["amount"]) == (luigi, mario, 3)
        assert paid["source"] == "phone"
        again = await call(s, server, "POST", "/api/transfers",
                           {"from": luigi, "to": mario, "amount": 3},
                           headers=bearer(token, "pay:v1:luigi:mario:3"))
        assert again[1]["id"] == paid["id"]
        status, _ = await call(s, server, "POST", "/api/transfers",
                               {"from": luigi, "to": "bank", "amount": 2}, headers=phone)
        assert status == 201
        _, state = await call(s, server, "GET", "/api/state", headers=phone)
        assert [p["balance"] for p in state["players"]] == [33, 25, 30]

        # Anybody else's coins, or anything else: 403 saying why, and nothing changes.
        before = table_of(state)
        for body in ({"from": mario, "to": luigi, "amount": 5},
                     {"from": "bank", "to": luigi, "amount": 5},
                     {"from": peach, "to": "bank", "amount": 1},
                     {"from": True, "to": mario, "amount": 1},
                     {"from": str(luigi), "to": mario, "amount": 1},
                     {"to": mario, "amount": 1}):
            status, reply = await call(s, server, "POST", "/api/transfers", body, headers=phone)
            assert (status, reply) == (403, {"error": OWN_COINS,
                                             "error_said": {"m": OWN_COINS}}), body
        refused = {
            "/api/undo": "only the banker can undo", "/api/redo": "only the banker can redo",
            "/api/next": "only the banker passes the turn",
            "/api/current": "only the banker passes the turn",
            "/api/press": "only the banker presses the block",
            "/api/games": "only the banker can start a new game",
            "/api/go": OWN_COINS, "/api/jail": OWN_COINS, "/api/assign": OWN_COINS,
            "/api/cards": OWN_COINS, "/api/mode": OWN_COINS, "/api/options": OWN_COINS,
            "/api/end": OWN_COINS, "/api/bankruptcy": OWN_COINS, "/api/points": OWN_COINS,
            "/api/timer/start": OWN_COINS,
            f"/api/players/{luigi}/link": "only the banker can make or turn off a phone link",
            f"/api/players/{mario}/link": "only the banker can make or turn off a phone link",
        }
        bodies = {"/api/cards": {"uid": UID, "player": luigi}, "/api/mode": {"mode": "x"},
                  "/api/go": {"player": luigi}, "/api/games": {"players": ["A", "B"]},
                  "/api/assign": {"outcome": 1, "player": luigi}}
        for path, why in refused.items():
            status, reply = await call(s, server, "POST", path, bodies.get(path), headers=phone)
            assert status == 403 and why in reply["error"], (path, reply)
        status, reply = await call(s, server, "DELETE", f"/api/players/{luigi}/link",
                                   headers=phone)
        assert status == 403 and "only the banker" in reply["error"]
        _, state = await call(s, server, "GET", "/api/state")
        assert table_of(state) == before and state["players"][1]["linked"] is True

        # Card UIDs stay hidden from a phone, as from any page without the table token.
        assert (await call(s, server, "POST", "/api/cards", {"uid": UID, "player": mario},
                           headers=AUTH))[0] == 200
        _, seen = await call(s, server, "GET", "/api/state", headers=phone)
        assert seen["players"][0]["card"] is None
        _, seen = await call(s, server, "GET", "/api/activity", headers=phone)
        assert UID not in json.dumps(seen)
        _, seen = await call(s, server, "GET", "/api/state", headers=AUTH)
        assert seen["players"][0]["card"] == UID
        assert await call(s, server, "GET", "/api/players/me", headers=phone) == (
            200, {"player": luigi, "name": "Luigi", "colour": state["players"][1]["colour"]})

        # Turned off: 401 at once, for writes and for "who am I".
        assert await call(s, server, "DELETE", f"/api/players/{luigi}/link", headers=AUTH) == (
            200, {"player": luigi, "revoked": True})
        status, reply = await call(s, server, "POST", "/api/transfers",
                                   {"from": luigi, "to": mario, "amount": 1}, headers=phone)
        assert (status, reply) == (401, {"error": "missing or wrong table token",
                                         "error_said": {"m": "missing or wrong table token"}})
        status, reply = await call(s, server, "GET", "/api/players/me", headers=phone)
        assert status == 401 and "turned off by the banker" in reply["error"]
        assert await call(s, server, "DELETE", f"/api/players/{luigi}/link", headers=AUTH) == (
            200, {"player": luigi, "revoked": False})

        # A new link replaces the old one: one live link per player.
        first = (await call(s, server, "POST", f"/api/players/{peach}/link", headers=AUTH))[1]
        second = (await call(s, server, "POST", f"/api/players/{peach}/link", headers=AUTH))[1]
        assert first["token"] != second["token"]
        for token_now, expected in ((first["token"], 401), (second["token"], 201)):
            status, _ = await call(s, server, "POST", "/api/transfers",
                                   {"from": peach, "to": "bank", "amount": 1},
                                   headers=bearer(token_now))
            assert status == expected

        # Unknown players are a 400; the banker's token only.
        for path in ("/api/players/9999/link", "/api/players/abc/link",
                     "/api/players/-1/link", f"/api/players/{'9' * 30}/link"):
            for method in ("POST", "DELETE"):
                status, reply = await call(s, server, method, path, headers=AUTH)
                assert status == 400 and "unknown player" in reply["error"], (method, path)
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            status, _ = await call(s, server, "POST", f"/api/players/{mario}/link",
                                   headers=headers)
            assert status == 401

        # A new game: the old game's links are over.
        assert (await call(s, server, "POST", "/api/games", {"players": ["Ann", "Ben"]},
                           headers=AUTH))[0] == 201
        status, _ = await call(s, server, "POST", "/api/transfers",
                               {"from": peach, "to": "bank", "amount": 1},
                               headers=bearer(second["token"]))
        assert status == 401
    for token_made in (token, first["token"], second["token"]):
        assert token_made not in caplog.text  # never in the log


async def test_a_phone_hears_its_coins_arrive_and_is_closed_when_turned_off(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        assert (await call(s, server, "POST", "/api/cards", {"uid": UID, "player": luigi},
                           headers=AUTH))[0] == 200
        _, made = await call(s, server, "POST", f"/api/players/{luigi}/link", headers=AUTH)
        url = server.url.replace("http", "ws") + "ws"
        async with s.ws_connect(f"{url}?token={made['token']}") as phone, \
                s.ws_connect(url) as stranger:
            hello = await phone.receive_json(timeout=5)
            assert hello["type"] == "state" and hello["state"]["players"][1]["card"] is None
            await stranger.receive_json(timeout=5)
            for body in ({"from": mario, "to": peach, "amount": 2},  # not Luigi's: no news
                         {"from": mario, "to": luigi, "amount": 4}):
                assert (await call(s, server, "POST", "/api/transfers", body,
                                   headers=AUTH))[0] == 201
            seen = [await phone.receive_json(timeout=5) for _ in range(3)]
            assert [m["type"] for m in seen] == ["state", "state", "coins"]
            assert seen[2] == {"type": "coins", "amount": 4, "from": "Mario", "balance": 34,
                               "kind": "transfer", "note": ""}
            # (Luigi's GO in Mario's turn: the banker's correction)
            assert (await call(s, server, "POST", "/api/go", {"player": luigi,
                                                              "correction": True},
                               headers=AUTH))[0] == 201
            seen = [await phone.receive_json(timeout=5) for _ in range(2)]
            assert seen[1]["type"] == "coins" and seen[1]["from"] == "the Bank"
            stranger_saw = [await stranger.receive_json(timeout=5) for _ in range(3)]
            assert all(m["type"] == "state" for m in stranger_saw)  # only the phone hears it
            await call(s, server, "DELETE", f"/api/players/{luigi}/link", headers=AUTH)
            message = await phone.receive_json(timeout=5)
            while message["type"] == "state":
                message = await phone.receive_json(timeout=5)
            assert message == {"type": "revoked"}
            closing = await phone.receive(timeout=5)
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                    aiohttp.WSMsgType.CLOSING)


async def test_a_new_game_closes_the_earlier_games_phones_saying_why(tmp_path: Path) -> None:
    """After a new game an earlier game's phone is not left open on the public feed with a
    dead token: it hears ``revoked`` (why, in words) and is closed (issue 43, item 10); a
    page without a token stays and sees the new game."""
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        luigi = state["players"][1]["id"]
        _, made = await call(s, server, "POST", f"/api/players/{luigi}/link", headers=AUTH)
        url = server.url.replace("http", "ws") + "ws"
        async with s.ws_connect(f"{url}?token={made['token']}") as phone, \
                s.ws_connect(url) as stranger:
            assert (await phone.receive_json(timeout=5))["action"] == "hello"
            assert (await stranger.receive_json(timeout=5))["action"] == "hello"
            assert (await call(s, server, "POST", "/api/games", {"players": ["Ann", "Ben"]},
                               headers=AUTH))[0] == 201
            message = await phone.receive_json(timeout=5)
            assert message == {"type": "revoked",
                               "error": "this phone link is for an earlier game",
                               "error_said": {"m": "this phone link is for an earlier game"}}
            closing = await phone.receive(timeout=5)
            assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                    aiohttp.WSMsgType.CLOSING)
            seen = await stranger.receive_json(timeout=5)
            assert [p["name"] for p in seen["state"]["players"]] == ["Ann", "Ben"]
            assert not stranger.closed


async def test_the_link_names_the_lan_address_when_served_on_every_interface(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (local, app), aiohttp.ClientSession() as s:
        server = await start_web(app.table, "0.0.0.0", 0, TOKEN)
        try:
            _, state = await call(s, local, "GET", "/api/state")
            async with s.post(f"http://127.0.0.1:{server.port}/api/players/"
                              f"{state['players'][0]['id']}/link", headers=AUTH) as reply:
                made = await reply.json()
            assert reply.status == 201
            assert made["link"] == f"http://127.0.0.1:{server.port}/p#token={made['token']}"
            lan = lan_address()  # as the banker's own link: None without a network
            assert made["lan_link"] == (None if lan is None else
                                        f"http://{lan}:{server.port}/p#token={made['token']}")
        finally:
            await server.stop()


# -- two phones and the banker, in Chromium ------------------------------------------------------


def post(base: str, path: str, token: str = BROWSER_TOKEN, method: str = "POST",
         body: object = None) -> tuple[int, Any]:
    request = urllib.request.Request(base + path.lstrip("/"), method=method,
                                     data=json.dumps(body or {}).encode(),
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


VIBRATE_STUB = """
window.__vibrated = [];
Object.defineProperty(Navigator.prototype, "vibrate", {
  configurable: true, value: function (pattern) { window.__vibrated.push(pattern); return true; }
});
"""


SMALLEST = """() => {
  const shown = (el) => el.getClientRects().length > 0;
  const target = [...document.querySelectorAll("button")].filter(shown).filter((b) => {
    const r = b.getBoundingClientRect(); return r.width < 44 || r.height < 44; })
    .map((b) => b.textContent);
  const font = [...document.querySelectorAll("input")].filter(shown)
    .filter((i) => parseFloat(getComputedStyle(i).fontSize) < 16).map((i) => i.id);
  return { target, font };
}"""
"""Buttons on screen smaller than 44x44 px, inputs with a font under 16 px (iOS zooms in)."""


class Phone:
    """A player's phone: its own browser profile (390x844, touch), counting taps."""

    def __init__(self, browser: Browser, link: str) -> None:
        self.context: BrowserContext = browser.new_context(
            viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True,
            device_scale_factor=2)
        self.context.add_init_script(VIBRATE_STUB)
        self.page: Page = self.context.new_page()
        self.page.goto(link)
        expect(self.page.locator("#link")).to_have_text("live")
        self.taps = 0
        self.digits = 0

    def tap(self, selector: str) -> None:
        self.page.locator(selector).tap()
        self.taps += 1

    def type_digits(self, amount: int) -> None:
        for digit in str(amount):
            self.page.locator("#keys .digit", has_text=digit).first.tap()
            self.digits += 1

    def pay(self, to: str, amount: int | None = None, quick: str | None = None) -> None:
        """Tap who to pay, the coins (digits, or a quick amount as one tap), Pay."""
        self.taps = self.digits = 0
        self.tap(f"#payees .payee:has-text('{to}')")
        if quick is not None:
            self.tap(f"#quick .key:text-is('{quick}')")
        else:
            assert amount is not None
            self.type_digits(amount)
        self.tap("#send")
        expect(self.page.locator("#pad")).to_be_hidden()
        assert self.taps <= 3, self.taps

    def coins(self) -> Any:
        return expect(self.page.locator("#me-coins"))


def test_two_phones_pay_each_other_while_the_banker_sees_it_live(
        browser: Browser, config: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with daemon(config) as base:
        state = json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())
        mario, luigi, _peach = (p["id"] for p in state["players"])
        links = {pid: post(base, f"api/players/{pid}/link")[1]["link"] for pid in (mario, luigi)}
        banker_context = browser.new_context(viewport={"width": 1024, "height": 768})
        banker = banker_context.new_page()
        banker.goto(f"{base}#token={BROWSER_TOKEN}")
        expect(banker.locator("#link")).to_have_text("live")
        m, lu = Phone(browser, links[mario]), Phone(browser, links[luigi])
        assert "token" not in m.page.url
        assert m.page.evaluate("localStorage.getItem('companion-player-token')") is not None
        assert m.page.evaluate("localStorage.getItem('companion-table-token')") is None
        expect(m.page.locator("#title")).to_have_text("Mario")
        m.coins().to_have_text("30")
        expect(m.page.locator("#payees .payee")).to_have_count(3)  # Luigi, Peach, the Bank

        # Mario pays Luigi 7: the tile, the digit, Pay. Luigi's phone blips and buzzes.
        m.pay("Luigi", 7)
        m.coins().to_have_text("23")
        expect(lu.page.locator("#flash")).to_have_text("+7 from Mario")
        lu.coins().to_have_text("37")
        assert lu.page.evaluate("window.__vibrated.length") >= 1
        expect(banker.locator("#history")).to_contain_text("Mario pays Luigi 7")
        lu.page.wait_for_timeout(700)  # the flash has popped in
        lu.page.screenshot(path=str(SHOTS / "phone-player.png"))

        # Luigi pays Mario 12 by digits, and the Bank the jail fee as a quick amount.
        lu.pay("Mario", 12)
        expect(m.page.locator("#flash")).to_have_text("+12 from Luigi")
        lu.taps = lu.digits = 0
        lu.tap("#payees .payee:has-text('Bank')")
        lu.tap("#quick .key:text-is('Jail 5')")
        expect(lu.page.locator("#send")).to_have_text("Pay 5")
        assert lu.page.evaluate(SMALLEST) == {"target": [], "font": []}
        lu.page.screenshot(path=str(SHOTS / "phone-player-pay.png"))
        lu.tap("#send")
        assert (lu.taps, lu.digits) == (3, 0)
        lu.coins().to_have_text("20")
        expect(banker.locator("#history")).to_contain_text("Luigi pays Mario 12")
        expect(banker.locator("#history")).to_contain_text("Luigi pays the Bank 5")
        expect(banker.locator(".tile", has_text="Luigi").locator(".coins")).to_have_text("20")

        # Sent to Jail by the banker: Luigi's own page says so; out again, it no longer does.
        # (in Mario's turn: the banker's corrections)
        assert post(base, "api/jail", body={"player": luigi, "in_jail": True,
                                            "correction": True})[0] == 201
        expect(lu.page.locator("#me-note")).to_have_text("in Jail")
        assert post(base, "api/jail", body={"player": luigi, "in_jail": False,
                                            "correction": True})[0] == 201
        expect(lu.page.locator("#me-note")).not_to_contain_text("Jail")

        # A double tap on Pay (two taps 130 ms apart) pays once.
        m.tap("#payees .payee:has-text('Luigi')")
        m.type_digits(2)
        m.page.evaluate("""() => new Promise((done) => {
            const pay = document.getElementById("send");
            pay.click(); setTimeout(() => { pay.click(); done(); }, 130); })""")
        lu.coins().to_have_text("22")
        m.page.wait_for_timeout(500)
        m.coins().to_have_text("33")
        lu.coins().to_have_text("22")

        # More than Mario has: a confirmation with before and after; a double tap can't pass it.
        m.tap("#payees .payee:has-text('Bank')")
        m.type_digits(150)
        m.tap("#send")
        expect(m.page.locator("#confirm")).to_contain_text(
            "You have 33 coins: after paying 150 you would have -117.")
        expect(m.page.locator("#send")).to_have_text("Pay anyway: 150")
        m.page.screenshot(path=str(SHOTS / "phone-player-confirm.png"))
        m.tap("#cancel")
        m.coins().to_have_text("33")

        # The page sends only its own player's coins; the server refuses any other (403).
        refused = m.page.evaluate(f"""async () => {{
            const r = await fetch("/api/transfers", {{method: "POST", headers: {{
                "Authorization": "Bearer " + localStorage.getItem("companion-player-token"),
                "Content-Type": "application/json"}},
                body: JSON.stringify({{from: {luigi}, to: {mario}, amount: 9}})}});
            return [r.status, (await r.json()).error]; }}""")
        assert refused == [403, OWN_COINS]
        lu.coins().to_have_text("22")

        # The banker undoes Luigi's payment to the Bank from the page; turns Mario's link off.
        banker.locator("#undo").click()
        lu.coins().to_have_text("20")  # the 2 Mario paid Luigi go back to Mario
        m.coins().to_have_text("35")
        expect(m.page.locator("#flash")).to_have_text("+2 back (undo)")
        assert post(base, f"api/players/{mario}/link", method="DELETE")[1]["revoked"] is True
        expect(m.page.locator("#off")).to_contain_text("This link was turned off by the banker")
        m.page.screenshot(path=str(SHOTS / "phone-player-off.png"))
        m.page.reload()  # and so it stays
        expect(m.page.locator("#off")).to_contain_text("This link was turned off by the banker")
        # A new game: Luigi's phone is told its link is of the game before, and stops.
        assert post(base, "api/games", body={"players": ["Ann", "Ben"]})[0] == 201
        expect(lu.page.locator("#off")).to_contain_text("this phone link is for an earlier game")
        expect(lu.page.locator("#link")).to_have_text("off")
        for phone in (m, lu):
            phone.context.close()
        banker_context.close()
