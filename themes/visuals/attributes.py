"""Checking a cell visual's attributes: every field typed, known and in range.

A kind declares its fields as :class:`Field` objects; :func:`check_fields` holds a mapping of
attributes to them and raises a one-line :class:`~hopvista.errors.UserError` naming the kind and
the field at the first thing wrong (a missing or unknown field, a wrong type, a value out of
range, a colour name outside :data:`hopvista.themes.visuals.palette.COLORS`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from hopvista.errors import UserError, excerpt
from hopvista.themes.visuals.palette import COLORS, first_confusion

FieldType = Literal["color", "colors", "choice", "int", "bool", "text", "numbers", "points"]


@dataclass(frozen=True)
class Field:
    """One attribute of a visual kind.

    ``type`` is ``color`` (a colour name), ``colors`` (a list of them), ``choice`` (one of
    ``choices``), ``int``, ``bool``, ``text`` (letters A-Z, ``low``..``high`` of them),
    ``numbers`` (a list of finite numbers) or ``points`` (a list of ``[x, y]`` in 0..1);
    ``low`` / ``high`` bound an int's value or a list's or text's length.
    """

    name: str
    type: FieldType
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    optional: bool = False


def refuse(kind: str, field: str, problem: str) -> UserError:
    """The error for ``field`` of a ``kind`` visual: one line naming both."""
    return UserError(f"visual {kind}: attribute {field!r}: {problem}")


def check_fields(kind: str, attributes: object, fields: tuple[Field, ...]) -> dict[str, Any]:
    """``attributes`` held to ``fields``: a new plain dict, or a :class:`UserError`."""
    if not isinstance(attributes, Mapping):
        raise UserError(f"visual {kind}: attributes must be an object, "
                        f"got {type(attributes).__name__}")
    known = {f.name for f in fields}
    for name in attributes:
        if name not in known:
            raise refuse(kind, str(name), f"unknown attribute (known: {', '.join(sorted(known))})")
    checked: dict[str, Any] = {}
    for field in fields:
        if field.name not in attributes:
            if field.optional:
                continue
            raise refuse(kind, field.name, "missing")
        checked[field.name] = _check_value(kind, field, attributes[field.name])
    return checked


def _check_value(kind: str, field: Field, value: object) -> Any:
    checker = _CHECKERS[field.type]
    return checker(kind, field, value)


def _bounded(kind: str, field: Field, count: int, what: str) -> None:
    if field.low is not None and count < field.low or field.high is not None and count > field.high:
        raise refuse(kind, field.name, f"{what} {count} is outside {field.low}..{field.high}")


def _color(kind: str, field: Field, value: object) -> str:
    if not isinstance(value, str) or value not in COLORS:
        raise refuse(kind, field.name, f"unknown colour {excerpt(value)} "
                                       f"(known: {', '.join(COLORS)})")
    return value


def _colors(kind: str, field: Field, value: object) -> list[str]:
    if not isinstance(value, list):
        raise refuse(kind, field.name, f"must be a list of colour names, got {excerpt(value)}")
    _bounded(kind, field, len(value), "length")
    names = [_color(kind, field, v) for v in value]
    clash = first_confusion(names)
    if clash is not None:
        raise refuse(kind, field.name, f"colours {clash[0]} and {clash[1]} cannot be told apart")
    return names


def _choice(kind: str, field: Field, value: object) -> str:
    if not isinstance(value, str) or value not in field.choices:
        raise refuse(kind, field.name, f"{excerpt(value)} is not one of "
                                       f"{', '.join(field.choices)}")
    return value


def _int(kind: str, field: Field, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise refuse(kind, field.name, f"must be a whole number, got {excerpt(value)}")
    _bounded(kind, field, value, "value")
    return value


def _bool(kind: str, field: Field, value: object) -> bool:
    if not isinstance(value, bool):
        raise refuse(kind, field.name, f"must be true or false, got {excerpt(value)}")
    return value


def _text(kind: str, field: Field, value: object) -> str:
    if not isinstance(value, str) or not value.isascii() or not value.isalpha() \
            or not value.isupper():
        raise refuse(kind, field.name, f"must be capital letters A-Z, got {excerpt(value)}")
    _bounded(kind, field, len(value), "length")
    return value


def _number(kind: str, field: Field, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value):
        raise refuse(kind, field.name, f"must hold finite numbers, got {excerpt(value)}")
    return float(value) if isinstance(value, float) else value


def _numbers(kind: str, field: Field, value: object) -> list[float]:
    if not isinstance(value, list):
        raise refuse(kind, field.name, f"must be a list of numbers, got {excerpt(value)}")
    _bounded(kind, field, len(value), "length")
    return [_number(kind, field, v) for v in value]


def _points(kind: str, field: Field, value: object) -> list[list[float]]:
    if not isinstance(value, list):
        raise refuse(kind, field.name, f"must be a list of [x, y] points, got {excerpt(value)}")
    _bounded(kind, field, len(value), "length")
    points = []
    for point in value:
        if not isinstance(point, list) or len(point) != 2:
            raise refuse(kind, field.name, f"{excerpt(point)} is not an [x, y] point")
        xy = [_number(kind, field, v) for v in point]
        if not all(0 <= v <= 1 for v in xy):
            raise refuse(kind, field.name, f"{excerpt(point)} is outside the unit square")
        points.append(xy)
    return points


_CHECKERS = {"color": _color, "colors": _colors, "choice": _choice, "int": _int,
             "bool": _bool, "text": _text, "numbers": _numbers, "points": _points}
