"""Counterfactual markup (HighlightBench): the same table with one cell marked — highlighted,
underlined, in bold, pointed at by an arrow, in a shaded row or a boxed column, circled or
circled by hand (every kind of :data:`hopvista.themes.marks.MARK_KINDS`) — the cell that
decides the answer, or a competitive distractor.

Variants registered as recipes: ``markup-n`` (no markup), and for every mark kind
``markup-{code}c`` on the *target* cell and ``markup-{code}i`` on the *distractor*
(:data:`VARIANTS`: ``markup-hc`` / ``-uc`` / ``-bc`` are highlight / underline / bold);
``--variants markup`` names them all. All of a base share its table style and layout, so two
of them differ only inside the marked cell's recorded box (``mark_box`` for a mark that
reaches beyond its cell).

**Target and distractor** (:func:`choose_cells`, recorded in ``variant.markup``):

- a generated item: the pair whose two values, exchanged, change the item's answer (a reader
  misled by the marker then answers differently, :func:`hijacked`), searched over the
  statements that read the table (a drawn one first), the cells each reads (the one nearest
  its threshold first: the value its label turns on) and the other cells of the target's
  column (another entity's in the same period first, then the same entity's other periods,
  then the rest, each by nearness in value); when no exchange changes the answer, the drawn
  statement's cell nearest its threshold and the same column and period of the entity
  nearest in value;
- an imported record: the target is a cell matching the answer; the distractor the cell of the
  same column nearest to it in value (or in position, for text).

The look (highlight colour and opacity, underline weight, stroke of the bold) is drawn from the
base's streams, the same for all its variants; a kind whose paint would hardly show on the
table's theme is drawn in another colour or ink (:func:`mark_paint`), recorded in its
variants' look.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from hopvista.augment.contrast import (
    FILL_DELTA_E,
    STROKE_DELTA_E,
    fill_delta_e,
    least_delta_e,
    rgb_of,
    standing_out,
    under_ink,
)
from hopvista.augment.grid import Grid, marked
from hopvista.augment.recipes import Base, Params, Plan, Skip, base_style, recipe
from hopvista.model.inputs import Table
from hopvista.program.executor import Context, Undecidable, decide
from hopvista.rng import Streams
from hopvista.themes.marks import HALO, MARK_KINDS, MarkKind, ink_look, ink_of, ordered_kinds
from hopvista.themes.tables import get_theme
from hopvista.themes.tables.policy import cell_backgrounds, heading_backgrounds


def _variants() -> dict[str, tuple[str | None, str | None]]:
    """``markup-n`` and, for every mark kind in order, ``markup-{code}c`` (on the target)
    then ``markup-{code}i`` (on the distractor) after all the targets."""
    kinds = ordered_kinds()
    codes = [kind.code for kind in kinds]
    if len(set(codes)) != len(codes):
        raise ValueError(f"two mark kinds share a code: {sorted(codes)}")
    return {"markup-n": (None, None),
            **{f"markup-{kind.code}c": (kind.name, "target") for kind in kinds},
            **{f"markup-{kind.code}i": (kind.name, "distractor") for kind in kinds}}


VARIANTS = _variants()
"""The markup variants: (mark kind, which cell). ``markup-hc`` / ``-uc`` / ``-bc`` (and
``-hi`` / ``-ui`` / ``-bi``) are HighlightBench's highlight, underline and bold; the other
kinds' codes are their :class:`~hopvista.themes.marks.MarkKind` ``code``: ``a`` arrow, ``r``
row, ``c`` column, ``o`` circle, ``d`` hand-drawn."""

GROUP = "markup"
"""``--variants markup`` stands for every variant of :data:`VARIANTS`."""

COLOURS = ("#ffd54f", "#fff176", "#aed581", "#81d4fa", "#f48fb1", "#ffab91")

INKS = (*dict.fromkeys(ink_of(*rgb_of(colour)) for colour in COLOURS), "#000000", "#ffeb3b")
"""The inks a line-drawing mark may be drawn in: each colour's own, black, and a bright
yellow that shows on a dark theme."""


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").replace("\u2212", "-").strip())
    except (InvalidOperation, ValueError):
        return None


def _thresholds(node: Any) -> Iterator[tuple[str | None, Decimal]]:
    """(column, threshold) of every comparison in a program node, depth first."""
    if isinstance(node, dict):
        if "threshold" in node:
            value = _number(str(node["threshold"]))
            if value is not None:
                column = node.get("column")
                if column is None and node.get("terms"):
                    column = node["terms"][0].get("column")
                yield (str(column) if column is not None else None), value
        for child in node.values():
            yield from _thresholds(child)
    elif isinstance(node, list):
        for child in node:
            yield from _thresholds(child)


def _generated(base: Base, streams: Streams) -> dict[str, Any]:
    item = base.item
    table = item.inputs.table
    if not isinstance(table, Table):
        raise Skip("no entity-by-period table")
    first = 1 if table.period_label is None else 2
    rows = {(row.entity, row.year): r for r, row in enumerate(table.rows, start=1)}
    cols = {column.key: first + i for i, column in enumerate(table.columns)}
    readers = [k for k, s in enumerate(item.statements)
               if any(c.modality == "table" for c in s.cells)]
    if not readers:
        raise Skip("no statement reads the table")
    drawn = int(streams.choose([str(k) for k in readers], "markup.statement"))
    names = {e.id: e.name for e in item.entities}

    def value(entity: str, column: str, year: int) -> Decimal | None:
        r = rows.get((entity, year))
        return None if r is None else _number(table.rows[r - 1].values.get(column, ""))

    def cell(entity: str, column: str, year: int, k: int, why: str) -> dict[str, Any]:
        return {"row": rows[(entity, year)], "col": cols[column], "entity": entity,
                "name": names.get(entity, entity), "column": column, "year": year,
                "statement": k + 1, "why": why}

    def targets(k: int) -> list[Any]:
        """The table cells statement ``k`` reads, the one nearest its threshold first."""
        statement = item.statements[k]
        cells = [c for c in statement.cells if c.modality == "table"
                 and (c.entity, c.year) in rows]
        bounds = list(_thresholds(statement.program.model_dump(mode="json", by_alias=True)
                                  if statement.program else {}))
        if not bounds:
            return cells

        def gap(at: Any) -> Decimal:
            shown = value(at.entity, at.column, at.year)
            near = [abs(shown - t) for col, t in bounds if col in (None, at.column)] \
                if shown is not None else []
            return min(near) if near else Decimal("Infinity")
        return sorted(cells, key=gap)

    def rivals(at: Any) -> list[tuple[str, int]]:
        """The other cells of the target's column, nearest first: another entity's in the
        same period, then the same entity's in another period, then the rest; by value."""
        aim = value(at.entity, at.column, at.year)

        def rank(place: tuple[str, int]) -> tuple[int, Decimal, int]:
            entity, year = place
            tier = 0 if year == at.year else 1 if entity == at.entity else 2
            other = value(entity, at.column, year)
            near = abs(other - aim) if other is not None and aim is not None \
                else Decimal("Infinity")
            return tier, near, rows[place]
        return sorted((p for p in rows if p != (at.entity, at.year)), key=rank)

    raw = item.model_dump(mode="json", by_alias=True)
    for k in [drawn, *(k for k in readers if k != drawn)]:
        why = f"the value statement {k + 1} ({item.statements[k].type}) turns on"
        for at in targets(k):
            chosen = cell(at.entity, at.column, at.year, k, why)
            for entity, year in rivals(at):
                rival = cell(entity, at.column, year, k, "")
                if _exchanged(base, raw, chosen, rival)[0] not in (None, item.answer):
                    return {"target": chosen, "distractor": rival | {"why": (
                        "a cell of the target's column that, taken for the target (the two "
                        "values exchanged), changes the answer")}}
    # No exchange changes the answer: the drawn statement's cell and the runner-up.
    at = targets(drawn)[0]
    why = f"the value statement {drawn + 1} ({item.statements[drawn].type}) turns on"
    others = [(e, y) for e, y in rivals(at) if y == at.year]
    if not others:
        raise Skip("no other entity to mark as the distractor")
    entity, year = others[0]
    return {"target": cell(at.entity, at.column, at.year, drawn, why),
            "distractor": cell(entity, at.column, year, drawn,
                               "the same column and period of the entity whose value is "
                               "nearest the target's (no exchange changes the answer)")}


