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
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopvista.errors import UserError
from hopvista.model.inputs import GridTable
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Skipped
from hopvista.sources.imports.common import (
    Ids,
    RecordError,
    load_json,
    make_item,
    one_line,
    read_text,
    relative,
    require_json,
)
from hopvista.sources.imports.protect import protect_claim
from hopvista.sources.imports.tables import TableError, grid

NAME = "tabfact"
QUESTION = 'Is the following statement true of the table? "{statement}"'
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


def _looks_like(path: Path) -> bool:
    try:
        content = load_json(path)
    except (OSError, ValueError):
        return False
    return (isinstance(content, dict) and bool(content)
            and _is_entry(next(iter(content.values()))))


def detect(path: Path) -> bool:
    """A TabFact statements JSON, or a release folder with ``data/all_csv``."""
    if path.is_dir():
        files = _statement_files(path)
        return (path / "data" / "all_csv").is_dir() and bool(files) and _looks_like(files[0])
    return path.suffix == ".json" and _looks_like(path)


def tables_folder(path: Path) -> Path | None:
    """``all_csv`` of the release holding ``path``."""
    start = path if path.is_dir() else path.parent
    for folder in [start, *start.parents][:SEARCH_UP + 1]:
        for candidate in (folder / "data" / "all_csv", folder / "all_csv"):
            if candidate.is_dir():
                return candidate
    return None


def read_table(path: Path, caption: str | None) -> GridTable:
    """A TabFact table file (``#``-separated)."""
    lines = [line for line in read_text(path).splitlines() if line.strip()]
    return grid([line.split("#") for line in lines], caption=caption)


def _entries(path: Path, file: Path) -> Iterator[tuple[str, Any] | Skipped]:
    name = relative(file, path)
    try:
        content = load_json(file)
    except (OSError, ValueError) as exc:
        yield Skipped(name, f"not readable as JSON: {one_line(exc)}")
        return
    if not isinstance(content, dict):
        yield Skipped(name, "not a JSON object of table name -> [statements, labels, caption]")
        return
    yield from content.items()


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


def _table_records(name: str, table_name: str, value: Any, tables: Path,
                   ids: Ids) -> Iterator[Imported | Skipped]:
    where = f"{name}: id {table_name}"
    if not _is_entry(value) or len(value[0]) != len(value[1]):
        yield Skipped(where, "not [statements, labels, caption] with one label per statement")
        return
    statements, labels, caption = value
    file = tables / table_name
    if Path(table_name).name != table_name or not file.is_file():
        yield Skipped(where, f"table file {table_name} not found in {tables.name}/")
        return
    try:
        table = read_table(file, caption if isinstance(caption, str) else None)
    except (OSError, UnicodeDecodeError, TableError, ValueError) as exc:
        yield Skipped(where, f"table file {table_name}: {one_line(exc)}")
        return
    for k, (statement, label) in enumerate(zip(statements, labels, strict=True)):
        at = f"{name}: id {table_name}#{k}"
        try:
            yield _record(statement, label, table, f"{name}#{table_name}/{k}",
                          ids.new(f"{table_name}-{k}"), table_name)
        except (RecordError, ValueError) as exc:
            yield Skipped(at, one_line(exc))


def _record(statement: Any, label: Any, table: GridTable, source: str, base_id: str,
            table_name: str) -> Imported:
    if not isinstance(statement, str) or not statement.strip():
        raise RecordError("the statement is not a non-empty text")
    if label not in (0, 1) or isinstance(label, bool):
        raise RecordError(f"label {label!r} is not 0 or 1")
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
    require_json(path)
    tables = tables_folder(path)
    if tables is None:
        raise UserError(f"{path}: no TabFact tables folder (data/all_csv) found near it")
    return _records(path, files, tables)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="TabFact release (statements JSON + data/all_csv/*.html.csv)",
    detect=detect, read=read))
