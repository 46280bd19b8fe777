"""Other web pages and other names stay out (issue 13, part 5), on a real aiohttp server on
127.0.0.1 and in headless Chromium: the Host check (DNS rebinding), the WebSocket's Origin,
the security headers (no framing), and card UIDs only with the token."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from gpiozero.pins.mock import MockFactory
from playwright.sync_api import Browser, ConsoleMessage, expect

from companion.app import commands as c
from companion.audio.null_backend import NullBackend
from companion.config import AudioConfig, Config, DataConfig, GameConfig
from companion.daemon import Daemon
from companion.web.hardening import CSP
from companion.web.hosts import AllowedHosts, host_of, ipv6_addresses, normalise, own_names
from companion.web.privacy import public
from companion.web.server import WebServer, start_web
from tests.conftest import CHROMIUM, CHROMIUM_ARGS, StepClock, free_port
from tests.test_tablet_browser import daemon, open_page

TOKEN = "hosts-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
UID = "DEADBEEF01"
ACTION_UID = "0A0B0C0D0E"


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, allowed: tuple[str, ...] = ()
                  ) -> AsyncIterator[tuple[WebServer, Daemon, aiohttp.ClientSession]]:
    config = Config(audio=AudioConfig(backend="null"), data=DataConfig(dir=str(tmp_path)),
                    game=GameConfig(players=("Mario", "Luigi", "Peach")))
    app = Daemon(config, pin_factory=MockFactory(), rng=random.Random(5),
                 backend=NullBackend(), clock=StepClock(100.0, 10))
    app.start(asyncio.get_running_loop())
    server = await start_web(app.table, "127.0.0.1", 0, TOKEN, allowed_hosts=allowed)
    try:
        async with aiohttp.ClientSession() as session:
            yield server, app, session
    finally:
        await server.stop()
        await app.table.drain()
        app.close()


async def get(session: aiohttp.ClientSession, server: WebServer, path: str,
              headers: dict[str, str] | None = None) -> tuple[int, Any, Any]:
    async with session.get(f"http://127.0.0.1:{server.port}{path}", headers=headers) as reply:
        text = await reply.text()
        body = json.loads(text) if reply.content_type == "application/json" else text
        return reply.status, body, reply.headers


# -- the names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("header", "host"), [
    ("127.0.0.1:8080", "127.0.0.1"), ("LOCALHOST", "localhost"), ("localhost.:80", "localhost"),
    ("[::1]:8080", "::1"), ("[::1]", "::1"), ("[FD00:0:0::2]:80", "fd00::2"), ("::1", "::1"),
    ("Pi.Local.", "pi.local"), ("[fe80::1%eth0]:80", "fe80::1"),
    ("evil.example:8080", "evil.example"),
    ("[::1", None), ("[::1]x", None), ("a b", None), ("", None), ("x:y", None),
    ("caf\u00e9.example", None), ("user@host", None),
])
def test_the_host_header_is_read_like_a_browser_writes_it(header: str, host: str | None) -> None:
    assert host_of(header) == host


def test_this_machine_answers_to_its_names_and_addresses() -> None:
    names = own_names("0.0.0.0", ("Companion.LAN.",))
    hostname = socket.gethostname().lower()
    assert {"localhost", "127.0.0.1", "::1", hostname, hostname.split(".")[0] + ".local",
            "companion.lan"} <= names
    for address in ipv6_addresses():
        assert address in names
    assert "0.0.0.0" not in names and "evil.example" not in names
    assert normalise("192.168.1.20") in own_names("192.168.1.20")  # a specific bind address


def test_the_names_are_read_again_after_a_while_and_on_a_miss(tmp_path: Path) -> None:
    now = [0.0]
    hosts = AllowedHosts("0.0.0.0", clock=lambda: now[0])
    assert hosts.allows("localhost")
    hosts.extra = ("late.example",)  # as if the machine had a new name or address
    assert not hosts.allows("late.example")  # just read: a miss does not read again at once
    now[0] += 2.5
    assert hosts.allows("late.example")  # a miss after 2 s reads the names again


async def test_a_foreign_host_is_refused_with_how_to_allow_it(tmp_path: Path) -> None:
    async with serving(tmp_path, allowed=("companion.test",)) as (server, _, s):
        port = server.port
        for path in ("/", "/healthz", "/api/state", "/api/journal", "/api/activity",
                     "/static/page/main.js", "/api/rules", "/ws"):
            status, body, headers = await get(s, server, path, {"Host": f"evil.example:{port}"})
            assert status == 421, path
            assert "evil.example" in body["error"] and "allowed_hosts" in body["error"]
            assert headers["X-Frame-Options"] == "DENY"
        hostname = socket.gethostname()
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "LOCALHOST.",
                     f"{hostname}:{port}", f"{hostname.split('.')[0]}.local:{port}",
                     f"companion.test:{port}", "Companion.Test"):
            status, body, _ = await get(s, server, "/api/state", {"Host": host})
            assert status == 200 and body["players"], host
        # A POST with the token and a foreign Host is refused too (nothing changes).
        async with s.post(f"http://127.0.0.1:{port}/api/next",
                          headers={**AUTH, "Host": "evil.example"}) as reply:
            assert reply.status == 421
        _, state, _ = await get(s, server, "/api/state")
        assert state["current_player"] == state["players"][0]["id"]


async def test_a_request_without_host_is_served(tmp_path: Path) -> None:
    """HTTP/1.0 tools may send no Host: nothing to check, nothing to rebind."""
    async with serving(tmp_path) as (server, _, _s):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /api/rules HTTP/1.0\r\n\r\n")
        reply = await asyncio.wait_for(reader.read(), 10)
        writer.close()
        assert reply.startswith(b"HTTP/1.0 200") or reply.startswith(b"HTTP/1.1 200")


async def test_a_websocket_from_another_origin_is_refused(tmp_path: Path) -> None:
    """A browser's Origin must be the page on this very Host: another name, another port on
    this machine, ``null`` (sandboxed frames, files) are other sites."""
    async with serving(tmp_path, allowed=("companion.test",)) as (server, _, s):
        port = server.port
        url = f"ws://127.0.0.1:{port}/ws"
        for origin in ("http://evil.example", f"http://evil.example:{port}", "null", "file://",
                       f"http://127.0.0.1:{port + 1}", f"http://localhost:{port}",
                       "http://127.0.0.1.evil.example",
                       f"http://127.0.0.1:{port}@evil.example",
                       # another scheme on this very host and port; userinfo; more than an
                       # origin (issue 43, item 10)
                       f"https://127.0.0.1:{port}", f"http://evil.example@127.0.0.1:{port}",
                       f"http://user:pw@127.0.0.1:{port}", f"http://@127.0.0.1:{port}",
                       "http://evil.example@companion.test", f"http://127.0.0.1:{port}/",
                       f"http://127.0.0.1:{port}/evil", f"http://127.0.0.1:{port}?x",
                       f"http://127.0.0.1:{port}#x"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await s.ws_connect(url, origin=origin)
            assert refused.value.status == 403, origin
            with pytest.raises(aiohttp.WSServerHandshakeError):  # the token does not help
                await s.ws_connect(f"{url}?token={TOKEN}", origin=origin)
        for origin, host in ((None, None), (f"http://127.0.0.1:{port}", None),
                             (f"http://localhost:{port}", f"localhost:{port}"),
                             ("http://companion.test:8080", "companion.test:8080"),
                             ("https://companion.test", "companion.test"),  # behind a proxy
                             ("http://companion.test", "companion.test:80")):
            async with s.ws_connect(url, origin=origin,
                                    headers={"Host": host} if host else None) as ws:
                hello = await ws.receive_json(timeout=5)
                assert hello["action"] == "hello", origin


async def test_a_reverse_proxys_name_may_open_the_feed_and_a_bad_origin_is_a_clear_no(
        tmp_path: Path) -> None:
    """Behind a proxy the Host is often the Pi's own (nginx's default) while the page's Origin
    is the proxy's name: a name in allowed_hosts is enough. An Origin that is not even a URL
    (bad punycode) is refused as JSON, never a 500."""
    async with serving(tmp_path, allowed=("companion.example",)) as (server, _, s):
        url = f"ws://127.0.0.1:{server.port}/ws"
        async with s.ws_connect(url, origin="https://companion.example:8443") as ws:
            assert (await ws.receive_json(timeout=5))["action"] == "hello"
        for origin in ("http://xn--zz.com", "http://[::1", "http://a..b"):
            async with s.get(url, headers={"Origin": origin, "Upgrade": "websocket",
                                           "Connection": "Upgrade",
                                           "Sec-WebSocket-Version": "13",
                                           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
                             ) as reply:
                assert (reply.status, reply.content_type) == (403, "application/json"), origin
                assert "may not open the table's live feed" in (await reply.json())["error"]


def test_the_address_a_request_came_in_on_is_always_this_pi() -> None:
    """The QR link's address may be an interface's second address, which the interface list
    does not show: the address the connection was made to is this Pi whatever it is."""
    hosts = AllowedHosts("0.0.0.0", clock=lambda: 0.0)
    assert not hosts.allows_host_header("198.51.100.7:8080")
    assert hosts.allows_host_header("198.51.100.7:8080", "198.51.100.7")
    assert hosts.allows_host_header("198.51.100.7", "::ffff:198.51.100.7")  # v4 on a v6 socket
    assert hosts.allows_host_header("[2001:db8::7]:8080", "2001:db8::7")
    assert not hosts.allows_host_header("evil.example:8080", "198.51.100.7")


async def test_linking_a_card_is_announced_without_its_uid(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _app, s):
        _, state, _ = await get(s, server, "/api/state")
        async with s.ws_connect(f"ws://127.0.0.1:{server.port}/ws") as stranger:
            await stranger.receive_json(timeout=5)  # hello
            for body in ({"uid": UID, "player": state["players"][1]["id"]},
                         {"uid": ACTION_UID, "action": "undo"}):
                async with s.post(f"http://127.0.0.1:{server.port}/api/cards", headers=AUTH,
                                  data=json.dumps(body)) as reply:
                    assert reply.status == 200
                message = await stranger.receive_json(timeout=5)
                assert message["type"] == "state"
                assert UID not in json.dumps(message) and ACTION_UID not in json.dumps(message)
            assert message["summary"] == "a card now does undo"


async def test_every_answer_carries_the_security_headers(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, _, s):
        for path in ("/", "/static/page/main.js", "/static/app.css", "/api/state", "/healthz",
                     "/nothing-here"):
            _, _, headers = await get(s, server, path)
            assert headers["Content-Security-Policy"] == CSP, path
            assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
            assert headers["X-Frame-Options"] == "DENY"
            assert headers["X-Content-Type-Options"] == "nosniff"
            assert headers["Referrer-Policy"] == "no-referrer"
        async with s.post(f"http://127.0.0.1:{server.port}/api/press") as reply:
            assert reply.status == 401 and reply.headers["X-Frame-Options"] == "DENY"


# -- card UIDs only with the token ------------------------------------------------------------


async def link_and_tap(app: Daemon, server: WebServer, s: aiohttp.ClientSession) -> None:
    """A player's card and an action card, linked with the token; each tapped once, and a
    new card tapped."""
    _, state, _ = await get(s, server, "/api/state")
    mario = state["players"][0]["id"]
    for body in ({"uid": UID, "player": mario}, {"uid": ACTION_UID, "action": "pass_go"}):
        async with s.post(f"http://127.0.0.1:{server.port}/api/cards", headers=AUTH,
                          data=json.dumps(body)) as reply:
            assert reply.status == 200, await reply.text()
    for uid in (UID, ACTION_UID, "11223344"):
        await app.table.act(c.Tap(uid), source="reader")
    await app.table.drain()


async def test_card_uids_and_actions_only_with_the_token(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app, s):
        await link_and_tap(app, server, s)
        status, state, _ = await get(s, server, "/api/state", AUTH)
        assert status == 200 and state["players"][0]["card"] == UID
        _, state, _ = await get(s, server, "/api/state")
        assert state["players"][0]["card"] is None
        assert all(p["card"] is None for p in state["players"])
        _, feed, _ = await get(s, server, "/api/activity", AUTH)
        assert {a["uid"] for a in feed["activity"]} == {UID, ACTION_UID, "11223344"}
        assert feed["new_cards"] == ["11223344"] and feed["card_actions"] == {
            ACTION_UID: "pass_go"}
        status, feed, _ = await get(s, server, "/api/activity")
        assert status == 200 and len(feed["activity"]) == 3
        assert all(a["uid"] is None for a in feed["activity"])
        assert feed["new_cards"] == [] and feed["card_actions"] == {}
        assert [a["did"] for a in feed["activity"]][-1] == "Mario is current"  # still said
        _, journal, _ = await get(s, server, "/api/journal", AUTH)
        assert f"card:{ACTION_UID}" in json.dumps(journal)  # GO paid by the action card
        # Without the token, no route has any of the UIDs anywhere.
        for route in server.runner.app.router.routes():
            info = route.resource.get_info() if route.resource else {}
            path = info.get("path")
            if route.method != "GET" or not path or path in ("/ws",):
                continue
            status, body, _ = await get(s, server, path)
            text = json.dumps(body) if not isinstance(body, str) else body
            for uid in (UID, ACTION_UID, "11223344"):
                assert uid not in text, (path, uid)


async def test_websocket_pages_see_card_uids_only_with_the_token(tmp_path: Path) -> None:
    async with serving(tmp_path) as (server, app, s):
        url = f"ws://127.0.0.1:{server.port}/ws"
        _, state, _ = await get(s, server, "/api/state")
        async with s.post(f"http://127.0.0.1:{server.port}/api/cards", headers=AUTH,
                          data=json.dumps({"uid": UID,
                                           "player": state["players"][0]["id"]})) as reply:
            assert reply.status == 200
        async with s.ws_connect(url) as stranger, \
                s.ws_connect(f"{url}?token={TOKEN}") as page, \
                s.ws_connect(url, headers=AUTH) as script, \
                s.ws_connect(f"{url}?token=wrong-{TOKEN}") as guesser:
            for ws, sees in ((stranger, None), (page, UID), (script, UID), (guesser, None)):
                hello = await ws.receive_json(timeout=5)
                assert hello["state"]["players"][0]["card"] == sees
            await app.table.act(c.Tap(UID), source="reader")
            for ws, sees in ((stranger, None), (page, UID), (script, UID), (guesser, None)):
                kinds: dict[str, Any] = {}
                while not {"activity", "state"} <= set(kinds):
                    message = await ws.receive_json(timeout=5)
                    kinds.setdefault(message["type"], message)
                assert kinds["activity"]["tap"]["uid"] == sees
                assert kinds["state"]["state"]["players"][0]["card"] == sees


def test_public_takes_out_uids_and_actions_and_leaves_the_rest() -> None:
    tap = {"at": 1.0, "uid": UID, "source": "reader", "kind": "unknown",
           "did": f"refused: card {UID} is Luigi's"}
    message = {"type": "state", "state": {
        "players": [{"id": 1, "name": "Mario", "card": UID, "cards": 3}],
        "recent": [{"source": f"card:{ACTION_UID}", "note": "passed GO"},
                   {"source": "tablet"}]},
        "activity": [tap], "new_cards": [UID], "card_actions": {ACTION_UID: "undo"}}
    assert public(message) == {"type": "state", "state": {
        "players": [{"id": 1, "name": "Mario", "card": None, "cards": 3}],
        "recent": [{"source": "card", "note": "passed GO"}, {"source": "tablet"}]},
        "activity": [{"at": 1.0, "uid": None, "source": "reader", "kind": "unknown",
                      "did": "refused: card card is Luigi's"}],
        "new_cards": [], "card_actions": {}}
    assert message["state"]["players"][0]["card"] == UID  # the original is left alone


# -- in Chromium: framing, another origin's WebSocket, DNS rebinding ---------------------------


@contextlib.contextmanager
def other_site(html: str) -> Iterator[str]:
    """Another origin (another port on 127.0.0.1) serving ``html``: a page a player opened."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{tmp_path}"\n[web]\nhost = "127.0.0.1"\n'
                    f'port = {free_port()}\ntoken = "{TOKEN}"\n'
                    'allowed_hosts = ["companion.test"]\n'
                    '[game]\nplayers = ["Mario", "Luigi", "Peach"]\n')
    return path


