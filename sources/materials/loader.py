"""The materials source: a seeded synthetic world of inorganic materials over temperature.

Entities are the catalogue's materials (``materials.yaml`` in the pack folder); the period
axis is temperature in kelvin (200-600 K in steps of 100 K by default); every value comes from
the temperature models of :mod:`hopvista.sources.materials.physics` applied to the material's
catalogue parameters, each perturbed by seeded noise (so a seed gives a different but
physically consistent world). Text comes from the pack's ``text/*.j2`` templates.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from hopvista.errors import UserError
from hopvista.rng import derive
from hopvista.sources.materials import physics
from hopvista.sources.materials.catalogue import Material, load_catalogue
from hopvista.sources.materials.text import Writer, templates
from hopvista.world import Chunk, Column, Entity, World

DEFAULT_TEMPERATURES = (200, 600)
STEP = 100
MIN_TEMPERATURE, MAX_TEMPERATURE = 100, 1200
EXTRA_DIGITS = 3  # full-precision values keep this many decimals beyond the column's

#: relative standard deviation of the seeded noise per catalogue parameter (clipped at 2.5 sd)
NOISE: dict[str, float] = {
    "gap": 0.02, "gap_slope": 0.10, "density": 0.01, "e_form": 0.02, "bulk": 0.03,
    "bulk_slope": 0.10, "kappa": 0.06, "kappa_exp": 0.08, "debye": 0.04, "alpha": 0.05,
    "seebeck": 0.08, "rho": 0.04, "rho_res": 0.05, "rho_exp": 0.05,
}


class PackLike(Protocol):
    """What the loader reads of a domain pack."""

    @property
    def path(self) -> Path: ...  # noqa: D102

    @property
    def name(self) -> str: ...  # noqa: D102

    def columns(self) -> dict[str, Column]: ...  # noqa: D102


def perturbed(material: Material, seed: int) -> Material:
    """``material`` with each model parameter scaled by its own seeded factor (signs kept)."""
    rng = derive(seed, "world", "material", material.id)
    update: dict[str, Any] = {}
    for name, sd in NOISE.items():
        value = getattr(material, name)
        factor = 1.0 + sd * float(np.clip(rng.standard_normal(), -2.5, 2.5))
        if value is not None and value != 0:
            update[name] = value * factor
    if "rho_res" in update:  # noise never flips the sign of the temperature coefficient
        base = material.rho_res
        half = base + (1.0 - base) / 2  # halfway to 1: the coefficient keeps its sign
        update["rho_res"] = min(update["rho_res"], half) if base < 1 else max(
            update["rho_res"], half)
    return material.model_copy(update=update)


def temperatures(years: tuple[int, int] | None) -> list[int]:
    """The temperatures (K) of the world: the user's window or 200-600 K, in 100 K steps."""
    first, last = years or DEFAULT_TEMPERATURES
    if not MIN_TEMPERATURE <= first < last <= MAX_TEMPERATURE:
        raise UserError(f"--years {first}-{last}: the materials source's temperature window "
                        f"must lie within {MIN_TEMPERATURE}-{MAX_TEMPERATURE} K")
    if (last - first) % STEP or first % STEP:
        raise UserError(f"--years {first}-{last}: the materials source's temperatures are "
                        f"multiples of {STEP} K")
    if (last - first) // STEP < 2:
        raise UserError(f"--years {first}-{last}: the materials source needs at least three "
                        "temperatures")
    return list(range(first, last + 1, STEP))


def _decimal(value: float | None, precision: int) -> Decimal | None:
    if value is None:
        return None
    return Decimal(f"{value:.{precision + EXTRA_DIGITS}f}")


def build_world(pack: PackLike, seed: int, years: tuple[int, int] | None = None) -> World:
    """The seeded materials world of ``pack`` (offline, deterministic in ``seed``)."""
    if seed < 0:
        raise UserError("seed must be non-negative")
    columns = pack.columns()
    unknown = sorted(set(columns) - set(physics.MODELS))
    if unknown:
        raise UserError(f"the materials source cannot produce column(s) {', '.join(unknown)} "
                        f"of domain {pack.name!r} (it produces: {', '.join(physics.MODELS)})")
    periods = temperatures(years)
    folder = Path(pack.path)
    catalogue = load_catalogue(str(folder))
    tpl = templates(str(folder / "text"))
    entities: list[Entity] = []
    values: dict[str, dict[str, list[Decimal | None]]] = {}
    chunks: dict[str, list[Chunk]] = {}
    classes: dict[str, int] = {}
    for base in catalogue:
        m = perturbed(base, seed)
        entities.append(Entity(id=m.id, name=m.name, attributes={
            "formula": m.formula, "class": m.cls, "family": m.family,
            "structure": m.structure, "system": m.system or "amorphous",
            "space_group": m.space_group or "", "full_name": m.full,
        }))
        values[m.id] = {
            key: [_decimal(physics.MODELS[key](m, float(t)), column.precision)
                  for t in periods]
            for key, column in columns.items()
        }
        writer = Writer(tpl, derive(seed, "world", "text", m.id), base)
        chunks[m.id] = writer.chunks(m.id, periods[-1])
        classes[m.cls] = classes.get(m.cls, 0) + 1
    n_chunks = sum(len(v) for v in chunks.values())
    n_facts = sum(len(c.facts) for v in chunks.values() for c in v)
    return World(
        domain=pack.name, source="materials", entities=entities, periods=periods,
        columns=columns, values=values, chunks=chunks,
        provenance={
            "source": "materials", "generator": "hopvista.sources.materials", "seed": seed,
            "catalogue": "materials.yaml", "periods": periods, "period_unit": "K",
            "sizes": {"entities": len(entities), "periods": len(periods),
                      "columns": len(columns), "chunks": n_chunks, "facts": n_facts},
            "classes": dict(sorted(classes.items())),
        })
