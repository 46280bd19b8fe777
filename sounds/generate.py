"""Generate the companion's own sounds (no game audio is ever copied).

Every sound is synthesised from first principles with the standard library only, with a fixed
seed for the little noise it uses, so the WAV files committed beside this script can be rebuilt
at any time:

    python -m companion.builtin_sounds.generate            # rewrite the WAVs in this folder
    python -m companion.builtin_sounds.generate --out DIR  # write them elsewhere

All files are 44.1 kHz, 16-bit PCM, mono, peak-normalised to -1.5 dBFS, with short fades at
both ends so nothing clicks.
"""

from __future__ import annotations

import argparse
import math
import random
import struct
import wave
from collections.abc import Callable, Iterable
from pathlib import Path

RATE = 44100
PEAK_DBFS = -1.5
FADE_SECONDS = 0.005
TWO_PI = 2.0 * math.pi

Samples = list[float]


# ---------------------------------------------------------------- primitives


def silence(seconds: float) -> Samples:
    """``seconds`` of zeros."""
    return [0.0] * round(seconds * RATE)


def mix_into(dest: Samples, src: Samples, at: float, gain: float = 1.0) -> None:
    """Add ``src`` into ``dest`` starting ``at`` seconds, growing ``dest`` as needed."""
    start = round(at * RATE)
    end = start + len(src)
    if end > len(dest):
        dest.extend([0.0] * (end - len(dest)))
    for i, value in enumerate(src):
        dest[start + i] += gain * value


def note_hz(semitones_from_a4: float) -> float:
    """Equal-tempered frequency, A4 = 440 Hz."""
    return 440.0 * 2.0 ** (semitones_from_a4 / 12.0)


def tone(
    freq: float | Callable[[float], float],
    seconds: float,
    partials: Iterable[tuple[float, float, float]] = ((1.0, 1.0, 0.0),),
    attack: float = 0.004,
    decay_tau: float | None = None,
    release: float = 0.02,
    vibrato: tuple[float, float] = (0.0, 0.0),
) -> Samples:
    """An additive tone: ``partials`` are (frequency ratio, amplitude, extra decay per second).

    ``freq`` may be a function of time for glides. ``decay_tau`` gives an exponential decay;
    ``vibrato`` is (rate Hz, depth in semitones).
    """
    parts = list(partials)
    n = round(seconds * RATE)
    phases = [0.0] * len(parts)
    out: Samples = []
    vib_rate, vib_depth = vibrato
    for i in range(n):
        t = i / RATE
        f = freq(t) if callable(freq) else freq
        if vib_depth:
            f *= 2.0 ** (vib_depth * math.sin(TWO_PI * vib_rate * t) / 12.0)
        value = 0.0
        for k, (ratio, amp, extra_decay) in enumerate(parts):
            phases[k] += TWO_PI * f * ratio / RATE
            value += amp * math.exp(-extra_decay * t) * math.sin(phases[k])
        env = min(1.0, t / attack) if attack > 0 else 1.0
        if decay_tau:
            env *= math.exp(-t / decay_tau)
        remaining = seconds - t
        if remaining < release:
            env *= max(0.0, remaining / release)
        out.append(value * env)
    return out


class Resonator:
    """A two-pole band-pass resonator (one formant) whose centre can move every sample."""

    def __init__(self) -> None:
        self.y1 = 0.0
        self.y2 = 0.0

    def step(self, x: float, freq: float, bandwidth: float) -> float:
        r = math.exp(-math.pi * bandwidth / RATE)
        b1 = 2.0 * r * math.cos(TWO_PI * freq / RATE)
        b2 = -r * r
        y = (1.0 - r) * x + b1 * self.y1 + b2 * self.y2
        self.y2, self.y1 = self.y1, y
        return y


def lerp(a: float, b: float, u: float) -> float:
    return a + (b - a) * max(0.0, min(1.0, u))


def finish(samples: Samples) -> Samples:
    """Remove DC, fade both ends and normalise the peak to ``PEAK_DBFS``."""
    if not samples:
        return samples
    mean = sum(samples) / len(samples)
    out = [s - mean for s in samples]
    fade = int(FADE_SECONDS * RATE)
    for i in range(min(fade, len(out))):
        g = i / fade
        out[i] *= g
        out[-1 - i] *= g
    peak = max(abs(s) for s in out) or 1.0
    target = 10.0 ** (PEAK_DBFS / 20.0)
    return [s * target / peak for s in out]


def to_pcm16(samples: Samples) -> bytes:
    """Float samples in [-1, 1] to little-endian signed 16-bit PCM."""
    clipped = (max(-32767, min(32767, round(s * 32767.0))) for s in samples)
    return struct.pack(f"<{len(samples)}h", *clipped)


