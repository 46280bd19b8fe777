"""The table token: every write on the web needs it; reading stays open on the LAN."""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from companion.bank.store import make_data_dir

log = logging.getLogger(__name__)

TOKEN_FILE = "table-token"
MIN_LENGTH = 16
URLSAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def load_or_create_token(configured: str, data_dir: Path) -> str:
    """The token from config, else the one kept in the data folder, else a new one (kept)."""
    if configured:
        return configured
    path = data_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="ascii").strip()
        if len(token) >= MIN_LENGTH and set(token) <= URLSAFE:
            return token
        log.warning("ignoring the unusable table token in %s; making a new one", path)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read %s (%s); making a new table token", path, exc)
    token = secrets.token_urlsafe(18)
    make_data_dir(data_dir)  # the bank's folder too
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(token + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    log.info("made a new table token in %s", path)
    return token
