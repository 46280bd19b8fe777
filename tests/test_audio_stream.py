"""The stream backend: one ALSA stream kept open and mixed by us.

The mixer is pure and checked sample for sample; the backend plays through real alsa-lib with
the ``file`` plugin as the card (which swallows frames at once and cannot rewind, so this is
the backend's paced, no-rewind path; the rewinding path runs on a real kernel's snd-aloop in
the machine tier, tests/machine)."""

from __future__ import annotations

import array
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.audio.mixer import Mixer, mix
from companion.audio.pcm import Pcm
from tests.conftest import ROOT, alsa_file_home, run_companion
from tests.test_audio_alsa import expected_on_the_wire, seed_for


def pcm_of(*samples: int) -> Pcm:
    return Pcm(array.array("h", samples).tobytes())


def samples(data: bytes) -> list[int]:
    return list(array.array("h", data))


def test_a_lone_voice_is_copied_into_its_span_with_silence_around() -> None:
    mixer = Mixer()
    mixer.add(pcm_of(1, 2, 3, 4), at=10)
    assert samples(mixer.render(8, 8)) == [0, 0, 1, 2, 3, 4, 0, 0]
    assert samples(mixer.render(12, 4)) == [3, 4, 0, 0]  # a span starting inside the voice
    assert samples(mixer.render(0, 5)) == [0] * 5


def test_overlapping_voices_are_summed_and_clipped_to_16_bits() -> None:
    mixer = Mixer()
    mixer.add(pcm_of(100, 30000, -30000, 5), at=0)
    mixer.add(pcm_of(-50, 30000, -30000), at=0)
    mixer.add(pcm_of(7), at=3)
    assert samples(mixer.render(0, 5)) == [50, 32767, -32768, 12, 0]


def test_three_voices_are_clipped_once_as_their_true_sum() -> None:
    """Not a clip of a clip: 30000 + 30000 - 30000 is 30000, never 32767 - 30000."""
    mixer = Mixer()
    mixer.add(pcm_of(30000, -30000, 32767, 1), at=0)
    mixer.add(pcm_of(30000, -30000, 32767, 2), at=0)
    mixer.add(pcm_of(-30000, 30000, 32767, 3), at=0)
    assert samples(mixer.render(0, 4)) == [30000, -30000, 32767, 6]


def test_a_big_endian_machine_swaps_into_its_own_order_and_back() -> None:
    """audioop sums in the machine's order; canonical PCM is little-endian. Played on this
    (little-endian) host as if it were big-endian, the byte-swapped spans give the byte-swapped
    sum: the swap in and out is right."""
    a, b = array.array("h", [1000, -2, 300]), array.array("h", [24, 2, -300])
    for spans in ([a, b], [a, b, b]):
        swapped = []
        for span in spans:
            copy = array.array("h", span)
            copy.byteswap()
            swapped.append(copy.tobytes())
        out = array.array("h", mix(swapped, big_endian=True))
        out.byteswap()
        assert list(out) == [sum(s[i] for s in spans) for i in range(3)]


def test_a_copy_renders_the_voices_as_they_were() -> None:
    mixer = Mixer()
    voice = mixer.add(pcm_of(5, 5, 5, 5), at=0)
    frozen = mixer.copy()
    mixer.stop(voice, at=1)
    mixer.add(pcm_of(1), at=2)
    assert samples(frozen.render(0, 4)) == [5, 5, 5, 5]
    assert samples(mixer.render(0, 4)) == [5, 0, 1, 0]


def test_a_stopped_voice_is_cut_where_it_was_stopped_and_never_lengthened() -> None:
    mixer = Mixer()
    voice = mixer.add(pcm_of(1, 1, 1, 1, 1, 1), at=0)
    mixer.stop(voice, at=2)
    assert samples(mixer.render(0, 6)) == [1, 1, 0, 0, 0, 0]
    mixer.stop(voice, at=5)  # a later stop does not bring frames back
    assert samples(mixer.render(0, 6)) == [1, 1, 0, 0, 0, 0]
    mixer.stop(voice, at=-3)  # nor moves the end before the start
    assert (voice.start, voice.end) == (0, 0)
    assert not voice.playing_at(0)


def test_voices_are_forgotten_only_once_no_rewind_can_reach_them() -> None:
    mixer = Mixer()
    early, late = mixer.add(pcm_of(1, 1), at=0), mixer.add(pcm_of(2, 2), at=4)
    mixer.forget_before(2)
    assert mixer.voices == [late] and early.end == 2
    assert mixer.active(5) and not mixer.active(6)


def _played_alone(data: bytes, sound: bytes) -> None:
    """``sound`` is in ``data`` whole, once, with only silence around it."""
    at = data.find(sound)
    assert at >= 0 and at % 2 == 0, "the sound is not whole in the stream"
    assert not any(data[:at]) and not any(data[at + len(sound):])


@pytest.mark.alsa
@pytest.mark.parametrize("label", ["coins_3", "bowser"])
def test_the_demo_through_the_stream_plays_the_outcome_whole(
        alsa_env: tuple[dict[str, str], Path], label: str) -> None:
    env, captured = alsa_env
    done = run_companion("demo", "--audio", "stream", "--seed", str(seed_for(label)),
                         "--auto", "1", env=env)
    assert done.returncode == 0, done.stderr
    assert "(no sound)" not in done.stdout
    # One stream for the whole run: silence, the sound, silence (never a stream per sound).
    _played_alone(captured.read_bytes(), expected_on_the_wire(label))


