"""Configuration: one TOML file, validated strictly against a schema that documents itself.

Every section is a frozen dataclass; each field carries its help text and a check. Unknown
keys, wrong types and bad values raise :class:`ConfigError` naming the key and what is allowed.
Later capabilities add their keys by adding fields here.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_origin, get_type_hints

from companion.audio.backend import BACKENDS as AUDIO_BACKENDS
from companion.core.editions import Editions, editions
from companion.core.ledger import CARD_ACTION_NAMES
from companion.core.uid import parse_card_map
from companion.display import DRIVERS as DISPLAY_DRIVERS
from companion.display import SIZES as DISPLAY_SIZES
from companion.exc import CompanionError, RulesetError
from companion.exc import shown as quoted
from companion.gpio.header import HATS, I2S, UART, uses_header_uart
from companion.gpio.pins import PIN_FACTORIES
from companion.readers import PROTOCOLS as READER_PROTOCOLS
from companion.web.hosts import normalise as normalise_host
from companion.web.token import MIN_LENGTH as TOKEN_MIN_LENGTH
from companion.web.token import URLSAFE as TOKEN_CHARACTERS


class ConfigError(CompanionError, ValueError):
    """A config problem, phrased for the person editing the file."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


Check = Callable[[Any], str | None]


def setting(default: Any, help: str, check: Check | None = None) -> Any:
    """A config key: its default, its documentation and an optional value check."""
    return field(default=default, metadata={"help": help, "check": check})


def shown(value: Any) -> str:
    """A value as quoted in a config error (the file's own: a longer cut than a request's)."""
    return quoted(value, 160)


def _range(lo: int, hi: int) -> Check:
    return lambda v: None if lo <= v <= hi else f"must be between {lo} and {hi}, got {shown(v)}"


def _one_of(*choices: str) -> Check:
    return lambda v: None if v in choices else (
        f"must be one of {', '.join(repr(c) for c in choices)}, got {shown(v)}")


def _one_of_int(*choices: int) -> Check:
    return lambda v: None if v in choices else (
        f"must be one of {', '.join(str(c) for c in choices)}, got {shown(v)}")


def _host(v: str) -> str | None:
    if not v.strip():
        return "must not be empty"
    if not v.isascii() or not v.isprintable() or any(c.isspace() for c in v):
        return f"must be an IP address or host name, got {shown(v)}"
    return None


def _bcm_pin(v: int) -> str | None:
    return None if 0 <= v <= 27 else f"must be a BCM GPIO number between 0 and 27, got {shown(v)}"


def _optional_pin(v: int) -> str | None:
    """A BCM pin, or -1 for a part that is not fitted."""
    if v == -1 or 0 <= v <= 27:
        return None
    return f"must be a BCM GPIO number between 0 and 27, or -1 for none, got {shown(v)}"


def _folder_path(v: str) -> str | None:
    return "must not contain a NUL character" if "\0" in v else None


def _alsa_device(v: str) -> str | None:
    if not v or not v.isascii() or not v.isprintable() or any(c.isspace() for c in v):
        return ('must be an ALSA device name such as "default" or "plughw:CARD=Loopback", '
                f"got {shown(v)}")
    return None


def _token(v: str) -> str | None:
    if v and (len(v) < TOKEN_MIN_LENGTH or not set(v) <= TOKEN_CHARACTERS):
        return (f"must be empty (generate one) or at least {TOKEN_MIN_LENGTH} characters of "
                "A-Z, a-z, 0-9, '-' and '_' (it travels in a link)")
    return None


def _host_names(v: tuple[str, ...]) -> str | None:
    for name in v:
        if normalise_host(name) is None:
            return ("must be host names or addresses without a scheme or port, such as "
                    f"\"companion.lan\" or \"192.168.1.20\"; got {shown(name)}")
    return None


