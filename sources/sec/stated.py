"""Which panel columns a chunk of 10-K text states (so it cannot sit beside a chart of them).

A chunk *states* a column when it writes one of the company's values of that column, for any
fiscal year, in a usual form: "$391.0 billion", "$391,035 million", "391,035", "$93.7 billion",
"$2.5 billion". A written value matches a figure when the figure, expressed in the written
unit and rounded to the written number of decimals, equals it ("$93.7 billion" matches
93,736). Year-over-year changes and percentages are not looked for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation

from hopvista.display import written_significant_digits

__all__ = ["WrittenAmount", "columns_stated", "written_amounts"]

#: How many millions one written unit is.
_SCALES = {"thousand": Decimal("0.001"), "million": Decimal(1), "billion": Decimal(1000),
           "trillion": Decimal(1_000_000)}

_AMOUNT = re.compile(
    r"(?<![\w.,$])(?P<dollar>\$\s?)?"
    r"(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?![\w.,]?\d)"
    r"(?P<scale>\s*(?:thousand|million|billion|trillion)\b)?"
    r"(?!\s*%|\s*percent\b|\s*basis\s+points?)",
    re.IGNORECASE)

#: Values with fewer significant digits than this are too coarse to say which figure they are,
#: unless written as money with a scale ("$2.5 billion").
MIN_SIGNIFICANT = 3


@dataclass(frozen=True)
class WrittenAmount:
    """A number written in text that may be a figure in USD millions."""

    text: str
    value: Decimal      # in the written unit, as written (sign dropped)
    decimals: int       # digits written after the decimal point
    millions: Decimal   # how many millions one written unit is
    significant: int    # significant digits written


def written_amounts(text: str) -> Iterator[WrittenAmount]:
    """Numbers in ``text`` that could state a USD-millions figure.

    A number counts when it is money ("$..."), carries a scale word ("million", "billion"),
    or is grouped with thousands separators ("391,035", read as millions as in the
    statements). Percentages and basis points never count; a number with fewer than three
    significant digits counts only as money with a scale ("$2.5 billion").
    """
    for match in _AMOUNT.finditer(text):
        number = match.group("number")
        dollar = match.group("dollar") is not None
        scale_word = (match.group("scale") or "").strip().lower()
        if not (dollar or scale_word or "," in number):
            continue
        significant = written_significant_digits(number)
        if significant < MIN_SIGNIFICANT and not (
                dollar and scale_word in ("million", "billion", "trillion")):
            continue
        try:
            value = Decimal(number.replace(",", ""))
        except InvalidOperation:  # pragma: no cover - the pattern only admits numbers
            continue
        if value == 0:
            continue
        decimals = len(number.split(".")[1]) if "." in number else 0
        yield WrittenAmount(text=match.group(0), value=value, decimals=decimals,
                            millions=_SCALES.get(scale_word, Decimal(1)),
                            significant=significant)


def _matches(amount: WrittenAmount, figure: Decimal) -> bool:
    """Whether ``figure`` (USD millions) rounds to ``amount`` at the precision written."""
    if figure == 0:
        return False
    in_unit = abs(figure) / amount.millions
    quantum = Decimal(1).scaleb(-amount.decimals)
    return any(in_unit.quantize(quantum, rounding=mode) == amount.value
               for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN))


def columns_stated(text: str,
                   figures: Mapping[str, Mapping[int, Decimal | None]]) -> frozenset[str]:
    """The columns of ``figures`` whose value, for some fiscal year, ``text`` writes.

    ``figures[column][fiscal_year]`` are the company's values in USD millions. A written
    value matches when the figure, in the written unit ("billion": thousands of millions)
    and rounded to the decimals written, equals it: "$391.0 billion" and "$391,035 million"
    both state 391,035; "$2.5 billion" states anything from 2,450 to 2,549.
    """
    amounts = list(written_amounts(text))
    if not amounts:
        return frozenset()
    stated: set[str] = set()
    for column, years in figures.items():
        for figure in years.values():
            if figure is not None and any(_matches(a, Decimal(figure)) for a in amounts):
                stated.add(column)
                break
    return frozenset(stated)
