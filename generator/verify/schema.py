"""The shape of an item of kind ``three_statement``: every field, at every level, has its type.

:func:`check_shape` raises :class:`Malformed` naming the first field that is wrong
(``field 'statements.1.program.select.threshold': expected a decimal string, got 'NaN'``).
An item that passes can be read by the other checks without a ``KeyError`` or ``TypeError``:
programs have exactly the nodes their statement type prescribes (docs/format.md, section 4),
numbers are finite decimal strings of bounded length, and displayed values carry exactly
their column's precision and lie within what a table or chart shows
(:func:`hopvista.display.unshowable_number`, the bound the sources read data with).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from hopvista.display import unshowable_number
from hopvista.model import Item
from hopvista.model.balance import LEVEL_NAMES
from hopvista.model.kinds import THREE_STATEMENT
from hopvista.program.fields import (
    Malformed,
    as_bool,
    as_dict,
    as_int,
    as_list,
    as_str,
    exact_keys,
    expected,
    field,
    shown,
)
from hopvista.program.numbers import MAX_NUMBER_CHARS
from hopvista.program.operators import OPERATORS, nodes
from hopvista.program.schema import check_node, check_selector
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.themes.chart_kinds import CHART_KINDS

ITEM_KIND = THREE_STATEMENT.name
STATEMENTS = THREE_STATEMENT.statements
ANSWER_TYPE = "indices"


def displayed(value: Any, precision: int, path: str) -> str:
    """``value`` if it is a displayed number with exactly ``precision`` decimals."""
    decimals = rf"\.[0-9]{{{precision}}}" if precision else ""
    pattern = rf"-?(?:[0-9]{{1,3}}(?:,[0-9]{{3}})*){decimals}"
    if not isinstance(value, str) or len(value) > MAX_NUMBER_CHARS or \
            not re.fullmatch(pattern, value):
        raise expected(path, f"a displayed number with {precision} decimal(s)", value)
    why = unshowable_number(Decimal(value.replace(",", "")), precision)
    if why is not None:
        raise Malformed(f"field '{path}': {shown(value)} {why}")
    return value


def check_program(program: Any, type_name: str, path: str) -> None:
    """The program of a statement of ``type_name``: the selector and claim its type
    prescribes (its selector shape, each node with the fields its operator declares:
    docs/format.md, section 4), with no other keys."""
    program = as_dict(program, path)
    exact_keys(program, ("select", "claim"), path)
    kind = STATEMENT_TYPES.get(type_name)
    check_selector(program["select"], kind.shape, f"{path}.select")
    claim = as_dict(program["claim"], f"{path}.claim")
    if kind.with_fact:
        exact_keys(claim, ("fact",), f"{path}.claim")
        check_node(claim["fact"], ("fact",), f"{path}.claim.fact", kind.shape)
    else:
        kind_of_claim = "only" if "only" in claim else "entity"
        exact_keys(claim, (kind_of_claim,), f"{path}.claim")
        as_str(claim[kind_of_claim], f"{path}.claim.{kind_of_claim}")


def undeclared_fields(item: dict[str, Any]) -> list[str]:
    """The ops of a well-formed item's program nodes whose operators declare no fields
    (their nodes are held to nothing but their op), in order of first use."""
    found: list[str] = []
    for statement in item["statements"]:
        program = statement["program"]
        claim = program["claim"]
        for node in [*nodes(program["select"]), *([claim["fact"]] if "fact" in claim else [])]:
            op = node["op"]
            if OPERATORS.get(op).fields is None and op not in found:
                found.append(op)
    return found


def _check_statement(statement: Any, path: str) -> None:
    statement = as_dict(statement, path)
    as_str(field(statement, "text", path), f"{path}.text")
    as_bool(field(statement, "label", path), f"{path}.label")
    type_name = as_str(field(statement, "type", path), f"{path}.type",
                       tuple(STATEMENT_TYPES.names()))
    for i, modality in enumerate(as_list(field(statement, "modalities", path),
                                         f"{path}.modalities", least=1)):
        as_str(modality, f"{path}.modalities.{i}", ("text", "table", "chart"))
    check_program(field(statement, "program", path), type_name, f"{path}.program")
    for i, cell in enumerate(as_list(field(statement, "cells", path), f"{path}.cells")):
        _check_cell(cell, f"{path}.cells.{i}")
    distractor = field(statement, "distractor", path)
    if distractor is not None:
        distractor = as_dict(distractor, f"{path}.distractor")
        as_str(field(distractor, "replaces", f"{path}.distractor"), f"{path}.distractor.replaces")
        as_str(field(distractor, "with", f"{path}.distractor"), f"{path}.distractor.with")
    paraphrase = statement.get("paraphrase")
    if paraphrase is not None:
        _check_paraphrase(paraphrase, f"{path}.paraphrase")


#: Most attempts a paraphrase record may hold (a build's --llm-attempts is far below).
MAX_ATTEMPTS = 100
JUDGE_VERDICTS = ("same", "changed")


def _optional_str(value: Any, path: str) -> None:
    if value is not None:
        as_str(value, path)


def _check_paraphrase(paraphrase: Any, path: str) -> None:
    """A statement's ``paraphrase`` record (docs/format.md, "Paraphrases")."""
    paraphrase = as_dict(paraphrase, path)
    as_str(field(paraphrase, "template", path), f"{path}.template")
    attempts = as_list(field(paraphrase, "attempts", path), f"{path}.attempts")
    if len(attempts) > MAX_ATTEMPTS:
        raise Malformed(f"field '{path}.attempts': {len(attempts)} attempts, more than "
                        f"{MAX_ATTEMPTS}")
    kept = field(paraphrase, "kept", path)
    if kept is not None:
        as_int(kept, f"{path}.kept", 1, max(len(attempts), 1))
    for i, check in enumerate(as_list(field(paraphrase, "checks", path), f"{path}.checks")):
        as_str(check, f"{path}.checks.{i}")
    for i, attempt in enumerate(attempts):
        where = f"{path}.attempts.{i}"
        attempt = as_dict(attempt, where)
        _optional_str(field(attempt, "lexical", where), f"{where}.lexical")
        _optional_str(field(attempt, "syntactic", where), f"{where}.syntactic")
        for j, problem in enumerate(as_list(field(attempt, "guard", where), f"{where}.guard")):
            as_str(problem, f"{where}.guard.{j}")
        judge = field(attempt, "judge", where)
        if judge is not None:
            judge = as_dict(judge, f"{where}.judge")
            as_str(field(judge, "model", f"{where}.judge"), f"{where}.judge.model")
            as_str(field(judge, "prompt_sha256", f"{where}.judge"),
                   f"{where}.judge.prompt_sha256")
            verdict = field(judge, "verdict", f"{where}.judge")
            if verdict is not None:
                as_str(verdict, f"{where}.judge.verdict", JUDGE_VERDICTS)


