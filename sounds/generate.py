"""Generate the companion's own sounds (no game audio is ever copied).

Every sound is synthesised from first principles with the standard library only, with a fixed
seed for the little noise it uses, so the WAV files committed beside this script can be rebuilt
at any time:

    python -m companion.builtin_sounds.generate            # rewrite the WAVs in this folder
    python -m companion.builtin_sounds.generate --out DIR  # write them elsewhere

All files are 44.1 kHz, 16-bit PCM, mono, peak-normalised to -1.5 dBFS; each starts and ends
with 2 ms of silence and a short raised-cosine fade, so nothing clicks.
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
EDGE_SECONDS = 0.002
"""The first and last 2 ms of every sound are exact silence: starting or stopping never clicks."""
FADE_SECONDS = 0.004
"""Raised-cosine fade next to each silent edge."""
LEAD_SECONDS = EDGE_SECONDS + FADE_SECONDS
"""Every sound's first onset comes this late, so the edge fade never shaves an attack."""
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


def dc_block(samples: Samples, corner_hz: float = 20.0) -> Samples:
    """A one-pole high-pass that removes any DC offset (silence stays at zero)."""
    pole = math.exp(-TWO_PI * corner_hz / RATE)
    out: Samples = []
    x_prev = y = 0.0
    for x in samples:
        y = x - x_prev + pole * y
        x_prev = x
        out.append(y)
    return out


def lerp(a: float, b: float, u: float) -> float:
    return a + (b - a) * max(0.0, min(1.0, u))


