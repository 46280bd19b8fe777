"""systemd/companion.service under systemd as PID 1, in a real kernel: the guest boots the host's
systemd (vm.boot(systemd=True)), is made a Pi, and guest/service.sh installs the unit as shipped,
starts it, waits past its watchdog and stops it. The guest differs from an installed Pi only where
it must (each difference is commented in service.sh):

- /opt/companion/venv is a link to the checkout's venv, made in the overlay;
- the user companion and its groups are made in the overlay, and the device nodes get the groups
  the Pi's udev rules would give them (there is no udevd);
- a drop-in puts PyPI's lgpio on PYTHONPATH (on a Pi, python3-lgpio is linked into the venv),
  copied out of the cache because ProtectHome=yes hides /root;
- the same drop-in binds the Pi 4 B cpuinfo over /proc/cpuinfo in the unit's own namespace:
  ProtectKernelTunables= and ProtectControlGroups= give the service a /proc without the guest's
  bind mount (a Pi's /proc/device-tree names the board instead).

Every hardening option of the unit works as shipped on the 9p root under its tmpfs overlay."""

from __future__ import annotations

import platform
import shutil
from pathlib import Path

import pytest

from tests.machine import vm

GUEST = Path(__file__).resolve().parent / "guest"


@pytest.fixture(scope="module")
def facts() -> dict[str, str]:
    """What guest/service.sh saw, KEY=VALUE."""
    if platform.machine() != "x86_64":
        pytest.skip(f"the machine tier boots Debian's amd64 kernel; this is {platform.machine()}")
    if shutil.which("qemu-system-x86_64") is None:
        pytest.fail("qemu-system-x86_64 is missing: make test installs qemu-system-x86")
    if not Path("/lib/systemd/systemd").exists():
        pytest.skip("the host has no systemd to boot")
    lgpio = vm.install_lgpio()
    result = vm.boot(["sh", str(GUEST / "service.sh")], mode="icount-sleep", systemd=True,
                     env={"PIBOX_ROOT": str(vm.ROOT), "PIBOX_LGPIO": str(lgpio)}, cwd=vm.ROOT,
                     timeout=900, echo=False)
    tail = result.console[-4000:]
    assert result.rc == 0, tail
    lines = (result.out / "facts").read_text().splitlines()
    shutil.rmtree(result.out, ignore_errors=True)
    found = dict(line.split("=", 1) for line in lines)
    assert found["pid1"] == "systemd", tail
    found["console"] = tail  # the unit's journal, for the messages below
    return found


def test_start_returns_once_the_daemon_is_ready(facts: dict[str, str]) -> None:
    assert facts["start_rc"] == "0", facts["console"]
    assert facts["active"] == "active/running"
    # READY=1 carries the status line: the button on gpio-sim, the sound and the bank are up.
    assert facts["status"].startswith("ready: button BCM 26"), facts["status"]
    assert "audio stream" in facts["status"] and "bank ok" in facts["status"], facts["status"]
    # The pins on the default factory, inside the unit's sandbox: the kernel's edge events.
    assert "GPIO: gpiod (kernel edge events" in facts["console"], facts["console"]
    # The web was up before READY, so the first request after start is answered.
    assert facts["healthz"] == "200"


def test_it_runs_as_the_service_user_in_its_sandbox(facts: dict[str, str]) -> None:
    assert facts["user"] == "companion"
    # NoNewPrivileges, seccomp (SystemCallArchitectures, RestrictNamespaces...), no capabilities.
    assert set(facts["sandbox"].split()) == {"NoNewPrivs:1", "Seccomp:2", "CapBnd:0000000000000000"}


def test_the_watchdog_is_fed(facts: dict[str, str]) -> None:
    assert facts["watchdog"] == "10s"
    assert facts["active_later"] == "active/running"
    assert facts["main_pid_later"] == facts["main_pid"] and facts["restarts"] == "0"
    assert facts["pinged_since"] == "1"


def test_stop_is_clean(facts: dict[str, str]) -> None:
    assert facts["stop_rc"] == "0"
    assert facts["stopped"] == "inactive/success"
    assert facts["exit"] == "1/0"  # CLD_EXITED, status 0: it exited, not killed
