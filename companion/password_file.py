"""The broker's password: read from a file of its own that only its owner can read, and never
shown (its errors name the file and its mode, never what it holds)."""

from __future__ import annotations

import stat
from pathlib import Path


class SecretError(ValueError):
    """The password file can't be used; the message says why, without its content."""


class Password(str):
    """A password that keeps itself out of logs and reprs."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Password(***)"


def read_password(path: Path) -> Password:
    """The first line of ``path``: the file must be a regular file, no one's but its owner's
    to read (mode 600 or 400) and hold a password."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise SecretError(f"{str(path)!r} does not exist") from None
    except OSError as exc:
        raise SecretError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SecretError(f"{str(path)!r} must be a file")
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise SecretError(f"{str(path)!r} can be read by others (mode {mode:o}): make it its "
                          f"owner's alone with: chmod 600 {path}")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise SecretError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SecretError(f"{str(path)!r} must be UTF-8 text") from None
    first = text.splitlines()[0] if text.splitlines() else ""
    if not first.strip():
        raise SecretError(f"{str(path)!r} is empty: write the password on its first line")
    return Password(first.rstrip("\r\n"))
