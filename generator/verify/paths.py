"""Paths inside a dataset: plain relative names, no symbolic links, regular files only.

The verifier never follows a symbolic link and never opens anything but a regular file (a
FIFO named ``items.jsonl`` would block a reader forever). A name's and a file's problems are
the data model's (:func:`hopvista.model.dataset.unsafe_name`,
:func:`~hopvista.model.dataset.dataset_file_problem`); this module walks the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from hopvista.model.dataset import dataset_file_problem as file_problem
from hopvista.model.dataset import unsafe_name

__all__ = ["FILE", "SPECIAL", "SYMLINK", "UNREADABLE", "file_problem", "unsafe_name", "walk"]

#: What a directory entry is, as :func:`walk` reports it.
FILE, SYMLINK, SPECIAL, UNREADABLE = "file", "symlink", "special", "unreadable"


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
