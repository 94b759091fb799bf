"""What every reader shares: record ids, answer typing, item assembly, locations, and reading
files an input names without trusting them.

A release is data a user downloaded: nothing in it may crash a reader, hang it, make it read
outside the release folder, or lose more than the one record that is wrong. So:

* files are read only when they are regular files (never a FIFO or a device), within a size
  bound; a file a record names must lie inside the release folder and not be a symbolic link;
* text is decoded per line (or, for JSON and CSV, per record): an invalid UTF-8 byte skips the
  record holding it, named by its line or id;
* lines are split at ``\\n`` only (``\\r\\n`` too), never at Unicode line separators
  (U+2028, U+0085, ...), which stay inside their field;
* numbers must be finite and of at most :data:`MAX_NUMBER_DIGITS` digits, wherever they are
  read (JSON values, answers written as text);
* every message quoting the input quotes a short excerpt (:func:`excerpt`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from hopvista.errors import EXCERPT_CHARS, excerpt
from hopvista.model import Item, TextChunk
from hopvista.model.inputs import GridTable
from hopvista.model.item import variant_id

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_PLAIN_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_SURROGATE = re.compile("[\ud800-\udfff]")

MAX_ID_CHARS = 80
"""Longest base id: a longer one is cut and ends with a hash of the whole record id (image
file names are made from ids)."""
MAX_NUMBER_DIGITS = 30
"""Most digits a number may have (``1e30`` and beyond are refused too)."""
MAX_DEPTH = 64
"""Deepest nesting of lists and objects a record may have."""
MAX_LINE_BYTES = 8 << 20
"""Longest line of a line-based file (a longer one is skipped without being held)."""
MAX_FILE_BYTES = 1 << 30
"""Largest release file read whole (a JSON file of records, a data CSV)."""
MAX_PART_BYTES = 8 << 20
"""Largest file a record names (a table, a text)."""
MAX_QUESTION_CHARS = 5_000
"""Longest question (or statement) a record may have."""
MAX_TEXT_CHARS = 200_000
"""Most characters of text (paragraphs) a record may have."""
MAX_PARAGRAPHS = 1_000
"""Most paragraphs (text chunks) a record may have."""
MAX_ANSWER_VALUES = 100
"""Most values a list answer may have."""


class RecordError(ValueError):
    """A record that cannot be imported; the reader reports it as skipped with this text."""


class TableCache:
    """A release's tables, each read once by :meth:`load` (a table, or why it cannot be read,
    which :meth:`get` raises as a :class:`RecordError` for every record that names it)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._read: dict[str, GridTable | str] = {}

    def get(self, name: str) -> GridTable:
        """The table ``name`` names (read on first use)."""
        if name not in self._read:
            self._read[name] = self.load(name)
        table = self._read[name]
        if isinstance(table, str):
            raise RecordError(table)
        return table

    def load(self, name: str) -> GridTable | str:
        """Read the table ``name`` names: the table, or why it cannot be read."""
        raise NotImplementedError


