"""``gen list``: the domains, sources, statement types, variants, perturbations, import formats,
table themes, page templates and cell visual kinds available (built in and registered by
plug-ins)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import hopvista
from hopvista.cli.arguments import seed_int, years
from hopvista.errors import UserError
from hopvista.model.task import FAMILIES
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.themes.visuals import icons

if TYPE_CHECKING:
    from hopvista.api import Catalogue


def register(subparsers: Any) -> None:
    """Add ``list`` to the ``gen`` parser."""
    p = subparsers.add_parser("list", help="list domains, sources, statement types, variants, "
                                           "perturbations, import formats, themes, pages and "
                                           "cell visual kinds",
                              description=__doc__)
    p.add_argument("--domain", default=None, metavar="DOMAIN",
                   help="list only the statement types, each with whether DOMAIN (a built-in "
                        "name or a pack folder, with --data) can make it and why not")
    p.add_argument("--source", default=None, help="with --domain: the data source")
    p.add_argument("--data", default=None, metavar="DIR",
                   help="with --domain: the data folder (panel: panel.csv [+ texts.jsonl])")
    p.add_argument("--years", type=years, default=None, metavar="FIRST-LAST",
                   help="with --domain: the window of periods")
    p.add_argument("--seed", type=seed_int, default=0,
                   help="with --domain: the seed the probe draws with (default 0)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the catalogue, or with ``--domain`` the types that domain's data can make."""
    if args.domain is not None:
        return _domain_types(args)
    for option, given in (("--source", args.source), ("--data", args.data),
                          ("--years", args.years)):
        if given is not None:
            raise UserError(f"{option} applies with --domain")
    found = hopvista.catalogue()
    _generation_catalogue(found)
    _markup_catalogue(found)
    _augment_catalogue(found)
    return 0


def _domain_types(args: argparse.Namespace) -> int:
    """Each statement type with "yes" or why the domain's data cannot make it."""
    found = hopvista.statement_types(args.domain, source=args.source, data=args.data,
                            years=args.years, seed=args.seed)
    print(f"statement types of {args.domain}"
          f"{f' with --data {args.data}' if args.data else ''}:")
    for name, reason in found.items():
        kind = STATEMENT_TYPES.get(name)
        print(f"  {name:<10} {kind.hops} hop(s)  {'yes' if reason is None else 'no: ' + reason}")
    return 0


def _generation_catalogue(found: Catalogue) -> None:
    """What ``gen build`` can use: domains, sources, statement types."""
    print("domains:")
    for name, title in found.domains.items():
        print(f"  {name:<12} {title}")
    print("sources:")
    for name, origin in found.sources.items():
        print(f"  {name:<12} from {origin}")
    print("statement types:")
    for name, kind in found.statement_types.items():
        needs = f"needs {kind.min_periods} periods" if kind.min_periods > 1 else ""
        print(f"  {name:<10} {kind.hops} hop(s)  {' + '.join(kind.modalities):<20} "
              f"{needs:<17} from {kind.origin}")


def _markup_catalogue(found: Catalogue) -> None:
    """The markup subtasks ``gen markup`` draws, by family."""
    print("markup tasks (gen markup [--tables DOMAIN|PATH]):")
    for family, entries in found.markup_tasks.items():
        print(f"  {family} {FAMILIES.get(family, '')}")
        for entry in entries:
            print(f"    {entry.name:<18} {entry.summary}")


def _augment_catalogue(found: Catalogue) -> None:
    """What ``gen augment`` can do: its recipes, perturbations, input formats, looks."""
    print("variants (gen augment --variants):")
    for name, recipe in found.variants.items():
        print(f"  {name:<12} {recipe.group:<15} {recipe.description}")
    print("perturbations:")
    for name, perturbation in found.perturbations.items():
        print(f"  {name:<12} {perturbation.description}")
    print("import formats (gen augment --format):")
    for name, importer in found.import_formats.items():
        print(f"  {name:<12} {importer.description}")
    print("table themes:")
    for name, theme in found.table_themes.items():
        print(f"  {name:<16} {theme.family:<7} {theme.description}")
    print("page templates (the screenshot variant):")
    for name, page in found.page_templates.items():
        print(f"  {name:<12} {page.description}")
    print("cell visual kinds:")
    for name, kind in found.visual_kinds.items():
        print(f"  {name:<12} {kind.summary}")
    _emblem_catalogue()


def _emblem_catalogue() -> None:
    """The emblems badges and flags carry, and the icon set (and licence) they come from."""
    print("emblems (badge, flag):")
    print(f"  {', '.join(icons.EMBLEMS)}")
    try:
        credit = icons.installed().credit()
    except UserError as exc:
        print(f"  {exc}")
        return
    print(f"  icons of {credit['name']} {credit['version']} ({credit['url']}), licensed "
          f"{credit['license']}")
