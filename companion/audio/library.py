"""The sound library: our built-in WAVs, user overrides, and each outcome's finished sound."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from companion.audio.pcm import Pcm, SoundFileError, read_wav
from companion.core.outcomes import Kind, Outcome

log = logging.getLogger(__name__)

SOUND_NAMES: tuple[str, ...] = (
    "coin",
    "power_up",
    "bowser",
    "game_over",
    "timer_tick",
    "timer_loop",
    "time_up",
    "dice_roll",
    "rent",
    "block_bump",
    "item_box",
    "fanfare",
    "doubles",
    "toll",
    "battle_won",
    "battle_lost",
    "piranha",
    "super_star",
    "jail",
    "coin_drop",
    "scoop",
    "shell",
    "blooper",
    "pow",
    "boss_won",
    "boss_lost",
    "race_countdown",
    "race_finish",
)

COIN_PERIOD = 0.30
"""Seconds from one coin ping's start to the next: slow enough for a child to count."""
MIN_COIN_GAP = 0.15
"""Silence kept between two pings even when a user's coin.wav is long."""
INTRO_GAP = 0.08
"""Silence between a block's own sound (a Coin Block's bump, an Item Box's spin) and its
first coin ping."""
INTROS = {"coin_block": "block_bump", "item_box": "item_box"}
"""Press modes whose coins come after a sound of their own: each mode sounds like itself."""


_AFTER_THE_DICE: dict[Kind, tuple[str, ...]] = {
    Kind.THIRD_DOUBLES: ("doubles", "jail"),
    Kind.BATTLE_ROLL: (),
    Kind.BATTLE_WON: ("battle_won",),
    Kind.BATTLE_LOST: ("battle_lost",),
    Kind.PIRANHA: ("piranha",),
    Kind.SUPER_STAR: ("super_star",),
    Kind.JAIL_FREE: ("doubles",),
    Kind.JAIL_STAY: (),
    Kind.JAIL_PAID: ("rent",),
    Kind.BOSS_WON: ("boss_won",),
    Kind.BOSS_LOST: ("boss_lost",),
    Kind.RACE_ROLL: (),
}
"""The Movie's, the Boss fights' and the Races' outcomes: the dice roll, then what it means (a
plain turn roll or a racer's: the dice alone; doubles: their flourish)."""

ABILITY_SOUNDS = {"red_shell": "shell", "green_shell": "shell", "spiny_shell": "shell",
                  "blooper": "blooper", "pow": "pow", "lightning": "pow"}
"""The Power-up die's faces with a sound of their own (Gamer, Mario Kart); the others sound by
what they do to coins (:meth:`SoundLibrary.for_move`)."""


def sound_name(outcome: Outcome) -> str:
    """The one built-in sound that says an outcome best (a phone plays it, not the whole
    composed sound): a coin, the laugh, the die, what the roll meant."""
    kind = outcome.kind
    if kind is Kind.COINS:
        return "coin"
    if kind is Kind.ROLL:
        return "dice_roll"
    if kind is Kind.DICE:
        return "doubles" if outcome.doubles else "dice_roll"
    if kind in _AFTER_THE_DICE:
        after = _AFTER_THE_DICE[kind]
        return after[-1] if after else "dice_roll"
    return kind.value if kind.value in SOUND_NAMES else "coin"


def builtin_path(name: str) -> Path:
    """Where the packaged WAV for ``name`` lives."""
    return Path(str(resources.files("companion.builtin_sounds").joinpath(f"{name}.wav")))


