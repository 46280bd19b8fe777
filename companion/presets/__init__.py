"""Edition presets: each game's numbers as data (TOML files beside this module)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


class PresetError(ValueError):
    """A preset file that does not have the expected shape (a packaging bug, caught by tests)."""


@dataclass(frozen=True, slots=True)
class QuestionBlockRules:
    """What the Question Block's outcomes cost; disabled in editions without a block."""

    enabled: bool = False
    table: str = ""
    bowser: int = 0
    game_over: int = 0


@dataclass(frozen=True, slots=True)
class Preset:
    """An edition's rules that the bank needs."""

    id: str
    name: str
    min_players: int
    max_players: int
    start_balance: int
    pass_go: int
    jail_fee: int
    question_block: QuestionBlockRules
    bank: bool = True
    """False for timer-only games: no coins move (the bank still keeps players and turns)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "min_players": self.min_players,
            "max_players": self.max_players, "start_balance": self.start_balance,
            "pass_go": self.pass_go, "jail_fee": self.jail_fee,
            "question_block": self.question_block.enabled, "bank": self.bank,
        }


_INTS = ("min_players", "max_players", "start_balance", "pass_go", "jail_fee")


def _parse(data: dict[str, Any], origin: str) -> Preset:
    known = {"id", "name", "question_block", "bank", *_INTS}
    extra = set(data) - known
    if extra:
        raise PresetError(f"{origin}: unknown keys {sorted(extra)}")
    for key in _INTS:
        value = data.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise PresetError(f"{origin}: {key} must be a non-negative integer")
    if not 2 <= data["min_players"] <= data["max_players"] <= 6:
        raise PresetError(f"{origin}: players must be within 2..6")
    block = data.get("question_block", {})
    if set(block) - {"enabled", "table", "bowser", "game_over"}:
        raise PresetError(f"{origin}: unknown question_block keys")
    rules = QuestionBlockRules(**block)
    if rules.enabled and (rules.table != "celebration" or rules.bowser <= 0
                          or rules.game_over <= 0):
        raise PresetError(f"{origin}: an enabled question_block needs table, bowser, game_over")
    bank = data.get("bank", True)
    if not isinstance(bank, bool):
        raise PresetError(f"{origin}: bank must be true or false")
    if not bank and (rules.enabled or data["start_balance"] or data["pass_go"]):
        raise PresetError(f"{origin}: a game without a bank has no coins to pay or collect")
    return Preset(id=str(data["id"]), name=str(data["name"]), question_block=rules, bank=bank,
                  **{k: data[k] for k in _INTS})


@cache
def all_presets() -> dict[str, Preset]:
    """Every packaged preset, by id."""
    presets: dict[str, Preset] = {}
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            preset = _parse(tomllib.loads(entry.read_text(encoding="utf-8")), entry.name)
            if f"{preset.id}.toml" != entry.name:
                raise PresetError(f"{entry.name}: id {preset.id!r} must match the file name")
            presets[preset.id] = preset
    return presets


def get_preset(preset_id: str) -> Preset:
    """A preset by id; KeyError names the known ones."""
    presets = all_presets()
    if preset_id not in presets:
        raise KeyError(f"unknown edition {preset_id!r}; known: {', '.join(presets)}")
    return presets[preset_id]
