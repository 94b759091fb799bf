"""Read a pack data file (YAML) into a pydantic model; every problem names file, line, field.

The YAML is composed into nodes first, so each field's line is known: a validation error
reads ``catalogues.yaml:42: field 'industries.3.ratios.gm': ...``. A key given twice in one
mapping is an error too (plain YAML would silently keep the last one).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from hopvista.errors import UserError

M = TypeVar("M", bound=BaseModel)
Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class DataFile:
    """A parsed YAML file and the line of each field in it."""

    path: Path
    data: Any
    lines: dict[Loc, int]

    def where(self, *loc: str | int) -> str:
        """``'<path>:<line>: field 'a.b.0''``: the nearest line known for ``loc``."""
        line = 0
        for end in range(len(loc), 0, -1):
            if loc[:end] in self.lines:
                line = self.lines[loc[:end]]
                break
        at = f"{self.path}:{line}" if line else str(self.path)
        field = ".".join(str(p) for p in loc) or "(top level)"
        return f"{at}: field '{field}'"


def read(path: Path) -> DataFile:
    """Parse the YAML file at ``path``; :class:`UserError` if it cannot be read or parsed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror}") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node)
    except RecursionError:
        raise UserError(f"{path}: invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UserError(f"{path}{where}: invalid YAML: {problem}") from None
    finally:
        loader.dispose()
    lines: dict[Loc, int] = {}
    if node is not None:
        _index(path, node, (), lines, set())
    return DataFile(path, data, lines)


def _index(path: Path, node: yaml.Node, loc: Loc, lines: dict[Loc, int],
           open_nodes: set[int]) -> None:
    """Record the line of every field under ``node``; refuse duplicate keys."""
    if id(node) in open_nodes:  # a recursive alias: its fields are indexed already
        return
    open_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            here = (*loc, key)
            if key in seen:
                field = ".".join(str(p) for p in here)
                raise UserError(f"{path}:{key_node.start_mark.line + 1}: field '{field}': "
                                "given twice")
            seen.add(key)
            lines[here] = key_node.start_mark.line + 1
            _index(path, value_node, here, lines, open_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[(*loc, i)] = item.start_mark.line + 1
            _index(path, item, (*loc, i), lines, open_nodes)
    open_nodes.discard(id(node))


def validate(model: type[M], file: DataFile) -> M:
    """``file.data`` as ``model``; the first validation error becomes a :class:`UserError`."""
    try:
        return model.model_validate(file.data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(p for p in first["loc"] if isinstance(p, int | str))
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        message = str(first["msg"]).removeprefix("Value error, ")
        raise UserError(f"{file.where(*loc)}: {message}{more}") from None


def stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of ``path``, or ``None``: a cache key that sees edits."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size
