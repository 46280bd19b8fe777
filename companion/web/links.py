"""The tablet's link: the page's address with the table token after ``#``, for a QR code,
``companion link`` and the demo. One place builds it."""

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
    return f"{url}#token={quote(token, safe='')}"


def lan_link(host: str, port: int, token: str) -> str | None:
    """The tablet link with an address other devices can open; None when there is none (no
    network yet, or the server listens on loopback only). Bound to every interface, that is
    this machine's LAN address."""
    if host in WILDCARDS:
        found = lan_address()
        if found is None:
            return None
        host = found
    elif is_loopback(host):
        return None
    return with_token(page_url(host, port), token)
