"""Every screen at every size preset, headless: the right words and numbers are really on the
picture (checked against a reference rendering of each label), inside it, never drawn over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame

from companion.core.editions import editions
from companion.core.outcomes import TWO_DICE, Kind
from companion.display import SIZES as DISPLAY_SIZES
from companion.display.previews import GAMER_BOARD, SAMPLE_LINK, sample_scenes, size_of
from companion.display.qr import qr_geometry, qr_matrix
from companion.display.render import (
    BLACK_DIE,
    BOARD_BAND,
    BOARD_LABEL,
    BOWSER_WAITS,
    GOLD,
    GOLD_DARK,
    RED_DIE,
    DieStyle,
    Label,
    font,
    render,
)
from companion.display.scene import OutcomeFace, PlayerRow, Scene
from tests.conftest import run_companion
from tests.test_display_model import BOSS_CARD, Table, bank_in, final_race

SCENES = sample_scenes()
CASES = [(size, name) for size in DISPLAY_SIZES for name in SCENES]


def drawn(scene: Scene, size: str) -> tuple[pygame.Surface, list[Label]]:
    surface = pygame.Surface(size_of(size))
    return surface, render(scene, surface)


def assert_visible(surface: pygame.Surface, label: Label) -> None:
    """The label's glyphs are on the frame: every solid pixel of a reference rendering of the
    same text has the label's colour on the frame (nothing drew over it)."""
    reference = font(label.size).render(label.text, True, (255, 255, 255), (0, 0, 0))
    solid = [(x, y) for x in range(reference.get_width()) for y in range(reference.get_height())
             if reference.get_at((x, y))[:3] == (255, 255, 255)]
    assert solid, f"{label.text!r} has no pixels"
    hits = sum(surface.get_at((label.rect.left + x, label.rect.top + y))[:3] == label.colour
               for x, y in solid)
    assert hits == len(solid), f"{label.text!r}: only {hits}/{len(solid)} pixels shown"


@pytest.mark.parametrize(("size", "name"), CASES)
def test_every_label_is_inside_readable_and_not_overdrawn(size: str, name: str) -> None:
    assert_fits(*drawn(SCENES[name], size), size)


