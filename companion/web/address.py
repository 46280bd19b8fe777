"""The address other devices on the table's network can reach us at."""

from __future__ import annotations

import ipaddress
import socket

PROBE = ("192.0.2.1", 9)
"""A TEST-NET-1 address: connecting a UDP socket to it sends nothing, it only asks the kernel
which source address the default route would use."""


def lan_address() -> str | None:
    """This machine's address on its default route, or None when there is no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(PROBE)
            address = probe.getsockname()[0]
    except OSError:
        return None
    ip = ipaddress.ip_address(address)
    return None if ip.is_loopback or ip.is_unspecified else address