def _imported(base: Base) -> dict[str, Any]:
    grid: Grid = base.grid
    answers = sorted((r, c) for (r, c), why in base.protected.items()
                     if why.startswith("matches the answer") and r >= 1)
    if not answers:
        raise Skip("no cell matches the answer")
    row, col = answers[0]
    aim = _number(grid.cell(row, col).text)
    candidates = [r for r in range(1, len(grid.rows)) if r != row
                  and grid.cell(r, col).text.strip()
                  and grid.cell(r, col).text != grid.cell(row, col).text]
    if not candidates:
        raise Skip("no other cell in the answer's column")

    def distance(r: int) -> tuple[Decimal, int]:
        other = _number(grid.cell(r, col).text)
        if aim is None or other is None:
            return Decimal(abs(r - row)), r
        return abs(other - aim), r
    rival = min(candidates, key=distance)
    return {"target": {"row": row, "col": col, "text": grid.cell(row, col).text,
                       "why": "the cell matching the answer"},
            "distractor": {"row": rival, "col": col, "text": grid.cell(rival, col).text,
                           "why": "the cell of the same column nearest the answer"}}


def choose_cells(base: Base, streams: Streams) -> dict[str, Any]:
    """The target and distractor cells of a base (see the module docstring) and the answer a
    marker-hijacked reader would give (:func:`hijacked`) and those a reader one coordinate
    off would give (:func:`coordinate`); ``Skip`` when the base has none."""
    if base.item.statements and all(s.program is not None for s in base.item.statements):
        cells = _generated(base, streams)
    else:
        cells = _imported(base)
    cells = cells | {"hijacked": hijacked(base, cells)}
    return cells | {"coordinate": coordinate(base, cells)}


