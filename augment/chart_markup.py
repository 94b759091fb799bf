"""Counterfactual markup on charts: the same chart with one mark emphasised — the point a
statement's label turns on, or a competitive distractor (an extension of HighlightBench's
table markup to charts).

Three variants per item, registered as recipes ``chart-markup-n`` (the chart redrawn in the
shared style, nothing emphasised: the control), ``chart-markup-c`` (congruent: the *target*
point emphasised) and ``chart-markup-i`` (incongruent: the *distractor* emphasised);
``--variants chart-markup`` names all three. The three of a base share its table style, its
chart style (the base's own, so ``chart-markup-n`` draws the base's chart) and the look of
the emphasis, so two of them differ only around the emphasised mark
(:mod:`hopvista.render.chart`: ``style["emphasis"]``, ``render.emphasis.box``).

**Target and distractor** (:func:`choose_points`, recorded in ``variant.markup``): one
statement that reads the chart is drawn; a point it reads and another entity's point in the
same period form a pair, and the pair chosen is, in this order of preference, one whose two
values *exchanged* flip the statement's label (re-derived by the verifier's executor), one
whose target lies on the entity the statement's selector picks, and the one whose two values
lie nearest each other — the competitor nearest in value. The target is the point the label
turns on, the distractor the mark a reader could take for it.

The look — how (``outline``, ``marker`` or ``series``, among those the chart kind draws), the
stroke's colour and width — is drawn from the base's streams, the same for its three variants.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from hopvista.augment.contrast import STROKE_DELTA_E, least_delta_e, standing_out
from hopvista.augment.recipes import Base, Params, Plan, Skip, base_style, recipe
from hopvista.model.statement import ValueCell
from hopvista.program.executor import Context, Undecidable, decide, parse_number, picked_by
from hopvista.rng import Streams
from hopvista.themes.chart_kinds import EMPHASIS_HOWS
from hopvista.themes.charts import sample_chart_style

VARIANTS: dict[str, str | None] = {
    "chart-markup-n": None,
    "chart-markup-c": "target",
    "chart-markup-i": "distractor",
}
"""The three chart markup variants: which point each emphasises."""

GROUP = "chart-markup"
"""``--variants chart-markup`` stands for every variant of :data:`VARIANTS`."""

COLOURS = ("#000000", "#262626", "#c2185b", "#004d40")
"""Emphasis stroke colours: dark, and clear of the chart palette's hues."""

WIDTH_RANGE = (1.5, 3.5)
"""Emphasis stroke width in points, drawn per base in steps of 0.5."""

EXCHANGED = "the chart with the target's and the distractor's values exchanged"


def _points(base: Base) -> tuple[dict[tuple[str, int], Decimal], dict[tuple[str, int], str]]:
    """The chart's points: (entity, year) -> value (as the verifier parses it) and text."""
    chart = base.item.inputs.chart
    if chart is None:
        raise Skip("no chart in data form (an imported chart exists only as an image)")
    values: dict[tuple[str, int], Decimal] = {}
    texts: dict[tuple[str, int], str] = {}
    for series in chart.series:
        for year, text in zip(chart.years, series.values, strict=True):
            values[(series.entity, int(year))] = parse_number(text)
            texts[(series.entity, int(year))] = str(text)
    return values, texts


def _read(cells: Sequence[Any], values: Mapping[tuple[str, int], Decimal]
          ) -> list[tuple[str, int]]:
    """The chart points (entity, year) a statement's cells read, in order, once each."""
    read: list[tuple[str, int]] = []
    for cell in cells:
        if isinstance(cell, ValueCell) and cell.modality == "chart":
            point = (cell.entity, cell.year)
            if point in values and point not in read:
                read.append(point)
    return read


