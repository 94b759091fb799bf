"""Variant recipes: how each of TableVista's ten variants shows a base item.

A :class:`Recipe` is pure: from the base (:class:`Base`: its item, logical table, protected
cells, chart) and the variant's named streams (``Streams(seed, base_id, variant)``) it returns
a :class:`Plan` — the table layout and style, the chart style, the perturbations to apply and
the exact parameters it drew — or raises :class:`Skip` when it cannot show this base without
touching what the answer depends on. The engine (:mod:`hopvista.variants.maker`) draws and writes.

The ten built-in recipes, by TableVista's groups:

- styles: ``web``, ``latex``, ``excel``, ``custom`` — the table in a theme of that family
  (:data:`hopvista.themes.tables.FAMILIES`), the chart redrawn in another sampled style
  (library, kind where every statement stays decidable, font, palette, size); the other
  variants perturb the base's chart image (or, changing only the table, redraw it at another
  size);
- transformations: ``noise`` (blur, noise, JPEG, contrast), ``structural`` (row and column
  order, transposition, merged cells, a two-level header, a mild elastic warp), ``partial``
  (the table in 2–3 panels, headers repeated), ``missing`` (unprotected value cells blanked);
- vision only: ``screenshot`` (table, chart and question in an application window) and
  ``photo`` (a phone photo of a screen or of paper).

A table whose cells hold pictures (an ``mmtable`` item) gets all ten: each picture travels
with its logical cell, a ``missing`` variant keeps every picture and every cell of a column the
question's program reads (:func:`picture_protected_cells`), and no layout moves what the
answer names (:func:`layout_named`: a location's row and column, a list's table order).

A third-party package adds a recipe with ``VARIANTS.register(name, Recipe(...))`` (entry-point
group ``hopvista.variants``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hopvista.augment.grid import (
    Grid,
    Layout,
    blank,
    grid_of_table,
    layout_json,
    merged,
    order_columns,
    order_rows,
    pivoted,
    plain,
    split_columns,
    split_rows,
    transposed,
    wrap_columns,
    wrap_rows,
)
from hopvista.augment.perturbation import PERTURBATIONS, parse_params
from hopvista.augment.structures import (
    laid_out,
    note_texts,
    reshapes,
    shown_grid,
)
from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.inputs import GridTable, Table
from hopvista.model.structure import TableStructure
from hopvista.program.cells import ORDER, PLACE, layout_dependence, read_columns
from hopvista.program.executor import MISSING_TOKENS
from hopvista.registry import Registry
from hopvista.rng import Streams
from hopvista.themes.chart_kinds import allowed_kinds
from hopvista.themes.charts import sample_chart_style
from hopvista.themes.pages import page_names
from hopvista.themes.tables import get_theme, sample_table_style
from hopvista.themes.tables.policy import cell_backgrounds
from hopvista.themes.visuals.palette import stands_out

P = TypeVar("P", bound=BaseModel)


class Skip(Exception):
    """A recipe cannot show this base (the message says why); the engine counts it."""


@dataclass(frozen=True)
class Base:
    """What a variant is made from. ``protected`` maps logical cells to why no variant may hide
    them; ``chart_png`` is the base's chart image (a hopvista base's, or an imported release's
    whose charts exist only as images) and ``chart_render`` how it was drawn; ``table_style``
    the base's own table style, if it has one. ``grid`` holds each logical cell's text as the
    base shows it and ``layout`` how the base shows its table (a generated table's structure:
    :func:`hopvista.augment.structures.structured_layout`); without one, the plain grid."""

    item: Item
    grid: Grid
    protected: Mapping[tuple[int, int], str]
    table_style: Mapping[str, Any] | None = None
    chart_png: bytes | None = None
    min_rank_gap: float | None = None
    chart_render: Mapping[str, Any] = field(default_factory=dict)
    layout: Layout | None = None

    def shown(self) -> Layout:
        """The layout the base's table is shown in: a variant that shows the table as it is
        shows this."""
        return self.layout if self.layout is not None else plain(self.grid)

    def structure(self) -> TableStructure | None:
        """The structure of the base's table when it is shown other than as one plain grid
        (:func:`hopvista.augment.structures.reshapes`), else ``None``."""
        table = self.item.inputs.table
        if isinstance(table, Table) and reshapes(table):
            return table.structure
        return None

    def lay_out(self, grid: Grid) -> Layout:
        """``grid`` (the base's, its rows reordered or cells blanked) shown as the base shows
        its table: in its structure, or as one plain grid."""
        table = self.item.inputs.table
        if isinstance(table, Table) and reshapes(table):
            return laid_out(grid, table)
        return plain(grid)


@dataclass(frozen=True)
class Plan:
    """A recipe's decisions for one base. ``chart_style`` redraws the chart from its data;
    ``None`` keeps the base's chart image (drawn in the base's own style when the input has no
    image); ``table_perturbations`` / ``chart_perturbations`` are
    ``(perturbation name, params)`` applied in order; ``page`` (screenshot) names the page
    template and its settings; ``blanked`` the logical cells shown as ``token``; ``mark_look``
    how marked cells are drawn and ``markup`` the record of a markup variant
    (``variant.markup``)."""

    grid: Grid
    layout: Layout
    table_style: Mapping[str, Any]
    parameters: dict[str, Any]
    chart_style: Mapping[str, Any] | None = None
    table_perturbations: tuple[tuple[str, dict[str, Any]], ...] = ()
    chart_perturbations: tuple[tuple[str, dict[str, Any]], ...] = ()
    page: dict[str, Any] | None = None
    blanked: tuple[tuple[int, int], ...] = ()
    token: str = ""
    mark_look: Mapping[str, Any] | None = None
    markup: dict[str, Any] | None = None


MakePlan = Callable[[Base, Streams, P], Plan]

RESIZED: tuple[tuple[str, dict[str, Any]], ...] = (("rescale", {}),)
"""What a variant that changes only the table does to the base's chart image: draws it at
another size (the chart varies in every variant, cheaply)."""


@dataclass(frozen=True)
class Recipe(Generic[P]):
    """One registered variant recipe: its parameters (a pydantic model) and its planner."""

    name: str
    group: str
    description: str
    parameters: type[P]
    plan: MakePlan[P]
    protects: bool = field(default=False)
    """Whether the recipe hides or moves cells (it must keep protected cells clear)."""
    shows_pictures: bool = field(default=False)
    """Whether the recipe shows a table's cell pictures (``inputs.visuals``) in their cells,
    each as its kind draws it; a base with pictures gets no variant of a recipe that does
    not."""

    def parse(self, params: Mapping[str, Any] | None) -> P:
        """Validated parameters; a ``UserError`` naming the variant and the field."""
        return parse_params(self.parameters, params, f"variant {self.name!r}")


VARIANTS: Registry[Recipe[Any]] = Registry("variant", "variants")
"""Every variant recipe, by name."""


class Params(BaseModel):
    """Parameters shared by every recipe (none yet); unknown keys are an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def pictures_skip(recipe: Recipe[Any], item: Item) -> str | None:
    """Why ``recipe`` makes no variant of ``item`` because of the pictures in its cells
    (``None``: it may)."""
    if not item.inputs.visuals or recipe.shows_pictures:
        return None
    return f"recipe {recipe.name!r} does not show the pictures in a table's cells"


