"""Source loaders: each turns a data source into a :class:`hopvista.world.World`.

A source is registered here by name; a domain pack names its default source in ``pack.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.world import World

SourceLoader = Callable[[DomainPack, int], World]

#: name -> "module:function"; imported lazily so a heavy source costs nothing until used.
SOURCES: dict[str, str] = {
    "synthetic": "hopvista.sources.synthetic:load_world",
}


def load_world(source: str, pack: DomainPack, seed: int) -> World:
    """Build the world of ``pack`` from the named source."""
    target = SOURCES.get(source)
    if target is None:
        raise UserError(f"unknown source {source!r} (known: {', '.join(sorted(SOURCES))})")
    module, _, name = target.partition(":")
    loader: SourceLoader = getattr(import_module(module), name)
    return loader(pack, seed)
