"""Spoken outcomes: what the companion says after an outcome's sound, in the table's language."""