class SoundLibrary:
    """Loads every sound once (override folder first, then built-in) and renders outcomes.

    A WAV named like a built-in sound (``coin.wav``, ``bowser.wav``, ...) in ``override_dir``
    replaces it; a broken override is logged and the built-in sound is used instead.
    """

    def __init__(self, override_dir: Path | None = None) -> None:
        self.override_dir = override_dir
        self.sources: dict[str, Path] = {}
        self.sounds: dict[str, Pcm] = {name: self._load(name) for name in SOUND_NAMES}
        ping = self.sounds["coin"]
        self.coin_period = max(COIN_PERIOD, ping.seconds + MIN_COIN_GAP)
        """Seconds from one coin ping to the next (screens light a coin per ping)."""
        self._outcomes: dict[tuple[str, str, str], Pcm] = {}

    def _load(self, name: str) -> Pcm:
        if self.override_dir is not None:
            candidate = self.override_dir / f"{name}.wav"
            if candidate.is_file():
                try:
                    pcm = read_wav(candidate)
                except (SoundFileError, OSError) as exc:
                    log.warning("ignoring sound override %s: %s; using the built-in sound",
                                candidate, exc)
                else:
                    log.info("sound %r from %s", name, candidate)
                    self.sources[name] = candidate
                    return pcm
        path = builtin_path(name)
        self.sources[name] = path
        return read_wav(path)

    def ping_start(self, outcome: Outcome) -> float:
        """Seconds into the outcome's sound of its first coin ping."""
        if outcome.kind is Kind.SUPER_STAR:
            return self.sounds["dice_roll"].seconds + self.sounds["super_star"].seconds + \
                INTRO_GAP
        intro = INTROS.get(outcome.mode)
        if intro is None or outcome.kind is not Kind.COINS:
            return 0.0
        return self.sounds[intro].seconds + INTRO_GAP

    def for_outcome(self, outcome: Outcome) -> Pcm:
        """The finished sound of an outcome, in its press mode's own voice (``coins`` k: k
        pings, evenly spaced, after the mode's intro; a roll: the die; rent: die and till)."""
        key = (outcome.mode, outcome.kind.value, outcome.label)
        if key not in self._outcomes:
            self._outcomes[key] = self._compose(outcome)
        return self._outcomes[key]

    def _compose(self, outcome: Outcome) -> Pcm:
        kind = outcome.kind
        if kind is Kind.COINS:
            ping = self.sounds["coin"]
            pings = Pcm(b"".join(ping.padded_to(self.coin_period).data
                                 for _ in range(outcome.coins - 1)) + ping.data)
            intro = INTROS.get(outcome.mode)
            if intro is None:
                return pings
            return self.sounds[intro].padded_to(self.ping_start(outcome)) + pings
        if kind in (Kind.ROLL, Kind.MOVE):  # a move's: both dice, thrown together
            return self.sounds["dice_roll"]
        if kind is Kind.RENT:
            return self.sounds["dice_roll"] + self.sounds["rent"]
        after = _AFTER_THE_DICE.get(kind, ())
        if kind is Kind.DICE and outcome.doubles:
            after = ("doubles",)
        if kind in _AFTER_THE_DICE or kind is Kind.DICE:
            sound = self.sounds["dice_roll"]
            for name in after:
                sound = sound + self.sounds[name]
            if kind is Kind.SUPER_STAR:  # a ping per coin, to count by ear
                ping = self.sounds["coin"]
                sound = sound.padded_to(self.ping_start(outcome)) + Pcm(b"".join(
                    ping.padded_to(self.coin_period).data for _ in range(outcome.coins - 1))
                    + ping.data)
            return sound
        return self.sounds[kind.value]

    def for_move(self, kind: str, data: Mapping[str, Any], coins: bool) -> Pcm | None:
        """The sound of a bank move the table hears (Gamer, Mario Kart): coins dropped or
        scooped, an ability, a Race's start and finish; None for a silent move."""
        if kind == "drop" and coins:
            return self.sounds["coin_drop"]
        if kind == "scoop" or (kind == "token" and coins):  # a token's way scooped coins
            return self.sounds["scoop"]
        if kind == "ability":
            name = ABILITY_SOUNDS.get(str(data.get("id")))
            if name is not None:
                return self.sounds[name]
            return self.sounds["coin"] if coins else None
        if kind == "contest" and data.get("action") == "start":
            return self.sounds["race_countdown"]
        return None

    def seconds(self, outcome: Outcome) -> float:
        """How long the outcome sounds."""
        return self.for_outcome(outcome).seconds
