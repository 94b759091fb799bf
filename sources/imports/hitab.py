"""HiTab (microsoft/HiTab) in its release layout: hierarchical tables.

The input is the repository as published (its root, with ``data/``), its ``data/`` folder, or
one samples file (``dev_samples.jsonl``): a folder's ``train_samples.jsonl``,
``dev_samples.jsonl`` and ``test_samples.jsonl`` are read, in that order. Tables are
``tables/raw/<table_id>.json`` beside the samples (the release ships them zipped:
``unzip -d data/ data/tables.zip``). A sample is one JSON line ``{id, table_id, question,
answer: [...], aggregation: [...], linked_cells, answer_formulas, reference_cells_map, ...}``;
a table is ``{title, texts: [[...]], merged_regions: [{first_row, last_row, first_column,
last_column}], top_root, left_root, top_header_rows_num, left_header_columns_num}``.

One ``table_qa`` item per sample. The table is the matrix ``texts`` as a grid (its row 0 the
header row, so HiTab's cell coordinates are the grid's) that keeps its hierarchy:

* ``header_rows`` = ``top_header_rows_num`` (at least 1: row 0 is the header row): the
  multi-level column header;
* ``label_cols`` = ``left_header_columns_num``;
* ``merged``: each region of ``merged_regions`` larger than one cell; the release writes a
  merged cell's text in its first cell only, and the grid repeats it in every cell the region
  covers (as an HTML table's spans are read);
* ``row_levels``: each body row's depth in the left header tree ``left_root`` (0 the top
  level), which the table image shows as indentation;
* the caption is ``title``; a number cell written as a whole float (``2014.0``) shows as the
  whole number (``2014``).

The answer is ``answer`` typed as every format's (one number a ``number``, a whole float
written as the whole number as in the table, several values a ``list``); ``aggregation``,
``answer_formulas``, ``linked_cells`` and the other fields of the sample are kept in
``provenance.fields``. Protected cells: the cells HiTab links to the
question (``linked_cells``: headers and the quantities the answer is computed from), the
cells its formulas reference, and the answer's cells and the rows and columns the question
names.

Samples are read line by line (a bad line costs only itself, named ``file:line`` and its id);
a table that cannot be read (missing, not JSON, a region outside the grid or overlapping
another) skips the samples that name it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hopvista.errors import UserError, excerpt
from hopvista.model.inputs import GridTable, MergedCell
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Mismatch, Protected, Skipped
from hopvista.sources.imports.common import (
    MAX_PART_BYTES,
    Ids,
    RecordError,
    TableCache,
    check_values,
    file_in,
    found,
    is_regular,
    json_line_record,
    lines,
    make_item,
    one_line,
    parse_json,
    read_lenient,
    relative,
    sniff_lines,
    typed_answer,
)
from hopvista.sources.imports.protect import answer_cells, merge, named_columns, named_rows
from hopvista.sources.imports.tables import TableError, grid

NAME = "hitab"
SPLITS = ("train_samples.jsonl", "dev_samples.jsonl", "test_samples.jsonl")
"""The samples files read from a folder, in this order."""
TABLES = "tables/raw"
"""Where the tables are, beside the samples."""
SAMPLE_KEYS = ("table_id", "question", "answer")
KEPT = ("id", "table_id", "table_source", "sentence_id", "sub_sentence_id", "sub_sentence",
        "question", "answer", "aggregation", "answer_formulas", "reference_cells_map",
        "linked_cells")
_COORDS = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")


# -- layout and detection --------------------------------------------------------------------


def _folder(path: Path) -> Path:
    """The folder holding the samples: ``path`` itself, or its ``data/``."""
    if not any((path / name).is_file() for name in SPLITS) and (path / "data").is_dir():
        return path / "data"
    return path


def _layout(path: Path) -> tuple[Path, list[Path]]:
    """The folder the tables are found from, and the samples files to read."""
    if path.is_dir():
        folder = _folder(path)
        return folder, [folder / name for name in SPLITS if (folder / name).is_file()]
    return path.parent, [path] if path.name.endswith(".jsonl") else []


def _sample_problem(text: str) -> str | None:
    """Why one line is not a HiTab sample (``None`` when it is)."""
    try:
        sample = parse_json(text, line=True)
    except ValueError as exc:
        return one_line(exc)
    if not isinstance(sample, dict):
        return f"expected an object, found {found(sample)}"
    if not set(SAMPLE_KEYS) <= set(sample):
        return f"an object without {', '.join(SAMPLE_KEYS)}"
    return None


def _sniff(path: Path) -> str | None:
    """``None`` when one of the first non-blank lines of ``path`` is a HiTab sample, else what
    the first of them is."""
    try:
        problems = sniff_lines(path, _sample_problem)
    except (OSError, ValueError) as exc:
        return one_line(exc)
    if problems is None:
        return None
    if not problems:
        return "no sample (the file is empty)"
    return f"no HiTab sample in the first {len(problems)} non-blank line(s) ({problems[0]})"


def diagnose(path: Path) -> Mismatch | None:
    """Why ``path`` is not a HiTab release (root or ``data/``) or samples file with its
    ``tables/raw/`` beside it."""
    root, files = _layout(path)
    if not files:
        return Mismatch("no train_samples.jsonl, dev_samples.jsonl or test_samples.jsonl in "
                        "the folder or in its data/" if path.is_dir()
                        else "expected a *_samples.jsonl file", shaped=False)
    if not is_regular(files[0]):
        return Mismatch(f"{relative(files[0], path)}: not a regular file")
    problem = _sniff(files[0])
    if problem is not None:
        return Mismatch(f"{relative(files[0], path)}: {problem}",
                        shaped=files[0].name in SPLITS)
    if not (root / TABLES).is_dir():
        return Mismatch(f"no {relative(root / TABLES, path)}/ folder beside {files[0].name} "
                        "(the release ships the tables zipped: unzip -d data/ data/tables.zip)")
    return None


def detect(path: Path) -> bool:
    """A HiTab release (root or ``data/``) or samples file, its tables beside it."""
    return diagnose(path) is None


# -- tables ----------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """A matrix value as the table shows it: a whole float as the whole number."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


