"""A generic JSONL of tables and questions (docs/imports.md, "jsonl").

One JSON object per line::

    {"id": "q1", "question": "...", "answer": "..." | 12 | true | ["a", "b"],
     "answer_type": "text",                      # optional: number, text, list, boolean
     "table": {"rows": [["h1", "h2"], ["a", "1"]],  # exactly one of rows, html, markdown, csv
               "header": ["h1", "h2"],              # optional, with rows only
               "caption": "..."},                   # optional
     "text": ["a paragraph", "..."]}                 # optional

Without ``answer_type`` the type follows the JSON value: a boolean is ``boolean``, a number
``number``, a list ``list``, a string ``number`` when written as one plain number (``"1,234"``)
and ``text`` otherwise. A given ``answer_type`` must fit the value. The answer is kept, only
typed (``"1,234"`` with type ``number`` becomes ``1234``). Paragraphs become text chunks
(entity ``""``, chunk ``p<n>``, section ``paragraph``, period 0). Other top-level keys are
kept in ``provenance.fields``; an unknown key inside ``table`` skips the line (a typo would
otherwise lose the table). Blank lines are ignored.

Lines end at ``\n`` only and are decoded one by one: an invalid UTF-8 byte, a line that is not
JSON, a refused number (``NaN``, ``Infinity``, more than 30 digits) anywhere in the record
skip that line alone (``file:line``, with the record's id when it has one). A U+2028 or other
Unicode line separator is part of its string.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopvista.errors import UserError, excerpt
from hopvista.model.answers import read_boolean
from hopvista.model.inputs import GridTable, TextChunk
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Mismatch, Skipped
from hopvista.sources.imports.common import (
    Ids,
    RecordError,
    found,
    is_regular,
    json_line_record,
    lines,
    make_item,
    one_line,
    parse_json,
    plain_number,
    relative,
    sniff_lines,
    typed_answer,
)
from hopvista.sources.imports.html import plain_text
from hopvista.sources.imports.protect import protect_answer
from hopvista.sources.imports.tables import (
    TableError,
    from_csv,
    from_html,
    from_markdown,
    from_rows,
)

NAME = "jsonl"
TABLE_FORMS = ("rows", "html", "markdown", "csv")
TABLE_KEYS = (*TABLE_FORMS, "header", "caption")
RECORD_KEYS = ("id", "question", "answer", "answer_type", "table", "text", "caption")
ANSWER_TYPES = ("number", "text", "list", "boolean")


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(path.glob("*.jsonl"))
    return [path] if path.suffix == ".jsonl" else []


def _line_problem(text: str) -> str | None:
    """Why one line is not a record with a question and a table (``None`` when it is)."""
    try:
        record = parse_json(text, line=True)
    except ValueError as exc:
        return one_line(exc)
    if not isinstance(record, dict):
        return f"expected an object, found {found(record)}"
    if "question" not in record or "table" not in record:
        return "an object without question or table"
    return None


def _sniff(path: Path) -> str | None:
    """``None`` when one of the first non-blank lines of ``path`` is an object with a question
    and a table (a broken first line does not hide the format), else what the first of them
    is."""
    try:
        problems = sniff_lines(path, _line_problem)
    except (OSError, ValueError) as exc:
        return one_line(exc)
    if problems is None:
        return None
    if not problems:
        return "no record (the file is empty)"
    return (f"no record with a question and a table in the first {len(problems)} non-blank "
            f"line(s) ({problems[0]})")


def diagnose(path: Path) -> Mismatch | None:
    """Why ``path`` is not a ``.jsonl`` file (or a folder of them) with a record holding a
    question and a table among its first lines."""
    files = _files(path)
    if not files:
        return Mismatch("no *.jsonl file in the folder" if path.is_dir()
                        else "expected a .jsonl file", shaped=False)
    first = next((file for file in files if is_regular(file)), None)
    if first is None:
        return Mismatch(f"{relative(files[0], path)}: not a regular file")
    problem = _sniff(first)
    return None if problem is None else Mismatch(f"{relative(first, path)}: {problem}")


def detect(path: Path) -> bool:
    """A ``.jsonl`` file (or a folder of them) with a record holding a question and a table
    among its first lines."""
    return diagnose(path) is None


def table_of(record: dict[str, Any]) -> GridTable:
    """The record's table (exactly one of ``rows``, ``html``, ``markdown``, ``csv``)."""
    spec = record.get("table")
    if not isinstance(spec, dict):
        raise RecordError("table is not an object with one of rows, html, markdown, csv")
    unknown = sorted(set(spec) - set(TABLE_KEYS))
    if unknown:
        raise RecordError(f"unknown key(s) in table: {', '.join(unknown)} "
                          f"(known: {', '.join(TABLE_KEYS)})")
    forms = [form for form in TABLE_FORMS if form in spec]
    if len(forms) != 1:
        raise RecordError(f"table gives {len(forms)} of rows, html, markdown, csv; give one")
    form = forms[0]
    caption = spec.get("caption", record.get("caption"))
    if caption is not None and not isinstance(caption, str):
        raise RecordError("caption is not a text")
    if "header" in spec and form != "rows":
        raise RecordError("table.header goes with table.rows only")
    if form == "rows":
        return from_rows(spec["rows"], spec.get("header"), caption)
    if not isinstance(spec[form], str):
        raise RecordError(f"table.{form} is not a text")
    reader = {"html": from_html, "markdown": from_markdown, "csv": from_csv}[form]
    return reader(spec[form], caption)


