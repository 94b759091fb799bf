"""``gen augment INPUT --variants ... --out DIR``: visual variants of a dataset.

INPUT is a hopvista dataset folder or an existing table-QA dataset in its release format
(WikiTableQuestions, TabFact, TAT-QA, FCMR's release, HiTab, FinQA, or the generic JSONL;
docs/imports.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import positive_int, seed_int
from hopvista.variants import DEFAULT_VARIANTS


def register(subparsers: Any) -> None:
    """Add ``augment`` to the ``gen`` parser."""
    p = subparsers.add_parser("augment", help="make visual variants of a dataset",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", type=Path, help="a hopvista dataset, or an existing dataset")
    p.add_argument("--variants", default=DEFAULT_VARIANTS, metavar="LIST",
                   help="variants, comma-separated, each NAME or NAME:KEY=VALUE "
                        f"(default: TableVista's ten: {DEFAULT_VARIANTS})")
    p.add_argument("--out", type=Path, required=True, help="output dataset folder")
    p.add_argument("--format", dest="fmt", default=None,
                   help="the input's format (default: detected): hopvista, or an import format "
                        "(see 'gen list')")
    p.add_argument("--seed", type=seed_int, default=None,
                   help="seed of the variants' draws (default: the input dataset's, or 0)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="processes drawing variants (default 1)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier hopvista dataset in --out")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Augment and say what was written."""
    manifest = hopvista.make_variants(args.input, args.out, variants=args.variants,
                                      fmt=args.fmt, seed=args.seed, workers=args.workers,
                                      overwrite=args.overwrite, progress=sys.stderr.isatty())
    counts = manifest["counts"]
    print(f"wrote {counts['items']} items ({counts['bases']} bases x "
          f"{len(manifest['config']['variants'])} variants) to {args.out}")
    return 0
