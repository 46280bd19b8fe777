"""Render the Question Block enclosure (``make enclosure``): every part of every parameter set
in question_block.json to STL with Debian's ``openscad``, the placements the model echoes to
JSON beside them, and a PNG preview of each part and of the assembled block (``xvfb-run``:
OpenSCAD draws its previews with OpenGL, and a server has no screen).

    python3 hardware/enclosure/render.py [--out DIR] [--previews DIR] [--no-previews]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODEL = HERE / "question_block.scad"
SETS = HERE / "question_block.json"
PARTS = ("body", "lid")
VIEWS = {"body": "0,0,0,235,0,35,0", "lid": "0,0,0,40,0,20,0",
         "assembly": "0,0,0,60,0,30,0"}
"""OpenSCAD's --camera (translate x,y,z, rotate x,y,z, distance) per picture; --viewall
fits the distance."""
PREVIEW_SIZE = (900, 900)


def parameter_sets() -> list[str]:
    return list(json.loads(SETS.read_text())["parameterSets"])


def _openscad(*args: str, preview: bool = False) -> str:
    command = ["openscad", "-p", str(SETS), *args, str(MODEL)]
    if preview:
        command = ["xvfb-run", "-a", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or "ERROR" in done.stderr:
        raise RuntimeError(f"openscad failed ({' '.join(args)}):\n{done.stderr[-2000:]}")
    return done.stderr


def placements(log: str) -> dict[str, object]:
    """The numbers the model echoes (``ENCLOSURE {...}``): sizes and where things go."""
    found = re.search(r'ECHO: "ENCLOSURE (\{.*\})"', log)
    if found is None:
        raise RuntimeError("the model did not echo its placements")
    return json.loads(found.group(1))


def render(out: Path, previews: Path | None) -> list[Path]:
    """Every part of every set; the files written."""
    written = []
    for name in parameter_sets():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        for part in PARTS:
            stl = folder / f"{part}.stl"
            log = _openscad("-P", name, "-D", f'part="{part}"', "-o", str(stl))
            (folder / "placements.json").write_text(json.dumps(placements(log), indent=1))
            written.append(stl)
        if previews is None:
            continue
        previews.mkdir(parents=True, exist_ok=True)
        for part in (*PARTS, "assembly"):
            png = previews / f"{name}-{part}.png"
            _openscad("-P", name, "-D", f'part="{part}"', "--viewall", "--autocenter",
                      f"--camera={VIEWS[part]}", "--colorscheme=Tomorrow",
                      f"--imgsize={PREVIEW_SIZE[0]},{PREVIEW_SIZE[1]}", "-o", str(png),
                      preview=True)
            written.append(png)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "build")
    parser.add_argument("--previews", type=Path, default=HERE / "previews")
    parser.add_argument("--no-previews", action="store_true")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("openscad", *(() if args.no_previews else ("xvfb-run",)))
               if shutil.which(tool) is None]
    if missing:
        print(f"enclosure: please install {' '.join(missing)} (apt: openscad xvfb xauth)",
              file=sys.stderr)
        return 2
    for path in render(args.out, None if args.no_previews else args.previews):
        print(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
