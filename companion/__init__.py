"""Question Block companion: a Raspberry Pi daemon that sits beside a board game."""

__version__ = "0.1.0"
