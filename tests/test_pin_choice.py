"""Which pin factory the companion takes and what it says about it, on a host without GPIO:
ours on libgpiod v2 first (it finds no gpiochip here, and says so), gpiozero's mock pins standing
in for lgpio, which is absent here (the machine tier has both for real: test_gpiod.py); and
the edge's own time carried to the press, on gpiozero's mock pins."""

from __future__ import annotations

import glob
import itertools
import os
import threading
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from companion import doctor, machine
from companion.config import from_dict
from companion.core.debounce import Debouncer
from companion.gpio import pins
from companion.gpio.block_button import BlockButton
from companion.gpio.edge_time import EdgeClock, StampedButton
from companion.gpio.edge_watch import EdgeWatch
from companion.gpio.lever_switch import LeverSwitch
from companion.gpio.pins import PinFactoryError, open_pin_factory
from companion.gpio.soft_pwm import SoftPwm
from tests.conftest import run_companion

NO_CHIP = "gpiod unavailable: no gpiochip can be opened"
needs_no_gpiochip = pytest.mark.skipif(bool(glob.glob("/dev/gpiochip*")),
                                       reason="this machine has a gpiochip")


@needs_no_gpiochip
def test_without_a_gpiochip_the_next_factory_is_taken_and_the_reason_said(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    choice = open_pin_factory("", order=("gpiod", "mock"))
    try:
        assert isinstance(choice.factory, MockFactory)
        assert str(choice).startswith(f"mock ({NO_CHIP} (/dev/gpiochip*: none")
    finally:
        choice.factory.close()
    assert pins.DEFAULT_ORDER[:2] == ("gpiod", "lgpio")


@needs_no_gpiochip
def test_doctor_names_the_fallback_it_took_and_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(pins, "DEFAULT_ORDER", ("gpiod", "lgpio", "mock"))
    result = doctor.check_gpio(from_dict({"block": {"pin": 26}}))
    assert result.status == "PASS", result
    assert result.detail.endswith(f"pins by mock ({NO_CHIP} (/dev/gpiochip*: none, or no "
                                  "permission: is the user in the gpio group?); lgpio "
                                  "unavailable: No module named 'lgpio')"), result.detail


@needs_no_gpiochip
def test_gpiod_named_by_config_or_environment_is_ours_and_its_failure_is_told(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert from_dict({"gpio": {"pin_factory": "gpiod"}}).gpio.pin_factory == "gpiod"
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "gpiod")
    with pytest.raises(PinFactoryError, match=r"'gpiod' \(\$GPIOZERO_PIN_FACTORY\) "
                                              r"unavailable: no gpiochip can be opened"):
        open_pin_factory("")
    result = doctor.check_gpio(from_dict({"gpio": {"pin_factory": "gpiod"}}))
    assert result.status == "FAIL" and "[gpio] pin_factory" in result.detail
    assert "sudo adduser $USER gpio" in result.hint and "python3-lgpio" in result.hint


def test_a_libgpiod_v1_is_refused_naming_it(tmp_path: Path) -> None:
    """Debian bookworm's python3-libgpiod (1.6.3) imports as ``gpiod`` too, with v1's API."""
    v1 = tmp_path / "site" / "gpiod"
    v1.mkdir(parents=True)
    (v1 / "__init__.py").write_text('__version__ = "1.6.3"\n\ndef chip_open(path): ...\n')
    config = tmp_path / "companion.toml"
    config.write_text(f'[audio]\nbackend = "null"\n[gpio]\npin_factory = "gpiod"\n'
                      f'[data]\ndir = "{tmp_path / "data"}"\n[web]\nenabled = false\n')
    done = run_companion("doctor", "--config", str(config),
                         env={**os.environ, "PYTHONPATH": str(tmp_path / "site")})
    gpio = next(line for line in done.stdout.splitlines() if line[6:].startswith("gpio"))
    assert gpio.startswith("FAIL") and f"gpiod 1.6.3 at {v1 / '__init__.py'} is libgpiod v1" \
        in gpio, done.stdout
    assert machine.gpiod_version() == "2.5.0"  # the lock's, here


def test_on_a_pi_without_lgpio_the_doctor_skips_it_when_gpiod_drives_the_pins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    monkeypatch.setattr(machine, "MODEL_FILES", (model,))
    monkeypatch.setattr(machine, "lgpio_origin", lambda: None)
    result = doctor.check_lgpio(from_dict({}))
    assert result.status == "SKIP" and "gpiod 2.5.0 drives the pins" in result.detail
    result = doctor.check_lgpio(from_dict({"gpio": {"pin_factory": "lgpio"}}))
    assert result.status == "FAIL"


class StampingMock(MockFactory):
    """gpiozero's mock pins, whose edges carry a time set beforehand (as the gpiod factory's
    carry the kernel's; a MockPin's ticks are the time of its last change)."""

    stamp = 0.0

    def __init__(self) -> None:
        super().__init__(pin_class=StampedMockPin)


class StampedMockPin(MockPin):
    def _change_state(self, value: bool) -> bool:
        changed = bool(super()._change_state(value))
        if changed:
            self._last_change = self.factory.stamp
        return changed


def test_a_press_carries_its_edges_own_time_where_the_factory_stamps_one() -> None:
    factory = StampingMock()
    presses: list[float] = []
    button = BlockButton(17, pin_factory=factory, debouncer=Debouncer(),
                         when_pressed=presses.append)
    factory.stamp = time.monotonic() - 1.0  # the kernel saw it a while before we hear it
    button.pin.drive_low()
    assert presses == [factory.stamp]
    factory.stamp = time.monotonic() - 0.5
    button.pin.drive_high()
    factory.stamp = 0.0  # not on time.monotonic()'s clock: not used
    heard = time.monotonic()
    button.pin.drive_low()
    assert len(presses) == 2 and presses[1] >= heard
    button.close()
    stamped = StampedButton(19, pin_factory=factory)
    stamped.edge_ticks = time.monotonic() + 60  # in the future: not used either
    assert EdgeClock(factory, time.monotonic)(stamped) < stamped.edge_ticks
    stamped.close()


def test_an_injected_clock_is_kept_and_the_lever_carries_stamps_too() -> None:
    factory = StampingMock()
    factory.stamp = time.monotonic() - 0.002
    presses: list[float] = []
    button = BlockButton(17, pin_factory=factory, debouncer=Debouncer(),
                         when_pressed=presses.append, clock=lambda: 1000.0)
    button.pin.drive_low()
    assert presses == [1000.0]  # tests and the demo keep their own clock
    button.close()
    edges: list[tuple[float, bool]] = []
    lever = LeverSwitch(18, pin_factory=factory, when_changed=lambda t, c: edges.append((t, c)))
    lever.pin.drive_low()
    assert edges == [(factory.stamp, True)]
    lever.close()


def _voluntary_switches(thread: threading.Thread) -> int:
    status = Path(f"/proc/self/task/{thread.native_id}/status").read_text()
    return int(next(x for x in status.splitlines()
                    if x.startswith("voluntary_ctxt_switches")).split()[1])


def _waiting_forever(thread: threading.Thread) -> bool:
    """Asleep in epoll_wait (x86-64's 232, else the kernel's wait channel) with no timeout."""
    task = Path(f"/proc/self/task/{thread.native_id}")
    if (task / "wchan").read_text() != "do_epoll_wait":
        return False
    call = (task / "syscall").read_text().split()
    return call[0] != "232" or int(call[4], 16) in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)


