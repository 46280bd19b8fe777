"""The machine tier's fixtures: one booted guest per module (tests/machine/pibox.py)."""

from __future__ import annotations

import platform
import shutil
from collections.abc import Iterator

import pytest

from tests.machine.pibox import Pibox


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/machine/" in str(item.fspath):
            item.add_marker(pytest.mark.machine)


@pytest.fixture(scope="module")
def pi() -> Iterator[Pibox]:
    """A Pi in a box, in the deterministic mode: what the guest hears cannot depend on how busy
    the host is (in real-time mode an overloaded host starves the guest, and the card, which
    keeps time, runs out of sound)."""
    if platform.machine() != "x86_64":
        pytest.skip(f"the machine tier boots Debian's amd64 kernel; this is {platform.machine()}")
    if shutil.which("qemu-system-x86_64") is None:
        pytest.fail("qemu-system-x86_64 is missing: make test installs qemu-system-x86")
    with Pibox(mode="icount-sleep") as box:
        yield box
