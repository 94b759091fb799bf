"""Offline baselines: no network, no key, answers from the item itself.

``random``
    Uniform over the valid answers: each of the 8 subsets of a three-statement item's
    statements equally likely (FCMR's random row is 12.46% on three-statement items); for a
    short-answer item, a uniformly drawn cell of its table; for a markup task, a JSON object
    with the answer's keys and random values of their types (cells for texts). Seeded by the
    item's id and the option ``seed`` (an integer of 64 bits, default 0): the same run gives
    the same answers.
``majority``
    The answer given most often among the evaluated items (ties: the first in sorted order).
``oracle``
    Executes the stored statement programs on the item's inputs with the verifier
    (:mod:`hopvista.program.executor`) and answers with the statements they prove true; it must
    score 100%, so it is a guard on the dataset itself. An item kind without programs
    (short-answer questions) is answered with its reference answer; a markup task with the
    result of its program (:mod:`hopvista.program.marks`). Under ``--protocol stages`` it
    gives the stage reply that passes every stage (:func:`~hopvista.eval.stages.oracle_reply`).

Options other than these are refused (:func:`~hopvista.eval.backends.check_options`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from hopvista.errors import UserError
from hopvista.eval.backends import MODELS, check_options
from hopvista.eval.stages import oracle_reply
from hopvista.model import Item
from hopvista.model.dataset import Dataset
from hopvista.model.inputs import GridTable, Table
from hopvista.model.kinds import ITEM_KINDS
from hopvista.program.executor import Context, Undecidable, decide
from hopvista.program.marks import ProgramError, execute, grid_and_marks
from hopvista.rng import derive


def _reference(item: Item) -> str:
    return ITEM_KINDS.get(item.kind).reference(item)


def chart_margins(dataset: Dataset) -> tuple[float, float]:
    """The build's ``config.decidability`` margins (rank gap, trend step), 0 where unset;
    ``UserError`` naming the field when one is not a finite number of at least 0."""
    decidability = dataset.manifest.config.get("decidability") or {}
    if not isinstance(decidability, dict):
        raise UserError(f"{dataset.root}/manifest.json: config.decidability is not an object")
    margins = []
    for field in ("min_rank_gap", "min_trend_step"):
        value = decidability.get(field, 0.0)
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            number = math.nan
        if isinstance(value, bool) or not math.isfinite(number) or number < 0:
            raise UserError(f"{dataset.root}/manifest.json: config.decidability.{field}: "
                            "not a number of at least 0")
        margins.append(number)
    return margins[0], margins[1]


SEED = re.compile(r"[+-]?[0-9]{1,19}")


@MODELS.register("random")
class RandomBaseline:
    """A uniform draw among the valid answers (see the module docstring)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        check_options("random", options, ("seed",))
        text = options.get("seed", "0").strip() or "0"
        if not SEED.fullmatch(text) or not -(2**63) <= int(text) < 2**63:
            raise UserError(f"--option seed={text[:40]}: must be an integer of 64 bits")
        self.seed = int(text)

    def answer_item(self, item: Item) -> str:
        """A random answer for ``item``."""
        rng = derive(self.seed, "random-baseline", item.id)
        if item.statements:
            picked = [n for n in range(1, len(item.statements) + 1) if rng.integers(2)]
            return ", ".join(map(str, picked)) if picked else "none"
        cells = _cells(item.inputs.table)
        if item.kind == "markup_task" and isinstance(item.answer, dict):
            return json.dumps({key: _random_like(value, cells, rng)
                               for key, value in item.answer.items()}, ensure_ascii=False)
        return cells[int(rng.integers(len(cells)))] if cells else "none"


def _random_like(value: object, cells: list[str], rng: Any) -> object:
    """A random value of the same JSON type as ``value`` (a cell of the table for a text)."""
    if isinstance(value, bool):
        return bool(rng.integers(2))
    if isinstance(value, list):
        return [cells[int(i)] for i in rng.choice(len(cells), size=min(len(value), len(cells)),
                                                  replace=False)] if cells else []
    if isinstance(value, int):
        return int(rng.integers(0, 6))
    if value is None or isinstance(value, (str, float)):
        return cells[int(rng.integers(len(cells)))] if cells else None
    return None


def _cells(table: Table | GridTable | None) -> list[str]:
    if isinstance(table, GridTable):
        return [cell for row in table.rows for cell in row if cell]
    if isinstance(table, Table):
        return [value for row in table.rows for value in row.values.values() if value]
    return []


@MODELS.register("majority")
class MajorityBaseline:
    """The most frequent answer of the evaluated items."""

    def __init__(self, options: Mapping[str, str]) -> None:
        check_options("majority", options)
        self.answer = "none"

    def prepare(self, items: Sequence[Item], dataset: Dataset) -> None:
        """Count the answers of ``items``."""
        counts = Counter(_reference(item) for item in items)
        if counts:
            top = max(counts.values())
            self.answer = min(a for a, n in counts.items() if n == top)

    def answer_item(self, item: Item) -> str:
        """The majority answer."""
        return self.answer


@MODELS.register("oracle")
class OracleBaseline:
    """The answer the stored programs prove (the reference answer where there are none)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        check_options("oracle", options)
        self.margins = (0.0, 0.0)

    def prepare(self, items: Sequence[Item], dataset: Dataset) -> None:
        """Take the chart margins of the build (``config.decidability``)."""
        self.margins = chart_margins(dataset)

    def answer_item(self, item: Item) -> str:
        """The statements whose programs are true, as ``"1, 3"`` or ``"none"``; a markup
        task's program result as its JSON object."""
        if item.kind == "markup_task":
            try:
                grid, marks = grid_and_marks(item)
                return json.dumps(execute(grid, marks, item.task.program),  # type: ignore[union-attr]
                                  ensure_ascii=False)
            except (ProgramError, KeyError, TypeError, ValueError):
                return "undecidable"
        if not item.statements:
            return _reference(item)
        data = item.model_dump(mode="json")
        context = Context(data, *self.margins)
        true = []
        for number, statement in enumerate(data["statements"], start=1):
            try:
                if decide(statement["program"], context):
                    true.append(number)
            except Undecidable:
                return "undecidable"
        return ", ".join(map(str, true)) if true else "none"

    def answer_stages(self, item: Item) -> str:
        """The stage reply that passes every stage (``--protocol stages``)."""
        return json.dumps(oracle_reply(item, self.margins), ensure_ascii=False)
