"""FCMR's release (three statements over text, a table and a chart image).

The input is the release as published (its root, with ``dataset/<level>/``), its
``dataset/`` folder (with ``<level>/``), one level's folder, a flat folder holding
``<level>_data.csv`` files, or one ``<level>_data.csv`` (level ``easy``, ``medium`` or
``hard``). Each level is looked for in that order of places: directly in the folder given,
then in ``<level>/``, then in ``dataset/<level>/``, so a folder may mix levels laid out either
way. The folder holding a level's ``<level>_data.csv`` is that level's root: its table, text
and chart folders are beside it. Each row of ``<level>_data.csv`` (columns ``anchor_num,
filename, correct_answer, option1, option2, option3, chart_column``, and any others) is one
item:

* table: ``<level>_test_table_modality/table_modality_<anchor_num>.csv`` (CSV, first row the
  header);
* text: ``<level>_test_text_modality_chunk/anchor_table_test_<anchor_num>_text.txt``, one text
  chunk per blank-line-separated paragraph (entity ``""``, chunk ``<file stem>#<n>``,
  section ``text``, period 0);
* chart: ``chart_images/<filename>``; FCMR's charts exist only as images, so the item has no
  chart data and :attr:`Imported.chart_image` is that file.

A skipped row is named by its data file's path relative to the input and its line
(``dataset/easy/easy_data.csv:4``).

Items are ``three_statement``: statements ``option1``-``option3`` (type ``imported``, no
program; modalities text, table and chart for ``hard``, unknown otherwise), labelled from
``correct_answer``, the answer their sorted indices. ``correct_answer`` may be written
``1, 3``, ``1,3``, ``[1, 3]``, ``(1, 3)``, ``1 3``, ``1; 3``, ``1 and 3``, ``'1, 3'``, or
``none`` / ``[]`` for no true statement (any case); an index outside 1-3, a repeated index,
another word or an empty value skips the row. Every column of the row is kept in
``provenance.fields``. ``difficulty`` is the level, ``hops`` 1, 2 or 3.

A row costs only itself: an invalid UTF-8 byte in it, a table, text or chart file that is
missing, unreadable, outside the release folder or a symbolic link, a chart that is not a PNG
image that reads whole (truncated, or declaring more than 40 million pixels) skip that row
with the reason.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopvista.errors import UserError, excerpt
from hopvista.model.inputs import GridTable, TextChunk
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Mismatch, Skipped
from hopvista.sources.imports.common import (
    Ids,
    RecordError,
    check_png,
    check_values,
    file_in,
    first_line,
    is_regular,
    make_item,
    one_line,
    read_lenient,
    read_text,
    relative,
)
from hopvista.sources.imports.html import plain_text
from hopvista.sources.imports.protect import protect_statements
from hopvista.sources.imports.tables import from_csv

NAME = "fcmr"
LEVELS = {"easy": 1, "medium": 2, "hard": 3}
REQUIRED = ("anchor_num", "filename", "correct_answer", "option1", "option2", "option3")
QUESTION = ("Read the text, the table and the chart. Which of the following statements are "
            "true?\n{statements}\nAnswer with the numbers of all true statements separated "
            'by commas (for example "1, 3"), or "none" if no statement is true.')
_SEPARATORS = re.compile(r"\s*(?:,|;|\band\b|\s)\s*")


def parse_answer(text: str) -> list[int]:
    """``correct_answer`` as sorted indices (accepted forms: the module's docstring)."""
    said = text.strip().lower()
    inner = said.strip("'\" ").strip("[](){} ")
    if inner == "none" or (not inner and said.strip("'\" ") in ("[]", "()", "{}")):
        return []
    tokens = [t for t in _SEPARATORS.split(inner) if t]
    if not tokens or not all(t in ("1", "2", "3") for t in tokens):
        raise RecordError(f"correct_answer {excerpt(text)} is not indices 1-3 or 'none'")
    if len(set(tokens)) != len(tokens):
        raise RecordError(f"correct_answer {excerpt(text)} repeats an index")
    return sorted(int(t) for t in tokens)


PLACES = (".", "{level}", "dataset/{level}")
"""Where a level's folder may lie in the folder given (flat, a level's folder, the release)."""


def _data_files(path: Path) -> list[tuple[str, Path]]:
    """Each level's data file, in level order (the first place that has it: :data:`PLACES`)."""
    if not path.is_dir():
        level = path.name.removesuffix("_data.csv")
        return [(level, path)] if level in LEVELS and path.name.endswith("_data.csv") else []
    found = []
    for level in LEVELS:
        files = (path / place.format(level=level) / f"{level}_data.csv" for place in PLACES)
        first = next((file for file in files if file.is_file()), None)
        if first is not None:
            found.append((level, first))
    return found


def _header_problem(path: Path) -> str | None:
    """Why the first line of ``path`` is not a header with FCMR's columns (``None`` when it
    is)."""
    if not is_regular(path):
        return "not a regular file"
    try:
        header = next(csv.reader([first_line(path)]), [])
    except (OSError, ValueError, csv.Error) as exc:
        return one_line(exc)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        return f"the header (line 1) lacks the column(s) {', '.join(missing)}"
    return None


def diagnose(path: Path) -> Mismatch | None:
    """Why ``path`` is not an FCMR release folder (``<level>_data.csv``) or one of its data
    files."""
    files = _data_files(path)
    if not files:
        return Mismatch("no easy_data.csv, medium_data.csv or hard_data.csv in the folder, "
                        "in its level folders or in dataset/<level>/"
                        if path.is_dir() else "expected easy_data.csv, medium_data.csv or "
                        "hard_data.csv", shaped=False)
    problem = _header_problem(files[0][1])
    return None if problem is None else Mismatch(f"{_shown(files[0][1], path)}: {problem}")


def _shown(file: Path, path: Path) -> str:
    """A data file as messages name it: relative to the input folder (its name for a file)."""
    return relative(file, path) if path.is_dir() else file.name


def detect(path: Path) -> bool:
    """An FCMR release folder (``<level>_data.csv``), or one of its data files."""
    return diagnose(path) is None


def _text(path: Path) -> list[TextChunk]:
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", read_text(path)) if p.strip()]
    return [TextChunk(entity="", chunk=f"{path.stem}#{n}", section="text", period=0,
                      text=plain_text(p)) for n, p in enumerate(paragraphs, start=1)]


def _file(root: Path, folder: str, name: str, what: str) -> Path:
    if Path(name).name != name or not name:
        raise RecordError(f"{what} file name {excerpt(name)} is not a plain file name")
    return file_in(root, f"{folder}/{name}", what)


def _record(root: Path, level: str, row: dict[str, str], source: str, ids: Ids) -> Imported:
    missing = [c for c in REQUIRED if not (row.get(c) or "").strip() and c != "correct_answer"]
    if missing:
        raise RecordError(f"empty {', '.join(missing)}")
    anchor = row["anchor_num"].strip()
    answer = parse_answer(row.get("correct_answer") or "")
    table_file = _file(root, f"{level}_test_table_modality", f"table_modality_{anchor}.csv",
                       "table")
    try:
        table: GridTable = from_csv(read_text(table_file))
    except (OSError, ValueError) as exc:
        raise RecordError(f"table: {one_line(exc)}") from None
    text_file = _file(root, f"{level}_test_text_modality_chunk",
                      f"anchor_table_test_{anchor}_text.txt", "text")
    try:
        text = _text(text_file)
    except (OSError, ValueError) as exc:
        raise RecordError(f"text: {one_line(exc)}") from None
    name = row["filename"].strip()
    chart = _file(root, "chart_images", name, "chart image")
    check_png(chart, f"chart image chart_images/{name if len(name) <= 80 else excerpt(name)}")
    options = [row[f"option{n}"].strip() for n in (1, 2, 3)]
    modalities = ["text", "table", "chart"] if level == "hard" else []
    statements = [{"text": o, "label": n in answer, "type": "imported",
                   "modalities": modalities, "program": None}
                  for n, o in enumerate(options, start=1)]
    listed = "\n".join(f"{n}. {o}" for n, o in enumerate(options, start=1))
    question = (row.get("question") or "").strip() or QUESTION.format(statements=listed)
    item = make_item(fmt=NAME, base_id=ids.new(f"{level}-{anchor}"), kind="three_statement",
                     question=question, answer=answer, answer_type="indices", table=table,
                     text=text, statements=statements, difficulty=level, hops=LEVELS[level],
                     source=source, fields=dict(row))
    return Imported(item, protect_statements(table, options), chart_image=chart.resolve())


def _records(path: Path, files: list[tuple[str, Path]]) -> Iterator[Imported | Skipped]:
    ids = Ids(NAME)
    for level, file in files:
        name, root = _shown(file, path), file.parent
        try:
            text = read_lenient(file)
        except (OSError, ValueError) as exc:
            yield Skipped(name, f"unreadable: {one_line(exc)}")
            continue
        reader = csv.DictReader(io.StringIO(text, newline=""))
        start = 2
        while True:
            where = f"{name}:{start}"
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:  # the row costs only itself: the reader goes on after it
                start = reader.line_num + 1
                yield Skipped(where, f"unreadable CSV: {one_line(exc)}")
                continue
            start = reader.line_num + 1
            yield _row(root, level, row, where, len(reader.fieldnames or []), ids)


def _row(root: Path, level: str, row: dict[str | Any, str | Any], where: str, columns: int,
         ids: Ids) -> Imported | Skipped:
    """One row of a data file as its item, or why it is skipped."""
    if None in row or any(v is None for v in row.values()):
        return Skipped(where, f"{columns} columns in the header, another number in this row")
    try:
        check_values(row)
        return _record(root, level, row, where, ids)
    except (RecordError, OSError, ValueError) as exc:
        return Skipped(where, one_line(exc))


def read(path: Path) -> Iterator[Imported | Skipped]:
    """The items of an FCMR release folder or data file, by level (easy, medium, hard) and
    row."""
    files = _data_files(path)
    if not files:
        raise UserError(f"{path}: no FCMR data file (easy_data.csv, medium_data.csv, "
                        "hard_data.csv, directly, in a level's folder or in dataset/<level>/) "
                        "found")
    return _records(path, files)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="FCMR release (dataset/<level>/<level>_data.csv + table, text and "
                           "chart folders; or the levels side by side)",
    detect=detect, read=read, diagnose=diagnose, title="FCMR"))
