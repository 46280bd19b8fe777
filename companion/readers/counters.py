"""What a decoder threw away, by reason: shown by ``companion reader`` and the activity API."""

from __future__ import annotations

from collections import Counter


class Rejects(Counter[str]):
    """Counts of ignored input: ``rejects["bad_checksum"] += 1`` (``total()`` sums them)."""
