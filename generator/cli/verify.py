"""``gen verify DIR``: re-prove every label of a dataset and check its files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hopvista.verify import verify_dataset


def register(subparsers: Any) -> None:
    """Add ``verify`` to the ``gen`` parser."""
    p = subparsers.add_parser("verify", help="re-prove a dataset's labels", description=__doc__)
    p.add_argument("path", type=Path, help="dataset folder")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print each problem on its own line; exit 1 if there is any."""
    checked, problems = verify_dataset(args.path)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"FAILED: {len(problems)} problem(s) in {checked} items", file=sys.stderr)
        return 1
    print(f"OK: {checked} items verified in {args.path}")
    return 0
