"""Instances: k entities, n periods, a table of some columns, one chart column, one chunk each.

The chart column is removed from the table and chosen so that the domain's identities cannot
derive it from the table's columns; no entity's chunk states its values. Values are stored as
*displayed* (rounded to the column's precision): every label is computed from them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

import numpy as np

from hopvista.display import fmt, shown
from hopvista.domain import DomainPack
from hopvista.program.derivation import derivation
from hopvista.program.executor import mentions
from hopvista.program.identities import Identity, derivable_closure
from hopvista.program.ratios import product_relation
from hopvista.program.stated_numbers import stated_values
from hopvista.reading import as_read
from hopvista.world import Chunk, Column, Entity, Fact, SharedFact, World


@dataclass(frozen=True)
class Instance:
    """What one item shows: the displayed table, chart and text about a few entities."""

    entities: tuple[Entity, ...]
    periods: tuple[int, ...]
    table_columns: tuple[Column, ...]
    chart_column: Column
    table: dict[str, dict[str, tuple[Decimal, ...]]]
    chart: dict[str, tuple[Decimal, ...]]
    chunks: dict[str, Chunk]
    facts: dict[str, tuple[Fact, ...]]
    shared: tuple[SharedFact, ...] = ()
    """Facts that two or more of the entities' chunks state alike (:func:`shared_facts`)."""
    entity_label: str = "Entity"
    period_label: str | None = "Year"
    """``None`` for a domain without a period axis (its one period is never shown)."""
    period_format: str = "{}"

    @property
    def ids(self) -> tuple[str, ...]:
        """Entity ids in display order."""
        return tuple(e.id for e in self.entities)

    def name(self, entity_id: str) -> str:
        """Display name of an entity of the instance."""
        return next(e.name for e in self.entities if e.id == entity_id)

    def show(self, period: int) -> str:
        """A period as tables, charts and statements write it ("2023", "300 K")."""
        return self.period_format.replace("{}", str(period))

    def value(self, entity_id: str, column: str, year: int) -> Decimal:
        """A displayed table value."""
        return self.table[entity_id][column][self.periods.index(year)]

    def chart_value(self, entity_id: str, year: int) -> Decimal:
        """A displayed chart value."""
        return self.chart[entity_id][self.periods.index(year)]

    def column(self, key: str) -> Column:
        """A table or chart column by key."""
        for column in (*self.table_columns, self.chart_column):
            if column.key == key:
                return column
        raise KeyError(key)

    def chart_span(self) -> Decimal:
        """The chart's value span, zero included: the conservative axis range of any chart."""
        values = [v for series in self.chart.values() for v in series]
        return max(max(values), Decimal(0)) - min(min(values), Decimal(0))

    def to_inputs(self) -> dict[str, Any]:
        """The public ``inputs`` object of an item (text chunks, table JSON, chart spec)."""

        def col(c: Column) -> dict[str, Any]:
            return {"key": c.key, "label": c.label, "unit": c.unit, "precision": c.precision}

        return {
            "text": [
                {"entity": e, "chunk": ch.id, "section": ch.section, "period": ch.period,
                 "text": ch.text}
                for e, ch in self.chunks.items()
            ],
            "table": {
                "entity_label": self.entity_label,
                "period_label": self.period_label,
                "period_format": self.period_format,
                "columns": [col(c) for c in self.table_columns],
                "rows": [
                    {"entity": e, "year": y,
                     "values": {c.key: fmt(self.value(e, c.key, y), c.precision)
                                for c in self.table_columns}}
                    for e in self.ids for y in self.periods
                ],
            },
            "chart": {
                "period_label": self.period_label,
                "period_format": self.period_format,
                "column": col(self.chart_column),
                "years": list(self.periods),
                "series": [
                    {"entity": e,
                     "values": [fmt(v, self.chart_column.precision) for v in self.chart[e]]}
                    for e in self.ids
                ],
            },
        }


@functools.lru_cache(maxsize=8192)
def _as_read(text: str) -> str:
    """``text`` as ``gen verify`` reads it (:func:`hopvista.reading.as_read`), remembered."""
    return as_read(text)