def _check_cell(cell: Any, path: str) -> None:
    cell = as_dict(cell, path)
    modality = as_str(field(cell, "modality", path), f"{path}.modality",
                      ("text", "table", "chart"))
    as_str(field(cell, "entity", path), f"{path}.entity")
    if modality == "text":
        as_str(field(cell, "chunk", path), f"{path}.chunk")
    else:
        as_str(field(cell, "column", path), f"{path}.column")
        as_int(field(cell, "year", path), f"{path}.year")


def _check_column(column: Any, path: str) -> int:
    column = as_dict(column, path)
    as_str(field(column, "key", path), f"{path}.key")
    as_str(field(column, "label", path), f"{path}.label")
    if not isinstance(field(column, "unit", path), str):
        raise expected(f"{path}.unit", "a string", column["unit"])
    return as_int(field(column, "precision", path), f"{path}.precision", 0, 6)


def _check_table(table: Any, path: str) -> None:
    table = as_dict(table, path)
    as_str(field(table, "entity_label", path), f"{path}.entity_label")
    if field(table, "period_label", path) is not None:  # null: no period axis
        as_str(table["period_label"], f"{path}.period_label")
    precision = {}
    for i, column in enumerate(as_list(field(table, "columns", path), f"{path}.columns", least=1)):
        precision[column_key(column)] = _check_column(column, f"{path}.columns.{i}")
    for i, row in enumerate(as_list(field(table, "rows", path), f"{path}.rows", least=1)):
        where = f"{path}.rows.{i}"
        row = as_dict(row, where)
        as_str(field(row, "entity", where), f"{where}.entity")
        as_int(field(row, "year", where), f"{where}.year")
        values = as_dict(field(row, "values", where), f"{where}.values")
        if set(values) != set(precision):
            raise Malformed(f"field '{where}.values': keys {sorted(values)} are not the "
                            f"table's columns {sorted(precision)}")
        for key, value in values.items():
            displayed(value, precision[key], f"{where}.values.{key}")


def column_key(column: Any) -> Any:
    """The key of a column object, or ``None`` when it has none."""
    return column.get("key") if isinstance(column, dict) else None


def _check_chart(chart: Any, path: str) -> None:
    chart = as_dict(chart, path)
    precision = _check_column(field(chart, "column", path), f"{path}.column")
    years = as_list(field(chart, "years", path), f"{path}.years", least=1)
    for i, year in enumerate(years):
        as_int(year, f"{path}.years.{i}")
    for i, series in enumerate(as_list(field(chart, "series", path), f"{path}.series",
                                       least=1)):
        where = f"{path}.series.{i}"
        series = as_dict(series, where)
        as_str(field(series, "entity", where), f"{where}.entity")
        values = as_list(field(series, "values", where), f"{where}.values", len(years))
        for j, value in enumerate(values):
            displayed(value, precision, f"{where}.values.{j}")
    as_str(field(chart, "kind", path), f"{path}.kind", tuple(CHART_KINDS.names()))


