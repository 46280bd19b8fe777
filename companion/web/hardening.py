"""What keeps other web pages and other hosts' names out of the table (issue 13, part 5).

- ``Host`` must be one of this Pi's names (:mod:`companion.web.hosts`): else 421 Misdirected
  Request, as JSON saying how to allow the name. No ``Host`` at all (HTTP/1.0 tools) is fine.
- A WebSocket from a browser must come from the page on this very scheme, host and port
  (``Origin`` equals ``http://`` + ``Host``, which is one of those names), or from a name in
  ``[web] allowed_hosts`` (a reverse proxy's: http or https, any port, as the proxy serves
  it; the daemon cannot see either): else 403 before the upgrade. An ``Origin`` with
  userinfo, a path or anything but ``scheme://host[:port]`` is no browser's: refused. No
  ``Origin`` (a script, not a browser) is fine. An IP address equal to the one the request
  came in on is always this Pi.
- Every answer says: no framing (CSP ``frame-ancestors 'none'``, ``X-Frame-Options``), only
  the page's own scripts, styles and connections, no MIME sniffing, no Referer (the token
  travels in the link's ``#fragment``).
- Card UIDs and card actions only with the token (:mod:`companion.web.privacy`).
- The connection guard's middlewares (:mod:`companion.web.guard`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from aiohttp import hdrs, web

from companion.i18n.said import Said, as_json, say
from companion.web.guard import ConnectionGuard
from companion.web.hosts import AllowedHosts, host_of, origin_host, same_origin
from companion.web.privacy import has_token, make_redactor

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
"""The page uses no inline script or style, so nothing else needs allowing."""
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}
"""On every answer."""
MISDIRECTED = 421


def _error(status: int, message: str | Said) -> web.Response:
    """``error`` in English, ``error_said`` for the page to put into its own language."""
    return web.json_response({"error": str(message), "error_said": as_json(message)},
                             status=status)


def host_check(hosts: AllowedHosts) -> Callable[[web.Request, Handler],
                                                Awaitable[web.StreamResponse]]:
    """A middleware refusing a ``Host`` that is not this Pi, and a WebSocket from a page that
    is not on this Pi."""

    @web.middleware
    async def only_this_pi(request: web.Request, handler: Handler) -> web.StreamResponse:
        host = request.headers.get(hdrs.HOST)
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        local = str(sockname[0]) if sockname else None
        if host is not None and not hosts.allows_host_header(host, local):
            name = host_of(host) or host[:80]
            return _error(MISDIRECTED,
                          say("this companion does not answer to the name {shown} (a guard "
                              "against other web pages reading the table); to open it by that "
                              "name, add it to the config: [web] allowed_hosts = "
                              "[\"{name}\"], then restart", shown=repr(name), name=name))
        origin = request.headers.get(hdrs.ORIGIN)
        if (origin is not None and request.headers.get(hdrs.UPGRADE, "").lower() == "websocket"
                and not (host is not None and same_origin(origin, host, request.scheme))
                and not hosts.configured(origin_host(origin))):
            return _error(403, say("a page from {origin} may not open the table's live feed: "
                                   "only the companion's own page may",
                                   origin=repr(origin[:80])))
        return await handler(request)

    return only_this_pi


async def security_headers(_request: web.Request, response: web.StreamResponse) -> None:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)


def harden(app: web.Application, *, token: str, bind_host: str,
           allowed_hosts: Iterable[str] = ()) -> ConnectionGuard:
    """Put the checks above on ``app`` (before it is set up); the connection guard to serve
    it with (:meth:`ConnectionGuard.attach` once the runner is set up)."""
    guard = ConnectionGuard(trusted=lambda request: has_token(request, token, query=True))
    hosts = AllowedHosts(bind_host, allowed_hosts)
    track, websockets = guard.middlewares()
    # After errors_as_json (the app's first): whatever goes wrong in these is JSON too.
    for index, middleware in enumerate((track, host_check(hosts), websockets,
                                        make_redactor(token)), start=1):
        app.middlewares.insert(index, middleware)
    app.on_response_prepare.append(security_headers)
    return guard
