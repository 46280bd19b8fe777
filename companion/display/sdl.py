"""pygame, imported without setuptools' ``pkg_resources``.

pygame's ``pkgdata`` imports ``pkg_resources`` only to find the files pygame bundles (its
default font and window icon), and falls back to plain paths when it can't. We ship our own
font, and that one import costs about 100 ms and 10 MiB, more than the rest of pygame: on a
Pi Zero it is most of the screen's start. So pygame is imported with ``pkg_resources`` hidden
for the moment (nothing else in the companion uses it).
"""

from __future__ import annotations

import sys
from types import ModuleType


def load_pygame() -> ModuleType:
    """pygame (imported once, quickly)."""
    if "pygame" in sys.modules:
        return sys.modules["pygame"]
    hidden = "pkg_resources" not in sys.modules
    if hidden:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        import pygame
    finally:
        if hidden:
            del sys.modules["pkg_resources"]
    return pygame


pygame = load_pygame()
