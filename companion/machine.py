"""Facts about the machine the companion runs on, for ``companion doctor``: the Pi model and OS
release, the gpiochip a pin factory opened, whether ``lgpio`` is the real library or PyPI's
empty stub, and whether a folder lives on a file system that is gone at the next boot.

Each reads the kernel's own files (device tree, ``/proc/self/mountinfo``, the gpiochip's
``GPIO_GET_CHIPINFO`` ioctl), so it can be tested on real mounts and real modules.
"""

from __future__ import annotations

import fcntl
import os
import platform
import re
import struct
from dataclasses import dataclass
from pathlib import Path

MODEL_FILES = (Path("/proc/device-tree/model"), Path("/sys/firmware/devicetree/base/model"))
VOLATILE_FILE_SYSTEMS = {"tmpfs": "a RAM disk (tmpfs)", "ramfs": "a RAM disk (ramfs)",
                         "overlay": "an overlay (the read-only root's RAM layer)"}
"""File systems whose writes are gone at the next boot, as raspi-config's overlay file
system (overlayroot) leaves every folder of a read-only root."""

GPIO_GET_CHIPINFO_IOCTL = 0x8044B401
"""``_IOR(0xB4, 0x01, struct gpiochip_info)``: name[32], label[32], lines (u32)."""

BROKEN_GPIOZERO = {"2.0.1", "2.0.1.post1", "2.0.1.post2"}
"""gpiozero releases that fail on a Pi 5 with a kernel from 6.6.45 on (gpiozero #1166, #1229)."""


def model() -> str | None:
    """The board's own name (``Raspberry Pi 5 Model B Rev 1.0``), None off a Pi or any board
    without a device tree."""
    for path in MODEL_FILES:
        try:
            return path.read_bytes().rstrip(b"\0").decode(errors="replace").strip() or None
        except OSError:
            continue
    return None


def os_release(root: Path = Path("/")) -> dict[str, str]:
    """``/etc/os-release`` as a dict (``PRETTY_NAME``, ``VERSION_CODENAME``, ...)."""
    fields: dict[str, str] = {}
    for name in ("etc/os-release", "usr/lib/os-release"):
        try:
            text = (root / name).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip():
                fields[key.strip()] = value.strip().strip('"').strip("'")
        break
    return fields


def summary() -> str:
    """The machine in one line: board, OS release, kernel, Python."""
    release = os_release()
    name = release.get("PRETTY_NAME", "an unknown OS")
    codename = release.get("VERSION_CODENAME")
    if codename and codename not in name:
        name += f" ({codename})"
    board = model() or f"not a Raspberry Pi ({platform.machine()})"
    return (f"{board}; {name}; kernel {platform.release()}; "
            f"Python {platform.python_version()}")


@dataclass(frozen=True)
class Chip:
    """A gpiochip as its driver names it."""

    device: str
    name: str
    label: str
    lines: int

    def __str__(self) -> str:
        return f"{self.device} [{self.label}] {self.lines} lines"


def chip_info(number: int) -> Chip | None:
    """``/dev/gpiochip<number>``'s name, label and line count; None when it can't be opened."""
    device = f"/dev/gpiochip{number}"
    try:
        fd = os.open(device, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        raw = fcntl.ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, bytes(68))
    except OSError:
        return None
    finally:
        os.close(fd)
    name, label, lines = struct.unpack("32s32sI", raw)
    return Chip(device, name.split(b"\0")[0].decode(), label.split(b"\0")[0].decode(), lines)


def lgpio_problem() -> str | None:
    """Why the ``lgpio`` this Python imports can't drive pins: PyPI's empty stub (0.0.0.2,
    gpiozero #1115) has no functions; None when it is the real one or there is none at all."""
    import importlib.util

    spec = importlib.util.find_spec("lgpio")
    if spec is None:
        return None
    import lgpio

    missing = [name for name in ("gpiochip_open", "SET_PULL_NONE") if not hasattr(lgpio, name)]
    if not missing:
        return None
    where = getattr(lgpio, "__file__", None) or ", ".join(getattr(lgpio, "__path__", []))
    return (f"lgpio at {where} is an empty stub (no {', '.join(missing)}): PyPI's lgpio "
            "0.0.0.2, which pip may pick where no wheel fits")


def gpiod_version() -> str | None:
    """The importable ``gpiod`` (libgpiod v2's bindings, from the lock), None when there is
    none or it is Debian's v1 (``python3-libgpiod`` 1.x on bookworm has no ``request_lines``)."""
    try:
        import gpiod
    except ImportError:
        return None
    if not hasattr(gpiod, "request_lines"):
        return None
    return str(getattr(gpiod, "__version__", "2"))


def lgpio_origin() -> str | None:
    """Where the importable ``lgpio`` lives, None when there is none."""
    import importlib.util

    spec = importlib.util.find_spec("lgpio")
    return spec.origin if spec is not None else None


@dataclass(frozen=True)
class Mount:
    """The mount a path lives on."""

    point: str
    fstype: str
    source: str


def mount_of(path: Path, mountinfo: Path = Path("/proc/self/mountinfo")) -> Mount | None:
    """The mount holding ``path`` (the longest mount point above it; the last one mounted
    there wins, as the kernel's lookup does)."""
    target = os.path.realpath(path)
    best: Mount | None = None
    try:
        lines = mountinfo.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        before, sep, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if not sep or len(fields) < 5 or len(tail) < 2:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])  # \040: " "
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best.point)):
            best = Mount(point, tail[0], tail[1])
    return best


def volatile(path: Path) -> tuple[Mount, str] | None:
    """(mount, what it is) when what is written under ``path`` is gone at the next boot."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent  # a data folder not made yet: where it would be made
    mount = mount_of(probe)
    if mount is None or mount.fstype not in VOLATILE_FILE_SYSTEMS:
        return None
    return mount, VOLATILE_FILE_SYSTEMS[mount.fstype]
