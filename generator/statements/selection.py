"""What every selector produces: the entities it picks, its program node, cells and words.

A *selector* is one hop (or a fused pair of hops) that picks entities of an instance. The
generator builds selectors by construction (it knows whom they pick); the verifier in
``hopvista.verify`` re-executes their program nodes with code of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

import numpy as np

from hopvista.display import fmt, midpoint, trim
from hopvista.generation.instance import Instance

Node = dict[str, Any]
Cell = dict[str, Any]
Bounds = tuple[frozenset[str], frozenset[str]]


@dataclass(frozen=True)
class Selection:
    """A selector applied to an instance."""

    picked: frozenset[str]
    node: Node
    cells: tuple[Cell, ...]
    words: dict[str, str]
    modalities: frozenset[str]
    meta: dict[str, Any] = field(default_factory=dict)
    """Extra facts of a selection: ``fact`` (the Fact an FC hop reads); ``claim_first`` (a
    key: an entity claim on it is drawn before the label, among the (entity, key) pairs some
    selection makes true and another false: ``hopvista.statements.types._entity_first``)."""
    withheld: dict[str, Bounds] = field(default_factory=dict)
    """What the selector may pick when one modality is withheld, where the default (anything
    when it reads that modality, else ``picked``) is too coarse: modality → ``(must, may)``,
    the entities it picks in every / in some completion of that modality's data
    (:mod:`hopvista.statements.openness`)."""


def table_cells(instance: Instance, columns: list[str], years: list[int]) -> tuple[Cell, ...]:
    """Table cells of every entity for these columns and years (the same, unchanged, cell
    objects each time: selectors ask again and again)."""
    return _table_cells(instance.ids, tuple(columns), tuple(years))


@lru_cache(maxsize=256)
def _table_cells(ids: tuple[str, ...], columns: tuple[str, ...], years: tuple[int, ...]
                 ) -> tuple[Cell, ...]:
    return tuple({"modality": "table", "entity": e, "column": c, "year": y}
                 for e in ids for c in columns for y in years)


def chart_cells(instance: Instance, years: list[int]) -> tuple[Cell, ...]:
    """Chart points of every entity for these years."""
    column = instance.chart_column.key
    return tuple({"modality": "chart", "entity": e, "column": column, "year": y}
                 for e in instance.ids for y in years)


def text_cells(instance: Instance) -> tuple[Cell, ...]:
    """Every entity's text chunk (an FC hop reads all of them to rule out other owners)."""
    return tuple({"modality": "text", "entity": e, "chunk": instance.chunks[e].id}
                 for e in instance.ids)


def num(value: Decimal) -> str:
    """A program's number: exact decimal text without separators."""
    return format(value, "f")


@dataclass(frozen=True)
class Margins:
    """Absolute chart margins for one instance (fractions of its chart span)."""

    rank_gap: Decimal
    trend_step: Decimal

    @classmethod
    def of(cls, instance: Instance, min_rank_gap: float, min_trend_step: float) -> Margins:
        """Margins scaled to the instance's chart span."""
        span = instance.chart_span()
        return cls(rank_gap=span * Decimal(str(min_rank_gap)),
                   trend_step=span * Decimal(str(min_trend_step)))


#: Where in the gap between two neighbouring values :func:`cuts` may place a threshold, as
#: fractions of the gap: the midpoint and one point near each side. Any of them picks the
#: same entities, so the label never depends on it; what does is how a solver that imputes
#: the withheld values reads it. A threshold near a side lets an imputed value land on the
#: other side as often as on the same, so a proxy-agreement demand can be met
#: either way; offered in random order whatever the demand, so where a threshold sits in
#: its gap says nothing about the label or the demand.
GAP_POSITIONS = (Decimal("0.5"), Decimal("0.15"), Decimal("0.85"))


def cuts(values: dict[str, Decimal], cmp: str, sizes: range,
         rng: np.random.Generator | None = None) -> list[tuple[Decimal, frozenset[str]]]:
    """Thresholds between neighbouring values that leave ``size`` entities passing.

    For ``cmp='>'`` the passing entities are those with the largest values, for ``'<'`` the
    smallest. A cut exists only where the neighbours differ, so no value equals a threshold.
    Without ``rng`` a cut is the gap's midpoint; with it, each gap offers every distinct
    position of :data:`GAP_POSITIONS`, in random order.
    """
    ranked = sorted(values.items(), key=lambda kv: kv[1], reverse=(cmp == ">"))
    found = []
    for size in sizes:
        if not 0 < size < len(ranked):
            continue
        inside, outside = ranked[size - 1][1], ranked[size][1]
        if inside == outside:
            continue
        picked = frozenset(e for e, _ in ranked[:size])
        if rng is None:
            found.append((midpoint(inside, outside), picked))
            continue
        for threshold in _placed(inside, outside, rng):
            found.append((threshold, picked))
    return found


def _placed(a: Decimal, b: Decimal, rng: np.random.Generator) -> list[Decimal]:
    """Thresholds strictly between ``a`` and ``b`` at :data:`GAP_POSITIONS` (each with one
    decimal more than the finer of the two values, trailing zeros trimmed), distinct, in
    random order; the midpoint is exact."""
    low, high = min(a, b), max(a, b)
    exponents = [x.as_tuple().exponent for x in (low, high)]
    step = Decimal(1).scaleb(min(e for e in exponents if isinstance(e, int)) - 1)
    placed: list[Decimal] = []
    for fraction in GAP_POSITIONS:
        if fraction == Decimal("0.5"):
            point = midpoint(low, high)
        else:
            point = trim((low + (high - low) * fraction).quantize(step))
        if low < point < high and point not in placed:
            placed.append(point)
    return [placed[int(i)] for i in rng.permutation(len(placed))]


def all_years_condition(instance: Instance, op: str, column: str, cmp: str,
                        threshold: Decimal, picked: frozenset[str],
                        words: dict[str, dict[str, str]]) -> Selection:
    """The table hop of CT+TR / AR+TR: a condition on one column over every year shown."""
    years = list(instance.periods)
    return Selection(
        picked=picked,
        node={"op": op, "column": column, "cmp": cmp, "threshold": num(threshold)},
        cells=table_cells(instance, [column], years),
        words={"cond_column": instance.column(column).label, "cmp": words["cmp"][cmp],
               "threshold": fmt(threshold), "first": instance.show(years[0]),
               "last": instance.show(years[-1])},
        modalities=frozenset({"table"}))