def assert_fits(surface: pygame.Surface, labels: list[Label], size: str) -> None:
    """Every label inside the frame, 10px or more, all its pixels shown, none over another."""
    bounds = surface.get_rect()
    for i, label in enumerate(labels):
        assert bounds.contains(label.rect), f"{label.text!r} at {label.rect} leaves {size}"
        assert label.size >= 10, f"{label.text!r} is {label.size}px: unreadable"
        assert_visible(surface, label)
        for other in labels[i + 1:]:
            assert not label.rect.colliderect(other.rect), (
                f"{label.text!r} overlaps {other.text!r} at {size}")


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_what_each_screen_must_say(size: str) -> None:
    def texts(name: str) -> list[str]:
        return [label.text for label in drawn(SCENES[name], size)[1]]

    table = texts("table-4-players")
    for name, money in (("Mario", "32"), ("Luigi", "27"), ("Peach", "\u22123"), ("Yoshi", "41")):
        assert name in table and money in table
    assert "Mario's turn" in table
    six = texts("table-6-players")
    assert {"Toad", "Daisy", "18", "30", "Toad's turn"} <= set(six)
    assert "\u221217" in texts("table-negative-balance")
    worms = texts("table-wiggly-worms")
    assert {"Mario", "Luigi", "Luigi's turn"} <= set(worms)
    hint = editions()["wiggly_worms"].default_mode.hint  # the edition's words for its lever
    assert hint and hint in " ".join(worms)
    assert not any(t.isdigit() for t in worms)  # no balances in a timer-only game
    assert {"3/5", "1/5", "4/5", "0/5"} <= set(worms)  # worms found, of the rulebook's five
    coins = texts("outcome-coins-3")
    assert "3 COINS!" in coins and "Collect 3 coins from the Bank" in coins
    assert any(t.startswith("Luigi +3") and t.endswith("now 30") for t in coins)
    bowser = texts("outcome-bowser")
    assert "BOWSER!" in bowser and "Pay the Bank 5 coins" in bowser
    assert any(t.startswith("Luigi \u22125") for t in bowser)
    assert "GAME OVER" in texts("outcome-game-over")
    assert {"NEW CARD", "04A224B9112233"} <= set(texts("card-new"))
    assert "Roll the die and move again" in texts("outcome-power-up")
    assert "Nobody's turn: give it on the tablet" in texts("outcome-unassigned")
    assert "12" in texts("timer-running") and "Worms are moving!" in texts("timer-running")
    assert texts("timer-last-seconds") == ["3"]
    assert texts("timer-time-up") == ["TIME'S UP!"]
    assert "192.168.1.23:8080" in texts("idle-qr")
    rent = texts("outcome-utility-rent")
    assert {"RENT 8", "\u22128", "Pay the owner 8 coins"} <= set(rent)
    assert any(t.startswith("Luigi \u22128 to Mario") for t in rent)
    assert {"4 + 2 = 6", "Bowser moves 2 (black die), then you move 6",
            "Luigi's turn"} <= set(texts("outcome-movie-turn"))  # the Movie's two dice
    assert {"4 COINS!", "Collect 4 coins from the Bank"} <= set(texts("outcome-coin-block"))
    assert {"5 COINS!", "Collect 5 coins from the Bank"} <= set(texts("outcome-item-box"))
    out = texts("table-player-out")
    assert "OUT" in out and "Luigi" in out and "0" not in out  # out: no coins shown
    assert "Next press: Utility rent: Luigi pays Mario, 2 utilities" in texts("table-armed-rent")
    assert {"Peach wins!", "120 coins", "out"} <= set(texts("winner-celebration"))
    kart = texts("winner-mario-kart")
    assert {"Mario wins!", "150 points", "130 points", "120 points", "70 points"} <= set(kart)
    assert {"Luigi wins!", "5 worms", "1 worm"} <= set(texts("winner-wiggly-worms"))
    held = texts("outcome-not-saved")  # the disk refused it: shown, and said to be held
    assert "3 COINS!" in held and "Not saved yet: kept, and saved when it can be" in held
    assert not any(t.startswith("Luigi +3") for t in held)  # not banked: no new balance
    strip = [t for t in texts("table-not-saved") if t.startswith("NOT SAVED YET")]
    assert strip == ["NOT SAVED YET · the SD card is full · 2 presses held"]
    assert "Mario's turn" in texts("table-not-saved")  # the table still shows, above it


def band_labels(labels: list[Label]) -> list[Label]:
    """The board's band, left to right: "On the board" and the labels on its line."""
    head = next(label for label in labels if label.text == BOARD_LABEL)
    return sorted((label for label in labels if label.rect.centery == head.rect.centery),
                  key=lambda label: label.rect.left)


