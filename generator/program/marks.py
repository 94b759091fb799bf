"""The language of markup-task programs, executed on a table and its marks (docs/format.md,
section 11). ``gen verify`` re-derives every markup task's answer with :func:`execute`; the
generator (:mod:`hopvista.markup_tasks`) decides answers its own way and never calls this.

A table is read as a grid: row 0 is the header, column 0 the row labels. A cell is *missing*
when it shows nothing, a dash or N/A (:data:`hopvista.program.executor.MISSING_TOKENS`); a
number is read as :func:`hopvista.model.answers.read_number` reads it.

A **scope** picks cells: ``{"marked": true}`` (the default) keeps marked cells only,
``"style"`` and ``"colour"`` a style or highlight colour, ``"row"`` / ``"column"`` one row or
column, ``"body": true`` body cells only (rows ≥ 1, columns ≥ 1); ``"row_of"`` / ``"column_of"`` (a
scope picking one cell) the row or column of that cell. Cells come in reading
order (row by row). The operations, and the answer each gives:

=================  ==========================================  ==============================
op                 arguments                                   answer
=================  ==========================================  ==============================
``exists``         ``scope``                                   ``{"marked": bool}``
``count``          ``scope``                                   ``{"count": n}``
``value``          ``scope`` (one cell)                        ``{"value": text}``
``locate``         ``scope`` (one cell)                        ``{"row": label, "column": header}``
``values``         ``scope``                                   ``{"values": [text, …]}``
``rows``           ``scope``                                   ``{"rows": [label, …]}``
``intersection``   ``row_scope``, ``column_scope`` (one each)  ``{"value": text}``
``in_row``         ``anchor`` (one cell), ``column``           ``{"value": text}``
``neighbour``      ``anchor`` (one cell), ``direction``        ``{"value": text}``
``sum`` / ``mean`` ``scope`` (all numbers)                     ``{"value": number}``
``argmax`` / ``argmin`` ``scope`` (all numbers, one extreme)   ``{"row": label, "value": text}``
``compare``        ``a``, ``b`` (one cell each, numbers)       ``{"greater": bool}`` (a > b)
``sort``           ``scope``, ``descending``                   ``{"rows": [label, …]}`` (ordered)
``count_missing``  ``scope``                                   ``{"count": n}``
``value_or_missing`` ``scope`` (one cell)                      ``{"value": text or null}``
``sum_available``  ``scope``                                   ``{"value": number, "missing": n}``
``max_available``  ``scope``                                   ``{"row": label, "value": text}``
=================  ==========================================  ==============================

``mean`` is rounded half-up to two decimals. A program that cannot be executed (a scope that
must hold one cell holds several, a number that does not read, a tie for an extreme) raises
:class:`ProgramError`.

The answer is re-derived here, never by the generator's code; the question is another
matter: what a subtask asks is its installed :class:`~hopvista.markup_tasks.subtasks.Wording`, the
one the build words every question with. :func:`question_problems` reads the recorded
program through it (the program must be of the subtask's shape) and words the question again;
the recorded question must say the same, up to Unicode compatibility forms (NFKC) and runs of
white space.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hopvista.model.answers import read_number
from hopvista.program.executor import MISSING_TOKENS

DIRECTIONS = {"above": (-1, 0), "below": (1, 0), "left": (0, -1), "right": (0, 1)}


class ProgramError(ValueError):
    """A markup-task program that cannot be executed on its table."""


Grid = Sequence[Sequence[str]]
Marks = Mapping[tuple[int, int], Mapping[str, Any]]


def is_missing(text: str) -> bool:
    """Whether a cell shows no value (blank, a dash, N/A)."""
    return text.strip().lower() in MISSING_TOKENS


def _number(grid: Grid, cell: tuple[int, int]) -> Decimal:
    text = grid[cell[0]][cell[1]]
    value = read_number(text)
    if value is None:
        raise ProgramError(f"cell {cell} shows {text!r}, not a number")
    return value


def _json_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def select(grid: Grid, marks: Marks, scope: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The cells ``scope`` picks, in reading order."""
    scope = dict(scope)
    for key, axis in (("row_of", 0), ("column_of", 1)):
        if key in scope:
            scope["row" if axis == 0 else "column"] = _one(grid, marks, scope.pop(key))[axis]
    found = []
    for r, row in enumerate(grid):
        for c in range(len(row)):
            mark = marks.get((r, c))
            if scope.get("marked", True) and mark is None:
                continue
            if "style" in scope and (mark is None or mark["style"] != scope["style"]):
                continue
            if "colour" in scope and (mark is None or mark.get("colour") != scope["colour"]):
                continue
            if "row" in scope and r != scope["row"]:
                continue
            if "column" in scope and c != scope["column"]:
                continue
            if scope.get("body") and (r == 0 or c == 0):
                continue
            found.append((r, c))
    return found


