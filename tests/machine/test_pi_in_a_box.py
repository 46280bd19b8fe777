"""The companion as on a Pi, in a real kernel: the block and the lever on gpio-sim lines read by
gpiozero's lgpio factory, the sound through snd-aloop with hardware/asound.conf as shipped, a
card reader on a 16550 UART. Behaviour only: the timings are the benchmark's (bench.py)."""

from __future__ import annotations

import array
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from companion.audio.library import SoundLibrary
from companion.core.outcomes import Kind, Outcome
from tests.machine.pibox import ROOT, Pibox

TOKEN = "pibox-token-0123456789abcdef"
API = "http://127.0.0.1:8080/api"
BLOCK_PIN, LEVER_PIN = 26, 27
CONFIG = f"""
[gpio]
pin_factory = "lgpio"
[audio]
backend = "stream"
[data]
dir = "/var/lib/companion"
[web]
host = "127.0.0.1"
port = 8080
token = "{TOKEN}"
[game]
players = ["Mario", "Luigi", "Peach"]
[reader]
enabled = true
port = "/dev/ttyS1"
protocol = "lines"
cards = ["04A224B9 = Luigi", "DEADBEEF = Peach"]
[lever]
enabled = true
pin = {LEVER_PIN}
[display]
enabled = false
"""


