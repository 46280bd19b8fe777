"""Serving the tablet's page and API on the daemon's loop: the web frontend."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from companion.app.contract import Table
from companion.config import WebConfig
from companion.web import join_code, links, players
from companion.web.api import ReaderSource, build_app
from companion.web.guard import KEEPALIVE_S, ConnectionGuard, GuardedSite
from companion.web.hardening import harden
from companion.web.join_code import JoinCodes
from companion.web.players import BIND_HOST
from companion.web.token import load_or_create_token

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT = 0.5
"""Seconds that requests still in flight get at shutdown."""


@dataclass
class WebServer:
    """One aiohttp site for one table."""

    runner: web.AppRunner
    host: str
    port: int
    token: str
    guard: ConnectionGuard | None = None

    @property
    def url(self) -> str:
        return links.page_url(self.host, self.port)

    @property
    def tablet_link(self) -> str:
        """What the tablet opens (or the QR code holds): the page with the token."""
        return links.with_token(self.url, self.token)

    def lan_link(self) -> str | None:
        """The tablet link with an address other devices can open (None: no network yet)."""
        return links.lan_link(self.host, self.port, self.token)

    def join_link(self, game: int) -> str | None:
        """The players' join link of ``game`` at an address phones can open (None: none)."""
        code = JoinCodes(self.token).code(game)
        return links.lan_link(self.host, self.port, code, page=join_code.PAGE,
                              key=join_code.KEY)

    async def stop(self) -> None:
        if self.guard is not None:
            self.guard.close()
        await self.runner.cleanup()


async def start_web(table: Table, host: str, port: int, token: str,
                    reader: ReaderSource | None = None,
                    allowed_hosts: Iterable[str] = (), language: str = "en") -> WebServer:
    """Bind and serve; ``port`` 0 picks a free one (tests); ``language`` the table's (a page
    shows it until its device picks another)."""
    app = build_app(table, token, reader, language=language)
    app[BIND_HOST] = host  # the players' phone links name the LAN address from it
    guard = harden(app, token=token, bind_host=host, allowed_hosts=allowed_hosts)
    guard.phone = lambda request: players.feed_for(request, table)  # ranks with the token
    # A page stuck mid-request must not hold up shutdown (systemd allows the daemon 2 s).
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_TIMEOUT,
                           keepalive_timeout=KEEPALIVE_S)
    await runner.setup()
    guard.attach(runner.server)  # type: ignore[arg-type]
    # "::" alone would be IPv6 only (asyncio sets IPV6_V6ONLY): serve IPv4 too, so the link
    # with the LAN's IPv4 address works.
    binds: list[str | list[str]] = [["0.0.0.0", "::"], "0.0.0.0"] if host == "::" else [host]
    for i, bind in enumerate(binds):
        site = GuardedSite(runner, guard, bind, port)
        try:
            await site.start()
            break
        except OSError:
            if i == len(binds) - 1:
                guard.close()
                await runner.cleanup()
                raise
            log.warning("web: no IPv6 here; serving IPv4 only")
    bound = port
    server = getattr(site, "_server", None)
    if server is not None and server.sockets:
        bound = server.sockets[0].getsockname()[1]
        guard.fit(len(server.sockets))
    log.info("web: serving on %s:%d", host, bound)
    return WebServer(runner, host, bound, token, guard)


class WebFrontend:
    """The tablet's page, JSON API and WebSocket on ``[web] host:port``.

    ``any_port_if_taken`` is the demo's choice: a free port beats no page."""

    name = "web"
    needed_at_table = True

    def __init__(self, cfg: WebConfig, data_dir: Path, *,
                 reader: ReaderSource | None = None,
                 any_port_if_taken: bool = False, language: str = "en") -> None:
        self.cfg = cfg
        self.language = language
        self.data_dir = data_dir
        self.reader = reader
        self.any_port_if_taken = any_port_if_taken
        self.server: WebServer | None = None

    async def start(self, table: Table) -> None:
        cfg = self.cfg
        try:
            token = load_or_create_token(cfg.token, self.data_dir)
            try:
                self.server = await start_web(table, cfg.host, cfg.port, token, self.reader,
                                              cfg.allowed_hosts, self.language)
            except OSError:
                if not self.any_port_if_taken:
                    raise
                log.info("port %d is taken; serving on a free port instead", cfg.port)
                self.server = await start_web(table, cfg.host, 0, token, self.reader,
                                              cfg.allowed_hosts, self.language)
        except OSError as exc:
            log.warning("web server on %s:%d unavailable: %s; carrying on without it",
                        cfg.host, cfg.port, exc)
            return
        log.info("web: the tablet API is at %sapi/state", self.server.url)
        # The token is the tablet's key: not in the journal (readable by the adm group).
        log.info("web: the tablet link (with its token) is on the screen's QR code and from "
                 "`companion link`")
        log.debug("web: tablet link: %s", self.server.tablet_link)

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()
            self.server = None

    def lan_link(self) -> str | None:
        """For the screen's QR code: None until the server runs and the network is up."""
        return None if self.server is None else self.server.lan_link()

    def page_link(self) -> str | None:
        """The page's address on the LAN without the table token (Home Assistant's "Visit"
        link): None until the server runs and the network is up."""
        link = self.lan_link()
        return None if link is None else link.split("#", 1)[0]

    def join_link(self, game: int) -> str | None:
        """For the screen's join QR code: None until the server runs and the network is up."""
        return None if self.server is None else self.server.join_link(game)

    @property
    def healthy(self) -> bool:
        return self.server is not None

    def status(self) -> str:
        return f"web {self.server.url if self.server else 'off'}"
