"""``gen merge SHARD... --out DIR``: join the shards of one build into its dataset."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import hopvista


def register(subparsers: Any) -> None:
    """Add ``merge`` to the ``gen`` parser."""
    p = subparsers.add_parser("merge", help="join the shards of one build into its dataset",
                              description=__doc__)
    p.add_argument("shards", nargs="+", type=Path, help="the shard folders (any order)")
    p.add_argument("--out", type=Path, required=True, help="the dataset folder to write")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier hopvista dataset in --out")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Merge, and say what was written."""
    manifest = hopvista.merge_shards(args.shards, args.out, overwrite=args.overwrite)
    print(f"wrote {manifest['counts']['items']} items from {len(args.shards)} shards to "
          f"{args.out}")
    return 0