def wait_for(what: str, check: Any, timeout: float = 600) -> Any:
    """CHECK's first true value, asked again until TIMEOUT wall seconds: a deadline for a guest
    gone wrong, generous for a host so loaded that the guest runs several times slower."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"never: {what}")


def start_companion(pi: Pibox, argv: list[str], config_path: str, config: str) -> int:
    """``argv`` (a ``companion run``) spawned in the guest with ``config`` written at
    ``config_path``; its pid, once /healthz answers. "companion ready" is said before the web
    listens: /healthz is asked once the web says it serves."""
    pi.run(["sh", "-c", f"mkdir -p {Path(config_path).parent} && cat > {config_path}"],
           stdin=config)
    pid = pi.spawn([*argv, "--config", config_path], cwd=str(ROOT))
    wait_for("the companion answers /healthz",
             lambda: pi.call("http", url="http://127.0.0.1:8080/healthz").get("status") == 200
             if "web: serving on" in pi.log(pid) else False)
    return pid


@pytest.fixture(scope="module")
def companion(pi: Pibox) -> Iterator[int]:
    """``companion run`` in the guest, as the service would start it; its pid."""
    pid = start_companion(pi, [str(ROOT / ".venv/bin/python"), "-m", "companion", "run"],
                          "/etc/companion/companion.toml", CONFIG)
    yield pid
    done = pi.wait(pid, signal=15)
    assert done["rc"] == 0, done["out"]


def state(pi: Pibox) -> dict[str, Any]:
    status, body = pi.http("GET", f"{API}/state")
    assert status == 200, body
    return dict(body)


def player(body: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in body["players"] if p["name"] == name)


def onsets(log: str) -> list[int]:
    """The frames guest/onset heard sounds start at (counted from its capture's first frame)."""
    return [int(line.split()[2]) for line in log.splitlines() if line.startswith("onset ")]


def first_difference(heard: array.array[int], wanted: array.array[int]) -> str:
    """Where and how the heard frames leave the sound (for the failure's message)."""
    at = next((i for i, (h, w) in enumerate(zip(heard, wanted, strict=False)) if h != w),
              min(len(heard), len(wanted)))
    if at == len(wanted):
        return "whole"
    if heard[at + 1:at + 201] == wanted[at:at + 200]:
        return f"a frame doubled at frame {at}"
    if heard[at:at + 200] == wanted[at + 1:at + 201]:
        return f"a frame lost at frame {at}"
    silent = next((i for i, h in enumerate(heard[at:]) if h), len(heard) - at)
    return f"frames differ from frame {at} ({silent} silent there) of {len(wanted)}"


def guest_size(pi: Pibox, path: str) -> int:
    return int(pi.run(["stat", "-c", "%s", path])["out"] or 0)


@dataclass(frozen=True)
class HeardPress:
    """A press on the block as the ear heard it: the bank before and after, and the sound."""

    before: dict[str, Any]
    after: dict[str, Any]
    outcome: Outcome
    left: array.array[int]
    """The capture's left channel."""
    wanted: array.array[int]
    """The outcome's sound (its left channel: the sounds are mono, written to both)."""
    start: int
    """The frame of the capture the sound starts at (its onset less its quiet first frames)."""
    ear: str
    """What the ear said (its onsets and xruns)."""

    def assert_whole(self) -> None:
        """The whole sound, sample for sample, from its first frame: nothing of its onset lost,
        nothing before it."""
        heard = self.left[self.start:self.start + len(self.wanted)]
        assert heard == self.wanted, (first_difference(heard, self.wanted), self.ear)
        assert not any(self.left[:self.start]), self.ear


def press_and_hear(pi: Pibox, pin: int, name: str) -> HeardPress:
    """Press the block on ``pin`` with the ear listening; what it heard once the sound is over.

    The capture goes to the guest's tmpfs (the ear never waits on the host while it listens),
    and the sound is waited for in the guest's own time, however slow the host."""
    before = state(pi)
    heard_raw = f"/tmp/{name}.raw"
    ear = pi.spawn([str(pi.onset), "hw:Loopback,1,0", heard_raw])
    wait_for("the capture runs", lambda: "ready" in pi.log(ear))
    pi.press(pin)
    after = wait_for("the outcome is in the bank",
                     lambda: (s := state(pi))["version"] != before["version"]
                     and s["last_outcome"] and s)
    last = after["last_outcome"]
    outcome = Outcome(Kind(last["kind"]), coins=last.get("coins", 0),
                      rolls=tuple(last["rolls"]), mode=last["mode"], step=last.get("step", 0))
    wanted = array.array("h", SoundLibrary().for_outcome(outcome).data)
    first = next(i for i, s in enumerate(wanted) if abs(s) > 64)  # the onset's own threshold
    start = wait_for("the sound's onset is heard", lambda: onsets(pi.log(ear)))[0] - first
    # Heard to its end: the capture holds the whole sound and 4,096 frames more (the ear's
    # file buffer), then the ear stops.
    whole = (start + len(wanted) + 4096) * 4
    wait_for("the whole sound is captured", lambda: guest_size(pi, heard_raw) >= whole)
    heard = pi.wait(ear)
    assert heard["rc"] == 0, heard["out"]
    pi.run(["cp", heard_raw, f"/mnt/out/{name}.raw"])
    left = array.array("h", (pi.out / f"{name}.raw").read_bytes())[0::2]
    return HeardPress(before, after, outcome, left, wanted, start, heard["out"])


def coins_moved(heard: HeardPress, name: str) -> int:
    return int(player(heard.after, name)["balance"] - player(heard.before, name)["balance"])


def coins_owed(outcome: Outcome) -> int:
    """What the rulebook's no-sound table moves for an outcome: its coins, Bowser -5, Game Over
    -10, a power-up nothing."""
    return {Kind.COINS: outcome.coins, Kind.BOWSER: -5, Kind.GAME_OVER: -10}.get(outcome.kind, 0)


def test_a_press_on_the_block_line_is_heard_whole_and_banked(pi: Pibox, companion: int) -> None:
    heard = press_and_hear(pi, BLOCK_PIN, "heard")
    heard.assert_whole()
    assert player(heard.after, "Mario")["current"]
    assert coins_moved(heard, "Mario") == coins_owed(heard.outcome), heard.after["last_outcome"]


def test_the_lever_line_starts_the_timer(pi: Pibox, companion: int) -> None:
    assert not state(pi)["timer"]["running"]
    pi.press(LEVER_PIN, hold=0.4)  # pulled back, then let go
    wait_for("the timer runs", lambda: state(pi)["timer"]["running"])


def test_a_card_on_the_uart_makes_its_player_current(pi: Pibox, companion: int) -> None:
    assert pi.card is not None
    # A reader ends the line it was on when the port opened (that line is skipped as a
    # possible tail), then prints one UID per line.
    pi.card.sendall(b"\r\n04A224B9\r\n")
    assert wait_for("Luigi is current", lambda: player(state(pi), "Luigi")["current"])


def test_replugging_the_uart_recovers(pi: Pibox, companion: int) -> None:
    pi.replug_card()
    assert pi.card is not None
    pi.card.sendall(b"\x00\xfe\xff noise as the plug goes in\r\nDEADBEEF\r\n")
    assert wait_for("Peach is current", lambda: player(state(pi), "Peach")["current"])
    status, activity = pi.http("GET", f"{API}/activity", token=TOKEN)
    assert status == 200 and activity["reader"]["connected"]
    assert activity["reader"]["taps"] == 2 and activity["reader"]["ignored_total"] == 1
    assert "Traceback" not in pi.log(companion)
