"""The manifest's ``files``: every file of the dataset listed, with its sha256, and nothing else.

Listed names must be plain relative paths inside the folder; the folder may hold no symbolic
link (a link could point anywhere, so its target is never read) and nothing but folders and
regular files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hopvista.model.dataset import MANIFEST, PREVIEW_NAME, sha256_file
from hopvista.verify.paths import (
    FILE,
    SPECIAL,
    SYMLINK,
    UNREADABLE,
    file_problem,
    unsafe_name,
    walk,
)

Report = Callable[[str], None]
UNLISTED = (MANIFEST, PREVIEW_NAME)
_SHA256 = re.compile(r"[0-9a-f]{64}")
_WHAT = {SYMLINK: "a symbolic link (not allowed in a dataset)",
         SPECIAL: "not a regular file or folder", UNREADABLE: "a folder that cannot be read"}


def listed_files(manifest: dict[str, Any], report: Report) -> dict[str, str]:
    """The manifest's ``files`` with every malformed entry reported and left out."""
    files = manifest.get("files")
    if not isinstance(files, dict):
        shown = "missing" if "files" not in manifest else f"a {type(files).__name__}"
        report(f"manifest.json: field 'files': expected an object of path -> sha256, "
               f"got {shown}")
        return {}
    listed = {}
    for name, digest in files.items():
        why = unsafe_name(name)
        if why is not None:
            report(f"manifest.json: files: {name[:80]!r} is {why}")
        elif name in UNLISTED:
            report(f"manifest.json: files: {name} must not be listed")
        elif not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            report(f"manifest.json: files: {name}: not a sha256 hex digest")
        else:
            listed[name] = digest
    return listed


def check_files(root: Path, manifest: dict[str, Any], report: Report) -> None:
    """Listed files exist as regular files with their sha256; every file is listed; no links."""
    listed = listed_files(manifest, report)
    for name, digest in listed.items():
        problem = file_problem(root, name)
        if problem is not None:
            report(f"{name}: listed in manifest.json but {problem}")
            continue
        try:
            actual = sha256_file(root / name)
        except OSError as exc:
            report(f"{name}: cannot be read ({exc.strerror})")
            continue
        if actual != digest:
            report(f"{name}: sha256 {actual[:12]}… differs from manifest {digest[:12]}…")
    files = manifest.get("files")
    names = files if isinstance(files, dict) else {}
    for name, kind in walk(root):
        if kind != FILE:
            report(f"{name}: {_WHAT[kind]}")
        elif name not in UNLISTED and name not in names:
            report(f"{name}: not listed in manifest.json")
