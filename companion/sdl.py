"""pygame, imported lightly: without setuptools' ``pkg_resources`` and without its mixer.

pygame's ``pkgdata`` imports ``pkg_resources`` only to find the files pygame bundles (its
default font and window icon), and falls back to plain paths when it can't. We ship our own
font, and that one import costs about 100 ms and 10 MiB, more than the rest of pygame. And
``import pygame`` loads ``pygame.mixer`` with SDL_mixer and every codec library it links (about
5 MiB) although the screen never plays a sound. On a Pi Zero both are most of the screen's
start, so pygame is imported with both hidden for the moment: nothing else in the companion
uses ``pkg_resources``, and the pygame audio backend imports ``pygame.mixer`` itself, later.
"""

from __future__ import annotations

import sys
from types import ModuleType

HIDDEN = ("pkg_resources", "pygame.mixer", "pygame.mixer_music")
"""Imports that fail while pygame imports itself (pygame carries on without each)."""


def load_pygame() -> ModuleType:
    """pygame (imported once, quickly)."""
    if "pygame" in sys.modules:
        return sys.modules["pygame"]
    hidden = [name for name in HIDDEN if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        import pygame
    finally:
        for name in hidden:
            del sys.modules[name]
    return pygame


pygame = load_pygame()