def default_data_dir() -> str:
    """systemd's StateDirectory when run as a service, else the XDG data folder."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return state.split(":")[0]
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(xdg) / "companion")


@dataclass(frozen=True)
class BlockConfig:
    """The Question Block button."""

    pin: int = setting(26, "BCM pin of the block button (wired to ground; internal pull-up); "
                           "26 is clear of the sound's, the UART's and the common screen HATs' "
                           "pins", _bcm_pin)
    debounce_ms: int = setting(80, "presses closer together than this are contact bounce",
                               _range(0, 1000))
    release_ms: int = setting(20, "the button must be released this long before a new press "
                                  "counts", _range(0, 1000))


@dataclass(frozen=True)
class AudioConfig:
    """Sound output."""

    backend: str = setting("stream", "stream (one ALSA stream kept open, mixed by us), "
                                          "simpleaudio, pygame or null (no sound)",
                           _one_of(*AUDIO_BACKENDS))
    device: str = setting("default", "ALSA device the stream backend keeps open (\"default\": "
                                     "hardware/asound.conf's plug + dmix)", _alsa_device)
    sounds_dir: str = setting("", "folder whose WAVs (coin.wav, bowser.wav, ...) replace the "
                                  "built-in sounds; empty for none", _folder_path)
    i2s: bool = setting(True, "an I2S amplifier (the MAX98357A) is wired: GPIO 18, 19, 20 and "
                              "21 are the sound's; false for USB or HDMI sound")


@dataclass(frozen=True)
class GpioConfig:
    """GPIO access."""

    pin_factory: str = setting("", "gpiozero pin factory (gpiod: ours, on the kernel's edge "
                                   "events); empty: $GPIOZERO_PIN_FACTORY, else gpiod, else "
                                   "lgpio, else gpiozero's order", _one_of("", *PIN_FACTORIES))
    status_led_pin: int = setting(-1, "BCM pin of a status LED: on when ready, blinking when a "
                                      "part is missing, off when stopped; -1: none",
                                  _optional_pin)


@dataclass(frozen=True)
class DataConfig:
    """Where state is kept."""

    dir: str = setting("", "data folder; empty: $STATE_DIRECTORY under systemd, else "
                           "~/.local/share/companion", _folder_path)


@dataclass(frozen=True)
class WebConfig:
    """The tablet's web server."""

    enabled: bool = setting(True, "serve the tablet API and WebSocket")
    host: str = setting("0.0.0.0", "address to listen on", _host)
    port: int = setting(8080, "TCP port (0: any free port)", _range(0, 65535))
    token: str = setting("", "table token for writes; empty: generated once, kept in the data "
                             "folder", _token)
    allowed_hosts: tuple[str, ...] = setting((), "more names the page may be opened by (e.g. a "
                                                 "router's DNS name), besides this machine's "
                                                 "addresses, hostname, hostname.local and "
                                                 "localhost", _host_names)


def _display_size(v: str) -> str | None:
    w, x, h = v.partition("x")
    if x and w.isdigit() and h.isdigit() and 160 <= int(w) <= 4096 and 120 <= int(h) <= 4096:
        return None
    return (f"must be a size such as {', '.join(repr(s) for s in DISPLAY_SIZES)} "
            f"(width x height, at least 160x120), got {shown(v)}")


@dataclass(frozen=True)
class DisplayConfig:
    """The small screen beside the block."""

    enabled: bool = setting(False, "drive the small screen")
    size: str = setting("480x320", "the panel's resolution as it is mounted: 480x320, 320x240 "
                                   "or 800x480 (other WxH work too)", _display_size)
    driver: str = setting("auto", "auto (a window under X11/Wayland, else kmsdrm, else the "
                                  "framebuffer), kmsdrm, x11, wayland, fbdev or dummy",
                          _one_of(*DISPLAY_DRIVERS))
    fullscreen: str = setting("auto", "auto (fullscreen without a desktop), yes or no",
                              _one_of("auto", "yes", "no"))
    hat: str = setting("none", "a screen HAT on the header, whose pins no part may use: none, "
                               + ", ".join(HATS) + " (hardware/wiring.md)",
                       _one_of("none", *HATS))
    rotate: int = setting(0, "turn the picture by 0, 90, 180 or 270 degrees for a panel "
                             "mounted sideways", _one_of_int(0, 90, 180, 270))
    framebuffer: str = setting("/dev/fb0", "framebuffer device for the fbdev driver (SPI "
                                           "panels are often /dev/fb1)", _folder_path)
    outcome_seconds: int = setting(8, "how long an outcome stays on screen", _range(2, 60))
    idle_minutes: int = setting(10, "minutes without activity before the idle screen (QR code "
                                    "of the tablet link); 0: never", _range(0, 1440))

    @property
    def pixels(self) -> tuple[int, int]:
        """``size`` as (width, height): the picture as the panel is mounted."""
        w, _, h = self.size.partition("x")
        return int(w), int(h)


def _edition(v: str) -> str | None:
    if not v.isidentifier():
        return f"must be an edition such as {', '.join(repr(k) for k in editions())}, got " \
               f"{shown(v)}"
    return None  # known editions (house rules included) are checked with the whole section


