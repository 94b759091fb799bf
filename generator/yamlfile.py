"""Reading a user's YAML file so that every later error can name the line of a field.

:func:`read_yaml` returns the data and a :class:`Lines` map from a field's path (keys and list
indices, as pydantic reports ``loc``) to the line where it is written. Errors while reading are
:class:`~hopvista.errors.UserError` naming the file (and the line, for a syntax error).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from hopvista.errors import UserError

Loc = tuple[int | str, ...]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Lines:
    """1-based line numbers of the fields of one YAML document."""

    path: Path
    lines: dict[Loc, int] = field(default_factory=dict)

    def line(self, loc: Sequence[int | str]) -> int | None:
        """The line of ``loc``, or of its nearest written parent (``None`` if unknown)."""
        loc = tuple(loc)
        while loc:
            if loc in self.lines:
                return self.lines[loc]
            loc = loc[:-1]
        return self.lines.get((), None)

    def where(self, loc: Sequence[int | str]) -> str:
        """``path:line: field 'a.b.0'`` for an error message."""
        line = self.line(loc)
        name = ".".join(str(p) for p in loc) or "(top level)"
        return f"{self.path}{f':{line}' if line else ''}: field '{name}'"


def _positions(path: Path, node: yaml.Node, loc: Loc, out: dict[Loc, int],
               open_nodes: set[int]) -> None:
    """Record the line of every field under ``node``; refuse a key given twice in a mapping
    (plain YAML would silently keep the last one)."""
    if id(node) in open_nodes:  # a recursive alias: its fields are recorded already
        return
    open_nodes.add(id(node))
    out.setdefault(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            here = (*loc, name)
            if name in seen:
                field = ".".join(str(p) for p in here)
                raise UserError(f"{path}:{key.start_mark.line + 1}: field '{field}': "
                                "given twice")
            seen.add(name)
            out[here] = key.start_mark.line + 1
            _positions(path, value, here, out, open_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for i, value in enumerate(node.value):
            out[(*loc, i)] = value.start_mark.line + 1
            _positions(path, value, (*loc, i), out, open_nodes)
    open_nodes.discard(id(node))


def read_yaml(path: Path) -> tuple[Any, Lines]:
    """The YAML document in ``path`` and the lines of its fields.

    The pure-Python loader is used on purpose: the C one crashes on deeply nested input.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not a YAML file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror}") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
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
        _positions(path, node, (), lines, set())
    return data, Lines(path, lines)


def validation_message(lines: Lines, exc: ValidationError) -> str:
    """One line for the most useful of pydantic's errors: an unknown field (a typo) first,
    with the field it probably meant; a missing field is located at its parent."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    first = errors[0]
    loc = tuple(p for p in first["loc"] if isinstance(p, int | str))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        missing = [str(e["loc"][-1]) for e in errors
                   if e["type"] == "missing" and tuple(e["loc"][:-1]) == loc[:-1]]
        guess = difflib.get_close_matches(str(loc[-1]), missing, n=1)
        message = "unknown field" + (f" (did you mean '{guess[0]}'?)" if guess else " (a typo?)")
        if guess:
            more = f" (and {len(errors) - 2} more)" if len(errors) > 2 else ""
    elif first["type"] == "missing" and loc:
        return f"{lines.where(loc[:-1])}: required field '{loc[-1]}' is missing{more}"
    return f"{lines.where(loc)}: {message}{more}"


def validate(model: type[M], data: Any, lines: Lines) -> M:
    """``data`` as ``model``; the most useful validation error becomes a :class:`UserError`
    naming the file, the line and the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UserError(validation_message(lines, exc)) from None


def file_stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of ``path``, or ``None``: a cache key that sees edits."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size