def _one(grid: Grid, marks: Marks, scope: Mapping[str, Any]) -> tuple[int, int]:
    cells = select(grid, marks, scope)
    if len(cells) != 1:
        raise ProgramError(f"scope {dict(scope)} picks {len(cells)} cells, not one")
    return cells[0]


def _extreme(grid: Grid, cells: list[tuple[int, int]], largest: bool) -> dict[str, Any]:
    if not cells:
        raise ProgramError("no cell to compare")
    values = [(_number(grid, cell), cell) for cell in cells]
    best = max(v for v, _ in values) if largest else min(v for v, _ in values)
    winners = [cell for v, cell in values if v == best]
    if len(winners) != 1:
        raise ProgramError(f"{len(winners)} cells tie for the extreme")
    r, c = winners[0]
    return {"row": grid[r][0], "value": grid[r][c]}


def execute(grid: Grid, marks: Marks, program: Mapping[str, Any]) -> dict[str, Any]:
    """The answer of ``program`` on the table ``grid`` (header row first) with ``marks``
    (logical cell → ``{"style", "colour"}``)."""
    op = program.get("op")
    scope = program.get("scope", {})
    if op == "exists":
        return {"marked": bool(select(grid, marks, scope))}
    if op in ("count", "count_missing"):
        cells = select(grid, marks, scope)
        if op == "count_missing":
            cells = [(r, c) for r, c in cells if is_missing(grid[r][c])]
        return {"count": len(cells)}
    if op == "value":
        r, c = _one(grid, marks, scope)
        return {"value": grid[r][c]}
    if op == "value_or_missing":
        r, c = _one(grid, marks, scope)
        return {"value": None if is_missing(grid[r][c]) else grid[r][c]}
    if op == "locate":
        r, c = _one(grid, marks, scope)
        return {"row": grid[r][0], "column": grid[0][c]}
    if op == "values":
        return {"values": [grid[r][c] for r, c in select(grid, marks, scope)]}
    if op == "rows":
        return {"rows": [grid[r][0] for r, _ in select(grid, marks, scope)]}
    if op == "intersection":
        row, _ = _one(grid, marks, program["row_scope"])
        _, col = _one(grid, marks, program["column_scope"])
        return {"value": grid[row][col]}
    if op == "in_row":
        row, _ = _one(grid, marks, program["anchor"])
        return {"value": grid[row][int(program["column"])]}
    if op == "neighbour":
        r, c = _one(grid, marks, program["anchor"])
        dr, dc = DIRECTIONS[str(program["direction"])]
        r, c = r + dr, c + dc
        if not (0 <= r < len(grid) and 0 <= c < len(grid[r])):
            raise ProgramError("the neighbour lies outside the table")
        return {"value": grid[r][c]}
    if op in ("sum", "mean"):
        cells = select(grid, marks, scope)
        if not cells:
            raise ProgramError("no cell to add")
        total = sum((_number(grid, cell) for cell in cells), Decimal(0))
        if op == "mean":
            total = (total / len(cells)).quantize(Decimal("0.01"), ROUND_HALF_UP)
        return {"value": _json_number(total)}
    if op in ("argmax", "argmin"):
        return _extreme(grid, select(grid, marks, scope), op == "argmax")
    if op == "max_available":
        cells = [(r, c) for r, c in select(grid, marks, scope) if not is_missing(grid[r][c])]
        return _extreme(grid, cells, True)
    if op == "compare":
        a = _number(grid, _one(grid, marks, program["a"]))
        b = _number(grid, _one(grid, marks, program["b"]))
        if a == b:
            raise ProgramError("the two cells are equal")
        return {"greater": a > b}
    if op == "sort":
        cells = select(grid, marks, scope)
        values = [(_number(grid, cell), cell) for cell in cells]
        if len({v for v, _ in values}) != len(values):
            raise ProgramError("two cells tie")
        ordered = sorted(values, reverse=bool(program.get("descending", True)))
        return {"rows": [grid[r][0] for _, (r, _c) in ordered]}
    if op == "sum_available":
        cells = select(grid, marks, scope)
        shown = [cell for cell in cells if not is_missing(grid[cell[0]][cell[1]])]
        total = sum((_number(grid, cell) for cell in shown), Decimal(0))
        return {"value": _json_number(total), "missing": len(cells) - len(shown)}
    raise ProgramError(f"unknown op {op!r}")


def grid_and_marks(item: Any) -> tuple[list[list[str]], dict[tuple[int, int], dict[str, Any]]]:
    """A markup-task item's table as a grid of texts (header row first) and its marks."""
    table = item.inputs.table
    if table is None or not hasattr(table, "header"):
        raise ProgramError("a markup task needs a grid table (header and rows of texts)")
    grid = [list(table.header), *(list(row) for row in table.rows)]
    marks = {(m.row, m.col): {"style": m.style, "colour": m.colour} for m in item.task.marks}
    return grid, marks


