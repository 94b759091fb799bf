"""Straight-line imputation of a withheld modality from the one that remains.

A no-chart solver predicts the chart column from the single table column that predicts it best
on the training items (``chart ≈ a + b·table``); a no-table solver predicts each table column
from the chart column (``table ≈ a + b·chart``). Imputed values are written back as displayed
strings with the column's precision, so the verifier's executor reads them like real inputs.
The imputers build the withheld part from scratch and never read its values.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hopvista.audit.data import AuditItem
from hopvista.program.withheld import (
    LinearFit,
    chart_from_table,
    chart_values,
    table_from_chart,
    table_values,
)

#: Fewest training points a straight line is fitted on.
MIN_POINTS = 10


#: Inner folds (over training items) that score each candidate predictor column.
INNER_FOLDS = 5


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
    return table_values(item.data)


def _item_pairs(item: AuditItem) -> list[tuple[tuple[str, str], np.ndarray]]:
    """One item's part of :func:`_pairs`, in its order."""
    chart_key = item.data["inputs"]["chart"]["column"]["key"]
    columns: dict[str, dict[tuple[str, int], float]] = defaultdict(dict)
    for (entity, column, year), value in _remembered(item, "table", _item_table).items():
        columns[column][(entity, year)] = value
    columns[chart_key] = dict(chart_values(item.data))
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
        chart_key = item["inputs"]["chart"]["column"]["key"]
        predictor = predictor or self.predictor(item)
        if predictor is None or (chart_key, predictor) not in self.lines:
            return None
        return chart_from_table(item, predictor, self.lines[(chart_key, predictor)])


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
        chart_key = item["inputs"]["chart"]["column"]["key"]
        lines = {c["key"]: self.lines[(c["key"], chart_key)]
                 for c in item["inputs"]["table"]["columns"] if (c["key"], chart_key) in self.lines}
        return table_from_chart(item, lines, self.means)
