"""``gen list``: the domains, sources, statement types, variants, perturbations, import formats,
table themes, page templates and cell visual kinds available (built in and registered by
plug-ins)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import hopvista
from hopvista.cli.arguments import seed_int, years
from hopvista.errors import UserError
from hopvista.model.task import FAMILIES
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.themes.visuals import icons

if TYPE_CHECKING:
    from hopvista.api import Catalogue
    from hopvista.program.statement_types import StatementType


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
    _print_section(f"statement types of {args.domain}"
                   f"{f' with --data {args.data}' if args.data else ''}:",
                   {name: _verdict_line(name, reason) for name, reason in found.items()},
                   width=10)
    return 0


def _verdict_line(name: str, reason: str | None) -> str:
    """A statement type's hops, then "yes" or "no:" and why the domain cannot make it."""
    verdict = "yes" if reason is None else f"no: {reason}"
    return f"{STATEMENT_TYPES.get(name).hops} hop(s)  {verdict}"


def _generation_catalogue(found: Catalogue) -> None:
    """What ``gen build`` can use: domains, sources, statement types."""
    _print_section("domains:", found.domains)
    _print_section("sources:", {name: f"from {origin}" for name, origin in found.sources.items()})
    _print_section("statement types:", {name: _statement_type_line(kind) for name, kind
                                         in found.statement_types.items()}, width=10)


def _statement_type_line(kind: StatementType) -> str:
    """A statement type's hops, modalities, periods it needs and who registered it."""
    needs = f"needs {kind.min_periods} periods" if kind.min_periods > 1 else ""
    return f"{kind.hops} hop(s)  {' + '.join(kind.modalities):<20} {needs:<17} from {kind.origin}"


def _markup_catalogue(found: Catalogue) -> None:
    """The markup subtasks ``gen markup`` draws, by family."""
    print("markup tasks (gen markup [--tables DOMAIN|PATH]):")
    for family, entries in found.markup_tasks.items():
        print(f"  {family} {FAMILIES.get(family, '')}")
        _print_entries({entry.name: entry.summary for entry in entries}, width=18, indent=4)


def _augment_catalogue(found: Catalogue) -> None:
    """What ``gen augment`` can do: its recipes, perturbations, input formats, looks."""
    _print_section("variants (gen augment --variants):",
                   {name: f"{recipe.group:<15} {recipe.description}"
                    for name, recipe in found.variants.items()})
    _print_section("perturbations:", {name: perturbation.description
                                      for name, perturbation in found.perturbations.items()})
    _print_section("import formats (gen augment --format):",
                   {name: importer.description for name, importer in found.import_formats.items()})
    _print_section("table themes:", {name: f"{theme.family:<7} {theme.description}"
                                     for name, theme in found.table_themes.items()}, width=16)
    _print_section("page templates (the screenshot variant):",
                   {name: page.description for name, page in found.page_templates.items()})
    _print_section("cell visual kinds:",
                   {name: kind.summary for name, kind in found.visual_kinds.items()})
    _print_section("mark kinds (gen augment --variants markup-{code}c|i; gen markup --marks):",
                   {name: f"{kind.code}  {kind.scope:<6} {kind.description}"
                    for name, kind in found.mark_kinds.items()})
    _emblem_catalogue()


def _print_section(title: str, entries: Mapping[str, str], width: int = 12) -> None:
    """``title``, then :func:`_print_entries` of ``entries``."""
    print(title)
    _print_entries(entries, width=width)


def _print_entries(entries: Mapping[str, str], *, width: int, indent: int = 2) -> None:
    """A line per entry, indented by ``indent`` spaces: its name padded to ``width``, then
    its text."""
    for name, text in entries.items():
        print(f"{' ' * indent}{name:<{width}} {text}")


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