def recipe(name: str, group: str, parameters: type[P], *, protects: bool = False,
           shows_pictures: bool = False) -> Callable[[MakePlan[P]], MakePlan[P]]:
    """Register ``plan`` as the recipe ``name`` (description: its docstring's first line)."""
    def register(plan: MakePlan[P]) -> MakePlan[P]:
        text = (plan.__doc__ or "").strip().split("\n")[0]
        VARIANTS.register(name, Recipe(name, group, text, parameters, plan, protects,
                                       shows_pictures))
        return plan

    return register


# -- styles ----------------------------------------------------------------------------------


def family_style(streams: Streams, family: str | None, grid: Grid | None = None
                 ) -> dict[str, Any]:
    """A table style drawn from the themes of ``family`` (all themes for ``None``) whose
    fonts show every character of ``grid``."""
    text = "" if grid is None else grid_text(grid)
    return sample_table_style(streams, family=family, text=text)


def grid_text(grid: Grid) -> str:
    """Every character a grid shows (caption and cells)."""
    return (grid.caption or "") + "".join(c.text for row in grid.rows for c in row)


def base_style(base: Base, streams: Streams) -> dict[str, Any]:
    """The base's own table style, or one drawn from every theme."""
    return dict(base.table_style) if base.table_style else \
        family_style(streams, None, base.grid)


