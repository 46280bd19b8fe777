"""The stream's writer thread cannot die quietly: a fault inside it (injected here into the
mixer it calls, on the writer's thread only) is logged with its traceback, the writer starts
again, the sound plays on whole, and ``/healthz`` and ``doctor`` say so while it is down.

The card is ALSA's ``file`` plugin (real alsa-lib); each ALSA setup runs in its own process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, alsa_file_home, free_port, run_companion

FAULT = """
import threading
from companion.audio.mixer import Mixer

def fail_on_the_writer(flag):
    '''Mixer.render raises on the writer's thread while ``flag()`` is true.'''
    real = Mixer.render
    def render(self, start, frames):
        if flag() and threading.current_thread().name == "audio-stream":
            raise RuntimeError("injected fault")
        return real(self, start, frames)
    Mixer.render = render
"""

KILLED = FAULT + """
import array, random, threading, time
from companion.audio.pcm import Pcm
from companion.audio.speaker import Speaker
from companion.audio.stream_backend import StreamBackend
failing = threading.Event()
fail_on_the_writer(failing.is_set)
rng = random.Random(45)
long = Pcm(array.array("h", (rng.randrange(-20000, 20000) | 1 for _ in range(88200))).tobytes())
open("long.raw", "wb").write(long.data)
backend = StreamBackend()
speaker = Speaker(backend)
assert speaker.open()
assert speaker.play(long)
failing.set()  # the sound has 2 s to go: the writer's next top-up fails
def until(what, check):
    deadline = time.monotonic() + 30
    while not check():
        assert time.monotonic() < deadline, "never: " + what
        time.sleep(0.005)
until("health says the writer is down", lambda: not speaker.health[0])
print("down:", speaker.health[1])
failing.clear()
until("health says the writer is back", lambda: speaker.health[0])
print("back:", speaker.health[1])
until("the sound is over", lambda: not speaker.busy)
speaker.close()
print("restarts:", backend.writer_restarts)
"""


@pytest.mark.alsa
def test_a_writer_killed_mid_sound_is_logged_restarted_and_the_sound_plays_on_whole(
        tmp_path: Path) -> None:
    captured = tmp_path / "captured.raw"
    env = alsa_file_home(tmp_path / "home", captured)
    done = subprocess.run([sys.executable, "-c", KILLED], env={**env, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("down: stream: the sound writer failed (RuntimeError: injected "
                               "fault), starting it again; its writer was started again "), lines
    assert lines[1].startswith("back: stream; its writer was started again "), lines
    restarts = int(lines[2].removeprefix("restarts: "))
    assert restarts >= 1
    assert "Traceback" in done.stderr and "RuntimeError: injected fault" in done.stderr
    assert "the sound writer runs again" in done.stderr
    # The sound, whole and once, with only silence around it: nothing lost while it was down.
    sound, data = (tmp_path / "long.raw").read_bytes(), captured.read_bytes()
    at = data.find(sound)
    assert at >= 0 and at % 2 == 0, "the sound is not whole in the stream"
    assert not any(data[:at]) and not any(data[at + len(sound):])


DAEMON = FAULT + """
import os, sys
from pathlib import Path
from companion.cli import main
fail_on_the_writer(Path(os.environ["HOME"], "fault").exists)
sys.exit(main(sys.argv[1:]))
"""


def healthz(url: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return dict(json.loads(answer.read()))
    except urllib.error.HTTPError as exc:
        return dict(json.loads(exc.read()))


def sound_part(url: str, ok: bool) -> dict[str, Any]:
    deadline = time.monotonic() + 300  # a hang guard: the writer's restart is the event
    while (part := healthz(url)["parts"]["sound"])["ok"] is not ok:
        assert time.monotonic() < deadline, f"/healthz's sound never ok={ok}: {part}"
        time.sleep(0.05)
    return part


@pytest.mark.alsa
def test_healthz_and_doctor_say_the_writer_is_down_until_it_runs_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = alsa_file_home(home, tmp_path / "captured.raw")
    port = free_port()
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "stream"\n[gpio]\npin_factory = "mock"\n'
                      f'[data]\ndir = "{tmp_path / "data"}"\n[web]\nhost = "127.0.0.1"\n'
                      f'port = {port}\n[display]\nenabled = false\n[reader]\nenabled = false\n'
                      '[game]\nplayers = ["Mario", "Luigi"]\n')
    log = tmp_path / "companion.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-c", DAEMON, "run", "--config", str(config)],
                                env={**env, "PYTHONPATH": str(ROOT)}, cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        # "companion ready" is said before the web listens: waited for is the web's own line.
        deadline = time.monotonic() + 300  # a hang guard, for a loaded machine
        while "web: serving on" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        assert sound_part(url, True)["detail"] == "stream"
        (home / "fault").touch()
        down = sound_part(url, False)
        assert down["detail"].startswith("stream: the sound writer failed (RuntimeError: "
                                         "injected fault), starting it again"), down
        assert healthz(url)["ok"] is True  # the table plays on: shown, not heard
        doctor = run_companion("doctor", "--config", str(config), env=env)
        running = next(line for line in doctor.stdout.splitlines()
                       if line[6:].startswith("running "))
        assert running.startswith("WARN  running    healthy: bank ok, sound missing (stream: "
                                  "the sound writer failed (RuntimeError: injected fault)"), \
            doctor.stdout
        (home / "fault").unlink()
        back = sound_part(url, True)
        assert back["detail"].startswith("stream; its writer was started again "), back
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(30)
    text = log.read_text()
    assert rc == 0, text
    assert "Traceback" in text and "the sound writer runs again" in text
    assert os.path.getsize(tmp_path / "captured.raw") > 0
