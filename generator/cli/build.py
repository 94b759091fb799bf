"""``gen build DOMAIN``: make a dataset."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import hopvista
from hopvista.cli.arguments import int_at_least, levels, positive_int, seed_int, shard, years
from hopvista.errors import UserError
from hopvista.markup_tasks.build import DOMAIN as MARKUP


def register(subparsers: Any) -> None:
    """Add ``build`` to the ``gen`` parser."""
    p = subparsers.add_parser("build", help="build a dataset", description=__doc__)
    p.add_argument("domain", help="a built-in domain (see 'gen list') or a pack folder")
    p.add_argument("--hops", type=levels, default=(1, 2, 3), metavar="LEVELS",
                   help="hop levels: 1 (Easy), 2 (Medium), 3 (Hard), a range 1-3 (default) "
                        "or a list 1,3")
    p.add_argument("-n", "--count", type=positive_int, default=48, help="items (default 48)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of everything random (default 0)")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default: ./out/DOMAIN)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="processes (default 1); the output does not depend on it")
    p.add_argument("--source", default=None, help="data source (default: the domain's own)")
    p.add_argument("--data", default=None, metavar="DIR",
                   help="data folder of a file-based source (sec: what 'gen fetch sec' wrote)")
    p.add_argument("--years", type=years, default=None, metavar="FIRST-LAST",
                   help="window of periods: fiscal years (2020-2024), temperatures in K "
                        "(300-600), ... (default: the source's)")
    p.add_argument("--periods", type=int_at_least(2, "at least 2"), default=None,
                   help="periods per instance (default: the domain's, 5 for financial)")
    p.add_argument("--no-images", dest="images", action="store_false",
                   help="skip rendering: items.jsonl and Parquet without table/chart images")
    p.add_argument("--no-defences", dest="defences", action="store_false",
                   help="leave out what defeats proxy solvers: a deliberately leaky dataset, "
                        "for testing 'gen audit' (see docs/audit.md)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier hopvista dataset in --out")
    p.add_argument("--shard", type=shard, default=None, metavar="I/N",
                   help="build only the I-th of N slices (1 <= I <= N) of the plan, for "
                        "'gen merge' to join into the dataset a single build makes")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="local (default): --workers processes here; ray: the build's shards "
                        "as Ray tasks (pip install 'hopvista[ray]'), merged into --out")
    p.add_argument("--address", default=None,
                   help="ray: the cluster to join (e.g. ray://head:10001; default: a local "
                        "Ray of --workers CPUs)")
    p.add_argument("--shards", type=positive_int, default=None,
                   help="ray: how many shards (default: the cluster's CPUs)")
    p.add_argument("--tables", default=None, metavar="DOMAIN|PATH",
                   help="markup only: where the tasks' tables come from, a domain (default "
                        "financial) or an existing dataset's file or folder (see 'gen list')")
    p.add_argument("--format", dest="fmt", default=None,
                   help="markup only: the format of --tables PATH (default: detected)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build and report where the dataset went."""
    out: Path = args.out or Path("out") / Path(args.domain).name
    if args.domain == MARKUP:
        return _markup(args, out)
    for option, given in (("--tables", args.tables), ("--format", args.fmt)):
        if given is not None:
            raise UserError(f"{option} applies to 'gen build {MARKUP}' only")
    manifest = hopvista.build(
        args.domain, out, hops=args.hops, count=args.count, seed=args.seed,
        source=args.source, data=args.data, years=args.years, periods=args.periods,
        images=args.images, workers=args.workers, overwrite=args.overwrite,
        progress=sys.stderr.isatty(), defences=args.defences, shard=args.shard,
        executor=args.executor, address=args.address, shards=args.shards)
    if args.shard:
        info = manifest["shard"]
        print(f"wrote shard {info['index']}/{info['of']} (items {info['first']}-"
              f"{info['stop'] - 1}, {manifest['counts']['items']} items) to {out}; join the "
              "shards with gen merge")
        return 0
    shares = manifest["shares"]
    print(f"wrote {manifest['counts']['items']} items to {out} "
          f"(levels {shares['levels']}, answers {shares['answers']})")
    return 0


def _markup(args: argparse.Namespace, out: Path) -> int:
    """``gen build markup``: tasks T1–T5 on marked tables (hopvista.markup_tasks)."""
    from hopvista.building.pipeline import check_image_names
    from hopvista.markup_tasks.build import build_markup
    from hopvista.output.folder import check_out
    from hopvista.themes.tables import load_table_themes

    load_table_themes()  # a theme file it may not use stops the command before any work
    unused = [flag for flag, given in (
        ("--hops", args.hops != (1, 2, 3)), ("--years", args.years is not None),
        ("--periods", args.periods is not None), ("--no-images", not args.images),
        ("--no-defences", not args.defences)) if given]
    if unused:
        raise UserError(f"{unused[0]} does not apply to 'gen build {MARKUP}'")
    tables = args.tables or "financial"
    target = check_out(out, inputs=[tables] if Path(tables).exists() else [],
                       sources=[args.data] if args.data else [])
    check_image_names(MARKUP, args.seed, args.count, target)  # markup tasks have images
    manifest = build_markup(out, count=args.count, seed=args.seed,
                            tables=tables, fmt=args.fmt,
                            source=args.source, data=args.data, workers=args.workers,
                            overwrite=args.overwrite, progress=sys.stderr.isatty())
    families = ", ".join(f"{k} {v}" for k, v in manifest["shares"]["families"].items())
    print(f"wrote {manifest['counts']['items']} markup tasks to {out} ({families})")
    return 0
