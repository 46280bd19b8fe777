"""The pin map: the defaults clash with nothing else on the header (the MAX98357A's I2S pins,
the UART, the common SPI screen HATs), and a config that puts two parts on one pin is refused
for every pair of parts, exit 2, naming both and the key."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from companion import cli
from companion.config import Config, from_dict
from companion.gpio.header import HATS, I2S, UART

SHARED = 5
"""The pin two parts are both put on (free of every HAT, I2S and the UART)."""

PARTS = {
    "block": ({"block": {"pin": SHARED}}, "block.pin"),
    "lever": ({"lever": {"pin": SHARED}}, "lever.pin"),
    "motor": ({"lever": {"motor_pin": SHARED}}, "lever.motor_pin"),
    "status LED": ({"gpio": {"status_led_pin": SHARED}}, "gpio.status_led_pin"),
    "light": ({"light": {"red": SHARED, "green": 12, "blue": 13}}, "light.red"),
}
"""Our parts, each put on the shared pin: (config, its key)."""

TAKEN = {
    "screen HAT": ({"display": {"hat": "waveshare35a"}}, "display.hat", 24, "data/command"),
    "I2S amplifier": ({"audio": {"i2s": True}}, "audio.i2s", 18, "I2S bit clock"),
    "reader on the UART": ({"reader": {"port": "/dev/serial0"}}, "reader.port", 14, "UART TX"),
}
"""The rest of the header: (config, its key, one pin it takes, that pin's role)."""


def merged(*parts: dict) -> dict:
    out: dict = {"block": {"pin": 26}, "audio": {"i2s": False}}
    for part in parts:
        for section, values in part.items():
            out.setdefault(section, {}).update(values)
    return out


def toml(data: dict) -> str:
    def value(v: object) -> str:
        return f'"{v}"' if isinstance(v, str) else str(v).lower() if isinstance(v, bool) \
            else str(v)
    return "".join(f"[{section}]\n" + "".join(f"{k} = {value(v)}\n" for k, v in keys.items())
                   for section, keys in data.items())


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: dict) -> str:
    """Run ``companion config --check`` on the config: its one-line error (exit 2)."""
    path = tmp_path / "companion.toml"
    path.write_text(toml(data))
    assert cli.main(["config", "--check", "--config", str(path)]) == 2, toml(data)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("companion: config error:"), err
    return err


def test_the_defaults_clash_with_nothing_on_the_header() -> None:
    config = Config()
    ours = {config.block.pin, config.lever.pin}
    for hat in HATS.values():
        assert not ours & set(hat.pins), hat.title
    assert not ours & set(I2S) and not ours & set(UART)
    # every HAT with the amplifier and a reader on the UART, and the reference build's
    # optional parts (hardware/wiring.md): all accepted together
    for name, hat in HATS.items():
        if set(hat.pins) & set(I2S):
            continue  # rpi-display and mipi-dbi-spi want GPIO 18 too (tested below)
        from_dict({"display": {"hat": name}, "audio": {"i2s": True},
                   "reader": {"port": "/dev/serial0"},
                   "lever": {"motor_pin": 5}, "gpio": {"status_led_pin": 6},
                   "light": {"red": 12, "green": 13, "blue": 16}})


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(PARTS, 2)))
def test_two_of_our_parts_on_one_pin_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], first: str, second: str
) -> None:
    (a, key_a), (b, key_b) = PARTS[first], PARTS[second]
    err = refused(tmp_path, capsys, merged(a, b))
    assert f"BCM {SHARED} is already" in err and key_a in err and key_b in err, err


@pytest.mark.parametrize(("taken", "part"), list(itertools.product(TAKEN, PARTS)))
def test_a_part_on_a_pin_the_header_uses_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], taken: str, part: str
) -> None:
    settings, key, pin, role = TAKEN[taken]
    placed, part_key = PARTS[part]
    placed = {section: {k: pin if v == SHARED else v for k, v in values.items()}
              for section, values in placed.items()}
    err = refused(tmp_path, capsys, merged(settings, placed))
    assert err.startswith(f"companion: config error: {part_key}: BCM {pin} is already {key} "), err
    assert role in err, err


@pytest.mark.parametrize("hat", [name for name, hat in HATS.items() if set(hat.pins) & set(I2S)])
def test_a_hat_that_wants_the_sounds_pins_is_refused_with_the_amplifier(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hat: str
) -> None:
    err = refused(tmp_path, capsys, merged({"display": {"hat": hat}, "audio": {"i2s": True}}))
    assert "audio.i2s: BCM 18 (I2S bit clock (BCLK)) is already display.hat" in err, err
    assert "backlight" in err, err
    from_dict({"display": {"hat": hat}, "audio": {"i2s": False}})  # USB sound: fine


def test_a_part_that_is_off_or_a_reader_on_usb_claims_nothing() -> None:
    from_dict({"lever": {"enabled": False, "pin": 26}})
    from_dict({"reader": {"port": "/dev/ttyUSB0"}, "block": {"pin": 14}})
    from_dict({"reader": {"enabled": False, "port": "/dev/serial0"}, "block": {"pin": 14}})
    from_dict({"audio": {"i2s": False}, "block": {"pin": 18}})


def test_an_unknown_hat_names_the_key_and_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refused(tmp_path, capsys, {"display": {"hat": "waveshare35"}})
    assert "display.hat" in err and "'waveshare35a'" in err and "'piscreen'" in err, err


def test_the_wiring_guide_lists_each_hat_with_its_pins() -> None:
    """hardware/wiring.md's table says what companion/gpio/header.py refuses."""
    from tests.conftest import ROOT

    guide = (ROOT / "hardware" / "wiring.md").read_text()
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([\w-]+)` \|[^|]+\|[^|]+\| ([^|]+) \|", guide,
                                            re.M)}
    assert set(rows) == set(HATS)
    spi = {7, 8, 9, 10, 11}
    for name, hat in HATS.items():
        listed = {int(n) for n in re.findall(r"\b(\d+) ", rows[name])}
        assert listed == set(hat.pins) - spi, name
