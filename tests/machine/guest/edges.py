"""Edge to the press's handler, and idle wakeups, on our gpiod factory against gpiozero's lgpio
factory, in the guest (run by ``tests/machine/bench.py --edges N``):

    edges.py '{"presses": 200, "idle": 10}'

- **Presses**: a :class:`BlockButton` on each factory (gpiod on BCM 26, lgpio on BCM 22), in
  one process, pressed in turn (which one first alternates), each press a gpio-sim ``pull``
  written after a CLOCK_MONOTONIC stamp. Per press: *write to handler* (the stamp to
  ``time.monotonic_ns()`` in the press's handler: the same start for both), *edge to handler*
  (the time the press carries, the kernel's event time where the factory hands it over, to the
  handler) and *write to edge* (how far that time is from the write).
- **Idle**: a bare gpiozero ``Button`` with a handler, then ``companion run`` (null audio, no
  screen), on each factory, side by side for ``idle`` seconds: context switches of all the
  process's threads (wakeups) and CPU time (``/proc/<pid>/task/*/schedstat``).

Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(os.environ.get("PIBOX_ROOT", "/work/main"))
sys.path.insert(0, str(ROOT))
LINES = Path(os.environ["PIBOX_LINES"])
PINS = {"gpiod": 26, "lgpio": 22}
BARE = """
import signal, sys
from gpiozero import Button
from companion.gpio.pins import build
button = Button({pin}, pin_factory=build("{name}"))
button.when_pressed = lambda: None
print("ready", flush=True)
signal.pause()
"""


def pull(pin: int, level: int) -> int:
    edge = time.monotonic_ns()
    (LINES / f"sim_gpio{pin}" / "pull").write_text("pull-up" if level else "pull-down")
    return edge


def spread(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered), 4),
            "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 4),
            "max": round(ordered[-1], 4)}


def presses(count: int) -> dict[str, Any]:
    from companion.core.debounce import Debouncer
    from companion.gpio.block_button import BlockButton
    from companion.gpio.pins import build

    heard: dict[str, list[tuple[int, float]]] = {name: [] for name in PINS}
    ready = {name: threading.Event() for name in PINS}
    buttons, factories = [], [build(name) for name in PINS]
    for (name, pin), factory in zip(PINS.items(), factories, strict=True):
        pull(pin, 1)

        def handler(at: float, name: str = name) -> None:
            heard[name].append((time.monotonic_ns(), at))
            ready[name].set()

        buttons.append(BlockButton(pin, pin_factory=factory, when_pressed=handler,
                                   debouncer=Debouncer(lockout=0, settle=0)))
    rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in PINS}
    for i in range(count):
        for name in (list(PINS) if i % 2 == 0 else list(PINS)[::-1]):
            ready[name].clear()
            written = pull(PINS[name], 0)
            if not ready[name].wait(10):
                raise RuntimeError(f"{name}: press {i} never reached its handler")
            called, at = heard[name][-1]
            rows[name].append(((called - written) / 1e6, (called - at * 1e9) / 1e6,
                               (at * 1e9 - written) / 1e6))
            pull(PINS[name], 1)
            time.sleep(0.02)  # the release's edge handled before the next press
    for button in buttons:
        button.close()
    for factory in factories:
        factory.close()  # lgpio's pins let their lines go only with their factory
    return {name: {"presses": len(got),
                   "write_to_handler_ms": spread([r[0] for r in got]),
                   "edge_to_handler_ms": spread([r[1] for r in got]),
                   "write_to_edge_ms": spread([r[2] for r in got])}
            for name, got in rows.items()}


def usage(pid: int) -> tuple[int, int]:
    """Context switches (voluntary and not) and ns on the CPU, over all the process's threads."""
    switches = cpu = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
            cpu += int((task / "schedstat").read_text().split()[0])
        except OSError:
            continue
        for line in status.splitlines():
            if "ctxt_switches:" in line:
                switches += int(line.split()[1])
    return switches, cpu


def idle(seconds: float) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{os.environ.get('PYTHONPATH', '')}"}
    env.pop("GPIOZERO_PIN_FACTORY", None)
    work = Path(tempfile.mkdtemp(prefix="edges-"))
    children: dict[str, subprocess.Popen[str]] = {}
    for name, pin in PINS.items():
        pull(pin, 1)
        children[f"bare_{name}"] = subprocess.Popen(
            [sys.executable, "-c", BARE.format(pin=pin, name=name)], stdout=subprocess.PIPE,
            text=True, env=env, cwd=work)
    for child in children.values():
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    result = _side_by_side(children, seconds)
    for child in children.values():
        child.terminate()
        child.wait()
    daemons: dict[str, subprocess.Popen[str]] = {}
    for name, pin in PINS.items():
        config = work / f"{name}.toml"
        config.write_text(f'[gpio]\npin_factory = "{name}"\n[block]\npin = {pin}\n'
                          f'[audio]\nbackend = "null"\n[data]\ndir = "{work / name}"\n'
                          '[web]\nhost = "127.0.0.1"\nport = 0\n[display]\nenabled = false\n'
                          '[lever]\nenabled = false\n')
        daemons[f"companion_{name}"] = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--config", str(config)],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    for daemon in daemons.values():
        assert daemon.stderr is not None
        while "companion ready" not in (line := daemon.stderr.readline()):
            if not line:
                raise RuntimeError("a companion ended before it was ready")
    time.sleep(2)  # its start settled (the web server's first timers)
    result.update(_side_by_side(daemons, seconds))
    for daemon in daemons.values():
        daemon.terminate()
        daemon.wait()
    return result


def _side_by_side(children: dict[str, subprocess.Popen[str]],
                  seconds: float) -> dict[str, Any]:
    before = {name: usage(child.pid) for name, child in children.items()}
    time.sleep(seconds)
    after = {name: usage(child.pid) for name, child in children.items()}
    return {name: {"wakeups_per_s": round((after[name][0] - before[name][0]) / seconds, 1),
                   "cpu_percent": round((after[name][1] - before[name][1]) / seconds / 1e7, 3)}
            for name in children}


def main() -> int:
    asked = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    result: dict[str, Any] = {"what": "edges"}
    if asked.get("presses", 200):
        result["presses"] = presses(int(asked.get("presses", 200)))
    if asked.get("idle", 10):
        result["idle"] = idle(float(asked.get("idle", 10)))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
