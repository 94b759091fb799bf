"""TabFact (wenhuchen/Table-Fact-Checking) in its release layout.

The input is a statements file, a JSON object mapping a table file name to
``[[statement, ...], [label, ...], caption]`` (``collected_data/r1_training_all.json``,
``tokenized_data/test_examples.json``, ...), or the release folder, whose
``collected_data/*.json`` (else ``tokenized_data/*.json``) are read. Tables are
``data/all_csv/<name>`` (found from the release folder, or upwards from the JSON file):
``#``-separated, no quoting, first row the header.

One item per statement: kind ``table_qa``, ``answer_type`` ``boolean`` (label 1 is true),
the question asks whether the statement is true of the table (the statement is quoted
verbatim and kept in ``provenance.fields``); the caption is the table's caption.

A statements file is parsed whole, but an invalid UTF-8 byte or a refused number (``NaN``,
``Infinity``, more than 30 digits) skips only the statement (or the table entry) holding it.
Table files are read line by line (lines end at ``\n``); one that cannot be read skips the
statements of its table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopvista.errors import UserError, excerpt
from hopvista.model.inputs import GridTable
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Mismatch, Skipped
from hopvista.sources.imports.common import (
    Ids,
    RecordError,
    check_values,
    file_in,
    json_file_problem,
    load_json,
    make_item,
    one_line,
    read_text,
    relative,
)
from hopvista.sources.imports.protect import protect_claim
from hopvista.sources.imports.tables import TableError, grid

NAME = "tabfact"
QUESTION = 'Is the following statement true of the table? "{statement}"'
SHAPE = "an object mapping table file names to [statements, labels, caption]"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
SEARCH_UP = 3
"""How many folders above a statements file are searched for ``data/all_csv``."""


def _is_entry(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 3 and isinstance(value[0], list)
            and isinstance(value[1], list))


def _statement_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path] if path.suffix == ".json" else []
    for folder in ("collected_data", "tokenized_data"):
        found = sorted((path / folder).glob("*.json"))
        if found:
            return found
    return []


def _file_problem(path: Path) -> str | None:
    """Why the file ``path`` is not a JSON object (``None`` when it is)."""
    return json_file_problem(path, dict, SHAPE)


def _content_problem(path: Path) -> str | None:
    """Why the file ``path`` is not TabFact's statements object, judged by its first entry
    (``None`` when it is)."""
    problem = _file_problem(path)
    if problem is not None:
        return problem
    content = load_json(path)
    if not content:
        return f"expected {SHAPE}, found an empty object"
    key, value = next(iter(content.items()))
    if not _is_entry(value):
        return f"entry {excerpt(key)} is not [statements, labels, caption]"
    return None


def diagnose(path: Path) -> Mismatch | None:
    """Why ``path`` is not a TabFact statements JSON, or a release folder with
    ``data/all_csv``."""
    files = _statement_files(path)
    if not files:
        return Mismatch("no collected_data/*.json or tokenized_data/*.json in the folder"
                        if path.is_dir() else "expected a .json file", shaped=False)
    if path.is_dir() and not (path / "data" / "all_csv").is_dir():
        return Mismatch("no tables folder data/all_csv")
    problem = _content_problem(files[0])
    return None if problem is None else Mismatch(
        problem if files[0] == path else f"{relative(files[0], path)}: {problem}")


def detect(path: Path) -> bool:
    """A TabFact statements JSON, or a release folder with ``data/all_csv``."""
    return diagnose(path) is None


def tables_folder(path: Path) -> Path | None:
    """``all_csv`` of the release holding ``path``."""
    start = path if path.is_dir() else path.parent
    for folder in [start, *start.parents][:SEARCH_UP + 1]:
        for candidate in (folder / "data" / "all_csv", folder / "all_csv"):
            if candidate.is_dir():
                return candidate
    return None


def read_table(path: Path, caption: str | None) -> GridTable:
    """A TabFact table file (``#``-separated; lines end at line breaks only, never at a
    Unicode line separator inside a cell)."""
    lines = [line for line in _LINE_BREAK.split(read_text(path)) if line.strip()]
    return grid([line.split("#") for line in lines], caption=caption)


def _entries(path: Path, file: Path) -> Iterator[tuple[str, Any] | Skipped]:
    name = relative(file, path)
    problem = _file_problem(file)
    if problem is not None:
        yield Skipped(name, problem)
        return
    yield from load_json(file).items()


def _records(path: Path, files: list[Path], tables: Path) -> Iterator[Imported | Skipped]:
    ids = Ids(NAME)
    for file in files:
        name = relative(file, path)
        for entry in _entries(path, file):
            if isinstance(entry, Skipped):
                yield entry
                continue
            table_name, value = entry
            yield from _table_records(name, table_name, value, tables, ids)


def _table_file(tables: Path, table_name: str) -> Path:
    """The table file ``table_name`` of the ``all_csv`` folder ``tables``."""
    if Path(table_name).name != table_name:
        raise RecordError(f"table file {excerpt(table_name)} is not a plain file name")
    try:
        return file_in(tables, table_name, "table")
    except RecordError as exc:
        raise RecordError(f"{exc} (in {tables.name}/)") from None


def _table_records(name: str, table_name: str, value: Any, tables: Path,
                   ids: Ids) -> Iterator[Imported | Skipped]:
    shown = table_name if len(table_name) <= 80 else excerpt(table_name)
    where = f"{name}: id {shown}"
    if not _is_entry(value) or len(value[0]) != len(value[1]):
        yield Skipped(where, "not [statements, labels, caption] with one label per statement")
        return
    statements, labels, caption = value
    try:
        check_values({"table": table_name, "caption": caption})
        file = _table_file(tables, table_name)
    except RecordError as exc:
        yield Skipped(where, one_line(exc))
        return
    try:
        table = read_table(file, caption if isinstance(caption, str) else None)
    except (OSError, TableError, ValueError) as exc:
        yield Skipped(where, f"table file {shown}: {one_line(exc)}")
        return
    for k, (statement, label) in enumerate(zip(statements, labels, strict=True)):
        at = f"{name}: id {shown}#{k}"
        try:
            check_values({"statement": statement, "label": label})
            yield _record(statement, label, table, f"{name}#{table_name}/{k}",
                          ids.new(f"{table_name}-{k}"), table_name)
        except (RecordError, ValueError) as exc:
            yield Skipped(at, one_line(exc))


def _record(statement: Any, label: Any, table: GridTable, source: str, base_id: str,
            table_name: str) -> Imported:
    if not isinstance(statement, str) or not statement.strip():
        raise RecordError("the statement is not a non-empty text")
    if label not in (0, 1) or isinstance(label, bool):
        raise RecordError(f"label {excerpt(label)} is not 0 or 1")
    item = make_item(fmt=NAME, base_id=base_id, kind="table_qa",
                     question=QUESTION.format(statement=statement), answer=label == 1,
                     answer_type="boolean", table=table, source=source,
                     fields={"table": table_name, "statement": statement, "label": label})
    return Imported(item, protect_claim(table, statement))


def read(path: Path) -> Iterator[Imported | Skipped]:
    """The statements of a TabFact statements file or release folder, in file order."""
    files = _statement_files(path)
    if not files:
        raise UserError(f"{path}: no TabFact statements file (*.json) found")
    if path.is_file():
        problem = _file_problem(path)
        if problem is not None:
            raise UserError(f"{path}: TabFact: {problem}")
    tables = tables_folder(path)
    if tables is None:
        raise UserError(f"{path}: no TabFact tables folder (data/all_csv) found near it")
    return _records(path, files, tables)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="TabFact release (statements JSON + data/all_csv/*.html.csv)",
    detect=detect, read=read, diagnose=diagnose, title="TabFact"))
