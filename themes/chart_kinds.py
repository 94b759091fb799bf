"""Chart kinds: what a chart may show for an item, by name (line, bar, scatter, pie, ...).

A :class:`ChartKind` says when an item may be drawn as that kind and what the chart then
shows. Its ``view`` receives the item's chart input (``inputs.chart``: column, years, series),
the item's statements and the domain's ``min_rank_gap``, and returns the chart input this kind
shows — a new dict, the argument is never changed — or ``None`` when the kind cannot show the
item without changing a label. Line, bar and scatter show every year; a pie shows one year,
and only where the statements read nothing else from the chart.

Drawing is the chart libraries' job (:data:`hopvista.themes.charts.CHART_LIBRARIES`): each
library lists the kinds it draws. A plug-in registers a kind with
``CHART_KINDS.register("area", ChartKind(...))`` and a library that draws it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from hopvista.display import parse_shown
from hopvista.registry import Registry


class ChartReader(Protocol):
    """What a chart kind may know of a statement (``hopvista.statements.types.Statement``)."""

    @property
    def type(self) -> str:
        """The statement type (``"RK"``, ``"FC+RK"``, ...)."""

    @property
    def modalities(self) -> Sequence[str]:
        """The modalities it reads (``"chart"`` among them if it reads the chart)."""

    @property
    def program(self) -> Mapping[str, Any]:
        """Its program (``program["select"]`` is the selector node)."""


ChartView = Callable[[Mapping[str, Any], Sequence[ChartReader], float], "dict[str, Any] | None"]
"""``view(chart, statements, min_rank_gap)``: the chart input shown, or ``None``."""


@dataclass(frozen=True)
class ChartKind:
    """One chart kind: its name, what it shows of an item (``view``) and its sampling weight.

    ``weight`` is the kind's relative share among the kinds an item allows (1.0 = as often
    as each built-in kind).
    """

    name: str
    description: str
    view: ChartView
    weight: float = 1.0


CHART_KINDS: Registry[ChartKind] = Registry("chart kind", "chart_kinds")
"""Every chart kind by name."""


def whole_chart(chart: Mapping[str, Any], statements: Sequence[ChartReader],
                min_rank_gap: float) -> dict[str, Any]:
    """Every year of the chart (line, bar and scatter charts): a copy of ``chart``."""
    return copy.deepcopy(dict(chart))


def series_chart(chart: Mapping[str, Any], statements: Sequence[ChartReader],
                 min_rank_gap: float) -> dict[str, Any] | None:
    """Every period, as lines or dodged markers along the period axis: needs two periods or
    more (a domain without a period axis draws bars or a pie)."""
    return copy.deepcopy(dict(chart)) if len(chart["years"]) >= 2 else None


def pie_year(chart: Mapping[str, Any], statements: Sequence[ChartReader],
             min_rank_gap: float) -> int | None:
    """The year a pie chart could show, or ``None``.

    A pie shows one year, so it is allowed only when the only chart-read statement is a
    one-year ranking (FCMR uses pies for Easy rankings only), every slice is positive, and the
    winner's lead is a clear share of the whole pie.
    """
    readers = [s for s in statements if "chart" in s.modalities]
    if len(readers) != 1 or readers[0].program.get("select", {}).get("op") != "rk":
        return None
    node = readers[0].program["select"]
    year = int(node["year"])
    at = list(chart["years"]).index(year)
    values = sorted((parse_shown(s["values"][at]) for s in chart["series"]), reverse=True)
    if values[-1] <= 0:
        return None
    lead = values[0] - values[1] if node["order"] == "max" else values[-2] - values[-1]
    return year if lead >= sum(values) * Decimal(str(min_rank_gap)) else None


def pie_chart(chart: Mapping[str, Any], statements: Sequence[ChartReader],
              min_rank_gap: float) -> dict[str, Any] | None:
    """The one year a pie shows (:func:`pie_year`), as a new chart input; ``None`` if none."""
    year = pie_year(chart, statements, min_rank_gap)
    if year is None:
        return None
    at = list(chart["years"]).index(year)
    shown = copy.deepcopy(dict(chart))
    shown["years"] = [year]
    shown["series"] = [{**series, "values": [series["values"][at]]}
                       for series in shown["series"]]
    return shown


for _kind in (
    ChartKind("line", "One line per entity over the years.", series_chart),
    ChartKind("bar", "Grouped bars: one group per year, one bar per entity.", whole_chart),
    ChartKind("scatter", "One marker per entity and year, dodged so none overlap.",
              series_chart),
    ChartKind("pie", "One year's values as slices (one-year ranking items only).", pie_chart),
):
    CHART_KINDS.register(_kind.name, _kind)


def allowed_kinds(chart: Mapping[str, Any], statements: Sequence[ChartReader],
                  min_rank_gap: float) -> list[str]:
    """The names of the kinds that can show this item (their ``view`` is not ``None``)."""
    return [name for name, kind in CHART_KINDS.items()
            if kind.view(chart, statements, min_rank_gap) is not None]


def shown_chart(chart: Mapping[str, Any], kind: str, statements: Sequence[ChartReader],
                min_rank_gap: float) -> dict[str, Any]:
    """The chart input an item shows when drawn as ``kind``: a new dict with ``"kind"`` set.

    Raises ``ValueError`` when ``kind`` cannot show this item.
    """
    shown = CHART_KINDS.get(kind).view(chart, statements, min_rank_gap)
    if shown is None:
        raise ValueError(f"chart kind {kind!r} cannot show this item")
    return {**shown, "kind": kind}


EMPHASIS_HOWS: dict[str, tuple[str, ...]] = {
    "line": ("outline", "marker", "series"),
    "scatter": ("outline", "marker"),
    "bar": ("outline",),
    "pie": ("outline",),
}
"""How each kind can emphasise one mark: ``outline`` a contour around it (a bar's or a pie
wedge's edge, a ring around a point), ``marker`` the point's marker drawn larger with an edge,
``series`` the entity's whole line drawn thicker (the mark is then the series)."""
