"""The committed built-in sounds meet the issue's requirements, measured on the real WAV files.

Each property is measured, not mocked: the files in ``sounds/`` are read with :mod:`wave`,
regenerated into a temporary folder, and the coin outcomes are taken from the runtime
:class:`~companion.audio.library.SoundLibrary`. The last tests feed the measuring helpers
deliberately broken audio, to show that every check here can fail.
"""

from __future__ import annotations

import array
import math
import wave
from dataclasses import dataclass
from itertools import pairwise
from operator import mul
from pathlib import Path

import pytest
from companion.builtin_sounds.generate import SOUNDS, generate

from companion.audio.library import SoundLibrary
from companion.core.outcomes import Kind, Outcome

RATE = 44100
SOUNDS_DIR = Path(__file__).resolve().parents[1] / "sounds"
NAMES = ("coin", "power_up", "bowser", "game_over", "timer_tick", "timer_loop", "time_up",
         "dice_roll", "rent", "block_bump", "item_box", "fanfare", "doubles", "toll",
         "battle_won", "battle_lost", "piranha", "super_star", "jail", "coin_drop", "scoop",
         "shell", "blooper", "pow", "boss_won", "boss_lost", "race_countdown", "race_finish")

FULL_SCALE = 32768.0
MAX_PEAK = FULL_SCALE * 10.0 ** (-1.0 / 20.0)  # -1 dBFS
MIN_PEAK = FULL_SCALE * 10.0 ** (-6.0 / 20.0)  # normalised: not accidentally quiet
EDGE_SAMPLES = round(0.002 * RATE)  # the first and last 2 ms ...
EDGE_LEVEL = 33  # ... stay below -60 dBFS
MAX_JUMP = 16384  # no sample-to-sample jump of half full scale
MAX_KINK = 4000  # third difference: a step of ~2000 LSB (-24 dBFS) shows up as ~4000

MS = RATE / 1000  # samples per millisecond


def read(path: Path) -> array.array:
    """The samples of a WAV that must be 16-bit PCM, mono, 44.1 kHz."""
    with wave.open(str(path), "rb") as wav:
        assert wav.getcomptype() == "NONE", f"{path.name}: not PCM"
        assert wav.getsampwidth() == 2, f"{path.name}: not 16-bit"
        assert wav.getnchannels() == 1, f"{path.name}: not mono"
        assert wav.getframerate() == RATE, f"{path.name}: not 44.1 kHz"
        raw = wav.readframes(wav.getnframes())
    samples = array.array("h", raw)
    assert len(samples) > 0, f"{path.name}: empty"
    return samples


def pcm_samples(data: bytes) -> array.array:
    return array.array("h", data)


def edge_level(samples: array.array) -> int:
    """Loudest sample in the first and last 2 ms."""
    return max(max(map(abs, samples[:EDGE_SAMPLES])), max(map(abs, samples[-EDGE_SAMPLES:])))


def clicks(samples: array.array) -> list[int]:
    """Indices of jumps a smooth (band-limited, faded) sound cannot make.

    A click is a step: a big first difference, or a spike in the third difference that a
    step of only a couple of thousand LSB makes even inside loud music, while the
    third difference of our tones (all below 7 kHz) stays far smaller.
    """
    s = samples
    jumps = [i for i in range(len(s) - 1) if abs(s[i + 1] - s[i]) > MAX_JUMP]
    kinks = [
        i
        for i in range(len(s) - 3)
        if abs(s[i + 3] - 3 * s[i + 2] + 3 * s[i + 1] - s[i]) > MAX_KINK
    ]
    return jumps + kinks


def envelope(samples: array.array, window: int) -> list[float]:
    """RMS of consecutive windows of ``window`` samples."""
    return [
        math.sqrt(sum(v * v for v in samples[i : i + window]) / window)
        for i in range(0, len(samples) - window + 1, window)
    ]


def runs(flags: list[bool]) -> list[tuple[int, int]]:
    """[start, end) index ranges where ``flags`` is true."""
    out = []
    start = None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            out.append((start, i))
            start = None
    return out


def db(x: float) -> float:
    return 10.0 ** (x / 20.0)


# ---------------------------------------------------------------- voice analysis


@dataclass(frozen=True)
class Syllable:
    """Sample ranges of one syllable: all of its sound, and its loud voiced core."""

    start: int
    core_start: int
    core_end: int
    end: int

    @property
    def lead_ms(self) -> float:
        return (self.core_start - self.start) / MS


