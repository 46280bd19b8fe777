"""The newcomer's paths: the demo driven from a pipe, and ``companion bench``'s JSON."""

from __future__ import annotations

import json
import subprocess
import sys

from companion.bench import press_to_pcm
from tests.conftest import ROOT, run_companion


def test_demo_presses_from_piped_keyboard_and_exits_after_the_sound() -> None:
    done = run_companion("demo", "--audio", "null", "--seed", "3", stdin="\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Question Block demo: press Enter")
    assert lines[1].startswith("press 1: ")
    assert lines[2] == "bye: 1 presses, 0 ignored while sounding"
    assert done.stderr == ""  # the demo's log shows only trouble


def test_demo_without_a_keyboard_runs_until_sigterm() -> None:
    with subprocess.Popen([sys.executable, "-m", "companion", "demo", "--audio", "null"],
                          cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("Question Block demo")
        assert "no keyboard" in proc.stdout.readline()
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "bye: 0 presses" in out and "Traceback" not in err


def test_demo_quits_on_q() -> None:
    done = run_companion("demo", "--audio", "null", stdin="q")
    assert done.returncode == 0
    assert "press 1" not in done.stdout


def test_demo_auto_presses_each_after_the_last_sound() -> None:
    done = run_companion("demo", "--audio", "null", "--auto", "3")
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [
        "press 1", "press 2", "press 3", "bye"]
    assert done.stdout.endswith("bye: 3 presses, 0 ignored while sounding\n")


def test_bench_press_to_pcm_through_a_fifo() -> None:
    figures = press_to_pcm(presses=5)
    latency = figures["press_to_pcm_ms"]
    assert latency["n"] == 5 and latency["lost"] == 0
    assert 0 < latency["p50"] <= latency["p99"] <= latency["max"]
    assert figures["rss_mib"] > 0


def test_bench_command_prints_json_figures() -> None:
    done = subprocess.run([sys.executable, "-m", "companion", "bench", "--json", "--presses", "3"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) >= {"press_to_pcm_ms", "daemon_rss_mib", "cold_import_ms",
                         "startup_to_ready_ms", "odds_draws_per_s"}
    assert data["startup_to_ready_ms"] > 0
    assert set(data["press_to_pcm_ms"]) == {"n", "p50", "p99", "max", "lost"}
