"""Reading the files of a data folder defensively: one-line reasons, never a hang or a traceback.

Everything the SEC source reads from disk goes through :func:`read_data_file`, which refuses
what is not a regular file (a folder, a named pipe that would block, a symbolic link loop, a
dangling link) and turns every ``OSError`` into a :class:`SourceFileError` whose message
names the file. :func:`hopvista.errors.one_line` makes any message safe to print as one line,
whatever bytes a folder name holds.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from hopvista.sources.sec.model import SourceFileError

__all__ = ["DataFile", "entry_problem", "read_data_file"]


@dataclass(frozen=True)
class DataFile:
    """The bytes of a file as read once, with their SHA-256 (for the manifest)."""

    path: Path
    data: bytes
    sha256: str


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _kind_problem(mode: int, want: str) -> str | None:
    if want == "folder":
        return None if stat.S_ISDIR(mode) else "not a folder"
    if stat.S_ISREG(mode):
        return None
    return "a folder, not a file" if stat.S_ISDIR(mode) else "not a regular file"


def entry_problem(path: Path, want: str = "file") -> str | None:
    """Why ``path`` is not a usable ``want`` ("file" or "folder"), or None when it is one.

    Follows symbolic links; a missing entry, a link loop or a dangling link gives the
    system's reason ("Too many levels of symbolic links").
    """
    try:
        return _kind_problem(path.stat().st_mode, want)
    except OSError as exc:
        return _reason(exc)


def read_data_file(path: Path) -> DataFile:
    """The bytes of the regular file ``path``.

    Raises :class:`SourceFileError` (``"<path>: <reason>"``) when ``path`` is missing, not a
    regular file, or cannot be read (permissions, I/O errors).
    """
    try:
        problem = _kind_problem(path.stat().st_mode, "file")
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read file ({_reason(exc)})") from None
    if problem is not None:
        raise SourceFileError(f"{path}: {problem}")
    try:
        # O_NONBLOCK: should the file have been swapped for a named pipe since the check,
        # opening it must not wait for a writer
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SourceFileError(f"{path}: cannot read file ({_reason(exc)})") from None
    return DataFile(path, data, hashlib.sha256(data).hexdigest())
