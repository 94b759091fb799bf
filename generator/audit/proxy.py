"""Proxy readings: what a solver that lacks one modality answers, known while generating.

``gen audit`` (:mod:`hopvista.audit`) answers every statement without the chart by imputing
the chart column from the table column that predicts it best (a straight line), and without
the table by imputing each table column from the chart; it then runs the statements' own
programs on what it imputed. The generator learns the same lines on its whole world (every
entity and period) and reads each candidate statement through them with the audit's own
code. Whether that *proxy reading* agrees with the true label is an axis of the balance plan
(the defences against proxy solvers): agree and disagree are equal per statement type and
label, so a solver that imputes is at chance on the modality it lacks.

Each statement records its readings (``proxy``: the lines used and the label they give), so
``gen verify`` re-derives them from the item alone
(:func:`hopvista.program.withheld.recorded_reading`) and re-checks the balance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hopvista.audit.impute import ChartModel, TableModel, fit_line
from hopvista.program.executor import Context, Undecidable, select
from hopvista.program.lenient import judge, lenient_pick
from hopvista.program.statement_types import PROXIED, proxied  # noqa: F401 (re-exported)
from hopvista.program.withheld import LinearFit, context_of, without_chart, without_table
from hopvista.world import World


@dataclass(frozen=True)
class ProxyModels:
    """Lines between every pair of a world's columns, learned on all of its values."""

    chart: ChartModel
    table: TableModel

    @classmethod
    def of(cls, world: World) -> ProxyModels:
        """The world's proxy models (fitted once per world and cached on it)."""
        cached = world.cache.get("proxy-models")
        if isinstance(cached, ProxyModels):
            return cached
        models = cls._fit(world)
        world.cache["proxy-models"] = models
        return models

    @classmethod
    def _fit(cls, world: World) -> ProxyModels:
        keys = list(world.columns)
        columns = {k: _matrix(world, k) for k in keys}
        chart_lines: dict[tuple[str, str], LinearFit] = {}
        table_lines: dict[tuple[str, str], LinearFit] = {}
        for y_key in keys:
            if not world.columns[y_key].chartable:
                continue
            for x_key in keys:
                if x_key == y_key:
                    continue
                parts = _parts(columns[x_key], columns[y_key])
                chart_line = fit_line(parts)
                if chart_line is not None:
                    chart_lines[(y_key, x_key)] = rounded(chart_line)
                table_line = fit_line([p[[0, 2, 1, 5, 4, 3]] for p in parts])
                if table_line is not None:
                    table_lines[(x_key, y_key)] = rounded(table_line)
        means = {k: float(f"{float(np.nanmean(m)):.{LINE_DIGITS}g}")
                 for k, m in columns.items() if not np.all(np.isnan(m))}
        return cls(ChartModel(chart_lines), TableModel(table_lines, means))


#: Significant digits a fitted line keeps. Items record the lines, and the readings use the
#: recorded values, so the last bits of a float sum (which could differ between machines)
#: never reach a dataset's bytes.
LINE_DIGITS = 6


def rounded(line: LinearFit) -> LinearFit:
    """``line`` with its coefficients and R² rounded to :data:`LINE_DIGITS` digits."""
    def r(value: float) -> float:
        return float(f"{value:.{LINE_DIGITS}g}")
    return LinearFit(r(line.a), r(line.b), r(line.r2), line.n)


def _matrix(world: World, key: str) -> np.ndarray:
    """A column's values, one row per entity, NaN where missing."""
    return np.array([[float(v) if v is not None else np.nan
                      for v in world.values[e.id].get(key, [None] * len(world.periods))]
                     for e in world.entities], dtype=float).reshape(len(world.entities), -1)