def _label(raw: dict[str, Any], k: int, margins: dict[str, Any],
           swap: tuple[tuple[str, int], tuple[str, int]] | None) -> tuple[bool | None,
                                                                           frozenset[str]]:
    """Statement ``k``'s label on the item ``raw`` (the two points of ``swap`` exchanged) and
    the entities its selector picks; ``None`` and nothing when undecidable."""
    shown = raw
    if swap is not None:
        shown = dict(raw)
        chart = copy.deepcopy(raw["inputs"]["chart"])
        at = {int(y): i for i, y in enumerate(chart["years"])}
        series = {s["entity"]: s for s in chart["series"]}
        (a, ya), (b, yb) = swap
        va, vb = series[a]["values"][at[ya]], series[b]["values"][at[yb]]
        series[a]["values"][at[ya]], series[b]["values"][at[yb]] = vb, va
        shown["inputs"] = dict(raw["inputs"]) | {"chart": chart}
    program = raw["statements"][k]["program"]
    try:
        context = Context(shown, float(margins.get("min_rank_gap", 0)),
                          float(margins.get("min_trend_step", 0)))
        label = decide(program, context)
        picked = picked_by(program["select"], context)
    except (Undecidable, KeyError, TypeError, ValueError, ArithmeticError):
        return None, frozenset()
    return label, picked


def choose_points(base: Base, streams: Streams) -> dict[str, Any]:
    """The target and distractor points of a base (see the module docstring) and the answer
    a reader misled by an emphasis on the distractor would give (``hijacked``); ``Skip`` when
    the base has no chart in data form or no statement that reads it."""
    item = base.item
    values, texts = _points(base)
    if not item.statements or any(s.program is None for s in item.statements):
        raise Skip("no statement program (an imported record): no point a label turns on")
    readers = [k for k, s in enumerate(item.statements) if _read(s.cells, values)]
    if not readers:
        raise Skip("no statement reads the chart")
    k = int(streams.choose([str(k) for k in readers], "chart-markup.statement"))
    statement = item.statements[k]
    raw = item.model_dump(mode="json", by_alias=True)
    margins = dict(item.provenance.decidability or {})
    label, picked = _label(raw, k, margins, None)
    entities = [e.id for e in item.entities]
    read = _read(statement.cells, values)
    pairs = []
    for n, (entity, year) in enumerate(read):
        for m, rival in enumerate(e for e in entities if e != entity and (e, year) in values):
            swapped, _ = _label(raw, k, margins, ((entity, year), (rival, year)))
            flips = label is not None and swapped is not None and swapped != label
            gap = abs(values[(entity, year)] - values[(rival, year)])
            pairs.append(((not flips, entity not in picked, gap, n, m),
                          (entity, year), rival, swapped))
    if not pairs:
        raise Skip("no other entity's point in the periods the statement reads")
    key, (entity, year), rival, swapped = min(pairs, key=lambda p: p[0])
    flips = not key[0]
    names = {e.id: e.name for e in item.entities}
    column = item.inputs.chart.column.key if item.inputs.chart is not None else ""

    def point(who: str, why: str) -> dict[str, Any]:
        return {"entity": who, "name": names.get(who, who), "column": column, "year": year,
                "value": texts[(who, year)], "statement": k + 1, "why": why}

    target = point(entity, f"the point statement {k + 1} ({statement.type}) turns on: "
                           + ("exchanged with the distractor's, its label flips" if flips else
                              "the point nearest another entity's (no exchange flips it)"))
    distractor = point(rival, "the same period of the entity "
                       + ("whose value, exchanged with the target's, flips the statement"
                          if flips else "whose value is nearest the target's"))
    return {"target": target, "distractor": distractor,
            "hijacked": _hijacked(item.answer, k, swapped)}


def _hijacked(answer: Any, k: int, swapped: bool | None) -> dict[str, Any]:
    """The answer of a reader who takes the emphasised distractor for the target: the item's
    answer with statement ``k`` re-derived on :data:`EXCHANGED`; ``distinguishes`` whether it
    differs from the right answer."""
    if swapped is None:
        return {"answer": None, "distinguishes": False, "statement": k + 1,
                "reading": EXCHANGED}
    given = [n for n in (answer if isinstance(answer, list) else []) if isinstance(n, int)]
    misled = sorted({n for n in given if n != k + 1} | ({k + 1} if swapped else set()))
    return {"answer": misled, "distinguishes": misled != answer, "statement": k + 1,
            "label": swapped, "reading": EXCHANGED}


