"""The address other devices on the table's network can reach us at."""

from __future__ import annotations

import array
import contextlib
import fcntl
import ipaddress
import socket
import struct

PROBE = ("192.0.2.1", 9)
"""A TEST-NET-1 address: connecting a UDP socket to it sends nothing, it only asks the kernel
which source address the default route would use."""
SIOCGIFADDR = 0x8915


def lan_address() -> str | None:
    """This machine's IPv4 address for other devices: the default route's source address, or
    (no default route, e.g. the Pi runs its own hotspot) the first non-loopback interface's.
    None when there is no network at all."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(PROBE)
        found = s.getsockname()[0]
        if _usable(found):
            return found
    for address in interface_addresses():
        if _usable(address):
            return address
    return None


def interface_addresses() -> list[str]:
    """IPv4 addresses of the network interfaces that have one (Linux ioctl)."""
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _index, name in socket.if_nameindex():
            request = array.array("B", struct.pack("256s", name.encode()[:15]))
            try:
                fcntl.ioctl(s.fileno(), SIOCGIFADDR, request)
            except OSError:  # no IPv4 address on this interface
                continue
            found.append(socket.inet_ntoa(request[20:24].tobytes()))
    return found


def _usable(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return not (ip.is_loopback or ip.is_unspecified or ip.is_link_local)