def pile_labels(labels: list[Label]) -> list[tuple[Label, Label]]:
    """The board's band: each pile's space and its count (the count the next label, on the
    same line, to its right), after the band's "On the board"."""
    line = band_labels(labels)
    assert line[0].text == BOARD_LABEL
    band = [label for label in line[1:] if not label.text.startswith("+")]
    pairs = list(zip(band[::2], band[1::2], strict=True))
    for name, count in pairs:
        assert count.text.isdigit() and count.colour == GOLD, count
        assert count.rect.left > name.rect.right and count.rect.centery == name.rect.centery
    return pairs


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_the_coins_on_the_board_show_in_a_band_below_the_table(size: str) -> None:
    """Gamer, Mario Kart: every pile on the board, oldest first, with its coins, in one band
    along the bottom under the players and the coin log (which says where coins went)."""
    surface, labels = drawn(SCENES["table-gamer-board"], size)
    texts = [label.text for label in labels]
    assert BOARD_LABEL in texts and not any(t.endswith(" more") for t in texts)
    pairs = pile_labels(labels)
    assert [(name.text, int(count.text)) for name, count in pairs] == list(GAMER_BOARD)
    band = band_labels(labels)
    assert len(band) == 1 + 2 * len(GAMER_BOARD)
    band_top = min(label.rect.top for label in band)
    assert band_top >= surface.get_height() * 0.85  # along the bottom
    assert {"Mario", "Luigi", "Peach", "9", "7", "11", "Luigi's turn"} <= set(texts)
    assert all(label.rect.bottom < band_top for label in labels if label not in band)
    assert "on Bowser's Castle" in texts  # the log: where the coins went


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_too_many_piles_end_in_a_count_of_the_rest(size: str) -> None:
    """More piles than fit: the oldest whole, then "+N more"; one pile with a long name: the
    name shortened, its coins whole. Nothing leaves the frame or is drawn over."""
    players = (PlayerRow("Mario", 9, True, "#e52521"), PlayerRow("Luigi", 7, False, "#43b047"))
    # (counts from 2: a "1" at 14px has no fully solid pixel for assert_visible to check)
    many = tuple((f"{space} Space", i + 2) for i, space in enumerate(
        ("Bowser's Castle", "Coin Block", "Acorn Plains", "Warp Pipe", "Mario Kart Stadium",
         "Rainbow Road", "Boost Pad", "Thwomp")))
    long = (("Mario Kart Stadium and Rainbow Road Pier", 12),)  # a space's longest name
    for piles in (many, long, many[:1] + long, long + many):
        scene = Scene("table", title="Mario's turn", players=players, board=piles)
        surface, labels = drawn(scene, size)
        for i, label in enumerate(labels):
            assert surface.get_rect().contains(label.rect), (label.text, size)
            assert label.size >= 10
            assert_visible(surface, label)
            for other in labels[i + 1:]:
                assert not label.rect.colliderect(other.rect), (label.text, other.text)
        texts = [label.text for label in labels]
        pairs = pile_labels(labels)
        assert pairs, f"not even the oldest pile at {size}"
        for (name, count), (space, coins) in zip(pairs, piles, strict=False):
            assert count.text == str(coins)
            assert name.text == space or (name.text.endswith("…")
                                          and space.startswith(name.text[:-1]))
        rest = len(piles) - len(pairs)
        assert (f"+{rest} more" in texts) == (rest > 0), texts
        if size == "320x240" and piles[0] == long[0] and len(piles) > 1:
            assert pairs[0][0].text.endswith("…"), pairs  # shortened, not left out


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_no_band_without_coins_on_the_board(size: str) -> None:
    for name in ("table-4-players", "table-armed-rent", "table-movie-jail"):
        assert BOARD_LABEL not in [label.text for label in drawn(SCENES[name], size)[1]], name
    surface, _ = drawn(SCENES["table-4-players"], size)
    assert not any(surface.get_at((x, surface.get_height() - 3))[:3] == BOARD_BAND
                   for x in range(surface.get_width()))


