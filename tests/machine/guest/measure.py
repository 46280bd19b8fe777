"""Edge to audible, in the guest: the companion against the bare floor, press for press.

Run by tests/machine/bench.py inside the Pi in a box (guest/pi.sh set it up):

    measure.py '{"path": "dmix1024", "backend": "stream", "presses": 100, "hog": false}'

- ``path``: ``dmix1024`` (hardware/asound.conf as shipped: plug + dmix, 1024/16384),
  ``dmix1024q4096`` (1024/4096, the queue before issue 45), ``dmix256`` (256/1024) or ``hw``
  (each side on its own loopback substream through ``plug``, no dmix).
- The companion is ``companion run`` (the block on BCM 26, gpiozero's lgpio factory, the
  ``backend`` asked for); the floor is guest/floor.py (a gpiozero Button on BCM 22 and
  simpleaudio's ``play_buffer``). Every sound is one 120 ms test tone that is loud from its first
  frame (``[audio] sounds_dir``), so both sides' onsets are alike.
- The ear is guest/onset (64-frame periods at SCHED_FIFO on the loopback's capture side). A
  press: the line is pulled low (stamped just before, CLOCK_MONOTONIC), held 50 ms, let go.
  **Audible** is the arrival of the capture period holding the sound's first frame.
- **Handed**: with uprobes on alsa-lib (tracefs, the same clock), the call of the
  ``snd_pcm_writei`` that hands the card the sound's first frames (its entry: simpleaudio
  writes a whole sound in one blocking call, whose return comes after the sound is heard):
  the floor's first write after the edge; the stream backend's first write after its
  press-time ``snd_pcm_rewind``; the simpleaudio backend's first write after the edge.
- **Whole**: the captured frames from the sound's first one equal the sound, sample for sample.
  Per side: ``not_whole`` (sounds that differ anywhere), ``frames_compared`` and
  ``frames_wrong`` (captured frames that differ from the sound's); each damaged press in
  ``damaged`` says where it first differs and, when the rest is the sound shifted, by how much
  (``slip``: +n frames repeated or silence inserted there, -n frames skipped).

Prints one JSON object and writes it to /mnt/out/measure-<path>-<backend>[-hog].json.
"""

from __future__ import annotations

import array
import json
import os
import queue
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agent

ROOT = Path(os.environ.get("PIBOX_ROOT", "/work/main"))
PYTHON = str(ROOT / ".venv/bin/python")
ONSET = os.environ["PIBOX_ONSET"]
RATE, TONE_FRAMES, THRESHOLD = 44100, 5292, 64  # 120 ms
COMPANION_PIN, FLOOR_PIN, LEVER_PIN = 26, 22, 27
MUSIC_AMP = 48
"""With ``music``: the lever's timer plays a square wave this loud (under the onset's threshold)
all along, so each press is mixed with it and still heard, and "whole" allows it (a sample
within MUSIC_AMP of the sound's; a slip or a lost frame of the tone is thousands off)."""
WORK = Path("/run/measure")
TRACE = Path("/sys/kernel/tracing")
LIBASOUND = "/usr/lib/x86_64-linux-gnu/libasound.so.2"


