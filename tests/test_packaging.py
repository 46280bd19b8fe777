"""The wheel carries every package: the list in pyproject.toml is explicit, so a new folder
under companion/ that is not listed would be missing on the Pi (tests import from the tree)."""

from __future__ import annotations

import fnmatch
import tomllib

from tests.conftest import ROOT


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for init in (ROOT / "companion").rglob("__init__.py")}
    assert found <= listed, f"not in pyproject.toml packages: {sorted(found - listed)}"


def test_the_wheel_carries_every_file_of_the_page() -> None:
    """Each file under web/static (the page's modules in page/ and page/editions/ too) is in a
    listed package and matches that package's package-data."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    static = ROOT / "companion" / "web" / "static"
    files = [f for f in static.rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    assert len(files) > 30
    for file in files:
        package = ".".join(file.parent.relative_to(ROOT).parts)
        assert package in setuptools["packages"], file
        globs = setuptools["package-data"].get(package, [])
        assert any(fnmatch.fnmatch(file.name, g) for g in globs), file


def _pins(name: str) -> dict[str, str]:
    """A lock file's ``package==version`` lines, each followed by its hashes."""
    lines = [line.strip() for line in
             (ROOT / "requirements" / name).read_text().splitlines()]
    pins: dict[str, str] = {}
    for i, line in enumerate(lines):
        if not line or line.startswith(("#", "--hash")):
            continue
        package, sep, version = line.split(";")[0].rstrip(" \\").partition("==")
        assert sep, f"{name}: not pinned to one version: {line!r}"
        assert lines[i + 1].startswith("--hash=sha256:"), f"{name}: {package} has no hashes"
        pins[package.lower()] = version
    return pins


def test_the_lock_pins_every_package_with_hashes_and_agrees_with_itself() -> None:
    runtime, test, build = _pins("runtime.txt"), _pins("test.txt"), _pins("build.txt")
    assert {"aiohttp", "babel", "gpiozero", "pygame-ce", "pyserial", "segno",
            "simpleaudio-patched"} <= set(runtime)
    assert {"pytest", "playwright", "hypothesis", "ruff"} <= set(test)
    assert {"pip", "setuptools", "wheel"} <= set(build)
    for package, version in runtime.items():  # the tests test what the Pi installs
        assert test.get(package) == version, package
    for package in set(build) & set(runtime):
        assert build[package] == runtime[package], package


def test_the_lock_keeps_the_pis_own_libraries_right() -> None:
    """gpiozero at a release that works on a Pi 5; lgpio and PyICU from Debian, never pip;
    no pigpio (not shipped on trixie); pygame-ce, not pygame (same import, one of them)."""
    from packaging.version import Version

    for name in ("runtime.txt", "test.txt"):
        pins = _pins(name)
        gpiozero = Version(pins["gpiozero"])
        assert gpiozero >= Version("2.0.1.post3"), name
        assert str(gpiozero) not in ("2.0.1", "2.0.1.post1", "2.0.1.post2")
        assert not {"lgpio", "pyicu", "pigpio", "rpi-lgpio", "pygame"} & set(pins), name
    text = (ROOT / "pyproject.toml").read_text()
    assert '"gpiozero>=2.0.1.post3"' in text and '"pygame-ce>=' in text
