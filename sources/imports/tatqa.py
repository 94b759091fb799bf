"""TAT-QA (NExTplusplus/TAT-QA) in its release layout.

The input is a ``tatqa_dataset_*.json`` file, or a folder of them: a JSON list of contexts
``{table: {uid, table: [[...]]}, paragraphs: [{uid, order, text}], questions: [{uid, order,
question, answer, derivation, answer_type, answer_from, rel_paragraphs, req_comparison,
scale}]}``. One ``table_qa`` item per question; the table's first row is the header; the
paragraphs, in ``order``, are the item's text chunks (entity: the table uid, chunk: the
paragraph uid, section ``paragraph``, period 0).

Answers keep the source's value, typed: ``arithmetic`` and ``count`` answers and one-span
answers written as a plain number are ``number``; other one-span answers ``text``; several
spans a ``list``. **Scale**: TAT-QA scores a number together with its ``scale`` (thousand,
million, billion, percent), which the question does not say. The answer value is kept as the
source writes it (the scale is not multiplied in, so it stays comparable with the table's
cells), and when the scale is set and the answer is a number or a list, the question ends
with the unit asked for: ``"... (Answer in millions.)"``. The source's question, scale and
other fields are in ``provenance.fields``. Questions without an answer (the unlabelled test
split) are skipped.

A file is parsed whole, but an invalid UTF-8 byte or a refused number (``NaN``, ``Infinity``,
more than 30 digits) skips only the question holding it (or, in a table or paragraph, the
questions of that document).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopvista.errors import UserError, excerpt
from hopvista.model.inputs import GridTable, TextChunk
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Mismatch, Skipped
from hopvista.sources.imports.common import (
    Ids,
    RecordError,
    check_values,
    json_file_problem,
    load_json,
    make_item,
    one_line,
    relative,
    typed_answer,
)
from hopvista.sources.imports.html import plain_text
from hopvista.sources.imports.protect import protect_answer
from hopvista.sources.imports.tables import TableError, from_rows

NAME = "tatqa"
ANSWER_TYPES = ("span", "multi-span", "arithmetic", "count")
SCALES = {"thousand": "thousands", "million": "millions", "billion": "billions",
          "percent": "percent"}
KEPT = ("uid", "question", "answer", "answer_type", "answer_from", "scale", "derivation",
        "rel_paragraphs", "req_comparison")


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(path.glob("tatqa_dataset_*.json"))
    return [path] if path.suffix == ".json" else []


def _file_problem(path: Path) -> str | None:
    """Why the file ``path`` is not a JSON list (``None`` when it is)."""
    return json_file_problem(path, list, "a list of documents")


def _content_problem(path: Path) -> str | None:
    """Why the file ``path`` is not a TAT-QA dataset, judged by its first document (``None``
    when it is)."""
    problem = _file_problem(path)
    if problem is not None:
        return problem
    content = load_json(path)
    if not content:
        return "expected a list of documents, found an empty list"
    if not isinstance(content[0], dict) or \
            not {"table", "paragraphs", "questions"} <= set(content[0]):
        return "document 0 is not an object with table, paragraphs and questions"
    return None


def diagnose(path: Path) -> Mismatch | None:
    """Why ``path`` is not a TAT-QA dataset JSON, or a folder of ``tatqa_dataset_*.json``."""
    files = _files(path)
    if not files:
        return Mismatch("no tatqa_dataset_*.json file in the folder" if path.is_dir()
                        else "expected a .json file", shaped=False)
    problem = _content_problem(files[0])
    return None if problem is None else Mismatch(
        problem if files[0] == path else f"{relative(files[0], path)}: {problem}")


def detect(path: Path) -> bool:
    """A TAT-QA dataset JSON, or a folder of ``tatqa_dataset_*.json``."""
    return diagnose(path) is None


def _table(context: dict[str, Any]) -> tuple[str, GridTable]:
    check_values({key: value for key, value in context.items() if key != "questions"})
    block = context.get("table")
    if not isinstance(block, dict) or not isinstance(block.get("uid"), str):
        raise RecordError("table is not {uid, table}")
    rows = block.get("table")
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise RecordError("table.table is not a list of rows")
    return block["uid"], from_rows(rows)


def _paragraphs(context: dict[str, Any], table_uid: str) -> list[TextChunk]:
    paragraphs = context.get("paragraphs", [])
    if not isinstance(paragraphs, list) or not all(
            isinstance(p, dict) and isinstance(p.get("text"), str) for p in paragraphs):
        raise RecordError("paragraphs is not a list of {uid, order, text}")
    ordered = sorted(paragraphs, key=lambda p: (p.get("order") if isinstance(
        p.get("order"), int) else 0))
    return [TextChunk(entity=table_uid, chunk=str(p.get("uid", "")), section="paragraph",
                      period=0, text=plain_text(p["text"])) for p in ordered]


def typed(answer: Any) -> tuple[Any, str]:
    """A TAT-QA answer as ``(answer, answer_type)`` (see the module's docstring)."""
    if answer is None or answer == "" or answer == []:
        raise RecordError("no answer (an unlabelled split?)")
    if isinstance(answer, bool):
        raise RecordError(f"answer {excerpt(answer)} is not a span, a list or a number")
    if isinstance(answer, (int, float)):
        return answer, "number"
    if isinstance(answer, list):
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                   for v in answer):
            raise RecordError("the answer list holds something other than texts and numbers")
        if len(answer) == 1 and not isinstance(answer[0], str):
            return answer[0], "number"
        return typed_answer([str(v) for v in answer])
    if isinstance(answer, str):
        return typed_answer([answer])
    raise RecordError(f"answer is a {type(answer).__name__}")


