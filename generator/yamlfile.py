"""Reading a user's YAML file so that every later error can name the line of a field.

:func:`read_yaml` returns the data and a :class:`Lines` map from a field's path (keys and list
indices, as pydantic reports ``loc``) to the line where it is written. Errors while reading are
:class:`~hopvista.errors.UserError` naming the file (and the line, for a syntax error).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from hopvista.errors import UserError

Loc = tuple[int | str, ...]


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


def _positions(node: yaml.Node, loc: Loc, out: dict[Loc, int]) -> None:
    out.setdefault(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                out[(*loc, key.value)] = key.start_mark.line + 1
                _positions(value, (*loc, key.value), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, value in enumerate(node.value):
            out[(*loc, i)] = value.start_mark.line + 1
            _positions(value, (*loc, i), out)


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
        _positions(node, (), lines)
    return data, Lines(path, lines)
