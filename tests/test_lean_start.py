"""A boot loads what a table uses then; the rest (ICU for typed names, segno for QR codes, the
PN532's protocol, the journal export, MQTT, speech) is loaded the first time it is needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, free_port

TOKEN = "lean-start-token-0123456789abcdef"
LATER = ("icu", "segno", "aiomqtt", "paho", "companion.readers.pn532", "companion.bank.export",
         "companion.speech")
"""Modules a boot does without (with [mqtt] and [speech] off, a reader speaking ``lines``)."""

BOOT = """
import json, os, signal, sys, threading, time, urllib.error, urllib.request
from companion.cli import main

LATER = json.loads(sys.argv[4])


def loaded():
    return sorted(name for name in LATER if name in sys.modules)


def ask(url, body=None):
    request = urllib.request.Request(
        url, data=None if body is None else json.dumps(body).encode(),
        method="GET" if body is None else "POST",
        headers={"Authorization": "Bearer " + sys.argv[3], "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return reply.status


def table(base):
    deadline = time.monotonic() + 60
    while True:
        try:
            ask(base + "/healthz")
            break
        except urllib.error.HTTPError:
            break  # a 503 (a part missing) is an answer too
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    print("step|up|" + json.dumps(loaded()), flush=True)
    ask(base + "/api/games", {"edition": "celebration", "players": ["Ann", "Ben"]})
    print("step|game made|" + json.dumps(loaded()), flush=True)
    ask(base + "/api/share")
    print("step|link shared|" + json.dumps(loaded()), flush=True)
    os.kill(os.getpid(), signal.SIGTERM)


threading.Thread(target=table, args=("http://127.0.0.1:" + sys.argv[2],), daemon=True).start()
sys.exit(main(["run", "--config", sys.argv[1]]))
"""
"""``companion run`` itself (in this process, so its modules can be read), and a thread that
plays the banker's tablet once ``/healthz`` answers: a game made with typed names, then the
banker's link and its QR code asked for."""


def _boot(tmp_path: Path) -> list[tuple[str, list[str]]]:
    port = free_port()
    master, slave = os.openpty()
    try:
        config = tmp_path / "companion.toml"
        config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                          f'[data]\ndir = "{tmp_path / "data"}"\n'
                          f'[web]\nhost = "127.0.0.1"\nport = {port}\ntoken = "{TOKEN}"\n'
                          '[display]\nenabled = true\nsize = "480x320"\n'
                          f'[reader]\nport = "{os.ttyname(slave)}"\nprotocol = "lines"\n')
        env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        done = subprocess.run([sys.executable, "-c", BOOT, str(config), str(port), TOKEN,
                               json.dumps(LATER)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=180)
    finally:
        os.close(master)
        os.close(slave)
    assert done.returncode == 0, done.stderr
    steps = []
    for line in done.stdout.splitlines():
        if line.startswith("step|"):  # (pygame says hello on stdout too)
            _, step, modules = line.split("|")
            steps.append((step, json.loads(modules)))
    return steps


def test_a_boot_with_the_screen_web_and_reader_loads_icu_segno_and_the_rest_when_needed(
        tmp_path: Path) -> None:
    """The second boot of a table whose game was made on the tablet (no players in the config):
    none of them at start; ICU the first time a name is typed; segno the first time a QR code
    is drawn."""
    _boot(tmp_path)  # a fresh install: its first game made on the tablet
    assert _boot(tmp_path) == [
        ("up", []),
        ("game made", ["icu"]),  # the names checked, as ever
        ("link shared", ["icu", "segno"]),
    ]
