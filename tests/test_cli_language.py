"""``companion demo`` speaks the table's language: ``[table] language`` from the config, or
``--language`` for one run; an unknown code is refused before anything starts."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_companion

KEYS = "3gu0\n"
"""Make Peach current, pass GO, undo it, nobody current, then press (the demo's keys)."""


def bank_lines(*args: str) -> list[str]:
    done = run_companion("demo", "--audio", "null", "--seed", "3", *args, stdin=KEYS)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines()  # the tablet's link: a new token each run
            if line.startswith("  ") and "#token=" not in line]


def test_the_demo_speaks_the_language_asked(tmp_path: Path) -> None:
    english = bank_lines()
    german = bank_lines("--language", "de")
    config = tmp_path / "c.toml"
    config.write_text('[table]\nlanguage = "fi"\n')
    finnish = bank_lines("--config", str(config))
    assert len(english) == len(german) == len(finnish) > 4
    said = [line for line in english if "Peach" in line]
    assert said and all(line not in german and line not in finnish for line in said)
    assert sum("Peach" in line for line in german) == len(said)  # names stay as typed
    german_over = bank_lines("--config", str(config), "--language", "de")
    assert german_over == german  # the option wins over the config


def test_the_demo_refuses_a_language_it_does_not_have() -> None:
    done = run_companion("demo", "--audio", "null", "--language", "xx", stdin="q")
    assert done.returncode == 2 and "invalid choice: 'xx'" in done.stderr
    assert done.stdout == ""