def answer_of(record: dict[str, Any]) -> tuple[Any, str]:
    """The record's answer, typed (see the module's docstring)."""
    answer, given = record.get("answer"), record.get("answer_type")
    if given is not None and given not in ANSWER_TYPES:
        raise RecordError(f"answer_type {excerpt(given)} is not one of {list(ANSWER_TYPES)}")
    if isinstance(answer, bool):
        typed: tuple[Any, str] = (answer, "boolean")
    elif isinstance(answer, (int, float)):
        typed = (answer, "number")
    elif isinstance(answer, list):
        if not answer or not all(isinstance(a, (str, int, float)) and not isinstance(a, bool)
                                 for a in answer):
            raise RecordError("answer is not a non-empty list of texts and numbers")
        typed = (answer, "list")
    elif isinstance(answer, str):
        typed = typed_answer([answer])
    else:
        raise RecordError("answer is missing or not a text, number, boolean or list")
    if given is None or given == typed[1]:
        return typed
    if given == "text" and isinstance(answer, str):
        return answer, "text"
    if given == "number" and isinstance(answer, str):
        number = plain_number(answer)
        if number is not None:
            return number, "number"
    if given == "boolean" and isinstance(answer, str) and read_boolean(answer) is not None:
        return read_boolean(answer), "boolean"
    if given == "list" and not isinstance(answer, list):
        return [answer], "list"
    raise RecordError(f"answer {excerpt(answer)} is not of answer_type {given!r}")


def text_of(record: dict[str, Any]) -> list[TextChunk]:
    """The record's paragraphs as text chunks."""
    text = record.get("text", [])
    if isinstance(text, str):
        text = [text]
    if not isinstance(text, list) or not all(isinstance(t, str) for t in text):
        raise RecordError("text is not a list of paragraphs")
    return [TextChunk(entity="", chunk=f"p{n}", section="paragraph", period=0,
                      text=plain_text(t)) for n, t in enumerate(text, start=1)]


def _record(line: str, number: int, where: str, ids: Ids) -> Imported:
    return json_line_record(line, number, lambda record, record_id: _checked(
        record, record_id, where, ids))


def _checked(record: dict[str, Any], record_id: str | int, where: str, ids: Ids) -> Imported:
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        raise RecordError("question is missing or empty")
    answer, answer_type = answer_of(record)
    table = table_of(record)
    extra = {key: value for key, value in record.items() if key not in RECORD_KEYS}
    item = make_item(fmt=NAME, base_id=ids.new(record_id), kind="table_qa", question=question,
                     answer=answer, answer_type=answer_type, table=table,
                     text=text_of(record), source=where,
                     fields={"id": record_id, **extra} if "id" in record else extra or None)
    return Imported(item, protect_answer(table, question, answer))


def _records(path: Path, files: list[Path]) -> Iterator[Imported | Skipped]:
    ids = Ids(NAME)
    for file in files:
        name = relative(file, path)
        try:
            for line in lines(file):
                where = f"{name}:{line.number}"
                if line.text is None:
                    yield Skipped(where, line.problem or "unreadable")
                    continue
                if not line.text.strip():
                    continue
                try:
                    yield _record(line.text, line.number, where, ids)
                except (RecordError, TableError, ValueError) as exc:
                    yield Skipped(where, one_line(exc))
        except (OSError, ValueError) as exc:
            yield Skipped(name, f"unreadable: {one_line(exc)}")


def read(path: Path) -> Iterator[Imported | Skipped]:
    """The records of a JSONL file (or of every ``*.jsonl`` in a folder), in line order."""
    files = _files(path)
    if not files:
        raise UserError(f"{path}: no JSONL file (*.jsonl) found")
    return _records(path, files)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="generic JSONL: question, answer, table (rows, html, markdown or "
                           "csv), optional text", detect=detect, read=read,
    diagnose=diagnose, title="JSONL"))
