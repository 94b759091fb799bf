"""Paths inside a dataset: plain relative names, no symbolic links, regular files only.

The verifier never follows a symbolic link and never opens anything but a regular file (a
FIFO named ``items.jsonl`` would block a reader forever).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: What a directory entry is, as :func:`walk` reports it.
FILE, SYMLINK, SPECIAL, UNREADABLE = "file", "symlink", "special", "unreadable"


def unsafe_name(name: object) -> str | None:
    """Why ``name`` is not a plain relative path inside the dataset, or ``None``.

    A plain path is non-empty, relative, uses ``/`` and has no empty, ``.`` or ``..`` parts.
    """
    if not isinstance(name, str) or not name:
        return "not a file name"
    if "\\" in name or "\x00" in name:
        return "not a plain relative path (backslash or NUL)"
    if name.startswith("/"):
        return "an absolute path"
    if any(part in ("", ".", "..") for part in name.split("/")):
        return "not a plain relative path (empty, '.' or '..' part)"
    return None


def file_problem(root: Path, name: str) -> str | None:
    """Why ``root/name`` (a safe name) cannot be read as a regular file, or ``None``.

    Every part of the path is checked, so a linked folder on the way is caught too.
    """
    current = root
    parts = name.split("/")
    for depth, part in enumerate(parts, start=1):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return "missing"
        except OSError as exc:
            return f"cannot be read ({exc.strerror})"
        where = "/".join(parts[:depth])
        if stat.S_ISLNK(mode):
            return "a symbolic link" if depth == len(parts) else f"{where} is a symbolic link"
        if depth < len(parts) and not stat.S_ISDIR(mode):
            return "missing"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    return None


def walk(root: Path) -> list[tuple[str, str]]:
    """Every entry below ``root`` that is not a folder, as (relative name, kind), sorted.

    Kinds: :data:`FILE`, :data:`SYMLINK` (never followed), :data:`SPECIAL` (FIFO, socket,
    device) and :data:`UNREADABLE` (a folder that cannot be listed).
    """
    found: list[tuple[str, str]] = []
    pending = [("", root)]
    while pending:
        prefix, folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            found.append((prefix.rstrip("/") or ".", UNREADABLE))
            continue
        for entry in entries:
            name = prefix + entry.name
            if entry.is_symlink():
                found.append((name, SYMLINK))
            elif entry.is_dir(follow_symlinks=False):
                pending.append((name + "/", Path(entry.path)))
            elif entry.is_file(follow_symlinks=False):
                found.append((name, FILE))
            else:
                found.append((name, SPECIAL))
    return sorted(found)