@functools.lru_cache(maxsize=1 << 16)
def needle_occurs(needle: str, text: str) -> bool:
    """Whether ``needle`` occurs in ``text`` as whole words, as ``gen verify`` reads both
    (case, spacing, invisible characters, thousands separators, small numbers in words or
    digits: :func:`hopvista.program.executor.mentions`), so that a fact the build finds in one
    chunk only, verify finds there only too (remembered: instance draws ask it of the same
    chunks again and again)."""
    return mentions(text, needle)


def usable_facts(chunks: dict[str, Chunk]) -> dict[str, tuple[Fact, ...]]:
    """Facts each entity's chunk states and no other entity's chunk supports."""
    usable: dict[str, tuple[Fact, ...]] = {}
    for entity, chunk in chunks.items():
        others = [c for e, c in chunks.items() if e != entity]
        other_keys = {f.key for c in others for f in c.facts}
        usable[entity] = tuple(
            f for f in chunk.facts
            if f.key not in other_keys
            and needle_occurs(f.needle, chunk.text)
            and not any(needle_occurs(f.needle, c.text) for c in others)
        )
    return usable


def shared_facts(chunks: dict[str, Chunk]) -> tuple[SharedFact, ...]:
    """Facts stated alike by the chunks of two or more entities: the same ``key``, with a
    needle that occurs in exactly those chunks' texts (a needle that some other text also
    contains, or that one of the stating texts words differently, is left out). In the
    chunks' order, by key."""
    stating: dict[str, list[Fact]] = {}
    for chunk in chunks.values():
        for fact in chunk.facts:
            stating.setdefault(fact.key, []).append(fact)
    shared = []
    for key, facts in stating.items():
        owners = frozenset(f.entity for f in facts)
        if len(owners) < 2:
            continue
        needle = facts[0].needle
        found = frozenset(e for e, c in chunks.items() if needle_occurs(needle, c.text))
        if found == owners:
            shared.append(SharedFact(key, needle, facts[0].claim, owners))
    return tuple(shared)


def world_shared_keys(world: World) -> frozenset[str]:
    """Fact keys that the chunks of two or more of the world's entities state (cached)."""
    cached = world.cache.get("shared-keys")
    if isinstance(cached, frozenset):
        return cached
    owners: dict[str, set[str]] = {}
    for entity, chunks in world.chunks.items():
        for chunk in chunks:
            for fact in chunk.facts:
                owners.setdefault(fact.key, set()).add(entity)
    keys = frozenset(k for k, v in owners.items() if len(v) >= 2)
    world.cache["shared-keys"] = keys
    return keys


def _pick(rng: np.random.Generator, items: list[Any], k: int) -> list[Any]:
    idx = rng.choice(len(items), size=k, replace=False)
    return [items[int(i)] for i in idx]


def _steps(world: World, entities: list[Entity], years: tuple[int, ...], key: str
           ) -> np.ndarray:
    """The signs of the year-to-year changes of column ``key``, one row per entity (each
    row worked out once per world)."""
    rows = cast("dict[tuple[str, str], np.ndarray]",
                world.cache.setdefault(("step-signs", years), {}))
    for e in entities:
        if (e.id, key) not in rows:
            values = np.array([float(world.value(e.id, key, y) or 0) for y in years])
            rows[(e.id, key)] = np.sign(np.diff(values))
    return np.array([rows[(e.id, key)] for e in entities])


@dataclass(frozen=True)
class Divergence:
    """How an instance drawn under proxy-agreement demands orders its table's columns
    (:func:`_divergent_first`): those whose trends say least about the chart's first."""

    jitter: float
    """Width of the uniform jitter added to each column's score: how far a column whose
    trends match the chart's may still come before one that says less about them."""
    slopes: Mapping[tuple[str, str], float]
    """The slope of the world's straight line from column ``x`` to chart column ``y``, by
    ``(y, x)``; a pair without a line counts as rising."""


