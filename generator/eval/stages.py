"""The stage-graded protocol (``gen eval --protocol stages``): FCMR's four steps, graded.

FCMR (section 5.2, Figure 22) splits answering a statement into four steps per modality and
classified by hand at which step each failure happened. hopvista knows each step's right
answer from the statement's program and its ``cells``, so the protocol grades them on every
item. The prompt (``templates/prompts/stages.j2``) asks, per statement, for a JSON object::

    {"statements": [{"statement": 1,
                     "values": [{"entity": "...", "column": "...", "period": 2021,
                                 "modality": "table", "value": "1,234.5"}, ...],
                     "conclusion": true}, ...]}

and each statement is graded against what its program reads:

``planning``
    the values named cover every cell the program reads: a table or chart value by its
    entity (name or id), column (label, heading or key) and period; a text by its entity,
    named with no period and no column of the table or chart;
``identification``
    each covered value names the modality the program reads it in;
``retrieval``
    each value read right: a number within half a unit of the column's displayed precision
    of the value shown; a text agreeing with the entity's passage on every fact the program
    looks for (it mentions the fact exactly when the passage does);
``reasoning``
    the conclusion follows from the values the model itself read: the program is decided
    again on the item's inputs with the model's readings in place of the ones it got wrong
    (where the model's values leave the program undecidable, against the statement's label).

The first failing stage is reported per statement and per modality the statement reads
(``null``: every stage passed); a modality's failure is its own cells' first failing stage,
or the statement's reasoning. The answer scored beside the stages is the set of statements
concluded true.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from typing import Any

from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.answers import read_json_object
from hopvista.model.inputs import Table
from hopvista.model.kinds import ITEM_KINDS, THREE_STATEMENT, Score
from hopvista.model.statement import Statement, TextCell, ValueCell
from hopvista.program.executor import Context, Undecidable, decide, mentions, parse_number

__all__ = ["PASSED", "PROTOCOLS", "STAGES", "StageGrade", "check_items", "grade",
           "oracle_reply", "stage_fields", "stage_summary", "stages_template"]

STAGES = ("planning", "identification", "retrieval", "reasoning")
"""FCMR's four steps, in the order they are taken (the first failing one is reported)."""
PROTOCOLS = ("stages",)
"""The protocols ``gen eval --protocol`` takes (without one, the answer alone is scored)."""
PARSE_RULE = "stages-json"
"""The parse rule of an answer read from a stage reply's conclusions."""
MODALITIES = ("table", "chart", "text")
TEMPLATE = "stages.j2"


@dataclass(frozen=True)
class StageGrade:
    """A stage reply graded: the statements concluded true (``None``: no stage reply found)
    and each statement's stages (the results line's ``stages``)."""

    answer: list[int] | None
    stages: list[dict[str, Any]]


def stages_template(kind: str) -> str:
    """The built-in stage prompt template (``templates/prompts/stages.j2``); the protocol
    asks three-statement items only (:func:`check_items`)."""
    return resources.files("hopvista.templates.prompts").joinpath(TEMPLATE).read_text(
        encoding="utf-8")


def check_items(items: Sequence[Item]) -> None:
    """``UserError`` naming the first item the protocol cannot grade: one not of the
    three-statement kind, or a statement without a program (a dataset read from a release)."""
    for item in items:
        if item.kind != THREE_STATEMENT.name:
            raise UserError(f"--protocol stages: item {item.id} is of kind {item.kind!r}; the "
                            "stage protocol grades three-statement items only")
        for number, statement in enumerate(item.statements, start=1):
            if statement.program is None or not statement.cells:
                raise UserError(f"--protocol stages: item {item.id}, statement {number} has "
                                "no program to grade the stages against")


def grade(item: Item, text: str, margins: tuple[float, float]) -> StageGrade:
    """The stage reply ``text`` to ``item`` graded (see the module docstring); ``margins``
    are the build's chart margins (rank gap, trend step). Never raises on what ``text``
    holds: a missing or malformed statement fails at planning."""
    replies = _statement_replies(text)
    stages = [_grade_statement(item, number, statement, replies.get(number), margins)
              for number, statement in enumerate(item.statements, start=1)]
    if not replies:
        return StageGrade(None, stages)
    concluded = [n for n in range(1, len(item.statements) + 1)
                 if _conclusion(replies.get(n)) is True]
    return StageGrade(concluded, stages)