def hijacked(base: Base, cells: dict[str, Any]) -> dict[str, Any]:
    """What a reader misled by a marker on the distractor answers: it takes the distractor
    for the target.

    - an imported record: the distractor's text;
    - a generated item: the answer with the chosen statement's label re-derived (by the
      verifier's executor) on the table with the target's and the distractor's values
      exchanged; ``distinguishes`` says whether that answer differs from the right one (if
      not, a wrong answer on this item cannot be put down to the marker).
    """
    item = base.item
    if "statement" not in cells["target"]:
        text = cells["distractor"]["text"]
        return {"answer": text, "distinguishes": text != cells["target"]["text"]}
    target, rival = cells["target"], cells["distractor"]
    k = target["statement"] - 1
    answer, label = _exchanged(base, item.model_dump(mode="json", by_alias=True), target, rival)
    if answer is None:
        return {"answer": None, "distinguishes": False, "statement": k + 1}
    return {"answer": answer, "distinguishes": answer != item.answer, "statement": k + 1,
            "label": label}


def _exchanged(base: Base, raw: dict[str, Any], target: dict[str, Any],
               rival: dict[str, Any]) -> tuple[Any, bool | None]:
    """:func:`_misread` with the target's and the rival's values exchanged (``raw``: the
    item as JSON, left as it is)."""
    rows = raw["inputs"]["table"]["rows"]
    mine = rows[target["row"] - 1]["values"][target["column"]]
    theirs = rows[rival["row"] - 1]["values"][rival["column"]]
    return _misread(base, target, {(target["row"], target["column"]): theirs,
                                   (rival["row"], rival["column"]): mine}, raw)


def _misread(base: Base, target: dict[str, Any], shown: dict[tuple[int, str], str],
             raw: dict[str, Any] | None = None) -> tuple[Any, bool | None]:
    """A generated item's answer, and the chosen statement's label, re-derived by the
    verifier's executor with the table showing ``shown`` (body row, column key → text);
    ``(None, None)`` when the statement cannot be decided so."""
    item = base.item
    if raw is None:
        raw = item.model_dump(mode="json", by_alias=True)
    rows = list(raw["inputs"]["table"]["rows"])
    for (r, column), text in shown.items():
        rows[r - 1] = rows[r - 1] | {"values": rows[r - 1]["values"] | {column: text}}
    raw = raw | {"inputs": raw["inputs"] | {"table": raw["inputs"]["table"] | {"rows": rows}}}
    k = target["statement"] - 1
    margins = item.provenance.decidability or {}
    try:
        context = Context(raw, float(margins.get("min_rank_gap", 0)),
                          float(margins.get("min_trend_step", 0)))
        label = decide(raw["statements"][k]["program"], context)
    except (Undecidable, KeyError, TypeError, ValueError, ArithmeticError):
        return None, None
    given = [n for n in (item.answer if isinstance(item.answer, list) else [])
             if isinstance(n, int)]
    return sorted({n for n in given if n != k + 1} | ({k + 1} if label else set())), label


