"""The small screen beside the block: a pure scene model, a pygame renderer, outputs."""

import os


def has_desktop() -> bool:
    """True under X11 or Wayland: the screen is a window there, not the whole panel."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
