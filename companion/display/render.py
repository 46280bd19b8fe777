"""Drawing a :class:`Scene` onto a pygame surface of any size, readable across a table.

One font draws every word: DejaVu Sans Bold, shipped in ``fonts/`` (every letter of the
rulebook's languages, Arabic included: a right-to-left line is shaped and put into visual order
by :mod:`companion.display.rtl` before pygame draws it). Every text label
is recorded with where it landed, so tests can check that names and amounts are really on the
picture, inside it and not drawn over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from companion.core.editions.contests import win_chance
from companion.core.outcomes import CONTEST_ROLLS, TWO_DICE, Kind
from companion.display.qr import draw_qr
from companion.display.rtl import visual
from companion.display.scene import (
    ANIMATION_FRAMES,
    ENGLISH,
    ChartFace,
    ContestRow,
    FightFace,
    OutcomeFace,
    RaceFace,
    Scene,
    TimerFace,
    _,
    ordinal,
)
from companion.i18n import Translator, translator
from companion.sdl import pygame

MINUS = "\u2212"
"""A real minus sign: as wide as the plus, easier to see than a hyphen."""
Colour = tuple[int, int, int]
NAVY: Colour = (16, 20, 46)
PANEL: Colour = (32, 38, 78)
HIGHLIGHT: Colour = (58, 66, 128)
WHITE: Colour = (250, 250, 250)
DIM: Colour = (150, 156, 190)
GOLD: Colour = (255, 200, 20)
GOLD_DARK: Colour = (190, 120, 0)
GREEN: Colour = (80, 220, 110)
RED: Colour = (255, 90, 90)
URGENT: Colour = (200, 16, 32)
GREY: Colour = (110, 114, 140)
BACKGROUNDS: dict[Kind, Colour] = {
    Kind.COINS: (18, 44, 120), Kind.POWER_UP: (16, 100, 56),
    Kind.BOWSER: (120, 24, 16), Kind.GAME_OVER: (10, 10, 10),
    Kind.ROLL: (24, 70, 88), Kind.RENT: (70, 40, 100),
    Kind.DICE: (24, 70, 88), Kind.THIRD_DOUBLES: (84, 18, 30),
    Kind.BATTLE_ROLL: (104, 50, 14), Kind.BATTLE_WON: (18, 44, 120),
    Kind.BATTLE_LOST: (96, 20, 14), Kind.PIRANHA: (78, 22, 58),
    Kind.SUPER_STAR: (18, 44, 120), Kind.JAIL_FREE: (16, 100, 56),
    Kind.JAIL_STAY: (44, 50, 72), Kind.JAIL_PAID: (70, 40, 100),
    Kind.BOSS_WON: (18, 44, 120), Kind.BOSS_LOST: (96, 20, 14),
    Kind.RACE_ROLL: (24, 70, 88), Kind.MOVE: (24, 70, 88),
}
MOVIE = TWO_DICE | {Kind.BATTLE_ROLL, Kind.BATTLE_WON, Kind.BATTLE_LOST, Kind.PIRANHA,
                    Kind.SUPER_STAR}
"""The Movie's outcomes: drawn as its red and black dice (:func:`_movie`)."""
BOWSER_WAITS = _("Bowser waits on GO until everyone has had a turn")


@dataclass(frozen=True, slots=True)
class Label:
    """A piece of text as drawn: the string, its font size and its box on the surface."""

    text: str
    size: int
    rect: pygame.Rect
    colour: Colour


FONT = resources.files("companion.display") / "fonts" / "DejaVuSans-Bold.ttf"
"""The screen's one font (its licence beside it)."""
POINTS_PER_PIXEL = 0.58
"""The point size whose line is ``size`` pixels tall, as the layout was drawn (DejaVu Sans Bold
is 0.58 of pygame's own bold sans at 0.6875: the same height, 3-7 % narrower)."""


class ScreenFont:
    """The font at one size, measuring and drawing text as it shows: right-to-left lines in
    visual order (as pygame's own ``Font``, which draws glyphs left to right as given)."""

    def __init__(self, face: pygame.font.Font) -> None:
        self.face = face

    def size(self, text: str) -> tuple[int, int]:
        return self.face.size(visual(text))

    def render(self, text: str, antialias: bool, colour: Colour,
               background: Colour | None = None) -> pygame.Surface:
        return self.face.render(visual(text), antialias, colour, background)

    def get_linesize(self) -> int:
        """Line to line, as the layout was drawn: a tenth of a line's height apart (DejaVu's
        own line gap is none)."""
        return max(self.face.get_linesize(), round(self.face.get_height() * 1.1))


@lru_cache(maxsize=64)
def font(size: int) -> ScreenFont:
    """The screen's font at ``size`` pixels."""
    if not pygame.font.get_init():
        pygame.font.init()
    with resources.as_file(FONT) as path:
        return ScreenFont(pygame.font.Font(str(path), max(6, round(size * POINTS_PER_PIXEL))))


