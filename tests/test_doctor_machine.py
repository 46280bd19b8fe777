"""``companion doctor`` knows the 2026 Pi: a data folder on a RAM disk or an overlay (a real
tmpfs and a real overlayfs, mounted in a private mount namespace), PyPI's empty lgpio stub (a
real module on ``sys.path``), a gpiozero that breaks on a Pi 5, and the machine in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion import doctor, machine
from companion.config import from_dict
from tests.conftest import run_companion


def _private_mounts() -> str:
    """Why a private mount namespace can't be had here ('' when it can): root is needed (CI
    is root), and a chroot's / is no mount point to make private."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return "mounting a tmpfs or an overlay needs root and unshare (CI has both)"
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                          capture_output=True, text=True, timeout=30)
    return "" if done.returncode == 0 else f"no private mount namespace: {done.stderr.strip()}"


NO_PRIVATE_MOUNTS = _private_mounts()
ROOT_ONLY = pytest.mark.skipif(bool(NO_PRIVATE_MOUNTS), reason=NO_PRIVATE_MOUNTS or "-")


def _config(tmp_path: Path, data: Path) -> Path:
    path = tmp_path / "companion.toml"
    path.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "mock"\n'
                    f'[data]\ndir = "{data}"\n[web]\nenabled = false\n'
                    '[reader]\nenabled = false\n')
    return path


def _doctor_on_mount(tmp_path: Path, mount: list[str], point: Path,
                     command: str = "doctor") -> subprocess.CompletedProcess:
    """``companion doctor`` in a mount namespace of its own, where ``mount`` is done first
    (gone with the process: nothing is left mounted on the machine)."""
    config = _config(tmp_path, point / "companion")
    # `run`: stopped once it has said it is ready (or has ended), however slow the machine; the
    # 240 s of tenths is a hang guard, not a wait for time.
    run = ('"$0" -m companion run --config "$1" 2>"$2" & pid=$!; n=0; '
           'until grep -q "companion ready" "$2" || ! kill -0 $pid 2>/dev/null || '
           '[ $n -ge 2400 ]; do sleep 0.1; n=$((n+1)); done; '
           'kill -TERM $pid; wait $pid; cat "$2" >&2') \
        if command == "run" else 'exec "$0" -m companion doctor --config "$1"'
    script = f'{" ".join(mount)} && {run}'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                           sys.executable, str(config), str(tmp_path / f"{command}.log")],
                          capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parent.parent)


def _data_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line[6:].startswith("data "))


@ROOT_ONLY
def test_a_data_folder_on_tmpfs_fails_with_the_fix(tmp_path: Path) -> None:
    point = tmp_path / "ram"
    point.mkdir()
    done = _doctor_on_mount(tmp_path, ["mount", "-t", "tmpfs", "tmpfs", str(point)], point)
    assert done.returncode == 1, done.stdout + done.stderr
    line = _data_line(done.stdout)
    assert line.startswith("FAIL  data       the bank would be lost at reboot: "), line
    assert f"is on a RAM disk (tmpfs), mounted at {point}" in line
    assert "sudo raspi-config nonint disable_overlayfs" in done.stdout
    assert "1 required check(s) failed: data" in done.stdout
    assert not (point / "companion").exists()  # nothing was written on the real disk under it


@ROOT_ONLY
def test_the_daemon_says_at_start_that_the_bank_is_in_ram(tmp_path: Path) -> None:
    point = tmp_path / "ram"
    point.mkdir()
    done = _doctor_on_mount(tmp_path, ["mount", "-t", "tmpfs", "tmpfs", str(point)], point,
                            command="run")
    assert f"the bank is on a RAM disk (tmpfs) ({point}): every coin is lost at the next " \
           "boot" in done.stderr, done.stderr
    assert "companion ready" in done.stderr  # and the game still runs
    quiet = _doctor_on_mount(tmp_path, ["true"], tmp_path / "disk", command="run")
    assert "every coin is lost" not in quiet.stderr and "companion ready" in quiet.stderr


@ROOT_ONLY
def test_a_data_folder_on_an_overlay_fails_with_the_fix(tmp_path: Path) -> None:
    """As raspi-config's overlay file system leaves /var/lib/companion: a read-only lower
    layer and a RAM upper layer."""
    layers = {name: tmp_path / name for name in ("lower", "upper", "work", "merged")}
    for folder in layers.values():
        folder.mkdir()
    options = f"lowerdir={layers['lower']},upperdir={layers['upper']},workdir={layers['work']}"
    done = _doctor_on_mount(tmp_path, ["mount", "-t", "overlay", "overlay", "-o", options,
                                       str(layers["merged"])], layers["merged"])
    assert done.returncode == 1, done.stdout + done.stderr
    line = _data_line(done.stdout)
    assert "the bank would be lost at reboot" in line and "an overlay" in line, line
    assert f"mounted at {layers['merged']}" in line
    assert "disable_overlayfs" in done.stdout


