"""Our gpiod pin factory on real gpio-sim lines, in the guest (tests/machine/test_gpiod.py runs
``pytest`` on this file there; the host never collects it: its name is not ``test_*``).

gpiozero's own real-pin tests need two pins wired together; gpio-sim has no wires, so these are
their equivalents read back through gpio-sim's sysfs: an output line's ``value``, an input
line's level set by its ``pull`` (as guest/agent.py presses a button).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gpiod
import pytest
from gpiod.line import Direction
from gpiozero import Button, DigitalInputDevice, OutputDevice, PWMOutputDevice
from gpiozero.exc import GPIOPinInUse, PinFixedPull, PinPWMFixedValue, PinSetInput

from companion.core.debounce import Debouncer
from companion.core.light_show import GOLD, Step
from companion.gpio.block_button import BlockButton
from companion.gpio.gpiod_pins import GpiodFactory, header_chip
from companion.gpio.lever_switch import LeverSwitch
from companion.gpio.light import OutcomeLight
from companion.gpio.motor import Motor

LINES = Path(os.environ["PIBOX_LINES"])
SIM = Path("/sys/kernel/config/gpio-sim")


def sysfs(pin: int, name: str) -> str:
    return (LINES / f"sim_gpio{pin}" / name).read_text().strip()


def pull(pin: int, level: int) -> int:
    """The line pulled from outside (a button to ground, or let go); the monotonic ns just
    before."""
    edge = time.monotonic_ns()
    (LINES / f"sim_gpio{pin}" / "pull").write_text("pull-up" if level else "pull-down")
    return edge


def wait_for(what: str, check: Callable[[], Any], timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(f"never: {what}")


def used(pin: int) -> bool:
    with gpiod.Chip("/dev/gpiochip0") as chip:
        return chip.get_line_info(pin).used


@pytest.fixture
def factory() -> Iterator[GpiodFactory]:
    made = GpiodFactory()
    yield made
    made.close()


def test_the_header_chip_is_gpiochip0_here_as_lgpio_picks(factory: GpiodFactory) -> None:
    assert factory.chip_path == "/dev/gpiochip0" and factory.chip == 0
    assert "no chip labelled pinctrl-rp1" in factory.chip_reason
    assert factory.board_info.model == "4B"  # the cpuinfo make-pi.sh gives


def _sim_chip(name: str, label: str) -> Path:
    chip = SIM / name
    (chip / "bank0").mkdir(parents=True)
    (chip / "bank0" / "num_lines").write_text("4")
    (chip / "bank0" / "label").write_text(label)
    (chip / "live").write_text("1")
    return chip


def _drop_sim_chip(chip: Path) -> None:
    (chip / "live").write_text("0")
    (chip / "bank0").rmdir()
    chip.rmdir()


def test_a_chip_labelled_as_a_pis_header_wins_over_gpiochip0_and_a_pi_5s_first() -> None:
    chips = [_sim_chip("bcm2835", "pinctrl-bcm2835")]
    try:
        path, why = header_chip()
        assert path != "/dev/gpiochip0" and why == "labelled pinctrl-bcm2835"
        chips.append(_sim_chip("rp1", "pinctrl-rp1"))
        rp1, why = header_chip()
        assert why == "labelled pinctrl-rp1" and rp1 not in (path, "/dev/gpiochip0")
        with gpiod.Chip(rp1) as chip:
            assert chip.get_info().label == "pinctrl-rp1"
    finally:
        for chip in chips:
            _drop_sim_chip(chip)
    assert header_chip()[0] == "/dev/gpiochip0"


def test_an_output_drives_its_line(factory: GpiodFactory) -> None:
    device = OutputDevice(20, pin_factory=factory)
    assert sysfs(20, "value") == "0"
    device.on()
    assert sysfs(20, "value") == "1"
    device.off()
    assert sysfs(20, "value") == "0"
    device.close()
    active_low = OutputDevice(20, active_high=False, initial_value=False, pin_factory=factory)
    assert sysfs(20, "value") == "1"  # high from the start: no blip low
    active_low.close()


def test_an_inputs_pull_is_its_level_and_its_state_cannot_be_set(factory: GpiodFactory) -> None:
    pin = factory.pin(21)
    pin.input_with_pull("up")
    assert pin.state == 1 and sysfs(21, "pull") == "pull-up"
    pin.pull = "down"
    assert pin.state == 0 and sysfs(21, "pull") == "pull-down"
    with pytest.raises(PinSetInput):
        pin.state = 1
    pin.output_with_state(1)
    with pytest.raises(PinFixedPull):
        pin.pull = "up"
    with pytest.raises(PinFixedPull):  # GPIO2 has a physical pull-up on the header
        factory.pin(2).pull = "down"
    pin.close()


def test_an_edge_carries_the_kernels_time_to_when_changed(factory: GpiodFactory) -> None:
    pull(22, 1)
    pin = factory.pin(22)
    pin.input_with_pull("up")
    heard: list[tuple[float, int, int]] = []
    done = threading.Event()

    def changed(ticks: float, state: int) -> None:
        heard.append((ticks, state, time.monotonic_ns()))
        done.set()

    pin.when_changed = changed
    edge = pull(22, 0)
    assert done.wait(30)
    ticks, state, called = heard[0]
    assert state == 0
    assert edge <= ticks * 1e9 <= called  # the edge's own time, on time.monotonic()'s clock
    assert factory.ticks_diff(factory.ticks(), ticks) > 0
    pin.when_changed = None
    pull(22, 1)
    pin.close()


def test_a_press_is_timed_at_its_edge_and_debounced_by_us(factory: GpiodFactory) -> None:
    pull(23, 1)
    presses: list[float] = []
    button = BlockButton(23, pin_factory=factory, debouncer=Debouncer(),
                         when_pressed=presses.append)
    for count in (1, 2, 3):
        edge = pull(23, 0)
        wait_for("the press", lambda count=count: len(presses) == count)
        assert edge <= presses[-1] * 1e9 <= time.monotonic_ns()
        pull(23, 1)
        time.sleep(0.15)  # past the debouncer's 80 ms lockout (guest time)
    button.close()


def test_the_lever_reports_both_edges_with_their_times(factory: GpiodFactory) -> None:
    pull(24, 1)
    edges: list[tuple[float, bool]] = []
    lever = LeverSwitch(24, pin_factory=factory, when_changed=lambda t, c: edges.append((t, c)))
    pulled = pull(24, 0)
    wait_for("closed", lambda: edges and lever.is_closed)
    let_go = pull(24, 1)
    wait_for("open", lambda: len(edges) == 2)
    assert [c for _, c in edges] == [True, False]
    assert pulled <= edges[0][0] * 1e9 <= let_go <= edges[1][0] * 1e9
    lever.close()


def test_closing_releases_the_line_and_a_device_opened_again_works(
        factory: GpiodFactory) -> None:
    pull(25, 1)
    first = Button(25, pin_factory=factory)
    assert used(25)
    with pytest.raises(GPIOPinInUse):
        Button(25, pin_factory=factory)  # two devices on one pin, refused as gpiozero does
    first.close()
    assert not used(25)
    again = Button(25, pin_factory=factory)
    pressed = threading.Event()
    again.when_pressed = pressed.set
    pull(25, 0)
    assert pressed.wait(30)
    pull(25, 1)
    again.close()
    assert not used(25)


def test_a_line_another_program_holds_is_refused_naming_it(factory: GpiodFactory) -> None:
    other = subprocess.Popen(
        [sys.executable, "-c", "import gpiod, sys; from gpiod.line import Direction;"
         "r = gpiod.request_lines('/dev/gpiochip0', consumer='other-program', config={19: "
         "gpiod.LineSettings(direction=Direction.INPUT)}); print('held', flush=True);"
         "sys.stdin.read()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        with pytest.raises(GPIOPinInUse, match="GPIO19 is in use by other-program"):
            Button(19, pin_factory=factory)
    finally:
        assert other.stdin is not None
        other.stdin.close()
        other.wait()
    Button(19, pin_factory=factory).close()  # free again: ours


def test_idle_edge_lines_wake_nothing(factory: GpiodFactory) -> None:
    pull(26, 1)
    button = Button(26, pin_factory=factory)
    button.when_pressed = lambda: None
    watcher = next(t for t in threading.enumerate() if t.name == "gpiod-edges")
    status = Path(f"/proc/self/task/{watcher.native_id}/status")

    def switches() -> int:
        line = next(x for x in status.read_text().splitlines()
                    if x.startswith("voluntary_ctxt_switches"))
        return int(line.split()[1])

    wchan = Path(f"/proc/self/task/{watcher.native_id}/wchan")
    wait_for("the watch asleep in epoll", lambda: wchan.read_text() == "do_epoll_wait")
    before = switches()
    time.sleep(2)
    assert switches() == before  # asleep in epoll with no timeout: nothing woke it
    pull(26, 0)
    wait_for("the press woke it", lambda: switches() > before)
    pull(26, 1)
    button.close()
    factory.close()
    wait_for("its thread ended", lambda: not watcher.is_alive())


def _duty(pin: int, seconds: float = 1.0) -> float:
    samples = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        samples.append(sysfs(pin, "value") == "1")
        time.sleep(0.0007)
    return sum(samples) / len(samples)


def test_pwm_in_software_holds_its_duty(factory: GpiodFactory) -> None:
    device = PWMOutputDevice(16, frequency=100, pin_factory=factory)
    assert device.value == 0 and sysfs(16, "value") == "0"
    device.value = 0.25
    assert 0.1 <= _duty(16) <= 0.4
    device.value = 1
    assert _duty(16, 0.2) == 1.0
    device.close()
    assert sysfs(16, "value") == "0" and not used(16)
    with pytest.raises(PinPWMFixedValue):
        factory.pin(16).frequency = 100  # an input cannot
    factory.pin(16).close()


def test_the_motor_and_the_light_drive_their_lines(factory: GpiodFactory) -> None:
    motor = Motor(5, pin_factory=factory)
    motor.on()
    assert sysfs(5, "value") == "1" and motor.running
    motor.close()
    assert sysfs(5, "value") == "0" and not used(5)
    slow = Motor(5, pin_factory=factory, power=50)
    slow.on()
    assert 0.3 <= _duty(5) <= 0.7
    slow.close()
    light = OutcomeLight(12, 13, 6, pin_factory=factory, brightness=1.0)
    assert light.pwm  # colours, not just on and off
    light.play([Step(0.0, GOLD, 60.0)])  # red full, green at 0.6: a colour by PWM
    wait_for("gold", lambda: light.colour == GOLD)
    assert _duty(12, 0.2) == 1.0 and 0.4 <= _duty(13) <= 0.8 and _duty(6, 0.2) == 0.0
    light.close()
    assert [sysfs(p, "value") for p in (12, 13, 6)] == ["0", "0", "0"]
    assert not any(used(p) for p in (12, 13, 6))


def test_a_pin_turned_from_output_to_input_hears_edges(factory: GpiodFactory) -> None:
    pin = factory.pin(17)
    pin.output_with_state(1)
    pull(17, 1)
    device = DigitalInputDevice(17, pull_up=True, pin_factory=factory)
    heard = threading.Event()
    device.when_activated = heard.set  # pull_up: active when pulled low
    with gpiod.Chip("/dev/gpiochip0") as chip:
        assert chip.get_line_info(17).direction == Direction.INPUT
    pull(17, 0)
    assert heard.wait(30)
    pull(17, 1)
    device.close()