def coordinate(base: Base, cells: dict[str, Any]) -> dict[str, Any]:
    """What a reader one coordinate off answers: it reads a cell next to the target (the row
    above or below, the column left or right) in the target's place. ``answers`` are those
    that differ from the right answer and from the hijacked one (HighlightBench's coordinate
    error: the right kind of value, read at the wrong place); ``cells`` the neighbours read.

    - an imported record: the neighbours' texts;
    - a generated item: the answer re-derived with each neighbour's value (the same entity's
      other periods, the same row's next columns).
    """
    target = cells["target"]
    avoid = [cells.get("hijacked", {}).get("answer")]
    found: list[tuple[dict[str, int], Any]] = []
    if "statement" not in target:
        grid: Grid = base.grid
        avoid += [target["text"]]
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            r, c = target["row"] + dr, target["col"] + dc
            if 1 <= r < len(grid.rows) and 0 <= c < grid.width:
                text = grid.cell(r, c).text.strip()
                if text:
                    found.append(({"row": r, "col": c}, text))
    else:
        item = base.item
        avoid += [item.answer]
        table = item.inputs.table
        assert isinstance(table, Table)
        rows = {(row.entity, row.year): r for r, row in enumerate(table.rows, start=1)}
        keys = [column.key for column in table.columns]
        first = 1 if table.period_label is None else 2
        at = keys.index(target["column"])
        places = [((target["entity"], target["year"] + dy), target["column"]) for dy in (-1, 1)]
        places += [((target["entity"], target["year"]), keys[at + dk]) for dk in (-1, 1)
                   if 0 <= at + dk < len(keys)]
        for (entity, year), key in places:
            r = rows.get((entity, year))
            if r is None:
                continue
            shown = table.rows[r - 1].values.get(key)
            if shown is None:
                continue
            answer, _ = _misread(base, target, {(target["row"], target["column"]): shown})
            if answer is not None:
                found.append(({"row": r, "col": first + keys.index(key)}, answer))
    answers: list[Any] = []
    for _, answer in found:
        if answer not in avoid and answer not in answers:
            answers.append(answer)
    return {"answers": answers, "cells": [place for place, _ in found]}