def stage_fields(item: Item, text: str, margins: tuple[float, float]) -> dict[str, Any]:
    """What a stage reply adds to its item's results line: ``stages``, and the answer its
    conclusions give (``parsed``, ``parse_rule``, ``correct``, ``metrics``) when the reply
    holds statements (otherwise the answer stays as the text was read)."""
    try:
        graded = grade(item, text, margins)
    except (ValueError, ArithmeticError, RecursionError):  # numbers no scorer can take
        graded = grade(item, "", margins)
    fields: dict[str, Any] = {"stages": graded.stages}
    if graded.answer is not None:
        score: Score = ITEM_KINDS.get(item.kind).score(item, graded.answer)
        fields |= {"parsed": graded.answer, "parse_rule": PARSE_RULE,
                   "correct": score.correct, "metrics": dict(score.metrics)}
        fields["statements"] = [{"type": s.type, "label": s.label, "predicted": n in graded.answer}
                                for n, s in enumerate(item.statements, start=1)]
    return fields


# -- reading the reply ---------------------------------------------------------------------


def _statement_replies(text: str) -> dict[int, dict[str, Any]]:
    """Each statement's object in the reply, by number (the first one given a number)."""
    try:
        reply = read_json_object(text)
    except RecursionError:
        return {}
    listed = reply.get("statements") if reply is not None else None
    if not isinstance(listed, list):
        return {}
    found: dict[int, dict[str, Any]] = {}
    for entry in listed:
        if not isinstance(entry, dict):
            continue
        number = entry.get("statement")
        if isinstance(number, int) and not isinstance(number, bool):
            found.setdefault(number, entry)
    return found


def _conclusion(entry: dict[str, Any] | None) -> bool | None:
    said = None if entry is None else entry.get("conclusion")
    if isinstance(said, bool):
        return said
    if isinstance(said, str) and said.strip().lower() in ("true", "false"):
        return said.strip().lower() == "true"
    return None


def _named_values(entry: dict[str, Any] | None) -> list[dict[str, Any]]:
    values = None if entry is None else entry.get("values")
    return [v for v in values if isinstance(v, dict)] if isinstance(values, list) else []


def _key(text: Any) -> str:
    """A name as compared: case, spacing and punctuation ignored."""
    return " ".join(re.sub(r"[^0-9a-z%]+", " ", str(text).lower()).split())


