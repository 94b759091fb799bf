"""FinQA (czyssrs/FinQA) in its release layout.

The input is one of the release's JSON files (``train.json``, ``dev.json``, ``test.json``,
``private_test.json``), or a folder holding them directly or in ``dataset/`` (the repository
as published): ``train.json``, ``dev.json`` and ``test.json`` are read, in that order
(``private_test.json`` has no answers and is read only when given as the file). A file is a
JSON list of records ``{id, filename, pre_text: [...], post_text: [...], table: [[...]], qa:
{question, answer, exe_ans, program, program_re, gold_inds, ...}}``.

One ``table_qa`` item per record:

* table: ``table``, its first row the header (FinQA's ``table_<n>`` is grid row ``n``);
* text: the sentences before the table (section ``pre_text``), then those after it (section
  ``post_text``), one text chunk each (entity ``""``, chunk ``text_<n>`` numbered over both
  as FinQA's ``gold_inds`` number them, period 0); empty sentences are left out;
* question: ``qa.question``; answer: ``qa.answer`` as the source writes it, typed as every
  format's (``"94%"`` stays a text, ``"1,234"`` is a number), or ``qa.exe_ans`` when
  ``answer`` is empty;
* ``provenance.fields``: ``id``, ``filename`` and the ``qa`` fields ``question``, ``answer``,
  ``exe_ans``, ``program``, ``program_re``, ``gold_inds`` and ``explanation``: the reasoning
  program stays with the record.

Protected cells: the answer's cells, the rows and columns the question names, the cells
holding a number of the program (its constants ``const_*`` and step references ``#n`` left
out), and every cell of the table rows ``gold_inds`` names.

A file is parsed whole, but an invalid UTF-8 byte or a refused number skips only the record
holding it; a record without a question or an answer (the private test split) is skipped
with its id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopvista.errors import UserError, excerpt
from hopvista.model.inputs import GridTable, TextChunk
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Mismatch, Protected, Skipped
from hopvista.sources.imports.common import (
    Ids,
    RecordError,
    check_values,
    found,
    json_file_problem,
    load_json,
    make_item,
    one_line,
    relative,
    typed_answer,
)
from hopvista.sources.imports.html import plain_text
from hopvista.sources.imports.protect import (
    answer_cells,
    derivation_cells,
    merge,
    named_columns,
    named_rows,
)
from hopvista.sources.imports.tables import TableError, from_rows

NAME = "finqa"
SPLITS = ("train.json", "dev.json", "test.json")
"""The files read from a release folder, in this order."""
KEYS = ("pre_text", "post_text", "table", "qa")
"""The keys that make a record FinQA's (the first record is judged by them)."""
QA_KEPT = ("question", "answer", "exe_ans", "program", "program_re", "gold_inds",
           "explanation")
_PROGRAM_NOISE = re.compile(r"const_[A-Za-z0-9_]+|#\d+")
_GOLD_ROW = re.compile(r"table_(\d+)")


def _folder(path: Path) -> Path:
    """The folder holding the split files: ``path`` itself, or its ``dataset/``."""
    if not any((path / name).is_file() for name in SPLITS) and (path / "dataset").is_dir():
        return path / "dataset"
    return path


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        folder = _folder(path)
        return [folder / name for name in SPLITS if (folder / name).is_file()]
    return [path] if path.suffix == ".json" else []


def _file_problem(path: Path) -> str | None:
    """Why the file ``path`` is not a JSON list (``None`` when it is)."""
    return json_file_problem(path, list, "a list of records")


def _content_problem(path: Path) -> str | None:
    """Why the file ``path`` is not a FinQA file, judged by its first record (``None`` when it
    is)."""
    problem = _file_problem(path)
    if problem is not None:
        return problem
    content = load_json(path)
    if not content:
        return "expected a list of records, found an empty list"
    if not isinstance(content[0], dict) or not set(KEYS) <= set(content[0]):
        return f"record 0 is not an object with {', '.join(KEYS)}"
    return None


def diagnose(path: Path) -> Mismatch | None:
    """Why ``path`` is not a FinQA JSON file, or a folder of them (``dataset/`` or its
    parent)."""
    files = _files(path)
    if not files:
        return Mismatch("no train.json, dev.json or test.json in the folder or in its dataset/"
                        if path.is_dir() else "expected a .json file", shaped=False)
    problem = _content_problem(files[0])
    return None if problem is None else Mismatch(
        problem if files[0] == path else f"{relative(files[0], path)}: {problem}")


def detect(path: Path) -> bool:
    """A FinQA JSON file, or a folder of them."""
    return diagnose(path) is None


def _sentences(record: dict[str, Any], key: str) -> list[str]:
    value = record.get(key, [])
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise RecordError(f"{key} is not a list of sentences")
    return value


