"""systemd's notify protocol with the standard library: datagrams on ``$NOTIFY_SOCKET``.

``READY=1`` once inputs, audio and web are up; ``WATCHDOG=1`` from the event loop every half
``$WATCHDOG_USEC`` (a hung loop stops pinging and systemd restarts the service);
``STOPPING=1`` when shutting down; ``STATUS=...`` for ``systemctl status``. Outside systemd
(no ``$NOTIFY_SOCKET``) every call does nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket

log = logging.getLogger(__name__)


class Notifier:
    """Sends sd_notify messages; never raises (a lost notification must not stop the game)."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        path = env.get("NOTIFY_SOCKET", "")
        self.address: str | bytes | None = None
        if path.startswith("@"):  # the abstract namespace
            self.address = b"\0" + path[1:].encode()
        elif path.startswith("/"):
            self.address = path
        self.watchdog_interval = _watchdog_interval(env)
        self.sent: list[str] = []

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *fields: str) -> bool:
        """Send ``KEY=value`` lines in one datagram; False if there is no socket or it failed."""
        if self.address is None:
            return False
        message = "\n".join(fields)
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
                s.connect(self.address)
                s.sendall(message.encode())
        except OSError as exc:
            log.warning("systemd notification %r failed: %s", message[:40], exc)
            return False
        self.sent.append(message)
        return True

    def ready(self, status: str) -> None:
        self.notify("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        """What ``systemctl status`` shows, updated (a part went down or came back)."""
        self.notify(f"STATUS={status}")

    def stopping(self) -> None:
        self.notify("STOPPING=1", "STATUS=stopping")

    async def watchdog(self) -> None:
        """Ping from the event loop for as long as it runs (cancel to stop)."""
        interval = self.watchdog_interval
        if interval is None or self.address is None:
            return
        log.info("systemd watchdog: pinging every %.1f s", interval)
        while True:
            self.notify("WATCHDOG=1")
            await asyncio.sleep(interval)


def _watchdog_interval(env: os._Environ[str] | dict[str, str]) -> float | None:
    """Half of ``$WATCHDOG_USEC`` in seconds, if the watchdog is meant for this process."""
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 1_000_000 / 2