MOVIE_OUTCOMES = sorted(name for name in SCENES if name.startswith("outcome-movie-"))


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_what_the_movie_screens_say(size: str) -> None:
    """Each Movie outcome in the mode's own words (its headline and instruction), who it was
    for and what it did to them; the table's Jail, Bowser on GO and armed battle; Bowser's
    win."""
    movie = editions()["movie"]

    def texts(name: str) -> list[str]:
        return [label.text for label in drawn(SCENES[name], size)[1]]

    assert len(MOVIE_OUTCOMES) >= 10 and "outcome-movie-roll" not in SCENES
    for name in MOVIE_OUTCOMES:  # the mode's headline, whole, and its first sentence
        face = SCENES[name].outcome
        assert face is not None and face.kind in MOVIE_KINDS, name
        said = texts(name)
        assert face.headline and face.headline in said, (name, said)
        assert face.instruction.split(". ")[0] in said, (name, said)
    prize = movie.mode("battle").fees["prize"]
    assert {"DOUBLES! 3 + 3", "Bowser moves 3 (black die), then you move 6",
            "Doubles (2 of 3): take another turn after this one",
            "Luigi's turn"} <= set(texts("outcome-movie-doubles"))
    third = texts("outcome-movie-third-doubles")
    assert "Luigi goes to Jail" in third and "JAIL" in third  # said, and the cell's plate
    assert "Go straight to Jail: no coins for passing GO" in third
    roll = texts("outcome-movie-battle-roll")  # the leader's die, the teammate's to come
    assert {"BATTLE! LEADER 4", "Mario", "Luigi", "?",
            "Luigi presses for the second die"} <= set(roll)
    won = texts("outcome-movie-battle-won")
    assert {"BOWSER BEATEN 4 + 5 = 9", f"Leader and teammate collect {prize} coins each",
            BOWSER_WAITS, f"Mario +{prize}  ·  Luigi +{prize}"} <= set(won)
    assert BOWSER_WAITS == "Bowser waits on GO until everyone has had a turn"
    lost = texts("outcome-movie-battle-lost")
    assert {"BATTLE LOST 4 + 1 = 5", "Mario goes to Jail", "JAIL"} <= set(lost)
    assert {"PIRANHA PLANT! PAY 4", "Pay the Bank 4 coins", "\u22124",
            "Luigi \u22124  ·  now 23"} <= set(texts("outcome-movie-piranha"))
    assert {"SUPER STAR! +5", "Collect 5 coins from the Bank",
            "Luigi +5  ·  now 32"} <= set(texts("outcome-movie-super-star"))
    tries = movie.mode("jail").fees["tries"]
    assert {"NO DOUBLES 2 + 1", f"Stay in Jail: {tries - 1} tries left", "Luigi stays in Jail",
            "JAIL"} <= set(texts("outcome-movie-jail-stay"))
    # "Each time the players roll the dice to move they will use the black die to move Bowser"
    assert {"DOUBLES! FREE 6 + 6", "Out of Jail with the doubles",
            "Bowser moves 6 (black die), then you move 12",
            "Luigi is out of Jail"} <= set(texts("outcome-movie-jail-free"))
    paid = texts("outcome-movie-jail-paid")
    assert {"Pay the Bank 1 coin", "Bowser moves 2 (black die), then you move 7"} <= set(paid)
    assert "Luigi \u22121  ·  now 26  ·  out of Jail" in paid
    for name in ("outcome-movie-turn", "outcome-movie-doubles", "outcome-movie-piranha"):
        assert not any("Jail" in t or t == "JAIL" for t in texts(name)), name

    jail = drawn(SCENES["table-movie-jail"], size)[1]
    words = " ".join(label.text for label in jail)  # a long band may take two lines
    assert BOWSER_WAITS in [label.text for label in jail]
    assert "Next press: Luigi is in Jail: a press rolls for doubles (try 2 of 3)" in words
    marks = [label for label in jail if label.text == "IN JAIL"]
    luigi = next(label for label in jail if label.text == "Luigi")
    assert len(marks) == 1 and marks[0].rect.top < luigi.rect.centery < marks[0].rect.bottom
    assert marks[0].rect.left > luigi.rect.right  # on Luigi's row, after his name
    armed = " ".join(texts("table-movie-battle-armed"))
    assert "Next press: Battle Bowser: Mario leads with Peach; Mario presses first" in armed
    assert BOWSER_WAITS not in armed  # nobody beat him in that game
    for name in ("table-4-players", "table-armed-rent", "table-6-players"):
        assert not {"IN JAIL", BOWSER_WAITS} & set(texts(name)), name
    bowser = texts("winner-bowser")
    assert {"BOWSER WINS", "Every player loses", "12 coins", "out"} <= set(bowser)
    assert not any(t.endswith(("wins!", "share the win!")) for t in bowser)


MOVIE_KINDS = TWO_DICE | {Kind.BATTLE_ROLL, Kind.BATTLE_WON, Kind.BATTLE_LOST, Kind.PIRANHA,
                          Kind.SUPER_STAR}