SYLLABLE_WINDOW = round(10 * MS)
SOUNDING_DB = -30.0  # below this (re the loudest window) is a gap between syllables
VOICED_DB = -12.0  # above this is the voiced vowel


def syllables(samples: array.array) -> list[Syllable]:
    """Syllables: sounding stretches (10 ms RMS) split by low-energy gaps, min 30 ms long."""
    rms = envelope(samples, SYLLABLE_WINDOW)
    loudest = max(rms)
    found = []
    for a, b in runs([r > loudest * db(SOUNDING_DB) for r in rms]):
        if b - a < 3:
            continue
        voiced = [i for i in range(a, b) if rms[i] > loudest * db(VOICED_DB)]
        if not voiced:
            continue
        found.append(Syllable(a * SYLLABLE_WINDOW, voiced[0] * SYLLABLE_WINDOW,
                              (voiced[-1] + 1) * SYLLABLE_WINDOW, b * SYLLABLE_WINDOW))
    return found


def periodicity(x: list[float], lo_hz: float = 40.0, hi_hz: float = 400.0) -> tuple[float, float]:
    """(f0 in Hz, strength 0..1) by normalised autocorrelation.

    Takes the shortest lag whose correlation is within 10% of the best one, the usual guard
    against naming a sub-octave (period doubling) as the pitch.
    """
    mean = sum(x) / len(x)
    x = [v - mean for v in x]
    lo, hi = int(RATE / hi_hz), int(RATE / lo_hz)
    n = len(x) - hi
    head = x[:n]
    e_head = sum(v * v for v in head)
    e_tail = sum(v * v for v in x[lo : lo + n])
    corr = {}
    for lag in range(lo, hi + 1):
        corr[lag] = sum(map(mul, head, x[lag : lag + n])) / math.sqrt(e_head * e_tail or 1.0)
        if lag + n < len(x):
            e_tail += x[lag + n] ** 2 - x[lag] ** 2
    best = max(corr.values())
    for lag in range(lo + 1, hi):
        c = corr[lag]
        if c >= 0.9 * best and c >= corr[lag - 1] and c >= corr[lag + 1]:
            return RATE / lag, c
    return RATE / max(corr, key=corr.__getitem__), best


def spectral_peak_hz(x: list[float], lo: float = 80.0, hi: float = 4000.0) -> float:
    """Frequency (25 Hz grid) with the most energy in a Hann-windowed stretch."""
    n = len(x)
    w = [v * (0.5 - 0.5 * math.cos(2.0 * math.pi * i / (n - 1))) for i, v in enumerate(x)]
    best, best_f = -1.0, 0.0
    f = lo
    while f <= hi:
        coeff = 2.0 * math.cos(2.0 * math.pi * f / RATE)  # Goertzel
        s1 = s2 = 0.0
        for v in w:
            s1, s2 = v + coeff * s1 - s2, s1
        power = s1 * s1 + s2 * s2 - coeff * s1 * s2
        if power > best:
            best, best_f = power, f
        f += 25.0
    return best_f


def brightness(x: list[float]) -> float:
    """Energy of the first difference over energy: higher for hiss than for a voiced vowel."""
    diff = sum((x[i + 1] - x[i]) ** 2 for i in range(len(x) - 1))
    return diff / (sum(v * v for v in x) or 1.0)


def middle(samples: array.array, syllable: Syllable, seconds: float) -> list[float]:
    half = round(seconds * RATE / 2)
    mid = (syllable.core_start + syllable.core_end) // 2
    return [float(v) for v in samples[mid - half : mid + half]]


# ---------------------------------------------------------------- coin pings


PING_WINDOW = round(5 * MS)
PING_SILENCE_DB = -40.0  # quieter than this (re the loudest window) counts as silence


def pings(samples: array.array) -> list[tuple[float, float]]:
    """(start, end) seconds of each energy burst, split by silence."""
    rms = envelope(samples, PING_WINDOW)
    loudest = max(rms)
    step = PING_WINDOW / RATE
    return [(a * step, b * step) for a, b in runs([r > loudest * db(PING_SILENCE_DB)
                                                   for r in rms])]


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def committed() -> dict[str, array.array]:
    return {name: read(SOUNDS_DIR / f"{name}.wav") for name in NAMES}


@pytest.fixture(scope="module")
def laugh(committed: dict[str, array.array]) -> array.array:
    return committed["bowser"]


@pytest.fixture(scope="module")
def library() -> SoundLibrary:
    return SoundLibrary()