def test_the_edge_watch_sleeps_until_a_descriptor_is_readable() -> None:
    watch = EdgeWatch(name="test-edges")
    read_end, write_end = os.pipe()
    heard = threading.Event()
    watch.watch(read_end, lambda: (os.read(read_end, 64), heard.set()))
    thread = next(t for t in threading.enumerate() if t.name == "test-edges")
    deadline = time.monotonic() + 30
    while not _waiting_forever(thread):
        assert time.monotonic() < deadline, "the watch never waited in epoll without a timeout"
        time.sleep(0.01)
    asleep = _voluntary_switches(thread)
    time.sleep(0.3)
    assert _voluntary_switches(thread) == asleep and _waiting_forever(thread)  # not woken
    os.write(write_end, b"x")
    assert heard.wait(10)
    watch.unwatch(read_end)
    watch.close()
    assert not thread.is_alive()
    os.close(read_end)
    os.close(write_end)


def test_software_pwm_toggles_only_between_steady_levels() -> None:
    pwm = SoftPwm(name="test-pwm")
    writes: list[bool] = []
    changed = threading.Condition()

    def write(level: bool) -> None:
        with changed:
            writes.append(level)
            changed.notify_all()

    pwm.set("pin", write, 1000, 0.0)
    pwm.set("pin", write, 1000, 1.0)
    assert writes == [False, True]  # steady levels at once, no thread needed
    assert not any(t.name == "test-pwm" for t in threading.enumerate())
    pwm.set("pin", write, 1000, 0.5)
    with changed:
        assert changed.wait_for(lambda: len(writes) >= 12, timeout=30)
    toggles = writes[2:12]
    assert all(a != b for a, b in itertools.pairwise(toggles))
    pwm.close()
    assert not any(t.name == "test-pwm" for t in threading.enumerate())


def test_gpiozero_factories_are_named_as_its_own_entry_points_say() -> None:
    """The factories built without reading every package's metadata are gpiozero's own, by the
    names and classes its entry points give (an upgrade that moved one fails here)."""
    from importlib.metadata import entry_points

    from companion.gpio.pins import GPIOZERO_FACTORIES, build

    assert {ep.name: ep.value for ep in entry_points(group="gpiozero_pin_factories")
            } == GPIOZERO_FACTORIES
    factory = build("mock")
    try:
        assert type(factory).__name__ == "MockFactory"
    finally:
        factory.close()