def chart_style(base: Base, streams: Streams) -> dict[str, Any] | None:
    """A chart style for this variant when the item's chart is data (``None``: no chart, or a
    chart that exists only as an image). The kind stays one that keeps every statement
    decidable (:func:`hopvista.themes.chart_kinds.allowed_kinds`)."""
    chart = base.item.inputs.chart
    if chart is None:
        return None

    kinds = [chart.kind]
    if base.min_rank_gap is not None and base.item.statements:
        kinds = allowed_kinds(chart.model_dump(mode="json"), chart_readers(base.item),
                              base.min_rank_gap) or kinds
    return sample_chart_style(streams, kinds)


@dataclass(frozen=True)
class _Reader:
    type: str
    modalities: tuple[str, ...]
    program: Mapping[str, Any]


def chart_readers(item: Item) -> list[_Reader]:
    """The item's statements as the chart kinds read them (type, modalities, program)."""
    return [_Reader(s.type, s.modalities,
                    s.program.model_dump(mode="json", by_alias=True) if s.program else {})
            for s in item.statements]


STYLE_DRAWS = 8
"""How many styles a style variant draws, at most, to find one its table's pictures stand out
on."""


def pictures_stand_out(item: Item, style: Mapping[str, Any]) -> bool:
    """Whether each of the item's cell pictures stands out from every background a body cell
    of ``style`` may have (:func:`hopvista.themes.visuals.palette.stands_out`)."""
    if not item.inputs.visuals:
        return True
    backgrounds = cell_backgrounds(get_theme(style["theme"]), style["accent"])
    return all(stands_out(visual.colors[0], backgrounds) for visual in item.inputs.visuals)


def picture_style(base: Base, streams: Streams, family: str | None) -> dict[str, Any]:
    """A table style of ``family`` (of every family for ``None``) for ``base``, drawn again
    (from the streams of ``VARIANT.again-K``) while its pictures would not stand out on it;
    failing that, for ``None``, the base's own style when they stand out on it."""
    style = family_style(streams, family, base.grid)
    for again in range(1, STYLE_DRAWS + 1):
        if pictures_stand_out(base.item, style):
            return style
        style = family_style(Streams(streams.seed, streams.item_id,
                                     f"{streams.variant}.again-{again}"), family, base.grid)
    if pictures_stand_out(base.item, style):
        return style
    if family is None and base.table_style and \
            pictures_stand_out(base.item, base.table_style):
        return dict(base.table_style)
    raise Skip(f"no {family or 'table'} theme drawn shows every picture of the table clearly")


def _style_recipe(family: str) -> MakePlan[Params]:
    def plan(base: Base, streams: Streams, params: Params) -> Plan:
        style = picture_style(base, streams, family)
        return Plan(base.grid, base.shown(), style, {"theme": style["theme"]},
                    chart_style=chart_style(base, streams),
                    chart_perturbations=() if base.item.inputs.chart is not None else RESIZED)
    plan.__doc__ = f"The table in a theme of the {family} family; the chart in another style."
    return plan


for _family in ("web", "latex", "excel", "custom"):
    recipe(_family, "style", Params, shows_pictures=True)(_style_recipe(_family))


# -- transformations -------------------------------------------------------------------------


