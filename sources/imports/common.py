"""What every reader shares: record ids, answer typing, item assembly, locations."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hopvista.errors import UserError
from hopvista.model import Item, TextChunk
from hopvista.model.inputs import GridTable
from hopvista.model.item import variant_id

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_PLAIN_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


class RecordError(ValueError):
    """A record that cannot be imported; the reader reports it as skipped with this text."""


class Ids:
    """Base ids of one import: ``{format}-{record id}``, every character outside
    ``[A-Za-z0-9_-]`` replaced by ``-``, made unique with ``-2``, ``-3``, ... on collision."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self._taken: set[str] = set()

    def new(self, record_id: object) -> str:
        """A fresh base id for ``record_id``."""
        base = _UNSAFE.sub("-", f"{self.fmt}-{record_id}")
        found, n = base, 1
        while found in self._taken:
            n += 1
            found = f"{base}-{n}"
        self._taken.add(found)
        return found


def plain_number(value: str) -> int | float | None:
    """``value`` as a JSON number when it is written as a plain number (digits, optional
    minus, thousands commas, decimals: ``"1,234"``, ``"-0.5"``); ``None`` otherwise (``"3%"``,
    ``"$5"`` and ``"1e3"`` stay texts)."""
    text = value.strip()
    if not _PLAIN_NUMBER.fullmatch(text):
        return None
    text = text.replace(",", "")
    return float(text) if "." in text else int(text)


def typed_answer(values: Sequence[str]) -> tuple[Any, str]:
    """Answer values read as texts, as ``(answer, answer_type)``: several values are a
    ``list`` (of the texts), one plain number a ``number``, anything else a ``text``."""
    if len(values) > 1:
        return list(values), "list"
    if not values or not values[0].strip():
        raise RecordError("the answer is empty")
    number = plain_number(values[0])
    return (values[0], "text") if number is None else (number, "number")


def relative(path: Path, root: Path) -> str:
    """``path`` relative to the input ``root`` (a folder, or a file's folder), with ``/``."""
    base = root if root.is_dir() else root.parent
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def one_line(error: Exception) -> str:
    """An error's message on one line (pydantic's first problem, with its field)."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        return f"{field}: {first['msg']}" if field else str(first["msg"])
    return " ".join(str(error).split()) or type(error).__name__


def make_item(*, fmt: str, base_id: str, kind: str, question: str, answer: Any,
              answer_type: str, table: GridTable, source: str,
              text: Sequence[TextChunk] = (), statements: Sequence[dict[str, Any]] = (),
              difficulty: str | None = None, hops: int | None = None,
              fields: dict[str, Any] | None = None) -> Item:
    """A validated base item of an imported record (raises ``ValidationError``).

    ``fields`` are the record's own fields kept for reference (``provenance.fields``).
    """
    provenance: dict[str, Any] = {"generator": f"import:{fmt}", "source": source}
    if fields:
        provenance["fields"] = fields
    return Item.model_validate({
        "id": variant_id(base_id), "base_id": base_id, "domain": fmt, "kind": kind,
        "difficulty": difficulty, "hops": hops,
        "inputs": {"text": list(text), "table": table},
        "question": question, "statements": list(statements), "answer": answer,
        "answer_type": answer_type, "provenance": provenance})


def read_text(path: Path) -> str:
    """A UTF-8 file's text (a BOM dropped); ``OSError``/``UnicodeDecodeError`` propagate."""
    return path.read_text(encoding="utf-8-sig")


_JSON_CACHE: dict[tuple[str, int, int], Any] = {}


def require_json(path: Path) -> None:
    """A ``UserError`` naming ``path`` when it is a file that does not read as JSON (a folder
    passes: its files are checked as they are read)."""
    if path.is_file():
        try:
            load_json(path)
        except (OSError, ValueError) as exc:
            raise UserError(f"{path}: not readable as JSON ({one_line(exc)})") from None


def load_json(path: Path) -> Any:
    """A JSON file's content, parsed once per file version (detection and reading share it;
    only the last file is kept). Raises ``OSError`` or ``ValueError``."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _JSON_CACHE:
        import json

        _JSON_CACHE.clear()
        _JSON_CACHE[key] = json.loads(read_text(path))
    return _JSON_CACHE[key]
