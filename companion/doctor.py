"""``companion doctor``: check each part of the build and say, in one line each, what works.

Every check prints ``PASS``, ``FAIL`` (with a hint) or ``SKIP``. Required checks (config,
data folder, GPIO, audio) make the exit status 1 when they fail; the optional parts (reader,
screen, web port) only report.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import machine
from companion.config import Config


@dataclass(frozen=True)
class Result:
    name: str
    status: str  # PASS, FAIL, SKIP
    detail: str
    hint: str = ""
    required: bool = True

    def line(self) -> str:
        shown = "WARN" if self.status == "FAIL" and not self.required else self.status
        text = f"{shown:4}  {self.name:<10} {self.detail}"
        if self.status == "FAIL" and self.hint:
            text += f"\n      {'':<10} hint: {self.hint}"
        return text


def run_checks(config: Config, config_path: Path | None) -> list[Result]:
    """Every check, in the order a person would fix things."""
    checks: list[Callable[[Config], Result]] = [
        check_system, check_data, check_lgpio, check_gpio, check_audio, check_voice,
        check_reader, check_display, check_web, check_mqtt, check_running]
    results = [Result("config", "PASS", str(config_path) if config_path else "defaults "
                      "(no --config given)")]
    for check in checks:
        try:
            results.append(check(config))
        except Exception as exc:  # a check that breaks is a failed check, not a crash
            results.append(Result(check.__name__.removeprefix("check_"), "FAIL",
                                  f"the check itself failed: {exc}"))
    return results


def check_system(_config: Config) -> Result:
    """The board and its OS in one line (what a bug report needs first)."""
    return Result("system", "PASS", machine.summary(), required=False)


KEEP_THE_BANK = ("keep the data folder on the SD card: turn the overlay file system off "
                 "(sudo raspi-config nonint disable_overlayfs, then reboot), or set [data] dir "
                 "to a folder on a writable disk; README \"A read-only root\"")


def check_data(config: Config) -> Result:
    folder = config.data_dir
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Result("data", "FAIL", f"{folder} is not writable: {exc.strerror or exc}",
                      "run the doctor as the service's user (sudo -u companion ...), or set "
                      "[data] dir to a writable folder")
    from companion.bank import DB_NAME
    from companion.bank.store import BankUnavailable, folder_problem

    problem = folder_problem(folder)
    if problem is not None:
        return Result("data", "FAIL", problem, "free space on the SD card (or remount it "
                      "read-write); the companion keeps presses and saves them when it can")

    path = folder / DB_NAME
    if path.exists():
        try:
            from companion.bank.store import open_readonly

            open_readonly(path).close()
        except BankUnavailable as exc:
            return Result("data", "FAIL", str(exc), "see README \"The bank\" on broken files")
    gone = machine.volatile(folder)
    if gone is not None:
        mount, what = gone
        return Result("data", "FAIL", f"the bank would be lost at reboot: {folder} is on "
                      f"{what}, mounted at {mount.point}", KEEP_THE_BANK)
    if not path.exists():
        return Result("data", "PASS", f"{folder} writable (no bank yet: made at first start)")
    return Result("data", "PASS", f"{folder} writable, bank {path.name} readable")


def lgpio_hint() -> str:
    """How to get gpiozero's pin library into the Python that runs the companion: Debian's
    package, linked into a venv alone (never PyPI's, which may be an empty stub)."""
    fix = "sudo apt install python3-lgpio"
    if sys.prefix != sys.base_prefix:  # the installer's copy of the script, else a clone's
        script = Path(sys.prefix).parent / "src" / "systemd" / "debian-modules.sh"
        shown = script if script.exists() else "systemd/debian-modules.sh"
        fix += f", then sh {shown} {sys.prefix} (the installer and make do both)"
    return fix


def check_lgpio(config: Config) -> Result:
    """gpiozero's pin library on a Pi: Debian's lgpio, not PyPI's empty stub."""
    problem = machine.lgpio_problem()
    if problem is not None:
        return Result("lgpio", "FAIL", problem,
                      f"{sys.executable} -m pip uninstall -y lgpio; {lgpio_hint()}")
    origin = machine.lgpio_origin()
    if origin is None:
        if machine.model() is None:
            return Result("lgpio", "SKIP", "not installed (not needed off a Pi)",
                          required=False)
        if config.gpio.pin_factory in ("", "gpiod") and machine.gpiod_version():
            return Result("lgpio", "SKIP", f"not installed (gpiod {machine.gpiod_version()} "
                          "drives the pins; lgpio is only its fallback)", required=False)
        return Result("lgpio", "FAIL", "not installed: the pins can't be driven", lgpio_hint())
    return Result("lgpio", "PASS", f"from {origin}")


def check_gpio(config: Config) -> Result:
    from gpiozero import Button, OutputDevice

    from companion.gpio.pins import PinFactoryError, open_pin_factory

    broken = gpiozero_problem()
    if broken is not None:
        return Result("gpio", "FAIL", broken, "reinstall from the lock (gpiozero 2.0.1.post3 or "
                      "newer): sudo ./systemd/install.sh")
    try:
        choice = open_pin_factory(config.gpio.pin_factory)
    except PinFactoryError as exc:
        return Result("gpio", "FAIL", str(exc), f"on a Pi: {gpio_hint(config)}; elsewhere use "
                      "[gpio] pin_factory = \"mock\"")
    factory = choice.factory
    pins = [("block", config.block.pin, "in")]
    if config.lever.enabled:
        pins.append(("lever", config.lever.pin, "in"))
    if config.lever.motor_pin >= 0:
        pins.append(("motor", config.lever.motor_pin, "out"))
    if config.gpio.status_led_pin >= 0:
        pins.append(("status LED", config.gpio.status_led_pin, "out"))
    claimed = []
    try:
        with contextlib.ExitStack() as stack:
            for name, pin, direction in pins:
                try:
                    device = (Button(pin, pin_factory=factory) if direction == "in" else
                              OutputDevice(pin, initial_value=False, pin_factory=factory))
                except Exception as exc:
                    if service_running(config):  # GPIO lines are exclusive: it holds them
                        return Result("gpio", "PASS", "the pins are held by the running "
                                      "companion service (stop it to test them here)")
                    return Result("gpio", "FAIL", f"{name} pin BCM {pin}: {exc}",
                                  "is another program using the pin, or the user not in the "
                                  "gpio group?")
                stack.callback(device.close)
                claimed.append(f"{name} BCM {pin}")
    finally:
        with contextlib.suppress(Exception):
            factory.close()
    return Result("gpio", "PASS", f"claimed {', '.join(claimed)} ({factory_words(factory)}); "
                  f"pins by {choice}")


def gpio_hint(config: Config) -> str:
    """How to get a pin library: gpiod (ours, from the lock) needs the gpiochip's permission;
    lgpio, the fallback or the one named, comes from Debian."""
    if config.gpio.pin_factory in ("", "gpiod"):
        return ("the gpiod factory needs /dev/gpiochip* (sudo adduser $USER gpio); "
                f"for the lgpio fallback: {lgpio_hint()}")
    return lgpio_hint()


def factory_words(factory: Any) -> str:
    """The pin factory, the gpiochip it opened, and gpiozero's version."""
    from importlib.metadata import version

    words = type(factory).__name__
    number = getattr(factory, "chip", None)
    if isinstance(number, int):
        chip = machine.chip_info(number)
        words += f" on {chip}" if chip else f" on /dev/gpiochip{number}"
    return f"{words}; gpiozero {version('gpiozero')}"


def gpiozero_problem() -> str | None:
    """A gpiozero release that fails on this board (a Pi 5 with one of the broken 2.0.1s)."""
    from importlib.metadata import version

    found = version("gpiozero")
    board = machine.model() or ""
    if found in machine.BROKEN_GPIOZERO and "Raspberry Pi 5" in board:
        return (f"gpiozero {found} can't find a Pi 5's pins on kernels from 6.6.45 on "
                "(gpiozero #1166, #1229)")
    return None


def check_audio(config: Config) -> Result:
    from companion.audio.library import SoundLibrary
    from companion.audio.speaker import make_backend

    if config.audio.backend == "null":
        return Result("audio", "SKIP", "[audio] backend = \"null\": no sound by choice",
                      required=False)
    backend = make_backend(config.audio.backend, config.audio.device)
    try:
        backend.open()
    except Exception as exc:
        return Result("audio", "FAIL", f"{backend.name}: no output device: {exc}",
                      "aplay -l lists the cards; see hardware/README.md \"Audio\"")
    try:
        tick = SoundLibrary(config.sounds_dir).sounds["timer_tick"]
        playback = backend.play(tick)
        deadline = time.monotonic() + 2
        while playback.is_playing() and time.monotonic() < deadline:
            time.sleep(0.01)
    except Exception as exc:
        return Result("audio", "FAIL", f"{backend.name}: could not play: {exc}",
                      "is another program holding the device? hardware/asound.conf adds dmix")
    finally:
        with contextlib.suppress(Exception):
            backend.close()
    return Result("audio", "PASS", f"{backend.name}: played a short test tick")


def check_reader(config: Config) -> Result:
    cfg = config.reader
    if not cfg.enabled:
        return Result("reader", "SKIP", "[reader] enabled = false", required=False)
    import serial

    from companion.readers.pn532 import Pn532Error, Pn532Session
    from companion.readers.port import DEFAULT_BAUD

    baud = cfg.baudrate or DEFAULT_BAUD[cfg.protocol]
    if not os.path.exists(cfg.port):
        return Result("reader", "FAIL", f"{cfg.port} does not exist",
                      "plugged in? the udev rule: hardware/readers.md", required=False)
    try:
        with serial.Serial(cfg.port, baud, timeout=0.05, exclusive=True) as port:
            if cfg.protocol != "pn532":
                return Result("reader", "PASS", f"{cfg.port} opens ({cfg.protocol}, {baud} "
                              "baud); tap a card with: companion reader", required=False)
            session = Pn532Session(port)
            try:
                session.setup()
            except Pn532Error as exc:
                return Result("reader", "FAIL", f"{cfg.port}: the PN532 does not answer: {exc}",
                              "HSU mode set on the board? TX/RX crossed? 115200 baud?",
                              required=False)
            return Result("reader", "PASS", f"{cfg.port}: {session.firmware} answers",
                          required=False)
    except (serial.SerialException, OSError) as exc:
        if "lock" in str(exc).lower():
            return Result("reader", "PASS", f"{cfg.port} is open in another program (the "
                          "running companion?); stop it to test the reader here",
                          required=False)
        return Result("reader", "FAIL", f"{cfg.port}: {exc}",
                      "is the user in the dialout group? another program on the port?",
                      required=False)


def check_voice(config: Config) -> Result:
    """Spoken outcomes: espeak-ng speaks the table's language."""
    if not config.speech.enabled:
        return Result("voice", "SKIP", "[speech] enabled = false", required=False)
    from companion.i18n import LANGUAGES
    from companion.speech.voice import VoiceError, render

    language = LANGUAGES[config.table.language]
    try:
        line = render("1 2 3", language)
    except VoiceError as exc:
        return Result("voice", "FAIL", str(exc), "sudo apt install espeak-ng", required=False)
    return Result("voice", "PASS", f"espeak-ng speaks {language.name} ({line.seconds:.1f} s "
                  "for 1 2 3)", required=False)


def check_display(config: Config) -> Result:
    if not config.display.enabled:
        return Result("display", "SKIP", "[display] enabled = false", required=False)
    from companion.display.outputs import DisplayUnavailable, open_output

    try:
        output = open_output(config.display)
    except DisplayUnavailable as exc:
        return Result("display", "FAIL", str(exc), "hardware/display.md: which driver on "
                      "Raspberry Pi OS", required=False)
    name = output.name
    output.close()
    return Result("display", "PASS", f"{name} opens at {config.display.size}", required=False)


def check_web(config: Config) -> Result:
    cfg = config.web
    if not cfg.enabled:
        return Result("web", "SKIP", "[web] enabled = false", required=False)
    if cfg.port == 0:
        return Result("web", "PASS", "port 0: a free port is picked at start", required=False)
    lowest = _unprivileged_port_start()
    if cfg.port < lowest:
        return Result("web", "FAIL", f"port {cfg.port} needs privileges the service does not "
                      f"have (ports below {lowest})", "use a port such as 8080",
                      required=False)
    try:
        with _bound(cfg.host, cfg.port):
            pass
    except OSError:
        host = "127.0.0.1" if cfg.host in ("0.0.0.0", "::") else cfg.host
        if _is_companion(host, cfg.port):
            return Result("web", "PASS", f"port {cfg.port} is served by a running companion",
                          required=False)
        return Result("web", "FAIL", f"port {cfg.port} is taken by another program",
                      "choose another [web] port, or stop that program", required=False)
    return Result("web", "PASS", f"{cfg.host}:{cfg.port} is free", required=False)


def check_mqtt(config: Config) -> Result:
    """The broker takes the table's login (a few seconds at most; the table plays on without
    it either way)."""
    cfg = config.mqtt
    if not cfg.enabled:
        return Result("mqtt", "SKIP", "[mqtt] enabled = false", required=False)
    from companion.mqtt.probe import probe

    where = f"{cfg.host}:{cfg.port}"
    problem = probe(cfg)
    if problem is None:
        who = f"user {cfg.username!r}" if cfg.username else "anonymous"
        return Result("mqtt", "PASS", f"the broker at {where} takes the table ({who}"
                      f"{', TLS' if cfg.tls else ''})", required=False)
    return Result("mqtt", "FAIL", f"{where}: {problem}",
                  "is the broker running (Home Assistant's Mosquitto add-on)? [mqtt] host, "
                  "port, username and password_file", required=False)


def service_running(config: Config) -> bool:
    """The companion service runs on this machine (systemd says so, or its web answers)."""
    import shutil
    import subprocess

    if shutil.which("systemctl"):
        done = subprocess.run(["systemctl", "is-active", "--quiet", "companion.service"],
                              check=False, capture_output=True)
        if done.returncode == 0:
            return True
    cfg = config.web
    host = "127.0.0.1" if cfg.host in ("0.0.0.0", "::") else cfg.host
    return bool(cfg.enabled and cfg.port and _is_companion(host, cfg.port))


def _unprivileged_port_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_unprivileged_port_start").read_text())
    except (OSError, ValueError):
        return 1024


@contextlib.contextmanager
def _bound(host: str, port: int) -> Iterator[None]:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))
        yield


