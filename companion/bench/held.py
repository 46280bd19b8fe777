"""Holding a press the disk refused, against the floor: the bare ``pwrite`` + ``fsync`` of the
same slot on the same disk, interleaved in one run."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.bank.held import SLOT, HeldFile, HeldPress
from companion.bench.stats import summary
from companion.core.outcomes import Kind, Outcome


def held_press_ms(data_dir: Path, presses: int = 100) -> dict[str, Any]:
    """One more press held (all held so far rewritten into the next slot, synced) while 1 to
    ``presses`` are held; the floor writes and syncs one slot of zeros."""
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-held-", dir=data_dir))
    try:
        held = HeldFile(folder / "held-presses")
        held.open()
        fd = os.open(folder / "floor", os.O_RDWR | os.O_CREAT, 0o600)
        os.pwrite(fd, bytes(2 * SLOT), 0)
        os.fsync(fd)
        blank = bytes(SLOT)
        kept: list[HeldPress] = []
        ours, floor = [], []
        for n in range(presses):
            kept.append(HeldPress(f"{n:032x}", 1.7e9 + n, Outcome(Kind.COINS, 2, (1, 2)),
                                  "button", 1, 2, True, {}))
            start = time.perf_counter()
            held.write(kept)
            ours.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            os.pwrite(fd, blank, (n % 2) * SLOT)
            os.fsync(fd)
            floor.append((time.perf_counter() - start) * 1000)
        os.close(fd)
        held.close()
        mine, bare = summary(ours, presses), summary(floor, presses)
        return {"held": mine, "floor": bare,
                "ratio_p50": round(mine["p50"] / bare["p50"], 2) if bare["p50"] else None,
                "disk": str(data_dir)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
