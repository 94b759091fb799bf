"""10-K filings: inline XBRL facts and cover (``dei:``) facts."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation

from bs4 import BeautifulSoup
from bs4.element import Tag

from hopvista.sources.sec.figures import MAX_AMOUNT
from hopvista.sources.sec.filings.blocks import normalise
from hopvista.sources.sec.model import XbrlFact


class Xbrl:
    """The inline XBRL of a document: dei cover values and dimensionless numeric facts."""

    def __init__(self, soup: BeautifulSoup) -> None:
        self.dei: dict[str, str] = {}
        self.dei_context: dict[str, str] = {}
        self.facts: list[XbrlFact] = []
        self.problems: list[str] = []
        self.identifier: str | None = None
        contexts: dict[str, tuple[date | None, date] | None] = {}
        units: dict[str, str] = {}
        numeric: list[Tag] = []
        for tag in soup.find_all(_is_xbrl_tag):
            local = tag.name.rsplit(":", 1)[-1]
            if local == "nonfraction":
                numeric.append(tag)
            elif local == "nonnumeric":
                name = _attr(tag, "name") or ""
                if name.startswith("dei:") and name not in self.dei:
                    self.dei[name] = normalise(tag.get_text())
                    self.dei_context[name] = _attr(tag, "contextref") or ""
            elif local == "context":
                ident = _attr(tag, "id")
                if ident:
                    contexts[ident] = self._context(tag)
            elif local == "unit":
                ident = _attr(tag, "id")
                if ident:
                    units[ident] = _unit(tag)
        self.contexts = contexts
        chosen: dict[tuple[str, str, date | None, date], tuple[float, XbrlFact]] = {}
        conflicts: set[str] = set()
        failed: list[str] = []
        for tag in numeric:
            if _attr(tag, "xsi:nil") == "true" or tag.find_parent(_is_nonfraction) is not None:
                continue
            period = contexts.get(_attr(tag, "contextref") or "")
            if period is None:  # dimensional (or unknown) context
                continue
            value = _fact_value(tag)
            name = _attr(tag, "name") or ""
            if value is None:
                failed.append(f"{name[:80]}={normalise(tag.get_text())[:40]!r}")
                continue
            unit = units.get(_attr(tag, "unitref") or "", _attr(tag, "unitref") or "")
            fact = XbrlFact(name, value, unit, period[0], period[1])
            key = (name, unit, fact.start, fact.end)
            precision = _decimals(_attr(tag, "decimals"))
            if key not in chosen or precision > chosen[key][0]:
                chosen[key] = (precision, fact)
            elif precision == chosen[key][0] and chosen[key][1].value != value:
                conflicts.add(f"{name} ({fact.end})")
        # one fact per concept, unit and period: repeated facts collapse, and of rounded
        # repetitions ("$22.0 billion" next to "22,038" millions) the most precise one wins
        self.facts = [fact for _, fact in chosen.values()]
        if conflicts:
            self.problems.append(f"inline XBRL facts with conflicting values (first kept): "
                                 f"{', '.join(sorted(conflicts)[:3])}")
        if failed:
            self.problems.append(f"{len(failed)} inline XBRL value(s) not understood, e.g. "
                                 f"{', '.join(failed[:3])}")

    def _context(self, tag: Tag) -> tuple[date | None, date] | None:
        """(start, end) of a dimensionless context; None for dimensional ones."""
        start = end = instant = None
        for child in tag.find_all(True):
            local = child.name.rsplit(":", 1)[-1]
            if local in ("segment", "scenario", "explicitmember", "typedmember"):
                return None
            if local == "identifier" and self.identifier is None:
                self.identifier = normalise(child.get_text())
            elif local == "startdate":
                start = _iso_date(child.get_text())
            elif local == "enddate":
                end = _iso_date(child.get_text())
            elif local == "instant":
                instant = _iso_date(child.get_text())
        if instant is not None:
            return None, instant
        if end is not None:
            return start, end
        return None


def _decimals(text: str | None) -> float:
    """An ``ix:nonFraction``'s ``decimals`` as a number (INF most precise, absent least)."""
    if not text:
        return float("-inf")
    if text.strip().upper() == "INF":
        return float("inf")
    try:
        return float(int(text))
    except (ValueError, OverflowError):
        return float("-inf")


