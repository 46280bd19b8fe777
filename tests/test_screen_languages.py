"""The small screen in every language of the Celebration rulebook: every message of every
catalog drawn at every display preset with the screen's font, no missing-glyph box anywhere,
Arabic shaped and read from the right, and the screens themselves in German, Polish and Arabic."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pygame
import pytest

from companion.display import SIZES
from companion.display.previews import sample_scenes
from companion.display.render import Painter, font, render, undrawable
from companion.display.rtl import has_rtl, visual
from companion.i18n import LANGUAGES, translator
from tests.conftest import run_companion
from tests.english_left import english_left

NAMES = ("Mario", "Luigi", "Peach", "Yoshi", "Toad", "Daisy", "Wario", "Bowser",
         "Bartholomew-Maximilian", "Wilhelmina-Josephine")
"""The sample scenes' players: names stay as typed."""

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def every_text(code: str) -> list[str]:
    """Every string of ``code``'s catalog (each plural form), as the screen may get it."""
    tr = translator(code)
    return sorted({form for forms in tr.messages.values() for form in forms if form})


def test_the_check_finds_a_missing_glyph() -> None:
    assert undrawable("漢字 Mario") == {"漢", "字"}  # DejaVu has no CJK: the check sees it
    assert undrawable("Łódź şğı ăîț ėįų āēīķļņ õ åæø ő ß") == set()


@pytest.mark.parametrize("size", SIZES)
def test_every_message_of_every_language_draws_without_a_missing_glyph(size: str) -> None:
    width, height = (int(v) for v in size.split("x"))
    surface = pygame.Surface((width, height))
    painter = Painter(surface)
    drawn = 0
    for code in LANGUAGES:
        texts = every_text(code)
        if code != "en":
            assert len(texts) > 900, f"{code}: its catalog is not there"
        for text in texts:
            for line in text.split("\n"):
                label = painter.text(line, painter.px(22), (250, 250, 250),
                                     max_width=width - painter.px(16), topleft=(0, 0))
                missing = undrawable(line, label.size)
                assert not missing, f"{code} at {size}: {sorted(missing)} in {line!r}"
                drawn += 1
    assert drawn > 20 * 900


def test_arabic_is_shaped_and_reads_from_the_right() -> None:
    line = translator("ar").ngettext("{name} collects {n} coin", "{name} collects {n} coins",
                                     4).format(name="Luigi", n=4)
    assert has_rtl(line)
    shown = visual(line)
    assert shown != line and "Luigi" in shown  # a Latin name stays readable inside
    assert any("\ufe70" <= ch <= "\ufeff" for ch in shown)  # joined (presentation) forms
    assert visual("Luigi 4") == "Luigi 4"  # a left-to-right line is drawn as it is
    assert font(30).size(line)[0] > 0


@pytest.mark.parametrize("code", ["de", "pl", "ar"])
def test_the_screens_are_drawn_in_the_tables_language(code: str) -> None:
    """Every sample screen at every preset: its words are the catalog's (no English word left
    that the language says otherwise), every glyph drawable."""
    tr = translator(code)
    translated = 0
    for size in SIZES:
        width, height = (int(v) for v in size.split("x"))
        for name, scene in sample_scenes(code).items():
            labels = render(scene, pygame.Surface((width, height)))
            texts = [label.text for label in labels if not label.text.endswith("…")]
            assert english_left(texts, code, NAMES) == [], (code, size, name)
            for label in labels:
                assert not undrawable(label.text, label.size), (code, size, name, label.text)
                translated += any(label.text in forms for forms in tr.messages.values())
    assert translated > 50


README_SCENES = ("outcome-bowser", "table-4-players")
SHOTS = Path(__file__).resolve().parent / "screenshots"


@pytest.mark.parametrize("code", ["de", "pl", "ar"])
def test_readme_screens_in_german_polish_and_arabic(code: str) -> None:
    """The README's pictures of the screen in three languages at every preset, written by
    ``companion screens --language`` (the command a newcomer runs)."""
    with tempfile.TemporaryDirectory() as out:
        done = run_companion("screens", "--out", out, "--language", code)
        assert done.returncode == 0, done.stderr
        written = {p.name for p in Path(out).glob("*.png")}
        assert len(written) == len(SIZES) * len(sample_scenes())
        SHOTS.mkdir(exist_ok=True)
        for size in SIZES:
            for scene in README_SCENES:
                name = f"{size}-{scene}.png"
                assert name in written
                shutil.copy(Path(out) / name, SHOTS / f"screen-{size}-{scene}-{code}.png")
