"""An item with one modality withheld, and what a proxy solver reads in its place.

A solver without the chart predicts it from one table column along a straight line
(``chart ≈ a + b·table``); one without the table predicts each table column from the chart
(``table ≈ a + b·chart``). The predicted values are written back as displayed strings with
the column's precision, so the executor reads them as it reads real inputs, and the withheld
part is built from scratch, never from its values. The audit learns the lines
(:mod:`hopvista.audit.impute`); the build records, per statement, the lines it read through
(``proxy``), and ``gen verify`` reads the statement again through them with
:func:`read_through`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hopvista.program.context import Context, Undecidable
from hopvista.program.executor import parse_number, select
from hopvista.program.lenient import judge, lenient_pick


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


def without_chart(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with its chart values replaced by zeros (shape and column kept). A new
    item: what it shares with ``item`` (everything but the chart's series) is not copied,
    so it is read, never changed."""
    chart = {k: v for k, v in item["inputs"]["chart"].items() if k != "kind"}
    chart["series"] = [{**series, "values": ["0" for _ in series["values"]]}
                       for series in chart["series"]]
    return {**item, "inputs": {**item["inputs"], "chart": chart}}


def without_table(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with no table values (headers kept); shares the rest with ``item``, like
    :func:`without_chart`."""
    table = dict(item["inputs"]["table"])
    table["rows"] = [{**row, "values": {}} for row in table["rows"]]
    return {**item, "inputs": {**item["inputs"], "table": table}}


def without_text(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with every text chunk emptied; shares the rest with ``item``, like
    :func:`without_chart`."""
    text = [{**chunk, "text": ""} for chunk in item["inputs"]["text"]]
    return {**item, "inputs": {**item["inputs"], "text": text}}


def table_values(item: dict[str, Any]) -> dict[tuple[str, str, int], float]:
    """(entity, column, period) -> the table's value there, as a number."""
    return {(row["entity"], key, int(row["year"])): float(parse_number(text))
            for row in item["inputs"]["table"]["rows"] for key, text in row["values"].items()}


def chart_values(item: dict[str, Any]) -> dict[tuple[str, int], float]:
    """(entity, period) -> the chart's value there, as a number."""
    chart = item["inputs"]["chart"]
    years = [int(y) for y in chart["years"]]
    return {(s["entity"], y): float(parse_number(v))
            for s in chart["series"] for y, v in zip(years, s["values"], strict=True)}


def chart_from_table(item: dict[str, Any], predictor: str, line: LinearFit
                     ) -> dict[str, Any] | None:
    """A copy of ``item`` whose chart is predicted from its table column ``predictor`` along
    ``line``; ``None`` when a cell of that column is not shown. The chart's values are not
    read: only its column, which the statements name anyway."""
    column = item["inputs"]["chart"]["column"]
    table = item["inputs"]["table"]
    values = table_values(item)
    years = sorted({int(row["year"]) for row in table["rows"]})
    series = []
    for entity in (e["id"] for e in item["entities"]):
        shown = [values.get((entity, predictor, y)) for y in years]
        if any(v is None for v in shown):
            return None
        series.append({"entity": entity,
                       "values": [displayed(line(v), column["precision"])
                                  for v in shown if v is not None]})
    result = _with_inputs(item)
    result["inputs"]["chart"] = {"column": copy.deepcopy(column), "years": years,
                                 "series": series}
    return result


def table_from_chart(item: dict[str, Any], lines: Mapping[str, LinearFit],
                     means: Mapping[str, float]) -> dict[str, Any]:
    """A copy of ``item`` whose table values are predicted from its chart: each column along
    its line in ``lines``, or as its mean in ``means`` where it has no line. Only the table's
    headers (columns, entities, periods) are read, never its values."""
    chart = chart_values(item)
    table = item["inputs"]["table"]
    rows = []
    for row in table["rows"]:
        entity, year = row["entity"], int(row["year"])
        values = {}
        for column in table["columns"]:
            key = column["key"]
            line = lines.get(key)
            if line is not None and (entity, year) in chart:
                guess = line(chart[(entity, year)])
            elif key in means:
                guess = means[key]
            else:
                continue
            values[key] = displayed(guess, column["precision"])
        rows.append({"entity": entity, "year": year, "values": values})
    result = _with_inputs(item)
    result["inputs"]["table"] = {k: copy.deepcopy(v) for k, v in table.items() if k != "rows"}
    result["inputs"]["table"]["rows"] = rows
    return result


def displayed(value: float, precision: int) -> str:
    """A predicted value as the executor reads a displayed one (no separators)."""
    text = f"{value:.{int(precision)}f}"
    return "0" if float(text) == 0 else text


def _with_inputs(item: dict[str, Any]) -> dict[str, Any]:
    """A shallow copy of ``item`` with its own ``inputs`` dict."""
    result = dict(item)
    result["inputs"] = dict(item["inputs"])
    return result


def context_of(imputed: dict[str, Any] | None) -> Context | None:
    """An imputed item as an executor context with zero chart margins (an imputed value is a
    guess anyway); ``None`` when there is none or it does not parse."""
    if imputed is None:
        return None
    try:
        return Context(imputed, 0.0, 0.0)
    except (KeyError, TypeError, ValueError):
        return None


def read_through(program: dict[str, Any], ctx: Context) -> bool | None:
    """The label ``program`` gets on imputed inputs, read leniently (``None`` when they decide
    nothing). Who states a fact is read from the texts, which are never imputed."""
    try:
        picked = lenient_pick(program["select"], ctx)
    except (Undecidable, KeyError, TypeError, ValueError, IndexError, ArithmeticError):
        return None
    if picked is None:
        return None
    try:
        return judge(picked, program.get("claim") or {}, lambda node: select(node, ctx))
    except Undecidable:
        return None


def recorded_reading(item: dict[str, Any], statement: dict[str, Any], modality: str
                     ) -> bool | None:
    """The label a statement's recorded ``proxy.<modality>`` lines give its program on
    ``item`` with that modality withheld (``None`` when they decide nothing)."""
    record = (statement.get("proxy") or {}).get(modality) or {}
    lines = {key: LinearFit(float(a), float(b), 1.0, 0)
             for key, (a, b) in (record.get("lines") or {}).items()}
    if modality == "chart":
        shown = {c["key"] for c in item["inputs"]["table"]["columns"]}
        predictors = sorted(key for key in lines if key in shown)
        if not predictors:
            return None
        # the build records the one line it read through (the best predictor)
        imputed = chart_from_table(without_chart(item), predictors[-1], lines[predictors[-1]])
    elif modality == "table":
        imputed = table_from_chart(without_table(item), lines, {})
    else:
        raise ValueError(f"no proxy stands in for {modality!r}")
    ctx = context_of(imputed)
    return None if ctx is None else read_through(statement["program"], ctx)
