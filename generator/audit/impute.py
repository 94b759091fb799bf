"""Straight-line imputation of a withheld modality from the one that remains.

A no-chart solver predicts the chart column from the single table column that predicts it best
on the training items (``chart ≈ a + b·table``); a no-table solver predicts each table column
from the chart column (``table ≈ a + b·chart``). Imputed values are written back as displayed
strings with the column's precision, so the verifier's executor reads them like real inputs.
The imputers build the withheld part from scratch and never read its values.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hopvista.audit.data import AuditItem
from hopvista.verify.executor import parse_number

#: Fewest training points a straight line is fitted on.
MIN_POINTS = 10


@dataclass(frozen=True)
class LinearFit:
    """``y ≈ a + b·x`` with its in-sample R² (used to rank predictor columns) and size."""

    a: float
    b: float
    r2: float
    n: int

    def __call__(self, x: float) -> float:
        """The line's value at ``x``."""
        return self.a + self.b * x


def fit_line(xs: list[float], ys: list[float]) -> LinearFit | None:
    """Least-squares line through the points; ``None`` when there are too few."""
    if len(xs) < MIN_POINTS:
        return None
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    var_x = float(np.var(x))
    if var_x == 0.0:
        return LinearFit(float(np.mean(y)), 0.0, 0.0, len(xs))
    b = float(np.mean((x - x.mean()) * (y - y.mean())) / var_x)
    a = float(y.mean() - b * x.mean())
    total = float(np.var(y))
    residual = float(np.mean((y - (a + b * x)) ** 2))
    r2 = 1.0 - residual / total if total > 0 else 0.0
    return LinearFit(a, b, r2, len(xs))


def _table_values(item: dict[str, Any]) -> dict[tuple[str, str, int], float]:
    return {(row["entity"], key, int(row["year"])): float(parse_number(text))
            for row in item["inputs"]["table"]["rows"] for key, text in row["values"].items()}


def _chart_values(item: dict[str, Any]) -> dict[tuple[str, int], float]:
    chart = item["inputs"]["chart"]
    years = [int(y) for y in chart["years"]]
    return {(s["entity"], y): float(parse_number(v))
            for s in chart["series"] for y, v in zip(years, s["values"], strict=True)}


def _pairs(items: Iterable[AuditItem]) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """(chart column, table column) -> (table values, chart values) at the same cells."""
    found: dict[tuple[str, str], tuple[list[float], list[float]]] = defaultdict(
        lambda: ([], []))
    for item in items:
        chart_key = item.data["inputs"]["chart"]["column"]["key"]
        chart = _chart_values(item.data)
        for (entity, column, year), value in _table_values(item.data).items():
            if (entity, year) in chart:
                xs, ys = found[(chart_key, column)]
                xs.append(value)
                ys.append(chart[(entity, year)])
    return found


@dataclass(frozen=True)
class ChartModel:
    """Lines predicting each chart column from each table column (training items only)."""

    lines: dict[tuple[str, str], LinearFit]

    @classmethod
    def fit(cls, items: Iterable[AuditItem]) -> ChartModel:
        """Fit every (chart column, table column) pair seen in ``items``."""
        lines = {}
        for key, (xs, ys) in _pairs(items).items():
            line = fit_line(xs, ys)
            if line is not None:
                lines[key] = line
        return cls(lines)

    def impute(self, item: dict[str, Any]) -> dict[str, Any] | None:
        """A copy of ``item`` whose chart is predicted from its table (best single column);
        ``None`` when no line was learned for any of its table columns. The chart's values
        are not read: only its column, which the statements name anyway."""
        column = item["inputs"]["chart"]["column"]
        table = item["inputs"]["table"]
        candidates = [(self.lines[(column["key"], c["key"])], c["key"]) for c in table["columns"]
                      if (column["key"], c["key"]) in self.lines]
        if not candidates:
            return None
        line, predictor = max(candidates, key=lambda pair: (pair[0].r2, pair[1]))
        values = _table_values(item)
        years = sorted({int(row["year"]) for row in table["rows"]})
        series = []
        for entity in (e["id"] for e in item["entities"]):
            shown = [values.get((entity, predictor, y)) for y in years]
            if any(v is None for v in shown):
                return None
            series.append({"entity": entity,
                           "values": [_display(line(v), column["precision"])
                                      for v in shown if v is not None]})
        result = _with_inputs(item)
        result["inputs"]["chart"] = {"column": copy.deepcopy(column), "years": years,
                                     "series": series}
        return result


@dataclass(frozen=True)
class TableModel:
    """Lines predicting each table column from the chart column, with constant fallbacks."""

    lines: dict[tuple[str, str], LinearFit]
    means: dict[str, float]

    @classmethod
    def fit(cls, items: Iterable[AuditItem]) -> TableModel:
        """Fit every (table column, chart column) pair seen in ``items``."""
        items = list(items)
        lines = {}
        for (chart_key, table_key), (xs, ys) in _pairs(items).items():
            line = fit_line(ys, xs)
            if line is not None:
                lines[(table_key, chart_key)] = line
        sums: dict[str, list[float]] = defaultdict(list)
        for item in items:
            for (_, column, _), value in _table_values(item.data).items():
                sums[column].append(value)
        return cls(lines, {k: float(np.mean(v)) for k, v in sums.items()})

    def impute(self, item: dict[str, Any]) -> dict[str, Any]:
        """A copy of ``item`` whose table values are predicted from its chart. Only the
        table's headers (columns, entities, years) are read, never its values."""
        chart = _chart_values(item)
        chart_key = item["inputs"]["chart"]["column"]["key"]
        table = item["inputs"]["table"]
        rows = []
        for row in table["rows"]:
            entity, year = row["entity"], int(row["year"])
            values = {}
            for column in table["columns"]:
                key = column["key"]
                line = self.lines.get((key, chart_key))
                if line is not None and (entity, year) in chart:
                    guess = line(chart[(entity, year)])
                elif key in self.means:
                    guess = self.means[key]
                else:
                    continue
                values[key] = _display(guess, column["precision"])
            rows.append({"entity": entity, "year": year, "values": values})
        result = _with_inputs(item)
        result["inputs"]["table"] = {k: copy.deepcopy(v) for k, v in table.items() if k != "rows"}
        result["inputs"]["table"]["rows"] = rows
        return result


def _display(value: float, precision: int) -> str:
    """A predicted value as the executor reads a displayed one (no separators)."""
    text = f"{value:.{int(precision)}f}"
    return "0" if float(text) == 0 else text


def _with_inputs(item: dict[str, Any]) -> dict[str, Any]:
    """A shallow copy of ``item`` with its own ``inputs`` dict."""
    result = dict(item)
    result["inputs"] = dict(item["inputs"])
    return result
