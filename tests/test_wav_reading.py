"""User sound files: common WAV encodings convert exactly; anything else is refused cleanly."""

from __future__ import annotations

import array
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.audio.library import SoundLibrary, builtin_path
from companion.audio.pcm import RATE, SoundFileError, read_wav


def riff(fmt_tag: int, channels: int, rate: int, bits: int, data: bytes,
         extensible: bool = False) -> bytes:
    """Build a WAV file by hand (independently of the reader under test)."""
    block = channels * bits // 8
    if extensible:
        fmt = struct.pack("<HHIIHH", 0xFFFE, channels, rate, rate * block, block, bits)
        guid_tail = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        fmt += struct.pack("<HHI", 22, bits, 0) + struct.pack("<H", fmt_tag) + guid_tail
    else:
        fmt = struct.pack("<HHIIHH", fmt_tag, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"LIST" + struct.pack("<I", 4) + b"INFO"  # an extra chunk readers must skip
    body += b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def samples_of(path: Path) -> list[int]:
    return list(array.array("h", read_wav(path).data))


@pytest.mark.parametrize(("label", "tag", "bits", "encode", "extensible"), [
    ("pcm8", 1, 8, lambda v: bytes([(v >> 8) + 128]), False),
    ("pcm16", 1, 16, lambda v: struct.pack("<h", v), False),
    ("pcm24", 1, 24, lambda v: (v << 8).to_bytes(3, "little", signed=True), False),
    ("pcm32", 1, 32, lambda v: (v << 16).to_bytes(4, "little", signed=True), False),
    ("float32", 3, 32, lambda v: struct.pack("<f", v / 32767.0), False),
    ("float64", 3, 64, lambda v: struct.pack("<d", v / 32767.0), False),
    ("pcm24-extensible", 1, 24, lambda v: (v << 8).to_bytes(3, "little", signed=True), True),
    ("float32-extensible", 3, 32, lambda v: struct.pack("<f", v / 32767.0), True),
])
def test_encodings_convert_to_the_same_16_bit_values(
    tmp_path: Path, label: str, tag: int, bits: int, encode, extensible: bool  # type: ignore[no-untyped-def]
) -> None:
    values = [0, 256, -256, 12800, -12800, 32512, -32768]
    data = b"".join(encode(v) for v in values)
    path = tmp_path / f"{label}.wav"
    path.write_bytes(riff(tag, 1, RATE, bits, data, extensible))
    got = samples_of(path)
    if tag == 3:  # float: within one LSB of the rounding
        assert all(abs(g - v) <= 1 for g, v in zip(got, values, strict=True)), got
    else:
        assert got == values


def test_stereo_is_averaged_to_mono(tmp_path: Path) -> None:
    frames = struct.pack("<8h", 1000, 3000, -400, -600, 32767, 32767, -32768, 0)
    path = tmp_path / "stereo.wav"
    path.write_bytes(riff(1, 2, RATE, 16, frames))
    assert samples_of(path) == [2000, -500, 32767, -16384]


def test_22k_is_resampled_to_44k1_by_linear_interpolation(tmp_path: Path) -> None:
    path = tmp_path / "low.wav"
    path.write_bytes(riff(1, 1, 22050, 16, struct.pack("<3h", 0, 1000, 3000)))
    assert samples_of(path) == [0, 500, 1000, 2000, 3000, 3000]


def test_a_trailing_partial_frame_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "cut.wav"
    path.write_bytes(riff(1, 1, RATE, 16, struct.pack("<2h", 5, 6) + b"\x07"))
    assert samples_of(path) == [5, 6]


@pytest.mark.parametrize(("blob", "problem"), [
    (b"", "not a RIFF/WAVE"),
    (b"RIFF\x00\x00\x00\x00WAVEjunk", "missing fmt or data"),
    (riff(2, 1, RATE, 4, b"\x00\x00"), "unsupported WAV encoding 0x0002"),
    (riff(1, 1, RATE, 12, b"\x00\x00"), "unsupported sample size 12"),
    (riff(1, 1, 1000, 16, b"\x00\x00"), "unsupported sample rate 1000"),
    (riff(1, 0, RATE, 16, b"\x00\x00"), "unsupported channel count 0"),
    (riff(1, 1, RATE, 16, b""), "holds no audio"),
    (riff(1, 1, 8000, 8, bytes(8000 * 31)), "longer than 30 s"),
])
def test_unusable_files_raise_sound_file_error(tmp_path: Path, blob: bytes, problem: str) -> None:
    path = tmp_path / "bad.wav"
    path.write_bytes(blob)
    with pytest.raises(SoundFileError, match=problem):
        read_wav(path)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 200), flips=st.lists(st.tuples(st.integers(0, 120), st.integers(0, 255)),
                                               max_size=6))
def test_mangled_files_never_raise_anything_but_sound_file_error(
    tmp_path: Path, cut: int, flips: list[tuple[int, int]]
) -> None:
    blob = bytearray(builtin_path("timer_tick").read_bytes()[: 44 + cut])
    for pos, value in flips:
        if pos < len(blob):
            blob[pos] = value
    path = tmp_path / "mangled.wav"
    path.write_bytes(bytes(blob))
    try:
        pcm = read_wav(path)
    except SoundFileError:
        return
    assert len(pcm.data) % 2 == 0


def test_a_truncated_file_plays_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "truncated.wav"
    path.write_bytes(builtin_path("coin").read_bytes()[:1001])  # 44-byte header + 478.5 frames
    assert read_wav(path).data == builtin_path("coin").read_bytes()[44:1000]


def test_broken_override_falls_back_to_the_builtin_sound(tmp_path: Path) -> None:
    (tmp_path / "coin.wav").write_bytes(b"ID3\x04 an mp3 renamed to .wav")
    (tmp_path / "bowser.wav").write_bytes(riff(1, 1, RATE, 16, struct.pack("<h", 7)))
    library = SoundLibrary(tmp_path)
    assert library.sources["coin"] == builtin_path("coin")
    assert library.sounds["coin"] == read_wav(builtin_path("coin"))
    assert library.sources["bowser"] == tmp_path / "bowser.wav"
    assert library.sounds["bowser"].data == struct.pack("<h", 7)
