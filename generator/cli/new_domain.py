"""``gen new-domain NAME``: write a commented domain skeleton that builds as it stands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import hopvista


def register(subparsers: Any) -> None:
    """Add ``new-domain`` to the ``gen`` parser."""
    p = subparsers.add_parser("new-domain", help="write a domain skeleton folder",
                              description=__doc__)
    p.add_argument("name", help="the domain's name and its folder ([a-z][a-z0-9_-]*)")
    p.add_argument("--dir", type=Path, default=Path("."),
                   help="where to create the folder (default: here; not inside a dataset)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the skeleton and say how to build it."""
    folder = hopvista.new_domain(args.name, directory=args.dir)
    print(f"wrote {folder}/ (domain.yaml, panel.csv, texts.jsonl); build it with:\n"
          f"  gen build {folder} -n 24 --out out/{args.name}")
    return 0
