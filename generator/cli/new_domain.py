"""``gen new-domain NAME``: write a commented domain skeleton that builds as it stands."""

from __future__ import annotations

import argparse
import re
from importlib import resources
from pathlib import Path
from typing import Any

from hopvista.atomic import write_atomic
from hopvista.errors import UserError

SKELETON = "skeleton"
DATA_FILES = ("panel.csv", "texts.jsonl")


def register(subparsers: Any) -> None:
    """Add ``new-domain`` to the ``gen`` parser."""
    p = subparsers.add_parser("new-domain", help="write a domain skeleton folder",
                              description=__doc__)
    p.add_argument("name", help="the domain's name and its folder ([a-z][a-z0-9_-]*)")
    p.add_argument("--dir", type=Path, default=Path("."),
                   help="where to create the folder (default: here)")
    p.set_defaults(run=run)


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
    an existing folder."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", name):
        raise UserError(f"domain name {name!r}: use lower-case letters, digits, '-' and '_', "
                        "starting with a letter")
    folder = parent / name
    if folder.exists() or folder.is_symlink():
        raise UserError(f"{folder}: already exists (choose another name or --dir)")
    if not parent.is_dir():
        raise UserError(f"--dir {parent}: no such folder")
    folder.mkdir()
    templates = resources.files("hopvista.templates") / SKELETON
    for data in DATA_FILES:
        write_atomic(folder / data, (templates / data).read_bytes())
    write_atomic(folder / "domain.yaml", skeleton_yaml(name, folder).encode("utf-8"))
    return folder


def run(args: argparse.Namespace) -> int:
    """Write the skeleton and say how to build it."""
    folder = write_skeleton(args.name, args.dir)
    print(f"wrote {folder}/ (domain.yaml, panel.csv, texts.jsonl); build it with:\n"
          f"  gen build {folder} -n 24 --out out/{args.name}")
    return 0
