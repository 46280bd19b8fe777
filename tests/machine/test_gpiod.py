"""The gpiod pin factory (ours, on libgpiod v2) in the Pi in a box: on gpio-sim lines with our
own checks and gpiozero's own real-pin tests, chosen by default and said by ``doctor`` (lgpio
when gpiod is unusable), and the companion on it: a press heard whole and banked, the lever,
the motor and the light. test_pi_in_a_box.py keeps the lgpio factory (the fallback) tested."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.machine import vm
from tests.machine.pibox import ROOT, Pibox
from tests.machine.test_pi_in_a_box import (
    coins_moved,
    coins_owed,
    press_and_hear,
    start_companion,
    wait_for,
)

PYTHON = str(ROOT / ".venv/bin/python")
TOKEN = "pibox-gpiod-token-0123456789abcdef"
API = "http://127.0.0.1:8080/api"
BLOCK, LEVER, MOTOR, LIGHT = 26, 27, 5, (12, 13, 6)
CONFIG = f"""
[audio]
backend = "stream"
[data]
dir = "/var/lib/companion"
[web]
host = "127.0.0.1"
port = 8080
token = "{TOKEN}"
[game]
players = ["Mario", "Luigi"]
[lever]
enabled = true
pin = {LEVER}
motor_pin = {MOTOR}
[light]
red = {LIGHT[0]}
green = {LIGHT[1]}
blue = {LIGHT[2]}
[display]
enabled = false
"""
UNSET_FACTORY = ["env", "-u", "GPIOZERO_PIN_FACTORY"]
"""guest/pi.sh exports GPIOZERO_PIN_FACTORY=lgpio for the older tests: the default is unset."""
GUEST_S = 20000
"""A guest command's limit in guest seconds: under -icount the guest's clock runs on while the
vCPU waits for the host's 9p reads, tens of times faster than the wall's on a loaded host."""
LEAN = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
"""pytest in the guest without the venv's plugins (hypothesis, schemathesis, anyio): fewer
files read over 9p."""
GPIOZERO_SDIST = "gpiozero==2.0.1.post3"
GPIOZERO_SDIST_SHA256 = "745feab6df463ac2e9de10c67e2dd9f396e668ba4e281e92381d6c460100a8f7"
NEEDS_A_WIRE = ("test_output", "test_output_with_state", "test_pull", "test_input_with_pull",
                "test_pulls_are_weak", "test_duty_cycles")
"""gpiozero's real-pin tests that read one pin through another wired to it (GPIO22 to GPIO27):
gpio-sim has no wires; guest/gpiod_real.py checks the same through gpio-sim's sysfs."""
BROKEN_MOCK = ("test_spi_hardware_write",) if sys.version_info >= (3, 12) else ()
"""gpiozero 2.0.1's own test_spi_hardware_write asserts ``xfer2.called_with(...)`` (meaning
``assert_called_with``): Python 3.12's mock refuses that name (gh-100690) for every factory,
lgpio's too; the SPI write is checked by the other SPI cases and test_spi_hardware_read."""


def sysfs(pi: Pibox, pin: int) -> str:
    done = pi.run(["sh", "-c", f'cat "$PIBOX_LINES/sim_gpio{pin}/value"'])
    return str(done["out"]).strip()


def test_our_factory_drives_gpio_sim_lines(pi: Pibox) -> None:
    """guest/gpiod_real.py: outputs, pulls, edges with the kernel's time, closing and
    reopening, refusals, no wakeups while idle, software PWM, every device of ours."""
    done = pi.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "tests/machine/guest/gpiod_real.py"], cwd=str(ROOT), timeout=GUEST_S,
                  env=LEAN)
    assert done["rc"] == 0, done["out"] + done["err"]
    assert " passed" in done["out"] and "skipped" not in done["out"], done["out"]


def gpiozero_tests(cache: Path) -> Path:
    """gpiozero's own tests, from the sdist of the release in the lock (PyPI, pinned by its
    hash), unpacked once into the cache."""
    name = GPIOZERO_SDIST.replace("==", "-")
    target = cache / f"{name}-tests"
    if (target / "test_real_pins.py").exists():
        return target
    with tempfile.TemporaryDirectory() as work:
        requirement = Path(work) / "requirements.txt"
        requirement.write_text(f"{GPIOZERO_SDIST} --hash=sha256:{GPIOZERO_SDIST_SHA256}\n")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--disable-pip-version-check", "--no-binary", ":all:",
                        "--no-build-isolation", "--require-hashes", "-r", str(requirement),
                        "-d", work], check=True)
        sdist = Path(work) / f"{name}.tar.gz"
        assert hashlib.sha256(sdist.read_bytes()).hexdigest() == GPIOZERO_SDIST_SHA256
        unpacked = Path(work) / "tests"
        unpacked.mkdir()
        with tarfile.open(sdist) as tar:
            member = tar.extractfile(f"{name}/tests/test_real_pins.py")
            assert member is not None
            (unpacked / "test_real_pins.py").write_bytes(member.read())
        shutil.copytree(unpacked, target)
    return target


