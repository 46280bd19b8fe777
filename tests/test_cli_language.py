"""``companion demo --language``: the table's language for one run, over the config's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion import cli, demo
from companion.config import Config


@pytest.fixture
def demo_config(monkeypatch: pytest.MonkeyPatch) -> list[Config]:
    """The configs the demo was started with (the demo itself is not run)."""
    seen: list[Config] = []

    async def fake_run_demo(config: Config, **_: Any) -> int:
        seen.append(config)
        return 0

    monkeypatch.setattr(demo, "run_demo", fake_run_demo)
    return seen


def test_demo_language_overrides_the_configs(tmp_path: Path, demo_config: list[Config]) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[table]\nlanguage = "fi"\n')
    assert cli.main(["demo", "--config", str(path), "--language", "de"]) == 0
    assert cli.main(["demo", "--config", str(path)]) == 0
    assert cli.main(["demo"]) == 0
    assert [c.table.language for c in demo_config] == ["de", "fi", "en"]


def test_demo_refuses_a_language_it_does_not_have(capsys: pytest.CaptureFixture[str],
                                                  demo_config: list[Config]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["demo", "--language", "xx"])
    assert exit_.value.code == 2 and "invalid choice: 'xx'" in capsys.readouterr().err
    assert not demo_config