def _player_names(v: tuple[str, ...]) -> str | None:
    from companion.core.ledger import check_names
    from companion.exc import Refused

    if not v:
        return None  # none named: the tablet leads a setup
    try:
        check_names(list(v), 2, 6)
    except Refused as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class LeverConfig:
    """The Wiggly Worms lever timer: a switch closed while the lever is held back."""

    enabled: bool = setting(True, "watch the lever switch")
    pin: int = setting(27, "BCM pin of the lever switch (to ground; internal pull-up, closed "
                           "while the lever is held back)", _bcm_pin)
    debounce_ms: int = setting(50, "lever edges closer together than this are contact bounce",
                               _range(0, 1000))
    seconds: float = setting(14.0, "countdown after the lever is let go (the toy runs about "
                                   "13-15 s)", _range(1, 3600))
    wind_up: bool = setting(False, "spring mode: the longer the lever is held back, the more "
                                   "time, up to max_seconds")
    max_seconds: float = setting(30.0, "the longest wind-up countdown", _range(1, 3600))
    wind_up_hold_ms: int = setting(2000, "holding the lever back this long gives max_seconds",
                                   _range(100, 60000))
    sound: str = setting("music", "while running: music (ticks in the last seconds), ticks "
                                  "(faster at the end) or off", _one_of("music", "ticks", "off"))
    motor_pin: int = setting(-1, "BCM pin driving the worm motor's driver while the timer "
                                 "runs; -1: no motor", _optional_pin)
    motor_active_high: bool = setting(True, "the driver's input is on when the pin is high")
    motor_speed: int = setting(100, "motor power in percent; below 100 the pin is PWM "
                                    "(PWMOutputDevice)", _range(1, 100))


def _fraction(v: float) -> str | None:
    return None if 0.0 <= v <= 1.0 else f"must be between 0.0 and 1.0, got {shown(v)}"


@dataclass(frozen=True)
class LightConfig:
    """The outcome light: an RGB LED (or an RGB strip through drivers) beside the block."""

    red: int = setting(-1, "BCM pin of the red channel; -1 for all three: no light",
                       _optional_pin)
    green: int = setting(-1, "BCM pin of the green channel", _optional_pin)
    blue: int = setting(-1, "BCM pin of the blue channel", _optional_pin)
    brightness: float = setting(0.6, "0.0-1.0: the share of full power for every colour",
                                _fraction)
    active_high: bool = setting(True, "a channel is lit when its pin is high (common-cathode "
                                      "LED, MOSFET drivers); false for a common-anode LED")

    @property
    def fitted(self) -> bool:
        """All three channels have a pin (the config check allows all three or none)."""
        return min(self.red, self.green, self.blue) >= 0


def _port_path(v: str) -> str | None:
    if not v.strip() or "\0" in v:
        return "must be a serial device path such as /dev/companion-reader or /dev/ttyUSB0"
    return None


def _card_map(v: tuple[str, ...]) -> str | None:
    try:
        parse_card_map(v, CARD_ACTION_NAMES)
    except ValueError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class ReaderConfig:
    """An NFC/RFID reader on a serial port: tapping a card makes its player current."""

    enabled: bool = setting(True, "read cards (a missing reader is waited for, not an error)")
    port: str = setting("/dev/companion-reader", "serial device; the udev rule in hardware/ "
                                                 "makes this stable", _port_path)
    protocol: str = setting("rdm6300", "rdm6300 (125 kHz EM4100), pn532 (NFC, HSU/UART) or "
                                       "lines (one hex UID per line)",
                            _one_of(*READER_PROTOCOLS))
    baudrate: int = setting(0, "0: the protocol's own (9600 rdm6300 and lines, 115200 pn532)",
                            _range(0, 4_000_000))
    tap_gap_ms: int = setting(1000, "the same card counts again after it was away this long",
                              _range(100, 60_000))
    cards: tuple[str, ...] = setting((), "cards known in advance: \"UID = player name\" or "
                                         f"\"UID = action:{'|'.join(CARD_ACTION_NAMES)}\"",
                                     _card_map)

    def card_map(self) -> dict[str, str]:
        """UID (normalised) -> player name or ``action:NAME``."""
        return parse_card_map(self.cards, CARD_ACTION_NAMES)


def _language(v: str) -> str | None:
    from companion.i18n import LANGUAGES

    return None if v in LANGUAGES else (f"must be one of {', '.join(LANGUAGES)} (the "
                                        f"Celebration rulebook's languages), got {shown(v)}")


