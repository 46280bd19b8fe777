"""Drawing a :class:`Scene` onto a pygame surface of any size, readable across a table.

Only pygame's own font (``freesansbold.ttf``, shipped in the wheel) is used. Every text label
is recorded with where it landed, so tests can check that names and amounts are really on the
picture, inside it and not drawn over.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import pygame

from companion.core.outcomes import Kind
from companion.display.qr import draw_qr
from companion.display.scene import ANIMATION_FRAMES, OutcomeFace, Scene, TimerFace

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
}


@dataclass(frozen=True, slots=True)
class Label:
    """A piece of text as drawn: the string, its font size and its box on the surface."""

    text: str
    size: int
    rect: pygame.Rect
    colour: Colour


@lru_cache(maxsize=64)
def font(size: int) -> pygame.font.Font:
    """pygame's bundled bold sans at ``size`` pixels."""
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame.font.Font(None, max(6, size))


class Painter:
    """Draws on one surface and remembers every label."""

    def __init__(self, surface: pygame.Surface) -> None:
        self.surface = surface
        self.w, self.h = surface.get_size()
        self.s = min(self.w / 480, self.h / 320)
        self.labels: list[Label] = []

    def px(self, value: float) -> int:
        """A length designed for 480x320, scaled to this surface."""
        return max(1, round(value * self.s))

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
    is not saving) takes a strip along the bottom and the scene is drawn above it."""
    if not scene.warning:
        return _render(scene, surface)
    strip = Painter(surface).px(WARNING_STRIP)
    w, h = surface.get_size()
    labels = _render(scene, surface.subsurface((0, 0, w, h - strip)))
    p = Painter(surface)
    box = pygame.Rect(0, h - strip, w, strip)
    pygame.draw.rect(surface, WARNING_RED, box)
    p.text(scene.warning, p.px(20), WHITE, max_width=w - p.px(16), center=box.center)
    return labels + p.labels


WARNING_STRIP = 30
WARNING_RED: Colour = (150, 20, 20)


def _render(scene: Scene, surface: pygame.Surface) -> list[Label]:
    p = Painter(surface)
    if scene.screen == "outcome":
        assert scene.outcome is not None
        _outcome(p, scene.outcome, scene.timer)
    elif scene.screen == "timer":
        assert scene.timer is not None
        _timer(p, scene.timer)
    elif scene.screen == "idle":
        _idle(p, scene)
    elif scene.screen == "card":
        _new_card(p, scene)
    elif scene.screen == "winner":
        _winner(p, scene)
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
    if face.held:
        line, colour = "Not saved yet: kept, and saved when it can be", GOLD
    elif face.waiting:
        line, colour = "…", DIM
    elif face.player is None:
        line, colour = "Nobody's turn: give it on the tablet", GOLD
    elif face.delta and face.balance is not None:
        line = f"{face.player} {signed(face.delta)}  ·  now {face.balance}"
        if face.payee is not None:
            line = f"{face.player} {signed(face.delta)} to {face.payee}  ·  now {face.balance}"
        colour = GREEN if face.delta > 0 else RED
    else:
        line, colour = f"{face.player}'s turn", WHITE
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


# -- the countdown -------------------------------------------------------------------------


def _timer(p: Painter, face: TimerFace) -> None:
    if face.time_up:
        p.surface.fill(URGENT if face.flash else NAVY)
        p.text("TIME'S UP!", p.px(84), WHITE, max_width=p.w - p.px(16),
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
    p.text(f"timer {clock_text(face.seconds)}", p.px(20), WHITE,
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
        banner = pygame.Rect(0, top, p.w, p.px(30))
        pygame.draw.rect(p.surface, GOLD, banner)
        p.text(f"Next press: {scene.mode}", p.px(22), NAVY, max_width=p.w - p.px(16),
               min_size=9, center=banner.center)
        top = banner.bottom
    split = round(p.w * 0.56)
    _player_rows(p, scene, pygame.Rect(0, top + p.px(4), split, p.h - top - p.px(8)))
    _log(p, scene, pygame.Rect(split + p.px(6), top + p.px(4),
                               p.w - split - p.px(10), p.h - top - p.px(8)))


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
            right = p.text("OUT", size, GREY, midright=(right, row.centery)).rect.left
        elif pl.worms is not None and scene.target:
            right = _worm_marks(p, pl.worms, scene.target, row, size)
        elif scene.coins:
            right = p.text(str(pl.balance) if pl.balance >= 0 else MINUS + str(-pl.balance),
                           size, RED if pl.balance < 0 else GOLD,
                           midright=(right, row.centery)).rect.left
        name_left = row.left + p.px(30)
        p.text(pl.name, size, GREY if pl.out else WHITE, max_width=right - name_left - p.px(8),
               min_size=max(10, round(size * 0.7)), strike=pl.out,
               midleft=(name_left, row.centery))
        y += row_h


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
    p.text("Coins", p.px(22), DIM, topleft=(box.left + p.px(10), box.top + p.px(6)))
    if not scene.log:
        p.text("no coins moved yet", p.px(18), DIM, max_width=box.width - p.px(20),
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
    """The game has ended: who won, in gold, and the final standings."""
    p.surface.fill((40, 22, 70))
    for i in range(12):  # rays behind the headline
        angle = i * math.pi / 6
        tip = (p.w // 2 + p.w * math.cos(angle), p.px(46) + p.w * math.sin(angle))
        side = (p.w // 2 + p.w * math.cos(angle + 0.12), p.px(46) + p.w * math.sin(angle + 0.12))
        pygame.draw.polygon(p.surface, (54, 32, 92), [(p.w // 2, p.px(46)), tip, side])
    _star(p.surface, (p.px(34), p.px(44)), p.px(24))
    _star(p.surface, (p.w - p.px(34), p.px(44)), p.px(24))
    p.text(scene.title, p.px(52), GOLD, max_width=p.w - p.px(120),
           center=(p.w // 2, p.px(46)))
    rows = scene.standings
    if not rows:
        return
    top = p.px(88)
    row_h = min(p.px(44), (p.h - top - p.px(8)) // len(rows))
    size = min(p.px(30), round(row_h * 0.62))
    for i, row in enumerate(rows):
        box = pygame.Rect(p.px(16), top + i * row_h, p.w - p.px(32), row_h - p.px(4))
        if row.winner:
            pygame.draw.rect(p.surface, HIGHLIGHT, box, border_radius=p.px(8))
            pygame.draw.rect(p.surface, GOLD, box, max(2, p.px(2)), border_radius=p.px(8))
        colour = GOLD if row.winner else WHITE if row.score != "out" else GREY
        rank = p.text(f"{row.rank}.", size, colour, midleft=(box.left + p.px(10), box.centery))
        dot = (rank.rect.right + p.px(16), box.centery)
        pygame.draw.circle(p.surface, parse_colour(row.colour), dot, max(3, round(row_h * 0.16)))
        score = p.text(row.score, size, colour, midright=(box.right - p.px(10), box.centery))
        left = dot[0] + p.px(16)
        p.text(row.name, size, colour, max_width=score.rect.left - left - p.px(10),
               min_size=max(10, round(size * 0.7)), midleft=(left, box.centery))


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
    p.text("NEW CARD", p.px(56), GOLD, max_width=p.w - p.px(20), center=(p.w // 2, p.px(190)))
    p.text(scene.title, p.px(28), WHITE, max_width=p.w - p.px(20),
           center=(p.w // 2, p.px(236)))
    p.text("Give it to a player on the tablet", p.px(24), DIM, max_width=p.w - p.px(20),
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
    side = min(p.h - p.px(24), round(p.w * 0.5))
    card = pygame.Rect(p.px(12), (p.h - side) // 2, side, side)
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
    lines = (["Scan for the bank", "on a phone or tablet:"] if scene.link
             else ["No tablet link yet:", "web is off or the", "network is not up"])
    for line in lines:
        y = p.text(line, p.px(22), WHITE, max_width=width, topleft=(left, y)).rect.bottom
        y += p.px(4)
    if scene.address:
        address = scene.address.removeprefix("http://")
        y = p.text(address, p.px(22), GREEN, max_width=width, min_size=8,
                   topleft=(left, y + p.px(6))).rect.bottom
    y += p.px(12)
    rows = list(scene.players)
    if not rows:
        p.text("Press the block to play", p.px(20), DIM, max_width=width,
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
