"""A new domain pack: the commented skeleton folder ``gen new-domain`` writes, which builds as
it stands."""

from __future__ import annotations

import os
import re
import stat
from importlib import resources
from pathlib import Path

from hopvista.errors import UserError
from hopvista.output.atomic import rename_noreplace, write_atomic
from hopvista.output.files import kind_of, reason, refuse_misplaced, staging_folder

SKELETON = "skeleton"
DATA_FILES = ("panel.csv", "texts.jsonl")


def skeleton_yaml(name: str, folder: Path) -> str:
    """The skeleton's ``domain.yaml``: the commented header, then the wording of the built-in
    panel pack (generic forms speaking through ``{{ noun }}`` and the period variables)."""
    templates = resources.files("hopvista.templates")
    header = (templates / SKELETON / "header.yaml").read_text(encoding="utf-8")
    panel = (templates / "panel" / "domain.yaml").read_text(encoding="utf-8")
    wording = panel[panel.index("\nquestion:") + 1:]
    text = header.replace("__NAME__", name).replace("__FOLDER__", str(folder))
    return (text + "# The question and the statement wording (several forms per type; see "
            "docs/domains.md):\n" + wording)


def write_skeleton(name: str, parent: Path) -> Path:
    """Create ``parent/name`` with a domain.yaml, panel.csv and texts.jsonl; refuse to touch
    an existing entry or to write inside a dataset.

    The folder is written beside its place and renamed into it, so it appears whole or not at
    all; a full or read-only disk is one line and leaves nothing behind.
    """
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        raise UserError(f"domain name {name!r}: use lower-case letters, digits, '-' and '_', "
                        "starting with a letter")
    _check_parent(parent)
    folder = parent / name
    if os.path.lexists(folder):
        raise UserError(f"{folder}: already exists (choose another name or --dir)")
    refuse_misplaced(folder, str(folder), folder=True)
    templates = resources.files("hopvista.templates") / SKELETON
    with staging_folder(folder, str(folder), "hopvista-new-domain") as stage:
        for data in DATA_FILES:
            write_atomic(stage / data, (templates / data).read_bytes())
        write_atomic(stage / "domain.yaml", skeleton_yaml(name, folder).encode("utf-8"))
        os.chmod(stage, 0o755)
        try:
            rename_noreplace(stage, folder)
        except FileExistsError:
            raise UserError(f"{folder}: appeared while the skeleton was written; it was left "
                            "as it is") from None
    return folder


def _check_parent(parent: Path) -> None:
    """Refuse a ``--dir`` that is not an existing folder (symlinks to one are fine)."""
    shown = f"--dir {parent}"
    if not str(parent).strip():
        raise UserError("--dir: empty path")
    try:
        mode = os.stat(parent).st_mode
    except FileNotFoundError:
        raise UserError(f"{shown}: no such folder") from None
    except OSError as exc:
        raise UserError(f"{shown}: {reason(exc)}") from None
    if not stat.S_ISDIR(mode):
        raise UserError(f"{shown}: is a {kind_of(mode)}, not a folder")
