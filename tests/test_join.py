"""Join from one code (the family's evening): the table's one join link, a phone that opens it
picks a player who has no phone yet and gets that player's own link; the banker's share and
export routes. The API on a real aiohttp server on 127.0.0.1 (and ``companion export`` /
``companion link --join`` as a user runs them), then five phones and the banker in headless
Chromium against the real daemon.

The async tests come before the browser tests: the module's sync Playwright fixture runs its
own event loop."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from playwright.sync_api import Browser, Page, expect

from companion.bank import DB_NAME, Bank
from companion.web.address import lan_address
from companion.web.join import FAILED_BURST
from companion.web.join_code import JoinCodes
from companion.web.players import JOIN_ONLY
from companion.web.server import start_web
from tests.conftest import BROWSER_TOKEN, ROOT, free_port, run_companion
from tests.test_player_phones import bearer, post, table_of
from tests.test_pwa import audit, serious
from tests.test_tablet_browser import daemon
from tests.test_web_api import AUTH, TOKEN, call, serving

SHOTS = ROOT / "tests" / "screenshots"
PHONE = {"width": 390, "height": 844}
EARLIER = "This join code is from an earlier game: scan the code the table shows now."


def code_of(url: str) -> str:
    """The join code after ``#code=`` in a join link."""
    found = re.fullmatch(r"http://[^/]+/join#code=([A-Za-z0-9_-]+)", url)
    assert found, url
    return found.group(1)


# -- the API ----------------------------------------------------------------------------------