def write_wav(path: Path, samples: Samples) -> None:
    """Write mono 16-bit PCM at ``RATE``."""
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(RATE)
        wav.writeframes(to_pcm16(samples))


# ---------------------------------------------------------------- the sounds


def coin() -> Samples:
    """A bright, short bell ping (one coin); kept short so pings can be counted."""
    base = note_hz(15)  # C6, a bright glassy ping
    glide = lambda t: base * (0.97 + 0.03 * min(1.0, t / 0.012))  # noqa: E731 - tiny upward chirp
    bell = ((1.0, 1.0, 0.0), (2.0, 0.35, 18.0), (2.76, 0.25, 30.0), (5.4, 0.08, 60.0))
    return tone(glide, 0.14, bell, attack=0.002, decay_tau=0.05, release=0.015)


def power_up() -> Samples:
    """A fast rising sparkle of notes that lands on a shimmering ring."""
    out: Samples = []
    steps = [-9, -5, -2, 3, 7, 10, 15, 19]  # a bright major-pentatonic climb from C4
    at = 0.0
    for semis in steps:
        mix_into(out, tone(note_hz(semis), 0.09, ((1.0, 1.0, 0), (3.0, 0.2, 20)),
                           attack=0.003, decay_tau=0.08, release=0.02), at, 0.6)
        at += 0.055
    ring = tone(note_hz(22), 0.75, ((1.0, 1.0, 0), (2.0, 0.3, 4), (3.0, 0.15, 8)),
                attack=0.01, decay_tau=0.35, release=0.1, vibrato=(9.0, 0.25))
    mix_into(out, ring, at, 0.8)
    fifth = tone(note_hz(15), 0.7, ((1.0, 1.0, 0),), attack=0.02, decay_tau=0.3, release=0.1)
    mix_into(out, fifth, at, 0.35)
    return out


# Vowel formants (Hz) of an adult male voice, with bandwidths.
VOWEL_A = ((730.0, 90.0), (1090.0, 110.0), (2440.0, 160.0))
LIPS = ((300.0, 90.0), (650.0, 110.0), (2200.0, 160.0))


def _laugh_syllable(
    rng: random.Random,
    seconds: float,
    pitch: tuple[float, float],
    onset: str,
    level: float,
) -> Samples:
    """One voiced syllable ("bwa" or "ha") from a growly glottal source through formants."""
    n = int(seconds * RATE)
    breath = int(0.07 * RATE) if onset == "h" else 0
    formants = [Resonator() for _ in VOWEL_A]
    weights = (1.0, 0.55, 0.22)
    phase = 0.0
    sub_phase = 0.0
    jitter = 0.0
    out: Samples = []
    for i in range(n + breath):
        if i < breath:
            # "h": breathy noise through the vowel's formants, swelling into the voice.
            u = i / breath
            src = rng.uniform(-1.0, 1.0) * 0.6 * u
            shape = VOWEL_A
        else:
            j = i - breath
            u = j / n
            f0 = lerp(pitch[0], pitch[1], u)
            jitter = 0.995 * jitter + rng.uniform(-0.5, 0.5) * 0.02
            f0 *= 1.0 + jitter
            phase = (phase + f0 / RATE) % 1.0
            sub_phase = (sub_phase + 0.5 * f0 / RATE) % 1.0
            # A glottal pulse: a sharp closing edge rich in harmonics.
            pulse = (1.0 - 2.0 * phase) if phase < 0.6 else -0.2
            # Growl: the subharmonic flutter of a rough, villainous voice.
            growl = 0.65 + 0.35 * math.sin(TWO_PI * sub_phase)
            src = pulse * growl + rng.uniform(-0.08, 0.08)
            if onset == "b":
                # "bw": lips open out of a closure into the vowel over 80 ms.
                glide = min(1.0, j / (0.08 * RATE))
                shape = tuple(
                    (lerp(lf, vf, glide), lerp(lb, vb, glide))
                    for (lf, lb), (vf, vb) in zip(LIPS, VOWEL_A, strict=True)
                )
                src *= 0.25 + 0.75 * glide
            else:
                shape = VOWEL_A
            # Voice dies away at the end of each "ha".
            src *= 1.0 if u < 0.65 else max(0.0, (1.0 - u) / 0.35)
        value = 0.0
        for res, (freq, bw), w in zip(formants, shape, weights, strict=True):
            value += w * res.step(src, freq, bw)
        out.append(value)
    peak = max(abs(v) for v in out) or 1.0
    # Saturate a little for grit, then scale to this syllable's level.
    return [level * math.tanh(2.2 * v / peak) for v in out]


