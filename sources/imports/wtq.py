"""WikiTableQuestions (ppasupat/WikiTableQuestions) in its release layout.

The input is the release folder (``data/*.tsv`` and ``csv/*-csv/*.csv``) or one of its
``data/*.tsv`` files. A question file has the header ``id utterance context targetValue``
(tab-separated, WTQ's TSV escapes ``\\n``, ``\\\\`` and ``\\p`` for ``|``); ``context`` names
the table (``csv/204-csv/590.csv``) relative to the release folder, and ``targetValue`` is the
answer, a ``|``-separated list when several. Given the folder, the reader reads
``training.tsv``, ``pristine-seen-tables.tsv`` and ``pristine-unseen-tables.tsv`` (the random
splits and ``training-before300`` repeat ``training``), or every ``data/*.tsv`` when none of
those is there.

Tables are read from the ``.csv`` version (every field quoted; ``\\"`` a quote, ``\\\\`` a
backslash, ``\\n`` a line break; quoted line breaks too); the first row is the header. The
answer is a ``number`` when it is one plain number, a ``list`` when several values, else
``text``.

Question files are read line by line (lines end at ``\n``; a U+2028 or another Unicode line
separator inside an utterance stays in it), each line decoded on its own: an invalid UTF-8
byte skips its line only. A table file that cannot be read (not UTF-8, not a regular file in
the release folder, a symbolic link) skips the questions that name it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from hopvista.errors import UserError, excerpt
from hopvista.model.inputs import GridTable
from hopvista.sources.imports import IMPORTERS, Imported, Importer, Mismatch, Skipped
from hopvista.sources.imports.common import (
    Ids,
    RecordError,
    TableCache,
    file_in,
    first_line,
    is_regular,
    lines,
    make_item,
    one_line,
    read_text,
    relative,
    typed_answer,
)
from hopvista.sources.imports.protect import protect_answer
from hopvista.sources.imports.tables import TableError, grid

NAME = "wtq"
HEADER = ("id", "utterance", "context", "targetValue")
MAIN_SPLITS = ("training.tsv", "pristine-seen-tables.tsv", "pristine-unseen-tables.tsv")
_TSV_ESCAPES = {"n": "\n", "\\": "\\", "p": "|"}
_CSV_ESCAPES = {"n": "\n", "\\": "\\", '"': '"'}


def unescape_tsv(text: str) -> str:
    """A WTQ TSV field without its escapes (``\\n``, ``\\\\``, ``\\p``)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in _TSV_ESCAPES:
            out.append(_TSV_ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def parse_csv(text: str) -> list[list[str]]:
    """Rows of a WTQ table CSV (``ValueError`` on an unterminated quote)."""
    rows: list[list[str]] = []
    row: list[str] = []
    field: list[str] = []
    quoted = touched = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in _CSV_ESCAPES:
            field.append(_CSV_ESCAPES[text[i + 1]])
            touched = True
            i += 2
            continue
        if quoted:
            if ch == '"' and text[i + 1:i + 2] == '"':
                field.append('"')
                i += 2
                continue
            if ch == '"':
                quoted = False
            else:
                field.append(ch)
        elif ch == '"':
            quoted = touched = True
        elif ch == ",":
            row.append("".join(field))
            field, touched = [], True
        elif ch in "\r\n":
            if touched or field or row:
                row.append("".join(field))
                rows.append(row)
            row, field, touched = [], [], False
            if ch == "\r" and text[i + 1:i + 2] == "\n":
                i += 1
        else:
            field.append(ch)
            touched = True
        i += 1
    if quoted:
        raise ValueError("a quoted field is not closed")
    if touched or field or row:
        row.append("".join(field))
        rows.append(row)
    return rows


def _layout(path: Path) -> tuple[Path, list[Path]]:
    """The release folder and the question files to read (possibly none)."""
    if path.is_dir():
        data = path / "data"
        if not (path / "csv").is_dir() or not data.is_dir():
            return path, []
        main = [data / name for name in MAIN_SPLITS if (data / name).is_file()]
        return path, main or sorted(data.glob("*.tsv"))
    root = path.parent.parent if (path.parent.parent / "csv").is_dir() else path.parent
    return root, [path] if path.suffix == ".tsv" else []


def _header_problem(path: Path) -> str | None:
    """Why the first line of ``path`` is not WTQ's header (``None`` when it is)."""
    if not is_regular(path):
        return "not a regular file"
    try:
        header = first_line(path)
    except (OSError, ValueError) as exc:
        return one_line(exc)
    if tuple(header.split("\t")) != HEADER:
        return (f"line 1 is not the header {chr(9).join(HEADER)!r} (tab-separated), "
                f"found {excerpt(header)}")
    return None


def diagnose(path: Path) -> Mismatch | None:
    """Why ``path`` is not a WTQ release folder or a question TSV with WTQ's header."""
    _, files = _layout(path)
    if not files:
        if path.is_dir() and (path / "data").is_dir() and (path / "csv").is_dir():
            return Mismatch("no question file (data/*.tsv)")
        return Mismatch("no data/ and csv/ folders in the folder" if path.is_dir()
                        else "expected a .tsv question file", shaped=False)
    problem = _header_problem(files[0])
    return None if problem is None else Mismatch(f"{relative(files[0], path)}: {problem}")


def detect(path: Path) -> bool:
    """A WTQ release folder, or a question TSV with WTQ's header."""
    return diagnose(path) is None


class _Tables(TableCache):
    """The release's tables, by a question's ``context`` (its table's path)."""

    def load(self, context: str) -> GridTable | str:
        name = context
        if Path(name).suffix in (".tsv", ".table", ".html"):
            name = str(Path(name).with_suffix(".csv"))
        try:
            path = file_in(self.root, name, "table")
        except ValueError as exc:
            return one_line(exc)
        try:
            return grid(parse_csv(read_text(path)))
        except (OSError, ValueError, TableError) as exc:
            return f"table file {excerpt(context, 80)}: {one_line(exc)}"


def _records(path: Path, root: Path, files: list[Path]) -> Iterator[Imported | Skipped]:
    ids, tables = Ids(NAME), _Tables(root)
    for file in files:
        name = relative(file, path)
        try:
            for line in lines(file):
                where = f"{name}:{line.number}"
                if line.number == 1:
                    continue
                if line.text is None:
                    yield Skipped(where, line.problem or "unreadable")
                elif line.text.strip():
                    try:
                        yield _record(line.text, where, ids, tables)
                    except (RecordError, ValueError) as exc:
                        yield Skipped(where, one_line(exc))
        except (OSError, ValueError) as exc:
            yield Skipped(name, f"unreadable: {one_line(exc)}")


def _record(line: str, where: str, ids: Ids, tables: _Tables) -> Imported:
    fields = line.split("\t")
    if len(fields) != len(HEADER):
        raise RecordError(f"{len(fields)} tab-separated fields, not {len(HEADER)}")
    record_id, utterance, context, target = fields
    if not record_id.strip() or not utterance.strip():
        raise RecordError("no id or no question")
    try:
        return _question(record_id, utterance, context, target, where, ids, tables)
    except (RecordError, ValueError) as exc:
        raise RecordError(f"id {excerpt(record_id)}: {one_line(exc)}") from None


def _question(record_id: str, utterance: str, context: str, target: str, where: str,
              ids: Ids, tables: _Tables) -> Imported:
    question = unescape_tsv(utterance)
    answer, answer_type = typed_answer([unescape_tsv(v) for v in target.split("|")])
    table = tables.get(context)
    item = make_item(fmt=NAME, base_id=ids.new(record_id), kind="table_qa", question=question,
                     answer=answer, answer_type=answer_type, table=table, source=where,
                     fields={"id": record_id, "context": context})
    return Imported(item, protect_answer(table, question, answer))


def read(path: Path) -> Iterator[Imported | Skipped]:
    """The questions of a WTQ release folder or question file, in file and line order."""
    root, files = _layout(path)
    if not files:
        raise UserError(f"{path}: no WikiTableQuestions question files (data/*.tsv) found")
    return _records(path, root, files)


IMPORTERS.register(NAME, Importer(
    name=NAME, description="WikiTableQuestions release (data/*.tsv + csv/*-csv/*.csv)",
    detect=detect, read=read, diagnose=diagnose, title="WikiTableQuestions"))
