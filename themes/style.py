"""An item's visual style: its table theme and chart style, from its own named streams.

Pure functions: they read the item's chart input and statements and return new objects, never
changing what they were given.

- :func:`sample_style` gives ``{"table": ..., "chart": ...}`` for one item variant: the chart
  kind among those that can show the item (a pie only for a one-year ranking), the table
  theme, the chart library, fonts and sizes, each from its own stream of
  ``(seed, item id, variant, stream name)``.
- :func:`shown_chart` gives the chart input the item shows once its kind is known (a pie: the
  one year it shows), as a new dict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hopvista.rng import Streams
from hopvista.themes.chart_kinds import ChartReader, allowed_kinds, pie_year, shown_chart
from hopvista.themes.charts import sample_chart_style
from hopvista.themes.tables import sample_table_style

__all__ = ["pie_year", "sample_style", "shown_chart"]


def sample_style(streams: Streams, chart: Mapping[str, Any], statements: Sequence[ChartReader],
                 min_rank_gap: float, table_text: str = "") -> dict[str, Any]:
    """The style of one item variant: ``{"table": table style, "chart": chart style}``.

    ``streams`` names the item (seed, item id, variant); ``chart`` is the item's chart input
    before any kind cut it (``inputs.chart``), ``statements`` its statements, ``min_rank_gap``
    the domain's decidability margin (a pie needs a clear winner), ``table_text`` what the
    table shows (its fonts must have every character). Nothing is modified.
    """
    kinds = allowed_kinds(chart, statements, min_rank_gap)
    return {"table": sample_table_style(streams, text=table_text),
            "chart": sample_chart_style(streams, kinds)}