class NoiseParams(Params):
    """``noise``: the parameters passed to the ``noise`` perturbation (its defaults if empty)."""

    perturbation: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known(self) -> NoiseParams:
        _check_perturbation("noise", self.perturbation)
        return self


def _check_perturbation(name: str, params: Mapping[str, Any]) -> None:
    """Parameters for a perturbation, checked when the variant is named (a ``UserError``
    naming the field), not when the first image is drawn."""
    PERTURBATIONS.get(name).parse(params)


@recipe("noise", "transformation", NoiseParams, shows_pictures=True)
def noise(base: Base, streams: Streams, params: NoiseParams) -> Plan:
    """Blur, sensor noise, JPEG and contrast on the table and chart images."""
    step = (("noise", dict(params.perturbation)),)
    return Plan(base.grid, base.shown(), base_style(base, streams), {},
                table_perturbations=step, chart_perturbations=step)


STRUCTURAL_OPS = ("row-order", "column-order", "transpose", "merge", "pivot")


class StructuralParams(Params):
    """``structural``: which layout changes may be drawn, how many, and the warp."""

    ops: tuple[str, ...] = STRUCTURAL_OPS
    count: int = Field(2, ge=1, le=3)
    elastic: float = Field(0.5, ge=0, le=1, description="probability of a mild elastic warp")
    max_transpose_rows: int = Field(12, ge=1)


MOVES: Mapping[str, frozenset[str]] = {
    PLACE: frozenset({"row-order", "column-order", "transpose", "pivot"}),
    ORDER: frozenset({"row-order", "pivot"}),
}
"""The structural changes that move what an answer names (:func:`layout_named`): a cell's
place in the table as built, or the order of its rows."""

KEPT_BY_NONE = {
    PLACE: "the answer names a cell by its place in the table as built (row_i_col_j), which "
           "every structural change that fits this table would move",
    ORDER: "the answer lists rows in table order, which every structural change that fits "
           "this table would reorder",
}
"""Why ``structural`` makes no variant of a base whose answer names what every change that
fits would move."""


def layout_named(item: Item) -> str | None:
    """What of the table's layout the item's answer names (a multimodal table's program:
    :func:`hopvista.program.cells.layout_dependence`); ``None`` for any other item."""
    if item.program is None:
        return None
    return layout_dependence(item.program)


@recipe("structural", "transformation", StructuralParams, protects=True, shows_pictures=True)
def structural(base: Base, streams: Streams, params: StructuralParams) -> Plan:
    """Layout changes that keep every cell: order, transposition, merged or two-level headers."""
    unknown = set(params.ops) - set(STRUCTURAL_OPS)
    if unknown:
        raise UserError(f"variant 'structural': ops: unknown {sorted(unknown)}; "
                        f"known: {list(STRUCTURAL_OPS)}")
    structure = base.structure()
    if structure is not None:
        return _structure_kept(base, streams, params, structure.type)
    grid = base.grid
    fitting = [op for op in params.ops if _structural_ok(op, base, params)]
    named = layout_named(base.item)
    usable = [op for op in fitting if named is None or op not in MOVES[named]]
    if not usable:
        raise Skip(KEPT_BY_NONE[named] if fitting and named is not None
                   else "no structural change fits this table")
    rng = streams.stream("structural.ops")
    ops = sorted(rng.choice(len(usable), size=min(params.count, len(usable)), replace=False))
    chosen = [usable[i] for i in ops]
    if "pivot" in chosen and "transpose" in chosen:
        chosen.remove("transpose")
    drawn: dict[str, Any] = {"ops": chosen}
    if "row-order" in chosen:
        order = _row_order(grid, streams)
        grid = order_rows(grid, order)
        drawn["row_order"] = order
    if "column-order" in chosen:
        rest = list(range(grid.label_cols, grid.width))
        moved = [int(i) for i in streams.stream("structural.columns").permutation(rest)]
        if moved == rest and len(rest) > 1:
            moved = rest[1:] + rest[:1]
        order = list(range(grid.label_cols)) + moved
        grid = order_columns(grid, order)
        drawn["column_order"] = order
    layout: Layout | None = None
    if "pivot" in chosen:
        layout = pivoted(grid)
    elif "transpose" in chosen:
        layout = transposed(grid)
    if layout is None:
        layout = plain(grid)
    if "merge" in chosen and "transpose" not in chosen and "pivot" not in chosen:
        layout = merged(layout)
    warp = streams.uniform("structural.elastic") < params.elastic
    drawn["elastic"] = warp
    drawn["layout"] = layout_json(layout)
    return Plan(grid, layout, base_style(base, streams), drawn,
                table_perturbations=(("elastic", {}),) if warp else (),
                chart_perturbations=RESIZED)