def _question(q: Any, table: GridTable, text: list[TextChunk], source: str,
              base_id: str) -> Imported:
    if not isinstance(q, dict) or not isinstance(q.get("question"), str) \
            or not q["question"].strip():
        raise RecordError("not a question object with a question text")
    check_values(q)
    kind = q.get("answer_type")
    if kind not in ANSWER_TYPES:
        raise RecordError(f"answer_type {excerpt(kind)} is not one of {list(ANSWER_TYPES)}")
    answer, answer_type = typed(q.get("answer"))
    scale = q.get("scale") or ""
    if not isinstance(scale, str) or (scale and scale not in SCALES):
        raise RecordError(f"scale {excerpt(scale)} is not one of {['', *SCALES]}")
    question = q["question"]
    if scale and answer_type in ("number", "list"):
        question = f"{question} (Answer in {SCALES[scale]}.)"
    derivation = q["derivation"] if isinstance(q.get("derivation"), str) else ""
    item = make_item(fmt=NAME, base_id=base_id, kind="table_qa", question=question,
                     answer=answer, answer_type=answer_type, table=table, text=text,
                     source=source, fields={key: q[key] for key in KEPT if key in q})
    return Imported(item, protect_answer(table, q["question"], answer, derivation))


def _context(name: str, c: int, context: Any, ids: Ids) -> Iterator[Imported | Skipped]:
    questions = context.get("questions") if isinstance(context, dict) else None
    if not isinstance(questions, list):
        yield Skipped(f"{name}: id context {c}", "not a context {table, paragraphs, questions}")
        return
    try:
        uid, table = _table(context)
        text = _paragraphs(context, uid)
    except (RecordError, TableError, ValueError) as exc:
        yield Skipped(f"{name}: id context {c}", one_line(exc))
        return
    for k, q in enumerate(questions):
        qid = q.get("uid") if isinstance(q, dict) and isinstance(q.get("uid"), str) else None
        shown = qid if qid is None or len(qid) <= 80 else excerpt(qid)
        where = f"{name}: id {shown}" if qid else f"{name}: id context {c} question {k}"
        try:
            yield _question(q, table, text, f"{name}#{qid or f'{c}/{k}'}",
                            ids.new(qid or f"{c}-{k}"))
        except (RecordError, ValueError) as exc:
            yield Skipped(where, one_line(exc))


def _records(path: Path, files: list[Path]) -> Iterator[Imported | Skipped]:
    ids = Ids(NAME)
    for file in files:
        name = relative(file, path)
        problem = _file_problem(file)
        if problem is not None:
            yield Skipped(name, problem)
            continue
        for c, context in enumerate(load_json(file)):
            yield from _context(name, c, context, ids)


def read(path: Path) -> Iterator[Imported | Skipped]:
    """The questions of a TAT-QA file or folder, in file, context and question order."""
    files = _files(path)
    if not files:
        raise UserError(f"{path}: no TAT-QA dataset file (tatqa_dataset_*.json) found")
    problem = _file_problem(path) if path.is_file() else None
    if problem is not None:
        raise UserError(f"{path}: TAT-QA: {problem}")
    return _records(path, files)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="TAT-QA release (tatqa_dataset_*.json: table, paragraphs, questions)",
    detect=detect, read=read, diagnose=diagnose, title="TAT-QA"))