def _is_xbrl_tag(tag: Tag) -> bool:
    name = tag.name
    return ":" in name and name.rsplit(":", 1)[-1] in (
        "nonfraction", "nonnumeric", "context", "unit")


def _is_nonfraction(tag: Tag) -> bool:
    return tag.name.endswith(":nonfraction")


def _attr(tag: Tag, name: str) -> str | None:
    value = tag.get(name)
    if value is None or isinstance(value, str):
        return value
    return " ".join(value)


def _iso_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text.strip()[:10])
    except ValueError:
        return None


def _measure(text: str) -> str:
    return text.strip().rsplit(":", 1)[-1]


def _unit(tag: Tag) -> str:
    numerator = tag.find(lambda t: t.name.endswith("unitnumerator"))
    denominator = tag.find(lambda t: t.name.endswith("unitdenominator"))
    if isinstance(numerator, Tag) and isinstance(denominator, Tag):
        top = "*".join(_measure(m.get_text()) for m in numerator.find_all(_is_measure))
        bottom = "*".join(_measure(m.get_text()) for m in denominator.find_all(_is_measure))
        return f"{top}/{bottom}"
    return "*".join(_measure(m.get_text()) for m in tag.find_all(_is_measure))


def _is_measure(tag: Tag) -> bool:
    return tag.name.endswith("measure")


_ZERO_FORMATS = ("fixed-zero", "zerodash", "fixedzero")
_DASHES = frozenset({"-", "—", "–", "‒", "―", "−"})
_WORDS = {word: n for n, word in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
     "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
     "nineteen"])}
_WORDS.update({word: 10 * (n + 2) for n, word in enumerate(
    ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])})
_WORDS.update({"no": 0, "none": 0, "a": 1, "an": 1, "single": 1})
_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9,
           "trillion": 10**12}


def _number_words(text: str) -> Decimal | None:
    """``"twenty-one"`` → 21, ``"no"`` → 0 (ixt-sec:numwordsen); None when not understood."""
    words = [w for w in re.split(r"[\s\-]+", text.lower().strip(" .")) if w and w != "and"]
    if not words:
        return None
    total = current = 0
    for word in words:
        if word in _WORDS:
            current += _WORDS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        else:
            return None
    return Decimal(total + current)


#: The largest power of ten an ``ix:nonFraction`` may scale by (XBRL uses -9 to 12), and the
#: most digits its text may have before the decimal point.
_MAX_SCALE = 30
_MAX_DIGITS = 40


def _fact_value(tag: Tag) -> Decimal | None:
    """The fact's value with format, scale and sign applied (None when not a finite number
    below :data:`~hopvista.sources.sec.figures.MAX_AMOUNT`)."""
    text = normalise(tag.get_text())
    fmt = (_attr(tag, "format") or "").lower().rsplit(":", 1)[-1]
    value: Decimal | None
    if any(key in fmt for key in _ZERO_FORMATS) or text in _DASHES:
        value = Decimal(0)
    elif "numwords" in fmt:
        value = _number_words(text)
    else:
        digits = text.replace(" ", "").replace("\u00a0", "")
        if "comma-decimal" in fmt or "numcommadecimal" in fmt:
            digits = digits.replace(".", "").replace(",", ".")
        else:
            digits = digits.replace(",", "")
        digits = digits.strip("()$€£%")
        try:
            value = Decimal(digits)
        except InvalidOperation:
            value = None
    if value is None or not value.is_finite() or value.adjusted() > _MAX_DIGITS:
        return None
    try:
        scale = int(_attr(tag, "scale") or 0)
    except ValueError:
        return None
    if abs(scale) > _MAX_SCALE:
        return None
    value = value.scaleb(scale)
    if abs(value) >= MAX_AMOUNT:
        return None   # no company's figure; exact arithmetic on it would overflow
    if _attr(tag, "sign") == "-":
        value = -value
    if value == value.to_integral_value():
        value = value.quantize(Decimal(1))
    return value
