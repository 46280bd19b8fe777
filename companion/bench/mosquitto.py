"""A private Mosquitto broker on 127.0.0.1 (Debian's ``mosquitto``), for the MQTT tests and the
benchmark: started on a free port from a config of its own, killed and started again on the
same port, stopped. Its own system service is never used."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

BINARY_PATHS = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def find_binary() -> str | None:
    """Debian's mosquitto, or None when it is not installed."""
    return next((p for p in BINARY_PATHS if os.access(p, os.X_OK)), None) or \
        shutil.which("mosquitto")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Mosquitto:
    """One broker in ``folder``; ``users`` (name -> password) turn anonymous access off;
    ``tls`` (certificate, key: PEM files) makes its listener TLS only."""

    def __init__(self, folder: Path, users: dict[str, str] | None = None,
                 port: int | None = None, tls: tuple[Path, Path] | None = None) -> None:
        binary = find_binary()
        if binary is None:
            raise FileNotFoundError("mosquitto is not installed (apt install mosquitto)")
        self.binary = binary
        self.folder = folder
        self.port = port or _free_port()
        self.log = folder / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"listener {self.port} 127.0.0.1", "persistence false",
                 f"log_dest file {self.log}", "log_type all", "connection_messages true"]
        if tls is not None:
            lines += [f"certfile {tls[0]}", f"keyfile {tls[1]}"]
        if os.geteuid() == 0:
            lines.append("user root")  # else it drops to "mosquitto", who can't read our files
        if users:
            passwords = folder / "passwd"
            passwords.write_text("")
            passwords.chmod(0o600)
            for name, password in users.items():
                subprocess.run([self._passwd(), "-b", str(passwords), name, password],
                               check=True, capture_output=True)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        self.config = folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n")

    def _passwd(self) -> str:
        found = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
        return found

    def start(self, timeout: float = 10.0) -> Mosquitto:
        """Start it and wait until it takes connections."""
        self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") \
                    if self.process.stderr else ""
                raise RuntimeError(f"mosquitto exited: {err or self.log_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise TimeoutError(f"mosquitto did not listen on {self.port} in {timeout} s")

    def kill(self) -> None:
        """Gone at once, as a crash or a pulled plug (no goodbye to its clients)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(5)
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()
        self.process = None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()