# ---------------------------------------------------------------- the files


def test_the_sounds_are_the_generators_sounds() -> None:
    assert set(NAMES) == set(SOUNDS)


@pytest.mark.parametrize("name", NAMES)
def test_file_exists_as_16_bit_pcm_mono_44k1(name: str) -> None:
    path = SOUNDS_DIR / f"{name}.wav"
    assert path.is_file(), f"missing {path}"
    read(path)  # asserts the format
    header = path.read_bytes()[:22]  # the wave module's canonical header: fmt chunk at 12
    assert header[12:16] == b"fmt " and header[20:22] == b"\x01\x00", "not WAVE_FORMAT_PCM"


@pytest.mark.parametrize("name", NAMES)
def test_peak_is_at_most_minus_1_dbfs(name: str, committed: dict[str, array.array]) -> None:
    peak = max(map(abs, committed[name]))
    assert peak <= MAX_PEAK, f"{name}: peak {20 * math.log10(peak / FULL_SCALE):.2f} dBFS"
    assert peak >= MIN_PEAK, f"{name}: peak {20 * math.log10(peak / FULL_SCALE):.2f} dBFS"


@pytest.mark.parametrize("name", NAMES)
def test_starts_and_ends_in_silence(name: str, committed: dict[str, array.array]) -> None:
    assert edge_level(committed[name]) <= EDGE_LEVEL


@pytest.mark.parametrize("name", NAMES)
def test_has_no_clicks(name: str, committed: dict[str, array.array]) -> None:
    found = clicks(committed[name])
    assert not found, f"{name}: clicks at {[round(i / RATE, 4) for i in found[:5]]} s"


