"""The small screen beside the block: a pure scene model, a pygame renderer, outputs."""

import os

SIZES = ("480x320", "320x240", "800x480")
"""The panel sizes the screens are designed for (other WxH work too)."""
DRIVERS = ("auto", "kmsdrm", "x11", "wayland", "fbdev", "dummy")
"""What ``[display] driver`` can name."""


def has_desktop() -> bool:
    """True under X11 or Wayland: the screen is a window there, not the whole panel."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