@dataclass(frozen=True)
class TableConfig:
    """The table's own settings: the language the companion speaks."""

    language: str = setting("en", "the spoken lines' language: en, de, es, pt, it, nl, sv, "
                                  "da, nb, fi, pl, hu, tr, cs, sk, ro, hr, lt, sl, et, lv, ar",
                            _language)


@dataclass(frozen=True)
class SpeechConfig:
    """Spoken outcomes: after an outcome's sound a voice (espeak-ng) says what happened."""

    enabled: bool = setting(False, "say each outcome, whose turn it is and the timer's last "
                                   "seconds in the table's language (needs espeak-ng)")


def _topic_prefix(v: str) -> str | None:
    if not v or v.startswith("/") or v.endswith("/") or "//" in v or \
            any(c in v for c in "+#\0") or not v.isprintable():
        return ("must be an MQTT topic such as \"question-block\" (no leading or trailing "
                f"'/', no '+' or '#'), got {shown(v)}")
    return None


def _user_name(v: str) -> str | None:
    return None if v.isprintable() and len(v.encode()) <= 65535 else \
        f"must be a printable user name, got {shown(v)}"


@dataclass(frozen=True)
class MqttConfig:
    """Home Assistant (or any MQTT broker): the table's events, sensors and buttons."""

    enabled: bool = setting(False, "connect to an MQTT broker (Home Assistant's Mosquitto)")
    host: str = setting("homeassistant.local", "the broker's address or host name", _host)
    port: int = setting(1883, "the broker's TCP port (often 8883 with TLS)", _range(1, 65535))
    tls: bool = setting(False, "connect with TLS, checking the broker's certificate")
    ca_file: str = setting("", "with TLS: the CA certificate (PEM) that signed the broker's; "
                               "empty: the system's CAs", _folder_path)
    username: str = setting("", "the broker's user name; empty: anonymous", _user_name)
    password_file: str = setting("", "a file holding the password on its first line, readable "
                                     "by its owner only (chmod 600); the password is never "
                                     "logged", _folder_path)
    prefix: str = setting("question-block", "topic prefix: <prefix>/event, <prefix>/state, "
                                            "<prefix>/status; one per table in a house",
                          _topic_prefix)
    discovery: bool = setting(True, "announce the Question Block device to Home Assistant "
                                    "(MQTT discovery)")
    discovery_prefix: str = setting("homeassistant", "Home Assistant's discovery prefix",
                                    _topic_prefix)
    remote_presses_per_minute: int = setting(
        4, "presses (and timer starts) the house's buttons may make in a minute; more are a "
           "flood: dropped, counted on /healthz and said once in the log", _range(1, 60))
    quiet_after_table_press_s: float = setting(
        30.0, "the house's press button is refused for this many seconds after any press at "
              "the table (its button, the tablet, a phone): the table's block comes first; "
              "0: never", _range(0, 3600))


SETUP_PLAYERS = ("Mario", "Luigi", "Peach", "Yoshi", "Toad", "Daisy")
"""The names of the game a fresh install boots into (none named in ``[game] players``) while
it awaits the table's setup on the tablet: the block works meanwhile."""


@dataclass(frozen=True)
class GameConfig:
    """The game started when the bank has none yet (the tablet can start others)."""

    edition: str = setting("celebration", "edition: celebration, movie, gamer, mario_kart, "
                                          "wiggly_worms (timer only, no coins)", _edition)
    players: tuple[str, ...] = setting((), "player names in turn order (as many as the edition "
                                           "seats: 2-6; Gamer, Mario Kart and Wiggly Worms "
                                           "2-4); the first starts; empty: the tablet opens "
                                           "on a setup (edition, players, colours, house "
                                           "rules)",
                                       _player_names)
    house_rules: str = setting("", "folder of edition files (the packaged ones' shape) whose "
                                   "numbers replace an edition's: your table's house rules; "
                                   "empty for none", _folder_path)

    @property
    def awaits_setup(self) -> bool:
        """No players named: the first game awaits the table's setup on the tablet."""
        return not self.players

    def first_players(self) -> tuple[str, ...]:
        """The first game's players: the named ones, or a setup's stand-ins (as many as the
        edition seats)."""
        if self.players:
            return self.players
        rules = self.rulesets()[self.edition]
        return SETUP_PLAYERS[:max(rules.min_players, min(4, rules.max_players))]

    def rulesets(self) -> Editions:
        """The editions this table plays: the packaged ones, with its house rules over them."""
        if not self.house_rules:
            return editions()
        return editions().with_house_rules(Path(self.house_rules))