def task_problems(item: Any) -> list[str]:
    """What is wrong with a markup-task item: marks outside the table, or an answer that the
    program, executed on the item's table and marks, does not give."""
    if item.task is None:
        return ["a markup task without its task (marks and program)"]
    try:
        grid, marks = grid_and_marks(item)
    except ProgramError as exc:
        return [str(exc)]
    problems = []
    for (r, c) in marks:
        if not (0 <= r < len(grid) and 0 <= c < len(grid[r])):
            problems.append(f"mark ({r}, {c}) lies outside the table")
    if len(marks) != len(item.task.marks):
        problems.append("a cell is marked twice")
    if problems:
        return problems
    try:
        derived = execute(grid, marks, item.task.program)
    except (ProgramError, KeyError, TypeError, ValueError, ArithmeticError) as exc:
        return [f"program cannot be executed: {exc}"]
    if derived != item.answer:
        return [f"answer {item.answer!r} is not what the program gives ({derived!r})"]
    return []


def question_problems(item: Any, unworded: Callable[[str], None]) -> list[str]:
    """What is wrong with what a markup-task item asks: a subtask that is not installed, a
    family that is not its subtask's, a program not of its subtask's shape, a question that
    is not the one the subtask's wording gives for the program on the item's table, or list
    fields compared in another order than the subtask's. ``unworded`` hears the name of a
    subtask registered without a wording (its questions cannot be checked)."""
    from hopvista.markup_tasks.subtasks import MARKUP_TASKS, TaskTable, WordingError

    task = item.task
    if task is None:
        return []
    if task.subtask not in MARKUP_TASKS:
        return [f"subtask {task.subtask[:60]!r} is not installed (gen list shows those that "
                "are): what its question asks cannot be checked"]
    entry = MARKUP_TASKS.get(task.subtask)
    if entry.family != task.family:
        return [f"family {task.family!r} is not that of subtask {entry.name!r} "
                f"({entry.family})"]
    if entry.wording is None:
        unworded(entry.name)
        return []
    try:
        grid, _ = grid_and_marks(item)
    except ProgramError:
        return []  # said by task_problems
    table = TaskTable(tuple(tuple(row) for row in grid), None, "")
    try:
        asked = entry.wording.asks(table, task.program)
    except WordingError as exc:
        return [f"program is not one subtask {entry.name!r} makes: {exc}"]
    problems = []
    said, meant = folded(item.question), folded(asked)
    if said != meant:
        shown, wanted = _excerpts(said, meant)
        problems.append(f"question does not say what its program asks: it says {shown!r}, "
                        f"the program asks {wanted!r}")
    if tuple(task.ordered) != entry.wording.ordered:
        problems.append(f"task.ordered is {list(task.ordered)}, subtask {entry.name!r} "
                        f"compares {list(entry.wording.ordered)} in order")
    return problems


