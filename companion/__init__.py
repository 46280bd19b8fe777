"""Question Block companion: a Raspberry Pi daemon that sits beside a board game."""

import os as _os

# pygame greets on standard output when imported; our output is the CLI's own (and JSON).
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__version__ = "0.1.0"
