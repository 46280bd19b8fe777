"""The editions' rulesets: every number against its rulebook line, the pure rules (starting coins,
capped payments, standings and winners) and the strict reading of edition files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.core.editions import Editions, editions, parse
from companion.core.editions.ruleset import Debt, End
from companion.core.editions.scoring import Seat, standings, winners
from companion.exc import Refused, RulesetError
from tests.conftest import ROOT
from tests.fixtures.make_rule_quotes import checked, flat, quotes

RULES = ROOT.parent / "shared" / "rules"
"""The rulebooks the numbers come from (the steering repository's shared/ beside main)."""

# Each edition's numbers, typed from reading its rulebook (the quotes are the lines):
EXPECTED = {
    "celebration": dict(
        players=(2, 6),  # the box: "2-6"
        start={n: 30 for n in range(2, 7)},  # "Banker, give each player:(Total = 30 coins)"
        go=2,  # "When you pass or land on the GO space, collect 2 coins from the Bank."
        jail=5,  # "Pay 5 coins at the start of your next turn"
        debt=Debt.BANKRUPTCY, end=End.LAST_PLAYER,
        modes=["question_block", "utility_rent"],
        fees={"bowser": 5, "game_over": 10},  # "Pay the Bank 5 coins." / "...10 coins."
    ),
    "movie": dict(
        players=(2, 6),  # "Number of Players: 2-6"
        start={n: 30 for n in range(2, 7)},  # "five 1 coins and five 5 coins"
        go=2,  # "you will collect two coins from the Bank"
        jail=1,  # "Pay one coin to the Bank at the start of your turn."
        debt=Debt.BANKRUPTCY, end=End.LAST_PLAYER,
        modes=["turn", "battle", "piranha", "super_star", "jail"],
        fees={"doubles_limit": 3},  # "If you roll doubles three times in a row"
    ),
    "gamer": dict(
        players=(2, 4),  # 4 Character Tokens; rules for two or three players
        start={2: 20, 3: 10, 4: 10},  # 5 x 1 + 1 x 5; "Each player starts with 20 Coins."
        go=2,  # "If you land on or pass GO, collect 2 Coins from the Bank."
        jail=5,  # "Pay 5 Coins to the Bank before you roll the dice for your turn."
        debt=Debt.CAPPED, end=End.POINTS, modes=["coin_block", "move", "boss"], fees={},
    ),
    "mario_kart": dict(
        players=(2, 4),  # "2-4 PLAYERS"
        start={2: 20, 3: 10, 4: 10},
        go=2, jail=5, debt=Debt.CAPPED, end=End.POINTS, modes=["item_box", "move", "race"],
        fees={},
    ),
    "wiggly_worms": dict(
        players=(2, 4),  # "Number of Players: 2-4"
        start={2: 0, 3: 0, 4: 0}, go=None, jail=None,
        debt=Debt.NONE, end=End.WORMS, modes=["lever"], fees={},
    ),
}


@pytest.mark.parametrize("edition", sorted(EXPECTED))
def test_each_editions_numbers_are_the_rulebooks(edition: str) -> None:
    rules = editions()[edition]
    want = EXPECTED[edition]
    assert (rules.min_players, rules.max_players) == want["players"]
    assert {n: r.value for n, r in rules.start.items()} == want["start"]
    assert (rules.pass_go.value if rules.pass_go else None) == want["go"]
    assert (rules.jail_fee.value if rules.jail_fee else None) == want["jail"]
    assert (rules.debt, rules.end) == (want["debt"], want["end"])
    assert [m.id for m in rules.modes] == want["modes"]
    assert dict(rules.default_mode.fees) == want["fees"]


def test_the_movies_own_numbers() -> None:
    movie = editions()["movie"]
    assert movie.toll is not None and movie.toll.value == 1  # "pay one coin to the Bank"
    assert movie.bowser_wins  # "Bowser wins the game. All of the players lose the game."
    # "If the total is seven or higher" / "both collect two coins from the Bank"
    assert dict(movie.mode("battle").fees) == {"target": 7, "prize": 2}
    # "You can attempt this three times." / "you have to pay the one coin"
    assert dict(movie.mode("jail").fees) == {"tries": 3, "fee": 1}
    rules = movie.to_json()
    assert rules["toll"]["value"] == 1 and rules["bowser_wins"]["quote"]
    assert next(m for m in rules["modes"] if m["id"] == "turn")["groups"] == {"doubles": "1/6"}
    assert all(editions()[e].toll is None for e in ("celebration", "gamer", "mario_kart"))


def test_points_and_worms_numbers() -> None:
    for edition in ("gamer", "mario_kart"):
        scoring = editions()[edition].scoring
        assert scoring is not None
        # "Every five Coins is worth 10 points."
        assert (scoring.every.value, scoring.points) == (5, 10)
        assert scoring.max_cards.value == 24  # 16 Title Deed cards + 8 Boss/Grand Prix cards
    worms = editions()["wiggly_worms"].worms
    assert worms is not None and worms.value == 5  # "all five worm cards of the color"
    assert editions()["wiggly_worms"].turn_quote and editions()["wiggly_worms"].at_once_quote


def test_every_quote_was_checked_against_its_rulebook() -> None:
    """The rulesets quote exactly the lines pinned in tests/fixtures/rule-quotes.json, which
    tests/fixtures/make_rule_quotes.py writes only after finding each one in its rulebook: a
    quote changed without that check fails here, rulebooks or not."""
    pinned = json.loads((ROOT / "tests" / "fixtures" / "rule-quotes.json").read_text())
    assert set(pinned) == set(editions())
    for edition, rules in editions().items():
        assert pinned[edition]["rulebook"] == rules.rulebook
        assert sorted({flat(q) for q in quotes(rules)}) == pinned[edition]["quotes"], edition
        assert len(pinned[edition]["quotes"]) >= 5


@pytest.mark.skipif(not RULES.is_dir(), reason="the rulebooks (shared/rules) are not beside "
                                              "this checkout; the pinned quotes are checked "
                                              "above")
def test_the_pinned_quotes_are_lines_of_the_rulebooks() -> None:
    pinned = json.loads((ROOT / "tests" / "fixtures" / "rule-quotes.json").read_text())
    assert checked(RULES) == pinned  # the same lines, found in the same rulebook texts


def test_every_number_has_its_line_beside_it() -> None:
    for rules in editions().values():
        for rule in (rules.players, *rules.start.values(), rules.pass_go, rules.jail_fee):
            if rule is not None:
                assert rule.quote and all(q.strip() for q in rule.quote)
        for mode in rules.modes:
            assert mode.quote


# -- the pure rules ----------------------------------------------------------------------------


def test_starting_coins_follow_the_player_count_and_refuse_a_fifth_gamer() -> None:
    gamer = editions()["gamer"]
    assert (gamer.start_coins(2), gamer.start_coins(3), gamer.start_coins(4)) == (20, 10, 10)
    with pytest.raises(Refused, match="Monopoly Gamer is for 2 to 4 players, got 5"):
        gamer.start_coins(5)
    with pytest.raises(Refused, match="2 to 4 players, got 5"):
        gamer.check_players(5)


def test_capped_payments_pay_what_there_is() -> None:
    gamer, celebration = editions()["gamer"], editions()["celebration"]
    assert [gamer.payable(5, b) for b in (9, 5, 3, 0, -2)] == [5, 5, 3, 0, 0]
    assert [celebration.payable(5, b) for b in (9, 3, -2)] == [5, 5, 5]  # may go below zero


def test_the_mario_kart_worked_example_scores_150() -> None:
    # "This player owns 3 Properties, won 2 Races, and has 13 Coins. 70 POINTS 60 POINTS
    # 10 POINTS 10 POINTS 0 POINTS TOTAL: 150 Points"
    kart = editions()["mario_kart"]
    assert kart.scoring is not None and kart.scoring.coin_points(13) == 20
    table = standings(kart, [Seat(1, 13, points=70 + 60, cards=5), Seat(2, 40, points=60)])
    assert (table[0].player, table[0].total, table[0].rank) == (1, 150, 1)
    assert (table[1].total, table[1].rank) == (60 + 80, 2)


def test_a_points_tie_goes_to_the_most_cards_then_is_shared() -> None:
    gamer = editions()["gamer"]
    seats = [Seat(1, 10, points=100, cards=3), Seat(2, 14, points=100, cards=5),
             Seat(3, 12, points=100, cards=5)]
    table = standings(gamer, seats)
    assert [(s.player, s.rank) for s in table] == [(2, 1), (3, 1), (1, 3)]
    assert winners(gamer, seats) == (2, 3)  # the rulebook is silent: a shared win
    assert winners(gamer, seats[:2]) == (2,)


def test_last_player_standings_and_winner() -> None:
    celebration = editions()["celebration"]
    seats = [Seat(1, 0, out_order=1), Seat(2, 57), Seat(3, 0, out_order=2), Seat(4, 12)]
    table = standings(celebration, seats)
    assert [s.player for s in table] == [2, 4, 3, 1]  # in by coins, then the last out first
    assert [s.out for s in table] == [False, False, True, True]
    assert winners(celebration, seats) == (2, 4)
    assert winners(celebration, [*seats[:3], Seat(4, 0, out_order=3)]) == (2,)


def test_worms_standings_and_winner() -> None:
    worms = editions()["wiggly_worms"]
    seats = [Seat(1, 0, worms=3), Seat(2, 0, worms=5), Seat(3, 0, worms=3)]
    assert [(s.player, s.rank, s.worms) for s in standings(worms, seats)] == [
        (2, 1, 5), (1, 2, 3), (3, 2, 3)]
    assert winners(worms, seats) == (2,)


def test_the_rules_json_carries_every_number_and_odds() -> None:
    data = editions()["celebration"].to_json()
    assert data["players"] == {"min": 2, "max": 6, "quote": [
        "Fast-Dealing Property Trading Game cBRANDE95178+2-6"]}
    assert data["jail_fee"]["value"] == 5 and data["pass_go"]["value"] == 2
    assert data["debt"]["rule"] == "bankruptcy" and data["end"]["rule"] == "last_player"
    block = data["modes"][0]
    assert block["odds"]["bowser"] == "1/3" and block["fees"] == {"bowser": 5, "game_over": 10}
    assert data["modes"][1]["needs"] == ["payer", "owner", "utilities"]
    named = [(q["label"], q["coins"]) for q in data["quick_amounts"] if q["named"]]
    assert named == [("Jail 5", 5), ("GO 2", 2)]  # the pad's own amounts, from the rules
    assert editions()["wiggly_worms"].to_json()["quick_amounts"] == []  # no coins, no pad


# -- reading edition files strictly ------------------------------------------------------------


def _celebration_toml() -> str:
    return (ROOT / "companion" / "core" / "editions" / "celebration.toml").read_text()


@pytest.mark.parametrize(("change", "words"), [
    (("max = 6", "max = 9"), "players.max: must be between 2 and 6"),
    (("coins = 30", "coins = -1"), "start[0].coins: must be between 0 and 10000"),
    (("players = [2, 3, 4, 5, 6]", "players = [2, 3, 4, 5]"), "every player count 2-6"),
    (("fee = 5", 'fee = "5"'), "jail.fee: must be int"),
    (('rule = "bankruptcy"', 'rule = "cheating"'), "debt.rule: must be one of"),
    (("default = true", "default = false"), "exactly one mode must be the default"),
    (('table = "utility_rent"', 'table = "roulette"'), "table: must be one of"),
    (("bowser = 5, ", ""), "question_block needs bowser, game_over"),
    (('id = "celebration"', 'id = "celebration"\ncolour = "red"'), "unknown keys ['colour']"),
])
def test_bad_edition_files_name_the_key(change: tuple[str, str], words: str) -> None:
    import tomllib

    text = _celebration_toml().replace(*change, 1)
    with pytest.raises(RulesetError, match=re.escape(words)):
        parse(tomllib.loads(text), "celebration.toml")


@pytest.mark.parametrize(("change", "words"), [
    (("doubles_limit = 3", "doubles_limit = 0"), "fees.doubles_limit: must be between 1"),
    (("target = 7", ""), "battle needs target, prize"),
    (('label = "Continue cost"', 'label = ""'), "reasons[0]: label must be words"),
    (('note = "Continue cost', 'colour = "red"\nnote = "Continue cost'),
     "reasons[0]: unknown keys ['colour']"),
    (("[toll]\ncoins = 1", "[toll]\ncoins = 0"), "toll.coins: must be between 1 and 1000"),
    (('id = "jail"\nname = "Roll for doubles (in Jail)"\ntable = "jail_roll"',
      'id = "jail"\nname = "Roll for doubles (in Jail)"\ntable = "jail_roll"\ndefault = true'),
     "exactly one mode must be the default"),
])
def test_bad_movie_files_name_the_key(change: tuple[str, str], words: str) -> None:
    import tomllib

    movie = (ROOT / "companion" / "core" / "editions" / "movie.toml").read_text()
    assert change[0] in movie
    with pytest.raises(RulesetError, match=re.escape(words)):
        parse(tomllib.loads(movie.replace(*change, 1)), "movie.toml")


@pytest.mark.parametrize(("change", "words"), [
    (('spaces = ["GO", "Just Visiting",', 'spaces = ["GO",'),
     "board.spaces: must name 'Just Visiting'"),
    (('spaces = ["GO", "Just Visiting",', 'spaces = ["GO", "go", "Just Visiting",'),
     "board.spaces: a space is named twice"),
    (('spaces = ["GO", "Just Visiting",', 'spaces = ["", "Just Visiting",'),
     "board.spaces: must be a list of the rulebook's lines"),
    (("[board]\n", "[board]\ncolour = 1\n"), "board: unknown keys ['colour']"),
])
def test_bad_board_files_name_the_key(change: tuple[str, str], words: str) -> None:
    import tomllib

    gamer = (ROOT / "companion" / "core" / "editions" / "gamer.toml").read_text()
    assert change[0] in gamer
    with pytest.raises(RulesetError, match=re.escape(words)):
        parse(tomllib.loads(gamer.replace(*change, 1)), "gamer.toml")


def test_rolling_out_of_jail_cannot_be_the_default_press() -> None:
    import tomllib

    movie = (ROOT / "companion" / "core" / "editions" / "movie.toml").read_text()
    swapped = movie.replace('table = "two_dice"\ndefault = true', 'table = "two_dice"', 1) \
        .replace('table = "jail_roll"', 'table = "jail_roll"\ndefault = true', 1)
    assert swapped.count("default = true") == 1
    with pytest.raises(RulesetError, match="rolling out of Jail can't be the default mode"):
        parse(tomllib.loads(swapped), "movie.toml")


def test_house_rules_replace_an_editions_numbers(tmp_path: Path) -> None:
    house = tmp_path / "house"
    house.mkdir()
    (house / "celebration.toml").write_text(
        _celebration_toml().replace("fees = { bowser = 5, game_over = 10 }",
                                    "fees = { bowser = 3, game_over = 7 }")
        .replace("coins = 2\n", "coins = 4\n"))
    known = editions().with_house_rules(house)
    assert isinstance(known, Editions) and known.house_rules == house
    rules = known["celebration"]
    assert rules.house and dict(rules.default_mode.fees) == {"bowser": 3, "game_over": 7}
    assert rules.pass_go is not None and rules.pass_go.value == 4
    assert {"coins": 4, "label": "GO 4", "named": True, "id": "pass_go",
            "label_said": {"m": "{word} {coins}", "a": {"word": {"m": "GO"}, "coins": 4}}
            } in rules.quick_amounts()
    assert known["gamer"] is editions()["gamer"]  # the others as packaged
    (house / "broken.toml").write_text("id = ")
    with pytest.raises(RulesetError, match=r"broken\.toml: not valid TOML"):
        editions().with_house_rules(house)
    with pytest.raises(RulesetError, match="cannot read the house rules folder"):
        editions().with_house_rules(tmp_path / "nowhere")