def _period(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        digits = re.findall(r"\d{4}", value)
        return int(digits[0]) if len(digits) == 1 else None
    return None


def _number(value: Any) -> Decimal | None:
    """A value read as a number (``1234.5``, ``"1,234.5"``, ``"$1,234.5 million"``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value)) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    found = re.search(r"[-\u2212]?[0-9][0-9,]*(?:\.[0-9]+)?", value)
    if found is None:
        return None
    try:
        return parse_number(found.group())
    except ValueError:
        return None


# -- what the program reads ----------------------------------------------------------------


@dataclass(frozen=True)
class _Names:
    """How an item's entities and columns may be named."""

    entities: dict[str, str]
    columns: dict[str, str]
    precision: dict[str, int]

    @classmethod
    def of(cls, item: Item) -> _Names:
        entities: dict[str, str] = {}
        for entity in item.entities:
            entities[_key(entity.id)] = entity.id
            entities[_key(entity.name)] = entity.id
        columns: dict[str, str] = {}
        precision: dict[str, int] = {}
        table = item.inputs.table
        shown = list(table.columns) if isinstance(table, Table) else []
        if item.inputs.chart is not None:
            shown.append(item.inputs.chart.column)
        for column in shown:
            for name in (column.key, column.label, f"{column.label} ({column.unit})"):
                columns.setdefault(_key(name), column.key)
            precision[column.key] = column.precision
        return cls(entities, columns, precision)


def _covers(value: dict[str, Any], cell: TextCell | ValueCell, names: _Names) -> bool:
    """Whether a named value is the cell (its modality aside: that is identification)."""
    if names.entities.get(_key(value.get("entity", ""))) != cell.entity:
        return False
    if isinstance(cell, TextCell):
        column = value.get("column")
        return value.get("period") is None and (
            not column or _key(column) not in names.columns)
    return names.columns.get(_key(value.get("column", ""))) == cell.column and \
        _period(value.get("period")) == cell.year


def _needles(node: Any) -> Iterator[str]:
    """The facts a program looks for in the texts."""
    if isinstance(node, list):
        for value in node:
            yield from _needles(value)
    elif isinstance(node, dict):
        if node.get("op") == "fact" and isinstance(node.get("needle"), str):
            yield node["needle"]
        for value in node.values():
            yield from _needles(value)


class _Shown:
    """The values an item shows, by cell."""

    def __init__(self, item: Item) -> None:
        self.values: dict[tuple[str, str, int], str] = {}
        table = item.inputs.table
        if isinstance(table, Table):
            for row in table.rows:
                for column, text in row.values.items():
                    self.values[(row.entity, column, row.year)] = text
        chart = item.inputs.chart
        if chart is not None:
            for series in chart.series:
                for year, text in zip(chart.years, series.values, strict=False):
                    self.values[(series.entity, chart.column.key, year)] = text
        self.texts = {t.entity: t.text for t in item.inputs.text}

    def of(self, cell: TextCell | ValueCell) -> str:
        if isinstance(cell, TextCell):
            return self.texts.get(cell.entity, "")
        return self.values.get((cell.entity, cell.column, cell.year), "")


def _read_right(value: dict[str, Any], cell: TextCell | ValueCell, shown: _Shown,
                names: _Names, needles: Sequence[str]) -> bool:
    said = value.get("value")
    if isinstance(cell, TextCell):
        if not isinstance(said, str) or not said.strip():
            return False
        passage = shown.of(cell)
        return all(mentions(said, n) == mentions(passage, n) for n in needles)
    read = _number(said)
    try:
        truth = parse_number(shown.of(cell))
    except ValueError:
        return False
    half_unit = Decimal(5).scaleb(-names.precision.get(cell.column, 0) - 1)
    return read is not None and abs(read - truth) <= half_unit


# -- grading -------------------------------------------------------------------------------


def _grade_statement(item: Item, number: int, statement: Statement,
                     entry: dict[str, Any] | None, margins: tuple[float, float]
                     ) -> dict[str, Any]:
    names, shown = _Names.of(item), _Shown(item)
    needles = list(_needles(statement.model_dump(mode="json")["program"]))
    values = _named_values(entry)
    failures: dict[str, str | None] = {}
    readings: list[tuple[TextCell | ValueCell, dict[str, Any]]] = []
    for modality in MODALITIES:
        cells = [c for c in statement.cells if c.modality == modality]
        if not cells:
            continue
        failures[modality] = None
        for cell in cells:
            value = next((v for v in values if _covers(v, cell, names)), None)
            if value is None:
                stage = "planning"
            elif _key(value.get("modality", "")) != cell.modality:
                stage = "identification"
            elif not _read_right(value, cell, shown, names, needles):
                stage = "retrieval"
                readings.append((cell, value))
            else:
                continue
            failures[modality] = _earlier(failures[modality], stage)
    if not _concludes_from_own_reading(item, statement, entry, readings, margins):
        failures = {m: failures[m] or "reasoning" for m in failures}
    first = min((f for f in failures.values() if f is not None), key=STAGES.index,
                default=None)
    return {"statement": number, "first_failure": first, "modalities": failures}


def _earlier(current: str | None, stage: str) -> str:
    return stage if current is None or STAGES.index(stage) < STAGES.index(current) else current


def _concludes_from_own_reading(item: Item, statement: Statement, entry: dict[str, Any] | None,
                                misread: Sequence[tuple[TextCell | ValueCell, dict[str, Any]]],
                                margins: tuple[float, float]) -> bool:
    """Whether the conclusion is what the program decides on the model's own readings."""
    said = _conclusion(entry)
    if said is None:
        return False
    data = _with_readings(item.model_dump(mode="json"), misread)
    program = statement.model_dump(mode="json")["program"]
    try:
        follows = decide(program, Context(data, *margins))
    except (Undecidable, ValueError, KeyError, TypeError, ArithmeticError):
        follows = statement.label
    return said == follows


def _with_readings(data: dict[str, Any], misread: Sequence[tuple[TextCell | ValueCell,
                                                                  dict[str, Any]]]
                   ) -> dict[str, Any]:
    """The item's JSON with the misread values in place of the ones shown."""
    inputs = data["inputs"]
    for cell, value in misread:
        said = value.get("value")
        if isinstance(cell, TextCell):
            for chunk in inputs["text"]:
                if chunk["entity"] == cell.entity:
                    chunk["text"] = str(said)
            continue
        read = _number(said)
        text = "" if read is None else format(read, "f")
        chart = inputs.get("chart")
        if chart is not None and chart["column"]["key"] == cell.column:
            for series in chart["series"]:
                if series["entity"] == cell.entity and cell.year in chart["years"]:
                    series["values"][chart["years"].index(cell.year)] = text or "n/a"
            continue
        for row in inputs["table"]["rows"]:
            if row["entity"] == cell.entity and row["year"] == cell.year:
                row["values"][cell.column] = text
    return data


# -- the oracle's reply --------------------------------------------------------------------


def oracle_reply(item: Item, margins: tuple[float, float]) -> dict[str, Any]:
    """The stage reply that passes every stage: each cell the programs read, named in its
    modality with the value shown, and each program's decision as the conclusion."""
    names = {e.id: e.name for e in item.entities}
    labels = _column_labels(item)
    shown = _Shown(item)
    context = Context(item.model_dump(mode="json"), *margins)
    statements = []
    for number, statement in enumerate(item.statements, start=1):
        program = statement.model_dump(mode="json")["program"]
        try:
            conclusion: bool | None = decide(program, context)
        except Undecidable:
            conclusion = None
        statements.append({
            "statement": number,
            "values": [_oracle_value(cell, names, labels, shown) for cell in statement.cells],
            "conclusion": conclusion})
    return {"statements": statements}


def _column_labels(item: Item) -> Mapping[str, str]:
    table = item.inputs.table
    labels = {c.key: c.label for c in table.columns} if isinstance(table, Table) else {}
    if item.inputs.chart is not None:
        labels[item.inputs.chart.column.key] = item.inputs.chart.column.label
    return labels


def _oracle_value(cell: TextCell | ValueCell, names: Mapping[str, str],
                  labels: Mapping[str, str], shown: _Shown) -> dict[str, Any]:
    entity = names.get(cell.entity, cell.entity)
    if isinstance(cell, TextCell):
        return {"entity": entity, "modality": "text", "value": shown.of(cell)}
    return {"entity": entity, "column": labels.get(cell.column, cell.column),
            "period": cell.year, "modality": cell.modality, "value": shown.of(cell)}


# -- the run's figures ---------------------------------------------------------------------

PASSED = "passed"
"""The count of statements (or modalities) that passed every stage."""


def stage_summary(answered: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``stages`` figures of a run's answered results (``None`` when no result has
    stages): how many statements first failed at each stage (or ``passed``), overall and per
    modality read, and the same per level (FCMR's Figure 22)."""
    graded = [r for r in answered if isinstance(r.get("stages"), list)]
    if not graded:
        return None
    levels = sorted({str(r.get("difficulty")) for r in graded},
                    key=lambda level: (_LEVELS.get(level, 9), level))
    return _stage_group(graded) | {"by_level": {
        level: _stage_group([r for r in graded if str(r.get("difficulty")) == level])
        for level in levels}}


_LEVELS = {"easy": 0, "medium": 1, "hard": 2}


def _stage_group(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    statements = [s for r in results for s in r["stages"] if isinstance(s, dict)]
    by_modality: dict[str, dict[str, int]] = {}
    for modality in MODALITIES:
        failures = [s["modalities"][modality] for s in statements
                    if modality in (s.get("modalities") or {})]
        if failures:
            by_modality[modality] = _counts(failures)
    return {"statements": len(statements),
            "first_failure": _counts([s.get("first_failure") for s in statements]),
            "by_modality": by_modality}


def _counts(failures: Sequence[Any]) -> dict[str, int]:
    return {stage: sum(f == stage for f in failures) for stage in STAGES} | {
        PASSED: sum(f is None for f in failures)}