OPEN_SOCKET = """(url) => new Promise((resolve) => {
  const seen = [];
  const ws = new WebSocket(url);
  ws.onopen = () => seen.push("open");
  ws.onmessage = (m) => { seen.push("message " + JSON.parse(m.data).type); ws.close(); };
  ws.onerror = () => seen.push("error");
  ws.onclose = (e) => resolve({ seen, code: e.code });
  setTimeout(() => resolve({ seen, code: "timeout" }), 5000);
})"""


def test_another_site_can_neither_frame_the_page_nor_open_its_websocket(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base, other_site(
            f'<!doctype html><title>elsewhere</title><iframe id="f" src="{base}"></iframe>'
    ) as elsewhere:
        page = browser.new_page()
        said: list[str] = []
        page.on("console", lambda m: said.append(m.text))
        page.goto(elsewhere)
        page.wait_for_load_state("load")
        page.wait_for_timeout(500)
        framed = page.frame_locator("#f")
        assert framed.locator("#players").count() == 0  # nothing of the page inside
        assert page.locator("#f").count() == 1
        assert any("frame-ancestors 'none'" in text and "blocked" in text for text in said), said
        ws_url = base.replace("http://", "ws://") + "ws"
        for url in (ws_url, f"{ws_url}?token={TOKEN}"):
            result = page.evaluate(OPEN_SOCKET, url)
            assert "open" not in result["seen"] and not any(
                s.startswith("message") for s in result["seen"]), result
            assert result["code"] != "timeout"
        page.close()
        # The same socket from the companion's own page opens and hears the state.
        own = browser.new_page()
        own.goto(base)
        result = own.evaluate(OPEN_SOCKET, ws_url)
        assert result["seen"] == ["open", "message state"], result
        own.close()


def test_the_page_runs_under_its_policy_and_its_socket_has_the_token(
        browser: Browser, config: Path) -> None:
    with daemon(config) as base:
        import urllib.request

        request = urllib.request.Request(base + "api/state")
        state = json.loads(urllib.request.urlopen(request, timeout=10).read())
        link = urllib.request.Request(
            base + "api/cards", method="POST",
            data=json.dumps({"uid": UID, "player": state["players"][0]["id"]}).encode(),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        urllib.request.urlopen(link, timeout=10).read()
        context = browser.new_context()
        context.add_init_script(
            "window.__violations = [];"
            "document.addEventListener('securitypolicyviolation',"
            " (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));")
        said: list[ConsoleMessage] = []
        page = context.new_page()
        page.on("console", lambda m: said.append(m))
        page.goto(f"{base}#token={TOKEN}")
        expect(page.locator("#link")).to_have_text("live")
        expect(page.locator(".tile:not(.bank-tile)")).to_have_count(3)
        page.locator("#press").click()
        expect(page.locator("#outcome")).to_contain_text("Mario")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.__violations") == []
        assert not [m.text for m in said if "Content Security Policy" in m.text]
        assert page.evaluate("state.players[0].card") == UID  # the socket had the token
        stranger = browser.new_page()  # another browser profile: no token
        stranger.goto(base)
        expect(stranger.locator("#link")).to_have_text("live")
        assert stranger.evaluate("state.players[0].card") is None
        stranger.close()
        context.close()


def test_a_rebound_name_gets_nothing_and_an_allowed_name_works(
        browser: Browser, config: Path) -> None:
    """DNS rebinding for real: Chromium resolves evil.example (and companion.test, which the
    config allows) to 127.0.0.1, as an attacker's DNS would."""
    with daemon(config) as base:
        port = base.rsplit(":", 1)[1].strip("/")
        rebinding = browser.browser_type.launch(
            executable_path=CHROMIUM, headless=True,
            args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1, "
                                  "MAP companion.test 127.0.0.1"])
        try:
            page = rebinding.new_page()
            reply = page.goto(f"http://evil.example:{port}/")
            assert reply is not None and reply.status == 421
            assert "allowed_hosts" in page.locator("body").inner_text()
            for path in ("api/state", "api/activity"):
                reply = page.goto(f"http://evil.example:{port}/{path}")
                assert reply is not None and reply.status == 421
            page.close()
            page = open_page(rebinding, f"http://companion.test:{port}/#token={TOKEN}")
            expect(page.locator(".tile:not(.bank-tile)")).to_have_count(3)
            page.close()
        finally:
            rebinding.close()