def run_python(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """alsa-lib reads its configuration once per process: each ALSA setup gets its own."""
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


MIXED = """
import time
from companion.audio.speaker import Priority, Speaker
from companion.audio.stream_backend import StreamBackend
from tests.test_audio_stream import MUSIC, OUTCOME
backend = StreamBackend()
speaker = Speaker(backend)
assert speaker.open() and backend.name == "stream"
assert speaker.play(MUSIC, Priority.BACKGROUND)
assert speaker.play(OUTCOME, Priority.OUTCOME)
deadline = time.monotonic() + 10
while speaker.busy and time.monotonic() < deadline:
    time.sleep(0.01)
speaker.close()
"""
MUSIC = pcm_of(*([1000, -1000] * 3000))
OUTCOME = pcm_of(*range(0, 20000, 4))  # a ramp: any shift or loss shows


@pytest.mark.alsa
def test_sounds_started_together_are_mixed_in_the_one_stream(
        alsa_env: tuple[dict[str, str], Path]) -> None:
    env, captured = alsa_env
    done = run_python(MIXED, env)
    assert done.returncode == 0, done.stderr
    data = samples(captured.read_bytes())
    start = next(i for i, s in enumerate(data) if s)
    # The file sink cannot rewind: the outcome starts one first write (1024 frames) later.
    expected = [1000 if i % 2 == 0 else -1000 for i in range(6000)] + [0] * 1024
    for i, s in enumerate(samples(OUTCOME.data)):
        expected[1024 + i] += s
    assert data[start:start + len(expected)] == [max(-32768, min(32767, v)) for v in expected]
    assert not any(data[start + len(expected):])


MISSING = """
from companion.audio.backend import AudioError
from companion.audio.speaker import Speaker, make_backend
from companion.audio.pcm import Pcm
backend = make_backend("stream", "default")
try:
    backend.open()
except AudioError as exc:
    print("open:", exc)
try:
    backend.play(Pcm(bytes(2)))
except AudioError as exc:
    print("play:", exc)
backend.close()  # closing what never opened is fine
speaker = Speaker(make_backend("stream", "default"))
print("speaker:", speaker.open(), speaker.play(Pcm(bytes(2))))
"""


@pytest.mark.alsa
def test_a_stream_on_a_missing_card_is_a_clear_audio_error(tmp_path: Path) -> None:
    (tmp_path / ".asoundrc").write_text("pcm.!default { type hw; card 7 }\n")
    done = run_python(MISSING, {**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "open: cannot open ALSA device 'default': No such file or directory"
    assert lines[1] == "play: cannot open ALSA device 'default': No such file or directory"
    assert lines[2] == "speaker: False False"
    assert "no audio output via stream" in done.stderr and "ALSA lib" not in done.stderr


@pytest.mark.alsa
def test_the_daemon_plays_through_the_configured_alsa_device(tmp_path: Path) -> None:
    """``[audio] device`` names the PCM the stream keeps open (here a second file sink)."""
    home = tmp_path / "home"
    env = alsa_file_home(home, tmp_path / "default.raw")
    chosen = tmp_path / "chosen.raw"
    with (home / ".asoundrc").open("a") as rc:
        rc.write(f'pcm.qb_test {{ type file; slave.pcm "null"; file "{chosen}"; '
                 'format "raw" }\n')
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "stream"\ndevice = "qb_test"\n[data]\ndir = '
                      f'"{tmp_path / "data"}"\n[web]\nenabled = false\n')
    done = run_companion("demo", "--config", str(config), "--seed", str(seed_for("bowser")),
                         "--auto", "1", "--display", "off", env=env)
    assert done.returncode == 0, done.stderr
    _played_alone(chosen.read_bytes(), expected_on_the_wire("bowser"))
    assert not (tmp_path / "default.raw").exists()
    assert os.path.getsize(chosen) > 0


LATE = """
import os, sys, time
from pathlib import Path
from companion.audio.speaker import Speaker, make_backend
from tests.test_audio_stream import OUTCOME
speaker = Speaker(make_backend("stream", "default"))
print("at start:", speaker.open(), speaker.play(OUTCOME))
Path(os.environ["HOME"], "card").mkdir()  # the card is back
deadline = time.monotonic() + 20
while not speaker.play(OUTCOME) and time.monotonic() < deadline:
    time.sleep(0.1)
while speaker.busy and time.monotonic() < deadline:
    time.sleep(0.05)
speaker.close()
print("later:", speaker.available)
"""


@pytest.mark.alsa
def test_a_device_that_fails_is_reopened_and_the_next_sound_plays_whole(
        tmp_path: Path) -> None:
    """The card fails under the stream (here the sink cannot be written until its folder
    exists; on a Pi, a USB card pulled out): the sound is lost with a warning, the stream is
    tried again every 2 s, and the first sound after the card is back plays whole."""
    sink = tmp_path / "card" / "out.raw"
    env = alsa_file_home(tmp_path, sink)
    done = run_python(LATE, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["at start: True False", "later: True"]
    assert "ALSA device 'default' lost: Input/output error; trying again every 2 s" in done.stderr
    assert "audio output is back via stream" in done.stderr
    _played_alone(sink.read_bytes(), OUTCOME.data)
