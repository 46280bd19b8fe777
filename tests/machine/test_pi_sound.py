"""The stream backend in a real kernel (snd-aloop through hardware/asound.conf's dmix): a press
during the lever timer's music is heard whole, and a writer thread killed mid-sound comes back.

Every sound is a known one (``[audio] sounds_dir``): the timer's music a steady level of 1000
(DC: the music under a press is known at every frame, whatever its alignment), every other
sound guest/measure.py's 120 ms tone. The companion runs through a wrapper that, while
``/run/writer-fault`` exists, makes the mixer raise on the writer's thread only (a fault
injected from outside the product: the product has no such hook)."""

from __future__ import annotations

import array
import wave
from collections.abc import Iterator
from typing import Any

import pytest

from companion.audio.library import SOUND_NAMES, SoundLibrary
from companion.core.outcomes import Kind, Outcome
from tests.machine.pibox import ROOT, Pibox
from tests.machine.test_pi_in_a_box import (
    BLOCK_PIN,
    LEVER_PIN,
    TOKEN,
    start_companion,
    state,
    wait_for,
)

MUSIC_LEVEL = 1000
FAULT = "/run/writer-fault"
CONFIG = f"""
[gpio]
pin_factory = "lgpio"
[audio]
backend = "stream"
sounds_dir = "/mnt/out/sounds"
[data]
dir = "/var/lib/companion-sound"
[web]
host = "127.0.0.1"
port = 8080
token = "{TOKEN}"
[game]
players = ["Mario", "Luigi"]
[reader]
enabled = false
[lever]
enabled = true
pin = {LEVER_PIN}
[display]
enabled = false
"""
WRAPPER = f"""
import os, sys, threading
from companion.audio.mixer import Mixer
from companion.cli import main
real = Mixer.render
def render(self, start, frames):
    if threading.current_thread().name == "audio-stream" and os.path.exists({FAULT!r}):
        raise RuntimeError("injected fault")
    return real(self, start, frames)
Mixer.render = render
sys.exit(main(sys.argv[1:]))
"""


def tone() -> bytes:
    """guest/measure.py's test tone: a square wave at -12 dBFS, loud from frame 0, 120 ms."""
    samples = [8000 if (i // 22) % 2 == 0 else -8000 for i in range(5292)]
    for k in range(88):
        samples[-1 - k] = samples[-1 - k] * k // 88
    return array.array("h", samples).tobytes()


def write_wav(path: Any, data: bytes) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(44100)
        wav.writeframes(data)


@pytest.fixture(scope="module")
def companion(pi: Pibox) -> Iterator[int]:
    sounds = pi.out / "sounds"
    sounds.mkdir(exist_ok=True)
    for name in SOUND_NAMES:
        write_wav(sounds / f"{name}.wav", tone())
    write_wav(sounds / "timer_loop.wav",
              array.array("h", [MUSIC_LEVEL] * (44100 * 3)).tobytes())  # longer than a loop
    pid = start_companion(pi, [str(ROOT / ".venv/bin/python"), "-c", WRAPPER, "run"],
                          "/etc/companion/sound.toml", CONFIG)
    yield pid
    done = pi.wait(pid, signal=15)
    assert done["rc"] == 0, done["out"]


def sound_part(pi: Pibox) -> dict[str, Any]:
    _, body = pi.http("GET", "http://127.0.0.1:8080/healthz")
    return dict(body["parts"]["sound"])


def press_and_hear(pi: Pibox, name: str) -> tuple[array.array, array.array]:
    """Press the block with the ear on; (what was heard, the outcome's sound)."""
    # To the guest's tmpfs: the ear never waits on the host while it listens.
    ear = pi.spawn([str(pi.onset), "hw:Loopback,1,0", f"/tmp/{name}.raw"])
    wait_for("the capture runs", lambda: "ready" in pi.log(ear))
    before = state(pi)["version"]
    pi.press(BLOCK_PIN)
    after = wait_for("the outcome is in the bank",
                     lambda: (s := state(pi))["version"] != before and s["last_outcome"] and s)
    last = after["last_outcome"]
    outcome = Outcome(Kind(last["kind"]), coins=last.get("coins", 0),
                      rolls=tuple(last["rolls"]), mode=last["mode"], step=last.get("step", 0))
    sound = SoundLibrary(pi.out / "sounds").for_outcome(outcome)
    pi.call("run", argv=["sleep", str(round(sound.seconds + 0.5, 2))])  # the guest's clock
    heard = pi.wait(ear)
    assert heard["rc"] == 0, heard["out"]
    pi.run(["cp", f"/tmp/{name}.raw", f"/mnt/out/{name}.raw"])
    return array.array("h", (pi.out / f"{name}.raw").read_bytes())[0::2], \
        array.array("h", sound.data)


def heard_whole(heard: array.array, wanted: array.array) -> list[int]:
    """The sound, sample for sample from its first frame, over the music; what lay under it
    (the music's level, or 0 where the timer's next loop began a few frames after the last
    one's cut)."""
    start = next(i for i, s in enumerate(heard) if abs(s) > 2 * MUSIC_LEVEL)
    under = [h - w for h, w in zip(heard[start:start + len(wanted)], wanted, strict=False)]
    assert len(under) == len(wanted), "the capture ended inside the sound"
    assert set(under) <= {0, MUSIC_LEVEL}, sorted(set(under))[:10]
    return under


def test_a_press_during_the_timers_music_is_heard_whole(pi: Pibox, companion: int) -> None:
    pi.press(LEVER_PIN, hold=0.4)
    wait_for("the timer runs", lambda: state(pi)["timer"]["running"])
    heard, wanted = press_and_hear(pi, "music")
    under = heard_whole(heard, wanted)
    assert under[0] == MUSIC_LEVEL  # pressed into the music
    gaps = "".join("g" if u == 0 else "m" for u in under).split("m")
    assert max(len(g) for g in gaps) <= 1024, "a gap in the music under the sound"
    status, _ = pi.http("POST", "http://127.0.0.1:8080/api/timer/stop", token=TOKEN)
    assert status == 200


def test_a_writer_killed_mid_sound_is_said_and_comes_back(pi: Pibox, companion: int) -> None:
    assert sound_part(pi)["ok"]
    pi.press(LEVER_PIN, hold=0.4)  # the music plays: the writer is busy
    wait_for("the timer runs", lambda: state(pi)["timer"]["running"])
    pi.run(["touch", FAULT])
    down = wait_for("/healthz says the writer is down",
                    lambda: (p := sound_part(pi))["ok"] is False and p)
    assert "the sound writer failed (RuntimeError: injected fault)" in down["detail"], down
    pi.run(["rm", FAULT])
    back = wait_for("/healthz says the writer is back", lambda: (p := sound_part(pi))["ok"] and p)
    assert "its writer was started again" in back["detail"], back
    log = pi.log(companion)
    assert "Traceback" in log and "RuntimeError: injected fault" in log, log[-3000:]
    assert "the sound writer runs again" in log
    status, _ = pi.http("POST", "http://127.0.0.1:8080/api/timer/stop", token=TOKEN)
    assert status == 200  # before its last seconds' ticks
    heard, wanted = press_and_hear(pi, "back")
    heard_whole(heard, wanted)
