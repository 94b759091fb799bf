"""The fields of a program node and how each is checked: what an operator declares as its schema.

An operator lists its node's fields with a check for each (``fields={"column": text, ...}``);
``gen verify`` then refuses a node with a missing, extra or mistyped field, naming it
(``field 'statements.1.program.select.threshold': expected a decimal string, got 'NaN'``).
A check is ``check(value, path, shape)``: it raises :class:`Malformed` naming ``path``;
``shape`` is the selector shape of the statement type being read (:class:`Shape`), for the
fields whose form depends on it (the terms of a ranking's condition, the arguments of ``and``).
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hopvista.program.numbers import program_number

CMPS, SIGNS, ORDERS = (">", "<"), ("+", "-"), ("max", "min")
DIRECTIONS = ("increasing", "decreasing")


class Malformed(Exception):
    """An item field is missing or has the wrong type or value."""


@dataclass(frozen=True)
class Shape:
    """The selector node of a statement type's programs: its op is one of ``ops``; an ``and``
    holds nodes of ``args``, in that order; a ranking's condition has ``terms`` terms."""

    ops: tuple[str, ...]
    args: tuple[str, ...] = ()
    terms: int = 1


FieldCheck = Callable[[Any, str, Shape], None]
"""``check(value, path, shape)``: raise :class:`Malformed` naming ``path`` if ``value`` is wrong."""

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 40


def shown(value: Any) -> str:
    """``value`` as a message quotes it (40 characters at most)."""
    return _REPR.repr(value)


def expected(path: str, what: str, value: Any) -> Malformed:
    """The error of a field ``path`` that should be ``what`` and is ``value``."""
    return Malformed(f"field '{path}': expected {what}, got {shown(value)}")


def field(obj: dict[str, Any], key: str, path: str) -> Any:
    """``obj[key]``, or :class:`Malformed` naming ``path.key``."""
    where = f"{path}.{key}" if path else key
    if key not in obj:
        raise Malformed(f"field '{where}' is missing")
    return obj[key]


def as_dict(value: Any, path: str) -> dict[str, Any]:
    """``value`` if it is a JSON object."""
    if not isinstance(value, dict):
        raise expected(path, "an object", value)
    return value


def as_list(value: Any, path: str, length: int | None = None, least: int = 0) -> list[Any]:
    """``value`` if it is a JSON array of ``length`` (or at least ``least``) elements."""
    if not isinstance(value, list):
        raise expected(path, "a list", value)
    if length is not None and len(value) != length:
        raise Malformed(f"field '{path}': expected {length} element(s), got {len(value)}")
    if len(value) < least:
        raise Malformed(f"field '{path}': expected at least {least} element(s), got {len(value)}")
    return value


def as_str(value: Any, path: str, choices: tuple[str, ...] | None = None) -> str:
    """``value`` if it is a non-empty string (one of ``choices`` when given)."""
    if not isinstance(value, str) or not value:
        raise expected(path, "a non-empty string", value)
    if choices is not None and value not in choices:
        raise expected(path, "one of " + ", ".join(repr(c) for c in choices), value)
    return value


def as_int(value: Any, path: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` if it is a JSON integer (not a boolean) within ``low..high``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise expected(path, "a whole number", value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise expected(path, f"a whole number in {low}..{high}", value)
    return value


def as_bool(value: Any, path: str) -> bool:
    """``value`` if it is ``true`` or ``false``."""
    if not isinstance(value, bool):
        raise expected(path, "true or false", value)
    return value


def as_decimal(value: Any, path: str) -> str:
    """``value`` if it is a program number: a finite decimal string without separators."""
    try:
        program_number(value)
    except ValueError:
        raise expected(path, "a decimal string such as '-12.5'", value) from None
    return str(value)


def exact_keys(node: dict[str, Any], keys: tuple[str, ...], path: str) -> None:
    """``node`` has every one of ``keys`` and no other."""
    extra = sorted(set(node) - set(keys))
    if extra:
        raise Malformed(f"field '{path}': unknown key(s) {', '.join(map(repr, extra))} "
                        "(a program may hold only the fields of its op)")
    for key in keys:
        field(node, key, path)


def text(value: Any, path: str, shape: Shape) -> None:
    """A field holding a non-empty string (a column key, a needle)."""
    as_str(value, path)


def whole(value: Any, path: str, shape: Shape) -> None:
    """A field holding a whole number (a period)."""
    as_int(value, path)


def decimal(value: Any, path: str, shape: Shape) -> None:
    """A field holding a program number (a threshold, a result)."""
    as_decimal(value, path)


def one_of(*choices: str) -> FieldCheck:
    """A field holding one of ``choices`` (a comparison, a sign, an order)."""
    def check(value: Any, path: str, shape: Shape) -> None:
        as_str(value, path, choices)
    return check


def whole_numbers(count: int) -> FieldCheck:
    """A field holding a list of ``count`` whole numbers (two periods)."""
    def check(value: Any, path: str, shape: Shape) -> None:
        for i, number in enumerate(as_list(value, path, count)):
            as_int(number, f"{path}.{i}")
    return check


def condition(*, on_entity: bool) -> FieldCheck:
    """A ranking's condition of ``shape.terms`` terms: ``when`` names the entity it reads
    (``on_entity``), ``among`` reads every one."""
    def check(value: Any, path: str, shape: Shape) -> None:
        when = as_dict(value, path)
        exact_keys(when, ("entity", "terms", "cmp", "threshold") if on_entity else
                   ("terms", "cmp", "threshold"), path)
        if on_entity:
            as_str(when["entity"], f"{path}.entity")
        as_str(when["cmp"], f"{path}.cmp", CMPS)
        as_decimal(when["threshold"], f"{path}.threshold")
        for i, term in enumerate(as_list(when["terms"], f"{path}.terms", shape.terms)):
            where = f"{path}.terms.{i}"
            exact_keys(as_dict(term, where), ("column", "sign"), where)
            as_str(term["column"], f"{where}.column")
            as_str(term["sign"], f"{where}.sign", ("+",) if i == 0 else SIGNS)
    return check