KEEP_STRUCTURE = ("row-order",)
"""The structural changes a table shown in a structure of its own (header levels, merged cells,
related tables, long format) is given: they keep that structure. Transposing, pivoting,
merging or reordering columns would undo it."""


def _structure_kept(base: Base, streams: Streams, params: StructuralParams,
                    structure: str) -> Plan:
    """``structural`` of a base whose table has a structure of its own: its rows in another
    order (whole entities moved together) and its related tables in another order, shown in
    that structure."""
    if not [op for op in params.ops if op in KEEP_STRUCTURE
            and _structural_ok(op, base, params)]:
        raise Skip(f"no structural change asked for keeps the table's {structure} structure "
                   f"(only {', '.join(KEEP_STRUCTURE)} does, on a table of several rows)")
    order = _row_order(base.grid, streams)
    layout = base.lay_out(order_rows(base.grid, order))
    drawn: dict[str, Any] = {"ops": list(KEEP_STRUCTURE), "row_order": order,
                             "structure": structure}
    if len(layout.panels) > 1:
        tables = _panel_order(len(layout.panels), streams)
        layout = replace(layout, panels=tuple(layout.panels[i] for i in tables))
        drawn["table_order"] = tables
    warp = streams.uniform("structural.elastic") < params.elastic
    drawn |= {"elastic": warp, "layout": layout_json(layout)}
    return Plan(base.grid, layout, base_style(base, streams), drawn,
                table_perturbations=(("elastic", {}),) if warp else (),
                chart_perturbations=RESIZED)


def _panel_order(count: int, streams: Streams) -> list[int]:
    """A new order of ``count`` related tables (never the one they had)."""
    order = [int(i) for i in streams.stream("structural.tables").permutation(count)]
    return order[1:] + order[:1] if order == sorted(order) else order


def _structural_ok(op: str, base: Base, params: StructuralParams) -> bool:
    grid = base.grid
    body = len(grid.body)
    if op == "row-order":
        return body > 1
    if op == "column-order":
        return grid.width - grid.label_cols > 1
    if op == "transpose":
        return body <= params.max_transpose_rows and grid.width <= 12
    if op == "merge":  # a merged cell shows its first cell: none of the run may hold a picture
        pictured = {(v.row, v.col) for v in base.item.inputs.visuals}
        firsts = [r[0].text for r in grid.body]
        return not any((r[0].row, r[0].col) in pictured for r in grid.body) and \
            any(a == b for a, b in zip(firsts, firsts[1:], strict=False))
    return grid.label_cols == 2 and pivoted(grid) is not None


def _row_order(grid: Grid, streams: Streams) -> list[int]:
    """A new body order: whole entities moved together when rows are grouped by entity, and
    a row hierarchy's top-level rows with the rows below them."""
    levels = dict(grid.levels)
    runs: list[list[int]] = []
    for i, row in enumerate(grid.body):
        below = levels.get(row[0].row, 0) > 0
        if runs and (below or grid.label_cols == 2
                     and grid.body[runs[-1][0]][0].text == row[0].text):
            runs[-1].append(i)
        else:
            runs.append([i])
    if len(runs) < 2:
        runs = [[i] for i in range(len(grid.body))]
    order = [int(i) for i in streams.stream("structural.rows").permutation(len(runs))]
    if order == sorted(order):
        order = order[1:] + order[:1]
    return [i for k in order for i in runs[k]]