class Ids:
    """Base ids of one import: ``{format}-{record id}``, every character outside
    ``[A-Za-z0-9_-]`` replaced by ``-``, at most :data:`MAX_ID_CHARS` long (a longer one is cut
    and ends with 12 hex digits of the record id's SHA-256), made unique with ``-2``, ``-3``,
    ... on collision, in reading order. Ids that differ only in case collide too: image file
    names are made from ids, and some file systems do not tell ``A`` from ``a``."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self._taken: set[str] = set()
        self._suffix: dict[str, int] = {}  # the last suffix tried per base: every lower is taken

    def new(self, record_id: object) -> str:
        """A fresh base id for ``record_id``."""
        base = _UNSAFE.sub("-", f"{self.fmt}-{record_id}")
        if len(base) > MAX_ID_CHARS:
            digest = hashlib.sha256(str(record_id).encode("utf-8", "surrogatepass"))
            base = f"{base[:MAX_ID_CHARS - 13]}-{digest.hexdigest()[:12]}"
        found, n = base, self._suffix.get(base, 1)
        if n > 1:
            found = f"{base}-{n}"
        while found.lower() in self._taken:
            n += 1
            found = f"{base}-{n}"
        self._suffix[base] = n
        self._taken.add(found.lower())
        return found


# -- numbers -------------------------------------------------------------------------------------


def number_problem(text: str) -> str | None:
    """Why the number written ``text`` (JSON or plain notation, thousands commas allowed) is
    refused, or ``None``: it must be finite, below ``1e30`` and of at most
    :data:`MAX_NUMBER_DIGITS` digits."""
    digits = sum(ch.isdigit() for ch in text.split("e")[0].split("E")[0])
    if digits > MAX_NUMBER_DIGITS:
        return f"a number of {digits:,} digits (at most {MAX_NUMBER_DIGITS})"
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return f"{excerpt(text, 20)} is not a number"
    if not math.isfinite(value):
        return f"{excerpt(text, 20)} is not a finite number"
    if abs(value) >= 10.0 ** MAX_NUMBER_DIGITS:
        return f"{excerpt(text, 20)} is too large a number (1e{MAX_NUMBER_DIGITS} or more)"
    return None


def plain_number(value: str) -> int | float | None:
    """``value`` as a JSON number when it is written as a plain number (digits, optional
    minus, thousands commas, decimals: ``"1,234"``, ``"-0.5"``); ``None`` otherwise (``"3%"``,
    ``"$5"`` and ``"1e3"`` stay texts). A :class:`RecordError` for a number of more than
    :data:`MAX_NUMBER_DIGITS` digits."""
    text = value.strip()
    if not _PLAIN_NUMBER.fullmatch(text):
        return None
    problem = number_problem(text)
    if problem:
        raise RecordError(problem)
    text = text.replace(",", "")
    return float(text) if "." in text else int(text)


def typed_answer(values: Sequence[str]) -> tuple[Any, str]:
    """Answer values read as texts, as ``(answer, answer_type)``: several values are a
    ``list`` (of the texts), one plain number a ``number``, anything else a ``text``."""
    if len(values) > 1:
        return list(values), "list"
    if not values or not values[0].strip():
        raise RecordError("the answer is empty")
    try:
        number = plain_number(values[0])
    except RecordError as exc:
        raise RecordError(f"answer: {exc}") from None
    return (values[0], "text") if number is None else (number, "number")


# -- JSON ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BadNumber:
    """A number of a JSON text that is refused (``NaN``, ``Infinity``, ``1e999``, 400 digits),
    kept in place so that only the record holding it is skipped (:func:`check_values`)."""

    why: str


def _json_number(text: str) -> int | float | BadNumber:
    problem = number_problem(text)
    if problem:
        return BadNumber(problem)
    return float(text) if any(ch in text for ch in ".eE") else int(text)


def _json_constant(name: str) -> BadNumber:
    return BadNumber(f"{name} is not a finite number")


def parse_json(text: str, *, line: bool = False) -> Any:
    """JSON text parsed; refused numbers become :class:`BadNumber`. ``ValueError`` (one
    line, with the line and column, or only the column when ``text`` is one ``line``) when it
    is not JSON."""
    try:
        return json.loads(text, parse_int=_json_number, parse_float=_json_number,
                          parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(json_problem(exc, line=line)) from None
    except RecursionError:
        raise ValueError("not JSON: nested too deeply to read") from None


def json_problem(exc: json.JSONDecodeError, *, line: bool = False) -> str:
    """A JSON parse error as ``truncated JSON at line L, column C`` (the text ends inside a
    value; L and C just after its last character) or ``not JSON: <what> at line L, column C``
    (``at column C`` for one ``line``)."""
    doc, pos = exc.doc, exc.pos
    if not doc.strip():
        return "empty: no JSON value"
    truncated = pos >= len(doc.rstrip()) or exc.msg.startswith("Unterminated string")
    if truncated:
        pos = len(doc.rstrip())
    number = doc.count("\n", 0, pos) + 1
    column = pos - doc.rfind("\n", 0, pos)
    at = f"column {column}" if line else f"line {number}, column {column}"
    return f"truncated JSON at {at}" if truncated else f"not JSON: {exc.msg} at {at}"


def _undecodable(text: str, match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"not UTF-8: byte 0x{code - 0xDC00:02x} at character {match.start() + 1}"
    return f"a lone surrogate U+{code:04X} at character {match.start() + 1} is not text"


def check_values(value: Any) -> None:
    """A :class:`RecordError` naming the field (``table.rows[2][1]``) of ``value`` that holds a
    refused number (:class:`BadNumber`, a non-finite or huge float), text that is not valid
    Unicode (an invalid UTF-8 byte read with ``surrogateescape``, a lone surrogate), or
    nesting deeper than :data:`MAX_DEPTH`."""
    todo: list[tuple[Any, str, int]] = [(value, "", 0)]
    while todo:
        node, at, depth = todo.pop()
        where = f"{at}: " if at else ""
        if depth > MAX_DEPTH:
            raise RecordError(f"{where}nested more than {MAX_DEPTH} deep")
        if isinstance(node, BadNumber):
            raise RecordError(f"{where}{node.why}")
        if isinstance(node, float) and (not math.isfinite(node)
                                        or abs(node) >= 10.0 ** MAX_NUMBER_DIGITS):
            raise RecordError(f"{where}{node!r} is not a finite number below 1e30")
        if isinstance(node, str):
            bad = _SURROGATE.search(node)
            if bad:
                raise RecordError(f"{where}{_undecodable(node, bad)}")
        elif isinstance(node, dict):
            for key, item in reversed(list(node.items())):
                key = str(key)
                bad = _SURROGATE.search(key)
                if bad:
                    raise RecordError(f"key {excerpt(key)}: {_undecodable(key, bad)}")
                shown = key if len(key) <= EXCERPT_CHARS else f"{key[:EXCERPT_CHARS]}…"
                todo.append((item, f"{at}.{shown}" if at else shown, depth + 1))
        elif isinstance(node, (list, tuple)):
            todo.extend((item, f"{at}[{i}]", depth + 1)
                        for i, item in reversed(list(enumerate(node))))


# -- files ---------------------------------------------------------------------------------------


def is_regular(path: Path) -> bool:
    """Whether ``path`` is a regular file (symbolic links followed; never a FIFO, a device or
    a socket, which could block or never end)."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def file_in(root: Path, name: str, what: str) -> Path:
    """The file ``name`` (relative, ``/``-separated) of the release folder ``root`` that a
    record names; a :class:`RecordError` unless it is a regular file inside ``root`` and not a
    symbolic link."""
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts or "\0" in name:
        raise RecordError(f"{what} file {excerpt(name)} is not a file name inside the dataset")
    path = root / name
    shown = excerpt(name) if len(name) > 2 * EXCERPT_CHARS else name
    try:
        link = path.is_symlink()
        inside = path.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError, RuntimeError):
        raise RecordError(f"{what} file {shown} not found") from None
    if link:
        raise RecordError(f"{what} file {shown} is a symbolic link")
    if not inside:
        raise RecordError(f"{what} file {shown} lies outside the dataset folder")
    if not path.exists():
        raise RecordError(f"{what} file {shown} not found")
    if not is_regular(path):
        raise RecordError(f"{what} file {shown} is not a regular file")
    return path


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes; ``ValueError`` (one line) when it is not a regular file or is
    larger than ``limit``, ``OSError`` when it cannot be read."""
    if not is_regular(path):
        raise ValueError("not a regular file")
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit:,} bytes")
    return data


def decode(data: bytes) -> str:
    """UTF-8 bytes as text (a leading BOM dropped); a :class:`RecordError` naming the line and
    column of the first invalid byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RecordError(f"not UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
                          f"column {column}") from None


