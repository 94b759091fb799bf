"""``gen audit DIR``: how well proxy solvers that never see one modality answer a dataset.

Exit 0: every check passed. Exit 1: one ``FAILED:`` line per failing check on stderr. Exit 2:
DIR is not a hopvista dataset, or an option is out of range (one ``gen: error:`` line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import int_at_least, seed_int
from hopvista.errors import excerpt

DESCRIPTION = """Run proxy solvers that each withhold one modality (chart, table, text) and
impute it from the rest with models cross-fitted on the dataset itself, label priors and a
blind classifier on the statement wording (on an mmtables build: a solver that never sees the
cell pictures, the answer prior and a blind classifier on the question); print their
accuracies with bootstrap 95% intervals against chance, and check them against the limits
below. Then, for three-statement items, how the statements are worded: WPD and LD of
paraphrased statements against their templates, words per statement by level, and surface
cues (negations, hedges, numbers, length, ...) per label with a permutation test.

exit 0: every check passed. exit 1: one "FAILED:" line per failing check on stderr.
exit 2: the path is not a hopvista dataset (or an option is out of range)."""


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {excerpt(text)}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a fraction from 0 to 1, got {text}")
    return value


def register(subparsers: Any) -> None:
    """Add ``audit`` to the ``gen`` parser."""
    p = subparsers.add_parser("audit", help="measure proxy solvers that lack one modality",
                              description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="dataset folder")
    p.add_argument("--json", type=Path, metavar="FILE",
                   help="also write the report as JSON: a new file or an earlier audit report "
                        "(never a file gen audit did not write, a symlink, or a place inside "
                        "a dataset)")
    p.add_argument("--max-hard-set", type=_fraction, default=0.20, metavar="F",
                   help="largest Hard item-set accuracy of a proxy solver (default 0.20)")
    p.add_argument("--max-statement", type=_fraction, default=0.55, metavar="F",
                   help="largest accuracy of a proxy solver on the statements that read the "
                        "modality it lacks (default 0.55)")
    p.add_argument("--max-blind", type=_fraction, default=0.55, metavar="F",
                   help="largest accuracy of the blind wording classifier (default 0.55)")
    p.add_argument("--max-prior-gap", type=_fraction, default=0.05, metavar="F",
                   help="mmtables builds: how far the no-image solver and the blind "
                        "classifier may beat the answer prior (default 0.05)")
    p.add_argument("--folds", type=int_at_least(2, "at least 2 folds"), default=5, metavar="K",
                   help="cross-fitting folds over items (default 5)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of folds and bootstrap")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the audit; exit 1 naming each failing check."""
    report = hopvista.run_audit(args.path, json_file=args.json,
                                max_hard_set=args.max_hard_set,
                                max_statement=args.max_statement, max_blind=args.max_blind,
                                max_prior_gap=args.max_prior_gap,
                                folds=args.folds, seed=args.seed)
    print(report.render())
    failed = [check for check in report.checks if not check.passed]
    for check in failed:
        print(check.message(), file=sys.stderr)
    return 1 if failed else 0
