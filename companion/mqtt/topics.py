"""Where everything goes on the broker: the table's own topics under its prefix and Home
Assistant's discovery topics under the discovery prefix."""

from __future__ import annotations

import hashlib
import re
import socket
import unicodedata
from dataclasses import dataclass

ONLINE = "online"
OFFLINE = "offline"
PRESS = "PRESS"
"""What a button's command topic carries (Home Assistant's default ``payload_press``)."""

COMMANDS = ("press", "timer")
"""The buttons: press the block, start the lever timer."""


def slug(text: str) -> str:
    """``text`` as a discovery id (``[a-z0-9_]``): ``"Mario"`` -> ``mario``; a name with no
    ASCII letters keeps its own id by a short hash (``"李"`` -> ``p_…``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    found = re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    if not found:
        return f"p_{digest}"
    if ascii_text != text:  # "Zoë" and "Zoe" are two players: keep them apart
        return f"{found}_{digest[:4]}"
    return found


def hostname() -> str:
    """This machine's short name (the Pi's name)."""
    return socket.gethostname().split(".")[0] or "companion"


@dataclass(frozen=True, slots=True)
class Topics:
    """One table's topics: ``prefix`` for its own, ``discovery`` for Home Assistant's; ``node``
    keeps two tables in one house apart in the discovery topics and unique ids."""

    prefix: str
    discovery: str
    node: str

    @classmethod
    def for_host(cls, prefix: str, discovery: str, host: str) -> Topics:
        return cls(prefix, discovery, f"question_block_{slug(host)}")

    @property
    def status(self) -> str:
        """``online`` while connected, ``offline`` by the last will (retained)."""
        return f"{self.prefix}/status"

    @property
    def state(self) -> str:
        """The table as JSON (retained): the sensors read it."""
        return f"{self.prefix}/state"

    @property
    def event(self) -> str:
        """Each thing that happens, as JSON (not retained): the triggers read it."""
        return f"{self.prefix}/event"

    def command(self, name: str) -> str:
        return f"{self.prefix}/command/{name}"

    @property
    def commands(self) -> str:
        return f"{self.prefix}/command/+"

    def config(self, component: str, object_id: str) -> str:
        """A discovery config: ``<discovery>/<component>/<node>/<object_id>/config``."""
        return f"{self.discovery}/{component}/{self.node}/{object_id}/config"

    @property
    def configs(self) -> str:
        """Every discovery config of this table's device (to find stale ones)."""
        return f"{self.discovery}/+/{self.node}/+/config"

    def is_config(self, topic: str) -> bool:
        parts = topic.split("/")
        head = self.discovery.split("/")
        return (len(parts) == len(head) + 4 and parts[:len(head)] == head
                and parts[len(head) + 1] == self.node and parts[-1] == "config")
