"""Which ``Host`` the tablet page may be asked for: this Pi's own names and addresses.

A web page a player opens elsewhere can point a name it controls at the Pi's address (DNS
rebinding) and then read every GET route as its own origin. Its requests still carry that
name in ``Host``: answering only to this Pi's names stops it. The WebSocket also checks a
browser's ``Origin`` (WebSockets are not covered by the browser's same-origin rules).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from yarl import URL

from companion.web.address import interface_addresses, lan_address

log = logging.getLogger(__name__)

CACHE_S = 30.0
"""How long the set of this Pi's addresses is trusted before it is read again (DHCP)."""
MISS_REFRESH_S = 2.0
"""A Host not in the set re-reads the addresses, at most this often (a new lease is seen at
once, and a flood of bad names costs one read every 2 s)."""
IF_INET6 = Path("/proc/net/if_inet6")
LOOPBACK = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")


def normalise(name: str) -> str | None:
    """A host name or address as compared: lower case, no trailing dot, no brackets or zone,
    addresses in their canonical form. None for something that is no host name."""
    name = name.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    name = name.split("%", 1)[0]  # an IPv6 zone (fe80::1%eth0)
    if not name or not name.isascii() or not name.isprintable() or " " in name:
        return None
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        pass
    if ":" in name or "/" in name or "@" in name:
        return None
    return name


def split_host(header: str) -> tuple[str, int | None] | None:
    """(host, port or None) of a ``Host`` header (``name``, ``name:port``, ``[v6]``,
    ``[v6]:port``); None when it is no host."""
    header = header.strip()
    port = ""
    if header.startswith("["):
        end = header.find("]")
        if end < 0:
            return None
        name, rest = header[:end + 1], header[end + 1:]
        if rest:
            if not rest.startswith(":"):
                return None
            port = rest[1:]
    elif header.count(":") == 1:
        name, _, port = header.partition(":")
        if not port:
            return None
    else:
        name = header  # no port, or a bare IPv6 address (not valid, but unambiguous)
    if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        return None
    host = normalise(name)
    return None if host is None else (host, int(port) if port else None)


def host_of(header: str) -> str | None:
    """The host in a ``Host`` header, :func:`normalise`-d."""
    found = split_host(header)
    return None if found is None else found[0]


def _origin(origin: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an ``Origin``: ``scheme://host[:port]`` and nothing else (no
    userinfo, path, query or fragment: a browser never sends them, so they are a forgery)."""
    text = origin.strip()
    try:
        url = URL(text)
        if (url.scheme not in ("http", "https") or not url.host or url.port is None
                or url.raw_user is not None or url.raw_password is not None
                or url.raw_path not in ("", "/") or url.raw_query_string
                or url.raw_fragment or "@" in text or text.endswith("/")):
            return None
        host = normalise(url.host)
    except (ValueError, UnicodeError):  # bad punycode and the like: not an origin we know
        return None
    return None if host is None else (url.scheme, host, url.port)


def origin_host(origin: str) -> str | None:
    """The host of a browser's ``Origin`` (:func:`normalise`-d), None if unusable."""
    found = _origin(origin)
    return None if found is None else found[1]


def same_origin(origin: str, host_header: str, scheme: str = "http") -> bool:
    """Whether a browser's ``Origin`` is the page on this very ``Host``: the same scheme as
    the page was served with (``scheme``: the daemon serves plain http), host and port (a
    page on another port of the same machine is another site). A Host without a port is
    taken as the scheme's default port."""
    page, here = _origin(origin), split_host(host_header)
    if page is None or here is None:
        return False
    default = 443 if scheme == "https" else 80
    return page == (scheme, here[0], default if here[1] is None else here[1])


def ipv6_addresses(path: Path = IF_INET6) -> list[str]:
    """IPv6 addresses of the network interfaces (Linux /proc; empty where there is none)."""
    found = []
    try:
        lines = path.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    for line in lines:
        raw = line.split(" ", 1)[0]
        if len(raw) == 32:
            try:
                found.append(str(ipaddress.IPv6Address(bytes.fromhex(raw))))
            except ValueError:
                continue
    return found


def own_names(bind_host: str = "", extra: Iterable[str] = ()) -> frozenset[str]:
    """Every name this Pi answers to: localhost and the loopback addresses, the host name and
    its ``.local`` (mDNS) name, every interface address, a specific bind address, and
    ``extra`` (``[web] allowed_hosts``)."""
    names: set[str | None] = {normalise(n) for n in (*LOOPBACK, *extra)}
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = ""
    if hostname:
        names.add(normalise(hostname))
        names.add(normalise(hostname.split(".", 1)[0] + ".local"))
    try:
        addresses = interface_addresses()
    except OSError as exc:
        log.warning("web: cannot list this machine's addresses: %s", exc)
        addresses = []
    lan = lan_address()  # the QR link's address (maybe an interface's secondary one)
    names.update(normalise(a) for a in (*addresses, *ipv6_addresses(), *([lan] if lan else [])))
    if bind_host not in WILDCARDS:
        names.add(normalise(bind_host))
    return frozenset(n for n in names if n)


class AllowedHosts:
    """The names a request's ``Host`` (and a WebSocket's ``Origin``) may carry, read again
    every :data:`CACHE_S` seconds and on a miss."""

    def __init__(self, bind_host: str = "", extra: Iterable[str] = (), *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.bind_host = bind_host
        self.extra = tuple(extra)
        self.clock = clock
        self._names: frozenset[str] = frozenset()
        self._read_at = float("-inf")

    def names(self) -> frozenset[str]:
        if self.clock() - self._read_at >= CACHE_S:
            self._read()
        return self._names

    def _read(self) -> None:
        self._names = own_names(self.bind_host, self.extra)
        self._read_at = self.clock()

    def allows(self, name: str | None) -> bool:
        """Whether ``name`` (already :func:`normalise`-d; None: unusable) is this Pi."""
        if name is None:
            return False
        if name in self.names():
            return True
        if self.clock() - self._read_at >= MISS_REFRESH_S:
            self._read()
            return name in self._names
        return False

    def allows_host_header(self, header: str, local_address: str | None = None) -> bool:
        """Whether ``header`` names this Pi; an IP address equal to the one the request
        came in on (``local_address``) always does (no DNS name can rebind to it)."""
        name = host_of(header)
        if name is not None and local_address is not None:
            local = local_address.split("%", 1)[0].removeprefix("::ffff:")  # v4 on a v6 socket
            if name == normalise(local):
                return True
        return self.allows(name)

    def configured(self, name: str | None) -> bool:
        """Whether ``name`` is one of ``[web] allowed_hosts`` (a reverse proxy's name)."""
        return name is not None and name in {normalise(n) for n in self.extra}