def _is_companion(host: str, port: int) -> bool:
    return _healthz(host, port) is not None


def _healthz(host: str, port: int) -> dict[str, Any] | None:
    """A running companion's ``/healthz`` (200 or 503, both say how it is); None when
    nothing, or something else, answers there."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/healthz", timeout=2) as reply:
            raw = reply.read()
    except urllib.error.HTTPError as exc:  # 503: running, and saying what is down
        raw = exc.read()
    except OSError:
        return None
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    return body if isinstance(body, dict) and "ok" in body else None


def check_running(config: Config) -> Result:
    """The running companion's own word (its ``/healthz``): the same truth as the status LED."""
    cfg = config.web
    if not cfg.enabled or not cfg.port:
        return Result("running", "SKIP", "no web port to ask", required=False)
    host = "127.0.0.1" if cfg.host in ("0.0.0.0", "::") else cfg.host
    health = _healthz(host, cfg.port)
    if health is None:
        return Result("running", "SKIP", f"no companion answers on {host}:{cfg.port}",
                      required=False)
    parts = health.get("parts", {})
    if health["ok"]:
        held = health.get("storage", {}).get("held", 0)
        said = "healthy: " + ", ".join(
            f"{name} {'ok' if p.get('ok') else 'missing (' + str(p.get('detail')) + ')'}"
            for name, p in parts.items()) + (f"; {held} held presses being saved" if held else "")
        sound = parts.get("sound", {})
        if sound and not sound.get("ok"):  # the table plays on, unheard: a warning
            return Result("running", "FAIL", said, "outcomes are shown, not heard; the "
                          "companion's log says why", required=False)
        return Result("running", "PASS", said)
    return Result("running", "FAIL", f"unhealthy: {health.get('error', 'a part is down')}",
                  "the status LED blinks too; held presses are saved as soon as the disk "
                  "takes them (see README \"When the disk refuses\")")