class PartialParams(Params):
    """``partial``: how many panels (drawn in the range) and which cut."""

    panels: tuple[int, int] = (2, 3)
    cut: str = Field("any", pattern="^(any|rows|columns)$")


PANELS_RENUMBER = "the answer names a cell by its place in the table as built (row_i_col_j), " \
    "which panels would renumber"
"""Why ``partial`` makes no variant of a base whose answer names a cell's place."""


@recipe("partial", "transformation", PartialParams, protects=True, shows_pictures=True)
def partial(base: Base, streams: Streams, params: PartialParams) -> Plan:
    """The table in 2–3 panels, each repeating the headers a reader needs."""
    if layout_named(base.item) == PLACE:
        raise Skip(PANELS_RENUMBER)
    low, high = sorted(params.panels)
    parts = streams.integer("partial.panels", max(2, low), max(2, high))
    grid = base.grid
    can_rows = len(grid.body) >= 2
    can_cols = grid.width - grid.label_cols >= 2
    cuts = [c for c, ok in (("rows", can_rows), ("columns", can_cols))
            if ok and params.cut in ("any", c)]
    if not cuts:
        raise Skip("the table is too small to split")
    cut = streams.choose(cuts, "partial.cut")
    structure = base.structure()
    if structure is None:
        layout = split_rows(grid, parts) if cut == "rows" else split_columns(grid, parts)
    else:
        cut, layout = _structured_panels(base, structure, cut, cuts, parts)
    return Plan(grid, layout, base_style(base, streams),
                {"cut": cut, "panels": len(layout.panels), "layout": layout_json(layout)},
                chart_perturbations=RESIZED)


def _structured_panels(base: Base, structure: TableStructure, cut: str, cuts: list[str],
                       parts: int) -> tuple[str, Layout]:
    """The base's structured layout cut into ``parts`` panels (``cut`` first, then the other
    of ``cuts``), each repeating the header levels (rows) or the row labels (columns), cut
    only where no spanning cell is split; ``Skip`` when no cut keeps the structure, or the
    table is shown as related tables already."""
    if structure.tables:
        raise Skip(f"the table is shown as {len(structure.tables)} related tables already "
                   "(multi-table)")
    for tried in [cut, *(c for c in cuts if c != cut)]:
        if tried == "rows":
            wrapped = wrap_rows(base.shown(), parts)
        else:
            wrapped = wrap_columns(base.shown(), parts)
        if wrapped is not None:
            return tried, replace(wrapped, arrange="stack" if tried == "rows" else "side")
    raise Skip(f"no cut into panels keeps the table's {structure.type} structure (each would "
               "split a spanning cell)")


class MissingParams(Params):
    """``missing``: the share of unprotected value cells blanked and the tokens shown."""

    share: tuple[float, float] = (0.1, 0.25)
    tokens: tuple[str, ...] = ("", "N/A", "-", "n/a", "--")

    @model_validator(mode="after")
    def _known(self) -> MissingParams:
        unknown = [t for t in self.tokens if t.strip().lower() not in MISSING_TOKENS]
        if unknown:
            raise UserError(f"variant 'missing': tokens: {unknown[0]!r} is not a token readers "
                            f"know as missing ({sorted(MISSING_TOKENS)})")
        if not all(0 <= x <= 1 for x in self.share):
            raise UserError("variant 'missing': share: give two numbers in [0, 1]")
        return self


