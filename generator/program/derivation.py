"""Whether a chart column can be computed from table columns in the data actually shown.

The pack's identities say which columns are linked in principle; real data add links of their
own (Apple's operating income is exactly gross margin minus operating expenses; a football
club's losses are 38 minus its wins and draws, its points three times its wins plus its
draws). This check looks at the displayed numbers: if the chart series follows from table
columns by a linear relation with a constant,

    chart = c + b_1 x_1 + ... + b_k x_k      (real b_i and c, any k of the table's columns)

in every row shown (entity and period), up to the rounding of the displayed values, the
chart is not needed.

**Up to rounding** is exact. A displayed value is the true one off by half a display unit
``u`` at most, so a relation the true values obey exactly leaves each displayed row a
residual of at most ``u_chart + sum |b_i| u_i`` (each column at its own precision); a
relation is accepted when every row's residual, in exact rational arithmetic, is within
that bound. For given ``b`` the best constant is the midrange of the residuals, and one
exists within the bound exactly when half their range is; the constant reported is the
shortest number near it that works (38, not 37.93).

**Found** by least squares. For each subset of the table's columns (smallest first, in name
order) a float fit proposes coefficients; a few simple rationals near them (integers,
twelfths, four significant digits) and the fitted floats themselves (``Fraction`` of the
float) are the candidates, simplest first. A float screen, as wide as any float error could
make it, passes every candidate the exact test could accept; only those are checked exactly.

**Evidence** is what a fit needs beyond fitting: with as many parameters as rows, data in
general position fit *any* chart exactly, and the rows of a panel are not independent
either (a material's properties all move smoothly with temperature, so 15 rows of three
materials carry about six numbers each). A fitted relation counts only if

* it leaves rows to spare: ``k + 1`` parameters (coefficients and constant) at most
  ``rows - 2``. One spare row is the least that makes a fit falsifiable at all, but chance
  then passes it at about the tolerance over the chart's spread, per subset: with one spare
  row, random three-row data with two columns had 7% of their charts "derived", five rows
  with six columns 78%. Two spare rows square that rate, and the checks below do the rest
  (random data: none in 2,000 draws of 15 rows and six columns, under 1% of 4-5 rows);
* it generalises across entities (``groups``, one label per row): fitted without any one
  entity's rows, it still holds for every row (within 1.5 times the rounding bound: the
  refit has fewer rows). A law of the world (38 games a season) passes; a coincidence of this
  instance's few entities misses the entity left out, mostly by far;
* its columns are not collinear among themselves within display rounding: no combination
  of them (along their direction of least variance) stays within the bound its own
  rounding allows, as at - lt - seq does, or a column that barely moves. A coefficient on
  such a combination costs nothing in the residuals and widens the bound ``|b| u`` until
  anything fits; the subset's honest relations are found through its smaller subsets;
* it explains the chart: its largest residual is at most half the chart's own half-range
  (a chart flat within rounding is "a constant", which no table determines).

Where rows are too few to fit a subset, a parameter-free hypothesis still is evidence: the
chart equal to a signed sum of at most three columns (coefficients ±1, no constant), as
before. A flat chart is never derived (the generator refuses flat charts on their own).

Measured on instance draws of the worlds (1,000 to 8,000 each): the plain rule (one spare
row, none of the checks above) flags a quarter of the materials draws, a quarter of a
hospitals panel's (huge opposite coefficients on Beds and Budget = 2 x Beds + 5), 6% of a
three-row alloys panel's and 1% of the financial ones, all coincidences or such artefacts;
with the checks none are flagged, while on a football panel every draw whose table
determines the chart (778 of 1,500: two of wins, draws, losses, points beside a third) is
found, and no other.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import combinations, product
from math import comb, lcm

import numpy as np

#: At most this many column subsets are fitted (sizes are tried smallest first while the
#: running total stays within it; a pack's handful of table columns is far below it).
MAX_SUBSETS = 4096

#: Rows a fitted relation must leave over its parameters (see the module docstring).
SPARE_ROWS = 2

#: The parameter-free signed sums tried where rows are too few to fit: at most this many terms.
MAX_SUM_TERMS = 3

#: Candidate coefficients per subset, simplest first: integers, twelfths (halves, thirds,
#: quarters, sixths), four significant digits (unit conversions), the fitted floats.
_KINDS = ("integer", "twelfths", "digits", "float")
_DIGITS = 4

#: The ridge added to each subset's normal equations (of columns scaled to unit length):
#: columns collinear in the data shown leave them singular (such subsets are not evidence
#: anyway); the bias it gives a fitted coefficient, about this share, is far below a
#: display unit, and the simple rationals near the fit carry none.
_RIDGE = 1e-12

#: How far a relation refitted without one entity may miss a row, in rounding bounds: a
#: refit from fewer rows has noisier coefficients (a tight relation, a thousandth of a
#: column shown to three decimals, missed by up to 1.37 times in 200 draws), while a
#: coincidence of the instance's entities misses by far (on the materials world, 99% of
#: them by more than twice, the closest by 1.99 times).
_REFIT = 1.5

_EPS = float(np.finfo(float).eps)


@dataclass(frozen=True)
class Relation:
    """``chart = constant + sum(coefficient * column)`` within ``tolerance`` in every row shown.

    ``terms`` are ``(coefficient, column)`` in column-name order (no zero coefficients);
    ``misfit`` is the largest residual of a row, ``tolerance`` the rounding bound it is
    within (half a display unit of the chart plus ``|b|`` times that of each column)."""

    terms: tuple[tuple[Fraction, str], ...]
    constant: Fraction
    misfit: Fraction
    tolerance: Fraction

    @property
    def columns(self) -> tuple[str, ...]:
        """The table columns the relation uses."""
        return tuple(name for _, name in self.terms)

    def formula(self, target: str = "chart") -> str:
        """The relation as a formula: ``chart = 3 × wins + 1 × draws + 0``."""
        text = f"{target} ="
        for n, (coefficient, name) in enumerate(self.terms):
            sign = "-" if coefficient < 0 else "+"
            lead = ("-" if coefficient < 0 else "") if n == 0 else f"{sign} "
            text += f" {lead}{_number(abs(coefficient))} × {name}"
        sign = "-" if self.constant < 0 else "+"
        return f"{text} {sign} {_number(abs(self.constant))}"

    def __str__(self) -> str:
        return self.formula()


def _number(value: Fraction) -> str:
    """A rational as a formula writes it: exact where short, else six significant digits."""
    if value.denominator == 1:
        return str(value.numerator)
    for places in range(1, 7):
        scaled = value * 10**places
        if scaled.denominator == 1:
            whole, part = divmod(scaled.numerator, 10**places)
            return f"{whole}.{part:0{places}d}"
    if value.denominator <= 1000:
        return f"{value.numerator}/{value.denominator}"
    return f"{float(value):.6g}"


def derivation(target: Sequence[Decimal], columns: Mapping[str, Sequence[Decimal]],
               precision: int, column_precision: Mapping[str, int] | None = None,
               groups: Sequence[Hashable] | None = None) -> Relation | None:
    """A linear relation (with a constant) by which ``columns`` give ``target`` in every row,
    up to the rounding of displayed values, with the evidence the module docstring asks
    for, or ``None``.

    ``target`` and each column are aligned series (one value per row shown, the same rows in
    the same order); ``precision`` is the target's display precision (decimals) and
    ``column_precision`` each column's (every column at ``precision`` when omitted);
    ``groups`` names each row's entity (each row its own group when omitted, which tests
    less: pass it). A column or ``groups`` of another length is an error (``ValueError``).

    Subsets are tried smallest first, in name order, candidates simplest first; the first
    that holds in exact arithmetic is returned, so the same input gives the same answer."""
    return _search(target, columns, precision, column_precision, groups, screen=True)


def _search(target: Sequence[Decimal], columns: Mapping[str, Sequence[Decimal]],
            precision: int, column_precision: Mapping[str, int] | None,
            groups: Sequence[Hashable] | None, *, screen: bool) -> Relation | None:
    """:func:`derivation`; without the float ``screen`` every candidate is checked exactly
    (the plain way, which the screened one must agree with)."""
    names = sorted(columns)
    rows = len(target)
    for name in names:
        if len(columns[name]) != rows:
            raise ValueError(f"column {name!r} has {len(columns[name])} values for "
                             f"{rows} chart values")
    if groups is not None and len(groups) != rows:
        raise ValueError(f"{len(groups)} groups for {rows} chart values")
    if not names or len(set(target)) < 2:
        return None
    places = {n: precision if column_precision is None else column_precision[n]
              for n in names}
    data = _Data(target, columns, names, precision, places, groups)
    largest = min(len(names), rows - 1 - SPARE_ROWS)
    if largest >= 1:
        found = _fitted(data, largest, screen)
        if found is not None:
            return found
    return _sums(data, max(largest, 0) + 1, screen)


class _Data:
    """One call's series: floats for the fits and screens, exact integers (counts of
    ``10**-places``) for the confirmation, worked out when first needed."""

    def __init__(self, target: Sequence[Decimal], columns: Mapping[str, Sequence[Decimal]],
                 names: list[str], precision: int, places: Mapping[str, int],
                 groups: Sequence[Hashable] | None) -> None:
        self.target, self.columns, self.names = target, columns, names
        self.precision, self.column_places = precision, places
        self.groups = groups
        rows = len(target)
        self.goal = np.array([float(t) for t in target])
        self.values = np.array([[float(v) for v in columns[n]]
                                for n in names]).T.reshape(rows, -1)
        self.unit_goal = 0.5 * 10.0 ** -precision
        self.units = np.array([0.5 * 10.0 ** -places[n] for n in names])
        self.spread = (self.goal.max() - self.goal.min()) / 2  # the chart's half-range
        self.biggest = np.abs(self.values).max(axis=0)
        self.top = float(np.abs(self.goal).max())
        self.exact: dict[int | None, tuple[int, list[int]]] = {}
        self.verdicts: dict[tuple[int, ...], bool] = {}

    # --- floats ----------------------------------------------------------------------------

    def fit(self, masks: np.ndarray, inside: np.ndarray, outside: np.ndarray) -> np.ndarray:
        """Least-squares coefficients (with a constant) of each masked subset of columns:
        shape (subset, column), 0 off the subset."""
        goal, values = self.goal, self.values
        centred = values - values.mean(axis=0)
        norms = np.sqrt((centred * centred).sum(axis=0))
        norms[norms == 0] = 1.0
        z = centred / norms
        gram, moment = z.T @ z, z.T @ (goal - goal.mean())
        # each subset's normal equations, identity off the subset (its coefficients stay 0)
        solved = np.linalg.solve(gram * inside + outside, (moment * masks)[..., None])
        coefficients: np.ndarray = solved[..., 0] / norms * masks
        return coefficients

    def screen(self, coefficients: np.ndarray, widen: float = 1.0,
               picks: list[int] | None = None) -> np.ndarray:
        """Which candidate coefficient vectors (last axis: the columns, or those ``picks``)
        may pass the exact test over all rows: the float test, widened by a bound on its
        float error (and with the rounding bound ``widen`` times as wide)."""
        columns = slice(None) if picks is None else picks
        residual = self.goal - coefficients @ self.values[:, columns].T
        half = (residual.max(axis=-1) - residual.min(axis=-1)) / 2
        weights = np.abs(coefficients)
        bound = (self.unit_goal + weights @ self.units[columns]) * widen
        # float error of a sum of up to n + 1 products, each value off by half an ulp, the
        # coefficients by an ulp, and the bound and the spread by a few more
        scale = self.top + weights @ self.biggest[columns] + 1.0
        slack = 16 * (len(self.names) + 2) * _EPS * scale
        passed: np.ndarray = ((coefficients != 0).any(axis=-1) & (half <= bound + slack)
                              & (half <= self.spread / 2 + slack))
        return passed

    def is_evidence(self, picks: tuple[int, ...]) -> bool:
        """Whether a relation on these columns is evidence (module docstring): not collinear
        within rounding, and refitted without any one group it still holds for every row."""
        known = self.verdicts.get(picks)
        if known is None:
            known = self.verdicts[picks] = not self._collinear(picks) and \
                self._generalises(picks)
        return known

    def _collinear(self, picks: tuple[int, ...]) -> bool:
        """Whether some combination of these columns could be constant in the true values:
        its displayed values (along the direction of least variance, in display units) stay
        within the bound their rounding allows, ``sum |w_i|`` half units."""
        values = self.values[:, list(picks)] / (2 * self.units[list(picks)])  # display units
        centred = values - values.mean(axis=0)
        direction = np.linalg.eigh(centred.T @ centred)[1][:, 0]
        combined = values @ direction
        half = (combined.max() - combined.min()) / 2
        return bool(half <= 0.5 * np.abs(direction).sum() * (1 + 1e-9))

    def _generalises(self, picks: tuple[int, ...]) -> bool:
        labels = list(range(len(self.goal))) if self.groups is None else list(self.groups)
        if len(set(labels)) < 2:
            labels = list(range(len(self.goal)))
        # one least-squares refit per group left out, all at once: the kept rows' weighted
        # sums (of values centred on all rows, so that nothing large cancels)
        kept = np.array([[g != label for g in labels] for label in dict.fromkeys(labels)],
                        dtype=float)
        count = kept.sum(axis=1)
        if count.min() < len(picks) + 2:  # each refit with a row to spare
            return False
        values = self.values[:, list(picks)]
        values = values - values.mean(axis=0)
        goal = self.goal - self.goal.mean()
        sums, target = kept @ values, kept @ goal
        gram = np.einsum("gr,ri,rj->gij", kept, values, values) \
            - sums[:, :, None] * sums[:, None, :] / count[:, None, None]
        moment = kept @ (values * goal[:, None]) - sums * (target / count)[:, None]
        norms = np.sqrt(np.maximum(np.einsum("gii->gi", gram), 0.0))
        norms[norms == 0] = 1.0
        scaled = gram / (norms[:, :, None] * norms[:, None, :]) + _RIDGE * np.eye(len(picks))
        fitted = np.linalg.solve(scaled, (moment / norms)[..., None])[..., 0] / norms
        numerators, exponents = _candidates(fitted)
        refits = self.screen(numerators * 10.0 ** exponents, _REFIT, list(picks))
        return bool(refits.any(axis=0).all())

    # --- exact -----------------------------------------------------------------------------

    def scaled(self, k: int | None) -> tuple[int, list[int]]:
        """Column ``k`` (the chart for ``None``) as integers, and the decimals they count:
        its precision, or more where its values carry more (remembered)."""
        found = self.exact.get(k)
        if found is None:
            series = self.target if k is None else self.columns[self.names[k]]
            places = self.precision if k is None else self.column_places[self.names[k]]
            while True:
                lifted = [v.scaleb(places) for v in series]
                whole = [int(v) for v in lifted]  # ValueError, OverflowError: not finite
                if lifted == whole:
                    break
                places = max(places + 1, *(-int(v.as_tuple().exponent) for v in series))
            found = self.exact[k] = (places, whole)
        return found

    def relation(self, picks: tuple[int, ...], terms: tuple[Fraction, ...],
                 free: bool = True) -> Relation | None:
        """The relation with these coefficients, if it holds exactly: with the best constant
        (``free``, and explaining the chart) or with none."""
        if not any(terms):
            return None
        goal_places, goal = self.scaled(None)
        used = [self.scaled(k) for k in picks]
        places = max(goal_places, *(p for p, _ in used))  # every value counts 10**-places
        common = lcm(*(b.denominator for b in terms))
        weights = [b.numerator * (common // b.denominator) for b in terms]
        factors = [w * 10 ** (places - p) for w, (p, _) in zip(weights, used, strict=True)]
        lift = common * 10 ** (places - goal_places)
        residuals = [t * lift - sum(f * s[i] for f, (_, s) in zip(factors, used, strict=True))
                     for i, t in enumerate(goal)]
        low, high = min(residuals), max(residuals)
        # twice the bound, in units of 10**-places / common
        bound = common * 10 ** (places - self.precision) + sum(
            abs(w) * 10 ** (places - self.column_places[self.names[k]])
            for w, k in zip(weights, picks, strict=True))
        unit = Fraction(1, common * 10**places)
        tolerance = Fraction(bound, 2) * unit
        if free:
            chart = (max(goal) - min(goal)) * lift
            if high - low > bound or 2 * (high - low) > chart:
                return None
            constant = _simplest(high * unit - tolerance, low * unit + tolerance,
                                 (low + high) * unit / 2, self.precision)
        else:
            if 2 * max(high, -low) > bound:
                return None
            constant = Fraction(0)
        return Relation(
            terms=tuple((b, self.names[k]) for b, k in zip(terms, picks, strict=True) if b),
            constant=constant,
            misfit=max(high * unit - constant, constant - low * unit),
            tolerance=tolerance)


def _fitted(data: _Data, largest: int, screen: bool) -> Relation | None:
    """The first fitted relation on at most ``largest`` columns that holds and is evidence."""
    masks, inside, outside = _subsets(len(data.names), largest)
    if not len(masks):
        return None
    fitted = data.fit(masks, inside, outside)
    numerators, exponents = _candidates(fitted)
    coefficients = numerators * 10.0 ** exponents  # (kind, subset, column), 0 off the subset
    live = data.screen(coefficients) if screen else (coefficients != 0).any(axis=2)
    tried: set[tuple[tuple[int, ...], tuple[Fraction, ...]]] = set()
    for subset, kind in np.argwhere(live.T):
        picks = tuple(int(k) for k in np.flatnonzero(masks[subset]))
        terms = tuple(_fraction(kind, numerators[kind, subset, k], exponents[kind, subset, k],
                                fitted[subset, k]) for k in picks)
        if (picks, terms) in tried:
            continue
        tried.add((picks, terms))
        found = data.relation(picks, terms)
        if found is not None and data.is_evidence(
                tuple(k for k, b in zip(picks, terms, strict=True) if b)):
            return found
    return None


def _sums(data: _Data, smallest: int, screen: bool) -> Relation | None:
    """The first signed sum of ``smallest`` to :data:`MAX_SUM_TERMS` columns (no constant)
    equal to the chart within rounding: parameter-free, so evidence on any rows."""
    for size in range(smallest, min(MAX_SUM_TERMS, len(data.names)) + 1):
        picks, signs = _terms(len(data.names), size)
        order: Sequence[int] | np.ndarray = range(len(picks))
        if screen:
            residual = data.goal - np.einsum("cs,csi->ci", signs, data.values.T[picks])
            bound = data.unit_goal + data.units[picks].sum(axis=1)
            scale = data.top + data.biggest[picks].sum(axis=1) + 1.0
            slack = 16 * (size + 2) * _EPS * scale
            order = np.flatnonzero(np.abs(residual).max(axis=1) <= bound + slack)
        for row in order:
            found = data.relation(tuple(int(k) for k in picks[row]),
                                  tuple(Fraction(int(s)) for s in signs[row]), free=False)
            if found is not None:
                return found
    return None


@functools.cache
def _subsets(count: int, largest: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every subset of at most ``largest`` of ``count`` columns, in the order they are tried
    (smallest first, then in name order; sizes while :data:`MAX_SUBSETS` allows): a boolean
    mask per subset, and the masks that turn the Gram matrix into each subset's normal
    equations (its entries within the subset; the ridge on its diagonal, 1 off it)."""
    rows: list[tuple[int, ...]] = []
    for size in range(1, largest + 1):
        if len(rows) + comb(count, size) > MAX_SUBSETS:
            break
        rows += combinations(range(count), size)
    masks = np.zeros((len(rows), count), dtype=bool)
    for n, row in enumerate(rows):
        masks[n, list(row)] = True
    inside = (masks[:, :, None] & masks[:, None, :]).astype(float)
    outside = np.eye(count) * np.where(masks, _RIDGE, 1.0)[:, None, :]
    for array in (masks, inside, outside):
        array.setflags(write=False)
    return masks, inside, outside