class Painter:
    """Draws on one surface and remembers every label; ``tr`` puts its words into the
    scene's language."""

    def __init__(self, surface: pygame.Surface, tr: Translator = ENGLISH) -> None:
        self.surface = surface
        self.tr = tr
        self.w, self.h = surface.get_size()
        self.s = min(self.w / 480, self.h / 320)
        self.labels: list[Label] = []

    def px(self, value: float) -> int:
        """A length designed for 480x320, scaled to this surface."""
        return max(1, round(value * self.s))

    def y(self, value: float) -> int:
        """A height on the 320 rows of the design, on this surface's rows (a 320x240 panel is
        less wide than tall: its lines spread over all of its height)."""
        return round(value * self.h / 320)

    def text(self, text: str, size: int, colour: Colour, *, max_width: int | None = None,
             min_size: int = 10, strike: bool = False, **anchor: tuple[int, int] | int
             ) -> Label:
        """Draw ``text`` placed by one pygame Rect anchor (``center=``, ``topleft=``, ...),
        shrinking it (and then cutting it with an ellipsis) to fit ``max_width``."""
        size, text = fit(text, size, max_width, min_size)
        image = font(size).render(text, True, colour)
        rect = image.get_rect(**anchor)
        self.surface.blit(image, rect)
        if strike:
            y = rect.centery
            pygame.draw.line(self.surface, colour, (rect.left, y), (rect.right, y),
                             max(1, size // 12))
        label = Label(text, size, rect, colour)
        self.labels.append(label)
        return label


@lru_cache(maxsize=8)
def _notdef(size: int) -> bytes:
    """The font's missing-glyph box at ``size`` (a private-use character has no glyph)."""
    return pygame.image.tobytes(font(size).face.render("\ue000", False, WHITE), "RGBA")


def undrawable(text: str, size: int = 24) -> set[str]:
    """The characters of ``text`` (as drawn: shaped, in visual order) that the font has no
    glyph for: each drawn alone and compared with the missing-glyph box."""
    return {ch for ch in set(visual(text)) if not ch.isspace() and not _has_glyph(ch, size)}


@lru_cache(maxsize=4096)
def _has_glyph(ch: str, size: int) -> bool:
    image = font(size).face.render(ch, False, WHITE)
    return pygame.image.tobytes(image, "RGBA") != _notdef(size)


def fit(text: str, size: int, max_width: int | None, min_size: int) -> tuple[int, str]:
    """The largest size down to ``min_size`` at which ``text`` fits, then an ellipsis."""
    if max_width is None:
        return size, text
    while size > min_size and font(size).size(text)[0] > max_width:
        size = max(min_size, int(size * 0.9))
    if font(size).size(text)[0] <= max_width:
        return size, text
    while len(text) > 1 and font(size).size(text + "…")[0] > max_width:
        text = text[:-1]
    return size, text.rstrip() + "…"


def wrap(text: str, size: int, width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` at ``size`` (a long word gets a line)."""
    lines: list[str] = []
    for word in text.split():
        if lines and font(size).size(f"{lines[-1]} {word}")[0] <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def render(scene: Scene, surface: pygame.Surface) -> list[Label]:
    """Draw ``scene`` over the whole surface; returns the labels drawn. A warning (the bank
    is not saving) takes a strip along the bottom and the scene is drawn above it. The
    screen's own words are put into the scene's language."""
    tr = translator(scene.language)
    if not scene.warning:
        return _render(scene, surface, tr)
    strip = Painter(surface).px(WARNING_STRIP)
    w, h = surface.get_size()
    labels = _render(scene, surface.subsurface((0, 0, w, h - strip)), tr)
    p = Painter(surface, tr)
    box = pygame.Rect(0, h - strip, w, strip)
    pygame.draw.rect(surface, WARNING_RED, box)
    p.text(scene.warning, p.px(20), WHITE, max_width=w - p.px(16), center=box.center)
    return labels + p.labels


WARNING_STRIP = 30
WARNING_RED: Colour = (150, 20, 20)


def _render(scene: Scene, surface: pygame.Surface, tr: Translator) -> list[Label]:
    p = Painter(surface, tr)
    if scene.screen == "outcome":
        assert scene.outcome is not None
        _outcome(p, scene.outcome, scene.timer)
    elif scene.screen == "timer":
        assert scene.timer is not None
        _timer(p, scene.timer)
    elif scene.screen == "idle":
        _idle(p, scene)
    elif scene.screen == "join":
        _join(p, scene)
    elif scene.screen == "card":
        _new_card(p, scene)
    elif scene.screen == "winner":
        _winner(p, scene)
    elif scene.screen == "chart":
        assert scene.chart is not None
        _chart(p, scene.title, scene.chart)
    elif scene.screen == "fight":
        assert scene.fight is not None
        _fight(p, scene.fight, scene.title)
    elif scene.screen == "race":
        assert scene.race is not None
        _race(p, scene.race, scene.title)
    else:
        _table(p, scene)
    return p.labels


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else (MINUS + str(-n) if n < 0 else "0")


def clock_text(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds >= 60 else str(seconds)


def parse_colour(value: str, default: Colour = DIM) -> Colour:
    """``#rrggbb`` to an RGB tuple."""
    if len(value) == 7 and value.startswith("#"):
        try:
            return (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))
        except ValueError:
            pass
    return default


# -- the outcome ---------------------------------------------------------------------------


def _outcome(p: Painter, face: OutcomeFace, timer: TimerFace | None) -> None:
    if face.kind in MOVIE:
        _movie(p, face)
        if timer is not None:
            _timer_strip(p, timer)
        return
    if face.kind in CONTEST_ROLLS:
        _contest_roll(p, face)
        if timer is not None:
            _timer_strip(p, timer)
        return
    p.surface.fill(BACKGROUNDS[face.kind])
    grow = min(1.0, 0.55 + 0.45 * face.frame / (ANIMATION_FRAMES * 0.5))
    colour = GOLD if face.kind in (Kind.COINS, Kind.POWER_UP, Kind.ROLL) else WHITE
    p.text(face.headline, round(p.px(64) * grow), colour, max_width=p.w - p.px(20),
           center=(p.w // 2, p.px(50)))
    middle = pygame.Rect(0, p.px(92), p.w, p.px(110))
    settling = face.frame < ANIMATION_FRAMES
    if face.kind is Kind.COINS:
        _coins(p, middle, face.coins, face.coins_shown)
    elif face.kind is Kind.POWER_UP:
        pulse = 1 + 0.12 * math.sin(face.frame / ANIMATION_FRAMES * math.pi * 3)
        if face.frame >= ANIMATION_FRAMES:
            pulse = 1.0
        _star(p.surface, middle.center, p.px(50) * pulse)
    elif face.kind is Kind.ROLL:
        tilt = (ANIMATION_FRAMES - face.frame) * 0.06 if settling else 0.0
        _die(p.surface, middle.center, p.px(92), face.roll, tilt)
    elif face.kind is Kind.RENT:
        tilt = (ANIMATION_FRAMES - face.frame) * 0.06 if settling else 0.0
        _die(p.surface, (middle.centerx - p.px(80), middle.centery), p.px(84), face.roll, tilt)
        p.text(f"{MINUS}{face.coins}", p.px(84), RED,
               center=(middle.centerx + p.px(80), middle.centery))
    else:
        shake = p.px(8) * (1 if face.frame % 2 else -1) if settling else 0
        if face.kind is Kind.BOWSER:
            _shell(p.surface, (middle.centerx - p.px(70) + shake, middle.centery), p.px(48))
            p.text(f"{MINUS}{face.coins}", p.px(84), RED,
                   center=(middle.centerx + p.px(70) + shake, middle.centery))
        else:
            p.text(f"{MINUS}{face.coins}", p.px(96), RED,
                   center=(middle.centerx + shake, middle.centery))
    _outcome_lines(p, face)
    if timer is not None:
        _timer_strip(p, timer)


def _outcome_lines(p: Painter, face: OutcomeFace) -> None:
    p.text(face.instruction, p.px(30), WHITE, max_width=p.w - p.px(20),
           center=(p.w // 2, p.px(228)))
    if not face.banked:
        return
    tr = p.tr
    if face.held:
        line, colour = tr.gettext("Not saved yet: kept, and saved when it can be"), GOLD
    elif face.waiting:
        line, colour = "…", DIM
    elif face.player is None:
        line, colour = tr.gettext("Nobody's turn: give it on the tablet"), GOLD
    elif face.delta and face.balance is not None:
        if face.payee is not None:
            line = tr.gettext("{name} {delta} to {payee}  ·  now {balance}").format(
                name=face.player, delta=signed(face.delta), payee=face.payee,
                balance=face.balance)
        else:
            line = tr.gettext("{name} {delta}  ·  now {balance}").format(
                name=face.player, delta=signed(face.delta), balance=face.balance)
        colour = GREEN if face.delta > 0 else RED
    else:
        line, colour = tr.gettext("{name}'s turn").format(name=face.player), WHITE
    p.text(line, p.px(34), colour, max_width=p.w - p.px(20), center=(p.w // 2, p.px(278)))


def coin(surface: pygame.Surface, centre: tuple[int, int], r: int, lit: bool = True) -> None:
    """A gold coin with a slot, or its faint outline when not pinged yet."""
    if not lit:
        pygame.draw.circle(surface, (90, 100, 150), centre, r, max(2, r // 8))
        return
    pygame.draw.circle(surface, GOLD_DARK, centre, r)
    pygame.draw.circle(surface, GOLD, centre, round(r * 0.84))
    slot = pygame.Rect(0, 0, max(2, r // 4), round(r * 0.9))
    slot.center = centre
    pygame.draw.rect(surface, GOLD_DARK, slot, border_radius=max(1, r // 8))


def _coins(p: Painter, box: pygame.Rect, coins: int, shown: int) -> None:
    r = max(4, min(p.px(34), int((box.width - p.px(20)) / (2.5 * coins - 0.5))))
    gap = r // 2
    total = coins * 2 * r + (coins - 1) * gap
    x = box.centerx - total // 2 + r
    for i in range(coins):
        coin(p.surface, (x, box.centery), r, lit=i < shown)
        x += 2 * r + gap


def _star(surface: pygame.Surface, centre: tuple[int, int], r: float) -> None:
    cx, cy = centre
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    pygame.draw.polygon(surface, GOLD, points)
    pygame.draw.polygon(surface, GOLD_DARK, points, max(2, round(r / 14)))
    eye = max(2, round(r / 9))
    for dx in (-r * 0.16, r * 0.16):
        pygame.draw.ellipse(surface, (20, 20, 20),
                            pygame.Rect(cx + dx - eye / 2, cy - r * 0.12, eye, eye * 2.2))


PIPS = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
        4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
        5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
        6: ((-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1))}


def _die(surface: pygame.Surface, centre: tuple[int, int], side: int, face: int,
         tilt: float = 0.0) -> None:
    """A white die showing ``face`` (pips), turned by ``tilt`` radians while it lands."""
    cx, cy = centre
    half = side / 2
    corners = []
    for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        x, y = dx * half, dy * half
        corners.append((cx + x * math.cos(tilt) - y * math.sin(tilt),
                        cy + x * math.sin(tilt) + y * math.cos(tilt)))
    pygame.draw.polygon(surface, (245, 242, 232), corners)
    pygame.draw.polygon(surface, (170, 160, 140), corners, max(2, side // 24))
    r = max(2, round(side * 0.085))
    for px, py in PIPS.get(face, ()):
        x, y = px * side * 0.27, py * side * 0.27
        pygame.draw.circle(surface, (30, 30, 36),
                           (round(cx + x * math.cos(tilt) - y * math.sin(tilt)),
                            round(cy + x * math.sin(tilt) + y * math.cos(tilt))), r)


def _shell(surface: pygame.Surface, centre: tuple[int, int], r: int) -> None:
    """Bowser's spiked shell."""
    cx, cy = centre
    for i in range(8):
        angle = i * math.pi / 4
        tip = (cx + r * 1.25 * math.cos(angle), cy + r * 1.25 * math.sin(angle))
        base1 = (cx + r * 0.8 * math.cos(angle - 0.3), cy + r * 0.8 * math.sin(angle - 0.3))
        base2 = (cx + r * 0.8 * math.cos(angle + 0.3), cy + r * 0.8 * math.sin(angle + 0.3))
        pygame.draw.polygon(surface, (245, 240, 225), [tip, base1, base2])
    pygame.draw.circle(surface, (40, 150, 60), centre, r)
    pygame.draw.circle(surface, (245, 240, 225), centre, r, max(2, r // 7))
    pygame.draw.circle(surface, (25, 110, 45), centre, round(r * 0.45), max(2, r // 10))


# -- the Movie's dice ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DieStyle:
    body: Colour
    rim: Colour
    pip: Colour


RED_DIE = DieStyle((204, 30, 42), (255, 150, 150), (250, 248, 240))
BLACK_DIE = DieStyle((30, 30, 36), (150, 150, 166), (250, 248, 240))
"""The Movie's two dice: Bowser moves by the black one (white pips on both)."""
JAILED: frozenset[Kind] = frozenset({Kind.THIRD_DOUBLES, Kind.BATTLE_LOST, Kind.JAIL_STAY})
"""Outcomes that leave their player behind bars: the screen shows a Jail cell."""
HAPPY: frozenset[Kind] = frozenset({Kind.BATTLE_WON, Kind.SUPER_STAR, Kind.JAIL_FREE})


def _movie(p: Painter, face: OutcomeFace) -> None:
    """A Movie outcome: the dice large (red and black, side by side; a battle's leader's and
    teammate's), the mode's headline and instruction, and what it did to whom. Sizes follow
    the panel's height (:meth:`Painter.y`); a line too wide for it shrinks to fit."""
    kind = face.kind
    v = p.y
    p.surface.fill(BACKGROUNDS[kind])
    grow = min(1.0, 0.55 + 0.45 * face.frame / (ANIMATION_FRAMES * 0.5))
    landed = min(1.0, face.frame / ANIMATION_FRAMES)  # the dice land: turning, growing
    rolls = face.rolls or ((face.roll,) if face.roll else ())
    doubles = kind in TWO_DICE and len(rolls) == 2 and rolls[0] == rolls[1]
    gold = (doubles and kind is not Kind.THIRD_DOUBLES) or kind in HAPPY
    p.text(face.headline, round(v(60) * grow), GOLD if gold else WHITE,
           max_width=p.w - p.px(24), center=(p.w // 2, v(34)))
    battle = kind in (Kind.BATTLE_ROLL, Kind.BATTLE_WON, Kind.BATTLE_LOST) and bool(face.player)
    side = v(100) if battle or kind is Kind.SUPER_STAR else v(112)
    cy = v(72) + side // 2
    centres = _dice_row(p, face, rolls, doubles, landed, cy, side)
    y = cy + side // 2 + v(8)
    if battle:  # who rolled which die
        assert face.player is not None
        names = (face.player, face.teammate or face.player)
        for x, name in zip(centres, names, strict=False):
            label = p.text(name, v(24), WHITE, max_width=side + v(20), midtop=(x, y))
        y = label.rect.bottom + v(4)
    lines = _sentences(face.instruction)[:2]
    if kind is Kind.BATTLE_WON:  # the state's words for Bowser's wait, as the table says it
        lines = [*lines[:1], p.tr.gettext(BOWSER_WAITS)]
    player, colour = _movie_player_line(face, p.tr)
    bottom = v(272) if player else p.h - v(8)  # the player's line below
    size = v(30)
    line_h = font(size).get_linesize()
    gap = v(5)
    y = max(y, y + (bottom - y - (line_h + gap) * len(lines)) // 2)
    for i, line in enumerate(lines):
        badge = bool(i) and doubles  # "Doubles (2 of 3): ...": gold, it stands out
        jail = kind is Kind.THIRD_DOUBLES  # "Your turn ends": red
        ink = (WHITE if jail else NAVY) if badge else GOLD if i and kind is Kind.BATTLE_WON \
            else WHITE
        width = p.w - p.px(20) - (2 * v(12) if badge else 0)
        size_, text = fit(line, size, width, max(10, round(size * 0.7)))
        if badge:
            w, h = font(size_).size(text)
            pill = pygame.Rect(0, 0, w + 2 * v(12), h + v(6))
            pill.midtop = (p.w // 2, y)
            pygame.draw.rect(p.surface, URGENT if jail else GOLD, pill,
                             border_radius=pill.height // 2)
            p.text(text, size_, ink, center=pill.center)
            y = pill.bottom + gap
        else:
            y = p.text(text, size_, ink, midtop=(p.w // 2, y)).rect.bottom + gap
    if player:
        p.text(player, v(34), colour, max_width=p.w - p.px(20),
               center=(p.w // 2, max(v(294), y + v(20))))


def _sentences(text: str) -> list[str]:
    """The instruction's sentences, one a line: "Bowser moves 2 (black die), then you move 6"
    and "Doubles (1 of 3): take another turn after this one"."""
    return [part.strip().rstrip(".") for part in text.split(". ") if part.strip()]


def _dice_row(p: Painter, face: OutcomeFace, rolls: tuple[int, ...], doubles: bool,
              landed: float, cy: int, side: int) -> list[int]:
    """The dice side by side, centred on row ``cy``, with what goes beside them (a battle's
    "+", the coins paid or collected, the Jail cell); returns the dice's centres. While they
    land (``landed`` < 1) they turn, the two ways, and grow: never over each other."""
    kind = face.kind
    gap = round(side * 0.24)
    items: list[tuple[str, int]] = []  # what, width
    if kind is Kind.BATTLE_ROLL:
        items = [("die", side), ("plus", round(side * 0.3)), ("slot", side)]
    elif kind in (Kind.BATTLE_WON, Kind.BATTLE_LOST):
        items = [("die", side), ("plus", round(side * 0.3)), ("die", side)]
    else:
        items = [("die", side) for _roll in rolls]
    if kind is Kind.PIRANHA:
        items.insert(0, ("plant", round(side * 0.8)))
    amount = f"{MINUS}{face.coins}" if kind in (Kind.PIRANHA, Kind.JAIL_PAID) else ""
    if amount:
        items.append(("amount", font(round(side * 0.8)).size(amount)[0]))
    elif kind is Kind.SUPER_STAR:
        coin_r = min(round(side * 0.24),
                     int((p.w - 2 * p.px(14) - side - gap) / (2.5 * face.coins - 0.5)))
        items.append(("coins", face.coins * 2 * coin_r + (face.coins - 1) * (coin_r // 2)))
    if kind in JAILED:
        items.append(("jail", round(side * 0.86)))
    total = sum(w for _, w in items) + gap * (len(items) - 1)
    room = p.w - 2 * p.px(14)
    if total > room:  # a narrow panel: the row shrinks as a whole
        scale = room / total
        side, gap = round(side * scale), round(gap * scale)
        items = [(what, round(w * scale)) for what, w in items]
        total = sum(w for _, w in items) + gap * (len(items) - 1)
    x = (p.w - total) // 2
    centres: list[int] = []
    dice = iter(zip(rolls, (RED_DIE, BLACK_DIE), strict=False))
    if doubles:  # a frame round the pair: doubles stand out (red: the third, to Jail)
        pad = max(4, side // 9)
        frame = pygame.Rect(x - pad, cy - side // 2 - pad, 2 * side + gap + 2 * pad,
                            side + 2 * pad)
        pygame.draw.rect(p.surface, RED if kind is Kind.THIRD_DOUBLES else GOLD, frame,
                         max(3, side // 20), border_radius=side // 5)
    for what, width in items:
        mid = x + width // 2
        if what == "die":
            value, style = next(dice, (0, RED_DIE))
            turn = 0.7 * (1 - landed) * (1 if len(centres) % 2 == 0 else -1)
            movie_die(p.surface, (mid, cy), round(side * (0.7 + 0.3 * landed)), value, style,
                      turn)
            centres.append(mid)
        elif what == "slot":
            _empty_die(p, (mid, cy), side)
            centres.append(mid)
        elif what == "plus":
            p.text("+", round(side * 0.6), WHITE, center=(mid, cy))
        elif what == "amount":
            p.text(amount, round(side * 0.8), RED, max_width=width, center=(mid, cy))
        elif what == "coins":  # lit one per ping of the sound, as a Coin Block's
            r = round(width / (2.5 * face.coins - 0.5))
            for i in range(face.coins):
                coin(p.surface, (x + r + i * (2 * r + r // 2), cy), r, lit=i < face.coins_shown)
        elif what == "jail":
            _jail_cell(p, pygame.Rect(x, cy - side // 2, width, side))
        elif what == "plant":
            _piranha(p.surface, pygame.Rect(x, cy - side // 2, width, side))
        x += width + gap
    return centres


def movie_die(surface: pygame.Surface, centre: tuple[int, int], side: int, face: int,
              style: DieStyle, tilt: float = 0.0) -> None:
    """One of the Movie's dice showing ``face``: a rounded die with a light rim (it shows on
    any background) and white pips; turned by ``tilt`` radians while it lands."""
    cx, cy = centre
    r = max(2, round(side * 0.085))
    if tilt:
        half = side / 2
        corners = [(cx + dx * half * math.cos(tilt) - dy * half * math.sin(tilt),
                    cy + dx * half * math.sin(tilt) + dy * half * math.cos(tilt))
                   for dx, dy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        pygame.draw.polygon(surface, style.body, corners)
        pygame.draw.polygon(surface, style.rim, corners, max(2, side // 30))
    else:
        box = pygame.Rect(0, 0, side, side)
        box.center = centre
        shadow = box.move(max(2, side // 22), max(2, side // 16))
        pygame.draw.rect(surface, (0, 0, 0), shadow, border_radius=side // 6)
        pygame.draw.rect(surface, style.rim, box, border_radius=side // 6)
        pygame.draw.rect(surface, style.body, box.inflate(-2 * max(2, side // 30),
                                                          -2 * max(2, side // 30)),
                         border_radius=side // 6)
    for px, py in PIPS.get(face, ()):
        x, y = px * side * 0.27, py * side * 0.27
        pygame.draw.circle(surface, style.pip,
                           (round(cx + x * math.cos(tilt) - y * math.sin(tilt)),
                            round(cy + x * math.sin(tilt) + y * math.cos(tilt))), r)


def _empty_die(p: Painter, centre: tuple[int, int], side: int) -> None:
    """The die still to come (a battle's teammate's): a dashed outline with a "?"."""
    box = pygame.Rect(0, 0, side, side)
    box.center = centre
    width = max(2, side // 30)
    dash = max(4, side // 9)
    for i in range(0, side, 2 * dash):
        end = min(side, i + dash)
        for a, b in (((box.left + i, box.top), (box.left + end, box.top)),
                     ((box.left + i, box.bottom - 1), (box.left + end, box.bottom - 1)),
                     ((box.left, box.top + i), (box.left, box.top + end)),
                     ((box.right - 1, box.top + i), (box.right - 1, box.top + end))):
            pygame.draw.line(p.surface, DIM, a, b, width)
    p.text("?", round(side * 0.8), DIM, center=centre)


def _jail_cell(p: Painter, box: pygame.Rect) -> None:
    """Jail: a barred cell window under a "JAIL" plate."""
    steel, light = (150, 156, 178), (214, 218, 232)
    radius = max(2, box.width // 10)
    pygame.draw.rect(p.surface, (16, 16, 22), box, border_radius=radius)
    plate = pygame.Rect(box.left, box.top, box.width, round(box.height * 0.3))
    pygame.draw.rect(p.surface, light, plate, border_top_left_radius=radius,
                     border_top_right_radius=radius)
    p.text(p.tr.gettext("JAIL"), round(plate.height * 0.95), (30, 30, 40),
           max_width=plate.width - 4,
           min_size=10, center=plate.center)
    bars = 3
    for i in range(1, bars + 1):
        x = box.left + round(i * box.width / (bars + 1))
        pygame.draw.line(p.surface, light, (x, plate.bottom), (x, box.bottom - 2),
                         max(3, box.width // 11))
    pygame.draw.rect(p.surface, steel, box, max(3, box.width // 14), border_radius=radius)


def _piranha(surface: pygame.Surface, box: pygame.Rect) -> None:
    """A Piranha Plant: a red, white-spotted head with its jaws open, on a stem with leaves."""
    green, dark = (60, 176, 70), (30, 110, 40)
    cx = box.centerx
    r = round(box.width * 0.46)
    head = (cx, box.top + r + box.height // 20)
    stem = pygame.Rect(0, 0, max(3, box.width // 7), box.bottom - head[1])
    stem.midbottom = (cx, box.bottom)
    pygame.draw.rect(surface, green, stem)
    for sign in (-1, 1):  # two leaves at the foot
        tip = (cx + sign * box.width * 0.5, box.bottom - box.height * 0.24)
        leaf = [(cx, box.bottom - box.height * 0.04),
                (cx + sign * box.width * 0.22, box.bottom - box.height * 0.3), tip,
                (cx + sign * box.width * 0.3, box.bottom - box.height * 0.06)]
        pygame.draw.polygon(surface, green, leaf)
        pygame.draw.polygon(surface, dark, leaf, max(1, box.width // 40))
    pygame.draw.circle(surface, (214, 34, 40), head, r)
    for dx, dy, k in ((-0.45, -0.45, 0.22), (0.1, -0.62, 0.16), (-0.62, 0.15, 0.15)):
        pygame.draw.circle(surface, (250, 248, 240),
                           (round(head[0] + dx * r), round(head[1] + dy * r)), round(r * k))
    apex = (head[0] - r * 0.15, head[1] + r * 0.05)  # the jaws: a slice open to the right
    edge = [(head[0] + r * math.cos(math.radians(a)), head[1] + r * math.sin(math.radians(a)))
            for a in range(-34, 41, 5)]
    pygame.draw.polygon(surface, (60, 8, 16), [apex, *edge])
    for end, sign in ((edge[0], 1), (edge[-1], -1)):  # teeth along both jaws
        for t in (0.38, 0.62, 0.86):
            x, y = apex[0] + (end[0] - apex[0]) * t, apex[1] + (end[1] - apex[1]) * t
            pygame.draw.polygon(surface, (250, 248, 240),
                                [(x - r * 0.08, y), (x + r * 0.08, y),
                                 (x, y + sign * r * 0.17)])


def _not_banked_line(face: OutcomeFace, nobody: str,
                     tr: Translator) -> tuple[str, Colour] | None:
    """The player line before the bank has the outcome (untracked, held, on its way) or when
    it went to nobody; None once it is someone's."""
    if not face.tracked:
        return "", WHITE
    if face.held:
        return tr.gettext("Not saved yet: kept, and saved when it can be"), GOLD
    if face.waiting:
        return "…", DIM
    if face.player is None:
        return nobody, GOLD
    return None


def _movie_player_line(face: OutcomeFace, tr: Translator = ENGLISH) -> tuple[str, Colour]:
    """Who it was for and what it did to them: coins, another die to come, Jail."""
    pending = _not_banked_line(face, tr.gettext("Nobody's turn: give it on the tablet"), tr)
    if pending is not None:
        return pending
    who = face.player
    kind = face.kind
    if kind is Kind.BATTLE_ROLL:
        return tr.gettext("{name} presses for the second die").format(
            name=face.teammate or who), GOLD
    if kind is Kind.BATTLE_WON and face.delta:
        if face.teammate is None:
            return tr.gettext("{name} {delta}  ·  now {balance}").format(
                name=who, delta=signed(face.delta), balance=face.balance), GREEN
        return tr.gettext("{name} {delta}  ·  {teammate} {coins}").format(
            name=who, delta=signed(face.delta), teammate=face.teammate,
            coins=signed(face.coins)), GREEN
    if kind in (Kind.BATTLE_LOST, Kind.THIRD_DOUBLES):
        return tr.gettext("{name} goes to Jail").format(name=who), RED
    if kind is Kind.JAIL_STAY:
        return tr.gettext("{name} stays in Jail").format(name=who), WHITE
    if kind is Kind.JAIL_FREE:
        return tr.gettext("{name} is out of Jail").format(name=who), WHITE
    if face.delta and face.balance is not None:
        if kind is Kind.JAIL_PAID:
            line = tr.gettext("{name} {delta}  ·  now {balance}  ·  out of Jail")
        else:
            line = tr.gettext("{name} {delta}  ·  now {balance}")
        return (line.format(name=who, delta=signed(face.delta), balance=face.balance),
                GREEN if face.delta > 0 else RED)
    return tr.gettext("{name}'s turn").format(name=who), WHITE


# -- Boss fights and Races ----------------------------------------------------------------


FIGHT_HEAD: Colour = (112, 22, 40)
RACE_HEAD: Colour = (20, 84, 70)
SILVER: Colour = (196, 202, 216)
BRONZE: Colour = (206, 130, 60)
ORANGE: Colour = (236, 128, 30)
WON_BAND: Colour = (24, 120, 60)
GONE_BAND: Colour = (70, 74, 100)
PROMPT = 27
"""The size of a contest's prompt ("Mario: fight or pass"): the line read across the table."""


def _contest_roll(p: Painter, face: OutcomeFace) -> None:
    """A Boss fighter's or a racer's roll: the headline, one big die (it lands as a ROLL's
    does), the mode's instruction (two lines if it is long) and who rolled."""
    p.surface.fill(BACKGROUNDS[face.kind])
    grow = min(1.0, 0.55 + 0.45 * face.frame / (ANIMATION_FRAMES * 0.5))
    colour = WHITE if face.kind is Kind.BOSS_LOST else GOLD
    p.text(face.headline, round(p.px(56) * grow), colour, max_width=p.w - p.px(20),
           center=(p.w // 2, p.y(40)))
    settling = face.frame < ANIMATION_FRAMES
    tilt = (ANIMATION_FRAMES - face.frame) * 0.06 if settling else 0.0
    side = min(p.y(108), p.px(130))
    _die(p.surface, (p.w // 2, p.y(76) + side // 2), side, face.roll, tilt)
    size = p.px(30)
    width = p.w - p.px(24)
    lines = wrap(face.instruction, size, width)
    if len(lines) > 2:
        lines = _halves(face.instruction, size, width)
    y = p.y(76) + side + p.y(10)
    for line in lines:
        y = p.text(line, size, WHITE, max_width=width, midtop=(p.w // 2, y)).rect.bottom
    who, ink = _contest_player_line(face, p.tr)
    if who:
        p.text(who, p.px(32), ink, max_width=p.w - p.px(20),
               center=(p.w // 2, max(p.h - p.y(22), y + p.y(20))))


def _contest_player_line(face: OutcomeFace, tr: Translator = ENGLISH) -> tuple[str, Colour]:
    pending = _not_banked_line(face, tr.gettext("Nobody's roll: give it on the tablet"), tr)
    if pending is not None:
        return pending
    if face.kind is Kind.BOSS_WON:
        return tr.gettext("{name} beats the Boss!").format(name=face.player), GREEN
    return tr.gettext("{name} rolled {n}").format(name=face.player, n=face.roll), WHITE


def _contest_header(p: Painter, title: str, colour: Colour, right: str = "",
                    tag: str = "", flag: bool = False) -> int:
    """The card's name big in gold on a coloured band, a red tag (``FINAL``) after it and
    what matters most on the right (or a chequered flag); returns the band's bottom."""
    header = pygame.Rect(0, 0, p.w, p.px(52))
    pygame.draw.rect(p.surface, colour, header)
    x = p.text(title, p.px(40), GOLD, max_width=round(p.w * 0.5),
               midleft=(p.px(12), header.centery)).rect.right
    if flag:
        box = pygame.Rect(0, 0, p.px(48), p.px(32))
        box.midright = (p.w - p.px(12), header.centery)
        tag_w = font(p.px(18)).size(tag)[0] + p.px(24) if tag else 0
        if x + tag_w + p.px(8) <= box.left:  # the tag first: a flag only where it fits
            _flag(p, box)
    if tag:
        size = p.px(18)
        w, h = font(size).size(tag)
        pill = pygame.Rect(0, 0, w + p.px(14), h + p.px(6))
        pill.midleft = (x + p.px(10), header.centery)
        pygame.draw.rect(p.surface, URGENT, pill, border_radius=pill.height // 2)
        p.text(tag, size, WHITE, center=pill.center)
        x = pill.right
    if right:
        p.text(right, p.px(28), WHITE, max_width=p.w - x - p.px(24),
               midright=(p.w - p.px(12), header.centery))
    return header.bottom


def _pair(p: Painter, left: str, right: str, top: int, left_ink: Colour = WHITE,
          right_ink: Colour = GOLD) -> int:
    """Two facts on one line under the header, left and right, at one size that fits both;
    returns the line's bottom."""
    room = p.w - p.px(24) - p.px(16)
    size = p.px(22)
    while size > 10 and font(size).size(left)[0] + font(size).size(right)[0] > room:
        size -= 1
    h = font(size).get_linesize()
    cy = top + p.px(4) + h // 2
    label = p.text(left, size, left_ink, max_width=room // 2 if right else room,
                   midleft=(p.px(12), cy)) if left else None
    if right:
        used = label.rect.width if label is not None else 0
        p.text(right, size, right_ink, max_width=room - used,
               midright=(p.w - p.px(12), cy))
    return top + h + p.px(8)


def _points(n: int, tr: Translator) -> str:
    return tr.ngettext("{n} point", "{n} points", n).format(n=n)


def _fight(p: Painter, face: FightFace, title: str) -> None:
    """A Boss fight: the card (what it takes to win, the odds, the cost, the prize), whose
    choice or roll it is (or how it ended), and each player's rolls, those who passed grey."""
    p.surface.fill(NAVY)
    tr = p.tr
    chance = (tr.gettext("every roll wins") if win_chance(face.required) == 1
              else tr.gettext("{chance} chance").format(chance=face.chance))
    needs = tr.gettext("needs {n}+").format(n=face.required)
    top = _contest_header(p, title, FIGHT_HEAD, f"{needs} · {chance}",
                          tr.gettext("FINAL") if face.final else "")
    cost = (tr.ngettext("{n} coin a roll", "{n} coins a roll", face.cost).format(n=face.cost)
            if face.cost else tr.gettext("free to fight"))
    if face.to_card:
        cost += " · " + tr.gettext("on the card: {n}").format(n=face.pot)
    prize = (tr.gettext("win: +{n}").format(n=face.bonus) if face.bonus
             else tr.gettext("win: the Bonus"))
    top = _pair(p, cost, f"{prize} · {_points(face.points, tr)}", top)
    if face.winner is not None:
        coins = face.bonus + face.pot
        if coins:
            line = tr.ngettext("{name} beats Boss {number}! +{coins}, {n} point",
                               "{name} beats Boss {number}! +{coins}, {n} points",
                               face.points)
        else:
            line = tr.ngettext("{name} beats Boss {number}! do the Bonus, {n} point",
                               "{name} beats Boss {number}! do the Bonus, {n} points",
                               face.points)
        top = _band(p, line.format(name=face.winner, number=face.number, coins=coins,
                                   n=face.points),
                    top, WON_BAND, WHITE, size=p.px(PROMPT))
    elif face.got_away:
        top = _band(p, tr.gettext("The Boss gets away"), top, GONE_BAND, WHITE,
                    size=p.px(PROMPT))
    elif face.fighter is not None:
        top = _band(p, tr.gettext("{name} fights: press the block!").format(
            name=face.fighter), top, GOLD, NAVY, size=p.px(PROMPT))
    elif face.up is not None:
        top = _band(p, tr.gettext("{name}: fight or pass").format(name=face.up), top, GOLD,
                    NAVY, size=p.px(PROMPT))
    _contest_rows(p, face.rows, pygame.Rect(0, top + p.px(4), p.w, p.h - top - p.px(8)),
                  win_at=face.required)


def _race(p: Painter, face: RaceFace, title: str) -> None:
    """A Race: the card (entry fee, prizes by place, points), then the entries, the rolls and
    places decided with whose press is next and the tie being re-rolled, or the podium."""
    p.surface.fill(NAVY)
    tr = p.tr
    tag = (tr.gettext("REMATCH") if face.rematch else tr.gettext("FINAL RACE") if face.final
           else "")
    top = _contest_header(p, title, RACE_HEAD, tag=tag, flag=True)
    prizes = " · ".join(f"{ordinal(i, tr)} +{c}" for i, c in enumerate(face.prizes, 1))
    if face.final and not face.rematch:
        prizes = tr.gettext("prize: a rematch")
    fee = (tr.ngettext("entry {n} coin", "entry {n} coins", face.fee).format(n=face.fee)
           if face.fee else tr.gettext("free entry"))
    top = _pair(p, fee, f"{prizes} · {_points(face.points, tr)}", top)
    if face.over:
        _podium(p, face, top)
        return
    if not face.started:
        entered = sum(not row.grey for row in face.rows)
        top = _band(p, tr.ngettext("Entries open: {n} entered", "Entries open: {n} entered",
                                   entered).format(n=entered),
                    top, GOLD, NAVY, size=p.px(PROMPT))
    else:
        if face.tied:
            names = tr.gettext("{names} and {last}").format(
                names=", ".join(face.tied[:-1]), last=face.tied[-1]) \
                if len(face.tied) > 1 else face.tied[0]
            top = _band(p, tr.gettext("Tie: {names} re-roll").format(names=names), top,
                        ORANGE, NAVY, size=p.px(PROMPT))
        if face.roller is not None:
            top = _band(p, tr.gettext("{name}: press!").format(name=face.roller), top, GOLD,
                        NAVY, size=p.px(PROMPT))
    _contest_rows(p, face.rows, pygame.Rect(0, top + p.px(4), p.w, p.h - top - p.px(8)))


def _flag(p: Painter, box: pygame.Rect) -> None:
    """A chequered flag."""
    cols, rows = 6, 4
    w, h = box.width / cols, box.height / rows
    pygame.draw.rect(p.surface, WHITE, box)
    for r in range(rows):
        for c in range(r % 2, cols, 2):
            pygame.draw.rect(p.surface, (20, 20, 24),
                             pygame.Rect(round(box.left + c * w), round(box.top + r * h),
                                         round(w + 0.5), round(h + 0.5)))
    pygame.draw.rect(p.surface, DIM, box, 1)


def _contest_rows(p: Painter, rows: tuple[ContestRow, ...], box: pygame.Rect,
                  win_at: int = 0) -> None:
    """One row a player: colour, name, their rolls as small dice (the winning one framed in
    gold), a word (``passed``, ``1st``) and their coins; whose turn it is lit."""
    if not rows or box.height <= 0:
        return
    row_h = min(p.px(50), box.height // len(rows))
    size = min(p.px(30), round(row_h * 0.6))
    small = max(10, round(size * 0.72))
    y = box.top
    for row in rows:
        r = pygame.Rect(box.left + p.px(6), y, box.width - p.px(12), row_h - p.px(3))
        if row.up or row.winner:
            pygame.draw.rect(p.surface, HIGHLIGHT, r, border_radius=p.px(8))
            pygame.draw.rect(p.surface, GOLD, r, max(2, p.px(2)), border_radius=p.px(8))
        pygame.draw.circle(p.surface, GREY if row.grey else parse_colour(row.colour),
                           (r.left + p.px(14), r.centery), max(3, round(row_h * 0.16)))
        right = r.right - p.px(10)
        right = p.text(str(row.balance) if row.balance >= 0 else MINUS + str(-row.balance),
                       size, GREY if row.grey else RED if row.balance < 0 else GOLD,
                       midright=(right, r.centery)).rect.left - p.px(4)
        coin_r = max(4, round(size * 0.3))
        coin(p.surface, (right - coin_r, r.centery), coin_r, lit=not row.grey)
        right -= 2 * coin_r + p.px(12)
        if row.status:
            ink = (GREY if row.grey else GOLD if row.winner or row.place == 1
                   else ORANGE if row.tied else GREEN if row.entered else WHITE)
            right = p.text(row.status, small, ink, midright=(right, r.centery)).rect.left \
                - p.px(10)
        name_left = r.left + p.px(30)
        name_w = min(font(size).size(row.name)[0], round(r.width * 0.34))
        side = max(10, round(row_h * 0.62))
        gap = max(3, side // 6)
        room = right - (name_left + name_w + p.px(10))
        shown = row.rolls[-max(0, (room + gap) // (side + gap)):] if room >= side else ()
        x = right - len(shown) * (side + gap) + gap
        for i, roll in enumerate(shown):
            centre = (x + side // 2, r.centery)
            _die(p.surface, centre, side, roll)
            last = i == len(shown) - 1
            if win_at and last and row.winner and roll >= win_at:
                frame = pygame.Rect(0, 0, side + 2 * gap, side + 2 * gap)
                frame.center = centre
                pygame.draw.rect(p.surface, GOLD, frame, max(2, side // 12),
                                 border_radius=gap)
            x += side + gap
        if shown:
            right = right - len(shown) * (side + gap) + gap - p.px(8)
        p.text(row.name, size, GREY if row.grey else WHITE,
               max_width=right - name_left - p.px(4), min_size=max(10, round(size * 0.7)),
               midleft=(name_left, r.centery))
        y += row_h


PODIUM: dict[int, Colour] = {1: GOLD, 2: SILVER, 3: BRONZE}


def _podium(p: Painter, face: RaceFace, top: int) -> None:
    """The race is over: who won (and the card's points), the places on a podium (2nd, 1st,
    3rd) with each prize, a 4th place below it, and the final Race's rematch to pick."""
    tr = p.tr
    if face.winner is not None:
        top = _band(p, tr.ngettext("{name} wins Grand Prix {number}! {n} point",
                                   "{name} wins Grand Prix {number}! {n} points",
                                   face.points).format(name=face.winner, number=face.number,
                                                       n=face.points),
                    top, WON_BAND, WHITE, size=p.px(PROMPT))
    bottom = p.h
    if face.rematch_due:  # along the bottom: one line, as high as _band makes it
        size = p.px(PROMPT)
        bottom = p.h - max(p.px(30), round(font(size).get_linesize() * 0.92) + p.px(8))
        _band(p, tr.gettext("Rematch: pick a card"), bottom, GOLD, NAVY, size=size)
    placed = [row for row in face.rows if row.place]
    rest = [row for row in placed if row.place > 3]
    if rest:
        line = "   ".join(f"{ordinal(row.place, tr)} {row.name}"
                          + (f" +{row.prize}" if row.prize else "") for row in rest)
        label = p.text(line, p.px(20), WHITE, max_width=p.w - p.px(24),
                       midbottom=(p.w // 2, bottom - p.px(4)))
        bottom = label.rect.top
    steps = [row for row in placed if row.place <= 3]
    if not steps:
        return
    area = pygame.Rect(p.px(12), top + p.px(4), p.w - p.px(24), bottom - top - p.px(8))
    col_w = area.width // 3
    name_size = min(p.px(26), max(10, area.height // 6))
    name_h = font(name_size).get_linesize()
    tallest = area.height - name_h - p.px(4)
    slots = {2: 0, 1: 1, 3: 2}
    heights = {1: 1.0, 2: 0.74, 3: 0.52}
    for row in steps:
        h = max(p.px(24), round(tallest * heights[row.place]))
        block = pygame.Rect(area.left + slots[row.place] * col_w + p.px(4), area.bottom - h,
                            col_w - p.px(8), h)
        pygame.draw.rect(p.surface, PODIUM[row.place], block,
                         border_top_left_radius=p.px(8), border_top_right_radius=p.px(8))
        dot_r = max(3, round(name_h * 0.22))
        name = p.text(row.name, name_size, GOLD if row.place == 1 else WHITE,
                      max_width=block.width - 3 * dot_r - p.px(6),
                      min_size=max(10, round(name_size * 0.7)),
                      midbottom=(block.centerx + dot_r, block.top - p.px(3)))
        pygame.draw.circle(p.surface, parse_colour(row.colour),
                           (name.rect.left - dot_r - p.px(4), name.rect.centery), dot_r)
        if row.prize:  # the place, and the coins for it under (beside, on a low step)
            digit = min(round(h * 0.5), p.px(52))
            money = max(10, min(p.px(30), round(h * 0.3)))
            stack = font(digit).get_linesize() + font(money).get_linesize()
            if stack <= h - p.px(4):
                num = p.text(str(row.place), digit, NAVY,
                             midbottom=(block.centerx, block.centery + (stack // 2 -
                                        font(money).get_linesize())))
                p.text(f"+{row.prize}", money, NAVY, midtop=(block.centerx, num.rect.bottom))
            else:
                p.text(f"{row.place}  +{row.prize}", min(digit, p.px(30)), NAVY,
                       max_width=block.width - p.px(8), center=block.center)
        else:
            p.text(str(row.place), min(round(h * 0.62), p.px(56)), NAVY, center=block.center)


# -- the countdown -------------------------------------------------------------------------


def _timer(p: Painter, face: TimerFace) -> None:
    if face.time_up:
        p.surface.fill(URGENT if face.flash else NAVY)
        p.text(p.tr.gettext("TIME'S UP!"), p.px(84), WHITE, max_width=p.w - p.px(16),
               center=(p.w // 2, p.h // 2))
        return
    if face.urgent:
        p.surface.fill(URGENT if face.flash else (60, 0, 8))
        p.text(clock_text(face.seconds), round(p.h * 0.85), GOLD if face.flash else WHITE,
               max_width=p.w - p.px(16), center=(p.w // 2, p.h // 2))
        return
    p.surface.fill((12, 60, 64))
    p.text(face.label, p.px(30), WHITE, max_width=p.w - p.px(20),
           center=(p.w // 2, p.px(34)))
    p.text(clock_text(face.seconds), p.px(180), WHITE, max_width=p.w - p.px(16),
           center=(p.w // 2, p.px(160)))
    bar = pygame.Rect(p.px(24), p.h - p.px(56), p.w - p.px(48), p.px(26))
    pygame.draw.rect(p.surface, (30, 100, 104), bar, border_radius=p.px(8))
    filled = bar.copy()
    filled.width = round(bar.width * face.fraction)
    pygame.draw.rect(p.surface, GREEN, filled, border_radius=p.px(8))


def _timer_strip(p: Painter, face: TimerFace) -> None:
    strip = pygame.Rect(0, 0, p.w, p.px(24))
    pygame.draw.rect(p.surface, (12, 60, 64), strip)
    filled = strip.copy()
    filled.width = round(strip.width * face.fraction)
    pygame.draw.rect(p.surface, (30, 130, 110), filled)
    p.text(p.tr.gettext("timer {clock}").format(clock=clock_text(face.seconds)), p.px(20),
           WHITE,
           midright=(p.w - p.px(8), strip.centery))


# -- the table -----------------------------------------------------------------------------


def _table(p: Painter, scene: Scene) -> None:
    p.surface.fill(NAVY)
    header = pygame.Rect(0, 0, p.w, p.px(50))
    pygame.draw.rect(p.surface, PANEL, header)
    current = next((pl for pl in scene.players if pl.current), None)
    x = p.px(14)
    if current is not None:
        pygame.draw.circle(p.surface, parse_colour(current.colour), (x + p.px(10),
                                                                    header.centery), p.px(10))
        x += p.px(28)
    p.text(scene.title, p.px(34), WHITE, max_width=p.w - x - p.px(10),
           midleft=(x, header.centery))
    top = header.bottom
    if scene.mode:  # an armed press: the next press is not the usual one
        top = _band(p, p.tr.gettext("Next press: {mode}").format(mode=scene.mode), top, GOLD,
                    NAVY)
    if scene.bowser_waits:
        top = _band(p, p.tr.gettext(BOWSER_WAITS), top, (150, 52, 20), WHITE, shell=True)
    bottom = _board_band(p, scene.board) if scene.board else p.h
    split = round(p.w * 0.56)
    _player_rows(p, scene, pygame.Rect(0, top + p.px(4), split, bottom - top - p.px(8)))
    _log(p, scene, pygame.Rect(split + p.px(6), top + p.px(4),
                               p.w - split - p.px(10), bottom - top - p.px(8)))


BOARD_BAND: Colour = (66, 48, 8)
BOARD_INK: Colour = (236, 206, 140)
"""The board's band: coin-coloured, its label a pale gold beside the piles' gold."""


def _board_band(p: Painter, piles: tuple[tuple[str, int], ...]) -> int:
    """The coins on the board (Gamer, Mario Kart) in a band along the bottom: "On the board",
    then each pile's space and a coin with its count, oldest first. All of them, a little
    smaller if need be; else as many as fit and "+N more" (the oldest at least, its name
    shortened if it must). Returns the band's top."""
    right = p.w - p.px(8)
    piles = tuple((p.tr.gettext(name), coins) for name, coins in piles)
    sizes = (p.px(21), max(12, p.px(19)), max(12, p.px(17)))  # shrunk: still readable
    size = next((z for z in sizes if _piles_fit(p, piles, z, right) == len(piles)), sizes[0])
    band = pygame.Rect(0, 0, p.w, max(p.px(30), font(sizes[0]).get_linesize() + p.px(6)))
    band.bottom = p.h
    pygame.draw.rect(p.surface, BOARD_BAND, band)
    pygame.draw.line(p.surface, GOLD_DARK, band.topleft, band.topright, max(1, p.px(2)))
    cy = band.centery
    x = p.text(p.tr.gettext(BOARD_LABEL), size, BOARD_INK, midleft=(p.px(8), cy)).rect.right
    sep = _pile_metrics(p, size)[2]
    shown = _piles_fit(p, piles, size, right)
    for name, coins in piles[:shown]:
        x = _pile(p, name, coins, size, x + sep, cy)
    if shown == 0:  # not even the oldest whole: its name shortened, its coins whole
        name, coins = piles[0]
        room = right - _more_width(p, size, len(piles) - 1) - x - sep - _pile_width(
            p, "", coins, size)
        if room >= font(size).size("M…")[0]:
            shown = 1
            x = _pile(p, fit(name, size, room, size)[1], coins, size, x + sep, cy)
    if shown < len(piles):
        p.text(_more(p.tr, len(piles) - shown), size, BOARD_INK, midleft=(x + sep, cy))
    return band.top


BOARD_LABEL = _("On the board")


def _more(tr: Translator, left: int) -> str:
    return tr.ngettext("+{n} more", "+{n} more", left).format(n=left)


def _pile_metrics(p: Painter, size: int) -> tuple[int, int, int]:
    """A pile's coin radius, the gap around its coin, the space between piles."""
    return max(4, round(size * 0.34)), p.px(4), p.px(16)


def _pile_width(p: Painter, name: str, coins: int, size: int) -> int:
    r, gap, _ = _pile_metrics(p, size)
    return font(size).size(name)[0] + gap + 2 * r + gap + font(size).size(str(coins))[0]


def _more_width(p: Painter, size: int, left: int) -> int:
    return _pile_metrics(p, size)[2] + font(size).size(_more(p.tr, left))[0] if left else 0


def _piles_fit(p: Painter, piles: tuple[tuple[str, int], ...], size: int, right: int) -> int:
    """How many piles, oldest first, fit whole after the label at ``size`` (leaving room for
    "+N more" when some do not)."""
    sep = _pile_metrics(p, size)[2]
    x = p.px(8) + font(size).size(p.tr.gettext(BOARD_LABEL))[0]
    shown = 0
    for i, (name, coins) in enumerate(piles):
        x += sep + _pile_width(p, name, coins, size)
        if x + _more_width(p, size, len(piles) - i - 1) > right:
            break
        shown = i + 1
    return shown


def _pile(p: Painter, name: str, coins: int, size: int, x: int, cy: int) -> int:
    """One pile: the space's name, a coin, the count; returns its right edge."""
    r, gap, _ = _pile_metrics(p, size)
    x = p.text(name, size, WHITE, midleft=(x, cy)).rect.right + gap
    coin(p.surface, (x + r, cy), r)
    return p.text(str(coins), size, GOLD, midleft=(x + 2 * r + gap, cy)).rect.right


def _band(p: Painter, text: str, top: int, colour: Colour, ink: Colour, *,
          shell: bool = False, size: int | None = None) -> int:
    """A full-width band of ``text`` under the header, centred (on two lines when one would
    be too small to read across the table), after Bowser's shell if ``shell``, its text
    ``size`` (else the usual); returns its bottom."""
    icon = p.px(28) if shell else 0
    width = p.w - p.px(16) - icon
    smallest = p.px(19) if size is None else round(size * 0.86)
    size = p.px(22) if size is None else size
    lines = [text]
    if fit(text, size, width, 10)[0] < max(10, smallest):
        lines = _halves(text, size, width)
    line_h = round(font(size).get_linesize() * 0.92)
    band = pygame.Rect(0, top, p.w, max(p.px(30), line_h * len(lines) + p.px(8)))
    pygame.draw.rect(p.surface, colour, band)
    widest = max(font(fit(line, size, width, 10)[0]).size(fit(line, size, width, 10)[1])[0]
                 for line in lines)
    centre = p.w // 2 + icon // 2
    if shell:
        _shell(p.surface, (centre - widest // 2 - icon + p.px(11), band.centery), p.px(9))
    for i, line in enumerate(lines):
        y = band.centery + round((i - (len(lines) - 1) / 2) * line_h)
        p.text(line, size, ink, max_width=width, min_size=10, center=(centre, y))
    return band.bottom


def _halves(text: str, size: int, width: int) -> list[str]:
    """``text`` on two lines broken at the space (after a colon or semicolon if one fits)
    that balances them best."""
    words = text.split(" ")
    best: tuple[float, list[str]] = (math.inf, [text])
    for i in range(1, len(words)):
        first, second = " ".join(words[:i]), " ".join(words[i:])
        widest = max(font(size).size(first)[0], font(size).size(second)[0])
        cost = widest - (width * 0.25 if first.endswith((":", ";")) else 0)
        if cost < best[0]:
            best = (cost, [first, second])
    return best[1]


def _player_rows(p: Painter, scene: Scene, box: pygame.Rect) -> None:
    if not scene.players:
        return
    row_h = min(p.px(52), box.height // len(scene.players))
    size = min(p.px(34), round(row_h * 0.62))
    y = box.top
    for pl in scene.players:
        row = pygame.Rect(box.left + p.px(6), y, box.width - p.px(6), row_h - p.px(3))
        if pl.current:
            pygame.draw.rect(p.surface, HIGHLIGHT, row, border_radius=p.px(8))
            pygame.draw.rect(p.surface, GOLD, row, max(2, p.px(2)), border_radius=p.px(8))
        dot = (row.left + p.px(14), row.centery)
        pygame.draw.circle(p.surface, GREY if pl.out else parse_colour(pl.colour), dot,
                           max(3, round(row_h * 0.16)))
        right = row.right - p.px(10)
        if pl.out:
            right = p.text(p.tr.gettext("OUT"), size, GREY, midright=(right, row.centery)).rect.left
        elif pl.worms is not None and scene.target:
            right = _worm_marks(p, pl.worms, scene.target, row, size)
        elif scene.coins:
            right = p.text(str(pl.balance) if pl.balance >= 0 else MINUS + str(-pl.balance),
                           size, RED if pl.balance < 0 else GOLD,
                           midright=(right, row.centery)).rect.left
        if pl.in_jail:
            right = _jail_tag(p, right - p.px(8), row.centery, size)
        name_left = row.left + p.px(30)
        p.text(pl.name, size, GREY if pl.out else WHITE, max_width=right - name_left - p.px(8),
               min_size=max(10, round(size * 0.7)), strike=pl.out,
               midleft=(name_left, row.centery))
        y += row_h


def _jail_tag(p: Painter, right: int, cy: int, size: int) -> int:
    """"IN JAIL" in a barred tag ending at ``right``; returns its left edge."""
    text_size = max(10, round(size * 0.62))
    words = p.tr.gettext("IN JAIL")
    w, h = font(text_size).size(words)
    tag = pygame.Rect(0, 0, w + p.px(12), h + p.px(6))
    tag.midright = (right, cy)
    pygame.draw.rect(p.surface, (20, 20, 28), tag, border_radius=p.px(5))
    pygame.draw.rect(p.surface, (170, 176, 196), tag, max(1, p.px(2)), border_radius=p.px(5))
    p.text(words, text_size, WHITE, center=tag.center)
    return tag.left


def _worm_marks(p: Painter, found: int, target: int, row: pygame.Rect, size: int) -> int:
    """``found`` of ``target`` worms as little bars (lit when found); the left edge used."""
    label = p.text(f"{found}/{target}", size, GOLD, midright=(row.right - p.px(10),
                                                           row.centery))
    w = max(3, round(size * 0.22))
    gap = max(2, w // 2)
    h = max(6, round(size * 0.62))
    x = label.rect.left - p.px(8) - target * (w + gap)
    for i in range(target):
        bar = pygame.Rect(x + i * (w + gap), row.centery - h // 2, w, h)
        lit = i < found
        pygame.draw.rect(p.surface, (236, 112, 164) if lit else (70, 76, 120), bar,
                         border_radius=max(1, w // 2))
    return x


def _log(p: Painter, scene: Scene, box: pygame.Rect) -> None:
    pygame.draw.rect(p.surface, PANEL, box, border_radius=p.px(8))
    if not scene.coins:  # a timer-only game: the edition's words for its lever, no coins
        y = box.top + p.px(12)
        for line in wrap(scene.hint, p.px(24), box.width - p.px(20)):
            y = p.text(line, p.px(24), WHITE, max_width=box.width - p.px(20),
                       topleft=(box.left + p.px(10), y)).rect.bottom + p.px(6)
        return
    p.text(p.tr.gettext("Coins"), p.px(22), DIM, topleft=(box.left + p.px(10), box.top + p.px(6)))
    if not scene.log:
        p.text(p.tr.gettext("no coins moved yet"), p.px(18), DIM, max_width=box.width - p.px(20),
               topleft=(box.left + p.px(10), box.top + p.px(40)))
        return
    top = box.top + p.px(34)
    line_h = (box.bottom - top) // max(len(scene.log), 4)
    size = min(p.px(30), round(line_h * 0.46))
    small = max(10, round(size * 0.8))
    for i, line in enumerate(scene.log):
        y = top + i * line_h
        colour = DIM if line.undone else (GREEN if line.delta > 0 else RED)
        amount = p.text(signed(line.delta), size, colour, strike=line.undone,
                        topright=(box.right - p.px(8), y))
        p.text(line.who, size, DIM if line.undone else WHITE, strike=line.undone,
               max_width=amount.rect.left - box.left - p.px(18),
               topleft=(box.left + p.px(10), y))
        if line.why:
            p.text(line.why, small, DIM, max_width=box.width - p.px(20), min_size=8,
                   strike=line.undone, topleft=(box.left + p.px(10), y + round(size * 1.0)))


# -- the winner ----------------------------------------------------------------------------


def _winner(p: Painter, scene: Scene) -> None:
    """The game has ended: who won, in gold, and the final standings (Bowser's win: his
    shells, in red, and nobody's row lit)."""
    bowser = scene.bowser_won
    p.surface.fill((70, 14, 14) if bowser else (40, 22, 70))
    for i in range(12):  # rays behind the headline
        angle = i * math.pi / 6
        tip = (p.w // 2 + p.w * math.cos(angle), p.px(46) + p.w * math.sin(angle))
        side = (p.w // 2 + p.w * math.cos(angle + 0.12), p.px(46) + p.w * math.sin(angle + 0.12))
        pygame.draw.polygon(p.surface, (92, 22, 18) if bowser else (54, 32, 92),
                            [(p.w // 2, p.px(46)), tip, side])
    top = p.px(88)
    if bowser:
        _shell(p.surface, (p.px(34), p.px(40)), p.px(20))
        _shell(p.surface, (p.w - p.px(34), p.px(40)), p.px(20))
        p.text(scene.title, p.px(52), RED, max_width=p.w - p.px(130),
               center=(p.w // 2, p.px(38)))
        p.text(p.tr.gettext("Every player loses"), p.px(24), WHITE, max_width=p.w - p.px(130),
               center=(p.w // 2, p.px(76)))
        top = p.px(98)
    else:
        _star(p.surface, (p.px(34), p.px(44)), p.px(24))
        _star(p.surface, (p.w - p.px(34), p.px(44)), p.px(24))
        p.text(scene.title, p.px(52), GOLD, max_width=p.w - p.px(120),
               center=(p.w // 2, p.px(46)))
    rows = scene.standings
    if not rows:
        return
    row_h = min(p.px(44), (p.h - top - p.px(8)) // len(rows))
    size = min(p.px(30), round(row_h * 0.62))
    for i, row in enumerate(rows):
        box = pygame.Rect(p.px(16), top + i * row_h, p.w - p.px(32), row_h - p.px(4))
        if row.winner:
            pygame.draw.rect(p.surface, HIGHLIGHT, box, border_radius=p.px(8))
            pygame.draw.rect(p.surface, GOLD, box, max(2, p.px(2)), border_radius=p.px(8))
        colour = GOLD if row.winner else GREY if row.out else WHITE
        rank = p.text(p.tr.gettext("{n}.").format(n=row.rank), size, colour,
                      midleft=(box.left + p.px(10), box.centery))
        dot = (rank.rect.right + p.px(16), box.centery)
        pygame.draw.circle(p.surface, parse_colour(row.colour), dot, max(3, round(row_h * 0.16)))
        score = p.text(row.score, size, colour, midright=(box.right - p.px(10), box.centery))
        left = dot[0] + p.px(16)
        p.text(row.name, size, colour, max_width=score.rect.left - left - p.px(10),
               min_size=max(10, round(size * 0.7)), midleft=(left, box.centery))


# -- the coins over the game -----------------------------------------------------------------


def _whole(n: int) -> str:
    return MINUS + str(-n) if n < 0 else str(n)


def _chart(p: Painter, title: str, face: ChartFace) -> None:
    """The game has ended: each player's coins over it, a line each in their colour, their
    name and final coins at its end (moved apart where ends meet); the scale at the left."""
    p.surface.fill((40, 22, 70))
    p.text(title, p.px(30), GOLD, max_width=p.w - p.px(24), center=(p.w // 2, p.px(22)))
    size = p.px(18)
    small = max(14, p.px(14))  # a lone "0" at 12 px has no solid pixel: too faint
    ends = [f"{line.name} {_whole(line.coins[-1])}" for line in face.lines]
    widest = max(font(size).size(text)[0] for text in ends)
    right = min(widest, round(p.w * 0.4)) + p.px(14)
    scale = max(font(small).size(_whole(v))[0] for v in (face.low, face.high)) + p.px(10)
    left, top = p.px(8) + scale, p.px(48)
    bottom = p.h - p.px(10) - font(small).get_linesize()
    plot = pygame.Rect(left, top, p.w - left - right, bottom - top)
    span = max(1, face.high - face.low)

    def y(coins: int) -> int:
        return round(plot.bottom - plot.height * (coins - face.low) / span)

    named: list[int] = []
    for value in (0, face.high, face.low):  # 0 first; a figure too near another goes unsaid
        if value in named and value != 0:
            continue
        pygame.draw.line(p.surface, DIM if value == 0 else (72, 56, 112),
                         (plot.left, y(value)), (plot.right, y(value)), 1)
        if all(abs(y(value) - y(other)) >= font(small).get_linesize() for other in named):
            p.text(_whole(value), small, DIM, midright=(plot.left - p.px(6), y(value)))
            named.append(value)
    p.text(p.tr.gettext("At the start"), small, DIM, topleft=(plot.left, plot.bottom + p.px(6)))
    p.text(p.tr.gettext("At the end"), small, DIM, topright=(plot.right, plot.bottom + p.px(6)))
    steps = max(1, max(len(line.coins) for line in face.lines) - 1)
    for line in face.lines:
        points = [(round(plot.left + plot.width * i / steps), y(c))
                  for i, c in enumerate(line.coins)]
        pygame.draw.lines(p.surface, parse_colour(line.colour), False, points,
                          max(2, p.px(3)))
    step = font(size).get_linesize()
    labels = sorted(((y(line.coins[-1]), text, parse_colour(line.colour))
                     for line, text in zip(face.lines, ends, strict=True)),
                    key=lambda label: label[0])
    placed: list[int] = []
    for want, _text, _colour in labels:  # apart by a line, and inside the picture
        placed.append(max(want, placed[-1] + step) if placed else want)
    over = placed[-1] + step // 2 - (p.h - p.px(4)) if placed else 0
    placed = [at - max(0, over) for at in placed]
    for i, at in enumerate(placed):
        placed[i] = max(at, top - p.px(8) + step // 2 + i * step)
    for at, (_want, text, colour) in zip(placed, labels, strict=True):
        p.text(text, size, colour, max_width=right - p.px(10), min_size=10,
               midleft=(plot.right + p.px(8), at))


# -- a new card ----------------------------------------------------------------------------


def _new_card(p: Painter, scene: Scene) -> None:
    p.surface.fill((40, 30, 90))
    card = pygame.Rect(0, 0, p.px(150), p.px(96))
    card.center = (p.w // 2, p.px(98))
    pygame.draw.rect(p.surface, WHITE, card, border_radius=p.px(12))
    chip = pygame.Rect(card.left + p.px(18), card.top + p.px(26), p.px(34), p.px(26))
    pygame.draw.rect(p.surface, GOLD, chip, border_radius=p.px(5))
    for i in range(3):  # printed lines on the card
        line = pygame.Rect(card.left + p.px(66), card.top + p.px(26 + i * 16),
                           p.px(64 - i * 14), p.px(7))
        pygame.draw.rect(p.surface, (190, 190, 215), line, border_radius=p.px(3))
    p.text(p.tr.gettext("NEW CARD"), p.px(56), GOLD, max_width=p.w - p.px(20),
           center=(p.w // 2, p.px(190)))
    p.text(scene.title, p.px(28), WHITE, max_width=p.w - p.px(20),
           center=(p.w // 2, p.px(236)))
    p.text(p.tr.gettext("Give it to a player on the tablet"), p.px(24), DIM,
           max_width=p.w - p.px(20),
           center=(p.w // 2, p.px(280)))
    if scene.timer is not None:
        _timer_strip(p, scene.timer)


# -- idle ----------------------------------------------------------------------------------


def question_block(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """The yellow "?" block, our own drawing."""
    pygame.draw.rect(surface, GOLD_DARK, rect, border_radius=max(2, rect.width // 10))
    inner = rect.inflate(-rect.width // 8, -rect.width // 8)
    pygame.draw.rect(surface, GOLD, inner, border_radius=max(2, rect.width // 12))
    mark = font(round(rect.height * 0.8)).render("?", True, WHITE)
    surface.blit(mark, mark.get_rect(center=rect.center))


def _idle(p: Painter, scene: Scene) -> None:
    p.surface.fill(NAVY)
    card = qr_card(p)
    side = card.width
    if scene.link:
        pygame.draw.rect(p.surface, WHITE, card, border_radius=p.px(6))
        draw_qr(p.surface, scene.link, card)
    else:
        question_block(p.surface, card.inflate(-side // 5, -side // 5))
    left = card.right + p.px(14)
    width = p.w - left - p.px(10)
    y = p.px(20)
    label = p.text(scene.title, p.px(30), GOLD, max_width=width, topleft=(left, y))
    y = label.rect.bottom + p.px(14)
    # one message a text, its lines (as they fit beside the code) broken by "\n"
    lines = (p.tr.gettext("Scan for the bank\non a phone or tablet:") if scene.link
             else p.tr.gettext("No tablet link yet:\nweb is off or the\nnetwork is not up"))
    for line in lines.split("\n"):
        y = p.text(line, p.px(22), WHITE, max_width=width, topleft=(left, y)).rect.bottom
        y += p.px(4)
    if scene.address:
        address = scene.address.removeprefix("http://")
        y = p.text(address, p.px(22), GREEN, max_width=width, min_size=8,
                   topleft=(left, y + p.px(6))).rect.bottom
    y += p.px(12)
    rows = list(scene.players)
    if not rows:
        p.text(p.tr.gettext("Press the block to play"), p.px(20), DIM, max_width=width,
               topleft=(left, y))
        return
    size = max(11, p.px(21))
    line_h = round(size * 1.15)
    room = max(0, (p.h - p.px(8) - y) // line_h)
    for pl in rows[:room]:
        money = p.text(signed(pl.balance).lstrip("+"), size,
                       RED if pl.balance < 0 else GOLD, topright=(left + width, y))
        p.text(pl.name, size, WHITE, max_width=money.rect.left - left - p.px(8),
               topleft=(left, y))
        y += line_h


# -- join: the players' one code -------------------------------------------------------------


def qr_card(p: Painter) -> pygame.Rect:
    """Where the idle and join screens put their QR code: a white square on the left, as
    large as fits half the width."""
    side = min(p.h - p.px(24), round(p.w * 0.5))
    return pygame.Rect(p.px(12), (p.h - side) // 2, side, side)


def _join(p: Painter, scene: Scene) -> None:
    """The join code's QR on the left; beside it what to do and who has no phone yet."""
    assert scene.link is not None
    p.surface.fill(NAVY)
    card = qr_card(p)
    pygame.draw.rect(p.surface, WHITE, card, border_radius=p.px(6))
    draw_qr(p.surface, scene.link, card)
    left = card.right + p.px(14)
    width = p.w - left - p.px(10)
    y = p.px(20)
    y = p.text(scene.title, p.px(30), GOLD, max_width=width, topleft=(left, y)).rect.bottom
    y += p.px(12)
    # one message, its lines (as they fit beside the code) broken by "\n"
    for line in p.tr.gettext("Scan with your phone,\nthen tap your name").split("\n"):
        y = p.text(line, p.px(22), WHITE, max_width=width, topleft=(left, y)).rect.bottom
        y += p.px(4)
    y += p.px(10)
    y = p.text(p.tr.gettext("No phone yet:"), p.px(20), DIM, max_width=width,
               topleft=(left, y)).rect.bottom + p.px(4)
    size = max(11, p.px(21))
    line_h = round(size * 1.15)
    room = max(0, (p.h - p.px(8) - y) // line_h)  # six players fit at every preset
    dot = max(3, round(size * 0.3))
    for row in scene.players[:room]:
        middle = y + line_h // 2
        pygame.draw.circle(p.surface, parse_colour(row.colour), (left + dot, middle), dot)
        p.text(row.name, size, WHITE, max_width=width - 3 * dot,
               midleft=(left + 3 * dot, middle))
        y += line_h