def _divergent_first(world: World, entities: list[Entity], years: tuple[int, ...],
                     chart_key: str, columns: list[Column], rng: np.random.Generator,
                     divergence: Divergence) -> list[Column]:
    """``columns`` ordered by how far the trends that a straight line from each reads into
    the chart column are from telling the chart's own, for the instance's entities: the
    share of year-to-year moves whose direction, turned by the sign of the world's line,
    matches the chart column's, taken as its distance from one half, plus a uniform jitter
    (:class:`Divergence`). The table then shows columns whose trends say little about the
    chart's, so a solver that imputes the chart from one of them reads its trends at about
    chance."""
    if not columns or len(years) < 2:
        return columns  # without periods there are no trends to tell
    chart = _steps(world, entities, years, chart_key)
    turns = np.array([-1.0 if (slope := divergence.slopes.get((chart_key, c.key))) is not None
                      and slope < 0 else 1.0 for c in columns])
    steps = np.stack([_steps(world, entities, years, c.key) for c in columns])
    same = (turns[:, None, None] * steps == chart).mean(axis=(1, 2))
    # one uniform draw per column, in order (a vector draw takes the same numbers)
    keys = np.abs(same - 0.5) + rng.uniform(0.0, divergence.jitter, size=len(columns))
    return [columns[int(k)] for k in np.argsort(keys, kind="stable")]


def _complete_columns(world: World, years: tuple[int, ...]) -> dict[str, frozenset[str]]:
    """Per entity, the keys of the columns it has a value for in every one of ``years``
    (worked out once per world)."""
    key = ("complete-columns", years)
    cached = world.cache.get(key)
    if cached is None:
        cached = world.cache[key] = {
            e.id: frozenset(k for k in world.columns
                            if all(world.value(e.id, k, y) is not None for y in years))
            for e in world.entities}
    return cast("dict[str, frozenset[str]]", cached)


def _displayed(world: World, years: tuple[int, ...], entity_id: str, column: Column
               ) -> tuple[Decimal, ...]:
    """An entity's values of ``column`` in ``years`` as displayed (remembered per world)."""
    rows = cast("dict[tuple[str, str], tuple[Decimal, ...]]",
                world.cache.setdefault(("displayed", years), {}))
    found = rows.get((entity_id, column.key))
    if found is None:
        found = rows[(entity_id, column.key)] = tuple(
            shown(world.value(entity_id, column.key, y) or Decimal(0), column.precision)
            for y in years)
    return found


def _with_facts(world: World) -> list[Entity]:
    """The entities with a chunk that states a fact (worked out once per world)."""
    cached = world.cache.get("with-facts")
    if cached is None:
        cached = world.cache["with-facts"] = [
            e for e in world.entities if any(c.facts for c in world.chunks.get(e.id, ()))]
    return cast("list[Entity]", cached)


def _peers(world: World, pack: DomainPack, rng: np.random.Generator, k: int,
           text: bool = False) -> list[Entity]:
    """k entities to show: any k, or an anchor and peers of a similar scale where the pack
    names a peer column; with ``text``, only entities whose texts state a fact (where at
    least k do; otherwise the draw is given up by its chunks)."""
    spec = pack.spec.instance
    entities = world.entities
    if text and pack.spec.documents:
        with_facts = _with_facts(world)
        if len(with_facts) >= k:
            entities = with_facts
    if spec.peer_column is None:
        return _pick(rng, entities, k)
    last = world.periods[-1]

    def scale(e: Entity) -> float:
        value = world.value(e.id, spec.peer_column or "", last)
        return abs(float(value)) if value is not None else 0.0

    anchor = entities[int(rng.integers(len(entities)))]
    base = scale(anchor)
    peers = [e for e in entities if e.id != anchor.id
             and base / spec.peer_ratio <= scale(e) <= base * spec.peer_ratio]
    if len(peers) < k - 1:
        return _pick(rng, entities, k)
    return [anchor, *_pick(rng, peers, k - 1)]


TREND_STEP = 0.05  # of an entity's own scale: steps a guided trend draw takes as clear
TREND_PEER_RATIO = 1.5  # scales within this ratio keep each trend visible on a shared axis