def tone() -> bytes:
    """A 1 kHz-ish square wave at -12 dBFS, loud from frame 0, with a 2 ms fade out."""
    samples = [8000 if (i // 22) % 2 == 0 else -8000 for i in range(TONE_FRAMES)]
    for k in range(88):
        samples[-1 - k] = samples[-1 - k] * k // 88
    return array.array("h", samples).tobytes()


def write_wav(path: Path, data: bytes) -> None:
    import wave

    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(RATE)
        wav.writeframes(data)


def asound(path: str) -> dict[str, str]:
    """/etc/asound.conf for the path, and each side's ALSA ``default`` (a home per side)."""
    shipped = (ROOT / "hardware/asound.conf").read_text()
    conf = shipped.replace('default "MAX98357A"', 'default "Loopback"')
    sizes = {"dmix256": (256, 1024), "dmix1024q4096": (1024, 4096)}.get(path)
    if sizes is not None:
        conf = re.sub(r"period_size \d+", f"period_size {sizes[0]}", conf)
        conf = re.sub(r"buffer_size \d+", f"buffer_size {sizes[1]}", conf)
    Path("/etc/asound.conf").write_text(conf)
    homes = {}
    for side, sub in (("companion", 0), ("floor", 1)):
        home = WORK / f"home-{side}"
        home.mkdir(parents=True, exist_ok=True)
        rc = home / ".asoundrc"
        if path == "hw":
            rc.write_text(f'pcm.!default {{ type plug; slave.pcm "hw:Loopback,0,{sub}" }}\n')
        else:
            rc.unlink(missing_ok=True)
        homes[side] = str(home)
    return homes


class Ear:
    """guest/onset on one capture substream; onsets arrive on a queue as (ns, frame)."""

    def __init__(self, device: str, raw: Path) -> None:
        self.raw = raw
        self.proc = subprocess.Popen([ONSET, device, str(raw), str(THRESHOLD), "40"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        self.onsets: queue.Queue[tuple[int, int]] = queue.Queue()
        self.ready = threading.Event()
        self.tail = ""
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(30):
            raise RuntimeError(f"onset on {device} never started")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("ready"):
                self.ready.set()
            elif line.startswith("onset "):
                _, ns, frame = line.split()
                self.onsets.put((int(ns), int(frame)))
            else:
                self.tail += line

    def next_after(self, edge: int, timeout: float = 5.0) -> tuple[int, int] | None:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                ns, frame = self.onsets.get(timeout=left)
            except queue.Empty:
                return None
            if ns >= edge:
                return ns, frame
        return None

    def stop(self) -> array.array:
        self.proc.terminate()
        self.proc.wait(10)
        return array.array("h", self.raw.read_bytes())[0::2]  # the left channel


def press(pin: int) -> int:
    """A 50 ms press (guest/agent.py's); the edge's CLOCK_MONOTONIC ns."""
    return agent.press(pin, 0.05)


class Probes:
    """uprobes on the entry of alsa-lib's snd_pcm_writei and snd_pcm_rewind."""

    def __init__(self) -> None:
        self.ok = (TRACE / "uprobe_events").exists()
        if not self.ok:
            return
        offsets = _symbol_offsets(LIBASOUND, ("snd_pcm_writei", "snd_pcm_rewind"))
        (TRACE / "trace_clock").write_text("mono")
        (TRACE / "options/record-tgid").write_text("1")
        (TRACE / "buffer_size_kb").write_text("8192")
        (TRACE / "uprobe_events").write_text(
            f"p:pibox/writei {LIBASOUND}:{offsets['snd_pcm_writei']:#x}\n"
            f"p:pibox/rewind {LIBASOUND}:{offsets['snd_pcm_rewind']:#x}\n")
        (TRACE / "events/pibox/enable").write_text("1")
        (TRACE / "trace").write_text("")

    def events(self) -> list[tuple[int, int, str]]:
        """(tgid, ns, "writei" | "rewind"), in order."""
        if not self.ok:
            return []
        (TRACE / "events/pibox/enable").write_text("0")
        found = []
        pattern = re.compile(r"\(\s*(\d+)\)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+): (writei|rewind):")
        for line in (TRACE / "trace").read_text().splitlines():
            m = pattern.search(line)
            if m:
                found.append((int(m[1]), int(m[2]) * 10**9 + int(m[3].ljust(9, "0")), m[4]))
        (TRACE / "uprobe_events").write_text("")
        return found


def _symbol_offsets(lib: str, names: tuple[str, ...]) -> dict[str, int]:
    """File offsets of dynamic symbols (what a uprobe wants), from readelf."""
    symbols = subprocess.run(["readelf", "-W", "--dyn-syms", lib], capture_output=True,
                             text=True, check=True).stdout
    segments = subprocess.run(["readelf", "-W", "-l", lib], capture_output=True, text=True,
                              check=True).stdout
    loads = [(int(f[2], 16), int(f[1], 16), int(f[5], 16)) for f in
             (line.split() for line in segments.splitlines()) if f and f[0] == "LOAD"]
    found = {}
    for line in symbols.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[7].split("@")[0] in names and fields[6] != "UND":
            vaddr = int(fields[1], 16)
            for start, offset, size in loads:
                if start <= vaddr < start + size:
                    found[fields[7].split("@")[0]] = vaddr - start + offset
    return found


def _lost_frames(heard: array.array, frame: int, wanted: array.array) -> int | None:
    """How many of the sound's first frames are missing before what was heard (None: what was
    heard is not the sound's tail either: it was damaged further in)."""
    for lost in range(1, len(wanted) - 64):
        if (heard[frame:frame + 64] == wanted[lost:lost + 64]
                and heard[frame:frame + len(wanted) - lost] == wanted[lost:]):
            return lost
    return None


def _whole(heard: array.array, frame: int, wanted: array.array, slack: int) -> bool:
    got = heard[frame:frame + len(wanted)]
    if not slack:
        return got == wanted
    return len(got) == len(wanted) and all(abs(a - b) <= slack
                                           for a, b in zip(got, wanted, strict=True))


def _damage(heard: array.array, frame: int, wanted: array.array,
            slack: int = 0) -> dict[str, Any]:
    """Where and how the sound heard from ``frame`` differs from ``wanted``."""
    got = heard[frame:frame + len(wanted)]
    wrong = sum(abs(a - b) > slack for a, b in zip(got, wanted, strict=False)) \
        + len(wanted) - len(got)
    first = next((i for i, (a, b) in enumerate(zip(got, wanted, strict=False))
                  if abs(a - b) > slack), len(got))
    slip = None
    for shift in range(1, 1025):
        rest = len(wanted) - first - shift
        if rest < 64:
            break
        if heard[frame + first + shift:frame + first + shift + rest] == wanted[first:first + rest]:
            slip = shift
            break
        if heard[frame + first:frame + first + rest] == wanted[first + shift:first + shift + rest]:
            slip = -shift
            break
    return {"frames_wrong": wrong, "first_wrong": first, "slip": slip}


def http_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


def spread(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    values = sorted(values)
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else values * 99
    return {"n": len(values), "p50": round(statistics.median(values), 3),
            "p90": round(q[89], 3), "p99": round(q[98], 3), "max": round(values[-1], 3)}


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and all its threads so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle(seconds: float, backend: str) -> dict[str, Any]:
    """Idle CPU share of the companion (lgpio factory, ``backend``) and of a bare gpiozero
    Button on the same factory, over the same ``seconds``, side by side."""
    WORK.mkdir(parents=True, exist_ok=True)
    config = WORK / "idle.toml"
    config.write_text(f'[gpio]\npin_factory = "lgpio"\n[audio]\nbackend = "{backend}"\n'
                      f'[data]\ndir = "{WORK / "idle-data"}"\n[web]\nhost = "127.0.0.1"\n'
                      'port = 8081\n[display]\nenabled = false\n[reader]\nenabled = false\n'
                      '[lever]\nenabled = false\n[game]\nplayers = ["Mario", "Luigi"]\n')
    log = WORK / "idle.log"
    with log.open("w") as out:
        companion = subprocess.Popen([PYTHON, "-m", "companion", "run", "--config", str(config)],
                                     cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    button = subprocess.Popen([PYTHON, "-c", "import signal\nfrom gpiozero import Button\n"
                               f"b = Button({FLOOR_PIN}, bounce_time=None)\nprint('ready', "
                               "flush=True)\nsignal.pause()"], stdout=subprocess.PIPE, text=True)
    assert button.stdout is not None and button.stdout.readline().startswith("ready")
    while "companion ready" not in log.read_text():
        if companion.poll() is not None:
            raise RuntimeError(log.read_text())
        time.sleep(0.2)
    time.sleep(5)  # the start's own work is over
    pids = {"companion": companion.pid, "bare_button": button.pid}
    before = {side: cpu_seconds(pid) for side, pid in pids.items()}
    start = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - start
    share = {side: round(100 * (cpu_seconds(pid) - before[side]) / elapsed, 3)
             for side, pid in pids.items()}
    for proc in (companion, button):
        proc.terminate()
        proc.wait(30)
    return {"idle_s": round(elapsed, 1), "backend": backend, "cpu_percent": share}


def main() -> int:
    args = json.loads(sys.argv[1])
    if "idle" in args:
        result = idle(float(args["idle"]), args.get("backend", "stream"))
        print(json.dumps(result))
        return 0
    path, backend, presses = args["path"], args["backend"], int(args["presses"])
    WORK.mkdir(parents=True, exist_ok=True)
    sounds = WORK / "sounds"
    sounds.mkdir(exist_ok=True)
    sound = tone()
    from companion.audio.library import SOUND_NAMES

    for name in SOUND_NAMES:
        write_wav(sounds / f"{name}.wav", sound)
    music = bool(args.get("music"))
    if music:
        write_wav(sounds / "timer_loop.wav", array.array(
            "h", [MUSIC_AMP if (i // 50) % 2 else -MUSIC_AMP for i in range(3 * RATE)]).tobytes())
    (WORK / "floor.raw").write_bytes(sound)
    homes = asound(path)
    config = WORK / "companion.toml"
    config.write_text(f'[gpio]\npin_factory = "lgpio"\n[audio]\nbackend = "{backend}"\n'
                      f'sounds_dir = "{sounds}"\n[data]\ndir = "{WORK / "data"}"\n'
                      '[web]\nhost = "127.0.0.1"\nport = 8080\n[display]\nenabled = false\n'
                      '[reader]\nenabled = false\n[game]\nplayers = ["Mario", "Luigi"]\n'
                      + (f'[lever]\nenabled = true\npin = {LEVER_PIN}\nseconds = 3600\n'
                         'sound = "music"\n' if music else '[lever]\nenabled = false\n'))
    ears = {"companion": Ear("hw:Loopback,1,0", WORK / "heard-0.raw")}
    ears["floor"] = ears["companion"] if path != "hw" else Ear("hw:Loopback,1,1",
                                                              WORK / "heard-1.raw")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log = (WORK / "companion.log").open("w")
    companion = subprocess.Popen([PYTHON, "-m", "companion", "run", "--config", str(config)],
                                 env={**env, "HOME": homes["companion"]}, cwd=ROOT,
                                 stdout=log, stderr=subprocess.STDOUT)
    floor = subprocess.Popen([PYTHON, str(ROOT / "tests/machine/guest/floor.py"),
                              str(FLOOR_PIN), str(WORK / "floor.raw")],
                             env={**env, "HOME": homes["floor"]}, stdout=subprocess.PIPE,
                             text=True)
    assert floor.stdout is not None and floor.stdout.readline().startswith("ready")
    deadline = time.monotonic() + 300
    while "companion ready" not in (WORK / "companion.log").read_text():
        if time.monotonic() > deadline or companion.poll() is not None:
            raise RuntimeError((WORK / "companion.log").read_text())
        time.sleep(0.2)
    if music:  # the lever pulled and let go: an hour of the timer's music
        agent.press(LEVER_PIN, 0.4)
    hog = subprocess.Popen(["sh", "-c", "while :; do :; done"]) if args.get("hog") else None
    pids = {"companion": companion.pid, "floor": floor.pid}
    # Warm up: the first presses read code and sounds over 9p, which a Pi has in its cache.
    for side, pin in (("companion", COMPANION_PIN), ("floor", FLOOR_PIN)) * 3:
        ears[side].next_after(press(pin))
        time.sleep(0.4)
    probes = Probes()
    edges: dict[str, list[tuple[int, tuple[int, int] | None]]] = {"companion": [],
                                                                  "floor": []}
    version = http_json("http://127.0.0.1:8080/api/state")["version"]
    for i in range(presses):
        order = (("companion", COMPANION_PIN), ("floor", FLOOR_PIN))
        for side, pin in order if i % 2 == 0 else order[::-1]:
            edge = press(pin)
            heard = ears[side].next_after(edge)
            edges[side].append((edge, heard))
            if side == "companion":  # the press is banked before the next one
                for _ in range(100):
                    state = http_json("http://127.0.0.1:8080/api/state")
                    if state["version"] != version:
                        version = state["version"]
                        break
                    time.sleep(0.02)
                outcome = state["last_outcome"] or {}
                wait = 0.3 * max(1, outcome.get("coins", 1) if outcome.get("kind") == "coins"
                                 else 1) + 0.25
            else:
                wait = 0.4
            time.sleep(wait)
    events = probes.events()
    if hog is not None:
        hog.kill()
    floor.terminate()
    companion.terminate()
    companion.wait(30)
    floor.wait(30)
    log.close()
    stopped: dict[int, array.array] = {}
    captured = {}
    for side, ear in ears.items():
        if id(ear) not in stopped:
            stopped[id(ear)] = ear.stop()
        captured[side] = stopped[id(ear)]
    wanted = array.array("h", sound)
    result: dict[str, Any] = {"path": path, "backend": backend, "presses": presses,
                              "hog": bool(hog), "music": music, "probes": probes.ok}
    slack = MUSIC_AMP if music else 0
    cuts: list[dict[str, Any]] = []
    for side in ("companion", "floor"):
        heard_pcm = captured[side]
        audible, handed, lost, cut, wrong = [], [], 0, 0, 0
        for edge, heard in edges[side]:
            if heard is None:
                lost += 1
                continue
            ns, frame = heard
            audible.append((ns - edge) / 1e6)
            if not _whole(heard_pcm, frame, wanted, slack):
                cut += 1
                damage = _damage(heard_pcm, frame, wanted, slack)
                wrong += damage["frames_wrong"]
                cuts.append({"side": side, "press": len(audible) - 1,
                             "audible_ms": round((ns - edge) / 1e6, 3),
                             "lost_frames": _lost_frames(heard_pcm, frame, wanted), **damage})
            writes = [(t, kind) for tgid, t, kind in events if tgid == pids[side] and t >= edge]
            if side == "companion" and backend == "stream":
                rewind = next((t for t, kind in writes if kind == "rewind"), None)
                writes = [w for w in writes if rewind is not None and w[0] >= rewind]
            first = next((t for t, kind in writes if kind == "writei"), None)
            if first is not None and first <= ns:
                handed.append((first - edge) / 1e6)
        result[side] = {"audible_ms": spread(audible), "handed_ms": spread(handed),
                        "not_heard": lost, "not_whole": cut,
                        "frames_compared": len(audible) * len(wanted), "frames_wrong": wrong}
    result["damaged"] = cuts[:20]
    text = (WORK / "companion.log").read_text()
    xruns = re.findall(r"audio stream: (\d+) underruns losing sound, (\d+) restarts", text)
    result["companion_xruns"] = int(xruns[-1][0]) if xruns else None
    result["companion_restarts_in_silence"] = int(xruns[-1][1]) if xruns else None
    late = re.findall(r"(\d+) presses overtaken by the card, (\d+) short rewinds", text)
    result["companion_overtaken"] = int(late[-1][0]) if late else None
    result["companion_short_rewinds"] = int(late[-1][1]) if late else None
    step = re.findall(r"position steps of up to (\d+) frames", text)
    result["card_step_frames"] = int(step[-1]) if step else None
    for kind in ("audible_ms", "handed_ms"):
        c, f = result["companion"][kind], result["floor"][kind]
        if c.get("n") and f.get("n"):
            result.setdefault("ratio", {})[kind] = {
                q: round(c[q] / f[q], 3) for q in ("p50", "p90", "p99") if f[q]}
    name = f"measure-{path}-{backend}{'-hog' if hog else ''}{'-music' if music else ''}.json"
    Path("/mnt/out", name).write_text(json.dumps(result, indent=1))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
