"""Boss fights and Races as pure state (no bank, no hardware): whose choice, passes for good,
a loser's second chance, the pot on the card; places from rolls, every tie re-rolled among
the tied, one place at a time."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.core.editions.contests import (
    BossCard,
    Fight,
    PrixCard,
    Race,
    seat_order,
    standing,
    win_chance,
)
from companion.exc import Refused

BOSS = BossCard(3, cost=2, required=4, to_card=True, bonus=3, points=20)
PRIX = PrixCard(2, fee=1, prizes=(5, 2), points=30)


def test_the_flipper_chooses_first_then_the_left_and_a_pass_is_final() -> None:
    fight = Fight.opened(BOSS, seat_order([1, 2, 3, 4], 3))
    assert fight.order == (3, 4, 1, 2) and fight.up == 3
    with pytest.raises(Refused, match="player 3 fights or passes first"):
        fight.fight(1)
    fight = fight.passes(3).fight(4)
    assert fight.fighter == 4 and fight.up is None and fight.pot == 2
    with pytest.raises(Refused, match="press the block"):
        fight.passes(1)
    fight = fight.rolled(3)  # lost: the next who has not passed
    assert fight.up == 1 and fight.fighter is None and fight.rolls == ((4, 3),)
    fight = fight.passes(1).passes(2)
    assert fight.up == 4  # round to the loser, who may fight again
    fight = fight.fight(4).rolled(4)
    assert fight.winner == 4 and fight.over and fight.pot == 4 and not fight.got_away


def test_a_boss_gets_away_when_everyone_passes() -> None:
    fight = Fight.opened(BOSS, (1, 2))
    fight = fight.passes(1).passes(2)
    assert fight.over and fight.got_away and fight.up is None
    with pytest.raises(Refused, match="is over"):
        fight.fight(1)


def test_win_chance_is_seven_minus_the_required_roll_over_six() -> None:
    assert [str(win_chance(r)) for r in range(1, 7)] == ["1", "5/6", "2/3", "1/2", "1/3",
                                                         "1/6"]


def test_places_follow_the_rolls_and_ties_re_roll_among_the_tied() -> None:
    assert standing((1, 2, 3), ()).roller == 1
    now = standing((1, 2, 3), (4, 4, 4))
    assert now.places == () and now.tied == (1, 2, 3) and now.roller == 1
    now = standing((1, 2, 3), (4, 4, 4, 2, 6, 5))
    assert now.places == (2, 3, 1) and now.roller is None
    now = standing((1, 2, 3), (3, 6, 3))  # 2 first; 1 and 3 tie for second
    assert now.places == (2,) and now.tied == (1, 3) and now.roller == 1
    assert standing((1, 2, 3), (3, 6, 3, 1, 1, 2, 5)).places == (2, 3, 1)
    assert standing((7,), ()).places == (7,)  # a lone entrant wins without a roll


@given(st.lists(st.integers(1, 6), max_size=40), st.integers(1, 4))
def test_any_rolls_give_distinct_places_in_order_until_someone_must_roll(
        rolls: list[int], n: int) -> None:
    entrants = tuple(range(1, n + 1))
    now = standing(entrants, rolls)
    assert len(set(now.places)) == len(now.places) and set(now.places) <= set(entrants)
    assert (now.roller is None) == (len(now.places) == n)
    if now.roller is not None:
        assert now.roller in entrants and now.roller not in now.places


def test_a_race_takes_entries_then_rolls_and_pays_by_place() -> None:
    race = Race(PRIX, (1, 2, 3))
    with pytest.raises(Refused, match="nobody has entered"):
        race.start()
    race = race.enter(3).enter(1).start()
    with pytest.raises(Refused, match="entries are closed"):
        race.enter(2)
    assert race.standing.roller == 1  # from the flipper, whatever the order of entry
    race = race.rolled(2).rolled(5)
    assert race.over and race.winner == 3 and race.prizes() == [(3, 5), (1, 2)]
    final = Race(PRIX, (1, 2), final=True).enter(1).start()
    assert final.winner == 1 and final.prizes() == []  # the final Race's prize: a rematch
    rematch = Race(PRIX, (1, 2), final=True, rematch=True).enter(2).start()
    assert rematch.prizes() == [(2, 5)]


@pytest.mark.parametrize(("values", "words"), [
    ({"cost": -1, "required": 4, "bonus": 0, "points": 5}, "cost must be"),
    ({"cost": 1, "required": 0, "bonus": 0, "points": 5}, "required must be"),
    ({"cost": 1, "required": 3, "bonus": 0, "points": 5, "pay_to": "boss"}, "pay_to must be"),
    ({"cost": 1, "required": 3, "bonus": True, "points": 5}, "bonus must be"),
])
def test_a_boss_cards_typed_numbers_are_checked(values: dict[str, object], words: str) -> None:
    with pytest.raises(Refused, match=words):
        BossCard.typed(1, values)


def test_a_grand_prix_cards_prizes_are_checked() -> None:
    with pytest.raises(Refused, match="prizes must list"):
        PrixCard.typed(1, {"fee": 1, "prizes": [], "points": 1})
    with pytest.raises(Refused, match="prizes must be"):
        PrixCard.typed(1, {"fee": 1, "prizes": [1, "x"], "points": 1})
    assert PrixCard.typed(1, {"fee": 1, "prizes": [3, 0], "points": 1}).prizes == (3, 0)
