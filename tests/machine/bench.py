"""The machine tier's benchmark: edge to audible (and to the driver), the companion against the
bare floor, in the Pi in a box. Prints JSON, as ``companion bench`` does.

    python -m tests.machine.bench [--mode icount|realtime] [--presses 100]
        [--paths dmix1024,dmix256,hw] [--backends stream,simpleaudio] [--hog | --only-hog]
        [--music]
        [--idle SECONDS] [--cut TRIALS] [--edges PRESSES]

``icount`` is the deterministic model (one ~1 GHz core; figures repeat run to run); ``realtime``
is wall-clock time on two slow vCPUs (noisy). Each path and backend runs guest/measure.py in
one booted guest; ``--hog`` adds runs with a CPU hog beside them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from tests.machine.pibox import ROOT, Pibox


def measure(pi: Pibox, script: str = "measure.py", **asked_for: Any) -> dict[str, Any]:
    """guest/measure.py (or another guest script) with these arguments, in the booted guest."""
    asked = json.dumps(asked_for)
    started = time.monotonic()
    done = pi.run([str(ROOT / ".venv/bin/python"), str(ROOT / "tests/machine/guest" / script),
                   asked], env={"PIBOX_ONSET": str(pi.onset), "PIBOX_ROOT": str(ROOT)},
                  cwd=str(ROOT), timeout=7200)
    if done["rc"] != 0:
        raise RuntimeError(f"measure {asked} failed:\n{done['out']}\n{done['err']}")
    result = dict(json.loads(done["out"].strip().splitlines()[-1]))
    result["wall_s"] = round(time.monotonic() - started, 1)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("icount", "realtime"), default="icount")
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--paths", default="dmix1024,dmix256,hw")
    parser.add_argument("--backends", default="stream,simpleaudio")
    parser.add_argument("--hog", action="store_true", help="also each path under a CPU hog")
    parser.add_argument("--only-hog", action="store_true", help="each path under a CPU hog only")
    parser.add_argument("--music", action="store_true",
                        help="also each path with the lever timer's music playing under presses")
    parser.add_argument("--idle", type=float, default=30.0,
                        help="seconds of idle CPU measured per backend (0: none)")
    parser.add_argument("--cut", type=int, default=20,
                        help="sounds stopped 300 ms in, per backend (guest/cut.py; 0: none)")
    parser.add_argument("--edges", type=int, default=200,
                        help="presses timed edge to handler, gpiod against lgpio, with their "
                             "idle wakeups (guest/edges.py; 0: none)")
    args = parser.parse_args(argv)
    runs = []
    with Pibox(mode=args.mode) as pi:
        for path in filter(None, args.paths.split(",")):  # "": none
            for backend in args.backends.split(","):
                for hog in (True,) if args.only_hog else (False, True) if args.hog else (False,):
                    for music in (False, True) if args.music else (False,):
                        result = measure(pi, path=path, backend=backend,
                                         presses=args.presses, hog=hog, music=music)
                        print(json.dumps(result), file=sys.stderr, flush=True)
                        runs.append(result)
        for backend in args.backends.split(",") if args.idle and args.paths else ():
            result = measure(pi, idle=args.idle, backend=backend)
            print(json.dumps(result), file=sys.stderr, flush=True)
            runs.append(result)
        for backend in args.backends.split(",") if args.cut and args.paths else ():
            result = measure(pi, "cut.py", backend=backend, trials=args.cut)
            print(json.dumps(result), file=sys.stderr, flush=True)
            runs.append(result)
        if args.edges:
            result = measure(pi, "edges.py", presses=args.edges, idle=args.idle or 10)
            print(json.dumps(result), file=sys.stderr, flush=True)
            runs.append(result)
    print(json.dumps({"mode": args.mode, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
