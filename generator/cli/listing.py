"""``gen list``: the domains, sources and statement types available."""

from __future__ import annotations

import argparse
from typing import Any

from hopvista.domain import builtin_pack_names, resolve_pack
from hopvista.sources import SOURCES
from hopvista.statements.registry import STATEMENT_TYPES


def register(subparsers: Any) -> None:
    """Add ``list`` to the ``gen`` parser."""
    p = subparsers.add_parser("list", help="list domains, sources and statement types",
                              description=__doc__)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the catalogue."""
    print("domains:")
    for name in builtin_pack_names():
        print(f"  {name:<12} {resolve_pack(name).spec.title}")
    print("sources:")
    for name in SOURCES.names():
        print(f"  {name:<12} from {SOURCES.origin(name)}")
    print("statement types:")
    for name, kind in STATEMENT_TYPES.items():
        needs = f"needs {kind.min_periods} periods" if kind.min_periods > 1 else ""
        print(f"  {name:<10} {kind.hops} hop(s)  {' + '.join(kind.modalities):<20} "
              f"{needs:<17} from {kind.origin}")
    return 0
