"""The wheel carries every package: the list in pyproject.toml is explicit, so a new folder
under companion/ that is not listed would be missing on the Pi (tests import from the tree)."""

from __future__ import annotations

import tomllib

from tests.conftest import ROOT


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for init in (ROOT / "companion").rglob("__init__.py")}
    assert found <= listed, f"not in pyproject.toml packages: {sorted(found - listed)}"