def folded(text: str) -> str:
    """``text`` in Unicode compatibility form (NFKC) with each run of white space one space."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _excerpts(said: str, meant: str, around: int = 4) -> tuple[str, str]:
    """The words of ``said`` and ``meant`` around their first difference."""
    ours, theirs = said.split(" "), meant.split(" ")
    k = 0
    while k < min(len(ours), len(theirs)) and ours[k] == theirs[k]:
        k += 1
    start = max(0, k - around)

    def excerpt(words: list[str]) -> str:
        text = " ".join(words[start:k + around])
        if len(text) > 100:
            text = text[:97] + "..."
        return ("..." if start else "") + text + ("..." if k + around < len(words) else "")

    return excerpt(ours), excerpt(theirs)


# -- counterfactual markup variants (gen augment --variants markup) ---------------------------


def variant_markup_problems(item: Any) -> list[str]:
    """What is wrong with a table markup variant's record (``variant.markup``): a style or
    marked cell (``on``) that is not its recipe's, or a table image that does not mark
    exactly the recorded cell in that style (the control: no cell)."""
    from hopvista.augment.markup import VARIANTS

    markup = item.variant.markup
    if not markup or markup.get("modality", "table") != "table":
        return []
    recipe = item.variant.recipe
    if recipe not in VARIANTS:
        return [f"variant.markup on a variant of recipe {str(recipe)[:40]!r}, not a markup "
                "recipe"]
    style, on = VARIANTS[recipe]
    if (markup.get("style"), markup.get("on")) != (style, on):
        return [f"variant.markup says {markup.get('style')!r} on {markup.get('on')!r}, "
                f"recipe {recipe!r} marks {style!r} on {on!r}"]
    cell = markup.get(on) if on is not None else None
    wanted = {} if on is None else {
        (cell.get("row") if isinstance(cell, dict) else None,
         cell.get("col") if isinstance(cell, dict) else None): style}
    image = item.image("table")
    if image is None:
        return ["a markup variant without its table image"]
    drawn = {(c.get("row"), c.get("col")): c.get("mark")
             for c in image.render.get("cells", []) if c.get("mark")}
    if drawn != wanted:
        return [f"the table image marks {sorted(drawn.items(), key=str)[:3]}, "
                f"variant.markup {sorted(wanted.items(), key=str)[:3]}"]
    return []


class RecipeRecords:
    """The ``variant.markup`` records the markup recipes choose for generated bases with the
    dataset's ``seed``: what a base's variants share (target, distractor, misled answers,
    look) is chosen once per base and modality."""

    def __init__(self, seed: Any) -> None:
        self.seed = seed
        self.shared: dict[tuple[str, str], dict[str, Any] | str] = {}

    def problems(self, item: Any, base: Any) -> list[str]:
        """What is wrong with the record of ``item``, a markup variant (on its table or its
        chart) of the generated ``base`` item: a part its recipe does not choose."""
        markup = item.variant.markup
        if not markup:
            return []
        if type(self.seed) is not int:
            return [f"variant.markup cannot be re-derived: the manifest's seed is "
                    f"{str(self.seed)[:40]!r}"]
        modality = "chart" if markup.get("modality") == "chart" else "table"
        shared = self._shared_record(base, modality)
        if isinstance(shared, str):
            return [f"variant.markup marks a base its recipe cannot mark ({shared})"]
        recorded = dict(markup)
        expected = dict(shared)
        if modality == "chart":
            from hopvista.augment.chart_markup import VARIANTS

            if item.variant.recipe not in VARIANTS:
                return [f"chart markup on a variant of recipe "
                        f"{str(item.variant.recipe)[:40]!r}, not a chart markup recipe"]
            on = VARIANTS[item.variant.recipe]
            expected |= {"on": on, "style": shared["look"]["how"] if on is not None else None}
        else:  # style and on: variant_markup_problems
            recorded.pop("style", None)
            recorded.pop("on", None)
        found = _first_difference(recorded, expected, "variant.markup")
        if found is None:
            return []
        where, said, meant = found
        return [f"{where} is {said}, the markup recipe chooses {meant} for the base"]

    def _shared_record(self, base: Any, modality: str) -> dict[str, Any] | str:
        """What the recipes of ``modality`` record alike for every variant of ``base`` (as
        JSON), or why they cannot mark it."""
        key = (base.id, modality)
        if key not in self.shared:
            import json

            from hopvista.augment.recipes import Skip

            try:
                self.shared[key] = json.loads(json.dumps(_chosen(base, self.seed, modality)))
            except Skip as why:
                self.shared[key] = str(why)
        return self.shared[key]


def _chosen(base: Any, seed: int, modality: str) -> dict[str, Any]:
    """The cells (or points), misled answers and look the markup recipes of ``modality``
    choose for ``base`` from its shared streams, as the recipes draw them."""
    from hopvista.rng import Streams
    from hopvista.variants.maker import base_of_item

    made = base_of_item(base)
    if modality == "chart":
        from hopvista.augment import chart_markup

        shared = Streams(seed, base.base_id, chart_markup.GROUP)
        points = chart_markup.choose_points(made, shared)
        style = chart_markup.shared_chart_style(made, shared)
        return {"modality": "chart", **points,
                "look": chart_markup.look(shared, str(style["kind"]))}
    from hopvista.augment import markup

    shared = Streams(seed, base.base_id, markup.GROUP)
    return {**markup.choose_cells(made, shared), "look": markup.look(shared)}


def _first_difference(said: Any, meant: Any, where: str) -> tuple[str, str, str] | None:
    """Where two JSON values first differ (keys in sorted order), and what each holds
    there; ``None`` when they are equal."""
    if isinstance(said, dict) and isinstance(meant, dict):
        for key in sorted(set(said) | set(meant), key=str):
            inner = f"{where}.{str(key)[:40]}"
            if key not in said or key not in meant:
                return inner, _brief(said.get(key, "absent")), _brief(meant.get(key, "none"))
            found = _first_difference(said[key], meant[key], inner)
            if found is not None:
                return found
        return None
    if isinstance(said, list) and isinstance(meant, list) and len(said) == len(meant):
        for k, (a, b) in enumerate(zip(said, meant, strict=True)):
            found = _first_difference(a, b, f"{where}[{k}]")
            if found is not None:
                return found
        return None
    if type(said) is type(meant) and said == meant:
        return None
    return where, _brief(said), _brief(meant)


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
