"""Markup tasks and markup variants, re-derived by ``gen verify``.

A markup task's answer is executed again from its program
(:func:`hopvista.program.marks.execute`). The question is another matter: what a subtask asks is
its installed :class:`~hopvista.markup_tasks.subtasks.Wording`, the one the build words every
question with. :func:`question_problems` reads the recorded program through it (the program must
be of the subtask's shape) and words the question again; the recorded question must say the
same, up to Unicode compatibility forms (NFKC) and runs of white space. A markup variant's
record (its target, distractor and look) is chosen again from its base by the recipe's own
choice (:class:`RecipeRecords`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from hopvista.augment import chart_markup
from hopvista.augment import markup as table_markup
from hopvista.augment.recipes import Skip, base_of_item, base_style
from hopvista.markup_tasks.subtasks import MARKUP_TASKS, TaskTable, WordingError
from hopvista.program.marks import ProgramError, execute, grid_and_marks
from hopvista.rng import Streams
from hopvista.themes.marks import MARK_KINDS


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
    for m in item.task.marks:
        if m.style not in MARK_KINDS or MARK_KINDS.get(m.style).scope != "cell":
            problems.append(f"mark ({m.row}, {m.col}) is {m.style!r}, no installed mark kind "
                            "that marks a cell")
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
    markup = item.variant.markup
    if not markup or markup.get("modality", "table") != "table":
        return []
    recipe = item.variant.recipe
    if recipe not in table_markup.VARIANTS:
        return [f"variant.markup on a variant of recipe {str(recipe)[:40]!r}, not a markup "
                "recipe"]
    style, on = table_markup.VARIANTS[recipe]
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
    return [] if style is None else mark_box_problems(image.render.get("cells", []), style)


def mark_box_problems(cells: Any, style: str) -> list[str]:
    """A mark that reaches beyond its cell (a shape, a row, a column) records the box it is
    drawn in (``mark_box``), holding the cell's own box."""
    if style not in MARK_KINDS or not MARK_KINDS.get(style).reaches_beyond_cell:
        return []
    for cell in cells:
        if not isinstance(cell, dict) or not cell.get("mark"):
            continue
        box, outer = cell.get("box"), cell.get("mark_box")
        if not isinstance(box, list) or not isinstance(outer, list) or \
                not (_is_box(box) and _is_box(outer)):
            return [f"the table image's {style} mark on ({cell.get('row')}, {cell.get('col')}) "
                    "records no mark_box [x, y, w, h] (where it is drawn)"]
        if not (outer[0] <= box[0] and outer[1] <= box[1] and
                box[0] + box[2] <= outer[0] + outer[2] and box[1] + box[3] <= outer[1] + outer[3]):
            return [f"the table image's {style} mark on ({cell.get('row')}, {cell.get('col')}) "
                    f"records mark_box {outer}, which does not hold the cell's box {box}"]
    return []


def _is_box(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 4 and \
        all(type(v) is int and v >= 0 for v in value)


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
        paints = expected.pop("paints", {})
        if modality == "chart":
            if item.variant.recipe not in chart_markup.VARIANTS:
                return [f"chart markup on a variant of recipe "
                        f"{str(item.variant.recipe)[:40]!r}, not a chart markup recipe"]
            on = chart_markup.VARIANTS[item.variant.recipe]
            expected |= {"on": on, "style": shared["look"]["how"] if on is not None else None}
        else:  # style and on: variant_markup_problems
            style = recorded.pop("style", None)
            recorded.pop("on", None)
            if isinstance(style, str) and style in paints:
                expected["look"] = expected["look"] | paints[style]
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

            try:
                self.shared[key] = json.loads(json.dumps(_chosen(base, self.seed, modality)))
            except Skip as why:
                self.shared[key] = str(why)
        return self.shared[key]


def _chosen(base: Any, seed: int, modality: str) -> dict[str, Any]:
    """The cells (or points), misled answers and look the markup recipes of ``modality``
    choose for ``base`` from its shared streams, as the recipes draw them."""

    made = base_of_item(base)
    if modality == "chart":
        shared = Streams(seed, base.base_id, chart_markup.GROUP)
        points = chart_markup.choose_points(made, shared)
        style = chart_markup.shared_chart_style(made, shared)
        return {"modality": "chart", **points,
                "look": chart_markup.look(shared, str(style["kind"]),
                                          chart_markup.marked_colours(made, style, points))}

    shared = Streams(seed, base.base_id, table_markup.GROUP)
    style = base_style(made, shared)
    drawn = table_markup.look(shared, style)
    return {**table_markup.choose_cells(made, shared), "look": drawn,
            "paints": {name: table_markup.mark_paint(shared, kind, drawn, style)
                       for name, kind in MARK_KINDS.items()}}


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