@recipe("missing", "transformation", MissingParams, protects=True, shows_pictures=True)
def missing(base: Base, streams: Streams, params: MissingParams) -> Plan:
    """Value cells no answer depends on shown blank or as N/A."""
    grid = base.grid
    stated = _noted_cells(base.item)
    free = [(c.row, c.col) for row in grid.body for c in row[grid.label_cols:]
            if (c.row, c.col) not in base.protected and (c.row, c.col) not in stated
            and c.text.strip()]
    if not free:
        raise Skip("every value cell is protected")
    low, high = sorted(params.share)
    share = low + (high - low) * streams.uniform("missing.share")
    count = max(1, min(len(free), round(share * len(free))))
    picked = streams.stream("missing.cells").choice(len(free), size=count, replace=False)
    cells = tuple(sorted(free[int(i)] for i in picked))
    token = streams.choose(params.tokens, "missing.token") if params.tokens else ""
    shown = blank(grid, cells, token)
    return Plan(shown, base.lay_out(shown), base_style(base, streams),
                {"cells": [list(c) for c in cells], "token": token},
                chart_perturbations=RESIZED, blanked=cells, token=token)


def _noted_cells(item: Item) -> set[tuple[int, int]]:
    """The logical cells a ``text-mixed`` table states in sentences (its notes column): a
    variant shows each sentence whole, never blanked."""
    table = item.inputs.table
    if not isinstance(table, Table):
        return set()
    return set(note_texts(table, {e.id: e.name for e in item.entities}))


# -- vision only -----------------------------------------------------------------------------


class ScreenshotParams(Params):
    """``screenshot``: the page templates to draw from, the window width, height and zoom
    ranges."""

    pages: tuple[str, ...] = ()
    width_px: tuple[int, int] = (1000, 1400)
    height_px: tuple[int, int] = (1000, 1400)
    zoom: tuple[float, float] = (0.8, 1.0)

    @model_validator(mode="after")
    def _window(self) -> ScreenshotParams:
        if not all(WINDOW_HEIGHTS[0] <= h <= WINDOW_HEIGHTS[1] for h in self.height_px):
            raise UserError(f"variant 'screenshot': height_px: give two heights in "
                            f"[{WINDOW_HEIGHTS[0]}, {WINDOW_HEIGHTS[1]}] pixels")
        return self


WINDOW_HEIGHTS = (400, 4000)
"""The window heights (CSS pixels) a screenshot may be drawn with."""


@recipe("screenshot", "vision", ScreenshotParams, shows_pictures=True)
def screenshot(base: Base, streams: Streams, params: ScreenshotParams) -> Plan:
    """The table, its chart and the question inside an application window.

    The window is ``height_px`` tall, taller up to the range's top when what the answer
    depends on needs it: a longer page scrolls (the engine shows the part holding the cells,
    and the chart a statement reads, and records ``scroll_px``)."""
    names = list(params.pages) or page_names()
    unknown = set(names) - set(page_names())
    if unknown:
        raise UserError(f"variant 'screenshot': pages: unknown {sorted(unknown)}; "
                        f"known: {page_names()}")
    page = streams.choose(names, "screenshot.page")
    low, high = sorted(params.width_px)
    width = streams.integer("screenshot.width", low, high)
    zlow, zhigh = sorted(params.zoom)
    zoom = round(zlow + (zhigh - zlow) * streams.uniform("screenshot.zoom"), 2)
    title = streams.choose(("Quarterly review", "Data export", "Report draft", "Team notes",
                            "Question", "Analysis"), "screenshot.title")
    low, high = sorted(params.height_px)
    height = streams.integer("screenshot.height", low, high)
    setting = {"template": page, "width_px": width, "height_px": height, "zoom": zoom,
               "title": title}
    return Plan(base.grid, base.shown(), picture_style(base, streams, None),
                dict(setting),
                page=setting | {"max_height_px": high})


CAMERA_STRENGTH = 0.4
"""The strength of the camera's effects a ``photo`` variant adds by default."""


