"""Issue 31's budget: a typical Gamer and Mario Kart turn in at most five taps and no keystroke
once the board is described, played one after another through the page on a phone
(:mod:`tests.turn_taps`, which also prints the figures), every coin accounted for after each."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.turn_taps import BUDGET, GAMES, measure


@pytest.mark.parametrize("edition", sorted(GAMES))
def test_each_typical_turn_is_within_the_budget(browser: Browser, edition: str) -> None:
    turns = measure(browser, edition)
    assert len(turns) >= 5
    for turn in turns:
        assert turn["taps"] <= BUDGET["taps"], turn
        assert turn["keystrokes"] == BUDGET["keystrokes"], turn
        assert turn["scrolled_px"] == 0, turn  # nothing out of the thumb's reach
    taps = {t["turn"]: t["taps"] for t in turns}
    if edition == "gamer":  # the die, the offer, Next; the die, the face, who, Next
        assert taps == {"coin_block": 3, "buy": 3, "scoop_and_shell": 5, "rent": 3, "pow": 4,
                        "scoop": 2}
    else:
        assert taps == {"item_box": 3, "boost_pad": 3, "lightning": 4, "rent": 3,
                        "thwomp_and_shell": 5}
