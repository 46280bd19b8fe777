"""The first-boot files for Raspberry Pi Imager 2.x: the cloud-init ``user-data`` passes
Debian's own ``cloud-init schema`` (and a broken copy does not), and the repository bundle the
guide puts beside it on the card clones into a tree whose installer can run."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.conftest import ROOT

USER_DATA = ROOT / "hardware" / "first-boot" / "user-data"


def schema(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["cloud-init", "schema", "--config-file", str(path)],
                          capture_output=True, text=True, timeout=120)


def test_the_user_data_is_valid_cloud_config() -> None:
    done = schema(USER_DATA)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Valid" in done.stdout
    text = USER_DATA.read_text()
    assert text.startswith("#cloud-config\n")
    assert re.search(r"^packages:\n  - git\n  - make\n", text, re.M)
    assert "/usr/local/src/companion/systemd/install.sh" in text


def test_a_broken_user_data_is_refused_by_the_same_check(tmp_path: Path) -> None:
    broken = tmp_path / "user-data"
    broken.write_text(USER_DATA.read_text().replace("packages:\n  - git\n  - make\n",
                                                    "packages: 5\n"))
    done = schema(broken)
    assert done.returncode != 0 and "packages" in done.stdout + done.stderr


def test_the_guides_bundle_clones_into_a_tree_with_the_installer(tmp_path: Path) -> None:
    """README's step: ``git bundle create <bootfs>/companion.bundle HEAD main``; the
    user-data clones it at the first boot and runs systemd/install.sh from the clone."""
    readme = (ROOT / "README.md").read_text()
    assert "git bundle create /media/$USER/bootfs/companion.bundle HEAD main" in readme
    bundle = tmp_path / "companion.bundle"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-c", f"safe.directory={ROOT}", "bundle", "create", str(bundle),
                    "HEAD", "main"], cwd=ROOT, check=True, capture_output=True, env=env)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True, env=env)
    installer = clone / "systemd" / "install.sh"
    assert os.access(installer, os.X_OK)
    assert (clone / "requirements" / "runtime.txt").exists()
    done = subprocess.run([str(installer), "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("Install (or upgrade in place)")
