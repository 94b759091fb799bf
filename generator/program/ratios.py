"""Whether the chart column is a product or ratio of table columns in the data shown.

Linear relations (:mod:`hopvista.program.derivation`) miss what people's panels are full of: a
share
that is one column over another times 100 (Export Share = 100 x Exports / Output), a rate
per head, a density. A table showing two of the three determines the third. This check asks,
for the chart column ``y`` and one or two table columns ``x1``, ``x2``,

    y = k * x1^e1 [* x2^e2]      (e_i = +1 or -1, any constant k)

and accepts such a relation only when one constant ``k`` makes it consistent with every
displayed row **up to the rounding of the displayed values**, decided exactly: each displayed
value ``v`` stands for a true value in ``[v - u/2, v + u/2]`` (``u`` its display unit), so
the relation bounds ``k`` in every row to an interval of rationals; ``k`` exists when the
intervals of all rows meet. Only rows whose values all keep one sign and stay clear of zero
within their rounding count, and a relation needs at least :data:`MIN_ROWS` rows, of two
entities or more (``groups``): one constant is free, but so is the choice among some seventy
products and ratios of a table's columns, and small whole numbers (a club's 5 to 14 draws)
carry a tenth of rounding each: on three rows, products of two such columns fit a chart by
chance (a pie chart shows one period of three entities).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

__all__ = ["MIN_ROWS", "Product", "product_relation"]

#: The fewest rows a product relation is evidence on (see the module docstring).
MIN_ROWS = 6


@dataclass(frozen=True)
class Product:
    """A product relation the data shown obey: ``chart = k * prod(column ** exponent)``
    for every ``k`` in ``[low, high]``."""

    terms: tuple[tuple[str, int], ...]
    low: Fraction
    high: Fraction

    @property
    def columns(self) -> tuple[str, ...]:
        """The table columns the relation uses."""
        return tuple(name for name, _ in self.terms)

    def formula(self, target: str = "chart") -> str:
        """The relation as a formula, with a constant inside the interval."""
        middle = (self.low + self.high) / 2
        factors = " ".join(f"× {name}" if e > 0 else f"÷ {name}" for name, e in self.terms)
        return f"{target} = {float(middle):.6g} {factors}"

    def __str__(self) -> str:
        return self.formula()


def product_relation(target: Sequence[Decimal], columns: Mapping[str, Sequence[Decimal]],
                     precision: int, column_precision: Mapping[str, int] | None = None,
                     groups: Sequence[Hashable] | None = None) -> Product | None:
    """A product or ratio of one or two of ``columns`` (exponents ±1) with a constant that
    gives ``target`` in every row up to display rounding, or ``None``; smallest first, in
    name order. ``target`` and each column are aligned series of displayed values,
    ``precision`` the target's decimals and ``column_precision`` each column's (the
    target's when omitted); ``groups`` labels each row's entity (a relation must hold on
    rows of two entities or more)."""
    places = dict(column_precision or {})
    rows = len(target)
    if rows < MIN_ROWS or (groups is not None and len(set(groups)) < 2):
        return None
    goal = _float_bounds(target, precision)
    if goal is None:
        return None
    usable: dict[str, np.ndarray] = {}
    for name in sorted(columns):
        if len(columns[name]) == rows:
            bounds = _float_bounds(columns[name], places.get(name, precision))
            if bounds is not None:
                usable[name] = bounds
    names = sorted(usable)
    for picks, exponents in _screened(goal, [usable[n] for n in names]):
        found = _constant(_exact(target, precision),
                          [_exact(columns[names[k]], places.get(names[k], precision))
                           for k in picks], exponents)
        if found is not None:
            return Product(tuple((names[k], e) for k, e in zip(picks, exponents, strict=True)),
                           *found)
    return None


def _screened(goal: np.ndarray, bounds: list[np.ndarray]
              ) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The (columns, exponents) of one or two columns that may fit, in the order they are
    tried (one column before two, columns in order, ``+1`` before ``-1``), by the test of
    :func:`_constant` in logarithms and floats, widened past any float error: every relation
    the exact test accepts passes, so only those are checked exactly."""
    if not bounds:
        return []
    logs = np.log(np.stack(bounds))                      # (columns, rows, 2)
    # each column with each exponent: the log-interval of x**e per row
    low = np.concatenate([logs[:, :, 0], -logs[:, :, 1]])  # (2 * columns, rows)
    high = np.concatenate([logs[:, :, 1], -logs[:, :, 0]])
    y_low, y_high = np.log(goal[:, 0]), np.log(goal[:, 1])
    slack = 1e-9
    count = len(bounds)

    def term(k: int) -> tuple[int, int]:
        return (k % count, 1 if k < count else -1)

    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    ones = np.max(y_low - high, axis=1) <= np.min(y_high - low, axis=1) + slack
    for k in sorted(range(2 * count), key=lambda k: term(k)[0] * 2 + (k >= count)):
        if ones[k]:
            out.append(((term(k)[0],), (term(k)[1],)))
    pair_low, pair_high = low[:, None, :] + low[None, :, :], high[:, None, :] + high[None, :, :]
    twos = np.max(y_low - pair_high, axis=2) <= np.min(y_high - pair_low, axis=2) + slack
    for a, b in zip(*np.nonzero(twos), strict=True):
        (ca, ea), (cb, eb) = term(int(a)), term(int(b))
        if ca < cb:
            out.append(((ca, cb), (ea, eb)))
    singles = [x for x in out if len(x[0]) == 1]
    pairs = sorted((x for x in out if len(x[0]) == 2),
                   key=lambda x: (x[0], tuple(-e for e in x[1])))
    return singles + pairs


def _half_unit(precision: int) -> Fraction:
    return Fraction(1, 2 * 10 ** precision) if precision >= 0 else Fraction(10 ** -precision, 2)


def _float_bounds(series: Sequence[Decimal], precision: int) -> np.ndarray | None:
    """Per row, the magnitudes the displayed values stand for (``[low, high]``), or ``None``
    when the values change sign or a row's interval reaches zero."""
    values = np.array([float(v) for v in series])
    if not (np.all(values > 0) or np.all(values < 0)):
        return None
    half = float(_half_unit(precision))
    magnitude = np.abs(values)
    if np.any(magnitude - half <= 0):
        return None
    return np.stack([magnitude - half, magnitude + half], axis=1)


def _exact(series: Sequence[Decimal], precision: int) -> list[tuple[Fraction, Fraction]]:
    half = _half_unit(precision)
    return [(abs(Fraction(v)) - half, abs(Fraction(v)) + half) for v in series]


def _constant(goal: list[tuple[Fraction, Fraction]],
              factors: list[list[tuple[Fraction, Fraction]]],
              exponents: tuple[int, ...]) -> tuple[Fraction, Fraction] | None:
    """The constants ``k`` with ``k * prod(x ** e)`` inside every row's target interval for
    some true values of the factors, or ``None`` when no ``k`` fits every row."""
    low, high = Fraction(0), None
    for row, (y_low, y_high) in enumerate(goal):
        p_low, p_high = Fraction(1), Fraction(1)
        for series, exponent in zip(factors, exponents, strict=True):
            x_low, x_high = series[row]
            if exponent > 0:
                p_low, p_high = p_low * x_low, p_high * x_high
            else:
                p_low, p_high = p_low / x_high, p_high / x_low
        low = max(low, y_low / p_high)
        bound = y_high / p_low
        high = bound if high is None else min(high, bound)
        if high < low:
            return None
    return None if high is None else (low, high)