def bowser() -> Samples:
    """A low, growly, villainous "BWA-HA-HA-HA!" (formant synthesis, our own voice)."""
    rng = random.Random(0xB0_553)
    out: Samples = []
    plan = [
        # seconds, (pitch start, end), onset, level, gap after
        (0.34, (118.0, 98.0), "b", 1.0, 0.07),
        (0.20, (104.0, 92.0), "h", 0.85, 0.05),
        (0.20, (98.0, 86.0), "h", 0.8, 0.05),
        (0.42, (92.0, 66.0), "h", 0.9, 0.0),
    ]
    at = 0.0
    for seconds, pitch, onset, level, gap in plan:
        syl = _laugh_syllable(rng, seconds, pitch, onset, level)
        mix_into(out, syl, at)
        at += len(syl) / RATE + gap
    # A sub-bass rumble under the laugh makes it menacing on a small speaker too.
    rumble = tone(55.0, at, ((1.0, 1.0, 0), (2.0, 0.5, 0)), attack=0.05, release=0.25)
    mix_into(out, rumble, 0.0, 0.12)
    return out


def game_over() -> Samples:
    """A slow, sinking minor phrase that ends on a low, wobbling note."""
    out: Samples = []
    square_ish = ((1.0, 1.0, 0), (3.0, 0.3, 2), (5.0, 0.15, 4), (7.0, 0.07, 6))
    phrase = [(3, 0.22), (-2, 0.22), (-6, 0.22), (-7, 0.3), (-9, 0.3), (-14, 0.95)]
    at = 0.0
    for i, (semis, seconds) in enumerate(phrase):
        last = i == len(phrase) - 1
        note = tone(note_hz(semis), seconds, square_ish, attack=0.01,
                    decay_tau=0.9 if last else 0.5, release=0.25 if last else 0.04,
                    vibrato=(5.5, 0.35) if last else (0.0, 0.0))
        mix_into(out, note, at, 0.7)
        at += seconds
    return out


def timer_tick() -> Samples:
    """A dry woodblock tick for the lever timer."""
    return tone(1850.0, 0.035, ((1.0, 1.0, 0), (0.41, 0.6, 40), (2.7, 0.3, 120)),
                attack=0.001, decay_tau=0.008, release=0.005)


def timer_loop() -> Samples:
    """Two seconds of bouncy 'wiggling worms' music that loops seamlessly."""
    out = silence(2.0)
    beat = 0.125
    melody = [0, 4, 7, 4, 9, 7, 4, 2, 0, 4, 7, 12, 11, 7, 4, 2]
    bass = [-24, -17, -24, -17, -19, -12, -19, -12]
    for i, semis in enumerate(melody):
        n = tone(note_hz(semis + 3), beat * 0.8, ((1.0, 1.0, 0), (2.0, 0.25, 10)),
                 attack=0.005, decay_tau=0.12, release=0.02)
        mix_into(out, n, i * beat, 0.45)
    for i, semis in enumerate(bass):
        n = tone(note_hz(semis + 3), beat * 1.8, ((1.0, 1.0, 0), (2.0, 0.4, 6), (3.0, 0.2, 10)),
                 attack=0.008, decay_tau=0.25, release=0.03)
        mix_into(out, n, i * 2 * beat, 0.5)
    return out[: int(2.0 * RATE)]


def time_up() -> Samples:
    """Three quick rising dings and a long bright bell: time is up, hands off the worms."""
    out: Samples = []
    bell = ((1.0, 1.0, 0), (2.0, 0.4, 3), (3.0, 0.25, 6), (4.2, 0.1, 10))
    for i, semis in enumerate((7, 11, 14)):
        mix_into(out, tone(note_hz(semis), 0.16, bell, attack=0.002, decay_tau=0.08,
                           release=0.03), i * 0.15, 0.7)
    mix_into(out, tone(note_hz(19), 1.0, bell, attack=0.003, decay_tau=0.35, release=0.2,
                       vibrato=(6.0, 0.1)), 0.45, 0.9)
    return out


SOUNDS: dict[str, Callable[[], Samples]] = {
    "coin": coin,
    "power_up": power_up,
    "bowser": bowser,
    "game_over": game_over,
    "timer_tick": timer_tick,
    "timer_loop": timer_loop,
    "time_up": time_up,
}


def generate(out_dir: Path, names: Iterable[str] | None = None) -> list[Path]:
    """Write the named sounds (default: all) as WAV files into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or SOUNDS:
        path = out_dir / f"{name}.wav"
        write_wav(path, finish(SOUNDS[name]()))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"any of {', '.join(SOUNDS)}")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(SOUNDS))
    if unknown:
        parser.error(f"unknown sound(s) {', '.join(unknown)}; known: {', '.join(SOUNDS)}")
    for path in generate(args.out, args.names or None):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