@dataclass(frozen=True)
class Config:
    """The whole configuration; every section has working defaults."""

    block: BlockConfig = field(default_factory=BlockConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    data: DataConfig = field(default_factory=DataConfig)
    web: WebConfig = field(default_factory=WebConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    lever: LeverConfig = field(default_factory=LeverConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    light: LightConfig = field(default_factory=LightConfig)
    table: TableConfig = field(default_factory=TableConfig)
    speech: SpeechConfig = field(default_factory=SpeechConfig)
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    game: GameConfig = field(default_factory=GameConfig)
    source: Path | None = field(default=None, compare=False)

    @property
    def data_dir(self) -> Path:
        return Path(self.data.dir or default_data_dir())

    @property
    def sounds_dir(self) -> Path | None:
        return Path(self.audio.sounds_dir) if self.audio.sounds_dir else None


SECTIONS: dict[str, type] = {
    f.name: f.default_factory  # type: ignore[misc]
    for f in dataclasses.fields(Config)
    if f.default_factory is not dataclasses.MISSING
}

_TYPE_NAMES = {int: "an integer", str: "a string", bool: "true or false", float: "a number"}


def _check_value(key: str, expected: Any, value: Any, check: Check | None) -> Any:
    if get_origin(expected) is tuple:  # a list of strings in TOML
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(key, f"must be a list of strings, got {shown(value)}")
        value = tuple(value)
        problem = check(value) if check else None
        if problem:
            raise ConfigError(key, problem)
        return value
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise ConfigError(key, f"must be {_TYPE_NAMES[expected]}, got {type(value).__name__} "
                               f"{shown(value)}")
    problem = check(value) if check else None
    if problem:
        raise ConfigError(key, problem)
    return value


def _resolve_paths(section: str, values: dict[str, Any], base: Path,
                   keys: tuple[str, ...]) -> None:
    for key in keys:
        raw = values.get(key)
        if raw:
            try:
                path = Path(raw).expanduser()
                values[key] = str(path if path.is_absolute() else (base / path).resolve())
            except (RuntimeError, OSError, ValueError) as exc:  # ~nobody, loops, ...
                raise ConfigError(f"{section}.{key}", f"cannot use path {shown(raw)}: {exc}") \
                    from None


def _check_sounds_dir(values: dict[str, Any]) -> None:
    raw = values.get("sounds_dir")
    if raw and not Path(raw).is_dir():
        raise ConfigError("audio.sounds_dir", f"must be an existing folder, got {shown(raw)}")


def from_dict(data: dict[str, Any], base_dir: Path | None = None,
              source: Path | None = None) -> Config:
    """Validate a parsed TOML document and build the Config."""
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in SECTIONS:
            raise ConfigError(f"[{name}]", f"unknown section; allowed: {', '.join(SECTIONS)}")
        if not isinstance(value, dict):
            raise ConfigError(f"[{name}]", "must be a table ([section] header)")
        cls = SECTIONS[name]
        fields = {f.name: f for f in dataclasses.fields(cls)}
        hints = get_type_hints(cls)
        values: dict[str, Any] = {}
        for key, raw in value.items():
            dotted = f"{name}.{key}"
            if key not in fields:
                raise ConfigError(dotted, f"unknown key; allowed in [{name}]: "
                                          f"{', '.join(fields)}")
            values[key] = _check_value(dotted, hints[key], raw, fields[key].metadata["check"])
        if base_dir is not None:
            path_keys = {"data": ("dir",), "audio": ("sounds_dir",),
                         "game": ("house_rules",),
                         "mqtt": ("ca_file", "password_file")}.get(name, ())
            _resolve_paths(name, values, base_dir, path_keys)
        if name == "audio":
            _check_sounds_dir(values)
        sections[name] = cls(**values)
    config = Config(**sections, source=source)
    _check_game(config.game)
    _check_light(config.light)
    _check_pins(config)
    _check_mqtt(config.mqtt)
    return config


def _taken_pins(config: Config) -> list[tuple[str, int, str]]:
    """The pins the rest of the header uses: (key, BCM pin, role), a screen HAT's first."""
    taken = []
    if config.display.hat != "none":
        hat = HATS[config.display.hat]
        taken += [("display.hat", pin, f"{config.display.hat!r}: {role}")
                  for pin, role in hat.pins.items()]
    if config.audio.i2s:
        taken += [("audio.i2s", pin, role) for pin, role in I2S.items()]
    if config.reader.enabled and uses_header_uart(config.reader.port):
        taken += [("reader.port", pin, f"{config.reader.port}: {role}")
                  for pin, role in UART.items()]
    return taken


def _check_pins(config: Config) -> None:
    """One job per GPIO pin: a screen HAT, the sound's I2S pins, a reader on the UART, the
    block, the lever, the motor, the status LED and the light's three channels share none."""
    owners: dict[int, str] = {}
    for key, pin, role in _taken_pins(config):
        if pin in owners:
            raise ConfigError(key, f"BCM {pin} ({role}) is already {owners[pin]}; each part "
                                   "needs its own pin")
        owners[pin] = f"{key} ({role})"
    for key, pin, used in (("block.pin", config.block.pin, True),
                           ("lever.pin", config.lever.pin, config.lever.enabled),
                           ("lever.motor_pin", config.lever.motor_pin,
                            config.lever.motor_pin >= 0),
                           ("gpio.status_led_pin", config.gpio.status_led_pin,
                            config.gpio.status_led_pin >= 0),
                           *((f"light.{c}", getattr(config.light, c), config.light.fitted)
                             for c in ("red", "green", "blue"))):
        if not used:
            continue
        if pin in owners:
            raise ConfigError(key, f"BCM {pin} is already {owners[pin]}; each part needs its "
                                   "own pin")
        owners[pin] = key


def _check_light(light: LightConfig) -> None:
    """The light needs all three channels' pins, or none (-1) for no light."""
    pins = {"red": light.red, "green": light.green, "blue": light.blue}
    given = [c for c, pin in pins.items() if pin >= 0]
    if given and len(given) < 3:
        missing = next(c for c, pin in pins.items() if pin < 0)
        raise ConfigError(f"light.{missing}", f"must be a BCM pin too, as light.{given[0]} is "
                                              "set: the light needs red, green and blue (or "
                                              "all three -1 for no light)")


def _check_mqtt(mqtt: MqttConfig) -> None:
    """A password file must be the user's own secret (no group or other access), readable, and
    go with a user name; a CA file must exist. Checked when MQTT is on."""
    if not mqtt.enabled:
        return
    if mqtt.ca_file and not Path(mqtt.ca_file).is_file():
        raise ConfigError("mqtt.ca_file", f"must be an existing file, got {shown(mqtt.ca_file)}")
    if not mqtt.password_file:
        return
    if not mqtt.username:
        raise ConfigError("mqtt.username", "must be set when mqtt.password_file is: a broker "
                                           "takes a password only with a user name")
    from companion.password_file import SecretError, read_password

    try:
        read_password(Path(mqtt.password_file))
    except SecretError as exc:
        raise ConfigError("mqtt.password_file", str(exc)) from None


def _check_game(game: GameConfig) -> None:
    """The house rules must read, the edition must be one of them, and the players must fit
    it (e.g. Gamer and Wiggly Worms are for 2-4)."""
    try:
        known = game.rulesets()
    except RulesetError as exc:
        raise ConfigError("game.house_rules", str(exc)) from None
    if game.edition not in known:
        raise ConfigError("game.edition", f"must be one of {', '.join(repr(k) for k in known)}"
                                          f", got {shown(game.edition)}")
    rules = known[game.edition]
    if game.players and not rules.min_players <= len(game.players) <= rules.max_players:
        raise ConfigError("game.players", f"{rules.name} is for {rules.min_players}-"
                                          f"{rules.max_players} players, got "
                                          f"{len(game.players)}")


def load(path: Path) -> Config:
    """Read and validate a TOML config file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), "config file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), f"cannot read config file: {exc}") from None
    try:
        data = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer too long to convert
        raise ConfigError(str(path), f"not valid TOML: {shown(str(exc))[1:-1]}") from None
    return from_dict(data, base_dir=path.resolve().parent, source=path)


def example() -> str:
    """A complete, commented config file with every key at its default."""
    lines = ["# Question Block companion configuration (every key is optional).", ""]
    for name, cls in SECTIONS.items():
        lines.append(f"[{name}]  # {cls.__doc__}")
        for f in dataclasses.fields(cls):
            lines.append(f"# {f.metadata['help']}")
            lines.append(f"{f.name} = {_toml_value(f.default)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)
