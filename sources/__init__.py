"""Sources: each turns a data source into a :class:`hopvista.world.World`.

A source is registered by name with :func:`source` (or ``SOURCES.register``); a domain pack
names its default source in ``domain.yaml`` and ``--source`` overrides it. Built-in sources
are imported lazily, the first time a source is looked up, so a heavy one costs nothing until
used; third-party ones come from the ``hopvista.sources`` entry-point group::

    from hopvista.sources import source

    @source("my-source")
    def load(pack, seed, options):   # -> hopvista.world.World
        ...

A source whose data also says something about the domain (column labels from a CSV header,
nouns from the data folder) passes ``adapt_pack``: it receives the pack and the options and
returns the pack to build with (a new object; the given one is never changed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hopvista.domain import DomainPack
from hopvista.registry import Registry
from hopvista.world import World


@dataclass(frozen=True)
class SourceOptions:
    """What the user told the source: a data folder and a window of periods."""

    data: Path | None = None
    years: tuple[int, int] | None = None


SourceLoader = Callable[[DomainPack, int, SourceOptions], World]
PackAdapter = Callable[[DomainPack, SourceOptions], DomainPack]


@dataclass(frozen=True)
class Source:
    """A registered source: its loader and, optionally, how its data adapts the pack."""

    name: str
    load: SourceLoader
    adapt_pack: PackAdapter | None = None
    origin: str = ""

    def pack_for(self, pack: DomainPack, options: SourceOptions) -> DomainPack:
        """The pack to build with (the given one unless the source adapts it)."""
        return pack if self.adapt_pack is None else self.adapt_pack(pack, options)


SOURCES: Registry[Source] = Registry("source", "sources", builtins=(
    "hopvista.sources.synthetic.source",
    "hopvista.sources.sec.loader",
    "hopvista.sources.panel",
    "hopvista.sources.materials.source",
))


def source(name: str, adapt_pack: PackAdapter | None = None
           ) -> Callable[[SourceLoader], SourceLoader]:
    """Register the decorated loader ``(pack, seed, options) -> World`` as source ``name``."""
    def register(load: SourceLoader) -> SourceLoader:
        SOURCES.register(name, Source(name=name, load=load, adapt_pack=adapt_pack,
                                      origin=getattr(load, "__module__", "")))
        return load

    return register


def load_world(name: str, pack: DomainPack, seed: int,
               options: SourceOptions | None = None) -> World:
    """Build the world of ``pack`` from the source called ``name``."""
    return SOURCES.get(name).load(pack, seed, options or SourceOptions())