def _whole(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RecordError(f"{what} is not a whole number ≥ 0, found {excerpt(value)}")
    return value


def _regions(table: dict[str, Any], height: int, width: int) -> list[MergedCell]:
    """The merged regions larger than one cell, checked to lie in the grid and not overlap."""
    regions = table.get("merged_regions", [])
    if not isinstance(regions, list):
        raise RecordError("merged_regions is not a list")
    merged: list[MergedCell] = []
    taken: set[tuple[int, int]] = set()
    for n, region in enumerate(regions):
        if not isinstance(region, dict):
            raise RecordError(f"merged_regions[{n}] is not an object")
        top, bottom, left, right = (
            _whole(region.get(key), f"merged_regions[{n}].{key}")
            for key in ("first_row", "last_row", "first_column", "last_column"))
        if bottom < top or right < left or bottom >= height or right >= width:
            raise RecordError(f"merged_regions[{n}] (rows {top}-{bottom}, columns "
                              f"{left}-{right}) lies outside the {height} x {width} table")
        cells = {(r, c) for r in range(top, bottom + 1) for c in range(left, right + 1)}
        if cells & taken:
            raise RecordError(f"merged_regions[{n}] overlaps another merged region")
        taken |= cells
        if len(cells) > 1:
            merged.append(MergedCell(row=top, col=left, rows=bottom - top + 1,
                                     cols=right - left + 1))
    return sorted(merged, key=lambda m: (m.row, m.col))


def _depths(node: Any, depth: int, found_rows: dict[int, int]) -> None:
    """Record in ``found_rows`` the deepest level of each row index under ``node`` (its
    nesting is bounded: :func:`check_values`)."""
    if not isinstance(node, dict):
        raise RecordError("left_root holds a node that is not an object")
    children = node.get("children", [])
    if not isinstance(children, list):
        raise RecordError("left_root holds children that are not a list")
    for child in children:
        if not isinstance(child, dict):
            raise RecordError("left_root holds a node that is not an object")
        row = child.get("row_index")
        if isinstance(row, int) and not isinstance(row, bool) and row >= 0:
            found_rows[row] = max(found_rows.get(row, 0), depth)
        _depths(child, depth + 1, found_rows)


def _levels(table: dict[str, Any], header_rows: int, height: int) -> tuple[int, ...]:
    """Each body row's depth in ``left_root`` (0 the top level; a row the tree does not name
    is at the top level); empty when the tree is flat."""
    root = table.get("left_root")
    if root is None:
        return ()
    depth_of: dict[int, int] = {}
    _depths(root, 0, depth_of)
    levels = tuple(depth_of.get(r, 0) for r in range(header_rows, height))
    return levels if any(levels) else ()


def table_of(table: Any) -> GridTable:
    """A HiTab table file's content as a structured grid (see the module's docstring)."""
    if not isinstance(table, dict):
        raise RecordError(f"expected a table object, found {found(table)}")
    check_values(table)
    texts = table.get("texts")
    if not isinstance(texts, list) or not texts or \
            not all(isinstance(row, list) for row in texts):
        raise RecordError("texts is not a list of rows")
    title = table.get("title")
    if title is not None and not isinstance(title, str):
        raise RecordError("title is not a text")
    shown = grid([[_cell(v) for v in row] for row in texts], caption=title)
    height, width = len(shown.rows) + 1, len(shown.header)
    header_rows = max(1, _whole(table.get("top_header_rows_num", 1), "top_header_rows_num"))
    label_cols = _whole(table.get("left_header_columns_num", 1), "left_header_columns_num")
    if not 1 <= header_rows < height:
        raise RecordError(f"top_header_rows_num {header_rows} does not leave a body row in the "
                          f"table's {height} rows")
    if label_cols > width:
        raise RecordError(f"left_header_columns_num {label_cols} exceeds the table's {width} "
                          "columns")
    merged = _regions(table, height, width)
    cells = _spread([list(shown.header), *(list(row) for row in shown.rows)], merged)
    return GridTable(caption=shown.caption, header=cells[0], rows=cells[1:],
                     header_rows=header_rows,
                     label_cols=label_cols, merged=tuple(merged),
                     row_levels=_levels(table, header_rows, height))


def _spread(cells: list[list[str]], merged: list[MergedCell]) -> tuple[tuple[str, ...], ...]:
    """The grid's rows with each merged cell's text in every cell it covers."""
    for m in merged:
        text = cells[m.row][m.col]
        for r in range(m.row, m.row + m.rows):
            for c in range(m.col, m.col + m.cols):
                cells[r][c] = text
    return tuple(tuple(row) for row in cells)


class _Tables(TableCache):
    """The release's tables, by ``table_id``."""

    def load(self, table_id: str) -> GridTable | str:
        if not table_id or Path(table_id).name != table_id:
            return f"table_id {excerpt(table_id)} is not a plain file name"
        name = f"{TABLES}/{table_id}.json"
        try:
            path = file_in(self.root, name, "table")
            return table_of(parse_json(read_lenient(path, MAX_PART_BYTES)))
        except (OSError, ValueError, TableError) as exc:
            text = one_line(exc)
            return text if text.startswith("table file") else f"table file {name}: {text}"


# -- samples ---------------------------------------------------------------------------------


def _coordinates(text: Any, table: GridTable) -> tuple[int, int] | None:
    """A HiTab cell coordinate ``"(14, 7)"`` as a grid cell, or ``None`` (not one, or outside
    the table)."""
    match = _COORDS.fullmatch(str(text).strip())
    if match is None:
        return None
    row, col = int(match.group(1)), int(match.group(2))
    return (row, col) if row <= len(table.rows) and col < len(table.header) else None


def _coordinate_keys(value: Any) -> Iterator[str]:
    """Every key of ``value``'s objects, at any depth (``linked_cells`` nests its
    coordinates under phrases, and entity links under top, left and corner)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from _coordinate_keys(inner)


def linked(table: GridTable, sample: dict[str, Any]) -> list[Protected]:
    """The cells HiTab ties to the sample: ``linked_cells`` (headers the question names and
    the quantities the answer is computed from) and the cells ``reference_cells_map`` names."""
    cells: list[Protected] = []
    links = sample.get("linked_cells")
    if isinstance(links, dict):
        for kind, groups in sorted(links.items()):
            for key in _coordinate_keys(groups):
                at = _coordinates(key, table)
                if at is not None:
                    cells.append(Protected(*at, f"linked to the question by HiTab ({kind})"))
    references = sample.get("reference_cells_map")
    if isinstance(references, dict):
        for name, coords in sorted(references.items()):
            at = _coordinates(coords, table)
            if at is not None:
                cells.append(Protected(*at, f"referenced by the answer's formula ({name})"))
    return cells


def answer_of(sample: dict[str, Any]) -> tuple[Any, str]:
    """The sample's answer, typed: one number a ``number``, one text typed as a text answer,
    several values a ``list`` of their texts."""
    answer = sample.get("answer")
    values = answer if isinstance(answer, list) else [answer]
    if not values or any(v is None or isinstance(v, (bool, list, dict)) for v in values):
        raise RecordError("answer is not a list of numbers and texts")
    if len(values) == 1 and isinstance(values[0], (int, float)):
        return _cell(values[0]), "number"
    return typed_answer([str(_cell(v)) for v in values])


def _sample(text: str, number: int, where: str, ids: Ids, tables: _Tables) -> Imported:
    return json_line_record(text, number, lambda sample, sample_id: _checked(
        sample, sample_id, where, ids, tables))


def _checked(sample: dict[str, Any], sample_id: str | int, where: str, ids: Ids,
             tables: _Tables) -> Imported:
    question = sample.get("question")
    if not isinstance(question, str) or not question.strip():
        raise RecordError("question is missing or empty")
    answer, answer_type = answer_of(sample)
    table_id = sample.get("table_id")
    if not isinstance(table_id, (str, int)) or isinstance(table_id, bool):
        raise RecordError("table_id is not a text")
    table = tables.get(str(table_id))
    item = make_item(fmt=NAME, base_id=ids.new(sample_id), kind="table_qa", question=question,
                     answer=answer, answer_type=answer_type, table=table, source=where,
                     fields={key: sample[key] for key in KEPT if key in sample})
    protected = merge(table, [answer_cells(table, answer), linked(table, sample),
                              named_rows(table, question), named_columns(table, question)])
    return Imported(item, protected)


def _records(path: Path, root: Path, files: list[Path]) -> Iterator[Imported | Skipped]:
    ids, tables = Ids(NAME), _Tables(root)
    for file in files:
        name = relative(file, path)
        try:
            for line in lines(file):
                where = f"{name}:{line.number}"
                if line.text is None:
                    yield Skipped(where, line.problem or "unreadable")
                elif line.text.strip():
                    try:
                        yield _sample(line.text, line.number, where, ids, tables)
                    except (RecordError, TableError, ValueError) as exc:
                        yield Skipped(where, one_line(exc))
        except (OSError, ValueError) as exc:
            yield Skipped(name, f"unreadable: {one_line(exc)}")


def read(path: Path) -> Iterator[Imported | Skipped]:
    """The samples of a HiTab release or samples file, in file and line order."""
    root, files = _layout(path)
    if not files:
        raise UserError(f"{path}: no HiTab samples file (train_samples.jsonl, "
                        "dev_samples.jsonl, test_samples.jsonl) found")
    return _records(path, root, files)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="HiTab release (data/*_samples.jsonl + data/tables/raw/*.json: "
                           "hierarchical headers, merged cells)",
    detect=detect, read=read, diagnose=diagnose, title="HiTab"))
