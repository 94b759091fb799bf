"""``gen report RUN... --out FILE``: the HTML report of runs side by side (a leaderboard)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import hopvista


def register(subparsers: Any) -> None:
    """Add ``report`` to the ``gen`` parser."""
    p = subparsers.add_parser(
        "report", help="one HTML report of several evaluation runs",
        description="Draw the report of one or more gen eval runs side by side: a "
                    "leaderboard, plots with one bar per run, and each run paired with the "
                    "first on the items both answered (bootstrap interval, McNemar's p).")
    p.add_argument("runs", type=Path, nargs="+", metavar="RUN", help="run folders")
    p.add_argument("--out", type=Path, required=True, metavar="FILE",
                   help="the HTML file: a new one or an earlier report (never a file gen "
                        "report did not write, a symlink, or a place inside a dataset or a RUN)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the report."""
    written = hopvista.report(args.runs, args.out)
    print(f"wrote {written} ({len(args.runs)} runs)")
    return 0
