"""Source loaders: each turns a data source into a :class:`hopvista.world.World`.

A source is registered here by name; a domain pack names its default source in ``pack.yaml``.
Every loader takes ``(pack, seed, options)`` and is imported lazily, so a heavy source costs
nothing until used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.world import World


@dataclass(frozen=True)
class SourceOptions:
    """What the user told the source: a data folder and a window of periods."""

    data: Path | None = None
    years: tuple[int, int] | None = None


SourceLoader = Callable[[DomainPack, int, SourceOptions], World]

#: name -> "module:function" of a :data:`SourceLoader`.
SOURCES: dict[str, str] = {
    "synthetic": "hopvista.sources:load_synthetic",
    "sec": "hopvista.sources.sec.loader:load_world",
}


SYNTHETIC_FIRST_YEAR = 2000
"""The synthetic companies were founded before then (their fact base says when)."""


def load_synthetic(pack: DomainPack, seed: int, options: SourceOptions) -> World:
    """The embedded default: a seeded synthetic world (no data folder)."""
    from hopvista.sources.synthetic import load_world as synthetic_world

    if options.data is not None:
        raise UserError("--data: the synthetic source reads no files (use --source sec)")
    if options.years is None:
        return synthetic_world(pack, seed)
    first, last = options.years
    if first < SYNTHETIC_FIRST_YEAR:
        raise UserError(f"--years {first}-{last}: the synthetic world's companies report from "
                        f"{SYNTHETIC_FIRST_YEAR} on; choose a window from then")
    if last - first < 1:
        raise UserError(f"--years {first}-{last}: the synthetic source needs at least two "
                        "years (its MD&A text compares two years)")
    return synthetic_world(pack, seed, first_period=first, n_periods=last - first + 1)


def load_world(source: str, pack: DomainPack, seed: int,
               options: SourceOptions | None = None) -> World:
    """Build the world of ``pack`` from the named source."""
    target = SOURCES.get(source)
    if target is None:
        raise UserError(f"unknown source {source!r} (known: {', '.join(sorted(SOURCES))})")
    module, _, name = target.partition(":")
    loader: SourceLoader = getattr(import_module(module), name)
    return loader(pack, seed, options or SourceOptions())
