"""The enclosure as it would be printed: every part of both parameter sets rendered by Debian's
openscad (``make enclosure``'s script), each STL loaded with trimesh and checked against the
parameters' own numbers: one watertight body, the overall size, the button's hole and the
panel around it, room for the Pi and the speaker, a 220 mm bed, and the previews drawn."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trimesh

from tests.conftest import ROOT

ENCLOSURE = ROOT / "hardware" / "enclosure"
SETS = list(json.loads((ENCLOSURE / "question_block.json").read_text())["parameterSets"])
BED = 220.0
RIVET = 1.0
"""The rivets stand 1 mm proud of each wall."""
STEP = 2.5
"""The grid (mm) of points checked for material where a part goes."""
MAX_SPAN = 30.0
"""The longest bridge a printer spans without support (a screen window's top is 27 mm)."""

if shutil.which("openscad") is None or shutil.which("xvfb-run") is None:  # make test installs
    raise RuntimeError("the enclosure tests need Debian's openscad and xvfb (apt install "
                       "openscad xvfb xauth)")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("render", ENCLOSURE / "render.py")
    assert spec and spec.loader
    render = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(render)
    out = tmp_path_factory.mktemp("enclosure")
    render.render(out / "build", out / "previews")
    yield out


def load(rendered: Path, name: str, part: str) -> trimesh.Trimesh:
    mesh = trimesh.load(rendered / "build" / name / f"{part}.stl", force="mesh")
    assert isinstance(mesh, trimesh.Trimesh)
    return mesh


def numbers(rendered: Path, name: str) -> dict[str, Any]:
    return json.loads((rendered / "build" / name / "placements.json").read_text())


def pieces(mesh: trimesh.Trimesh, faces: np.ndarray | None = None) -> list[list[int]]:
    """Connected pieces of ``faces`` (default: all), by faces sharing an edge (union-find:
    no scipy needed)."""
    chosen = np.ones(len(mesh.faces), bool) if faces is None else faces
    parent = np.arange(len(mesh.faces))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return int(i)

    for a, b in mesh.face_adjacency:
        if chosen[a] and chosen[b] and (ra := root(a)) != (rb := root(b)):
            parent[ra] = rb
    found: dict[int, list[int]] = {}
    for i in np.flatnonzero(chosen):
        found.setdefault(root(int(i)), []).append(int(i))
    return list(found.values())


def bodies(mesh: trimesh.Trimesh) -> int:
    return len(pieces(mesh))


def hits(mesh: trimesh.Trimesh, origin: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Distances along a ray to every triangle it crosses (Moller-Trumbore), sorted."""
    tri = mesh.triangles
    e1, e2 = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    p = np.cross(direction, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origin - tri[:, 0]
    u = np.einsum("ij,ij->i", s, p) * inv
    q = np.cross(s, e1)
    v = (q @ direction) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    found = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 1e-9)
    return np.unique(np.round(t[found], 6))


def in_box(mesh: trimesh.Trimesh, low: np.ndarray, high: np.ndarray) -> int:
    """Material inside a box: the mesh's vertices in it, and points of a grid through it
    that are inside the solid (a ray up from each crosses its surface an odd number of
    times), so a flat wall crossing the box counts too."""
    v = mesh.vertices
    corners = int(np.sum(np.all((v > low) & (v < high), axis=1)))
    steps = [max(3, int((hi - lo) / STEP) + 2) for lo, hi in zip(low, high, strict=True)]
    grid = np.stack(np.meshgrid(*(np.linspace(lo, hi, k)[1:-1] for lo, hi, k in
                                  zip(low, high, steps, strict=True))), -1).reshape(-1, 3)
    up, off_edges = np.array([0.0, 0.0, 1.0]), np.array([1e-4, 2e-4, 0.0])
    solid = sum(len(hits(mesh, point + off_edges, up)) % 2 for point in grid)
    return corners + solid


def as_assembled(body: trimesh.Trimesh, n: dict[str, Any]) -> trimesh.Trimesh:
    """The body as it stands on the lid (it is printed upside down, its top on the bed)."""
    standing = body.copy()
    standing.apply_transform(trimesh.transformations.rotation_matrix(np.pi, [1, 0, 0]))
    standing.apply_translation([0, 0, n["height"]])
    return standing


def lid_in_place(lid: trimesh.Trimesh, n: dict[str, Any]) -> trimesh.Trimesh:
    """The lid where it sits: ``feet`` up, inside the walls."""
    placed = lid.copy()
    placed.apply_translation([0, 0, n["feet"]])
    return placed


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("part", ["body", "lid"])
def test_each_part_is_one_watertight_body_that_fits_the_bed(rendered: Path, name: str,
                                                            part: str) -> None:
    mesh = load(rendered, name, part)
    assert mesh.is_watertight and mesh.is_winding_consistent, (name, part)
    assert mesh.volume > 0 and bodies(mesh) == 1, (name, part)
    assert max(mesh.extents[:2]) <= BED and mesh.bounds[0][2] == pytest.approx(0, abs=1e-6)


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("part", ["body", "lid"])
def test_each_part_prints_without_supports(rendered: Path, name: str, part: str) -> None:
    """As it lies on the bed, no face off the bed looks down more steeply than 45 degrees,
    but for bridges: each such roof (of the engraved "?", a notch, a window) is no wider than
    a wall and spans at most :data:`MAX_SPAN`."""
    n = numbers(rendered, name)
    mesh = load(rendered, name, part)
    down = mesh.face_normals[:, 2] < -np.cos(np.radians(44))
    off_bed = mesh.triangles_center[:, 2] > 0.01
    for roof in pieces(mesh, down & off_bed):
        corners = mesh.vertices[mesh.faces[roof].ravel()]
        narrow, span = sorted(np.ptp(corners[:, :2], axis=0))
        assert narrow <= n["wall"] + 0.01 and span <= MAX_SPAN, (name, part, narrow, span)
    assert mesh.area_faces[down & ~off_bed].sum() > 0.5 * mesh.extents[0] * mesh.extents[1] \
        * (0.3 if part == "body" else 0.6)  # it lies flat on a face of its own


@pytest.mark.parametrize("name", SETS)
def test_the_block_is_as_big_as_its_parameters_say(rendered: Path, name: str) -> None:
    n = numbers(rendered, name)
    body, lid = load(rendered, name, "body"), load(rendered, name, "lid")
    width = n["size"] + 2 * RIVET
    assert body.extents == pytest.approx([width, width, n["height"]], abs=0.02)
    assert n["height"] == n["size"]  # a cube: the lid is inside it
    inner = n["size"] - 2 * n["wall"]
    plate = lid.vertices[lid.vertices[:, 2] <= n["lid_plate"]]
    assert np.abs(plate[:, :2]).max() < inner / 2  # the lid's plate goes in between the walls
    assert lid.bounds[1][2] < n["size"] - n["top"] - n["feet"]  # and all on it under the top


@pytest.mark.parametrize("name", SETS)
def test_the_button_hole_and_the_panel_its_clips_take(rendered: Path, name: str) -> None:
    n = numbers(rendered, name)
    body = load(rendered, name, "body")  # upside down: its top is z = 0 .. top
    radii = []
    for angle in np.linspace(0, 2 * np.pi, 24, endpoint=False):
        direction = np.array([np.cos(angle), np.sin(angle), 0.0])
        radii.append(hits(body, np.array([0.0, 0.0, n["panel"] / 2]), direction)[0])
    # a 48-sided hole: between its inscribed and its circumscribed circle
    assert min(radii) >= n["button"] / 2 * np.cos(np.pi / 48) - 0.01
    assert max(radii) <= n["button"] / 2 + 0.01
    beside = hits(body, np.array([n["button"] / 2 + 2, 0.0, -1.0]), np.array([0, 0, 1.0]))
    assert beside[1] - beside[0] == pytest.approx(n["panel"], abs=0.01)


@pytest.mark.parametrize("name", SETS)
def test_the_pi_and_the_speaker_fit_with_their_clearances(rendered: Path, name: str) -> None:
    n = numbers(rendered, name)
    parts = [as_assembled(load(rendered, name, "body"), n),
             lid_in_place(load(rendered, name, "lid"), n)]
    floor = n["feet"] + n["lid_plate"]  # the lid's top, where the parts stand
    x, y, diameter, depth, seat = n["speaker"]
    r = diameter / 2 + 0.3
    for mesh in parts:  # the speaker's cylinder, from its seat to the back of its magnet
        inside = mesh.vertices
        near = (np.hypot(inside[:, 0] - x, inside[:, 1] - y) < r) & \
            (inside[:, 2] > floor + seat + 0.01) & (inside[:, 2] < floor + seat + depth)
        assert not near.any(), f"{name}: material where the speaker goes"
        box = r / np.sqrt(2)  # the square inside the cylinder, through and through
        assert in_box(mesh, np.array([x - box, y - box, floor + seat + 0.01]),
                      np.array([x + box, y + box, floor + seat + depth])) == 0
    if not n["pi_inside"]:
        return
    px, py, w, d, standoff = n["pi"]
    low = np.array([px - 1, py - 1, floor + standoff + 0.01])
    high = np.array([px + w + 1, py + d + 1, floor + standoff + 12])  # board and parts
    for mesh in parts:
        assert in_box(mesh, low, high) == 0, f"{name}: material where the Pi goes"
    assert n["pi"][2:4] == [65, 30]  # the Pi Zero 2 W's board, on its 58 x 23 mm holes


@pytest.mark.parametrize("name", SETS)
def test_the_previews_are_drawn(rendered: Path, name: str) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    for part in ("body", "lid", "assembly"):
        picture = pygame.image.load(str(rendered / "previews" / f"{name}-{part}.png"))
        assert picture.get_size() == (900, 900)
        colours = {picture.get_at((x, y))[:3] for x in range(0, 900, 30)
                   for y in range(0, 900, 30)}
        assert len(colours) > 3, f"{name}-{part}: an empty picture"
