"""A program's nodes held to the fields their operators declare (:mod:`hopvista.program.fields`)."""

from __future__ import annotations

from typing import Any

from hopvista.program.fields import Malformed, Shape, as_dict, exact_keys, expected, field
from hopvista.program.operators import OPERATORS


def check_node(node: Any, ops: tuple[str, ...], path: str, shape: Shape) -> None:
    """A node whose op is one of ``ops``, with exactly the fields its operator declares, each
    passing the operator's check (read for a statement type of selector shape ``shape``).
    Raises :class:`Malformed` naming the first wrong field."""
    node = as_dict(node, path)
    op = field(node, "op", path)
    if op not in ops:
        raise expected(f"{path}.op", " or ".join(map(repr, ops)), op)
    if not isinstance(op, str) or op not in OPERATORS:
        raise expected(f"{path}.op", "an operator the verifier knows", op)
    fields = OPERATORS.get(op).fields
    if fields is None:
        return
    exact_keys(node, ("op", *fields), path)
    for key, check in fields.items():
        check(node[key], f"{path}.{key}", shape)


def check_selector(node: Any, shape: Shape, path: str) -> None:
    """The selector node of a program of selector shape ``shape``."""
    check_node(node, shape.ops, path, shape)


__all__ = ["Malformed", "Shape", "check_node", "check_selector"]
