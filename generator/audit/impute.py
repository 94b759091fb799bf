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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hopvista.audit.data import AuditItem
from hopvista.program.executor import parse_number

#: Fewest training points a straight line is fitted on.
MIN_POINTS = 10


#: Inner folds (over training items) that score each candidate predictor column.
INNER_FOLDS = 5


@dataclass(frozen=True)
class LinearFit:
    """``y ≈ a + b·x``, its cross-validated R² (used to rank predictor columns) and size."""

    a: float
    b: float
    r2: float
    n: int

    def __call__(self, x: float) -> float:
        """The line's value at ``x``."""
        return self.a + self.b * x


def sums(xs: list[float], ys: list[float]) -> np.ndarray:
    """Sufficient statistics of a straight-line fit: n, Σx, Σy, Σx², Σxy, Σy²."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    return np.array([len(x), x.sum(), y.sum(), (x * x).sum(), (x * y).sum(), (y * y).sum()])


def _line(total: np.ndarray) -> tuple[float, float]:
    n, sx, sy, sxx, sxy, _ = total
    var = sxx - sx * sx / n
    if var <= 0:
        return float(sy / n), 0.0
    b = (sxy - sx * sy / n) / var
    return float((sy - b * sx) / n), float(b)


def _squared_errors(parts: np.ndarray, a: float, b: float) -> np.ndarray:
    """Each part's squared error about the line ``a + b·x`` (one row of sums a part)."""
    n, sx, sy, sxx, sxy, syy = parts.T
    errors: np.ndarray = syy - 2 * a * sy - 2 * b * sxy + a * a * n + 2 * a * b * sx \
        + b * b * sxx
    return errors


def fit_line(parts: list[np.ndarray]) -> LinearFit | None:
    """Least-squares line through the points of every part (one part per training item),
    scored by its R² on held-out parts (``INNER_FOLDS`` folds over the parts); ``None``
    when there are too few points."""
    stacked = np.array(parts, dtype=float).reshape(-1, 6)
    total = np.sum(stacked, axis=0)
    n = int(total[0])
    if n < MIN_POINTS:
        return None
    a, b = _line(total)
    spread = float(total[5] - total[2] ** 2 / n)
    held_out = 0.0
    for k in range(INNER_FOLDS):
        test = stacked[k::INNER_FOLDS]
        if not len(test):
            continue
        rest = total - np.sum(test, axis=0)
        if rest[0] < 2:
            held_out = float("inf")
            break
        ka, kb = _line(rest)
        held_out += sum(_squared_errors(test, ka, kb).tolist())
    r2 = 1.0 - held_out / spread if spread > 0 else 0.0
    return LinearFit(a, b, r2, n)


def _table_values(item: dict[str, Any]) -> dict[tuple[str, str, int], float]:
    return {(row["entity"], key, int(row["year"])): float(parse_number(text))
            for row in item["inputs"]["table"]["rows"] for key, text in row["values"].items()}


def _chart_values(item: dict[str, Any]) -> dict[tuple[str, int], float]:
    chart = item["inputs"]["chart"]
    years = [int(y) for y in chart["years"]]
    return {(s["entity"], y): float(parse_number(v))
            for s in chart["series"] for y, v in zip(years, s["values"], strict=True)}


def _pairs(items: Iterable[AuditItem]) -> dict[tuple[str, str], list[np.ndarray]]:
    """(target column, predictor column) -> per item, the :func:`sums` of (predictor value,
    target value) at the same cells, for every ordered pair of the columns an item shows in
    its table or chart: how two columns relate is learned wherever both are shown, not only
    where one of them is the chart."""
    found: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for item in items:
        for key, part in _remembered(item, "pairs", _item_pairs):
            found[key].append(part)
    return found


def _remembered(item: AuditItem, key: str, work: Callable[[AuditItem], Any]) -> Any:
    """``work(item)``, worked out once per item (it reads only ``item.data``, which never
    changes, and every fold the item trains asks for it again)."""
    if key not in item.memo:
        item.memo[key] = work(item)
    return item.memo[key]


def _item_table(item: AuditItem) -> dict[tuple[str, str, int], float]:
    return _table_values(item.data)


def _item_pairs(item: AuditItem) -> list[tuple[tuple[str, str], np.ndarray]]:
    """One item's part of :func:`_pairs`, in its order."""
    chart_key = item.data["inputs"]["chart"]["column"]["key"]
    columns: dict[str, dict[tuple[str, int], float]] = defaultdict(dict)
    for (entity, column, year), value in _remembered(item, "table", _item_table).items():
        columns[column][(entity, year)] = value
    columns[chart_key] = dict(_chart_values(item.data))
    found = []
    for target, ys in columns.items():
        for predictor, xs in columns.items():
            if predictor == target:
                continue
            cells = [cell for cell in xs if cell in ys]
            found.append(((target, predictor),
                          sums([xs[c] for c in cells], [ys[c] for c in cells])))
    return found


def fit_lines(items: Iterable[AuditItem]) -> dict[tuple[str, str], LinearFit]:
    """(target column, predictor column) -> its line, for every pair of columns shown together
    in ``items`` with enough points (:func:`fit_line`)."""
    lines = {}
    for key, parts in _pairs(items).items():
        line = fit_line(parts)
        if line is not None:
            lines[key] = line
    return lines


@dataclass(frozen=True)
class ChartModel:
    """Lines predicting each chart column from each table column (training items only)."""

    lines: dict[tuple[str, str], LinearFit]

    @classmethod
    def fit(cls, items: Iterable[AuditItem]) -> ChartModel:
        """Lines between every pair of columns shown together in ``items``."""
        return cls(fit_lines(items))

    def predictors(self, item: dict[str, Any]) -> list[str]:
        """The table columns of ``item`` with a line to its chart column, best first
        (highest held-out R², then key)."""
        chart_key = item["inputs"]["chart"]["column"]["key"]
        candidates = [(self.lines[(chart_key, c["key"])].r2, c["key"])
                      for c in item["inputs"]["table"]["columns"]
                      if (chart_key, c["key"]) in self.lines]
        return [key for _, key in sorted(candidates, reverse=True)]

    def predictor(self, item: dict[str, Any]) -> str | None:
        """The table column of ``item`` whose line predicts its chart column best; ``None``
        when no line was learned for any of them."""
        ranked = self.predictors(item)
        return ranked[0] if ranked else None

    def impute(self, item: dict[str, Any], predictor: str | None = None
               ) -> dict[str, Any] | None:
        """A copy of ``item`` whose chart is predicted from one table column (``predictor``,
        by default the best); ``None`` when no line was learned for it. The chart's values
        are not read: only its column, which the statements name anyway."""
        column = item["inputs"]["chart"]["column"]
        table = item["inputs"]["table"]
        predictor = predictor or self.predictor(item)
        if predictor is None or (column["key"], predictor) not in self.lines:
            return None
        line = self.lines[(column["key"], predictor)]
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
        """Lines between every pair of columns shown together in ``items``, and each table
        column's mean."""
        items = list(items)
        lines = fit_lines(items)
        sums: dict[str, list[float]] = defaultdict(list)
        for item in items:
            for (_, column, _), value in _remembered(item, "table", _item_table).items():
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