def test_regeneration_reproduces_the_committed_files(
    tmp_path: Path, committed: dict[str, array.array]
) -> None:
    written = generate(tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{name}.wav" for name in NAMES)
    for name in NAMES:
        fresh = read(tmp_path / f"{name}.wav")
        old = committed[name]
        assert len(fresh) == len(old), f"{name}: {len(fresh)} frames, committed {len(old)}"
        worst = max(abs(a - b) for a, b in zip(fresh, old, strict=True))
        assert worst <= 1, f"{name}: differs by up to {worst} LSB; rerun the generator"


# ---------------------------------------------------------------- timer loop


def test_timer_loop_is_two_seconds_and_its_seam_is_continuous(
    committed: dict[str, array.array],
) -> None:
    loop = committed["timer_loop"]
    assert len(loop) == 2 * RATE
    assert abs(loop[0]) <= EDGE_LEVEL and abs(loop[-1]) <= EDGE_LEVEL
    seam = loop[-RATE // 20 :] + loop[: RATE // 20]
    assert not clicks(seam)


def test_timer_loop_seam_keeps_the_beat(committed: dict[str, array.array]) -> None:
    """The silence across the seam is no longer than the note gaps inside the loop."""
    loop = committed["timer_loop"]
    twice = loop + loop
    window = round(MS)
    rms = envelope(twice, window)
    loudest = max(rms)
    gaps = [(a, b) for a, b in runs([r <= loudest * db(-40.0) for r in rms])
            if a > 0 and b < len(rms)]
    seam = len(loop) // window
    at_seam = [b - a for a, b in gaps if a <= seam <= b]
    inside = [b - a for a, b in gaps if b < seam]
    assert at_seam and inside
    assert at_seam[0] <= max(inside) + 2, f"seam gap {at_seam[0]} ms, inside {max(inside)} ms"


# ---------------------------------------------------------------- Bowser's laugh


def test_bowser_laugh_has_four_distinct_syllables(laugh: array.array) -> None:
    found = syllables(laugh)
    spans = [(round(s.start / MS), round(s.end / MS)) for s in found]
    assert len(found) == 4, f"{len(found)} syllables (ms): {spans}"
    for syllable in found:
        assert (syllable.core_end - syllable.core_start) / MS >= 100, "a syllable too short"
    for before, after in pairwise(found):
        assert (after.start - before.end) / MS >= 30, "syllables run together"


def test_bowser_laugh_is_bwa_then_three_breathy_has(laugh: array.array) -> None:
    """"bwa" starts voiced; each "ha" opens with >= 40 ms of breath, brighter than its vowel."""
    bwa, *has = syllables(laugh)
    assert bwa.lead_ms <= 20
    assert len(has) == 3
    for ha in has:
        assert ha.lead_ms >= 40, f"'h' of only {ha.lead_ms} ms"
        breath = [float(v) for v in laugh[ha.start : ha.core_start - SYLLABLE_WINDOW]]
        vowel = [float(v) for v in laugh[ha.core_start : ha.core_end]]
        assert brightness(breath) >= 2.0 * brightness(vowel), "the 'h' is not breath noise"


def test_bowser_laugh_has_a_low_clear_fundamental(laugh: array.array) -> None:
    for syllable in syllables(laugh):
        f0, strength = periodicity(middle(laugh, syllable, 0.08))
        assert 60.0 <= f0 <= 130.0, f"f0 {f0:.1f} Hz"
        assert strength >= 0.5, f"barely voiced (periodicity {strength:.2f})"


def test_bowser_laugh_vowels_have_ah_formants(laugh: array.array) -> None:
    """The strongest frequencies are the open vowel's formants, not the bare fundamental."""
    for syllable in syllables(laugh):
        peak = spectral_peak_hz(middle(laugh, syllable, 0.05))
        assert 450.0 <= peak <= 1200.0, f"spectral peak at {peak} Hz"


# ---------------------------------------------------------------- coin outcomes


def test_coin_is_one_short_ping(committed: dict[str, array.array]) -> None:
    coin = committed["coin"]
    assert len(coin) <= round(0.15 * RATE)
    assert len(pings(coin)) == 1


@pytest.mark.parametrize("k", range(1, 7))
def test_coin_outcome_has_k_countable_pings(k: int, library: SoundLibrary) -> None:
    pcm = library.for_outcome(Outcome(Kind.COINS, coins=k))
    bursts = pings(pcm_samples(pcm.data))
    assert len(bursts) == k, f"{len(bursts)} pings for {k} coins: {bursts}"
    for (_, end), (start, _) in pairwise(bursts):
        assert start - end >= 0.150, f"only {1000 * (start - end):.0f} ms between pings"


# ---------------------------------------------------------------- the checks can fail


def test_checks_catch_a_cut_off_sound_and_a_click(committed: dict[str, array.array]) -> None:
    coin = committed["coin"]
    cut = coin[: len(coin) // 3]  # stopped mid-ping
    assert edge_level(cut) > EDGE_LEVEL
    stepped = array.array("h", committed["timer_loop"])
    for i in range(RATE, RATE + 200):
        stepped[i] = max(-32768, min(32767, stepped[i] + 2500))  # a -22 dBFS DC step
    assert clicks(stepped)


def test_checks_catch_a_wrong_syllable_count(laugh: array.array) -> None:
    found = syllables(laugh)
    dropped = array.array("h", laugh)
    second = found[1]
    dropped[second.start : second.end] = array.array("h", bytes(2 * (second.end - second.start)))
    assert len(syllables(dropped)) == 3
    slurred = array.array("h", laugh)
    first, second = found[0], found[1]
    # Voice copied over the gap between "bwa" and the first "ha": one long slurred syllable.
    span = second.start - first.end + 2 * SYLLABLE_WINDOW
    at = first.end - SYLLABLE_WINDOW
    slurred[at : at + span] = laugh[first.core_start : first.core_start + span]
    assert len(syllables(slurred)) == 3


def test_checks_catch_a_too_high_or_too_low_voice() -> None:
    def buzz(f0: float) -> list[float]:
        return [((i * f0 / RATE) % 1.0) - 0.5 for i in range(round(0.08 * RATE))]

    assert periodicity(buzz(200.0))[0] == pytest.approx(200.0, rel=0.02)
    assert periodicity(buzz(50.0))[0] == pytest.approx(50.0, rel=0.02)


def test_checks_catch_pings_too_close_together(committed: dict[str, array.array]) -> None:
    coin = committed["coin"]
    tight = coin + array.array("h", bytes(2 * round(0.05 * RATE))) + coin
    first, second = pings(tight)
    assert second[0] - first[1] < 0.150


# ---------------------------------------------------------------- each mode sounds like itself


def _outcomes_of(mode_id: str, edition: str) -> list[Outcome]:
    from companion.core.editions import editions

    mode = editions()[edition].mode(mode_id)
    found: dict[str, Outcome] = {}
    for first in range(1, 7):
        for second in range(1, 7):
            outcome = mode.draw(_Dice(first, second), {"utilities": 1})
            found[outcome.label] = outcome
    return list(found.values())


class _Dice:
    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def test_no_bowser_or_game_over_outside_celebration(library: SoundLibrary) -> None:
    from companion.core.editions import editions

    bowser, game_over = library.sounds["bowser"].data, library.sounds["game_over"].data
    for edition in editions().values():
        for mode in edition.modes:
            if not mode.draws:
                continue
            for outcome in _outcomes_of(mode.id, edition.id):
                pcm = library.for_outcome(outcome).data
                if edition.id == "celebration" and mode.id == "question_block":
                    continue
                assert outcome.kind not in (Kind.BOWSER, Kind.GAME_OVER), (edition.id, mode.id)
                assert bowser not in pcm and game_over not in pcm, (edition.id, mode.id)


@pytest.mark.parametrize("k", range(1, 7))
def test_coin_block_and_item_box_ring_their_own_sound_before_k_pings(
        k: int, library: SoundLibrary) -> None:
    plain = library.for_outcome(Outcome(Kind.COINS, k, (1, k)))
    sounds = {}
    for mode, intro in (("coin_block", "block_bump"), ("item_box", "item_box")):
        pcm = library.for_outcome(Outcome(Kind.COINS, k, (k,), mode))
        assert pcm.data.startswith(library.sounds[intro].data)  # the mode's own sound first
        start = library.ping_start(Outcome(Kind.COINS, k, (k,), mode))
        frames = round(start * RATE)
        assert pcm.data[frames * 2:] == plain.data  # then k pings, spaced as ever
        bursts = pings(pcm_samples(pcm.data[frames * 2:]))
        assert len(bursts) == k
        sounds[mode] = pcm.data
    assert sounds["coin_block"] != sounds["item_box"] != plain.data


def test_a_roll_and_rent_sound_the_die_and_the_till(library: SoundLibrary) -> None:
    roll = library.for_outcome(Outcome(Kind.ROLL, 0, (4,), "die"))
    assert roll.data == library.sounds["dice_roll"].data
    rent = library.for_outcome(Outcome(Kind.RENT, 8, (4,), "utility_rent"))
    assert rent.data == library.sounds["dice_roll"].data + library.sounds["rent"].data
    assert library.seconds(Outcome(Kind.RENT, 8, (4,), "utility_rent")) == rent.seconds


MOVIE_VOICES = [
    (Outcome(Kind.DICE, 0, (2, 5), "turn"), ()),
    (Outcome(Kind.DICE, 0, (4, 4), "turn", 1), ("doubles",)),
    (Outcome(Kind.THIRD_DOUBLES, 0, (6, 6), "turn", 3), ("doubles", "jail")),
    (Outcome(Kind.BATTLE_ROLL, 0, (3,), "battle", 1), ()),
    (Outcome(Kind.BATTLE_WON, 2, (3, 5), "battle", 2), ("battle_won",)),
    (Outcome(Kind.BATTLE_LOST, 0, (1, 4), "battle", 2), ("battle_lost",)),
    (Outcome(Kind.PIRANHA, 4, (4,), "piranha"), ("piranha",)),
    (Outcome(Kind.SUPER_STAR, 3, (3,), "super_star"), ("super_star", "coin")),
    (Outcome(Kind.JAIL_FREE, 0, (2, 2), "jail", 1), ("doubles",)),
    (Outcome(Kind.JAIL_STAY, 0, (2, 3), "jail", 1), ()),
    (Outcome(Kind.JAIL_PAID, 1, (2, 3), "jail", 3), ("rent",)),
]
"""Each Movie outcome: the dice first, then the sounds that say what it means."""


@pytest.mark.parametrize(("outcome", "voices"), MOVIE_VOICES,
                         ids=[f"{o.kind.value}-{o.label}" for o, _ in MOVIE_VOICES])
def test_every_movie_outcome_rolls_the_dice_then_says_what_it_means(
        outcome: Outcome, voices: tuple[str, ...], library: SoundLibrary) -> None:
    pcm = library.for_outcome(outcome).data
    assert pcm.startswith(library.sounds["dice_roll"].data)
    movie_own = ("doubles", "jail", "battle_won", "battle_lost", "piranha", "super_star", "rent")
    for name in movie_own:
        assert (library.sounds[name].data in pcm) == (name in voices), name
    if outcome.kind is Kind.SUPER_STAR:  # one ping per coin, after the sparkle
        ping = library.sounds["coin"].data
        start = round(library.ping_start(outcome) * RATE) * 2
        assert pcm[start:start + len(ping)] == ping
        assert pcm.count(ping) == outcome.coins
