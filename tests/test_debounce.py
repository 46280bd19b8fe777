"""Our own debounce, on gpiozero MockFactory pins (MockPin ignores bounce_time)."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.debounce import Debouncer
from companion.gpio.block_button import BlockButton

MS = 0.001


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, ms: float) -> None:
        self.now += ms * MS


def make_button(clock: FakeClock) -> tuple[BlockButton, list[float]]:
    presses: list[float] = []
    button = BlockButton(17, pin_factory=MockFactory(), debouncer=Debouncer(),
                         when_pressed=presses.append, clock=clock)
    return button, presses


def burst(button: BlockButton, clock: FakeClock, toggles: int, within_ms: float) -> None:
    """``toggles`` press/release edges spread over ``within_ms``, ending pressed."""
    pin = button.pin
    step = within_ms / toggles
    for i in range(toggles):
        if i % 2 == 0:
            pin.drive_low()
        else:
            pin.drive_high()
        clock.advance(step)
    pin.drive_low()


def test_ten_toggles_within_5ms_are_one_press_and_a_clean_press_100ms_later_is_another() -> None:
    clock = FakeClock()
    button, presses = make_button(clock)
    start = clock.now
    burst(button, clock, toggles=10, within_ms=5)
    assert presses == [start]  # reported on the first edge: no added latency
    clock.advance(20)
    button.pin.drive_high()
    clock.advance(100 - 25)
    button.pin.drive_low()
    assert len(presses) == 2
    button.pin.drive_high()
    button.close()


def test_held_button_with_late_bounce_and_glitches_is_one_press() -> None:
    clock = FakeClock()
    button, presses = make_button(clock)
    button.pin.drive_low()
    for wait_ms in (80, 300, 700, 1500):  # bounce ~80 ms after the press, then glitches
        clock.advance(wait_ms)
        button.pin.drive_high()
        clock.advance(1 + wait_ms / 100)  # each blip well under the 20 ms release settle
        button.pin.drive_low()
    assert len(presses) == 1
    assert button.debouncer.rejected == 4
    button.close()


def test_release_chatter_is_not_a_press() -> None:
    clock = FakeClock()
    button, presses = make_button(clock)
    button.pin.drive_low()
    clock.advance(150)
    for _ in range(6):  # contacts chatter on release
        button.pin.drive_high()
        clock.advance(1)
        button.pin.drive_low()
        clock.advance(1)
    button.pin.drive_high()
    assert len(presses) == 1
    button.close()


def test_quick_double_tap_inside_lockout_is_one_press_outside_is_two() -> None:
    clock = FakeClock()
    button, presses = make_button(clock)
    for gap_ms in (60, 150):
        button.pin.drive_low()
        clock.advance(10)
        button.pin.drive_high()
        clock.advance(gap_ms - 10)
    button.pin.drive_low()
    # Press at 0, tap at 60 (inside the 80 ms lockout: bounce), tap at 210: a new press.
    assert len(presses) == 2
    button.close()


def test_button_is_pressed_when_pin_is_low() -> None:
    clock = FakeClock()
    button, _ = make_button(clock)
    assert not button.is_pressed
    button.pin.drive_low()
    assert button.is_pressed
    button.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 12), st.floats(0.5, 5.0)), min_size=1, max_size=8),
       st.floats(100, 400))
def test_any_bursts_separated_by_quiet_are_one_press_each(
    bursts: list[tuple[int, float]], quiet_ms: float
) -> None:
    clock = FakeClock()
    button, presses = make_button(clock)
    for toggles, within in bursts:
        burst(button, clock, toggles, within)
        clock.advance(30)  # held
        button.pin.drive_high()
        clock.advance(quiet_ms)
    assert len(presses) == len(bursts)
    press_edges = sum(t // 2 + 1 for t, _ in bursts)  # the burst ends with the line low
    assert button.debouncer.rejected == press_edges - len(bursts)
    button.close()


def test_pure_debouncer_rules() -> None:
    d = Debouncer(lockout=0.08, settle=0.02)
    assert d.press_edge(0.0)
    assert not d.press_edge(0.5)  # no release seen since the last press: still held
    d.release_edge(0.6)
    assert not d.press_edge(0.61)  # released only 10 ms: chatter
    d.release_edge(0.62)
    assert d.press_edge(0.65)  # released 30 ms and 650 ms since the last press
    d.release_edge(0.66)
    assert not d.press_edge(0.70)  # released 40 ms but only 50 ms since the last press
    assert d.rejected == 3