def read_text(path: Path, limit: int = MAX_PART_BYTES) -> str:
    """A regular UTF-8 file's text (a BOM dropped); ``ValueError`` (a :class:`RecordError`
    for an invalid byte) or ``OSError``."""
    return decode(read_bytes(path, limit))


def read_lenient(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """A regular file's text with every invalid UTF-8 byte kept as a lone surrogate
    (``surrogateescape``), so that the record holding it, and only that record, is refused by
    :func:`check_values`."""
    data = read_bytes(path, limit)
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class Line:
    """One line of a line-based file: its 1-based number, and its text or why it has none."""

    number: int
    text: str | None
    problem: str | None = None


def lines(path: Path, limit: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """The lines of a regular file, split at ``\\n`` only (a ``\\r`` before it dropped; a
    Unicode line separator stays in its line), each decoded on its own: a line that is not
    UTF-8 or is longer than ``limit`` bytes comes with a ``problem`` and costs only itself.
    ``ValueError`` when ``path`` is not a regular file, ``OSError`` when it cannot be read."""
    if not is_regular(path):
        raise ValueError("not a regular file")
    with path.open("rb") as handle:
        number = 0
        while True:
            raw = handle.readline(limit + 1)
            if not raw:
                return
            number += 1
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if len(raw) > limit and not raw.endswith(b"\n"):
                while (rest := handle.readline(1 << 20)) and not rest.endswith(b"\n"):
                    pass
                yield Line(number, None, f"longer than {limit:,} bytes")
                continue
            raw = raw.removesuffix(b"\n").removesuffix(b"\r")
            try:
                yield Line(number, raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                yield Line(number, None, f"not UTF-8: byte 0x{raw[exc.start]:02x} at column "
                                         f"{exc.start + 1}")


def first_line(path: Path) -> str:
    """The first line of a regular file (``ValueError`` naming what is wrong with it)."""
    for line in lines(path, 1 << 16):
        if line.problem:
            raise ValueError(f"line 1: {line.problem}")
        return line.text or ""
    return ""


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_IMAGE_BYTES = 16 << 20
"""Largest image file a record may name."""
MAX_IMAGE_PIXELS = 40_000_000
"""Most pixels an image a record names may declare (Pillow refuses more than 179 million
outright; fewer keeps the variants' work bounded)."""
MAX_IMAGE_SIDE = 16_384
"""Widest or tallest image a record may name, in pixels."""


def check_png(path: Path, what: str) -> None:
    """A :class:`RecordError` unless ``path`` is a PNG image that reads whole: not another
    kind of file, not truncated, of at most :data:`MAX_IMAGE_PIXELS` pixels (a decompression
    bomb declares far more) and :data:`MAX_IMAGE_SIDE` on a side. A file is checked once per
    version (an input is read twice)."""
    try:
        status = path.stat()
        key = str(path.resolve())
    except (OSError, ValueError, RuntimeError) as exc:
        raise RecordError(f"{what} is not readable ({one_line(exc)})") from None
    problem = _png_problem(key, status.st_mtime_ns, status.st_size)
    if problem is not None:
        raise RecordError(f"{what} {problem}")


@lru_cache(maxsize=4096)
def _png_problem(path: str, mtime_ns: int, size: int) -> str | None:
    """What is wrong with the PNG file ``path`` (of that version), or ``None``."""
    import io
    import struct
    import warnings

    from PIL import Image

    try:
        data = read_bytes(Path(path), MAX_IMAGE_BYTES)
    except (OSError, ValueError) as exc:
        return f"is not readable ({one_line(exc)})"
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR" or len(data) < 24:
        return "is not a PNG image"
    width, height = struct.unpack(">II", data[16:24])
    if width * height > MAX_IMAGE_PIXELS or max(width, height) > MAX_IMAGE_SIDE:
        return (f"declares {width:,} x {height:,} pixels (at most {MAX_IMAGE_PIXELS:,} "
                f"pixels, {MAX_IMAGE_SIDE:,} on a side)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
                image.load()
                image.convert("RGB")
    except (Exception, Image.DecompressionBombWarning) as exc:
        return f"cannot be read as a PNG image ({one_line(exc)})"
    return None


_JSON_CACHE: dict[tuple[str, int, int], Any] = {}


def load_json(path: Path) -> Any:
    """A JSON file's content (:func:`read_lenient`, :func:`parse_json`), parsed once per file
    version (detection and reading share it; only the last file is kept). Raises ``OSError``
    or ``ValueError`` (one line: ``truncated JSON at line 3, column 5``)."""
    status = path.stat()
    key = (str(path.resolve()), status.st_mtime_ns, status.st_size)
    if key not in _JSON_CACHE:
        _JSON_CACHE.clear()
        _JSON_CACHE[key] = parse_json(read_lenient(path))
    return _JSON_CACHE[key]


def json_file_problem(path: Path, shape: type, expected: str) -> str | None:
    """Why the file ``path`` is not a JSON file whose content is a ``shape`` (``list`` or
    ``dict``), ``expected`` naming it in the message (``None`` when it is)."""
    if not is_regular(path):
        return "not a regular file"
    try:
        content = load_json(path)
    except (OSError, ValueError) as exc:
        return one_line(exc)
    if not isinstance(content, shape):
        return f"expected {expected}, found {found(content)}"
    return None


SNIFF_LINES = 5
"""How many non-blank lines of a JSON Lines file detection reads before it gives up."""


def sniff_lines(path: Path, line_problem: Callable[[str], str | None]) -> list[str] | None:
    """``None`` when one of the first :data:`SNIFF_LINES` non-blank lines of ``path`` has no
    ``line_problem`` (a broken first line does not hide the format), else the problems of
    those lines (``line N: …``; empty for an empty file). ``OSError`` / ``ValueError`` when
    the file cannot be read."""
    problems: list[str] = []
    for line in lines(path):
        if line.text is not None and not line.text.strip():
            continue
        problem = line.problem or line_problem(line.text or "")
        if problem is None:
            return None
        problems.append(f"line {line.number}: {problem}")
        if len(problems) >= SNIFF_LINES:
            break
    return problems


_Record = TypeVar("_Record")


def json_line_record(text: str, number: int,
                     check: Callable[[dict[str, Any], str | int], _Record]) -> _Record:
    """The record on one line of a JSON Lines file (line ``number``): a JSON object whose
    ``id`` (the line number when it has none) is a text or an integer, its values checked
    (:func:`check_values`), then ``check(record, id)``. A :class:`RecordError` names the
    record's own ``id`` when it gives one."""
    record = parse_json(text, line=True)
    if not isinstance(record, dict):
        raise RecordError(f"expected a JSON object, found {found(record)}")
    record_id = record.get("id", number)
    if not isinstance(record_id, (str, int)) or isinstance(record_id, bool) \
            or not str(record_id).strip():
        raise RecordError("id is not a text or an integer")
    try:
        check_values(record)
        return check(record, record_id)
    except ValueError as exc:  # a RecordError, a table's TableError, a field's value
        if "id" in record:
            raise RecordError(f"id {excerpt(record_id)}: {one_line(exc)}") from None
        raise


def found(value: Any) -> str:
    """What a JSON value is, for messages (``an object``, ``a list``, ``a text``, ...)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, BadNumber)):
        return "a number"
    return "null" if value is None else type(value).__name__
# -- places and messages -------------------------------------------------------------------------


def relative(path: Path, root: Path) -> str:
    """``path`` relative to the input ``root`` (a folder, or a file's folder), with ``/``."""
    base = root if root.is_dir() else root.parent
    try:
        name = path.resolve().relative_to(base.resolve()).as_posix()
    except (OSError, RuntimeError, ValueError):
        name = path.as_posix()
    return os.fsencode(name).decode("utf-8", "replace")


def one_line(error: Exception) -> str:
    """An error's message on one line (pydantic's first problem, with its field)."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        return f"{field}: {first['msg']}" if field else str(first["msg"])
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return " ".join(str(error).split()) or type(error).__name__


def _check_sizes(question: str, text: Sequence[TextChunk],
                 statements: Sequence[dict[str, Any]]) -> None:
    if len(question) > MAX_QUESTION_CHARS:
        raise RecordError(f"the question has {len(question):,} characters "
                          f"(at most {MAX_QUESTION_CHARS:,}): {excerpt(question, length=False)}")
    for n, statement in enumerate(statements, start=1):
        said = str(statement.get("text", ""))
        if len(said) > MAX_QUESTION_CHARS:
            raise RecordError(f"statement {n} has {len(said):,} characters "
                              f"(at most {MAX_QUESTION_CHARS:,}): {excerpt(said, length=False)}")
    if len(text) > MAX_PARAGRAPHS:
        raise RecordError(f"the text has {len(text):,} paragraphs (at most {MAX_PARAGRAPHS:,})")
    total = sum(len(chunk.text) for chunk in text)
    if total > MAX_TEXT_CHARS:
        raise RecordError(f"the text has {total:,} characters (at most {MAX_TEXT_CHARS:,})")


def make_item(*, fmt: str, base_id: str, kind: str, question: str, answer: Any,
              answer_type: str, table: GridTable, source: str,
              text: Sequence[TextChunk] = (), statements: Sequence[dict[str, Any]] = (),
              difficulty: str | None = None, hops: int | None = None,
              fields: dict[str, Any] | None = None) -> Item:
    """A validated base item of an imported record (raises ``ValidationError``, or
    :class:`RecordError` for a value no dataset can hold: a refused number, text that is not
    valid Unicode, a question or text beyond the size bounds).

    ``fields`` are the record's own fields kept for reference (``provenance.fields``).
    """
    provenance: dict[str, Any] = {"generator": f"import:{fmt}", "source": source}
    if fields:
        provenance["fields"] = fields
    _check_sizes(question, text, statements)
    if isinstance(answer, list) and len(answer) > MAX_ANSWER_VALUES:
        raise RecordError(f"the answer lists {len(answer):,} values (at most "
                          f"{MAX_ANSWER_VALUES})")
    check_values({"question": question, "answer": answer, "statements": list(statements),
                  "text": [chunk.text for chunk in text],
                  "table": [table.caption or "", table.header, *table.rows],
                  "provenance": provenance})
    return Item.model_validate({
        "id": variant_id(base_id), "base_id": base_id, "domain": fmt, "kind": kind,
        "difficulty": difficulty, "hops": hops,
        "inputs": {"text": list(text), "table": table},
        "question": question, "statements": list(statements), "answer": answer,
        "answer_type": answer_type, "provenance": provenance})

