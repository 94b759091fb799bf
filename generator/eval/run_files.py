"""What ``gen report`` reads of a run folder, field by field: a forged or damaged
``run.json``, ``results.jsonl`` or ``summary.json`` is one line naming the file, the line
(of ``results.jsonl``) and the field, never a crash half-way through the report.

Only the fields the report reads are checked, with the types it prints them as (counts are
whole numbers, shares and costs are numbers or ``null``); other fields are kept as they are.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from hopvista.errors import UserError

__all__ = ["check_results", "check_run", "check_summary"]


class _Read(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class _Estimate(_Read):
    value: float | None
    low: float | None
    high: float | None
    n: int


class _Tokens(_Read):
    input: int
    output: int


class _Confusion(_Read):
    tp: int
    fn: int
    fp: int
    tn: int
    unanswered: int


class _Statements(_Read):
    accuracy: _Estimate | None = None
    by_type: dict[str, _Estimate | None] = {}
    confusion: _Confusion
    precision: float | None
    recall: float | None
    f1: float | None


class _Drop(_Read):
    bases: int
    base_accuracy: float | None
    accuracy: float | None
    drop: float


class _Variants(_Read):
    bases: int
    consistency: float | None
    drop: dict[str, _Drop]


class _MarkupEntry(_Read):
    items: int
    accuracy: float | None
    failures: dict[str, int]


class _StageCounts(_Read):
    planning: int
    identification: int
    retrieval: int
    reasoning: int
    passed: int


class _StageGroup(_Read):
    statements: int
    first_failure: _StageCounts
    by_modality: dict[str, _StageCounts]


class _Stages(_StageGroup):
    by_level: dict[str, _StageGroup]


class _Usage(_Read):
    input: int
    output: int


class _Judge(_Read):
    model: str
    asked: int
    cached: int
    unreadable: int
    tokens: _Usage
    cost: float | None


class _Rate(_Read):
    statements: int
    wrong: int
    attributed: int
    rate: float


class _ErrorClasses(_Read):
    wrong: int
    by_rule: int
    by_judge: int
    unclassified: int
    unknown: int
    unknown_rate: float | None
    fcmr: dict[str, int]
    mmtabreal: dict[str, int]
    by_modality: dict[str, dict[str, _Rate]]
    judge: _Judge | None = None


class _Readings(_Read):
    by: str
    charts: int
    failed: int
    values: int
    read: int
    share: float | None
    cost: float | None = None


class _Summary(_Read):
    accuracy: _Estimate
    items: int
    answered: int
    errors: int
    unparseable: int
    cached: int
    tokens: _Tokens
    cost: float | None = None
    by: dict[str, dict[str, _Estimate | None]]
    metrics: dict[str, _Estimate | None] | None = None
    statements: _Statements | None = None
    variants: _Variants | None = None
    markup: dict[str, Any] | None = None
    stages: _Stages | None = None
    error_classes: _ErrorClasses | None = None
    derendered: _Readings | None = None


class _Dataset(_Read):
    path: Any
    domain: Any = None


class _Run(_Read):
    dataset: _Dataset


class _Result(_Read):
    id: str
    error: Any
    correct: Any


_MARKUP_ENTRY: TypeAdapter[_MarkupEntry] = TypeAdapter(_MarkupEntry)
_MARKUP_FAMILIES: TypeAdapter[dict[str, _MarkupEntry]] = TypeAdapter(dict[str, _MarkupEntry])


def _problem(where: str, error: ValidationError, prefix: tuple[Any, ...] = ()) -> UserError:
    first = error.errors(include_url=False)[0]
    loc = ".".join(str(part) for part in (*prefix, *first["loc"])) or "(top level)"
    message = re.sub(r" or instance of \w+", "", first["msg"]).replace("Field required",
                                                                         "missing")
    return UserError(f"{where}: field '{loc}': {message[:1].lower()}{message[1:]}")


def _check(model: type[_Read], data: Any, where: str) -> None:
    try:
        model.model_validate(data)
    except ValidationError as exc:
        raise _problem(where, exc) from None


def check_summary(path: Path, summary: Any) -> None:
    """Refuse a ``summary.json`` with a field the report reads missing or of another type."""
    _check(_Summary, summary, str(path))
    for name, entry in (summary.get("markup") or {}).items():
        adapter: TypeAdapter[Any] = _MARKUP_FAMILIES if name == "families" else _MARKUP_ENTRY
        try:
            adapter.validate_python(entry, strict=True)
        except ValidationError as exc:
            raise _problem(str(path), exc, ("markup", name)) from None


def check_run(path: Path, run: Any) -> None:
    """Refuse a ``run.json`` the report cannot read (it names the dataset)."""
    _check(_Run, run, str(path))


def check_results(path: Path, results: list[tuple[int, Any]]) -> None:
    """Refuse a ``results.jsonl`` line the report cannot read (``results`` holds each
    record with its line number)."""
    for number, result in results:
        _check(_Result, result, f"{path}:{number}")
