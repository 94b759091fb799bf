"""Reading the YAML users supply: bounded, and so that every later error can name the line of a
field.

Every YAML document hopvista reads from a user (a pack's ``domain.yaml`` and data files, a
panel's header, a theme's front matter, a price table) is parsed by :func:`load_yaml` or
:func:`read_yaml`, which bound it: at most :data:`MAX_YAML_BYTES` bytes, nested at most
:data:`MAX_YAML_DEPTH` deep, and aliases that repeat at most :data:`MAX_ALIAS_VALUES` values
in all (a "billion laughs" document of a few lines would otherwise expand to gigabytes), none
inside its own anchor. A document past a bound is refused at once, naming the line.

:func:`read_yaml` returns the data and a :class:`Lines` map from a field's path (keys and list
indices, as pydantic reports ``loc``) to the line where it is written. Errors while reading are
:class:`~hopvista.errors.UserError` naming the file (and the line, for a syntax error).
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.resolver import Resolver

from hopvista.errors import UserError

Loc = tuple[int | str, ...]
M = TypeVar("M", bound=BaseModel)

MAX_YAML_BYTES = 1 << 20
"""Bytes of one YAML file (a domain pack's ``domain.yaml`` is about 10 KB)."""
MAX_YAML_DEPTH = 100
"""Collections nested in one another."""
MAX_ALIAS_VALUES = 100_000
"""Values (scalars and collections) that aliases may repeat in one document, in all."""


class _BoundedComposer(Composer):
    """PyYAML's composer, refusing a document nested too deeply, whose aliases repeat too many
    values, or with an alias inside its own anchor. Every node's weight (the values it holds
    once its aliases are expanded) is known when the node is complete, so an alias costs its
    anchor's weight without anything being expanded."""

    check_event: Callable[..., bool]
    peek_event: Callable[[], Any]

    def __init__(self) -> None:
        super().__init__()
        self._weights: dict[int, int] = {}
        self._repeated = 0
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            anchored = self.anchors.get(event.anchor)
            if anchored is not None:
                self._repeat(anchored, event.start_mark)
            return super().compose_node(parent, index)
        if self._depth >= MAX_YAML_DEPTH:
            raise ComposerError(None, None, f"nested more than {MAX_YAML_DEPTH} deep",
                                self.peek_event().start_mark)
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is not None:
            self._weights[id(node)] = 1 + sum(self._weights[id(child)]
                                              for child in _children(node))
        return node

    def _repeat(self, anchored: yaml.Node, mark: Any) -> None:
        weight = self._weights.get(id(anchored))
        if weight is None:
            raise ComposerError(None, None, "an alias inside its own anchor (a recursive "
                                "structure)", mark)
        self._repeated += weight
        if self._repeated > MAX_ALIAS_VALUES:
            raise ComposerError(None, None, f"aliases repeat more than {MAX_ALIAS_VALUES:,} "
                                "values (an alias bomb?)", mark)


class _CheckedConstructor(SafeConstructor):
    """PyYAML's safe constructor, turning a value it cannot build (a 5,000-digit integer, the
    13th month, ``!!int 'x'``) into a :class:`yaml.YAMLError` at the value's line."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            value = super().construct_object(node, deep=deep)
        except (ValueError, TypeError, AttributeError, ArithmeticError) as exc:
            raise ConstructorError(None, None, f"cannot read this {_kind(node)} ({exc})",
                                   node.start_mark) from None
        if isinstance(value, int) and value.bit_length() > _LONGEST_INT_BITS:
            raise ConstructorError(None, None, "cannot read this int (more than 4,000 digits)",
                                   node.start_mark)
        return value


_LONGEST_INT_BITS = 13_000  # about 4,000 decimal digits: Python prints no longer ints


def _kind(node: yaml.Node) -> str:
    return node.tag.rsplit(":", 1)[-1] if node.tag.startswith("tag:yaml.org,2002:") \
        else "value"


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


if getattr(yaml, "__with_libyaml__", False):
    from yaml._yaml import CParser

    class _Loader(_BoundedComposer, CParser, _CheckedConstructor, Resolver):
        """Events from libyaml's parser (fast), composed in Python (bounded)."""

        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            _BoundedComposer.__init__(self)
            _CheckedConstructor.__init__(self)
            Resolver.__init__(self)
else:  # pragma: no cover - PyYAML built without libyaml
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Loader(_BoundedComposer, Reader, Scanner, Parser,  # type: ignore[no-redef]
                  _CheckedConstructor, Resolver):
        def __init__(self, text: str) -> None:
            Reader.__init__(self, text)
            Scanner.__init__(self)
            Parser.__init__(self)
            _BoundedComposer.__init__(self)
            _CheckedConstructor.__init__(self)
            Resolver.__init__(self)


def compose_yaml(text: str) -> tuple[yaml.Node | None, Any]:
    """The node tree of the YAML document ``text`` and its data (safe types only), within the
    bounds; a :class:`yaml.YAMLError` with a ``problem`` and a ``problem_mark`` otherwise."""
    if len(text) > MAX_YAML_BYTES:
        raise yaml.YAMLError(f"longer than the {MAX_YAML_BYTES:,} characters a YAML document "
                             "may have")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except RecursionError:
        raise ComposerError(None, None, "nested too deeply") from None
    except (yaml.reader.ReaderError, yaml.scanner.ScannerError, yaml.parser.ParserError) as exc:
        raise _clearer(text, exc) from None
    finally:
        loader.dispose()
    return node, data


_CLEARER_BELOW = 64 * 1024


def _clearer(text: str, exc: yaml.YAMLError) -> yaml.YAMLError:
    """The pure-Python parser's account of a syntax error when the document is small (it
    names the character or token libyaml leaves out), else libyaml's."""
    if len(text) > _CLEARER_BELOW:
        return exc
    try:
        for _ in yaml.parse(text, Loader=yaml.SafeLoader):
            pass
    except yaml.YAMLError as clearer:
        return clearer
    return exc


def load_yaml(text: str) -> Any:
    """The data of the YAML document ``text`` (safe types only), within the bounds: what
    ``yaml.safe_load`` gives, or a :class:`yaml.YAMLError` (a key given twice in a mapping is
    one: plain YAML would silently keep the last)."""
    node, data = compose_yaml(text)
    if node is not None:
        _refuse_duplicate_keys(node)
    return data


def _refuse_duplicate_keys(root: yaml.Node) -> None:
    """Raise a :class:`yaml.YAMLError` at the second occurrence of a key in any mapping."""
    pending, seen_nodes = [root], set()
    while pending:
        node = pending.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for key, value in node.value:
                name = str(key.value)
                if name in keys:
                    raise ComposerError(None, None, f"the key {name!r} is given twice",
                                        key.start_mark)
                keys.add(name)
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)