def die_on(surface: pygame.Surface, style: DieStyle) -> tuple[pygame.Rect, int] | None:
    """The die of ``style`` on the frame, found by the colour of its body (the largest patch
    of it), and the pips on it: the patches of pip colour inside its body."""
    body = pygame.mask.from_threshold(surface, style.body, (1, 1, 1, 255))
    if body.count() == 0:
        return None
    patch = body.connected_component()  # the largest one
    rect = patch.get_bounding_rects()[0]
    pips = pygame.mask.from_threshold(surface.subsurface(rect), style.pip, (1, 1, 1, 255))
    return rect, len([r for r in pips.get_bounding_rects() if r.width > 1 and r.height > 1])


@pytest.mark.parametrize("size", DISPLAY_SIZES)
@pytest.mark.parametrize("name", MOVIE_OUTCOMES)
def test_the_movie_dice_are_drawn_large_with_their_pips(size: str, name: str) -> None:
    """Red die and black die, side by side, each showing its roll in pips, large (a quarter of
    the screen's height at least); one die, the red, where the Movie rolls one."""
    scene = SCENES[name]
    assert scene.outcome is not None
    rolls = scene.outcome.rolls
    surface, _ = drawn(scene, size)
    red, black = die_on(surface, RED_DIE), die_on(surface, BLACK_DIE)
    assert red is not None, "no red die"
    assert red[1] == rolls[0], f"the red die shows {red[1]} pips, rolled {rolls[0]}"
    h = surface.get_height()
    assert red[0].height >= h * 0.25 and abs(red[0].width - red[0].height) <= 2
    if len(rolls) == 1:
        assert black is None, "one die rolled, two drawn"
        return
    assert black is not None, "no black die"
    assert black[1] == rolls[1], f"the black die shows {black[1]} pips, rolled {rolls[1]}"
    assert black[0].size == red[0].size and black[0].centery == red[0].centery
    assert red[0].right < black[0].left  # side by side: red first


def gold_beside(surface: pygame.Surface) -> bool:
    """Gold pixels on the dice's middle row left of the red die and right of the black one
    (the frame that makes doubles stand out)."""
    red, black = die_on(surface, RED_DIE), die_on(surface, BLACK_DIE)
    assert red is not None and black is not None
    y = red[0].centery
    left = any(surface.get_at((x, y))[:3] == GOLD for x in range(red[0].left))
    right = any(surface.get_at((x, y))[:3] == GOLD
                for x in range(black[0].right, surface.get_width()))
    return left and right


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_doubles_stand_out(size: str) -> None:
    assert gold_beside(drawn(SCENES["outcome-movie-doubles"], size)[0])
    assert gold_beside(drawn(SCENES["outcome-movie-jail-free"], size)[0])
    assert not gold_beside(drawn(SCENES["outcome-movie-turn"], size)[0])
    assert not gold_beside(drawn(SCENES["outcome-movie-jail-stay"], size)[0])


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_a_super_star_lights_one_coin_per_ping(size: str) -> None:
    counts = []
    for shown in range(0, 7):
        face = OutcomeFace(Kind.SUPER_STAR, 6, shown, 99, "Luigi", 6, 30, False, True,
                           "SUPER STAR! +6", "Collect 6 coins from the Bank", rolls=(6,),
                           tracked=True)
        surface, _ = drawn(Scene("outcome", outcome=face), size)
        die = die_on(surface, RED_DIE)
        assert die is not None and die[1] == 6
        right = surface.subsurface((die[0].right, 0, surface.get_width() - die[0].right,
                                    surface.get_height()))
        counts.append(lit_coins(right, die[0].centery))
    assert counts == [0, 1, 2, 3, 4, 5, 6]


