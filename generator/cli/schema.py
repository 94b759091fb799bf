"""``gen schema``: print the JSON Schema of an item (or, with ``--dataset``, of a manifest)."""

from __future__ import annotations

import argparse
import json
from typing import Any

import hopvista


def register(subparsers: Any) -> None:
    """Add ``schema`` to the ``gen`` parser."""
    p = subparsers.add_parser(
        "schema", help="print the JSON Schema of an item (or of manifest.json)",
        description="Print the JSON Schema of one line of items.jsonl in the current dataset "
                    "format (docs/format.md); with --dataset, the schema of manifest.json.")
    p.add_argument("--dataset", action="store_true",
                   help="the schema of manifest.json instead of an item")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema as indented JSON."""
    print(json.dumps(hopvista.json_schema(manifest=args.dataset), indent=2, ensure_ascii=False))
    return 0
