"""The ``materials`` source registration: the seeded synthetic world of inorganic materials."""

from __future__ import annotations

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.sources import SourceOptions, source
from hopvista.sources.materials.loader import build_world
from hopvista.world import World


@source("materials")
def load_materials(pack: DomainPack, seed: int, options: SourceOptions) -> World:
    """Materials over temperature (no data folder); ``--years A-B`` picks the temperature
    window in kelvin (multiples of 100 K, at least three temperatures)."""
    if options.data is not None:
        raise UserError("--data: the materials source reads no files (its catalogue is part "
                        "of the pack: materials.yaml)")
    return build_world(pack, seed, options.years)
