"""Argument types shared by the subcommands: each turns bad input into a one-line error."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from hopvista.errors import excerpt
from hopvista.generation.plan import parse_levels
from hopvista.model.structure import STRUCTURES

MAX_COUNT = 10**12
"""Largest count a flag takes (items, workers, shards, problems shown, ...): more than any
machine holds, and small enough for every size computed from it."""


def int_at_least(minimum: int, hint: str,
                 maximum: int | None = MAX_COUNT) -> Callable[[str], int]:
    """A parser of whole numbers of at least ``minimum`` (``hint`` says so in the error)
    and at most ``maximum`` (``None``: no bound but the length Python reads)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a whole number, got {excerpt(text)}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {hint}, got {excerpt(text)}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum:,}, got "
                                             f"{excerpt(text)}")
        return value
    return parse


positive_int = int_at_least(1, "at least 1")


def positive_number(text: str) -> float:
    """A number of more than 0 (seconds, say), written in ASCII digits."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {excerpt(text)}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0, got {excerpt(text)}")
    return value
seed_int = int_at_least(0, "0 or more", maximum=None)
non_negative_int = int_at_least(0, "0 or more")


LONG_TOKEN_CHARS = 100
"""A word of a command-line error longer than this is shown as an :func:`excerpt`."""


def excerpt_long_words(message: str) -> str:
    """``message`` with every word longer than :data:`LONG_TOKEN_CHARS` cut to an
    excerpt (argparse echoes unrecognised arguments and invalid choices whole)."""
    return " ".join(excerpt(word) if len(word) > LONG_TOKEN_CHARS else word
                    for word in message.split(" "))


MAX_PERIOD = 999_999
"""Largest period value a window may name (years, temperatures in K, ...)."""


def years(text: str) -> tuple[int, int]:
    """``FIRST-LAST`` (e.g. ``2020-2024``, or ``300-500`` for temperatures) to a pair of period
    values; the source says whether its data covers them."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.strip().isdigit() and len(p.strip()) <= 6 for p in parts):
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST like 2020-2024, got {excerpt(text)}")
    first, last = int(parts[0]), int(parts[1])
    if not 0 <= first <= last <= MAX_PERIOD:
        raise argparse.ArgumentTypeError(
            f"not a window of periods (FIRST <= LAST): {excerpt(text)}")
    return first, last


def levels(text: str) -> tuple[int, ...]:
    """Hop levels: ``3``, ``1-3`` or ``1,3``."""
    try:
        return parse_levels(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def structures(text: str) -> tuple[str, ...]:
    """Structure types, comma-separated (``complex,multi-table``), each named once."""
    names = tuple(part.strip() for part in text.split(","))
    unknown = [name for name in names if name not in STRUCTURES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"no structure {excerpt(unknown[0])} (structures: {', '.join(STRUCTURES)})")
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"a structure is named twice: {excerpt(text)}")
    return names


def shard(text: str) -> tuple[int, int]:
    """``I/N``: the I-th of N slices of a build (1 ≤ I ≤ N)."""
    left, slash, right = text.partition("/")
    try:
        index, total = int(left), int(right)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I/N such as 2/4, got {excerpt(text)}") from None
    if not slash or total < 1 or not 1 <= index <= total:
        raise argparse.ArgumentTypeError(f"expected I/N with 1 <= I <= N, got {excerpt(text)}")
    return index, total