def _parts(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """Per entity, the straight-line sums (:func:`~hopvista.audit.impute.sums`) of its
    (x, y) points where both are known; entities with none are left out."""
    known = ~(np.isnan(x) | np.isnan(y))
    xs, ys = np.where(known, x, 0.0), np.where(known, y, 0.0)
    table = np.stack([known.sum(axis=1), xs.sum(axis=1), ys.sum(axis=1), (xs * xs).sum(axis=1),
                      (xs * ys).sum(axis=1), (ys * ys).sum(axis=1)], axis=1).astype(float)
    return list(table[table[:, 0] > 0])


@dataclass(frozen=True)
class Reading:
    """One proxy's reading of a statement: the lines it used and the label they give
    (``None`` when the imputed inputs decide nothing; the audit then falls back on a prior)."""

    lines: dict[str, tuple[float, float]]
    label: bool | None

    def to_json(self) -> dict[str, Any]:
        """The public form (``proxy.<modality>`` of a statement)."""
        return {"lines": {k: [a, b] for k, (a, b) in sorted(self.lines.items())},
                "label": self.label}


class ProxyReader:
    """Proxy readings of the statements of one instance: its imputations are made once, and
    what a selector picks on each, and who states a fact, are remembered, since the claims
    tried on one selection differ only in what they claim."""

    def __init__(self, models: ProxyModels,
                 item: dict[str, Any] | Callable[[], dict[str, Any]],
                 relaxed: bool = False, predictors: int = 1) -> None:
        self._models = models
        self._item_or_maker = item
        """The item (``inputs`` and ``entities``), or what makes it when first read: most
        instance draws are given up before any statement is read."""
        self.relaxed = relaxed
        """Whether a reading that decides nothing meets any demand (otherwise none: the
        decided readings are what must balance)."""
        self.predictors = predictors
        """Through how many of the best shown table columns a demand on the no-chart reading
        holds (1: the best only). A solver that ranks the predictors otherwise (the audit
        learns its lines on the dataset) then reads the statement the same way. The best
        one's reading is recorded."""
        self._contexts: dict[str, list[Context | None]] = {}
        self._lines: dict[str, dict[str, tuple[float, float]]] = {}
        self._picks: dict[tuple[str, int, str], frozenset[str] | None] = {}
        self._owners: dict[str, frozenset[str]] = {}
        self._others: list[str] | None = None
        self._other_contexts: dict[int, Context | None] = {}
        self._hidden: dict[str, Any] | None = None

    @property
    def _item(self) -> dict[str, Any]:
        if callable(self._item_or_maker):
            self._item_or_maker = self._item_or_maker()
        return self._item_or_maker

    def _imputed(self, modality: str) -> list[Context | None]:
        """The imputed contexts of ``modality`` (none, or one)."""
        if modality not in self._contexts:
            self._contexts[modality], self._lines[modality] = impute(
                self._models, self._item, modality)
        return self._contexts[modality]

    def _label(self, modality: str, index: int, program: dict[str, Any]) -> bool | None:
        ctx = self._imputed(modality)[0] if index == 0 else self._other(index)
        if ctx is None:
            return None
        key = (modality, index, repr(program["select"]))
        if key not in self._picks:
            try:
                self._picks[key] = lenient_pick(program["select"], ctx)
            except (Undecidable, KeyError, TypeError, ValueError, IndexError, ArithmeticError):
                self._picks[key] = None
        picked = self._picks[key]
        if picked is None:
            return None

        def owners_of(node: dict[str, Any]) -> frozenset[str]:
            needle = repr(node)
            if needle not in self._owners:
                self._owners[needle] = select(node, ctx)  # texts are never imputed
            return self._owners[needle]
        try:
            return judge(picked, program.get("claim") or {}, owners_of)
        except Undecidable:
            return None

    def read(self, modality: str, program: dict[str, Any]) -> Reading:
        """The label the best ``modality``-less proxy gives ``program`` (the chart imputed
        from the table column whose line predicts it best; the table from the chart)."""
        label = self._label(modality, 0, program) if self._imputed(modality) else None
        return Reading(self._lines[modality], label)

    def _other(self, index: int) -> Context | None:
        """The chart imputed from the ``index``-th best shown table column (1: the second)."""
        if index not in self._other_contexts:
            if self._hidden is None:
                self._hidden = without_chart(self._item)
            hidden = self._hidden
            predictor = self._predictors()[index]
            self._other_contexts[index] = context_of(self._models.chart.impute(hidden, predictor))
        return self._other_contexts[index]

    def _predictors(self) -> list[str]:
        if self._others is None:
            self._others = self._models.chart.predictors(self._item)
        return self._others

    def check(self, modality: str, program: dict[str, Any], truth: bool,
              want: bool | None) -> Reading | None:
        """:meth:`read`, or ``None`` when the reading does not meet the demand ``want``
        (agree with ``truth`` or not; a reading that decides nothing meets it only when the
        reader is relaxed). The no-chart demand holds for the readings through each of the
        :attr:`predictors` best shown table columns (the best one's is recorded)."""
        reading = self.read(modality, program)
        if want is None:
            return reading

        def meets(label: bool | None) -> bool:
            return (label == truth) == want if label is not None else self.relaxed
        if not meets(reading.label):
            return None
        if self.predictors > 1 and modality == "chart" and self._imputed(modality):
            for index in range(1, min(len(self._predictors()), self.predictors)):
                if not meets(self._label(modality, index, program)):
                    return None
        return reading


def impute(models: ProxyModels, item: dict[str, Any], modality: str
           ) -> tuple[list[Context | None], dict[str, tuple[float, float]]]:
    """The item with ``modality`` imputed by ``models`` as executor contexts with zero chart
    margins (an imputed value is a guess anyway), and the lines used: for the chart, from
    the table column whose line predicts it best; for the table, a line per column."""
    chart_key = item["inputs"]["chart"]["column"]["key"]
    if modality == "chart":
        hidden = without_chart(item)
        predictors = models.chart.predictors(hidden)[:1]
        return ([context_of(models.chart.impute(hidden, p)) for p in predictors],
                {p: _pair(models.chart.lines[(chart_key, p)]) for p in predictors})
    if modality == "table":
        hidden = without_table(item)
        lines = {}
        for column in item["inputs"]["table"]["columns"]:
            key = column["key"]
            if (key, chart_key) in models.table.lines:
                lines[key] = _pair(models.table.lines[(key, chart_key)])
            elif key in models.table.means:
                # too few points for a line (a small world): the column's mean stands in,
                # recorded as the flat line it is, so the reading can be taken again
                lines[key] = (models.table.means[key], 0.0)
        return [context_of(models.table.impute(hidden))], lines
    raise ValueError(f"no proxy stands in for {modality!r}")


def _pair(line: LinearFit) -> tuple[float, float]:
    return (line.a, line.b)