def _trend_table(world: World, years: tuple[int, ...]) -> dict[tuple[str, int], list[Any]]:
    """Per (column, direction ±1): entities whose series clearly move that way every year, and
    entities with a clear step against it, each with its scale. Cached on the world."""
    key = ("trend-table", years)
    cached = world.cache.get(key)
    if cached is None:
        table: dict[tuple[str, int], list[Any]] = {}
        for column in world.columns.values():
            for entity in world.entities:
                series = [world.value(entity.id, column.key, y) for y in years]
                if any(v is None for v in series):
                    continue
                values = [float(v) for v in series if v is not None]
                scale = max(abs(v) for v in values) or 1.0
                steps = [(b - a) / scale for a, b in zip(values, values[1:], strict=False)]
                for sign in (1, -1):
                    if all(sign * step >= TREND_STEP for step in steps):
                        table.setdefault((column.key, sign), []).append(("with", entity, scale))
                    elif any(sign * step <= -TREND_STEP for step in steps):
                        table.setdefault((column.key, sign), []).append(("against", entity, scale))
        world.cache[key] = cached = table
    return cached  # type: ignore[return-value]


def _trend_peers(world: World, years: tuple[int, ...], rng: np.random.Generator,
                 k: int) -> tuple[str, list[Entity]] | None:
    """A chart column and k entities of similar scale, two moving clearly the same way every
    year and the rest clearly not: the draw that makes all-year trend hops possible."""
    table = _trend_table(world, years)
    keys = sorted(table)
    for index in rng.permutation(len(keys)):
        column, sign = keys[int(index)]
        rows = table[(column, sign)]
        moving = [r for r in rows if r[0] == "with"]
        if len(moving) < 2 or not world.columns[column].chartable:
            continue
        first = moving[int(rng.integers(len(moving)))]
        near = [r for r in rows if r[1].id != first[1].id
                and first[2] / TREND_PEER_RATIO <= r[2] <= first[2] * TREND_PEER_RATIO]
        partners = [r for r in near if r[0] == "with"]
        others = [r for r in near if r[0] == "against"]
        if not partners or len(others) < k - 2:
            continue
        second = partners[int(rng.integers(len(partners)))]
        rest = _pick(rng, others, k - 2)
        return column, [first[1], second[1], *(r[1] for r in rest)]
    return None


#: The fewest table columns an instance shows where missing values leave fewer than the
#: pack asks for (two: AR+RK's condition reads two).
MIN_TABLE_COLUMNS = 2


def _table_columns(candidates: list[Column], chart: Column, identities: list[Identity],
                   count: int, determines: Callable[[list[Column]], bool] | None = None,
                   least: int | None = None) -> list[Column] | None:
    """The first ``count`` of ``candidates``, in order, leaving out each that would let the
    pack's identities derive the ``chart`` column from those before it (and, with
    ``determines``, each that would let the data shown do so); ``None`` when fewer than
    ``least`` (default ``count``) remain."""
    chosen: list[Column] = []
    for column in candidates:
        trial = [*chosen, column]
        if chart.key in derivable_closure({c.key for c in trial}, identities):
            continue
        if determines is not None and determines(trial):
            continue
        chosen.append(column)
        if len(chosen) == count:
            return chosen
    return chosen if len(chosen) >= (count if least is None else least) else None