def test_a_data_folder_on_the_disk_passes(tmp_path: Path) -> None:
    done = run_companion("doctor", "--config", str(_config(tmp_path, tmp_path / "data")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert _data_line(done.stdout).startswith(f"PASS  data       {tmp_path / 'data'} writable")


def test_the_machine_in_one_line(tmp_path: Path) -> None:
    done = run_companion("doctor", "--config", str(_config(tmp_path, tmp_path / "data")))
    system = next(line for line in done.stdout.splitlines() if line[6:].startswith("system"))
    release = machine.os_release()
    assert release["PRETTY_NAME"] in system and f"kernel {os.uname().release}" in system
    assert f"Python {sys.version.split()[0]}" in system
    board = machine.model()
    assert (board or "not a Raspberry Pi") in system
    gpio = next(line for line in done.stdout.splitlines() if line[6:].startswith("gpio"))
    from importlib.metadata import version
    assert f"(MockFactory; gpiozero {version('gpiozero')})" in gpio


def test_lgpio_as_pypis_empty_stub_fails_naming_the_fix(tmp_path: Path) -> None:
    stub = tmp_path / "site" / "lgpio"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("")  # lgpio 0.0.0.2: a package with nothing in it
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    done = run_companion("doctor", "--config", str(_config(tmp_path, tmp_path / "data")),
                         env=env)
    assert done.returncode == 1, done.stdout
    assert f"FAIL  lgpio      lgpio at {stub / '__init__.py'} is an empty stub (no " \
           "gpiochip_open, SET_PULL_NONE)" in done.stdout
    assert "-m pip uninstall -y lgpio; sudo apt install python3-lgpio" in done.stdout


def test_a_real_lgpio_passes_and_names_where_it_is(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "lgpio.py").write_text("SET_PULL_NONE = 0\n\ndef gpiochip_open(chip):\n"
                                   "    raise OSError('no chip')\n")
    done = run_companion("doctor", "--config", str(_config(tmp_path, tmp_path / "data")),
                         env={**os.environ, "PYTHONPATH": str(site)})
    assert f"PASS  lgpio      from {site / 'lgpio.py'}" in done.stdout, done.stdout


def test_a_gpiozero_that_breaks_on_a_pi_5_is_named(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The board from its device tree file, gpiozero's version from the first metadata on
    the path (as pip would have left a broken one)."""
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    monkeypatch.setattr(machine, "MODEL_FILES", (tmp_path / "absent", model))
    assert machine.model() == "Raspberry Pi 5 Model B Rev 1.0"
    assert doctor.gpiozero_problem() is None  # the lock's gpiozero
    dist = tmp_path / "site" / "gpiozero-2.0.1.post2.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: gpiozero\nVersion: 2.0.1.post2\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert "gpiozero 2.0.1.post2 can't find a Pi 5's pins" in (doctor.gpiozero_problem() or "")
    result = doctor.check_gpio(from_dict({"gpio": {"pin_factory": "mock"}}))
    assert result.status == "FAIL" and "install.sh" in result.hint
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    assert doctor.gpiozero_problem() is None  # only a Pi 5 is hurt


def test_mounts_are_read_from_mountinfo(tmp_path: Path) -> None:
    info = tmp_path / "mountinfo"
    info.write_text(
        "22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/mmcblk0p2 rw\n"
        "30 22 0:26 / /var/lib rw shared:5 - tmpfs tmpfs rw\n"
        "31 30 179:3 / /var/lib/my\\040bank rw shared:6 - ext4 /dev/mmcblk0p3 rw\n")
    assert machine.mount_of(Path("/var/lib/companion"), info) == \
        machine.Mount("/var/lib", "tmpfs", "tmpfs")
    assert machine.mount_of(Path("/var/lib/my bank/x"), info) == \
        machine.Mount("/var/lib/my bank", "ext4", "/dev/mmcblk0p3")
    assert machine.mount_of(Path("/var/library"), info) == \
        machine.Mount("/", "ext4", "/dev/mmcblk0p2")
    assert machine.mount_of(Path("/x"), tmp_path / "absent") is None


def test_os_release_and_a_missing_gpiochip(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/os-release").write_text(
        'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_CODENAME=trixie\n# note\n')
    assert machine.os_release(tmp_path) == {"PRETTY_NAME": "Debian GNU/Linux 13 (trixie)",
                                            "VERSION_CODENAME": "trixie"}
    assert machine.chip_info(999) is None