def text_of(record: dict[str, Any]) -> list[TextChunk]:
    """The sentences around the table as text chunks (``text_<n>`` over pre- and post-text)."""
    chunks, n = [], 0
    for section in ("pre_text", "post_text"):
        for sentence in _sentences(record, section):
            text = plain_text(sentence).strip()
            if text:
                chunks.append(TextChunk(entity="", chunk=f"text_{n}", section=section,
                                        period=0, text=text))
            n += 1
    return chunks


def answer_of(qa: dict[str, Any]) -> tuple[Any, str]:
    """The record's answer, typed: ``qa.answer``, else ``qa.exe_ans``."""
    answer = qa.get("answer")
    if isinstance(answer, str) and answer.strip():
        return typed_answer([answer])
    executed = qa.get("exe_ans")
    if isinstance(executed, (int, float)) and not isinstance(executed, bool):
        return executed, "number"
    if isinstance(executed, str) and executed.strip():
        return typed_answer([executed])
    raise RecordError("no answer (qa.answer and qa.exe_ans are empty: the private test split?)")


def gold_rows(table: GridTable, gold: Any) -> list[Protected]:
    """Every cell of the table rows FinQA's ``gold_inds`` names (``table_<n>`` is grid row
    ``n``)."""
    if not isinstance(gold, dict):
        return []
    found_rows = sorted({int(m.group(1)) for key in gold
                         if (m := _GOLD_ROW.fullmatch(str(key)))})
    width = len(table.header)
    return [Protected(r, c, f"in a row FinQA's gold facts name (table_{r})")
            for r in found_rows if r <= len(table.rows) for c in range(width)]


def protect(table: GridTable, question: str, answer: Any, qa: dict[str, Any]
            ) -> tuple[Protected, ...]:
    """The cells no variant may hide (see the module's docstring)."""
    program = qa.get("program")
    numbers = _PROGRAM_NOISE.sub(" ", program) if isinstance(program, str) else ""
    return merge(table, [answer_cells(table, answer), named_rows(table, question),
                         named_columns(table, question),
                         derivation_cells(table, numbers) if numbers.strip() else [],
                         gold_rows(table, qa.get("gold_inds"))])


def _record(record: Any, source: str, base_id: str) -> Imported:
    if not isinstance(record, dict):
        raise RecordError(f"expected an object, found {found(record)}")
    check_values(record)
    qa = record.get("qa")
    if not isinstance(qa, dict) or not isinstance(qa.get("question"), str) \
            or not qa["question"].strip():
        raise RecordError("qa is not an object with a question")
    answer, answer_type = answer_of(qa)
    rows = record.get("table")
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise RecordError("table is not a list of rows")
    table = from_rows(rows)
    fields = {key: record[key] for key in ("id", "filename") if key in record}
    fields |= {key: qa[key] for key in QA_KEPT if key in qa}
    item = make_item(fmt=NAME, base_id=base_id, kind="table_qa", question=qa["question"],
                     answer=answer, answer_type=answer_type, table=table,
                     text=text_of(record), source=source, fields=fields)
    return Imported(item, protect(table, qa["question"], answer, qa))


def _where(name: str, k: int, record: Any) -> tuple[str, str]:
    """Where a record is, for messages and ``provenance.source``: its id when it has one."""
    record_id = record.get("id") if isinstance(record, dict) else None
    if isinstance(record_id, str) and record_id.strip():
        shown = record_id if len(record_id) <= 80 else excerpt(record_id)
        return f"{name}: id {shown}", record_id
    return f"{name}: id record {k}", f"record {k}"


def _records(path: Path, files: list[Path]) -> Iterator[Imported | Skipped]:
    ids = Ids(NAME)
    for file in files:
        name = relative(file, path)
        problem = _file_problem(file)
        if problem is not None:
            yield Skipped(name, problem)
            continue
        for k, record in enumerate(load_json(file)):
            where, record_id = _where(name, k, record)
            try:
                yield _record(record, f"{name}#{record_id}", ids.new(record_id))
            except (RecordError, TableError, ValueError) as exc:
                yield Skipped(where, one_line(exc))


def read(path: Path) -> Iterator[Imported | Skipped]:
    """The records of a FinQA file or folder, in file and record order."""
    files = _files(path)
    if not files:
        raise UserError(f"{path}: no FinQA file (train.json, dev.json, test.json) found")
    problem = _file_problem(path) if path.is_file() else None
    if problem is not None:
        raise UserError(f"{path}: FinQA: {problem}")
    return _records(path, files)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="FinQA release (dataset/{train,dev,test}.json: pre_text, post_text, "
                           "table, qa with question, answer and program)",
    detect=detect, read=read, diagnose=diagnose, title="FinQA"))
