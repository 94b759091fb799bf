"""Multimodal-table items (kind ``mmtable``), re-proved by ``gen verify``.

What is checked, never trusting what the item says of itself (docs/format.md, section 12):

- its visuals are well-formed: each lies inside the grid, at most one per cell, on a cell that
  shows no text (colours ``#rrggbb`` are held by the typed model);
- its answer is what its program gives (:func:`hopvista.program.cells.execute`), and its
  ``answer_type`` is the type of that answer;
- its tags agree with its program: the answer type is the one its answer is written as, the
  reasoning type and question type are among those its program's shape allows
  (:func:`allowed_reasoning`, :func:`allowed_question_types`), and the archetype is the one
  the kinds of its visuals make (:func:`archetype_of`, from the families the registered visual
  kinds declare; not checked when a kind is unknown);
- its question needs its visuals (:func:`hopvista.program.cells.visual_witness`), each
  withheld attribute tried at the values its kind's vocabulary lists;
- of its table (or page) image: each picture is recorded once, inside its cell, wherever the
  layout puts the cell (:func:`shown_pictures_problem`); and the layout keeps what the answer
  names (:func:`named_layout_problem`): a location answer's cell at its row and column as
  built, a list in table order's rows in that order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.program.cells import (
    ORDER,
    Grid,
    ProgramError,
    Visuals,
    Vocabulary,
    answer_readings,
    answered_rows,
    column_index,
    execute,
    layout_dependence,
    rows_where,
    visual_witness,
)
from hopvista.themes.tables import get_theme
from hopvista.themes.tables.policy import cell_backgrounds
from hopvista.themes.visuals import VISUAL_KINDS, families, vocabularies
from hopvista.themes.visuals.palette import PICTURE_CONTRAST, stands_out

ENTITY, MAP, CHART, VISUALISATION = "entity", "map", "chart", "visualisation"
"""The families of MMTabReal's image types a visual kind draws (each registered kind names
its own: :attr:`hopvista.themes.visuals.VisualKind.family`): entities (logos, flags, people),
maps, charts, and in-cell visualisations of a value (ratings, arrows, checks)."""

MATHEMATICAL = ("count", "sum", "mean", "difference", "ratio")
READS_A_ROW = ("value", "values", "fields")


def grid_of(item: Item) -> list[list[str]]:
    """An ``mmtable`` item's table as a grid of texts, header row first."""
    table = item.inputs.table
    if table is None or not hasattr(table, "header"):
        raise ProgramError("an mmtable item needs a grid table (header and rows of texts)")
    return [list(table.header), *(list(row) for row in table.rows)]


def visuals_of(item: Item) -> dict[tuple[int, int], dict[str, Any]]:
    """An ``mmtable`` item's visuals by grid cell."""
    return {(v.row, v.col): v.model_dump(mode="json") for v in item.inputs.visuals}


def visual_problems(grid: Grid, item: Item) -> list[str]:
    """Visuals outside the grid, on a cell with text, or two on one cell."""
    problems = []
    seen: set[tuple[int, int]] = set()
    for k, visual in enumerate(item.inputs.visuals):
        where = f"inputs.visuals[{k}]"
        cell = (visual.row, visual.col)
        if not (visual.row < len(grid) and visual.col < len(grid[visual.row])):
            problems.append(f"{where}: row {visual.row}, col {visual.col} lies outside the "
                            f"{len(grid)}-row table")
        elif grid[visual.row][visual.col].strip():
            problems.append(f"{where}: its cell (row {visual.row}, col {visual.col}) shows "
                            f"{grid[visual.row][visual.col][:40]!r}; a visual's cell shows "
                            "no text")
        if cell in seen:
            problems.append(f"{where}: a second visual on row {visual.row}, col {visual.col}")
        seen.add(cell)
    widths = {len(row) for row in grid}
    if len(widths) != 1:
        problems.append("inputs.table: rows do not all have as many cells as the header")
    return problems