def sample_instance(world: World, pack: DomainPack, rng: np.random.Generator,
                    trend_pair: bool = False, shared: bool = False,
                    divergence: Divergence | None = None, text: bool = True
                    ) -> Instance | None:
    """Draw one instance, or ``None`` when this draw cannot satisfy the rules.

    With ``trend_pair``, the draw is guided towards instances where two entities trend the
    same way on the chart every year (what CT+TR and AR+TR hops need); every rule is still
    checked afterwards exactly as for an unguided draw. With ``shared``, each entity's chunk
    is drawn among those stating a fact that another entity of the world states too, where
    it has any (what the fact claims of FC+CT+TR and FC+AR+TR need: :func:`shared_facts`).
    With ``divergence`` (:class:`Divergence`; ``None`` draws the table's columns uniformly),
    the table shows the columns whose trends say least about the chart column's first: an
    item built under proxy-agreement demands can then meet "disagree" as often as "agree".
    With ``text`` (an item with a statement that reads the text), every entity's
    chunk must state a fact; without it, a chunk with facts is still preferred, then any
    chunk that does not state the chart, and an entity with no such chunk shows no text: the
    texts never block the table and chart statements.
    """
    spec = pack.spec.instance
    periods = pack.instance_periods
    years = tuple(world.periods[-periods:])
    if len(years) < periods:
        return None
    forced_chart: str | None = None
    if trend_pair:
        guided = _trend_peers(world, years, rng, spec.entities)
        if guided is None:
            return None
        forced_chart, entities = guided
        entities = [entities[int(i)] for i in rng.permutation(len(entities))]
    else:
        entities = _peers(world, pack, rng, spec.entities, text)

    known = _complete_columns(world, years)
    columns = [c for c in world.columns.values() if all(c.key in known[e.id] for e in entities)]
    chartable = [c for c in columns if c.chartable]
    if not chartable:
        return None
    if forced_chart is not None:
        chart_column = world.columns[forced_chart]
    else:
        chart_column = chartable[int(rng.integers(len(chartable)))]
    identities = list(pack.identities)
    related = pack.related_to(chart_column.key)
    candidates = _pick(rng, [c for c in columns if c.key != chart_column.key], len(columns) - 1)
    if divergence is not None:
        candidates = _divergent_first(world, entities, years, chart_column.key, candidates,
                                      rng, divergence)
    candidates = [c for c in candidates if c.key not in related]
    # Where the entities lack values of some columns, the table shows the others, fewer
    # than the pack asks for if need be: a missing cell never keeps an entity out of items.
    least = spec.table_columns if len(columns) == len(world.columns) else \
        min(spec.table_columns, MIN_TABLE_COLUMNS)
    table_columns = _table_columns(candidates, chart_column, identities, spec.table_columns,
                                   least=least)
    if table_columns is None:
        return None

    def displayed(entity_id: str, column: Column) -> tuple[Decimal, ...]:
        return _displayed(world, years, entity_id, column)

    chart = {e.id: displayed(e.id, chart_column) for e in entities}
    if len({v for series in chart.values() for v in series}) < 2:
        return None  # a flat chart shows nothing to read
    target = [v for e in entities for v in chart[e.id]]
    groups = [e.id for e in entities for _ in years]

    def determines(shown: list[Column]) -> bool:
        """Whether the data shown of ``shown`` give the chart by a linear relation, or by a
        product or ratio of one or two of them."""
        series = {c.key: [v for e in entities for v in displayed(e.id, c)] for c in shown}
        places = {c.key: c.precision for c in shown}
        return derivation(target, series, chart_column.precision, places, groups) is not None \
            or product_relation(target, series, chart_column.precision, places,
                                groups) is not None

    if determines(table_columns):
        # The data link the chart to these columns: choose them again, one at a time,
        # leaving out each that would complete such a link.
        table_columns = _table_columns(candidates, chart_column, identities,
                                       spec.table_columns, determines, least)
        if table_columns is None:
            return None
    order = {c.key: i for i, c in enumerate(world.columns.values())}
    table_columns.sort(key=lambda c: order[c.key])
    table = {e.id: {c.key: displayed(e.id, c) for c in table_columns} for e in entities}
    chunks: dict[str, Chunk] = {}
    shared_keys = world_shared_keys(world) if shared else frozenset()

    def clear(chunk: Chunk) -> bool:
        """Whether ``chunk`` states neither the chart column nor any value it shows."""
        return chart_column.key not in chunk.columns_stated \
            and not stated_values(_as_read(chunk.text), target, chart_column.precision)

    for entity in entities if pack.spec.documents else ():
        own = world.chunks.get(entity.id, [])
        candidates = [ch for ch in own if ch.facts and clear(ch)]
        if not candidates:
            if text:
                return None
            candidates = [ch for ch in own if clear(ch)]
            if not candidates:
                continue
        if shared:
            candidates = [ch for ch in candidates
                          if any(f.key in shared_keys for f in ch.facts)] or candidates
        chunks[entity.id] = candidates[int(rng.integers(len(candidates)))]

    return Instance(
        entities=tuple(entities),
        periods=years,
        table_columns=tuple(table_columns),
        chart_column=chart_column,
        table=table,
        chart=chart,
        chunks=chunks,
        facts=usable_facts(chunks),
        shared=shared_facts(chunks),
        entity_label=pack.spec.entity.label,
        period_label=pack.period_label,
        period_format=pack.spec.period.format if pack.spec.period is not None else "{}",
    )
