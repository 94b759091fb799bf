"""``load_world``: the stages in order, one company at a time."""

from __future__ import annotations

import functools
from decimal import Decimal
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from faker import Faker

from hopvista.domain import Identity
from hopvista.errors import UserError
from hopvista.rng import derive, derive_int
from hopvista.sources.synthetic.context import company_context, figure_set
from hopvista.sources.synthetic.contract import load_pack_text
from hopvista.sources.synthetic.facts import fact_base
from hopvista.sources.synthetic.figures import PRODUCED, check_identities, draw_figures
from hopvista.sources.synthetic.names import company_name, ticker
from hopvista.sources.synthetic.plan import PARAGRAPHS_PER_CHUNK
from hopvista.sources.synthetic.profiles import draw_profile
from hopvista.sources.synthetic.uniqueness import Uniqueness
from hopvista.sources.synthetic.writer import Writer, write_chunks
from hopvista.world import Chunk, Column, Entity, World


class PackLike(Protocol):
    """What :func:`load_world` reads of a :class:`hopvista.domain.DomainPack`."""

    @property
    def path(self) -> Path:
        """The pack folder (``catalogues.yaml``, ``text/plan.yaml``, ``text/*.j2``)."""

    @property
    def name(self) -> str:
        """The domain name."""

    @property
    def identities(self) -> tuple[Identity, ...]:
        """The pack's parsed identities."""

    def columns(self) -> dict[str, Column]:
        """The column catalogue."""


@functools.lru_cache(maxsize=1)
def _faker() -> Any:
    return Faker("en_US")


def _check_arguments(seed: int, n_entities: int, first_period: int, n_periods: int) -> None:
    if seed < 0:
        raise UserError("seed must be non-negative")
    if n_entities < 1:
        raise UserError("n_entities must be at least 1")
    if n_periods < 2:
        raise UserError("n_periods must be at least 2 (the MD&A compares two years)")
    if not 1900 <= first_period <= 2100 - n_periods:
        raise UserError(f"first_period {first_period} is out of range (1900-2100)")


def load_world(pack: PackLike, seed: int, n_entities: int = 120, first_period: int = 2019,
               n_periods: int = 5) -> World:
    """Build the seeded synthetic financial world of ``pack`` (offline, deterministic).

    ``pack`` is read only through ``path`` (its data files and templates), ``name``,
    ``columns()`` and ``identities``. The same arguments give an equal :class:`World`, text
    included. Raises :class:`UserError` for bad arguments, a column the source cannot
    produce, a malformed data file or a broken template, and :class:`GenerationError` if an
    identity of the pack does not hold for the generated figures.
    """
    _check_arguments(seed, n_entities, first_period, n_periods)
    columns = pack.columns()
    unknown = sorted(set(columns) - set(PRODUCED))
    if unknown:
        raise UserError(f"the synthetic source cannot produce column(s) {', '.join(unknown)} "
                        f"of domain {pack.name!r} (it produces: {', '.join(PRODUCED)})")
    periods = list(range(first_period, first_period + n_periods))
    text = load_pack_text(Path(pack.path))
    catalogue = text.catalogue
    fake = _faker()
    fake.seed_instance(derive_int(seed, "world", "faker"))
    taken = Uniqueness(text.templates.vocabulary)
    tickers: set[str] = set()
    entities: list[Entity] = []
    values: dict[str, dict[str, list[Decimal | None]]] = {}
    chunks: dict[str, list[Chunk]] = {}
    industries: dict[str, int] = {}
    regimes: dict[str, int] = {}
    for index in range(n_entities):
        profile = draw_profile(seed, index, periods, catalogue.industries)
        figs = draw_figures(seed, profile, n_periods)
        rng = derive(seed, "world", "facts", index)
        name = company_name(fake, rng, profile.industry, catalogue.names, taken)
        facts = fact_base(rng, fake, taken, catalogue, profile, figs, periods)
        hq, inc = facts["headquarters"].f, facts["incorporation"].f
        entities.append(Entity(id=profile.entity_id, name=name, attributes={
            "ticker": ticker(name, rng, tickers),
            "industry": profile.industry.label,
            "sector": profile.industry.key,
            "regime": profile.regime,
            "hq_city": hq["city"], "hq_state": hq["state"],
            "incorporation_state": inc["state"], "incorporation_year": str(inc["year"]),
            "employees": facts["employees"].f["count"].replace(",", ""),
        }))
        values[profile.entity_id] = {key: list(figs[key]) for key in columns}
        writer = Writer(text.templates, text.plan, derive(seed, "world", "text", index),
                        company_context(name, profile, facts, figs, periods), facts,
                        figure_set(figs, text.plan.figures, periods))
        chunks[profile.entity_id] = write_chunks(writer, profile.entity_id, periods[-1])
        industries[profile.industry.key] = industries.get(profile.industry.key, 0) + 1
        regimes[profile.regime] = regimes.get(profile.regime, 0) + 1
    check_identities(pack.identities, values)
    n_chunks = sum(len(v) for v in chunks.values())
    n_facts = sum(len(c.facts) for v in chunks.values() for c in v)
    try:
        faker_version = metadata.version("faker")
    except metadata.PackageNotFoundError:  # pragma: no cover - faker is a dependency
        faker_version = "unknown"
    return World(
        domain=pack.name, source="synthetic", entities=entities, periods=periods,
        columns=columns, values=values, chunks=chunks,
        provenance={
            "source": "synthetic", "generator": "hopvista.sources.synthetic", "seed": seed,
            "n_entities": n_entities, "first_period": first_period, "n_periods": n_periods,
            "periods": periods, "faker": faker_version,
            "sizes": {"entities": n_entities, "periods": n_periods, "columns": len(columns),
                      "chunks": n_chunks, "facts": n_facts,
                      "paragraphs_per_chunk": PARAGRAPHS_PER_CHUNK},
            "industries": dict(sorted(industries.items())),
            "regimes": dict(sorted(regimes.items())),
            "unresolved_clashes": dict(sorted(taken.clashes.items())),
        })
