"""``gen export DATASET --format inspect|lmms-eval|vlmevalkit --out DIR``: a dataset as a task
of another evaluation harness.

Exit 0: the folder is written. Exit 2: an unknown format or setting, a path that is not a
dataset, a setting the dataset cannot give (images it does not have), or an ``--out`` folder
that holds something other than an earlier export (it is left as it was).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import positive_int
from hopvista.eval.prompts import SETTINGS
from hopvista.eval.stages import PROTOCOLS
from hopvista.eval.table_text import TABLE_FORMATS

DESCRIPTION = """Write DATASET (or its first N items) as a task of another evaluation harness,
with the prompts gen eval sends in the chosen setting and the same reference answers; the
exported scorers call hopvista's own parser and scorer, so the numbers compare with gen eval.

formats:
  inspect     an Inspect AI task: inspect eval DIR/task.py --model PROVIDER/MODEL
  lmms-eval   an lmms-eval task folder: lmms-eval --include_path DIR --tasks hopvista ...
  vlmevalkit  VLMEvalKit's TSV with base64 images (copy it into $LMUData), and score.py
DIR/README.md gives the commands that run and score it in the harness.
settings: table-json (default, as gen eval's), interleaved, chart-as-table, no-chart,
image-only (chart-derendered is not exported: its charts are read during gen eval)."""


def register(subparsers: Any) -> None:
    """Add ``export`` to the ``gen`` parser."""
    # heavy:
    from hopvista.harness import DEFAULT_SETTING, FORMATS

    p = subparsers.add_parser("export", help="write a dataset as another harness's task",
                              description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="dataset folder")
    p.add_argument("--format", required=True, choices=list(FORMATS), dest="fmt",
                   help="the harness")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="the folder to write (new, empty, or an earlier export)")
    p.add_argument("--setting", choices=list(SETTINGS), default=DEFAULT_SETTING,
                   help=f"how the inputs are shown (default {DEFAULT_SETTING})")
    p.add_argument("--limit", type=positive_int, metavar="N", help="the first N items only")
    p.add_argument("--protocol", choices=PROTOCOLS, metavar="PROTOCOL",
                   help="refused: the stage protocol is graded by gen eval --protocol stages "
                        "only, not by a harness")
    p.add_argument("--strategy", default="cot", metavar="NAME",
                   help="the prompt strategy, as gen eval's (default cot; self-refine, a "
                        "conversation of two turns, cannot be exported)")
    p.add_argument("--table-format", choices=TABLE_FORMATS, default="json",
                   help="how a setting that shows the table as text writes it (default json)")
    p.add_argument("--seed", type=int, metavar="N",
                   help="what draws the one-shot strategy's examples (default 0)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Export and say where."""
    result = hopvista.export_harness(args.path, fmt=args.fmt, out=args.out,
                                     setting=args.setting, limit=args.limit,
                                     protocol=args.protocol, strategy=args.strategy,
                                     table_format=args.table_format, seed=args.seed)
    print(f"wrote {result.items} items of {args.path} ({result.setting}) for {result.format} "
          f"to {result.out}; {result.out / 'README.md'} says how to run it")
    return 0