def look(streams: Streams, kind: str, marked: Sequence[str] = ()) -> dict[str, Any]:
    """The emphasis look for one base (its three variants share it): how, among those a
    ``kind`` chart draws, and the stroke's colour and width in points. A stroke (every way
    but ``series``, which thickens the line in its own colour) takes a colour that stands out
    from each of ``marked``, the colours of the marks it may be drawn on
    (:func:`marked_colours`; :func:`stroke_colour`)."""
    hows = EMPHASIS_HOWS.get(kind)
    if not hows:
        raise Skip(f"no emphasis is drawn on a {kind} chart")
    low, high = WIDTH_RANGE
    width = low + (high - low) * streams.uniform("chart-markup.width")
    how = streams.choose(hows, "chart-markup.how")
    colour, replaced = stroke_colour(streams, marked if how != "series" else ())
    drawn = {"how": how, "colour": colour, "width": round(round(width * 2) / 2, 1)}
    return drawn | ({"replaced": replaced} if replaced else {})


def stroke_colour(streams: Streams, marked: Sequence[str]) -> tuple[str, dict[str, Any] | None]:
    """The stroke colour drawn from :data:`COLOURS` among those that differ from each of
    ``marked`` by at least :data:`~hopvista.augment.contrast.STROKE_DELTA_E` (ΔE₀₀); with
    none, the one that differs most. The choice is rendezvous hashing on
    ``chart-markup.colour``, so a colour first drawn that stands out is kept. Also the record
    of the colour first drawn when it was replaced (its ΔE₀₀ against the mark nearest it in
    colour), else ``None``."""
    first = streams.choose(COLOURS, "chart-markup.colour")
    colour, replaced = standing_out(streams, "chart-markup.colour", first, COLOURS,
                                    lambda c: least_delta_e(c, marked), STROKE_DELTA_E)
    return colour, None if replaced is None else {"colour": first, **replaced}


def marked_colours(base: Base, style: Mapping[str, Any], points: Mapping[str, Any]
                   ) -> tuple[str, ...]:
    """The colours of the marks an emphasis may be drawn on: the target's and the
    distractor's series in the chart ``style``'s palette (a series takes the palette colour
    of its place among the chart's series)."""
    chart = base.item.inputs.chart
    if chart is None:
        return ()
    palette = [str(colour) for colour in style.get("palette", ())]
    places = {series.entity: n for n, series in enumerate(chart.series)}
    found = []
    for on in ("target", "distractor"):
        place = places.get(points[on]["entity"])
        if place is not None and place < len(palette):
            found.append(palette[place])
    return tuple(dict.fromkeys(found))


def shared_chart_style(base: Base, streams: Streams) -> dict[str, Any]:
    """The chart style the three variants share: the base's own (``chart-markup-n`` then
    draws the base's chart), else one drawn for the chart's own kind (the data shown stays
    the base's)."""
    chart = base.item.inputs.chart
    if chart is None:
        raise Skip("no chart in data form (an imported chart exists only as an image)")
    own = base.item.variant.style.get("chart")
    if own and own.get("kind") == chart.kind:
        return {k: v for k, v in own.items() if k != "emphasis"}

    return sample_chart_style(streams, [chart.kind] if chart.kind else ["line"])


class ChartMarkupParams(Params):
    """Chart markup variants take no parameters."""


def _chart_markup_recipe(name: str, on: str | None) -> None:
    def plan(base: Base, streams: Streams, params: ChartMarkupParams) -> Plan:
        # Points, style and look come from the base's own streams (variant "chart-markup"),
        # so the three variants of a base emphasise the same points in the same look.
        shared = Streams(streams.seed, streams.item_id, GROUP)
        points = choose_points(base, shared)
        style = shared_chart_style(base, shared)
        drawn = look(shared, str(style["kind"]), marked_colours(base, style, points))
        if on is not None:
            at = points[on]
            style = style | {"emphasis": {"entity": at["entity"], "year": at["year"],
                                          "how": drawn["how"], "colour": drawn["colour"],
                                          "width": drawn["width"]}}
        record = {"style": drawn["how"] if on is not None else None, "on": on,
                  "modality": "chart", **points, "look": drawn}
        return Plan(base.grid, base.shown(), base_style(base, shared), {"markup": name},
                    chart_style=style, markup=record)

    plan.__doc__ = ("The chart redrawn as it is (the chart markup control)." if on is None
                    else f"The chart with the {on} point emphasised.")
    recipe(name, GROUP, ChartMarkupParams)(plan)


for _name, _on in VARIANTS.items():
    _chart_markup_recipe(_name, _on)
