"""``gen markup``: a dataset of markup tasks (HighlightBench's T1-T5), each a marked table
image whose answer a program re-derives from the table and its marks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import positive_int, seed_int


def register(subparsers: Any) -> None:
    """Add ``markup`` to the ``gen`` parser."""
    p = subparsers.add_parser("markup", help="make a dataset of markup tasks on marked tables",
                              description=__doc__)
    p.add_argument("-n", "--count", type=positive_int, default=48, help="tasks (default 48)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of everything random (default 0)")
    p.add_argument("--out", type=Path, default=Path("out") / "markup",
                   help="output folder (default: ./out/markup)")
    p.add_argument("--tables", default="financial", metavar="DOMAIN|PATH",
                   help="where the tasks' tables come from: a domain (default financial) or "
                        "an existing dataset's file or folder (see 'gen list')")
    p.add_argument("--format", dest="fmt", default=None,
                   help="the format of --tables PATH (default: detected)")
    p.add_argument("--source", default=None,
                   help="data source of --tables DOMAIN (default: the domain's own)")
    p.add_argument("--data", default=None, metavar="DIR",
                   help="data folder of a file-based source (sec: what 'gen fetch sec' wrote)")
    p.add_argument("--marks", default=None, metavar="KIND,KIND,...",
                   help="the mark kinds the tasks draw from: at least three that mark a cell "
                        "(highlight, underline, bold, arrow, circle, hand, or a plug-in's), or "
                        "'all' (default: highlight,underline,bold)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="processes (default 1); the output does not depend on it")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier hopvista dataset in --out")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Make the tasks and say what was written."""
    manifest = hopvista.build_markup(
        args.out, count=args.count, seed=args.seed, tables=args.tables, fmt=args.fmt,
        source=args.source, data=args.data, workers=args.workers, overwrite=args.overwrite,
        progress=sys.stderr.isatty(), marks=args.marks)
    families = ", ".join(f"{k} {v}" for k, v in manifest["shares"]["families"].items())
    print(f"wrote {manifest['counts']['items']} markup tasks to {args.out} ({families})")
    return 0
