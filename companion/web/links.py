"""The tablet's link: the page's address with the table token after ``#``, for a QR code,
``companion link`` and the demo (and the players' join link the same way). One place builds
it."""

from __future__ import annotations

import ipaddress
from urllib.parse import quote

from companion.web.address import lan_address

WILDCARDS = ("0.0.0.0", "::", "")
"""Bind addresses that mean "every interface"."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """A host as it stands in a URL (IPv6 literals in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def page_url(host: str, port: int) -> str:
    """The page on ``host`` (a wildcard bind address is reached on 127.0.0.1 here)."""
    return f"http://{url_host('127.0.0.1' if host in WILDCARDS else host)}:{port}/"


def with_token(url: str, token: str) -> str:
    """The link the tablet opens: the token travels after ``#``, so it never reaches a log."""
    return with_fragment(url, "token", token)


def with_fragment(url: str, key: str, value: str) -> str:
    """``url#key=value``: a secret after ``#`` is never sent to a server, a log or a Referer."""
    return f"{url}#{key}={quote(value, safe='')}"


def lan_link(host: str, port: int, token: str, *, page: str = "",
             key: str = "token") -> str | None:
    """The tablet link (or ``page`` with ``#key=token``: the join link) with an address other
    devices can open; None when there is none (no network yet, or the server listens on
    loopback only). Bound to every interface, that is this machine's LAN address."""
    if host in WILDCARDS:
        found = lan_address()
        if found is None:
            return None
        host = found
    elif is_loopback(host):
        return None
    return with_fragment(page_url(host, port) + page, key, token)