def look(streams: Streams, style: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The markup's look for one base (its variants share it); a highlight colour that
    stands out from every background a body cell of the table ``style`` may have
    (:func:`highlight_colour`)."""
    opacity = round(0.35 + 0.4 * streams.uniform("markup.opacity"), 2)
    grounds = cell_backgrounds(get_theme(style["theme"]), style["accent"]) if style else ()
    colour, replaced = highlight_colour(streams, opacity, grounds)
    drawn = {"colour": colour, "opacity": opacity,
             "thickness": float(streams.integer("markup.thickness", 1, 3)),
             "stroke": round(0.4 + 0.4 * streams.uniform("markup.stroke"), 2)}
    return drawn | ({"replaced": replaced} if replaced else {})


def highlight_colour(streams: Streams, opacity: float,
                     grounds: Sequence[str]) -> tuple[str, dict[str, Any] | None]:
    """The highlight colour drawn from :data:`COLOURS` among those whose highlight, laid at
    ``opacity`` over each of ``grounds`` (the cell's possible backgrounds), differs from it by
    at least :data:`~hopvista.augment.contrast.FILL_DELTA_E` (ΔE₀₀); with none, the one that
    differs most. The choice is rendezvous hashing on ``markup.colour``, so a colour first
    drawn that stands out is kept. Also the record of the colour first drawn when it was
    replaced (its ΔE₀₀ against the background nearest it), else ``None``."""
    first = streams.choose(COLOURS, "markup.colour")
    colour, replaced = standing_out(streams, "markup.colour", first, COLOURS,
                                    lambda c: fill_delta_e(c, opacity, grounds), FILL_DELTA_E)
    return colour, None if replaced is None else {"colour": first, **replaced}


def mark_grounds(kind: MarkKind, style: Mapping[str, Any]) -> tuple[str, ...]:
    """Every background a mark of ``kind`` may be drawn on in the table ``style``: a body
    cell's, and for a row or column mark (which covers the row's heading or the column's
    header) a heading's too."""
    theme = get_theme(style["theme"])
    grounds = cell_backgrounds(theme, style["accent"])
    if kind.scope != "cell":
        grounds += heading_backgrounds(theme, style["accent"])
    return tuple(dict.fromkeys(grounds))


def mark_paint(streams: Streams, kind: MarkKind, drawn: Mapping[str, Any],
               style: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a mark of ``kind`` draws differently from the base's look ``drawn`` so that it
    stands out on the table ``style`` (:func:`mark_grounds`); empty when the look's own
    paint already does, so those variants keep their bytes.

    - a ``fill`` (the colour laid at the look's opacity, at most the kind's): ``colour``
      drawn from :data:`COLOURS` among those that differ from every ground by at least
      :data:`~hopvista.augment.contrast.FILL_DELTA_E`, and ``replaced``;
    - an ``ink`` (lines; over the halo when the kind draws one): ``ink`` drawn from
      :data:`INKS` among those that differ by at least
      :data:`~hopvista.augment.contrast.STROKE_DELTA_E` from every ground and the halo laid
      over it, and ``replaced_ink``;
    - ``text`` draws in the text's own colour: nothing.

    Each draw is rendezvous hashing on the base's streams; with none that passes, the one
    that differs most. ``replaced`` / ``replaced_ink`` record the colour or ink the look
    gave and its ΔE₀₀ against the ground nearest it."""
    if style is None or kind.paint == "text":
        return {}
    grounds = mark_grounds(kind, style)
    if kind.paint == "fill":
        opacity = min(float(drawn["opacity"]), kind.most_opacity)
        return _repainted(streams, "colour", "replaced", str(drawn["colour"]), COLOURS,
                          lambda colour: fill_delta_e(colour, opacity, grounds), FILL_DELTA_E)
    lying_on = under_ink(grounds, HALO if kind.halo else None)
    return _repainted(streams, "ink", "replaced_ink", str(ink_look(drawn)["ink"]), INKS,
                      lambda ink: least_delta_e(ink, lying_on), STROKE_DELTA_E)


def _repainted(streams: Streams, key: str, record: str, given: str, choices: Sequence[str],
               least: Callable[[str], float], threshold: float) -> dict[str, Any]:
    """``{}`` when ``given`` stands out by ``threshold``; else ``key``: a choice that does
    (rendezvous on ``markup.{key}``) and ``record``: what it replaced."""
    chosen, replaced = standing_out(streams, f"markup.{key}", given, choices, least, threshold)
    return {} if replaced is None else {key: chosen, record: {key: given, **replaced}}


class MarkupParams(Params):
    """Markup variants take no parameters."""


def _markup_recipe(name: str, style: str | None, on: str | None) -> None:
    def plan(base: Base, streams: Streams, params: MarkupParams) -> Plan:
        # Cells and look come from the base's own streams (variant "markup"), so every
        # variant of a base marks the same cells in the same look (a kind's paint apart).
        shared = Streams(streams.seed, streams.item_id, GROUP)
        cells = choose_cells(base, shared)
        table_style = base_style(base, shared)
        drawn = look(shared, table_style)
        layout = base.shown()
        shown = drawn
        if style is not None and on is not None:
            at = cells[on]
            layout = marked(layout, {(at["row"], at["col"]): style})
            kind = MARK_KINDS.get(style)
            drawn = drawn | mark_paint(shared, kind, drawn, table_style)
            shown = drawn | (kind.sample(shared) if kind.sample is not None else {})
        record = {"style": style, "on": on, **cells, "look": drawn}
        return Plan(base.grid, layout, table_style, {"markup": name},
                    mark_look=shown, markup=record)

    plan.__doc__ = ("The table as it is (the markup control)." if style is None else
                    f"The {on} cell marked: {MARK_KINDS.get(style).description}.")
    recipe(name, GROUP, MarkupParams)(plan)


for _name, (_style, _on) in VARIANTS.items():
    _markup_recipe(_name, _style, _on)