def answer_type_of(program: Mapping[str, Any], answer: Any) -> str:
    """MMTabReal's answer type of ``answer``, the answer ``program`` gives."""
    if _answers_a_location(program):
        return "image-location"
    if isinstance(answer, list):
        numbers = [isinstance(a, int | float) and not isinstance(a, bool) for a in answer]
        return "multiple-numbers" if all(numbers) else \
            "multiple-entities" if not any(numbers) else "multiple-types"
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        return "single-number"
    return "single-entity"


def json_type(answer: Any) -> str:
    """The item ``answer_type`` (``table_qa``'s) of an answer."""
    if isinstance(answer, bool):
        return "boolean"
    if isinstance(answer, int | float):
        return "number"
    return "list" if isinstance(answer, list) else "text"


def _selection(program: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The conditions and readings that pick rows: ``where``, ``a``, ``b``, ``by``."""
    found: list[Mapping[str, Any]] = []
    for key in ("where", "a", "b"):
        part = program.get(key)
        if isinstance(part, list | tuple):
            found += [c for c in part if isinstance(c, Mapping)]
    if isinstance(program.get("by"), Mapping):
        found.append(program["by"])
    return found


def _answers_a_location(program: Mapping[str, Any]) -> bool:
    """Whether the answer is the location of one picture: a ``locate``, or a single reading
    of a cell."""
    read = program.get("read")
    return program.get("op") == "locate" or isinstance(read, Mapping) and "cell" in read


def _answer_reads_visual(program: Mapping[str, Any]) -> bool:
    return program.get("op") == "locate" or \
        any("visual" in r or "cell" in r for r in answer_readings(program))


def _counts_visuals(program: Mapping[str, Any]) -> bool:
    where = program.get("where") or []
    return program.get("op") == "count" and bool(where) and \
        all(isinstance(c, Mapping) and "visual" in c for c in where)


def allowed_reasoning(program: Mapping[str, Any]) -> set[str]:
    """The reasoning types a program of this shape may be tagged with."""
    op = program.get("op")
    if op in ("argmax", "argmin"):
        return {"extrema"}
    if op == "check":
        return {"fact-verification"}
    if op in MATHEMATICAL:
        return {"mathematical", "vision-based"} if _counts_visuals(program) else {"mathematical"}
    return {"vision-based"} if _answer_reads_visual(program) else {"other"}


def allowed_question_types(grid: Grid, visuals: Visuals,
                           program: Mapping[str, Any]) -> set[str]:
    """The question types a program may be tagged with, on its table and visuals:

    ``visual``: the answer is read from a visual (or is its location), or counts rows chosen
    by their visuals only; ``answer-mention``: the answer is (or holds) the row label
    (column 0) of rows that hold a visual, or is the location of a visual (where the entity
    it pictures is shown); ``implicit``: rows are chosen by a visual and the
    answer is read from text, not the chosen rows' labels; ``explicit``: rows are chosen by
    naming a row label (column 0 ``eq``) of a row that holds a visual.
    """
    allowed = set()
    answer = answer_readings(program)
    imaged_rows = {row for row, _ in visuals}
    if _answer_reads_visual(program) or _counts_visuals(program):
        allowed.add("visual")
    labels = [r for r in answer if "column" in r and _is_column(grid, r["column"], 0)]
    rows = _rows_or_none(grid, visuals, program)
    names_imaged = program.get("op") in ("value", "values", "fields", "argmax", "argmin") and \
        bool(labels) and bool(rows) and set(rows) <= imaged_rows
    if names_imaged or _answers_a_location(program):
        allowed.add("answer-mention")
    selection = _selection(program)
    if any("visual" in c for c in selection) and not _answer_reads_visual(program) and \
            not labels:
        allowed.add("implicit")
    for condition in selection:
        if "column" in condition and "eq" in condition and \
                _is_column(grid, condition["column"], 0):
            named = _rows_or_none(grid, visuals, {"where": [condition], "op": "values"})
            if named and set(named) & imaged_rows:
                allowed.add("explicit")
    return allowed


def _is_column(grid: Grid, column: Any, index: int) -> bool:
    try:
        return column_index(grid, column) == index
    except ProgramError:
        return False


def _rows_or_none(grid: Grid, visuals: Visuals, program: Mapping[str, Any]) -> list[int]:
    try:
        if program.get("op") == "values" and "read" not in program:
            return rows_where(grid, visuals, program.get("where", []))
        return answered_rows(grid, visuals, program)
    except (ProgramError, KeyError, TypeError, ValueError, ArithmeticError):
        return []


def archetype_of(item: Item, families: Mapping[str, str] | None = None) -> str | None:
    """The archetype the kinds of an item's visuals make, or ``None`` when a kind's family is
    unknown or the families make none of MMTabReal's eight. ``families`` gives each kind's
    family (by default the registered visual kinds')."""
    families = kind_families() if families is None else families
    kinds = [v.kind for v in item.inputs.visuals]
    if not kinds or any(k not in families for k in kinds):
        return None
    found = {families[k] for k in kinds}
    if found == {ENTITY}:
        return "single-entity" if len(set(kinds)) == 1 else "multi-entity"
    if found == {CHART}:
        return "single-chart" if len(kinds) == 1 else "multiple-charts"
    by_families = {frozenset({VISUALISATION}): "visualisation",
                   frozenset({ENTITY, MAP}): "entities-maps",
                   frozenset({MAP}): "maps-only",
                   frozenset({ENTITY, CHART}): "entities-charts",
                   frozenset({ENTITY, VISUALISATION}): "entities-charts"}
    return by_families.get(frozenset(found))


def kind_families() -> dict[str, str]:
    """The family of each registered visual kind (:data:`hopvista.themes.visuals.FAMILIES`)."""
    return families()


def tag_problems(item: Item, grid: Grid, visuals: Visuals, answer: Any) -> list[str]:
    """Where the item's tags disagree with its program, answer and visuals."""
    tags, program = item.tags, item.program
    if tags is None or program is None:
        return []
    problems = []
    written = answer_type_of(program, answer)
    if tags.answer_type != written:
        problems.append(f"tags.answer_type {tags.answer_type!r} is not {written!r}, how the "
                        "program's answer is written")
    reasoning = allowed_reasoning(program)
    if tags.reasoning not in reasoning:
        problems.append(f"tags.reasoning {tags.reasoning!r} is not what a {program.get('op')!r} "
                        f"program does ({', '.join(sorted(reasoning))})")
    asked = allowed_question_types(grid, visuals, program)
    if tags.question_type not in asked:
        problems.append(f"tags.question_type {tags.question_type!r} does not fit the program "
                        f"(it fits {', '.join(sorted(asked)) or 'none'})")
    archetype = archetype_of(item)
    if archetype is not None and tags.archetype != archetype:
        problems.append(f"tags.archetype {tags.archetype!r} is not {archetype!r}, what its "
                        "visuals' kinds make")
    return problems


def mmtable_problems(item: Item, vocabulary: Vocabulary | None = None) -> list[str]:
    """What is wrong with an ``mmtable`` item (see the module docstring), each problem naming
    the field it is about. ``vocabulary`` gives the values each kind's attributes may take
    (by default the registered visual kinds' own: :func:`hopvista.themes.visuals.vocabularies`)."""
    vocabulary = vocabularies() if vocabulary is None else vocabulary
    if item.program is None:
        return ["program: an mmtable item without the program of its question"]
    try:
        grid = grid_of(item)
    except ProgramError as exc:
        return [f"inputs.table: {exc}"]
    problems = visual_problems(grid, item)
    if problems:
        return problems
    visuals = visuals_of(item)
    try:
        derived = execute(grid, visuals, item.program)
    except (ProgramError, KeyError, TypeError, ValueError, ArithmeticError) as exc:
        return [f"program: cannot be executed: {str(exc)[:200]}"]
    if json.dumps(derived, sort_keys=True) != json.dumps(item.answer, sort_keys=True):
        return [f"answer {_brief(item.answer)} is not what the program gives "
                f"({_brief(derived)})"]
    if item.answer_type != json_type(derived):
        problems.append(f"answer_type {item.answer_type!r} is not {json_type(derived)!r}, the "
                        "type of the program's answer")
    problems += tag_problems(item, grid, visuals, derived)
    if visual_witness(grid, visuals, item.program, vocabulary) is None:
        problems.append("program: the question does not need its visuals (no visual's "
                        "attributes, changed within their vocabulary, change its answer)")
    return problems


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


CELL_IMAGE_ROLE = "cell-image"
"""The role of a picture written alone (after the table image, in reading order)."""


def faint_picture_problem(item: Item) -> str | None:
    """A picture whose first colour would not stand out from a background its cell may have
    in the item's table style (``variant.style.table``), named; ``None`` when each does."""
    style = item.variant.style.get("table")
    if not isinstance(style, Mapping) or not isinstance(style.get("theme"), str):
        return "variant.style.table names no theme to show the pictures in"
    try:
        theme = get_theme(style["theme"])
        backgrounds = cell_backgrounds(theme, str(style.get("accent")))
    except (UserError, ValueError) as exc:
        return f"variant.style.table: {exc}"
    for visual in sorted(item.inputs.visuals, key=lambda v: (v.row, v.col)):
        if visual.colors and not stands_out(visual.colors[0], backgrounds):
            return (f"the {visual.kind} of row {visual.row}, col {visual.col} "
                    f"({visual.colors[0]}) does not stand out from a cell of theme "
                    f"{theme.name!r} ({', '.join(backgrounds)}): a contrast of "
                    f"{PICTURE_CONTRAST} is needed")
    return None


def shown_pictures_problem(item: Item, render: Mapping[str, Any], width: int,
                           height: int) -> str | None:
    """What is wrong with where the table image of ``width`` x ``height`` shows its pictures:
    its ``render.visuals`` must name each visual's cell once, with a box inside the image
    whose centre lies in that cell's box (``render.cells``), so that none is hidden or lost."""
    shown = render.get("visuals")
    if not isinstance(shown, list):
        return "render.visuals is not a list of the pictures' boxes"
    cells = {(c.get("row"), c.get("col")): c.get("box") for c in render.get("cells", [])
             if isinstance(c, dict)}
    seen: dict[tuple[Any, Any], Any] = {}
    for entry in shown:
        if not isinstance(entry, dict):
            return "render.visuals holds something other than a picture's record"
        seen.setdefault((entry.get("row"), entry.get("col")), []).append(entry.get("box"))
    wanted = {(v.row, v.col) for v in item.inputs.visuals}
    if set(seen) != wanted or any(len(boxes) != 1 for boxes in seen.values()):
        missing = sorted(wanted - set(seen))[:3]
        return f"render.visuals does not show each picture once (missing {missing}, " \
               f"{len(shown)} shown for {len(wanted)})"
    for (row, col), (box,) in sorted(seen.items()):
        if not _inside(box, (0, 0, width, height)):
            return f"the picture of row {row}, col {col} has no box inside the image"
        cell = cells.get((row, col))
        if not _inside(cell, (0, 0, width, height)) or \
                not _inside((box[0] + box[2] / 2, box[1] + box[3] / 2, 0, 0), cell):
            return f"the picture of row {row}, col {col} is not inside its cell"
    return None


def named_layout_problem(item: Item, render: Mapping[str, Any]) -> str | None:
    """What the table (or page) image's recorded layout moves of what the item's answer names
    (:func:`hopvista.program.cells.layout_dependence`), or ``None``.

    A location (``row_i_col_j``) names a cell by its row and column as built: the image must
    show one table, no header repeated, each row's cells left to right in column order and
    each column's cells top to bottom in row order. A list in table order needs the body rows
    in that order: their first cells one after another down the image, or, in a transposed
    table, left to right. Directions are read from the cells' centres along the axis the run
    mostly goes (a photo's tilt or a warp keeps them)."""
    named = layout_dependence(item.program or {})
    if named is None:
        return None
    boxes = {(c["row"], c["col"]): c["box"] for c in render.get("cells", [])
             if isinstance(c, dict) and type(c.get("row")) is int and type(c.get("col")) is int
             and _inside(c.get("box"), (0, 0, 1 << 30, 1 << 30))}
    if named == ORDER:
        rows = sorted(r for r, c in boxes if c == 0 and r > 0)
        if _run_problem([boxes[(r, 0)] for r in rows], ("y", "x")) is not None:
            return "the answer lists rows in table order, but the image shows the rows in " \
                   "another order"
        return None
    if render.get("copies"):
        return "the answer names a cell by its place in the table as built (row_i_col_j), " \
               "but the image repeats headers (panels renumber rows and columns)"
    moved = _place_problems(boxes)
    if not moved:
        return None
    (row, col), why = moved[0]
    return f"the answer names a cell by its place in the table as built (row_i_col_j), but " \
           f"the image shows {why} (from row {row}, col {col})"


def _place_problems(boxes: Mapping[tuple[int, int], Any]
                    ) -> list[tuple[tuple[int, int], str]]:
    """Rows whose cells do not run left to right in column order, and columns whose cells
    do not run top to bottom in row order, each named by its first cell."""
    rows: dict[int, list[tuple[int, int]]] = {}
    columns: dict[int, list[tuple[int, int]]] = {}
    for cell in sorted(boxes):
        rows.setdefault(cell[0], []).append(cell)
        columns.setdefault(cell[1], []).append(cell)
    found = []
    for lines, axis, what, along in ((rows, "x", "row", "left to right"),
                                     (columns, "y", "column", "top to bottom")):
        for cells in lines.values():
            cells.sort(key=lambda c: (c[1], c[0]) if axis == "x" else (c[0], c[1]))
            if _run_problem([boxes[c] for c in cells], (axis,)) is not None:
                found.append((cells[0], f"a {what} whose cells do not run {along}"))
    return found


def _run_problem(boxes: list[Any], axes: tuple[str, ...]) -> str | None:
    """Why the centres of ``boxes`` do not run one after another (each box the one before,
    as a merged cell's, or past it) along one of ``axes``, the axis they mostly go; ``None``
    when they do."""
    if len(boxes) < 2:
        return None
    centres = [(b[0] + b[2] / 2, b[1] + b[3] / 2) for b in boxes]
    dx, dy = centres[-1][0] - centres[0][0], centres[-1][1] - centres[0][1]
    if dx == dy == 0 and all(list(b) == list(boxes[0]) for b in boxes):
        return None  # one merged cell
    axis = "x" if abs(dx) > abs(dy) else "y"
    if axis not in axes:
        return f"they run along {axis}"
    k = 0 if axis == "x" else 1
    for before, after, box, next_box in zip(centres, centres[1:], boxes, boxes[1:],
                                            strict=False):
        if after[k] <= before[k] and list(box) != list(next_box):
            return "they turn back"
    return None


def _inside(box: Any, frame: Any) -> bool:
    """Whether ``box`` ``[x, y, width, height]`` lies within ``frame`` (same form)."""
    if not (isinstance(box, (list, tuple)) and len(box) == 4 and
            all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in box)):
        return False
    x, y, w, h = box
    fx, fy, fw, fh = frame
    return bool(w >= 0 and h >= 0 and x >= fx and y >= fy and x + w <= fx + fw and
                y + h <= fy + fh)


def cell_image_problem(item: Item, number: int, render: Mapping[str, Any],
                       data: bytes) -> str | None:
    """What is wrong with picture ``number`` (1-based, reading order) written alone: its
    record must name the visual at that place, and its bytes must be that visual drawn again
    by its kind at the recorded size."""
    order = sorted(item.inputs.visuals, key=lambda v: (v.row, v.col))
    if not 1 <= number <= len(order):
        return f"there is no picture {number} (the item has {len(order)})"
    visual = order[number - 1]
    said = {key: render.get(key) for key in ("row", "col", "kind")}
    meant = {"row": visual.row, "col": visual.col, "kind": visual.kind}
    if said != meant:
        return f"render says {said}, but picture {number} in reading order is {meant}"
    size = render.get("size_px")
    if not isinstance(size, int) or isinstance(size, bool):
        return f"render.size_px {str(size)[:20]!r} is not a whole number of pixels"
    try:
        drawn = VISUAL_KINDS.get(visual.kind).draw(visual.attributes, size)
    except UserError as exc:
        return str(exc)
    return None if drawn == data else \
        f"is not the {visual.kind} its attributes draw at {size} px"
