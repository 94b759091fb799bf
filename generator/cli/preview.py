"""``gen preview DIR``: a static HTML contact sheet of a dataset (text, images, statements)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import positive_int
from hopvista.model.dataset import PREVIEW_NAME


def register(subparsers: Any) -> None:
    """Add ``preview`` to the ``gen`` parser."""
    p = subparsers.add_parser("preview", help="write an HTML contact sheet of a dataset",
                              description=__doc__)
    p.add_argument("path", type=Path, help="dataset folder")
    p.add_argument("--out", type=Path, default=None,
                   help=f"HTML file or folder to write the page to (default: DIR/{PREVIEW_NAME}); "
                        "only a new file or an earlier preview is ever replaced")
    p.add_argument("--limit", type=positive_int, default=100, help="items shown (default 100)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the sheet and say where."""
    print(f"wrote {hopvista.preview(args.path, out=args.out, limit=args.limit)}")
    return 0