@functools.cache
def _terms(count: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every signed combination of ``size`` of ``count`` columns, in the order
    :func:`_sums` tries them (plus before minus): column indices and signs, one row each."""
    rows = [(names, signs) for names in combinations(range(count), size)
            for signs in product((1, -1), repeat=size)]
    return (np.array([r[0] for r in rows], dtype=int).reshape(-1, size),
            np.array([r[1] for r in rows], dtype=float).reshape(-1, size))


def _candidates(fitted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidate coefficients near the fitted ones, as ``numerator * 10**exponent`` arrays
    with a leading axis of :data:`_KINDS` (twelfths carry their value in the numerator)."""
    zeros = np.zeros_like(fitted)
    size = np.abs(fitted)
    shift = np.floor(np.log10(np.where(size > 0, size, 1.0))) - (_DIGITS - 1)
    return (np.stack([np.rint(fitted), np.rint(fitted * 12) / 12,
                      np.rint(fitted / 10.0 ** shift), fitted]),
            np.stack([zeros, zeros, shift, zeros]))


def _fraction(kind: int, numerator: float, exponent: float, fitted: float) -> Fraction:
    """The exact candidate coefficient that :func:`_candidates` gives as a float."""
    name = _KINDS[kind]
    if name == "integer":
        return Fraction(int(numerator))
    if name == "twelfths":
        return Fraction(round(float(numerator) * 12), 12)
    if name == "digits":
        return Fraction(int(numerator)) * Fraction(10) ** int(exponent)
    return Fraction(float(fitted))


def _simplest(lowest: Fraction, highest: Fraction, middle: Fraction, precision: int
              ) -> Fraction:
    """A short constant in ``[lowest, highest]``: the number with the fewest decimals less
    than half a display unit of the chart from ``middle`` (the best constant): 38, not
    37.93; -2.5, not -2; else ``middle``."""
    half = Fraction(1, 2 * 10**precision)
    for places in range(precision + 2):
        step = Fraction(1, 10**places)
        near = round(middle / step) * step
        if abs(near - middle) < half and lowest <= near <= highest:
            return near
    return middle
