"""The ``synthetic`` source: the embedded default, a seeded synthetic financial world."""

from __future__ import annotations

from hopvista.domain import DomainPack
from hopvista.errors import UserError
from hopvista.sources import SourceOptions, source
from hopvista.sources.synthetic import load_world as synthetic_world
from hopvista.world import World

SYNTHETIC_FIRST_YEAR = 2000
"""The synthetic companies were founded before then (their fact base says when)."""


@source("synthetic")
def load_synthetic(pack: DomainPack, seed: int, options: SourceOptions) -> World:
    """The embedded default: a seeded synthetic world (no data folder)."""
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