def yaml_problem(exc: yaml.YAMLError) -> tuple[int | None, str]:
    """The 1-based line (if known) and the one-line problem of a YAML error."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["invalid"])[0]
    text = " ".join(str(problem).split())
    if len(text) > _LONGEST_PROBLEM:
        text = text[:_LONGEST_PROBLEM - 1] + "…"
    return (mark.line + 1 if mark is not None else None), text


_LONGEST_PROBLEM = 200


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


def read_text(path: Path, limit: int = MAX_YAML_BYTES, kind: str = "YAML file") -> str:
    """The UTF-8 text of the user's file ``path`` (universal newlines); a :class:`UserError`
    naming it when it is missing, not a regular file (a folder, a FIFO, a device), larger than
    ``limit`` bytes or not UTF-8. The file is opened without waiting (a FIFO never blocks) and
    checked on the open descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UserError(f"{path}: is a folder, not a {kind}")
        if not stat.S_ISREG(info.st_mode):
            raise UserError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise UserError(f"{path}: too large ({info.st_size:,} bytes; a {kind} may have "
                            f"{limit:,})")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise UserError(f"{path}: cannot read it: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UserError(f"{path}: too large (more than {limit:,} bytes; a {kind} may have "
                        f"{limit:,})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_yaml(path: Path) -> tuple[Any, Lines]:
    """The YAML document in ``path`` and the lines of its fields, within the bounds of
    :func:`load_yaml` (a :class:`UserError` naming the file, and the line, otherwise)."""
    text = read_text(path)
    try:
        node, data = compose_yaml(text)
    except yaml.YAMLError as exc:
        line, problem = yaml_problem(exc)
        raise UserError(f"{path}{f':{line}' if line else ''}: invalid YAML: {problem}") \
            from None
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
