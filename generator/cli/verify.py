"""``gen verify DIR [--source PATH]``: re-prove every label of a dataset and check its files.

Exit 0: every check passed. Exit 1: one line per problem on stderr (the first
``--max-problems``, then how many more), then ``FAILED: N problem(s) in M items``. Exit 2:
DIR is not a hopvista dataset, or PATH is not the input it names (one ``gen: error:`` line).
An OK says what it did not prove: one ``not checked: …`` line each on stdout, before the
``OK`` line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import non_negative_int
from hopvista.errors import one_line

DEFAULT_MAX_PROBLEMS = 50
DESCRIPTION = """Re-prove every label of a dataset folder and check its files, items, Parquet
rows, images, counts and balance against each other. With an OK, what it could not prove
(the images' pixels, wording it can only judge by its words, imported records without their
source) is listed first on stdout, as "not checked: ..." lines.

exit 0: every check passed. exit 1: one line per problem on stderr, then
"FAILED: N problem(s) in M items". exit 2: the path is not a hopvista dataset, or --source
is not the input it was made from."""


def register(subparsers: Any) -> None:
    """Add ``verify`` to the ``gen`` parser."""
    p = subparsers.add_parser("verify", help="re-prove a dataset's labels", description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="dataset folder")
    p.add_argument("--source", type=Path, metavar="PATH",
                   help="the input a gen augment dataset was made from (a release folder or "
                        "file, or a hopvista dataset): every item is compared with its record")
    p.add_argument("--max-problems", type=non_negative_int, default=DEFAULT_MAX_PROBLEMS,
                   metavar="N",
                   help=f"print at most N problems (default {DEFAULT_MAX_PROBLEMS}; 0: all)")
    p.set_defaults(run=run)


class _Printer:
    """Prints problems as they are found, up to a limit, and counts them all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def __call__(self, problem: str) -> None:
        self.count += 1
        if not self.limit or self.count <= self.limit:
            print(problem, file=sys.stderr)

    @property
    def hidden(self) -> int:
        """Problems found but not printed."""
        return max(0, self.count - self.limit) if self.limit else 0


def run(args: argparse.Namespace) -> int:
    """Print each problem on its own line; exit 1 if there is any."""
    printer = _Printer(args.max_problems)
    report = hopvista.verify(args.path, source=args.source, on_problem=printer)
    if printer.hidden:
        print(f"... and {printer.hidden} more problem(s) (--max-problems 0 prints all)",
              file=sys.stderr)
    if printer.count:
        print(f"FAILED: {printer.count} problem(s) in {report.items} items", file=sys.stderr)
        return 1
    for text in report.unchecked:
        print(f"not checked: {text}")
    print(f"OK: {report.items} items verified in {one_line(str(args.path))}")
    return 0