def test_gpiozeros_own_real_pin_tests_pass_on_our_factory(pi: Pibox) -> None:
    """gpiozero's test_real_pins.py, unchanged, with our factory registered as the entry point
    ``gpiod`` (as a package of ours would), only its parameter run, less the wired tests."""
    work = pi.out / "gpiozero-tests"
    shutil.copytree(gpiozero_tests(vm.DEFAULT_CACHE), work, dirs_exist_ok=True)
    (work / "pytest.ini").write_text("[pytest]\n")
    (work / "conftest.py").write_text(
        '"""The one fixture test_real_pins.py takes from gpiozero\'s own conftest."""\n'
        "import pytest\nfrom gpiozero import Device\n\n\n@pytest.fixture()\n"
        "def no_default_factory():\n    kept, Device.pin_factory = Device.pin_factory, None\n"
        "    yield None\n    Device.pin_factory = kept\n")
    entry = work / "site" / "companion_gpiod-0.dist-info"
    entry.mkdir(parents=True, exist_ok=True)
    (entry / "METADATA").write_text("Metadata-Version: 2.1\nName: companion-gpiod\n"
                                    "Version: 0\n")
    (entry / "entry_points.txt").write_text(
        "[gpiozero_pin_factories]\ngpiod = companion.gpio.gpiod_pins:GpiodFactory\n")
    guest = "/mnt/out/gpiozero-tests"
    wired = " ".join(f"--deselect test_real_pins.py::{name}[gpiod]"
                     for name in NEEDS_A_WIRE + BROKEN_MOCK)
    done = pi.run(["sh", "-c", f'export PYTHONPATH="{guest}/site:{ROOT}:$PYTHONPATH"; exec '
                   f'{PYTHON} -m pytest -v -p no:cacheprovider -rs test_real_pins.py '
                   f'-k gpiod {wired}'], cwd=guest, timeout=GUEST_S, env=LEAN)
    out = done["out"] + done["err"]
    assert done["rc"] == 0, out
    # names, functions, pulls, PWM's bounds, the factory explicit and by $GPIOZERO_PIN_FACTORY,
    # SPI in software over our pins (one SPI test is for hardware SPI only: skipped)
    assert out.count("[gpiod] PASSED") >= 12, out
    assert "skipped factory gpiod" not in out, out


def _gpio_line(done: dict[str, Any]) -> str:
    lines = [line for line in done["out"].splitlines() if line[6:].startswith("gpio")]
    assert lines, done
    return lines[0]


def test_doctor_says_gpiod_by_default_and_lgpio_when_gpiod_is_unusable(pi: Pibox) -> None:
    pi.run(["sh", "-c", "mkdir -p /etc/doctor && cat > /etc/doctor/companion.toml"],
           stdin='[audio]\nbackend = "null"\n[block]\npin = 16\n[data]\ndir = "/var/lib/doc"\n'
                 '[web]\nenabled = false\n')
    doctor = [PYTHON, "-m", "companion", "doctor", "--config", "/etc/doctor/companion.toml"]
    done = pi.run([*UNSET_FACTORY, *doctor], cwd=str(ROOT), timeout=GUEST_S)
    gpio = _gpio_line(done)
    assert gpio.startswith("PASS") and "GpiodFactory on /dev/gpiochip0" in gpio, done["out"]
    assert "pins by gpiod (kernel edge events on /dev/gpiochip0" in gpio, gpio
    # Debian bookworm's python3-libgpiod is libgpiod v1: a gpiod without request_lines.
    pi.run(["sh", "-c", "mkdir -p /run/v1/gpiod && echo '__version__ = \"1.6.3\"' "
            "> /run/v1/gpiod/__init__.py"])
    done = pi.run(["sh", "-c", 'PYTHONPATH="/run/v1:$PYTHONPATH" exec "$@"', "doctor",
                   *UNSET_FACTORY, *doctor], cwd=str(ROOT), timeout=GUEST_S)
    gpio = _gpio_line(done)
    assert gpio.startswith("PASS") and "LGPIOFactory on /dev/gpiochip0" in gpio, done["out"]
    assert "pins by lgpio (gpiod unavailable: gpiod 1.6.3 at /run/v1/gpiod" in gpio, gpio


@pytest.fixture(scope="module")
def companion(pi: Pibox) -> Iterator[int]:
    """``companion run`` with no pin factory named (the default), as the service starts it."""
    pid = start_companion(pi, [*UNSET_FACTORY, PYTHON, "-m", "companion", "run"],
                          "/etc/gpiod/companion.toml", CONFIG)
    yield pid
    done = pi.wait(pid, signal=15)
    assert done["rc"] == 0, done["out"]
    assert "Traceback" not in done["out"], done["out"]


def state(pi: Pibox) -> dict[str, Any]:
    status, body = pi.http("GET", f"{API}/state")
    assert status == 200, body
    return dict(body)


def test_the_companion_chooses_gpiod_by_default_and_says_why(pi: Pibox, companion: int) -> None:
    log = pi.log(companion)
    assert "GPIO: gpiod (kernel edge events on /dev/gpiochip0 [" in log, log
    assert "outcome light on BCM 12, 13, 6 (PWM)" in log, log


def test_a_press_through_gpiod_is_heard_whole_and_banked(pi: Pibox, companion: int) -> None:
    heard = press_and_hear(pi, BLOCK, "gpiod-heard")
    heard.assert_whole()
    assert coins_moved(heard, "Mario") == coins_owed(heard.outcome), heard.after["last_outcome"]


def test_the_lever_runs_the_motor_and_the_light_counts_down(pi: Pibox, companion: int) -> None:
    assert not state(pi)["timer"]["running"] and sysfs(pi, MOTOR) == "0"
    pi.press(LEVER, hold=0.4)  # pulled back, then let go
    wait_for("the timer runs", lambda: state(pi)["timer"]["running"])
    wait_for("the motor runs", lambda: sysfs(pi, MOTOR) == "1")
    wait_for("the light shows the countdown",
             lambda: any(sysfs(pi, pin) == "1" for pin in LIGHT))
    status, _ = pi.http("POST", f"{API}/timer/stop", token=TOKEN)
    assert status == 200
    wait_for("the motor stops", lambda: sysfs(pi, MOTOR) == "0")
