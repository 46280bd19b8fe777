"""The host's end of the Pi in a box: boots the guest (vm.py), makes it a Pi (guest/pi.sh) and
drives it over a control UART (guest/agent.py). The card reader's UART is a unix socket here.

    with Pibox() as pi:
        pi.run(["aplay", "-l"])
        pi.press(26)
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.machine import vm

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HANG_S = 900.0
"""The host's deadlines (wall time): the guest booted and ready, an answer to a request beyond
its own limit. Hang guards only: a loaded host makes a guest minute several wall minutes."""


class GuestError(RuntimeError):
    """The guest did not come up, or answered a request with an error."""


def build_onset(cache: Path) -> Path:
    """guest/onset.c compiled into the cache (the guest runs the host's binaries)."""
    source = HERE / "guest" / "onset.c"
    binary = cache / "onset"
    if not binary.exists() or binary.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(["gcc", "-O2", "-Wall", "-o", str(binary), str(source), "-lasound"],
                       check=True)
    return binary


class Pibox:
    """One booted guest. ``card`` is the reader's UART (the guest's /dev/ttyS1)."""

    def __init__(self, mode: str = "icount", cache: Path = vm.DEFAULT_CACHE) -> None:
        self.mode, self.cache = mode, cache
        self.dir = Path(tempfile.mkdtemp(prefix="pibox-"))
        self.out = self.dir / "out"
        self.card_socket = self.dir / "card.sock"
        self.console: list[str] = []
        self.onset = Path()
        self._qemu: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._pending = b""
        self.card: socket.socket | None = None

    def __enter__(self) -> Pibox:
        for attempt in (1, 2):
            try:
                self.boot()
                return self
            except GuestError:
                started = any(vm.START_MARK in line for line in self.console)
                if started or attempt == 2:
                    self.close()
                    raise
                # Under TCG a boot very rarely dies in the kernel before init (an emulator's
                # flake, not ours): boot once more, and say so.
                print(f"pibox: the guest never reached its command; booting again. It said:\n"
                      f"{self.tail(20)}", file=sys.stderr)
                self._stop()
            except BaseException:
                self.close()
                raise
        raise AssertionError("unreachable")

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def boot(self) -> None:
        kernel = vm.prepare_kernel(self.cache)
        lgpio = vm.install_lgpio(self.cache)
        self.onset = build_onset(self.cache)
        self.out.mkdir(exist_ok=True)
        self.console = []
        self._pending = b""
        control = self.dir / "control.sock"
        for sock in (control, self.card_socket):
            sock.unlink(missing_ok=True)
        vm.write_command(self.out, ["sh", str(HERE / "guest" / "pi.sh")], cwd=ROOT,
                         env={"PIBOX_ROOT": str(ROOT), "PIBOX_LGPIO": str(lgpio)})
        cmd = vm.qemu_command(kernel, self.out, mode=self.mode,
                              serials=[self.card_socket, control])
        self._qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT)
        threading.Thread(target=self._read_console, daemon=True).start()
        self._control = self._connect(control)
        self.card = self._connect(self.card_socket)
        ready = self._answer(HANG_S)
        if not ready.get("ready"):
            raise GuestError(f"the agent said {ready!r}")

    def _read_console(self) -> None:
        assert self._qemu is not None and self._qemu.stdout is not None
        for raw in self._qemu.stdout:
            self.console.append(vm.TERMINAL_CODES.sub("", raw.decode(errors="replace")))

    def _connect(self, path: Path) -> socket.socket:
        deadline = time.monotonic() + 30
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(path))
                return sock
            except OSError:
                sock.close()
                if time.monotonic() > deadline or self._exited():
                    raise GuestError(f"QEMU never listened on {path}:\n{self.tail()}") from None
                time.sleep(0.05)

    def _exited(self) -> bool:
        return self._qemu is None or self._qemu.poll() is not None

    def _answer(self, timeout: float) -> dict[str, Any]:
        assert self._control is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or self._exited():
                raise GuestError(f"no answer from the guest in {timeout:.0f} s:\n{self.tail()}")
            self._control.settimeout(min(left, 1.0))
            try:
                chunk = self._control.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                raise GuestError(f"the control line closed:\n{self.tail()}")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return dict(json.loads(line))

    def call(self, op: str, timeout: float = 300, **request: Any) -> dict[str, Any]:
        """One request to the agent; its answer (GuestError if it is an error)."""
        assert self._control is not None
        request["timeout"] = timeout  # the agent's own limit, in the guest's time: it answers
        self._control.sendall(json.dumps({"op": op, **request}).encode() + b"\n")
        answer = self._answer(max(HANG_S, 4 * timeout))  # the host's, for a guest that hangs
        if "error" in answer:
            raise GuestError(f"{op}: {answer['error']}")
        return answer

    def run(self, argv: list[str], **request: Any) -> dict[str, Any]:
        return self.call("run", argv=argv, **request)

    def spawn(self, argv: list[str], **request: Any) -> int:
        return int(self.call("spawn", argv=argv, **request)["pid"])

    def wait(self, pid: int, signal: int | None = 15, timeout: float = 30) -> dict[str, Any]:
        return self.call("wait", pid=pid, signal=signal, timeout=timeout)

    def log(self, pid: int) -> str:
        return str(self.call("log", pid=pid)["out"])

    def press(self, pin: int, hold: float = 0.1) -> int:
        """Press the button on BCM ``pin``; the guest's CLOCK_MONOTONIC ns of the edge."""
        return int(self.call("press", pin=pin, hold=hold)["edge_ns"])

    def http(self, method: str, url: str, body: Any = None, token: str = "") -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.call("http", method=method, url=url, json=body, headers=headers)
        text = answer["body"]
        return int(answer["status"]), json.loads(text) if text else None

    def replug_card(self) -> None:
        """The reader's cable pulled and put back: the UART's host side closed and reopened."""
        if self.card is not None:
            self.card.close()
        time.sleep(0.5)
        self.card = self._connect(self.card_socket)

    def tail(self, lines: int = 40) -> str:
        return "".join(self.console[-lines:])

    def _stop(self, grace: float = 0) -> None:
        """QEMU ended (after ``grace`` seconds to power off by itself) and the lines closed."""
        if self._qemu is not None:
            try:
                self._qemu.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._qemu.kill()
                self._qemu.wait()
            self._qemu = None
        for sock in (self._control, self.card):
            if sock is not None:
                sock.close()
        self._control = self.card = None

    def close(self) -> None:
        if self._control is not None and not self._exited():
            with contextlib.suppress(OSError):
                self._control.sendall(b'{"op": "exit"}\n')
        self._stop(grace=60)
        shutil.rmtree(self.dir, ignore_errors=True)