async def test_one_code_gives_each_player_without_a_phone_their_own_link(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, peach = (p["id"] for p in state["players"])
        colours = {p["id"]: p["colour"] for p in state["players"]}

        # The banker's menu: the join link, its QR code, who has no phone yet.
        status, menu = await call(s, server, "GET", "/api/join", headers=AUTH)
        assert status == 200, menu
        code = code_of(menu["url"])
        assert menu["url"] == f"{server.url}join#code={code}"
        assert menu["game"] == state["game"]["id"] and menu["lan_url"] is None  # loopback
        assert menu["qr"].startswith("<svg") and "</svg>" in menu["qr"]
        assert menu["players_without_phone"] == [
            {"id": pid, "name": name, "colour": colours[pid]}
            for pid, name in ((mario, "Mario"), (luigi, "Luigi"), (peach, "Peach"))]
        assert TOKEN not in menu["url"] and code == JoinCodes(TOKEN).code(state["game"]["id"])

        # The join page's list, with the code; Luigi picked: his own link, as the banker's.
        joining = bearer(code)
        status, listed = await call(s, server, "GET", "/api/join", headers=joining)
        assert (status, listed) == (200, {"game": menu["game"],
                                          "players_without_phone": menu["players_without_phone"]})
        status, made = await call(s, server, "POST", "/api/join", {"player": luigi},
                                  headers=joining)
        assert status == 201, made
        assert set(made) == {"player", "name", "token", "link", "lan_link", "qr_svg"}
        assert (made["player"], made["name"]) == (luigi, "Luigi")
        assert made["link"] == f"{server.url}p#token={made['token']}"
        status, paid = await call(s, server, "POST", "/api/transfers",
                                  {"from": luigi, "to": mario, "amount": 2},
                                  headers=bearer(made["token"]))
        assert status == 201 and paid["source"] == "phone"
        assert (await call(s, server, "GET", "/api/players/me",
                           headers=bearer(made["token"])))[1]["name"] == "Luigi"
        _, listed = await call(s, server, "GET", "/api/join", headers=joining)
        assert [p["name"] for p in listed["players_without_phone"]] == ["Mario", "Peach"]

        # Luigi again: 409 in words, and his link stays the one he has.
        status, refused = await call(s, server, "POST", "/api/join", {"player": luigi},
                                     headers=joining)
        assert status == 409
        assert refused["error"] == "Luigi already has a phone: ask the banker for a new link"
        assert refused["error_said"]["a"] == {"name": "Luigi"}
        assert (await call(s, server, "GET", "/api/players/me",
                           headers=bearer(made["token"])))[0] == 200

        # The code does nothing else: every other write is 403, and nothing changes.
        _, state = await call(s, server, "GET", "/api/state")
        before = table_of(state)
        for method, path, body in (
                ("POST", "/api/transfers", {"from": mario, "to": peach, "amount": 1}),
                ("POST", "/api/transfers", {"from": luigi, "to": peach, "amount": 1}),
                ("POST", "/api/undo", None), ("POST", "/api/next", None),
                ("POST", "/api/games", {"players": ["A", "B"]}),
                ("POST", f"/api/players/{peach}/link", None),
                ("DELETE", f"/api/players/{luigi}/link", None),
                ("POST", "/api/press", None)):
            status, reply = await call(s, server, method, path, body, headers=joining)
            assert (status, reply["error"]) == (403, str(JOIN_ONLY)), (method, path)
        _, state = await call(s, server, "GET", "/api/state")
        assert table_of(state) == before
        assert [p["linked"] for p in state["players"]] == [False, True, False]
        for path in ("/api/share", f"/api/games/{menu['game']}/export"):  # the banker's
            assert (await call(s, server, "GET", path, headers=joining))[0] == 401

        # The banker turns Luigi's link off: the code offers Luigi again.
        assert (await call(s, server, "DELETE", f"/api/players/{luigi}/link",
                           headers=AUTH))[1]["revoked"] is True
        _, listed = await call(s, server, "GET", "/api/join", headers=joining)
        assert [p["name"] for p in listed["players_without_phone"]] == [
            "Mario", "Luigi", "Peach"]

        # Two phones picking Peach at once: one gets her link, the other the 409.
        answers = await asyncio.gather(*(
            call(s, server, "POST", "/api/join", {"player": peach}, headers=joining)
            for _ in range(2)))
        assert sorted(status for status, _ in answers) == [201, 409]
        winner = next(body for status, body in answers if status == 201)
        assert (await call(s, server, "GET", "/api/players/me",
                           headers=bearer(winner["token"])))[1]["name"] == "Peach"
    for secret in (code, made["token"], winner["token"]):
        assert secret not in caplog.text  # never in the log


async def test_bad_input_and_wrong_codes_make_no_link(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, first = await call(s, server, "GET", "/api/state")
        old_player = first["players"][0]["id"]
        old_code = code_of((await call(s, server, "GET", "/api/join", headers=AUTH))[1]["url"])
        assert (await call(s, server, "POST", "/api/games", {"players": ["Ann", "Ben"]},
                           headers=AUTH))[0] == 201
        _, state = await call(s, server, "GET", "/api/state")
        ann = state["players"][0]["id"]
        code = code_of((await call(s, server, "GET", "/api/join", headers=AUTH))[1]["url"])
        assert code != old_code  # a new game, a new code
        joining = bearer(code)

        for body, words in (({"player": 99999}, "unknown player"),
                            ({"player": old_player}, "unknown player"),  # another game's
                            ({"player": "1"}, "unknown player"),
                            ({"player": str(ann)}, "unknown player"),
                            ({"player": 1.5}, "unknown player"),
                            ({"player": True}, "unknown player"),
                            ({"player": None}, "unknown player"),
                            ({}, "give player"),
                            ({"player": ann, "name": "Ann"}, "give player")):
            status, reply = await call(s, server, "POST", "/api/join", body, headers=joining)
            assert status == 400 and words in reply["error"], (body, reply)
        for raw in (b"[1]", b"{", b"player=1"):
            status, reply = await call(s, server, "POST", "/api/join", raw=raw,
                                       headers=joining)
            assert status == 400 and "JSON" in reply["error"], raw

        refused = 0
        refusals = (
            ({}, "needs the table's join code"),
            ({"Authorization": "Bearer"}, "needs the table's join code"),
            (bearer(old_code), EARLIER),
            (bearer(code[:-1] + ("A" if code[-1] != "A" else "B")), "not this table's"),
            (bearer(JoinCodes("another-table-token-0123").code(state["game"]["id"])),
             "not this table's"),
            (AUTH, "not this table's"))  # the banker has the players' own route
        for headers, words in refusals:
            for method in ("GET", "POST"):
                if method == "GET" and headers in ({}, AUTH):
                    continue  # GET: no token is the banker's 401; the token is the menu
                status, reply = await call(s, server, method, "/api/join", {"player": ann},
                                           headers=headers)
                assert status == 401 and words in reply["error"], (method, headers, reply)
                refused += 1
        status, reply = await call(s, server, "GET", "/api/join")  # asked no code: not counted
        assert (status, reply["error"]) == (401, "missing or wrong table token")
        assert refused <= FAILED_BURST
        for _ in range(FAILED_BURST - refused):
            assert (await call(s, server, "GET", "/api/join", headers=bearer("1-wrong")))[0] == 401
        _, after = await call(s, server, "GET", "/api/state")
        assert not any(p["linked"] for p in after["players"])  # no link was made

        # Refused codes from one address: then it waits, a good code too (429, Retry-After).
        async with s.post(f"{server.url}api/join", json={"player": ann},
                          headers=joining) as reply:
            assert reply.status == 429 and "too many wrong join codes" in (
                await reply.json())["error"]
            assert int(reply.headers["Retry-After"]) >= 1


async def test_the_join_link_names_the_lan_address_when_served_on_every_interface(
        tmp_path: Path) -> None:
    async with serving(tmp_path) as (_local, app), aiohttp.ClientSession() as s:
        server = await start_web(app.table, "0.0.0.0", 0, TOKEN)
        try:
            base = f"http://127.0.0.1:{server.port}/"
            async with s.get(base + "api/join", headers=AUTH) as reply:
                menu = await reply.json()
            async with s.get(base + "api/share", headers=AUTH) as reply:
                share = await reply.json()
            code = code_of(menu["url"])
            lan = lan_address()  # None without a network
            assert menu["lan_url"] == (None if lan is None else
                                       f"http://{lan}:{server.port}/join#code={code}")
            assert server.join_link(menu["game"]) == menu["lan_url"]  # the screen's QR code
            assert share["url"] == f"{base}#token={TOKEN}"
            assert share["lan_url"] == (None if lan is None else
                                        f"http://{lan}:{server.port}/#token={TOKEN}")
            assert share["lan_url"] == server.lan_link()  # as `companion link` and the screen
        finally:
            await server.stop()


async def test_share_and_export_are_the_bankers_and_export_writes_what_the_cli_writes(
        tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(f'[data]\ndir = "{tmp_path}"\n')
    async with serving(tmp_path) as (server, _app), aiohttp.ClientSession() as s:
        _, state = await call(s, server, "GET", "/api/state")
        mario, luigi, _peach = (p["id"] for p in state["players"])
        first = state["game"]["id"]
        for body in ({"from": mario, "to": luigi, "amount": 4},
                     {"from": luigi, "to": "bank", "amount": 1, "note": "=cmd|' /C calc'!A0"}):
            assert (await call(s, server, "POST", "/api/transfers", body,
                               headers=AUTH))[0] == 201
        _, link = await call(s, server, "POST", f"/api/players/{luigi}/link", headers=AUTH)
        assert (await call(s, server, "POST", "/api/games", {"players": ["Ann", "Ben"]},
                           headers=AUTH))[0] == 201

        status, share = await call(s, server, "GET", "/api/share", headers=AUTH)
        assert status == 200 and share["url"] == f"{server.url}#token={TOKEN}"
        assert share["lan_url"] is None and share["qr"].startswith("<svg")

        for game in (first, first + 1):
            for fmt in ("csv", "json"):
                async with s.get(f"{server.url}api/games/{game}/export?format={fmt}",
                                 headers=AUTH) as reply:
                    assert reply.status == 200
                    served = await reply.read()
                    assert reply.headers["Content-Disposition"] == (
                        f'attachment; filename="question-block-game-{game}.{fmt}"')
                    assert reply.content_type == ("text/csv" if fmt == "csv"
                                                  else "application/json")
                    assert reply.charset == "utf-8"
                out = tmp_path / f"cli-{game}.{fmt}"
                done = run_companion("export", "--config", str(config), "--game", str(game),
                                     "--format", fmt, "--out", str(out))
                assert done.returncode == 0, done.stderr
                assert served == out.read_bytes(), (game, fmt)
        async with s.get(f"{server.url}api/games/{first}/export", headers=AUTH) as reply:
            assert await reply.read() == (tmp_path / f"cli-{first}.csv").read_bytes()
        assert b"'=cmd" in (tmp_path / f"cli-{first}.csv").read_bytes()  # no formula
        exported = json.loads((tmp_path / f"cli-{first}.json").read_text())
        assert [e["amount"] for e in exported["entries"]][-2:] == [4, 1]

        # Without the table token: 401 (a phone's link is not the banker's); bad input 400.
        for headers in ({}, bearer("wrong-token-0123456789"), bearer(link["token"])):
            for path in ("/api/share", f"/api/games/{first}/export",
                         f"/api/games/{first}/export?format=json"):
                status, reply = await call(s, server, "GET", path, headers=headers)
                assert status == 401 and reply["error"] == "missing or wrong table token"
        for path, words in ((f"/api/games/{first}/export?format=xml", "format must be"),
                            (f"/api/games/{first}/export?format=csv&format=json",
                             "format must be"),
                            (f"/api/games/{first}/export?fmt=csv", "unknown parameter"),
                            ("/api/games/abc/export", "game must be a game id"),
                            ("/api/games/0/export", "game must be a game id"),
                            ("/api/games/999/export", "unknown game")):
            status, reply = await call(s, server, "GET", path, headers=AUTH)
            assert status == 400 and words in reply["error"], (path, reply)


def test_companion_link_join_prints_the_join_link_of_the_game_played(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "10.1.2.3"\nport = 8123\n'
                      'token = "tok-0123456789abcdef"\n')
    missing = run_companion("link", "--join", "--config", str(config))
    assert missing.returncode == 1 and "no bank yet" in missing.stderr
    assert not (tmp_path / DB_NAME).exists()  # asking made none
    bank = Bank(tmp_path / DB_NAME)
    try:
        bank.new_game("celebration", ["Mario", "Luigi"])
        game = bank.new_game("celebration", ["Ann", "Ben"])
    finally:
        bank.close()
    done = run_companion("link", "--join", "--config", str(config))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    code = JoinCodes("tok-0123456789abcdef").code(game)  # the game played: the newest
    assert lines[0] == f"http://10.1.2.3:8123/join#code={code}"
    assert "tok-0123456789abcdef" not in done.stdout  # the players' link: no table token
    assert len(lines) > 10 and "\u2588" in done.stdout  # its QR code
    plain = run_companion("link", "--no-qr", "--config", str(config))
    assert plain.stdout == "http://10.1.2.3:8123/#token=tok-0123456789abcdef\n"  # as ever


# -- five phones and the banker, in Chromium ----------------------------------------------------


@pytest.fixture
def four(tmp_path: Path) -> Path:
    """A Celebration table of four on a free port, with the browser tests' token."""
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                    f'port = {free_port()}\ntoken = "{BROWSER_TOKEN}"\n'
                    '[game]\nplayers = ["Mario", "Luigi", "Peach", "Yoshi"]\n')
    return path


def bankers(base: str, path: str) -> Any:
    """A GET with the table token."""
    request = urllib.request.Request(base + path.lstrip("/"),
                                     headers={"Authorization": f"Bearer {BROWSER_TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def phone(browser: Browser, url: str, *, frozen: bool = False) -> Page:
    """A phone (its own browser profile, 390x844, touch) on ``url``; ``frozen``: its clock
    stands still once the page is drawn (its list is never asked again by itself)."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                  device_scale_factor=2)
    page = context.new_page()
    if frozen:
        page.clock.install()
    page.goto(url)
    if frozen:
        expect(page.locator("#choices .choice").first).to_be_visible()
        page.clock.pause_at(page.evaluate("Date.now()") + 50)
    return page


def choices(page: Page) -> Any:
    return expect(page.locator("#choices .choice"))


def joined(page: Page, name: str) -> None:
    """Tap ``name``, then Yes to "Is this you?": the phone is on that player's own page, live,
    showing their name."""
    page.locator("#choices .choice", has_text=name).tap()
    page.locator("#sure-yes").tap()  # (it takes taps once armed: tap waits for it)
    expect(page).to_have_url(re.compile(r"/p$"))  # the token is taken out of the address
    expect(page.locator("#title")).to_have_text(name)
    expect(page.locator("#link")).to_have_text("live")


def test_phones_join_from_the_tables_one_code(browser: Browser, four: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with daemon(four) as base:
        menu = bankers(base, "api/join")
        url = menu["url"]
        assert url.startswith(f"{base}join#code=")

        # Three phones open the one link; each picks a different player.
        mario = phone(browser, url)
        choices(mario).to_have_text(["Mario", "Luigi", "Peach", "Yoshi"])
        joined(mario, "Mario")
        luigi = phone(browser, url)
        choices(luigi).to_have_text(["Luigi", "Peach", "Yoshi"])
        luigi.screenshot(path=str(SHOTS / "phone-join.png"))
        assert not serious(audit(luigi))  # axe-core: nothing serious or critical
        joined(luigi, "Luigi")
        peach = phone(browser, url)
        joined(peach, "Peach")
        assert peach.evaluate("localStorage.getItem('companion-player-token')")
        assert peach.evaluate("localStorage.getItem('companion-table-token')") is None
        state = json.loads(urllib.request.urlopen(base + "api/state", timeout=10).read())
        assert [p["linked"] for p in state["players"]] == [True, True, True, False]
        assert [p["name"] for p in bankers(base, "api/join")["players_without_phone"]] == [
            "Yoshi"]

        # Mario's phone scans the table's code again: it is his already, his page again.
        mario.goto(url)
        expect(mario).to_have_url(re.compile(r"/p$"))
        expect(mario.locator("#title")).to_have_text("Mario")

        # A fourth and a fifth phone see only Yoshi; both tap him: one gets him, the other
        # is told in words (its list was drawn before: it never asked again meanwhile).
        fourth, fifth = phone(browser, url), phone(browser, url, frozen=True)
        choices(fourth).to_have_text(["Yoshi"])
        choices(fifth).to_have_text(["Yoshi"])
        joined(fourth, "Yoshi")
        fifth.locator("#choices .choice", has_text="Yoshi").tap()
        fifth.clock.run_for(700)  # (its clock stands still: Yes arms once 600 ms have run)
        fifth.locator("#sure-yes").tap()
        expect(fifth.locator("#said")).to_have_text(
            "Yoshi already has a phone: ask the banker for a new link")
        choices(fifth).to_have_count(0)
        expect(fifth.locator("#none")).to_be_visible()
        assert fifth.url.startswith(f"{base}join")

        # The banker turns Luigi's link off: his phone says so, the join page offers him again.
        assert post(base, f"api/players/{state['players'][1]['id']}/link",
                    method="DELETE")[1]["revoked"] is True
        expect(luigi.locator("#off")).to_contain_text("turned off by the banker")
        fifth.clock.resume()
        assert not serious(audit(fifth))  # (axe-core waits on timers: the clock runs again)
        choices(fifth).to_have_text(["Luigi"], timeout=15000)

        # A new game: the earlier game's code is refused, in words; the new one works.
        assert post(base, "api/games", body={"players": ["Ann", "Ben"]})[0] == 201
        expect(fifth.locator("#off")).to_have_text(EARLIER, timeout=15000)
        late = phone(browser, url)
        expect(late.locator("#off")).to_have_text(EARLIER)
        expect(late.locator("#main")).to_be_hidden()
        assert not serious(audit(late))
        fresh = bankers(base, "api/join")["url"]
        assert fresh != url
        late.goto(fresh)
        late.reload()  # a new hash alone does not reload a page
        choices(late).to_have_text(["Ann", "Ben"])
        joined(late, "Ben")
        none = phone(browser, f"{base}join")
        expect(none.locator("#off")).to_have_text(
            "This page needs the table's join code: scan the code the table shows.")
        for page in (mario, luigi, peach, fourth, fifth, late, none):
            page.context.close()