class PhotoParams(Params):
    """``photo``: what was photographed (``screen``, ``paper`` or ``any``) and the
    perturbation's own parameters."""

    surface: str = Field("any", pattern="^(any|screen|paper)$")
    perturbation: dict[str, Any] = Field(default_factory=dict)
    effects: float = Field(CAMERA_STRENGTH, ge=0.0, le=1.0, description=(
        "Strength of the camera's effects after the photo (glare, uneven light, defocus, "
        "motion blur, JPEG artefacts: the 'camera' perturbation); 0 leaves them out."))

    @model_validator(mode="after")
    def _known(self) -> PhotoParams:
        if self.perturbation and self.surface == "any":
            raise UserError("variant 'photo': perturbation parameters need surface=screen or "
                            "surface=paper (the two photos take different ones)")
        for surface in ("screen", "paper"):
            if self.surface == surface:
                _check_perturbation(f"photo-{surface}", self.perturbation)
        return self


@recipe("photo", "vision", PhotoParams, shows_pictures=True)
def photo(base: Base, streams: Streams, params: PhotoParams) -> Plan:
    """A phone photo of the table and chart, on a screen or on paper."""
    surface = params.surface if params.surface != "any" else \
        streams.choose(("screen", "paper"), "photo.surface")
    step: tuple[tuple[str, dict[str, Any]], ...] = ((f"photo-{surface}",
                                                      dict(params.perturbation)),)
    if params.effects > 0:
        step += (("camera", {"strength": params.effects}),)
    return Plan(base.grid, base.shown(), base_style(base, streams), {"surface": surface},
                table_perturbations=step, chart_perturbations=step)


TEN = ("web", "latex", "excel", "custom", "noise", "structural", "partial", "missing",
       "screenshot", "photo")
"""TableVista's ten variants, in its order."""


def protected_cells(item: Item) -> dict[tuple[int, int], str]:
    """The logical table cells a generated item's programs read, each with why (of a
    multimodal table: :func:`picture_protected_cells`)."""
    table = item.inputs.table
    if isinstance(table, GridTable) and item.program is not None:
        return picture_protected_cells(item, table)
    if not isinstance(table, Table):
        return {}
    first = 1 if table.period_label is None else 2
    rows = {(row.entity, row.year): r for r, row in enumerate(table.rows, start=1)}
    cols = {column.key: first + i for i, column in enumerate(table.columns)}
    found: dict[tuple[int, int], str] = {}
    for n, statement in enumerate(item.statements, start=1):
        for cell in statement.cells:
            if cell.modality != "table":
                continue
            at = (rows.get((cell.entity, cell.year)), cols.get(cell.column))
            if at[0] is not None and at[1] is not None:
                found.setdefault((at[0], at[1]),
                                 f"read by statement {n} ({statement.type})")
    return found


def picture_protected_cells(item: Item, table: GridTable) -> dict[tuple[int, int], str]:
    """The cells of a multimodal table no variant may hide: each cell holding a picture, and
    every body cell of a column its question's program reads (a condition is tested on
    every row: :func:`hopvista.program.cells.read_columns`)."""
    found = {(v.row, v.col): "holds a picture" for v in item.inputs.visuals}
    grid = [list(table.header), *(list(row) for row in table.rows)]
    for col in sorted(read_columns(grid, item.program or {})):
        for row in range(1, len(grid)):
            found.setdefault((row, col), "read by the question's program")
    return dict(sorted(found.items()))


def base_of_item(item: Item, root: Path | None = None) -> Base:
    """A hopvista base item as a :class:`Base` (with its chart image, read from the dataset
    folder ``root``, when it has one)."""
    names = {e.id: e.name for e in item.entities}
    if item.inputs.table is None:
        raise Skip("the item has no table")
    decide = item.provenance.decidability or {}
    gap = decide.get("min_rank_gap")
    chart = item.image("chart")
    png = (root / chart.path).read_bytes() if chart is not None and root is not None else None
    table = item.inputs.table
    grid = shown_grid(table, names) if isinstance(table, Table) else grid_of_table(table, names)
    return Base(item, grid, protected_cells(item),
                table_style=item.variant.style.get("table") or None, chart_png=png,
                chart_render=chart.render if chart is not None else {},
                min_rank_gap=float(gap) if isinstance(gap, (int, float)) else None,
                layout=laid_out(grid, table) if isinstance(table, Table) else None)
