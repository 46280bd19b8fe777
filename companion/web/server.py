"""Serving the API on the daemon's loop: start, find the bound port, stop."""

from __future__ import annotations

import ipaddress
import logging
from dataclasses import dataclass
from urllib.parse import quote

from aiohttp import web

from companion.daemon import Companion
from companion.web.address import lan_address
from companion.web.api import build_app

log = logging.getLogger(__name__)

SHUTDOWN_TIMEOUT = 0.5
"""Seconds that requests still in flight get at shutdown."""


@dataclass
class WebServer:
    """One aiohttp site for one companion."""

    runner: web.AppRunner
    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{host}:{self.port}/"

    @property
    def tablet_link(self) -> str:
        """What the tablet opens (or the QR code holds): the page with the token."""
        return f"{self.url}#token={quote(self.token, safe='')}"

    def lan_link(self) -> str | None:
        """The tablet link with an address other devices can open (None: no network yet).

        When bound to every interface, that is this machine's address on its default route."""
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            found = lan_address()
            if found is None:
                return None
            host = found
        elif _loopback(host):
            return None  # only this machine can open it: no use to a phone
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/#token={quote(self.token, safe='')}"

    async def stop(self) -> None:
        await self.runner.cleanup()


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def start_web(companion: Companion, host: str, port: int, token: str) -> WebServer:
    """Bind and serve; ``port`` 0 picks a free one (tests)."""
    # A page stuck mid-request must not hold up shutdown (systemd allows the daemon 2 s).
    runner = web.AppRunner(build_app(companion, token), access_log=None,
                           shutdown_timeout=SHUTDOWN_TIMEOUT)
    await runner.setup()
    # "::" alone would be IPv6 only (asyncio sets IPV6_V6ONLY): serve IPv4 too, so the link
    # with the LAN's IPv4 address works.
    binds: list[str | list[str]] = [["0.0.0.0", "::"], "0.0.0.0"] if host == "::" else [host]
    for i, bind in enumerate(binds):
        site = web.TCPSite(runner, bind, port)  # type: ignore[arg-type]
        try:
            await site.start()
            break
        except OSError:
            if i == len(binds) - 1:
                await runner.cleanup()
                raise
            log.warning("web: no IPv6 here; serving IPv4 only")
    bound = port
    server = getattr(site, "_server", None)
    if server is not None and server.sockets:
        bound = server.sockets[0].getsockname()[1]
    log.info("web: serving on %s:%d", host, bound)
    return WebServer(runner, host, bound, token)
