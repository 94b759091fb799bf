"""Which values a text states: numbers matched as numbers, not as substrings.

A chart is needed only if no text beside it writes its values, and a passage that writes a
panel column's values must not sit beside a chart of that column. Both questions are asked
here, of the **number tokens** a text writes, never of substrings: "2021" does not state 21,
"1,021" does not, nor does "21.5".

**Tokens.** A token is a maximal run of digits with the separators of one number: thousands
groups ("1,234"; "1234" alike), a decimal point ("12.34"; ".75"). A comma that does not
group thousands separates numbers ("12,13" is a list of two; decimal commas are not read,
nor spaces as separators). A run with two decimal points ("1.2.3", "12.03.2021") is no
number, nor is one with a leading zero ("007", "0421": codes). A run glued to a letter on
its left, or to a hyphen after a letter, is a name ("A380", "Q3", "FY2023", "F-43m",
"COVID-19"), and one followed by an ordinal or plural
suffix ("21st", "1990s") is no amount either; units glued on the right ("12km", "10x") do
not matter. Signs are ignored: prose writes a negative value as a magnitude ("a loss of
12.3", "fell 12.3"), a minus is often a dash ("2019-2020"), so a token states a value of
either sign. Currency symbols do not matter ("$1.2" is 1.2).

**Readings.** Besides its number, a token followed by a scale word or suffix also reads as
the scaled number at the scaled rounding ("1.2 million" or "1.2m" is 1.2 and 1,200,000 to the
hundred thousand; thousand/k, million/m/mn/mln, billion/b/bn, trillion/tn), and a percentage
also as its fraction ("12.5%" or "12.5 percent" is 12.5 and 0.125): a chart may show either.

**Stating.** A token written with ``d`` decimals states a value (shown at ``precision``
decimals) when it is the value rounded to ``d`` decimals, or when both, rounded to the
coarser of ``d`` and ``precision``, are the same number; rounding is half up, as the project
rounds. So "12.3", "12" and "12.340" state 12.34 shown at 2 decimals, "12.4" does not, and
"21.5" does not state 21 (it would show as 22); a true value 12.46 shown at no decimals is
stated by "12.5", its rounding, as well as by "12". Two exceptions:

* a token with a single significant digit ("3 lines", "9 districts", "0.5", "300" is three)
  states nothing: prose is full of small round numbers, and a chart of values under 10
  would otherwise sit beside almost no text;
* a year (a four-digit integer from 1800 to 2099 written without grouping, decimals, scale
  or percent) states only a value exactly equal to it, never one it rounds; the "22" of
  "2021/22" or "2021-22" is part of a year and states nothing.

Number words ("twenty-one") are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache

import numpy as np

from hopvista.display import written_significant_digits

__all__ = ["NumberToken", "number_tokens", "stated_values", "states"]

_RUN = re.compile(r"\d(?:[\d.,]*\d)?")
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_PLAIN = re.compile(r"\d+(?:\.\d+)?")
_LETTERS = re.compile(r"[^\W\d_]+")
_AFTER = re.compile(r"[ \u00a0]?(%|per ?cent\b|percent\b|thousand\b|million\b|billion\b|"
                    r"trillion\b|mln\b|mn\b|bn\b|tn\b|[kmb]\b)", re.IGNORECASE)

#: Suffixes that make a token no amount: ordinals, and plurals (decades: "1990s").
_NOT_AMOUNTS = frozenset({"st", "nd", "rd", "th", "s"})

#: Scale words and suffixes (lower case), as powers of ten.
_SCALES = {"thousand": 3, "k": 3, "million": 6, "m": 6, "mn": 6, "mln": 6,
           "billion": 9, "b": 9, "bn": 9, "trillion": 12, "tn": 12}

_YEARS = range(1800, 2100)
_SEPARATORS = "/-\u2013"


@dataclass(frozen=True)
class NumberToken:
    """A number a text writes: its magnitude, how many decimals it is written with, where it
    stands (``start``, ``end``), whether it reads as a year, and its further readings
    (scaled or as a fraction of a percentage): ``(value, decimals)`` pairs."""

    value: Decimal
    decimals: int
    start: int
    end: int
    significant: int
    year: bool = False
    readings: tuple[tuple[Decimal, int], ...] = ()

    def states(self, value: Decimal, precision: int) -> bool:
        """Whether this token states ``value``, a value shown at ``precision`` decimals."""
        magnitude = abs(value)
        if self.significant < 2:
            return False
        if self.year:
            return magnitude == self.value
        for number, decimals in ((self.value, self.decimals), *self.readings):
            coarser = min(decimals, precision)
            if _rounded(magnitude, decimals) == number or \
                    _rounded(magnitude, coarser) == _rounded(number, coarser):
                return True
        return False


    def windows(self, precision: int) -> list[tuple[float, float]]:
        """Float intervals outside which no value shown at ``precision`` decimals is stated
        (a screen before the exact test: within ``10**-min(d, precision)`` of a reading)."""
        if self.year:
            return [(float(self.value) - 0.5, float(self.value) + 0.5)]
        out = []
        for number, decimals in ((self.value, self.decimals), *self.readings):
            width = 10.0 ** -min(decimals, precision) * (1 + 1e-9) + 1e-300
            out.append((float(number) * (1 - 1e-12) - width, float(number) * (1 + 1e-12) + width))
        return out


def _rounded(value: Decimal, places: int) -> Decimal:
    try:
        return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    except InvalidOperation:  # more digits than the context holds: compared as they are
        return value


def states(text: str, value: Decimal, precision: int) -> bool:
    """Whether ``text`` states ``value`` (shown at ``precision`` decimals) in any token."""
    return any(token.states(value, precision) for token in number_tokens(text))


def stated_values(text: str, values: Iterable[Decimal], precision: int) -> list[Decimal]:
    """The ``values`` (shown at ``precision`` decimals) that ``text`` writes, each once, in
    their order: the chart values a text chunk states."""
    tokens, low, high = _screen(text, precision)
    if not tokens:
        return []
    values = list(values)
    sizes = np.abs(np.array([float(v) for v in values]))
    near = ((sizes[:, None] >= low[None, :]) & (sizes[:, None] <= high[None, :])).any(axis=1)
    out: list[Decimal] = []
    for value, close in zip(values, near.tolist(), strict=True):
        if close and value not in out and any(t.states(value, precision) for t in tokens):
            out.append(value)
    return out


@lru_cache(maxsize=65536)
def _screen(text: str, precision: int) -> tuple[tuple[NumberToken, ...], np.ndarray,
                                                 np.ndarray]:
    """The tokens of ``text`` that may state a value, and the lower and upper ends of their
    float windows at ``precision`` (remembered, like the tokens)."""
    tokens = tuple(t for t in number_tokens(text) if t.significant >= 2)
    windows = [window for t in tokens for window in t.windows(precision)]
    return (tokens, np.array([w[0] for w in windows], dtype=float),
            np.array([w[1] for w in windows], dtype=float))


@lru_cache(maxsize=65536)
def number_tokens(text: str) -> tuple[NumberToken, ...]:
    """The number tokens of ``text``, in order (remembered: the generator asks of the same
    chunks again and again)."""
    tokens: list[NumberToken] = []
    for run in _RUN.finditer(text):
        start, end = run.span()
        before = text[start - 1] if start else ""
        if before.isalpha() or before == "_":
            continue  # a name: A380, Q3, FY2023
        if before in "-\u2013" and start >= 2 and text[start - 2].isalpha():
            continue  # a name too: F-43m, B-52, COVID-19
        leading_point = before == "." and (start < 2 or not text[start - 2].isdigit())
        pieces = _pieces(run.group(), start)
        for n, (piece, at) in enumerate(pieces):
            last = n == len(pieces) - 1
            token = _token(text, piece, at, leading_point and n == 0, last, tokens)
            if token is not None:
                tokens.append(token)
    return tuple(tokens)


def _pieces(run: str, start: int) -> list[tuple[str, int]]:
    """The numbers of a run of digits and separators, with their offsets."""
    if _GROUPED.fullmatch(run) or _PLAIN.fullmatch(run):
        return [(run, start)]
    pieces, at = [], start
    for piece in run.split(","):
        if _PLAIN.fullmatch(piece):
            pieces.append((piece, at))
        at += len(piece) + 1
    return pieces


def _token(text: str, piece: str, start: int, leading_point: bool, last: bool,
           earlier: Sequence[NumberToken]) -> NumberToken | None:
    end = start + len(piece)
    suffix = _LETTERS.match(text, end) if last else None
    if suffix is not None and suffix.group().lower() in _NOT_AMOUNTS:
        return None
    digits = piece.replace(",", "")
    whole, _, fraction = digits.partition(".")
    if len(whole) > 1 and whole.startswith("0"):
        return None  # a code: 007, 0421
    if leading_point:
        whole, fraction, start = "0", whole, start - 1
    value = Decimal(f"{whole}.{fraction}" if fraction else whole)
    decimals = len(fraction)
    significant = written_significant_digits(whole + fraction)
    after = None
    if last:
        if suffix is not None:
            after = suffix.group().lower() if suffix.group().lower() in _SCALES else None
        else:
            found = _AFTER.match(text, end)
            after = found.group(1).lower() if found else None
    readings: list[tuple[Decimal, int]] = []
    if after is not None and after in _SCALES:
        power = _SCALES[after]
        readings.append((value.scaleb(power), decimals - power))
    elif after is not None:  # a percentage
        readings.append((value.scaleb(-2), decimals + 2))
    if (len(digits) == 2 and start >= 1 and text[start - 1] in _SEPARATORS and earlier
            and earlier[-1].year and earlier[-1].end == start - 1):
        return None  # the "22" of "2021/22": part of a year
    year = (after is None and not fraction and "," not in piece and len(digits) == 4
            and int(digits) in _YEARS)
    return NumberToken(value=value, decimals=decimals, start=start, end=end,
                       significant=significant, year=year, readings=tuple(readings))
