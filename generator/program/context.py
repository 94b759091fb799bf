"""An item's inputs as the program language reads them: parsed back from the displayed strings."""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from typing import Any

from hopvista.program.numbers import program_number


class Undecidable(Exception):
    """The program's label cannot be concluded from the inputs."""


MISSING_TOKENS = frozenset({"", "n/a", "-", "\u2014", "\u2013", "na", "--"})
"""What a cell shows when a ``missing`` variant blanked it (compared lower-cased, stripped).
A build never writes these (its schema wants a displayed number in every cell)."""


def parse_number(text: Any) -> Decimal:
    """A displayed number ("-1,234.5", also with U+2212 as the minus) back to an exact
    decimal; ``ValueError`` for anything that is not a finite plain decimal."""
    if not isinstance(text, str):
        raise ValueError(f"not a number: {str(text)[:40]!r}")
    return _parse_text(text)


@lru_cache(maxsize=8192)
def _parse_text(text: str) -> Decimal:
    """:func:`parse_number` of a string (remembered: a generator reads the same cells of an
    instance under every candidate statement)."""
    try:
        return program_number(text.replace(",", "").replace("\u2212", "-").strip())
    except ValueError:
        raise ValueError(f"not a number: {text[:40]!r}") from None


class Context:
    """An item's inputs, parsed, with the chart margins of its build."""

    def __init__(self, item: dict[str, Any], min_rank_gap: float, min_trend_step: float):
        inputs = item["inputs"]
        self.entities = [e["id"] for e in item["entities"]]
        self.table: dict[tuple[str, str, int], Decimal] = {}
        for row in inputs["table"]["rows"]:
            for column, text in row["values"].items():
                if isinstance(text, str) and text.strip().lower() in MISSING_TOKENS:
                    continue  # a cell a variant shows blank: a program reading it fails
                self.table[(row["entity"], column, int(row["year"]))] = parse_number(text)
        chart = inputs["chart"]
        self.chart_column = chart["column"]["key"]
        self.periods = [int(y) for y in chart["years"]]
        self.chart: dict[tuple[str, int], Decimal] = {}
        for series in chart["series"]:
            for year, text in zip(self.periods, series["values"], strict=True):
                self.chart[(series["entity"], year)] = parse_number(text)
        self.texts = {t["entity"]: t["text"] for t in inputs["text"]}
        self.chart_kind = chart.get("kind")
        if self.chart_kind == "pie":
            # a pie shows shares of one whole: its scale is the sum of the slices
            if len(self.periods) != 1 or min(self.chart.values()) <= 0:
                raise ValueError("a pie chart needs one year of positive values")
            span = sum(self.chart.values(), Decimal(0))
        else:
            points = list(self.chart.values()) + [Decimal(0)]
            span = max(points) - min(points)
        self.rank_gap = span * Decimal(str(min_rank_gap))
        self.trend_step = span * Decimal(str(min_trend_step))

    def cell(self, entity: str, column: str, year: int) -> Decimal:
        """A table value (or a chart value, for the chart column)."""
        if column == self.chart_column:
            return self.chart[(entity, year)]
        try:
            return self.table[(entity, column, year)]
        except KeyError:
            raise Undecidable(f"no table cell {entity}/{column}/{year}") from None

    def point(self, entity: str, column: str, year: int) -> Decimal:
        """A chart value; chart hops may read nothing else."""
        if column != self.chart_column:
            raise Undecidable(f"{column!r} is not the chart column")
        return self.chart[(entity, year)]
