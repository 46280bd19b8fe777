"""Config: every class of bad input gives exit 2 and one line naming the key; no traceback."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from companion import cli
from companion.config import Config, ConfigError, example, from_dict, load
from tests.conftest import ROOT, run_companion

BAD = [
    ("[blok]\npin = 17\n", "[blok]", "unknown section"),
    ("[block]\npinn = 17\n", "block.pinn", "allowed in [block]: pin, debounce_ms"),
    ('[block]\npin = "17"\n', "block.pin", "must be an integer"),
    ("[block]\npin = true\n", "block.pin", "must be an integer"),
    ("[block]\npin = 40\n", "block.pin", "between 0 and 27"),
    ("[block]\ndebounce_ms = -1\n", "block.debounce_ms", "between 0 and 1000"),
    ('[audio]\nbackend = "alsa"\n', "audio.backend", "'stream', 'simpleaudio', 'pygame'"),
    ('[audio]\ndevice = "plughw: 1"\n', "audio.device", "must be an ALSA device name"),
    ('[audio]\ndevice = ""\n', "audio.device", "must be an ALSA device name"),
    ("[audio]\nsounds_dir = 3\n", "audio.sounds_dir", "must be a string"),
    ('[gpio]\npin_factory = "wiringpi"\n', "gpio.pin_factory", "'lgpio'"),
    ("[web]\nport = 70000\n", "web.port", "between 0 and 65535"),
    ('[web]\nhost = " "\n', "web.host", "must not be empty"),
    ('[web]\ntoken = "short"\n', "web.token", "at least 16"),
    ('[display]\nenabled = "yes"\n', "display.enabled", "true or false"),
    ('[audio]\ni2s = "yes"\n', "audio.i2s", "true or false"),
    ("[display]\nhat = 3\n", "display.hat", "must be a string"),
    ('[display]\nhat = "tft35a"\n', "display.hat", "'waveshare35a'"),
    ("[block]\npin = 18\n", "block.pin", "BCM 18 is already audio.i2s"),
    ("block = 3\n", "[block]", "must be a table"),
    ("[block\npin = 17\n", "companion.toml", "not valid TOML"),
    ("[block]\npin = " + "9" * 5000 + "\n", "companion.toml", "not valid TOML"),
    ("[block]\npin = 0x" + "f" * 5000 + "\n", "block.pin", "got an integer of 20000 bits"),
    ('[audio]\nsounds_dir = "~nosuchuser/x"\n', "audio.sounds_dir", "cannot use path"),
    ('[audio]\nsounds_dir = "missing-folder"\n', "audio.sounds_dir", "existing folder"),
    ('[audio]\nsounds_dir = "companion.toml"\n', "audio.sounds_dir", "existing folder"),
    ('[data]\ndir = "a\\u0000b"\n', "data.dir", "NUL"),
    ('[web]\nhost = "not a host"\n', "web.host", "IP address or host name"),
    ('[web]\nallowed_hosts = ["http://pi.lan:8080"]\n', "web.allowed_hosts",
     "without a scheme or port"),
    ('[web]\nallowed_hosts = "pi.lan"\n', "web.allowed_hosts", "list"),
    ("[block]\npin = [17]\n", "block.pin", "must be an integer, got list"),
    ("[block.extra]\nx = 1\n", "block.extra", "unknown key"),
]


@pytest.mark.parametrize(("text", "key", "allowed"), BAD)
def test_bad_config_exits_2_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str, allowed: str
) -> None:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    assert cli.main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert len(err) < 300, err  # huge values are cut short
    assert key in err and allowed in err, err
    assert err.startswith("companion: config error:")


def test_missing_config_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.toml"
    assert cli.main(["run", "--config", str(missing)]) == 2
    assert f"{missing}: config file not found" in capsys.readouterr().err


def test_bad_config_from_the_real_command_line_has_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "companion.toml"
    path.write_text("[block]\npin = 99\n")
    for command in (["run"], ["demo"], ["config", "--check"]):
        done = run_companion(*command, "--config", str(path))
        assert done.returncode == 2, done
        assert "Traceback" not in done.stderr
        assert "block.pin: must be a BCM GPIO number between 0 and 27, got 99" in done.stderr


def test_good_config_loads_with_paths_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "my-sounds").mkdir()
    path = tmp_path / "companion.toml"
    path.write_text('[block]\npin = 22\n[audio]\nbackend = "null"\nsounds_dir = "my-sounds"\n'
                    '[data]\ndir = "/var/lib/companion"\n[web]\nport = 9000\n')
    config = load(path)
    assert config.block.pin == 22 and config.block.debounce_ms == 80
    assert config.audio.backend == "null"
    assert config.sounds_dir == tmp_path / "my-sounds"
    assert config.data_dir == Path("/var/lib/companion")
    assert config.web.port == 9000 and config.web.host == "0.0.0.0"


def test_data_dir_defaults_to_systemd_state_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/companion")
    assert Config().data_dir == Path("/var/lib/companion")


def test_example_config_is_complete_and_equals_the_defaults() -> None:
    data = tomllib.loads(example())
    assert from_dict(data) == Config()
    assert set(data) == {"block", "audio", "gpio", "data", "web", "display", "lever",
                         "reader", "light", "table", "speech", "mqtt", "game"}


def test_config_check_command(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text(example())
    done = run_companion("config", "--check", "--config", str(path))
    assert done.returncode == 0 and "ok" in done.stdout


def test_readme_example_config_is_valid_and_shows_the_defaults() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", readme, re.S)
    assert len(blocks) == 1, "README must show one example config"
    assert from_dict(tomllib.loads(blocks[0])) == Config()


def test_config_file_that_is_a_folder_or_not_utf8(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "--check", "--config", str(tmp_path)]) == 2
    assert "cannot read config file" in capsys.readouterr().err
    latin = tmp_path / "latin1.toml"
    latin.write_bytes(b'[web]\nhost = "caf\xe9"\n')
    assert cli.main(["config", "--check", "--config", str(latin)]) == 2
    assert "cannot read config file" in capsys.readouterr().err


def test_config_error_names_key() -> None:
    with pytest.raises(ConfigError) as info:
        from_dict({"web": {"port": "80"}})
    assert info.value.key == "web.port"


@pytest.mark.parametrize(("text", "key"), [
    ("[lever]\npin = 40\n", "lever.pin"),
    ("[lever]\nmotor_pin = -2\n", "lever.motor_pin"),
    ("[lever]\nseconds = 0\n", "lever.seconds"),
    ("[lever]\nseconds = nan\n", "lever.seconds"),
    ("[lever]\nsound = \"loud\"\n", "lever.sound"),
    ("[lever]\nmotor_speed = 0\n", "lever.motor_speed"),
    ("[lever]\nwind_up = \"yes\"\n", "lever.wind_up"),
    ("[game]\nedition = \"wiggly\"\n", "game.edition"),
    ('[game]\nedition = "wiggly_worms"\nplayers = ["a", "b", "c", "d", "e"]\n',
     "game.players"),
])
def test_bad_lever_config_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    done = run_companion("config", "--check", "--config", str(path))
    assert done.returncode == 2 and key in done.stderr and "Traceback" not in done.stderr
