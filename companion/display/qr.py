"""The tablet link as a QR code (segno makes the symbol; we only paint its modules)."""

from __future__ import annotations

from functools import lru_cache

from companion.sdl import pygame

QUIET_ZONE = 4
"""Modules of white around the symbol, as ISO/IEC 18004 asks."""


@lru_cache(maxsize=4)
def qr_matrix(text: str) -> tuple[tuple[bool, ...], ...]:
    """Dark (True) and light modules, quiet zone included, for ``text``."""
    import segno  # loaded when the screen first shows a code, not at each boot

    symbol = segno.make(text, error="m", micro=False)
    return tuple(tuple(bool(v) for v in row)
                 for row in symbol.matrix_iter(scale=1, border=QUIET_ZONE))


def qr_geometry(text: str, box: pygame.Rect) -> tuple[int, int, int, int]:
    """Where the symbol lands in ``box``: (left, top, module size in px, modules a side).

    Modules are whole pixels (a blurred module does not scan), as large as fit."""
    n = len(qr_matrix(text))
    module = max(1, min(box.width, box.height) // n)
    left = box.left + (box.width - module * n) // 2
    top = box.top + (box.height - module * n) // 2
    return left, top, module, n


def draw_qr(surface: pygame.Surface, text: str, box: pygame.Rect) -> None:
    """Paint the QR code of ``text`` centred in ``box`` (box is filled white first)."""
    left, top, module, _ = qr_geometry(text, box)
    surface.fill((255, 255, 255), box)
    for y, row in enumerate(qr_matrix(text)):
        for x, dark in enumerate(row):
            if dark:
                surface.fill((0, 0, 0), (left + x * module, top + y * module, module, module))