def _check_inputs(inputs: Any) -> None:
    inputs = as_dict(inputs, "inputs")
    for i, text in enumerate(as_list(field(inputs, "text", "inputs"), "inputs.text")):
        where = f"inputs.text.{i}"
        text = as_dict(text, where)
        for key in ("entity", "chunk", "section", "text"):
            as_str(field(text, key, where), f"{where}.{key}")
        as_int(field(text, "period", where), f"{where}.period")
    _check_table(field(inputs, "table", "inputs"), "inputs.table")
    _check_chart(field(inputs, "chart", "inputs"), "inputs.chart")


def _check_provenance(provenance: Any) -> None:
    provenance = as_dict(provenance, "provenance")
    as_str(field(provenance, "generator", "provenance"), "provenance.generator")
    as_str(field(provenance, "source", "provenance"), "provenance.source")
    as_int(field(provenance, "index", "provenance"), "provenance.index", 0)
    as_int(field(provenance, "attempts", "provenance"), "provenance.attempts", 1)
    plan = as_dict(field(provenance, "plan", "provenance"), "provenance.plan")
    as_int(field(plan, "level", "provenance.plan"), "provenance.plan.level", 1, 3)
    for i, n in enumerate(as_list(field(plan, "answer", "provenance.plan"),
                                  "provenance.plan.answer")):
        as_int(n, f"provenance.plan.answer.{i}")
    for key in ("order", "types"):
        for i, name in enumerate(as_list(field(plan, key, "provenance.plan"),
                                         f"provenance.plan.{key}", STATEMENTS)):
            as_str(name, f"provenance.plan.{key}.{i}")
    as_dict(field(provenance, "decidability", "provenance"), "provenance.decidability")


def check_shape(item: dict[str, Any]) -> None:
    """Raise :class:`Malformed` at the first field of ``item`` that is missing or mistyped."""
    for key in ("id", "base_id", "domain", "question"):
        as_str(field(item, key, ""), key)
    kind = as_str(field(item, "kind", ""), "kind")
    if kind != ITEM_KIND:
        raise Malformed(f"kind {kind[:40]!r} is not one this verifier checks ({ITEM_KIND})")
    as_str(field(item, "difficulty", ""), "difficulty", tuple(LEVEL_NAMES.values()))
    as_int(field(item, "hops", ""), "hops", 1, 3)
    for i, entity in enumerate(as_list(field(item, "entities", ""), "entities", least=2)):
        entity = as_dict(entity, f"entities.{i}")
        as_str(field(entity, "id", f"entities.{i}"), f"entities.{i}.id")
        as_str(field(entity, "name", f"entities.{i}"), f"entities.{i}.name")
    _check_inputs(field(item, "inputs", ""))
    for i, image in enumerate(as_list(field(item, "images", ""), "images")):
        _check_image(image, f"images.{i}")
    statements = as_list(field(item, "statements", ""), "statements")
    if len(statements) != STATEMENTS:
        raise Malformed(f"{len(statements)} statement(s); a {ITEM_KIND} item has exactly "
                        f"{STATEMENTS}")
    for i, statement in enumerate(statements):
        _check_statement(statement, f"statements.{i}")
    for i, n in enumerate(as_list(field(item, "answer", ""), "answer")):
        as_int(n, f"answer.{i}")
    as_str(field(item, "answer_type", ""), "answer_type", (ANSWER_TYPE,))
    variant = as_dict(field(item, "variant", ""), "variant")
    as_str(field(variant, "name", "variant"), "variant.name")
    recipe = field(variant, "recipe", "variant")
    if recipe is not None:
        as_str(recipe, "variant.recipe")
    as_dict(field(variant, "parameters", "variant"), "variant.parameters")
    as_dict(field(variant, "style", "variant"), "variant.style")
    as_list(field(variant, "perturbations", "variant"), "variant.perturbations")
    field(variant, "markup", "variant")
    as_int(field(item, "seed", ""), "seed", 0)
    _check_provenance(field(item, "provenance", ""))
    _check_typed(item)


def _check_image(image: Any, path: str) -> None:
    image = as_dict(image, path)
    as_str(field(image, "role", path), f"{path}.role")
    as_str(field(image, "path", path), f"{path}.path")
    sha = as_str(field(image, "sha256", path), f"{path}.sha256")
    if not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise expected(f"{path}.sha256", "a hex sha256", sha)
    as_int(field(image, "width", path), f"{path}.width", 1)
    as_int(field(image, "height", path), f"{path}.height", 1)
    as_dict(field(image, "render", path), f"{path}.render")


def _check_typed(item: dict[str, Any]) -> None:
    """The item also validates as the published model (``gen schema``)."""
    from pydantic import ValidationError

    try:
        Item.model_validate(item)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        field_name = f"field '{where}': " if where else ""
        raise Malformed(f"does not match the item schema: {field_name}"
                        f"{error['msg'].removeprefix('Value error, ')[:160]}") from None
