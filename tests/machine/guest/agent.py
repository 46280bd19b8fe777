"""The guest's end of the control line (a UART the host drives): one JSON request per line
in, one JSON answer per line out. Standard library only: it runs before anything is set up.

Requests: ``{"op": "run", "argv": [...], "stdin": "", "env": {}, "timeout": 300}`` runs a
command to the end; ``spawn`` starts one in the background (its output in a file), ``log``
reads that output and ``wait`` ends it (``"signal": 15`` first, if given); ``press`` holds a
GPIO line low (``"pin"``, ``"hold"`` seconds) as a button to ground would; ``http`` asks the
guest's own web server; ``exit`` powers the guest off.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tty
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, BinaryIO

LOGS = Path("/tmp/agent")


def _env(request: dict[str, Any]) -> dict[str, str]:
    return {**os.environ, **request.get("env", {})}


def _text(data: bytes) -> str:
    return data.decode(errors="replace")


def press(pin: int, hold: float = 0.1) -> int:
    """A press on gpio-sim: the line pulled down (the button closes to ground), held, then
    pulled up again; the CLOCK_MONOTONIC time of the edge in ns (stamped just before it)."""
    pull = Path(os.environ["PIBOX_LINES"]) / f"sim_gpio{pin}" / "pull"
    fd = os.open(pull, os.O_WRONLY)
    try:
        edge = time.monotonic_ns()
        os.write(fd, b"pull-down")
    finally:
        os.close(fd)
    time.sleep(hold)
    pull.write_text("pull-up")
    return edge


class Agent:
    def __init__(self) -> None:
        self.children: dict[int, tuple[subprocess.Popen[bytes], Path]] = {}

    def run(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            done = subprocess.run(request["argv"], input=request.get("stdin", "").encode(),
                                  capture_output=True, env=_env(request),
                                  timeout=request.get("timeout", 300), cwd=request.get("cwd"))
        except subprocess.TimeoutExpired as exc:
            return {"rc": None, "out": _text(exc.stdout or b""), "err": "timed out"}
        return {"rc": done.returncode, "out": _text(done.stdout), "err": _text(done.stderr)}

    def spawn(self, request: dict[str, Any]) -> dict[str, Any]:
        LOGS.mkdir(exist_ok=True)
        log = LOGS / f"{len(self.children)}.log"
        with log.open("wb") as out:
            child = subprocess.Popen(request["argv"], stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT, env=_env(request),
                                     cwd=request.get("cwd"))
        self.children[child.pid] = (child, log)
        return {"pid": child.pid}

    def wait(self, request: dict[str, Any]) -> dict[str, Any]:
        child, log = self.children[request["pid"]]
        if request.get("signal") and child.poll() is None:
            child.send_signal(request["signal"])
        try:
            rc = child.wait(timeout=request.get("timeout", 30))
        except subprocess.TimeoutExpired:
            child.kill()
            rc = child.wait()
        return {"rc": rc, "out": log.read_text(errors="replace")}

    def log(self, request: dict[str, Any]) -> dict[str, Any]:
        child, log = self.children[request["pid"]]
        return {"rc": child.poll(), "out": log.read_text(errors="replace")}


    @staticmethod
    def press(request: dict[str, Any]) -> dict[str, Any]:
        return {"edge_ns": press(int(request["pin"]), request.get("hold", 0.1))}

    @staticmethod
    def http(request: dict[str, Any]) -> dict[str, Any]:
        body = request.get("json")
        asked = urllib.request.Request(
            request["url"], method=request.get("method", "GET"),
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **request.get("headers", {})})
        try:
            with urllib.request.urlopen(asked, timeout=request.get("timeout", 30)) as answer:
                return {"status": answer.status, "body": answer.read().decode()}
        except urllib.error.HTTPError as exc:
            return {"status": exc.code, "body": exc.read().decode()}


def serve(line: BinaryIO) -> int:
    agent = Agent()
    line.write(b'{"ready": true}\n')
    buffer = b""
    while True:
        chunk = line.read(4096)
        if not chunk:
            return 1
        buffer += chunk
        while b"\n" in buffer:
            raw, buffer = buffer.split(b"\n", 1)
            if not raw.strip():
                continue
            request = json.loads(raw)
            if request["op"] == "exit":
                for child, _log in agent.children.values():
                    if child.poll() is None:
                        child.send_signal(signal.SIGTERM)
                return int(request.get("rc", 0))
            try:
                answer = getattr(agent, request["op"])(request)
            except Exception as exc:  # the host sees what went wrong, the agent carries on
                answer = {"error": f"{type(exc).__name__}: {exc}"}
            line.write(json.dumps(answer).encode() + b"\n")


def main() -> int:
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    with os.fdopen(fd, "r+b", buffering=0) as line:
        return serve(line)  # type: ignore[arg-type]


if __name__ == "__main__":
    sys.exit(main())
