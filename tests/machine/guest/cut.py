"""How soon a stopped sound goes quiet, in the guest (the timer's music cut by an outcome).

    cut.py '{"backend": "stream", "trials": 20}'

A 2 s tone starts through the backend (ALSA ``default``: hardware/asound.conf as shipped), is
stopped 300 ms in (stamped just before ``stop()``, CLOCK_MONOTONIC), and guest/onset hears it. The
capture runs without a gap, so a frame's arrival is its onset's arrival plus its distance from
the onset frame: **cut** is from the stop to the arrival of the tone's last loud frame.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure

from companion.audio.pcm import Pcm
from companion.audio.speaker import make_backend


def main() -> int:
    args = json.loads(sys.argv[1])
    backend_name, trials = args["backend"], int(args.get("trials", 20))
    measure.WORK.mkdir(parents=True, exist_ok=True)
    measure.asound("dmix1024")
    tone = measure.tone()
    music = Pcm(tone * 17)  # about 2 s
    ear = measure.Ear("hw:Loopback,1,0", measure.WORK / "cut.raw")
    backend = make_backend(backend_name)
    backend.open()
    heard: list[tuple[int, tuple[int, int] | None]] = []
    for _ in range(trials):
        started = time.monotonic_ns()
        playback = backend.play(music)
        onset = ear.next_after(started)
        time.sleep(0.3)
        stop = time.monotonic_ns()
        playback.stop()
        heard.append((stop, onset))
        time.sleep(0.5)
    backend.close()
    left = ear.stop()
    cuts = []
    for stop, onset in heard:
        if onset is None:
            continue
        ns, frame = onset
        # Up to 450 ms after the stop: the next trial starts 500 ms after it.
        end = frame + min(music.frames, int(((stop - ns) / 1e9 + 0.45) * measure.RATE))
        last = max((i for i in range(frame, min(end, len(left)))
                    if abs(left[i]) > measure.THRESHOLD), default=frame)
        cuts.append((ns + (last - frame) * 1e9 / measure.RATE - stop) / 1e6)
    result = {"backend": backend_name, "trials": trials, "cut_ms": measure.spread(cuts),
              "not_heard": sum(onset is None for _, onset in heard)}
    Path("/mnt/out", f"cut-{backend_name}.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