def lit_coins(surface: pygame.Surface, y: int) -> int:
    """Coins crossed by row ``y``: runs of coin-coloured pixels."""
    runs, inside = 0, False
    for x in range(surface.get_width()):
        gold = surface.get_at((x, y))[:3] in (GOLD, GOLD_DARK)
        runs += gold and not inside
        inside = gold
    return runs


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_one_coin_lights_per_ping(size: str) -> None:
    w, h = size_of(size)
    counts = []
    for shown in range(1, 7):
        face = OutcomeFace(Kind.COINS, 6, shown, 99, "Luigi", 6, 30, False, True, "6 COINS!")
        surface, _ = drawn(Scene("outcome", outcome=face), size)
        y = round(147 * min(w / 480, h / 320))  # the middle band's centre line
        counts.append(lit_coins(surface, y))
    assert counts == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_the_qr_code_on_the_idle_screen_is_segnos_symbol_module_for_module(size: str) -> None:
    surface, _ = drawn(SCENES["idle-qr"], size)
    w, h = size_of(size)
    s = min(w / 480, h / 320)
    side = min(h - round(24 * s), round(w * 0.5))
    card = pygame.Rect(round(12 * s), (h - side) // 2, side, side)
    left, top, module, n = qr_geometry(SAMPLE_LINK, card)
    assert module >= 3, f"{module}px modules are too small to scan at {size}"
    matrix = qr_matrix(SAMPLE_LINK)
    for y in range(n):
        for x in range(n):
            pixel = surface.get_at((left + x * module + module // 2,
                                    top + y * module + module // 2))[:3]
            assert pixel == ((0, 0, 0) if matrix[y][x] else (255, 255, 255)), (x, y)


def test_long_names_are_shortened_to_fit_not_spilled() -> None:
    players = tuple(PlayerRow(f"Bartholomew-Maximilian {i}", 100000 * i - 5, i == 2, "#43b047")
                    for i in range(6))
    for size in DISPLAY_SIZES:
        surface, labels = drawn(Scene("table", title="Bartholomew-Maximilian 2's turn",
                                      players=players), size)
        names = [lb for lb in labels if lb.text.startswith("Barth")]
        assert len(names) == 7
        if size != "800x480":  # the wide panel has room for them
            assert any(lb.text.endswith("…") for lb in names)
        for lb in labels:
            assert surface.get_rect().contains(lb.rect)
        for a in names:
            for b in labels:
                assert a is b or not a.rect.colliderect(b.rect)


def test_companion_screens_writes_every_screen_for_every_preset(tmp_path: Path) -> None:
    out = tmp_path / "screens"
    result = run_companion("screens", "--out", str(out))
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in out.glob("*.png"))
    assert len(files) == len(DISPLAY_SIZES) * len(SCENES)
    for size in DISPLAY_SIZES:
        image = pygame.image.load(str(out / f"{size}-outcome-bowser.png"))
        assert image.get_size() == size_of(size)
    reference = pygame.Surface(size_of("480x320"))
    render(SCENES["table-6-players"], reference)
    saved = pygame.image.load(str(out / "480x320-table-6-players.png"))
    assert pygame.image.tobytes(saved, "RGB") == pygame.image.tobytes(reference, "RGB")


def test_companion_screens_refuses_a_bad_size(tmp_path: Path) -> None:
    result = run_companion("screens", "--out", str(tmp_path), "--size", "12x9")
    assert result.returncode == 2
    assert "at least 160x120" in result.stderr and "Traceback" not in result.stderr


def test_an_outcome_waiting_for_the_bank_shows_an_ellipsis_for_the_player() -> None:
    scene = Scene("outcome", outcome=OutcomeFace(Kind.GAME_OVER, 10, 0, 3, None, -10, None,
                                                 True, True, "GAME OVER",
                                                 "Pay the Bank 10 coins"))
    _, labels = drawn(scene, "320x240")
    assert [lb.text for lb in labels] == ["GAME OVER", "\u221210", "Pay the Bank 10 coins", "…"]


def test_the_screen_says_the_rulesets_amounts_not_its_own() -> None:
    """Nothing on the screen carries a hard-coded amount: with house-rule fees (Bowser 3, Game
    Over 7) the outcome screens say 3 and 7, never the packaged 5 and 10."""
    from companion.core.editions.modes import Mode
    from companion.display.scene import DisplayModel
    from companion.events import BlockOutcome

    house = Mode("question_block", "Question Block", "question_block", ("house rule",),
                 default=True, fees={"bowser": 3, "game_over": 7})
    for face, fee in ((3, 3), (6, 7)):
        outcome = house.draw(_Dice(face))
        model = DisplayModel(idle_after=None, bank_online=False)
        model.apply(BlockOutcome(1, outcome, 0.0, "button", True, 0.3, 0.0,
                                 house.headline(outcome), house.instruction(outcome)), 0.0)
        for size in DISPLAY_SIZES:
            texts = [label.text for label in drawn(model.scene(3.0), size)[1]]
            assert f"\u2212{fee}" in texts and f"Pay the Bank {fee} coins" in texts
            assert not any(t in ("\u22125", "\u221210") or "5 coins" in t or "10 coins" in t
                           for t in texts), texts


class _Dice:
    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


# -- Boss fights and Races ---------------------------------------------------------------------

CONTESTS = sorted(name for name in SCENES if name.startswith(("fight-", "race-")))
WHITE_DIE = DieStyle((245, 242, 232), (170, 160, 140), (30, 30, 36))
"""A numbered die (a roll, a Boss fighter's, a racer's): white with dark pips."""


def said(scene: Scene, size: str) -> str:
    """Everything written on the frame, in one line (a band may take two lines)."""
    return " ".join(label.text for label in drawn(scene, size)[1])


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_what_the_contest_screens_say(size: str) -> None:
    """A Boss fight: the card, its odds, cost and prize, whose choice or roll, who passed,
    the result; a Race: entries, the tie and whose press, the podium, the final Race."""
    assert len(CONTESTS) == 8
    for name in CONTESTS:
        assert SCENES[name].screen == name.split("-")[0], name
    choice = said(SCENES["fight-choice"], size)
    for text in ("BOSS 3", "needs 4+ · 1/2 chance", "2 coins a roll · on the card: 0",
                 "win: +3 · 20 points", "Mario: fight or pass", "Mario", "Yoshi", "15"):
        assert text in choice, (text, choice)
    waiting = said(SCENES["fight-waiting"], size)
    assert "Peach fights: press the block!" in waiting and "on the card: 4" in waiting
    assert "passed" in waiting and "fights" in waiting
    won = said(SCENES["fight-won"], size)
    assert "Peach beats Boss 3! +7, 20 points" in won and "WINS" in won
    assert "The Boss gets away" in said(SCENES["fight-got-away"], size)
    entries = said(SCENES["race-entries"], size)
    for text in ("GRAND PRIX 2", "entry 1 coin", "1st +5 · 2nd +2 · 3rd +1 · 30 points",
                 "Entries open: 2 entered", "entered"):
        assert text in entries, (text, entries)
    tie = said(SCENES["race-tie"], size)
    assert "Tie: Mario and Yoshi re-roll" in tie and "Yoshi: press!" in tie
    over = drawn(SCENES["race-over"], size)[1]
    assert "Peach wins Grand Prix 2! 30 points" in " ".join(lb.text for lb in over)
    podium = {lb.text: lb for lb in over}
    assert {"1", "2", "3", "+5", "+2", "+1", "4th Yoshi"} <= set(podium)
    first, second, third = (podium[n] for n in ("Peach", "Mario", "Luigi"))
    assert second.rect.right < first.rect.left and first.rect.right < third.rect.left
    assert first.rect.top < second.rect.top < third.rect.top  # 1st on the highest step
    final = said(SCENES["race-final-rematch"], size)
    for text in ("FINAL RACE", "prize: a rematch · 30 points", "Rematch: pick a card",
                 "Luigi wins Grand Prix 2!"):
        assert text in final, (text, final)
    assert "+" not in final.split("points", 1)[1]  # no prizes: the rematch is the prize
    for name in ("table-4-players", "table-gamer-board", "winner-mario-kart"):
        assert not any(w in said(SCENES[name], size) for w in ("BOSS", "GRAND PRIX")), name


def dice_on(surface: pygame.Surface, style: DieStyle, smallest: int) -> int:
    """How many dice of ``style`` are on the frame (patches of its body, ``smallest`` wide
    at least)."""
    body = pygame.mask.from_threshold(surface, style.body, (1, 1, 1, 255))
    return sum(1 for rect in body.get_bounding_rects()
               if rect.width >= smallest and rect.height >= smallest)


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_the_rolls_so_far_are_drawn_as_dice(size: str) -> None:
    h = size_of(size)[1]
    rolls = {"fight-choice": 0, "fight-waiting": 1, "fight-won": 2, "race-tie": 4,
             "race-entries": 0}
    for name, count in rolls.items():
        surface, _ = drawn(SCENES[name], size)
        assert dice_on(surface, WHITE_DIE, h // 20) == count, name


@pytest.mark.parametrize("size", DISPLAY_SIZES)
@pytest.mark.parametrize(("name", "roll", "who"), [
    ("outcome-fight-won", 5, "Peach beats the Boss!"), ("outcome-fight-lost", 2,
                                                        "Mario rolled 2"),
    ("outcome-race-roll", 4, "Luigi rolled 4")])
def test_a_contest_roll_is_one_big_die_with_its_pips(size: str, name: str, roll: int,
                                                     who: str) -> None:
    scene = SCENES[name]
    assert scene.outcome is not None
    surface, labels = drawn(scene, size)
    die = die_on(surface, WHITE_DIE)
    assert die is not None and die[1] == roll
    assert die[0].height >= surface.get_height() * 0.25
    texts = [label.text for label in labels]
    assert scene.outcome.headline in texts and who in texts
    assert scene.outcome.instruction in " ".join(texts)


def bank_contest_scenes(tmp_path: Path) -> dict[str, Scene]:
    """Contest screens built from a real bank's state, with long names."""
    names = ["Bartholomew-Maximilian", "Luigi", "Wilhelmina-Josephine", "Toad"]
    fight = Table(bank_in(tmp_path / "gamer", "gamer", names))
    fight.contest("boss", "open", card={**BOSS_CARD, "cost": 1})
    scenes = {"fight-choice": fight.scene()}
    for _ in range(3):  # a fighter who loses, again and again: rolls pile up on their row
        fight.contest("boss", "fight", player=1)
        fight.press(Kind.BOSS_LOST, 2, "boss")
        for pid in (2, 3, 4):
            if fight.bank.state().fight.up == pid:  # type: ignore[union-attr]
                fight.contest("boss", "pass", player=pid)
    fight.changed("after")
    scenes["fight-rolls"] = fight.scene()
    fight.contest("boss", "fight", player=1)
    scenes["fight-waiting"] = fight.scene()
    scenes["outcome-boss-won"] = fight.press(Kind.BOSS_WON, 6, "boss")
    fight.changed("after")
    scenes["fight-won"] = fight.scene()
    race = Table(bank_in(tmp_path / "kart", "mario_kart", names))
    race.contest("race", "open", card={"fee": 1, "prizes": [9, 5, 2, 1], "points": 30})
    for pid in (1, 3, 4):
        race.contest("race", "enter", player=pid)
    scenes["race-entries"] = race.scene()
    race.contest("race", "start")
    for roll in (4, 4, 4, 3, 3):  # a three-way tie, two of it rolled
        race.press(Kind.RACE_ROLL, roll, "race")
    race.changed("after")
    scenes["race-tie"] = race.scene()
    for roll in (5, 6, 1):
        race.press(Kind.RACE_ROLL, roll, "race")
    race.changed("after")
    scenes["race-over"] = race.scene()
    scenes["race-final"] = final_race(tmp_path / "final").scene()
    return scenes


@pytest.mark.parametrize("size", DISPLAY_SIZES)
def test_contest_screens_from_a_bank_fit_at_every_preset(tmp_path: Path, size: str) -> None:
    scenes = bank_contest_scenes(tmp_path)
    assert scenes["race-tie"].race is not None and len(scenes["race-tie"].race.tied) == 3
    tie = said(scenes["race-tie"], size)
    assert "Bartholomew-Maximilian, Wilhelmina-Josephine and Toad re-roll" in tie, tie
    rows = scenes["fight-rolls"].fight
    assert rows is not None and rows.rows[0].rolls == (2, 2, 2)
    assert "Rematch: pick a card" in said(scenes["race-final"], size)
    for name, scene in scenes.items():
        surface, labels = drawn(scene, size)
        assert labels, name
        assert_fits(surface, labels, size)