def finish(samples: Samples) -> Samples:
    """Remove DC, silence and fade both edges, and normalise the peak to ``PEAK_DBFS``."""
    if not samples:
        return samples
    mean = sum(samples) / len(samples)
    out = [s - mean for s in samples]
    edge = round(EDGE_SECONDS * RATE)
    fade = round(FADE_SECONDS * RATE)
    for i in range(min(edge + fade, (len(out) + 1) // 2)):
        g = 0.0 if i < edge else 0.5 - 0.5 * math.cos(math.pi * (i - edge + 1) / (fade + 1))
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
    ping = tone(glide, 0.14 - LEAD_SECONDS, bell, attack=0.002, decay_tau=0.05, release=0.015)
    return silence(LEAD_SECONDS) + ping


def power_up() -> Samples:
    """A fast rising sparkle of notes that lands on a shimmering ring."""
    out: Samples = []
    steps = [-9, -5, -2, 3, 7, 10, 15, 19]  # a bright major-pentatonic climb from C4
    at = LEAD_SECONDS
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


# A big voice: formants (Hz) and bandwidths (Hz) a little below an adult man's, so the
# speaker sounds larger than life. Five formants in cascade shape the spectrum like a vocal tract.
VOWEL_AH = ((650.0, 90.0), (1030.0, 100.0), (2300.0, 150.0), (3050.0, 250.0), (3700.0, 300.0))
"""The open "ah" of "ha"."""
LIPS_W = ((280.0, 70.0), (620.0, 90.0), (2150.0, 150.0), (3050.0, 250.0), (3700.0, 300.0))
"""Rounded, nearly closed lips: the "bw" that opens into "bwa"."""
ASPIRATION_F1_BANDWIDTH = 300.0
"""An open glottis damps the first formant during "h"."""
BREATH_LEVEL = 0.28
"""Strength of the "h" breath: clearly heard, yet well below the vowel it leads into."""
RING_SECONDS = 0.02
"""The formants' ringing after each syllable's voice stops (it has died by -50 dB)."""


class Formant:
    """A Klatt-style two-pole resonator with unity gain at 0 Hz, for a cascade vocal tract."""

    def __init__(self) -> None:
        self.y1 = 0.0
        self.y2 = 0.0
        self.a = self.b = self.c = 0.0

    def tune(self, freq: float, bandwidth: float) -> None:
        self.c = -math.exp(-TWO_PI * bandwidth / RATE)
        self.b = 2.0 * math.exp(-math.pi * bandwidth / RATE) * math.cos(TWO_PI * freq / RATE)
        self.a = 1.0 - self.b - self.c

    def step(self, x: float) -> float:
        y = self.a * x + self.b * self.y1 + self.c * self.y2
        self.y2, self.y1 = self.y1, y
        return y


def glottal_flow(phase: float, open_quotient: float, speed_quotient: float) -> float:
    """Rosenberg glottal flow over one period (``phase`` in [0, 1)): opens, closes, rests.

    ``speed_quotient`` is the share of the open phase spent opening; the quick closure is
    the excitation that makes the voice's harmonics.
    """
    opening = open_quotient * speed_quotient
    closing = open_quotient - opening
    if phase < opening:
        return 0.5 * (1.0 - math.cos(math.pi * phase / opening))
    if phase < open_quotient:
        return math.cos(0.5 * math.pi * (phase - opening) / closing)
    return 0.0


def smoothstep(u: float) -> float:
    """0 -> 1 with zero slope at both ends (a click-free envelope segment)."""
    u = max(0.0, min(1.0, u))
    return u * u * (3.0 - 2.0 * u)


def _laugh_syllable(
    rng: random.Random,
    onset: str,
    voiced: float,
    pitch: tuple[float, float],
    level: float,
    growl: float,
) -> Samples:
    """One syllable: "bwa" (``onset`` "b") or "ha" (``onset`` "h") at the given pitch glide.

    A growly glottal source (Rosenberg pulses with jitter, a touch of period doubling, a
    31 Hz rasp and breath noise on every pulse) drives five formants in cascade, as in a
    Klatt synthesiser. "h" is pre-emphasised breath alone through the same vocal tract (its
    first formant damped by the open glottis), swelling into the voice. The vocal tract
    rings out for ``RING_SECONDS`` after the voice stops, so nothing is cut off.
    """
    breath_s = 0.09 if onset == "h" else 0.0
    overlap_s = 0.04  # breath carries on under the voice's onset
    n_breath = round(breath_s * RATE)
    n_voice = round(voiced * RATE)
    tract = [Formant() for _ in VOWEL_AH]
    phase = 0.0
    pulse = 0
    jitter = 0.0
    flow_prev = 0.0
    noise_prev = 0.0
    rise = 0.018 if onset == "h" else 0.012
    fall = 0.45 * voiced
    out: Samples = []
    for i in range(n_breath + n_voice):
        j = i - n_breath  # samples since the voice started
        t = j / RATE
        # Vocal tract shape: lips opening out of "bw", else the open "ah".
        if i % 16 == 0:
            glide = smoothstep(t / 0.09) if onset == "b" else 1.0
            aspirating = j < 0
            for k, (res, (lf, lb), (vf, vb)) in enumerate(
                zip(tract, LIPS_W, VOWEL_AH, strict=True)
            ):
                bw = lerp(lb, vb, glide)
                if k == 0 and aspirating:
                    bw = ASPIRATION_F1_BANDWIDTH
                res.tune(lerp(lf, vf, glide), bw)
        breath = 0.0
        if onset == "h" and j < round(overlap_s * RATE):
            swell = smoothstep(1.6 * i / n_breath) if j < 0 else 1.0 - smoothstep(t / overlap_s)
            # Turbulence is brighter than the voice: pre-emphasise it so "h" hisses.
            noise = rng.gauss(0.0, 1.0)
            breath = BREATH_LEVEL * swell * (noise - 0.9 * noise_prev)
            noise_prev = noise
        voice = 0.0
        if j >= 0:
            u = j / n_voice
            f0 = pitch[0] * (pitch[1] / pitch[0]) ** u
            jitter = 0.97 * jitter + rng.gauss(0.0, 0.004)
            odd = pulse % 2
            # Growl, part 1: a touch of period doubling, every other glottal cycle a little
            # late and weak (kept mild, so the pitch heard stays f0 and not an octave down).
            f0 *= (1.0 + jitter) * (1.0 - 0.02 * growl * odd)
            phase += f0 / RATE
            if phase >= 1.0:
                phase -= 1.0
                pulse += 1
            flow = glottal_flow(phase, 0.55, 0.7) * (1.0 - 0.18 * growl * odd)
            # Growl, part 2: a throaty rasp, the voice fluttering ~31 times a second.
            flow *= 1.0 - 0.22 * growl * (0.5 + 0.5 * math.sin(TWO_PI * 31.0 * t))
            env = smoothstep(t / rise) * smoothstep((voiced - t) / fall)
            if onset == "b":
                env *= 0.35 + 0.65 * smoothstep(t / 0.05)  # "b": lips burst open
            # Radiated flow derivative, plus turbulence that pulses with the flow.
            voice = env * ((flow - flow_prev) * RATE / 1500.0
                           + 0.07 * flow * rng.gauss(0.0, 1.0))
            flow_prev = flow
        value = voice + breath
        for res in tract:
            value = res.step(value)
        out.append(level * value)
    for _ in range(round(RING_SECONDS * RATE)):
        value = 0.0
        for res in tract:
            value = res.step(value)
        out.append(level * value)
    return out


def bowser() -> Samples:
    """A low, growly, villainous "BWA-HA-HA-HA!" (formant synthesis, our own voice)."""
    rng = random.Random(0xB0_553)
    plan = [
        # onset, voiced seconds, (pitch start, end) Hz, level, growl, silence after
        ("b", 0.34, (112.0, 96.0), 1.0, 0.8, 0.06),
        ("h", 0.19, (104.0, 90.0), 0.8, 0.7, 0.04),
        ("h", 0.19, (98.0, 84.0), 0.8, 0.8, 0.04),
        ("h", 0.46, (94.0, 66.0), 0.9, 1.0, 0.0),
    ]
    out = silence(LEAD_SECONDS)
    for onset, voiced, pitch, level, growl, gap in plan:
        out += _laugh_syllable(rng, onset, voiced, pitch, level, growl)
        out += silence(gap)
    out += silence(0.01)
    # Gentle saturation adds grit to the loud parts without touching the quiet gaps.
    peak = max(abs(v) for v in out) or 1.0
    return dc_block([math.tanh(1.6 * v / peak) for v in out])


def game_over() -> Samples:
    """A slow, sinking minor phrase that ends on a low, wobbling note."""
    out: Samples = []
    square_ish = ((1.0, 1.0, 0), (3.0, 0.3, 2), (5.0, 0.15, 4), (7.0, 0.07, 6))
    phrase = [(3, 0.22), (-2, 0.22), (-6, 0.22), (-7, 0.3), (-9, 0.3), (-14, 0.95)]
    at = LEAD_SECONDS
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
    tick = tone(1850.0, 0.035 - LEAD_SECONDS, ((1.0, 1.0, 0), (0.41, 0.6, 40), (2.7, 0.3, 120)),
                attack=0.001, decay_tau=0.008, release=0.005)
    return silence(LEAD_SECONDS) + tick


def timer_loop() -> Samples:
    """Two seconds of bouncy 'wiggling worms' music that loops seamlessly.

    Every note has died away before the loop's end and the first starts just after its start,
    so the seam is silence on both sides, and the beat runs on evenly across it.
    """
    out = silence(2.0)
    beat = 0.125
    melody = [0, 4, 7, 4, 9, 7, 4, 2, 0, 4, 7, 12, 11, 7, 4, 2]
    bass = [-24, -17, -24, -17, -19, -12, -19, -12]
    for i, semis in enumerate(melody):
        n = tone(note_hz(semis + 3), beat * 0.8, ((1.0, 1.0, 0), (2.0, 0.25, 10)),
                 attack=0.005, decay_tau=0.12, release=0.02)
        mix_into(out, n, LEAD_SECONDS + i * beat, 0.45)
    for i, semis in enumerate(bass):
        n = tone(note_hz(semis + 3), beat * 1.8, ((1.0, 1.0, 0), (2.0, 0.4, 6), (3.0, 0.2, 10)),
                 attack=0.008, decay_tau=0.25, release=0.03)
        mix_into(out, n, LEAD_SECONDS + i * 2 * beat, 0.5)
    if len(out) != round(2.0 * RATE):
        raise AssertionError("a note runs past the loop's end")
    return out


def time_up() -> Samples:
    """Three quick rising dings and a long bright bell: time is up, hands off the worms."""
    out: Samples = []
    bell = ((1.0, 1.0, 0), (2.0, 0.4, 3), (3.0, 0.25, 6), (4.2, 0.1, 10))
    for i, semis in enumerate((7, 11, 14)):
        mix_into(out, tone(note_hz(semis), 0.16, bell, attack=0.002, decay_tau=0.08,
                           release=0.03), LEAD_SECONDS + i * 0.15, 0.7)
    mix_into(out, tone(note_hz(19), 1.0, bell, attack=0.003, decay_tau=0.35, release=0.2,
                       vibrato=(6.0, 0.1)), LEAD_SECONDS + 0.45, 0.9)
    return out


def _clack(rng: random.Random, brightness: float, seconds: float) -> Samples:
    """One hit of a plastic die on the table: a short noise burst through two resonances,
    with a millisecond's rise and a low-pass, so it knocks without clicking."""
    n = round(seconds * RATE)
    rise = round(0.0012 * RATE)
    out: Samples = []
    lo, hi = Formant(), Formant()
    lo.tune(850.0 * brightness, 240.0)
    hi.tune(2300.0 * brightness, 500.0)
    smooth = math.exp(-TWO_PI * 4500.0 / RATE)
    y = 0.0
    for i in range(n):
        t = i / RATE
        env = math.exp(-t / 0.006) * (smoothstep(i / rise) if i < rise else 1.0)
        noise = rng.gauss(0.0, 1.0) * env
        value = 0.6 * lo.step(noise) + 0.4 * hi.step(noise)
        y = (1.0 - smooth) * value + smooth * y  # a one-pole low-pass
        out.append(y)
    return out


def dice_roll() -> Samples:
    """A die rolling across the board: a quick scatter of clacks that slows and settles."""
    rng = random.Random(0xD1CE)
    out: Samples = []
    at = LEAD_SECONDS
    gap = 0.04
    hits = 9
    for i in range(hits):
        last = i == hits - 1  # it lands: the loudest, lowest clack
        level = 1.0 if last else 0.45 + 0.35 * rng.random()
        mix_into(out, _clack(rng, 0.75 if last else 0.85 + 0.3 * rng.random(), 0.05), at,
                 level)
        gap *= 1.13  # a rolling die slows down
        at += gap * (0.8 + 0.4 * rng.random())
    return out


def rent() -> Samples:
    """A till's drawer and bell: pay the owner (two bright bell notes after a clunk)."""
    rng = random.Random(0x4E47)
    out: Samples = []
    mix_into(out, _clack(rng, 0.45, 0.06), LEAD_SECONDS, 0.8)  # the drawer's clunk
    bell = ((1.0, 1.0, 0), (2.0, 0.3, 10), (2.76, 0.25, 14))
    mix_into(out, tone(note_hz(14), 0.35, bell, attack=0.004, decay_tau=0.18, release=0.05),
             LEAD_SECONDS + 0.07, 0.7)
    mix_into(out, tone(note_hz(19), 0.55, bell, attack=0.004, decay_tau=0.25, release=0.08),
             LEAD_SECONDS + 0.19, 0.8)
    return out


def block_bump() -> Samples:
    """A block hit from below: a short wooden bonk that drops in pitch."""
    drop = lambda t: 340.0 * (0.55 + 0.45 * math.exp(-t / 0.03))  # noqa: E731 - a pitch glide
    bonk = tone(drop, 0.12, ((1.0, 1.0, 0), (2.3, 0.3, 40), (3.9, 0.12, 80)),
                attack=0.001, decay_tau=0.035, release=0.02)
    return silence(LEAD_SECONDS) + bonk


BUMP_SECONDS = 0.12 + LEAD_SECONDS
"""How long ``block_bump`` lasts: a Coin Block's pings come after it."""


def item_box() -> Samples:
    """An Item Box spinning: a rising, speeding roulette of bright notes that lands."""
    out: Samples = []
    scale = [0, 4, 7, 12, 16, 19, 24]
    at = LEAD_SECONDS
    gap = 0.07
    for i in range(14):
        semis = scale[i % len(scale)] + (3 if i >= 7 else 0)
        mix_into(out, tone(note_hz(semis), 0.06, ((1.0, 1.0, 0), (3.0, 0.25, 30)),
                           attack=0.002, decay_tau=0.03, release=0.01), at, 0.5)
        at += gap
        gap = max(0.035, gap * 0.9)
    mix_into(out, tone(note_hz(27), 0.3, ((1.0, 1.0, 0), (2.0, 0.3, 8)), attack=0.003,
                       decay_tau=0.12, release=0.05, vibrato=(10.0, 0.3)), at + 0.02, 0.8)
    return out


def fanfare() -> Samples:
    """The game is won: a short, bright brass-like fanfare ending on a held chord."""
    out: Samples = []
    brass = ((1.0, 1.0, 0), (2.0, 0.6, 2), (3.0, 0.4, 3), (4.0, 0.25, 4), (5.0, 0.12, 6))
    phrase = [(3, 0.14), (3, 0.14), (3, 0.14), (8, 0.42), (6, 0.14), (8, 0.14), (12, 0.9)]
    at = LEAD_SECONDS
    for i, (semis, seconds) in enumerate(phrase):
        last = i == len(phrase) - 1
        note = tone(note_hz(semis), seconds * (1.0 if last else 0.9), brass, attack=0.015,
                    decay_tau=1.2 if last else 0.5, release=0.3 if last else 0.03,
                    vibrato=(5.0, 0.15) if last else (0.0, 0.0))
        mix_into(out, note, at, 0.55)
        if last:  # the chord under the last note
            for third in (4, 7):
                mix_into(out, tone(note_hz(semis - 12 + third), seconds, brass, attack=0.03,
                                   decay_tau=1.2, release=0.3), at, 0.3)
        at += seconds
    return out


# ---------------------------------------------------------------- Super Mario Bros. Movie edition


def doubles() -> Samples:
    """Doubles, roll again: two quick rising chimes (each a bright major third) that flick up."""
    out: Samples = []
    chime = ((1.0, 1.0, 0), (2.0, 0.3, 12), (3.0, 0.1, 25))
    for i, (root, seconds) in enumerate(((10, 0.2), (17, 0.36))):  # G5 then D6
        for semis, gain in ((root, 0.6), (root + 4, 0.45)):
            base = note_hz(semis)
            flick = lambda t, f=base: f * (0.95 + 0.05 * smoothstep(t / 0.02))  # noqa: E731
            mix_into(out, tone(flick, seconds, chime, attack=0.002, decay_tau=0.08 + 0.06 * i,
                               release=0.04), LEAD_SECONDS + 0.11 * i, gain)
    return out


def toll() -> Samples:
    """Bowser's toll: one heavy stomp, a sub-bass thud with a dull knock and a little gravel.

    The body glides down to 48 Hz; its second and third harmonics let a small speaker,
    which cannot play that low, still sound the weight.
    """
    rng = random.Random(0x7011)
    out: Samples = []
    drop = lambda t: 48.0 + 100.0 * math.exp(-t / 0.035)  # noqa: E731 - the thud sinks
    body = tone(drop, 0.38, ((1.0, 1.0, 0), (2.0, 0.55, 6), (3.0, 0.3, 12)),
                attack=0.003, decay_tau=0.13, release=0.08)
    mix_into(out, body, LEAD_SECONDS, 1.0)
    mix_into(out, _clack(rng, 0.3, 0.06), LEAD_SECONDS, 0.9)  # the foot lands
    at = LEAD_SECONDS + 0.01
    for _ in range(7):  # grit crunching under it
        mix_into(out, _clack(rng, 0.7 + 0.5 * rng.random(), 0.03), at, 0.12 + 0.1 * rng.random())
        at += 0.012 + 0.02 * rng.random()
    # Gentle saturation thickens the thud, as in Bowser's laugh.
    peak = max(abs(v) for v in out) or 1.0
    return dc_block([math.tanh(1.5 * v / peak) for v in out])


def battle_won() -> Samples:
    """A battle won: a brassy arpeggio that climbs two octaves and lands on a held major chord."""
    out: Samples = []
    brass = ((1.0, 1.0, 0), (2.0, 0.7, 3), (3.0, 0.45, 5), (4.0, 0.25, 8), (5.0, 0.1, 12))
    at = LEAD_SECONDS
    for semis in (-7, -3, 0, 5, 9):  # D4 F#4 A4 D5 F#5
        base = note_hz(semis)
        scoop = lambda t, f=base: f * (0.977 + 0.023 * smoothstep(t / 0.025))  # noqa: E731 - lip up
        mix_into(out, tone(scoop, 0.07, brass, attack=0.008, release=0.02), at, 0.5)
        at += 0.075
    for semis, gain in ((12, 0.5), (9, 0.3), (5, 0.3), (-7, 0.25)):  # A5 over D major
        mix_into(out, tone(note_hz(semis), 0.6, brass, attack=0.012, decay_tau=0.6,
                           release=0.25, vibrato=(5.5, 0.12) if semis == 12 else (0.0, 0.0)),
                 at, gain)
    return out


def battle_lost() -> Samples:
    """A battle lost: a muted horn sinking through a diminished chord, each note sagging flat."""
    out: Samples = []
    muted = ((1.0, 1.0, 0), (2.0, 0.5, 10), (3.0, 0.25, 18), (4.0, 0.1, 25))
    phrase = [(2, 0.15), (-1, 0.15), (-4, 0.15), (-10, 0.45)]  # B4 G#4 F4 B3
    at = LEAD_SECONDS
    for i, (semis, seconds) in enumerate(phrase):
        last = i == len(phrase) - 1
        base = note_hz(semis)
        flat, span = (0.083, seconds) if last else (0.023, 0.12)  # 1.5 or 0.4 semitone
        sag = lambda t, f=base, d=flat, s=span: f * (1.0 - d * smoothstep(t / s))  # noqa: E731
        mix_into(out, tone(sag, seconds * (1.0 if last else 0.92), muted, attack=0.012,
                           decay_tau=0.45 if last else 0.3, release=0.2 if last else 0.03,
                           vibrato=(4.5, 0.2) if last else (0.0, 0.0)), at, 0.6)
        at += seconds
    return out


def piranha() -> Samples:
    """A Piranha Plant: three snappy chomps, each a knock of teeth over a gulp that drops."""
    rng = random.Random(0xC40B)
    out: Samples = []
    for i, (at, level) in enumerate(((0.0, 0.7), (0.14, 0.75), (0.3, 1.0))):
        start = 190.0 + 30.0 * i
        gulp = lambda t, f=start: f * (0.4 + 0.6 * math.exp(-t / 0.025))  # noqa: E731
        mix_into(out, tone(gulp, 0.1, ((1.0, 1.0, 0), (2.0, 0.5, 20), (3.0, 0.3, 40)),
                           attack=0.002, decay_tau=0.04, release=0.02),
                 LEAD_SECONDS + at, 0.8 * level)
        mix_into(out, _clack(rng, 1.1 + 0.1 * i, 0.04), LEAD_SECONDS + at, level)
    out += silence(0.04)
    return out


def super_star() -> Samples:
    """A Super Star: a chime-tree sweep up into high twinkles that sparkle away."""
    rng = random.Random(0x57A2)
    out: Samples = []
    ting = ((1.0, 1.0, 0), (2.0, 0.12, 30))
    pentatonic = [0, 2, 4, 7, 9]
    at = LEAD_SECONDS
    for i in range(15):  # the sweep: C5 up to A7, ever quicker
        semis = 3 + 12 * (i // 5) + pentatonic[i % 5]
        mix_into(out, tone(note_hz(semis), 0.2, ting, attack=0.002, decay_tau=0.07,
                           release=0.05), at, 0.35 + 0.02 * i)
        at += 0.024 - 0.0007 * i
    for _ in range(14):  # then twinkles scattered over the top, fading
        semis = rng.choice((22, 24, 27, 29, 31, 34))  # G6 to G7: the sparkle stays below 3.2 kHz
        at += 0.025 + 0.015 * rng.random()
        mix_into(out, tone(note_hz(semis), 0.12, ting, attack=0.002, decay_tau=0.035,
                           release=0.04), at, 0.45 * math.exp(-(at - 0.4) / 0.3))
    return out


def jail() -> Samples:
    """A cell door clanks shut (inharmonic iron partials ring and die), then the latch clicks."""
    rng = random.Random(0x1A11)
    out: Samples = []
    iron = ((1.0, 1.0, 4), (2.32, 0.7, 8), (3.87, 0.5, 12), (5.41, 0.3, 18), (6.93, 0.2, 25))
    mix_into(out, tone(196.0, 0.4, iron, attack=0.001, decay_tau=0.12, release=0.08),
             LEAD_SECONDS, 0.8)
    mix_into(out, tone(262.0, 0.3, iron, attack=0.001, decay_tau=0.08, release=0.06),
             LEAD_SECONDS + 0.004, 0.4)  # a second bar, a little higher
    mix_into(out, _clack(rng, 0.6, 0.05), LEAD_SECONDS, 0.9)  # the door strikes the frame
    latch = LEAD_SECONDS + 0.44
    mix_into(out, _clack(rng, 1.5, 0.04), latch, 0.6)  # the latch drops in
    mix_into(out, tone(1480.0, 0.08, ((1.0, 1.0, 0), (2.7, 0.3, 40)), attack=0.001,
                       decay_tau=0.02, release=0.02), latch, 0.25)
    out += silence(0.03)
    return out


# ---------------------------------------------------------------- Monopoly Gamer / Mario Kart


def _clink(rng: random.Random, freq: float, seconds: float) -> Samples:
    """One coin striking: an inharmonic metal ping, a hair detuned so no two are alike."""
    f = freq * (0.98 + 0.04 * rng.random())
    metal = ((1.0, 1.0, 0), (1.48, 0.45, 14), (2.09, 0.22, 26))
    return tone(f, seconds, metal, attack=0.0015, decay_tau=0.045, release=0.02)


def _noise_band(rng: random.Random, seconds: float, centre: Callable[[float], float],
                bandwidth: float, level: Callable[[float], float]) -> Samples:
    """Noise through a resonator whose centre glides, then a low-pass: a whoosh or a hiss."""
    res = Formant()
    smooth = math.exp(-TWO_PI * 3500.0 / RATE)
    y = 0.0
    out: Samples = []
    for i in range(round(seconds * RATE)):
        t = i / RATE
        if i % 16 == 0:
            res.tune(centre(t), bandwidth)
        value = res.step(rng.gauss(0.0, 1.0) * level(t))
        y = (1.0 - smooth) * value + smooth * y
        out.append(y)
    return out


def coin_drop() -> Samples:
    """Coins dropped on the board: three coins clink down, each bouncing to a rest."""
    rng = random.Random(0xC0D2)
    out: Samples = []
    for start, freq, level in ((0.0, 1560.0, 1.0), (0.09, 1320.0, 0.8), (0.2, 1750.0, 0.7)):
        at, gap = LEAD_SECONDS + start, 0.055
        for bounce in range(5):
            gain = level * 0.55 ** bounce
            mix_into(out, _clink(rng, freq, 0.12), at, 0.5 * gain)
            mix_into(out, _clack(rng, 1.3 + 0.2 * rng.random(), 0.03), at, 0.25 * gain)
            at += gap
            gap *= 0.62  # each bounce lower and quicker, as a coin settles
    out += silence(0.03)
    return out


def scoop() -> Samples:
    """A pile of coins scooped up: a quickening, rising shuffle of pings gathered in."""
    rng = random.Random(0x5C00)
    out: Samples = []
    at, gap = LEAD_SECONDS, 0.05
    for i in range(13):  # the pings climb about an octave as the pile comes in
        freq = 1050.0 * 2.0 ** (i / 13.0 + 0.06 * (rng.random() - 0.5))
        mix_into(out, _clink(rng, freq, 0.09), at, 0.25 + 0.025 * i)
        mix_into(out, _clack(rng, 1.0 + 0.4 * rng.random(), 0.03), at + 0.012,
                 0.12 + 0.1 * rng.random())  # coins sliding over each other
        at += gap
        gap = max(0.024, gap * 0.9)
    for freq, gain in ((2100.0, 0.55), (1580.0, 0.45)):  # gathered in: one bright chink
        mix_into(out, _clink(rng, freq, 0.16), at + 0.02, gain)
    return out


def shell() -> Samples:
    """A shell thrown: a spinning whoosh that rises and speeds up, then a hard knock."""
    rng = random.Random(0x5E11)
    out: Samples = []
    fly = 0.36
    spin = lambda t: 0.55 + 0.45 * math.sin(TWO_PI * (9.0 * t + 14.0 * t * t))  # noqa: E731
    swell = lambda t: spin(t) * smoothstep(t / 0.12) * (0.4 + 0.6 * t / fly)  # noqa: E731
    whoosh = _noise_band(rng, fly, lambda t: 450.0 + 1400.0 * t / fly, 350.0, swell)
    mix_into(out, whoosh, LEAD_SECONDS, 0.6)
    hit = LEAD_SECONDS + fly
    drop = lambda t: 90.0 + 210.0 * math.exp(-t / 0.025)  # noqa: E731 - the knock's body
    mix_into(out, tone(drop, 0.22, ((1.0, 1.0, 0), (2.0, 0.5, 10), (3.1, 0.3, 25)),
                       attack=0.001, decay_tau=0.06, release=0.05), hit, 1.0)
    mix_into(out, _clack(rng, 0.55, 0.06), hit, 1.2)  # shell on shell: the crack
    mix_into(out, _clack(rng, 0.9, 0.04), hit + 0.004, 0.5)
    out += silence(0.02)
    peak = max(abs(v) for v in out) or 1.0
    return dc_block([math.tanh(1.5 * v / peak) for v in out])


def blooper() -> Samples:
    """A squid's ink squirt: a short wet spurt, a wobbling blorp that sinks, and bubbles."""
    rng = random.Random(0xB100)
    out: Samples = []
    spurt = _noise_band(rng, 0.07, lambda t: 900.0 - 3000.0 * t, 500.0,
                        lambda t: smoothstep(t / 0.01) * math.exp(-t / 0.025))
    mix_into(out, spurt, LEAD_SECONDS, 0.5)
    sink = lambda t: (110.0 + 430.0 * math.exp(-t / 0.12)) * (  # noqa: E731
        1.0 + 0.07 * math.sin(TWO_PI * 26.0 * t))  # the wet wobble
    mix_into(out, tone(sink, 0.42, ((1.0, 1.0, 0), (2.0, 0.45, 6), (3.0, 0.2, 10)),
                       attack=0.012, decay_tau=0.2, release=0.08), LEAD_SECONDS + 0.02, 1.0)
    at = LEAD_SECONDS + 0.12
    for _ in range(6):  # bubbles rise in pitch as they pop
        base = 280.0 + 380.0 * rng.random()
        rise = lambda t, f=base: f * (1.0 + 6.0 * t)  # noqa: E731
        mix_into(out, tone(rise, 0.04, attack=0.003, decay_tau=0.015, release=0.01), at,
                 0.35 * rng.random() + 0.2)
        at += 0.04 + 0.04 * rng.random()
    out += silence(0.02)
    return out


def pow_block() -> Samples:
    """A POW block / lightning: a deep boom and a falling zap, a crackle, then a shaking rumble."""
    rng = random.Random(0x0B0)
    out: Samples = []
    boom = lambda t: 42.0 + 150.0 * math.exp(-t / 0.04)  # noqa: E731
    mix_into(out, tone(boom, 0.6, ((1.0, 1.0, 0), (2.0, 0.6, 4), (3.0, 0.35, 8)),
                       attack=0.002, decay_tau=0.2, release=0.12), LEAD_SECONDS, 1.0)
    zap = lambda t: 180.0 + 1300.0 * math.exp(-t / 0.05)  # noqa: E731 - the bolt falls
    mix_into(out, tone(zap, 0.2, ((1.0, 1.0, 0), (2.0, 0.4, 10), (3.0, 0.2, 20)),
                       attack=0.002, decay_tau=0.07, release=0.04), LEAD_SECONDS, 0.35)
    mix_into(out, _clack(rng, 0.4, 0.07), LEAD_SECONDS, 1.0)
    at = LEAD_SECONDS + 0.01
    while at < LEAD_SECONDS + 0.45:  # the crackle, thinning out
        fade = math.exp(-(at - LEAD_SECONDS) / 0.18)
        mix_into(out, _clack(rng, 0.9 + 0.8 * rng.random(), 0.025), at,
                 (0.15 + 0.35 * rng.random()) * fade)
        at += 0.008 + 0.03 * rng.random()
    shake = tone(58.0, 0.6, ((1.0, 1.0, 0), (2.0, 0.7, 3), (3.0, 0.4, 6)),
                 attack=0.03, decay_tau=0.22, release=0.15)
    shake = [v * (0.5 + 0.5 * math.sin(TWO_PI * 13.0 * i / RATE)) for i, v in enumerate(shake)]
    mix_into(out, shake, LEAD_SECONDS + 0.06, 0.7)  # the board shakes
    out += silence(0.02)
    peak = max(abs(v) for v in out) or 1.0
    return dc_block([math.tanh(1.7 * v / peak) for v in out])


def boss_won() -> Samples:
    """A Boss beaten: a rising brass call, a lift through the flat seventh, a major chord."""
    out: Samples = []
    brass = ((1.0, 1.0, 0), (2.0, 0.65, 3), (3.0, 0.4, 5), (4.0, 0.2, 8))
    phrase = [(-2, 0.08), (3, 0.08), (7, 0.08), (10, 0.24), (7, 0.08), (10, 0.08)]
    at = LEAD_SECONDS
    for semis, seconds in phrase:  # G4 C5 E5 G5, then E5 G5: "to arms!"
        mix_into(out, tone(note_hz(semis), seconds * 0.9, brass, attack=0.01,
                           decay_tau=0.5, release=0.025), at, 0.55)
        at += seconds
    for semis, gain in ((13, 0.5), (8, 0.3), (5, 0.3), (-11, 0.3)):  # Bb major: the lift
        mix_into(out, tone(note_hz(semis), 0.15, brass, attack=0.01, release=0.03), at, gain)
    at += 0.16
    for semis, gain in ((15, 0.5), (10, 0.3), (7, 0.3), (3, 0.25), (-9, 0.3)):  # C major
        mix_into(out, tone(note_hz(semis), 0.45, brass, attack=0.012, decay_tau=0.6,
                           release=0.22, vibrato=(5.5, 0.12) if semis == 15 else (0.0, 0.0)),
                 at, gain)
    return out


def boss_lost() -> Samples:
    """A Boss fight lost: a low reedy "nyah-nyaah", two notes a tritone apart, the last sagging."""
    out: Samples = []
    reed = ((1.0, 1.0, 0), (2.0, 0.7, 8), (3.0, 0.6, 12), (4.0, 0.3, 16), (5.0, 0.2, 22))
    first = note_hz(-16)  # F3
    mix_into(out, tone(first, 0.22, reed, attack=0.015, decay_tau=0.4, release=0.04),
             LEAD_SECONDS, 0.7)
    second = note_hz(-22)  # B2, sagging a semitone as it mocks
    sag = lambda t: second * (1.0 - 0.056 * smoothstep((t - 0.15) / 0.35))  # noqa: E731
    mix_into(out, tone(sag, 0.52, reed, attack=0.02, decay_tau=0.6, release=0.18,
                       vibrato=(6.5, 0.25)), LEAD_SECONDS + 0.26, 0.8)
    return out


def race_countdown() -> Samples:
    """A race start: three short low beeps a beat apart, then one long high beep: go!"""
    out: Samples = []
    beep = ((1.0, 1.0, 0), (3.0, 0.25, 0), (5.0, 0.08, 0))  # a soft square
    for i in range(3):
        mix_into(out, tone(note_hz(-2), 0.2, beep, attack=0.005, decay_tau=0.4, release=0.02),
                 LEAD_SECONDS + 0.6 * i, 0.7)
    mix_into(out, tone(note_hz(10), 0.58, beep, attack=0.005, decay_tau=1.5, release=0.06),
             LEAD_SECONDS + 1.8, 0.8)
    return out


def race_finish() -> Samples:
    """A race finished: a quick run up, two stabs, and a trilling bright chord: the flag falls."""
    out: Samples = []
    bright = ((1.0, 1.0, 0), (2.0, 0.5, 4), (3.0, 0.3, 8))
    at = LEAD_SECONDS
    for semis in (-2, 0, 2, 3, 5, 7, 9, 10):  # G4 up to G5, quick as a lap
        mix_into(out, tone(note_hz(semis), 0.05, bright, attack=0.004, decay_tau=0.05,
                           release=0.015), at, 0.45)
        at += 0.04
    for _ in range(2):  # two stabs of C major
        for semis, gain in ((15, 0.45), (10, 0.3), (7, 0.3), (-9, 0.3)):
            mix_into(out, tone(note_hz(semis), 0.09, bright, attack=0.004, release=0.03),
                     at + 0.02, gain)
        at += 0.14
    trill_at = at + 0.02
    for i in range(12):  # a trill on top of the held chord, waving like a flag
        semis = 19 if i % 2 == 0 else 17  # E6 and D6
        mix_into(out, tone(note_hz(semis), 0.055, ((1.0, 1.0, 0), (2.0, 0.2, 10)),
                           attack=0.004, release=0.02), trill_at + 0.05 * i,
                 0.35 * (1.0 - i / 16.0))
    for semis, gain in ((15, 0.45), (10, 0.3), (7, 0.3), (3, 0.25), (-9, 0.3)):
        mix_into(out, tone(note_hz(semis), 0.82, bright, attack=0.01, decay_tau=0.6,
                           release=0.3, vibrato=(6.0, 0.1) if semis == 15 else (0.0, 0.0)),
                 trill_at, gain)
    return out


SOUNDS: dict[str, Callable[[], Samples]] = {
    "coin": coin,
    "power_up": power_up,
    "bowser": bowser,
    "game_over": game_over,
    "timer_tick": timer_tick,
    "timer_loop": timer_loop,
    "time_up": time_up,
    "dice_roll": dice_roll,
    "rent": rent,
    "block_bump": block_bump,
    "item_box": item_box,
    "fanfare": fanfare,
    "doubles": doubles,
    "toll": toll,
    "battle_won": battle_won,
    "battle_lost": battle_lost,
    "piranha": piranha,
    "super_star": super_star,
    "jail": jail,
    "coin_drop": coin_drop,
    "scoop": scoop,
    "shell": shell,
    "blooper": blooper,
    "pow": pow_block,
    "boss_won": boss_won,
    "boss_lost": boss_lost,
    "race_countdown": race_countdown,
    "race_finish": race_finish,
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
