"""``companion screens``: every screen type at every size preset, as PNG files.

The scenes come from the real :class:`DisplayModel` fed with made-up game states, so a preview
is exactly what the panel would show for that moment.
"""

from __future__ import annotations

import os
from pathlib import Path

from companion.core.ledger import BANK, Entry, EntryKind
from companion.core.outcomes import Kind, Outcome
from companion.core.state import GameView, JournalLine, OutcomeView, PlayerView, TableState
from companion.display import SIZES
from companion.display.scene import ANIMATION_FRAMES, FPS, DisplayModel, Scene, TimerView
from companion.events import BankChanged, BlockOutcome, CardTapped

SAMPLE_LINK = "http://192.168.1.23:8080/#token=Zm9yLXRoZS10YWJsZS1vbmx5LXNhbXBsZQ"
NAMES = ("Mario", "Luigi", "Peach", "Yoshi", "Toad", "Daisy")
COLOURS = ("#e52521", "#43b047", "#f497c0", "#6cc24a", "#2f5fd0", "#f08c00")


def sample_state(players: int = 4, current: int = 1, balances: tuple[int, ...] = (),
                 outcome: Outcome | None = None, outcome_player: int | None = None,
                 outcome_id: int = 7, edition: str = "celebration") -> TableState:
    """A made-up table of the shape :meth:`Bank.state` returns (players' ids are 1..n)."""
    money = balances or (32, 27, -3, 41, 18, 30)[:players]
    moves = [(BANK, 2, 3, EntryKind.BLOCK, "", "coins", None),
             (3, BANK, 5, EntryKind.BLOCK, "", "bowser", None),
             (1, 3, 4, EntryKind.TRANSFER, "rent", None, None),
             (BANK, 4, 2, EntryKind.PASS_GO, "passed GO", None, None),
             (1, BANK, 10, EntryKind.BLOCK, "", "game_over", 9)]
    recent = tuple(
        JournalLine(Entry(i, 1, 0.0, payer, payee, amount, kind, note), undone_by, why)
        for i, (payer, payee, amount, kind, note, why, undone_by) in enumerate(moves, 1)
        if all(p == BANK or p <= players for p in (payer, payee)))
    name = {"celebration": "Monopoly: Super Mario Celebration",
            "wiggly_worms": "Wiggly Worms"}[edition]
    coins = edition != "wiggly_worms"
    last = None if outcome is None else OutcomeView(outcome_id, 1, 0.0, outcome, "button",
                                                    outcome_player, None)
    return TableState(
        game=GameView(1, edition, name, question_block=coins, bank=coins),
        players=tuple(PlayerView(i + 1, NAMES[i], COLOURS[i], i, money[i], i + 1 == current,
                                 None) for i in range(players)),
        current_player=current or None,
        last_outcome=last,
        unassigned=(),
        recent=recent if coins else (),
    )


def _outcome_scene(outcome: Outcome, delta: int, *, player: int | None = 2,
                   seconds: float = 2.5) -> Scene:
    balances = (32, 27 + delta, -3, 41)
    model = DisplayModel(idle_after=None)
    model.apply(BlockOutcome(1, outcome, 0.0, "button", True), 0.0)
    state = sample_state(current=player or 0, balances=balances, outcome=outcome,
                         outcome_player=player)
    model.apply(BankChanged("outcome", "", state), 0.0)
    return model.scene(seconds)


def sample_scenes() -> dict[str, Scene]:
    """One scene per screen type the panel can show."""
    scenes = {
        "outcome-coins-3": _outcome_scene(Outcome(Kind.COINS, 3, (1, 3)), 3),
        "outcome-coins-6": _outcome_scene(Outcome(Kind.COINS, 6, (2, 6)), 6),
        "outcome-power-up": _outcome_scene(Outcome(Kind.POWER_UP, 0, (5,)), 0),
        "outcome-bowser": _outcome_scene(Outcome(Kind.BOWSER, 0, (3,)), -5),
        "outcome-game-over": _outcome_scene(Outcome(Kind.GAME_OVER, 0, (6,)), -10),
        "outcome-unassigned": _outcome_scene(Outcome(Kind.COINS, 2, (1, 2)), 0, player=None),
    }
    table = DisplayModel(idle_after=None)
    table.apply(BankChanged("transfer", "", sample_state()), 0.0)
    scenes["table-4-players"] = table.scene(1.0)
    six = DisplayModel(idle_after=None)
    six.apply(BankChanged("transfer", "", sample_state(players=6, current=5)), 0.0)
    scenes["table-6-players"] = six.scene(1.0)
    negative = DisplayModel(idle_after=None)
    negative.apply(BankChanged("undo", "", sample_state(current=3,
                                                         balances=(12, 9, -17, 64))), 0.0)
    scenes["table-negative-balance"] = negative.scene(1.0)
    worms = DisplayModel(idle_after=None)
    worms_state = sample_state(current=2, balances=(0, 0, 0, 0), edition="wiggly_worms")
    worms.apply(BankChanged("next player", "", worms_state), 0.0)
    scenes["table-wiggly-worms"] = worms.scene(1.0)
    card = DisplayModel(idle_after=None)
    card.apply(CardTapped("04A224B9112233", "unknown", "new card", {}), 0.0)
    scenes["card-new"] = card.scene(1.0)
    timer = DisplayModel(idle_after=None)
    timer.set_timer(TimerView(deadline=14.0, duration=14.0, label="Worms are moving!"), 0.0)
    scenes["timer-running"] = timer.scene(2.2)
    scenes["timer-last-seconds"] = timer.scene(11.4)
    scenes["timer-time-up"] = timer.scene(14.2)
    idle = DisplayModel()
    idle.set_link(SAMPLE_LINK)
    idle.apply(BankChanged("transfer", "", sample_state()), 0.0)
    scenes["idle-qr"] = idle.scene(10_000.0)
    offline = DisplayModel()
    scenes["idle-no-link"] = offline.scene(0.0)
    assert all(s.outcome is None or s.outcome.frame >= ANIMATION_FRAMES
               for s in scenes.values()), f"previews show settled frames ({FPS} fps)"
    return scenes


def size_of(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    return int(w), int(h)


def write_previews(out: Path, sizes: tuple[str, ...] = SIZES) -> list[Path]:
    """Render every sample scene at every size into ``out``; returns the files written."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from companion.display.render import render

    pygame.font.init()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for size in sizes:
        surface = pygame.Surface(size_of(size))
        for name, scene in sample_scenes().items():
            render(scene, surface)
            path = out / f"{size}-{name}.png"
            pygame.image.save(surface, str(path))
            written.append(path)
    return written
