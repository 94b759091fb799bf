"""Annual Compustat-like figures from SEC XBRL: companyfacts JSON or one 10-K's inline XBRL.

Each pack column has an ordered tuple of :class:`Rule`\\ s (:data:`COLUMN_RULES`). For every
fiscal year the rules are tried in order and the first one whose required parts all have a
value for that year gives the figure, so tag switches between years (GOOGL's revenue, NVDA's
capex) are handled per period. A rule is a signed sum of :class:`Part`\\ s; a part is a tuple of
equivalent us-gaap tags (or a reference to a column computed earlier). Among a part's tags the
value from the latest-filed 10-K wins (a restatement or a re-tagged comparative figure beats the
original), and within one filing the earlier tag in the tuple wins. :data:`COLUMN_TAGS` lists,
per column, every tag its rules use, in priority order. ``docs/sec-figures.md`` documents each
rule and every deviation from Compustat's definitions.

Annual values only: 10-K and 10-K/A facts; flows whose start to end spans 350-380 days (52- and
53-week years); instants at a fiscal year end. The fiscal year ends are the end dates of the
annual flows, and a fiscal year is labelled by its end date's year (NVDA's year ended
2025-01-26 is 2025), except that a year ending in the first week of January (a 52/53-week year
"closest to December 31") is labelled by the year before. The ``fy`` field of companyfacts
names the filing, not the period, and is never used. Values are exact ``Decimal`` USD millions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Literal

from hopvista.sources.sec.model import CompanyFigures, XbrlFact

Kind = Literal["flow", "instant"]

#: Forms whose facts count as annual figures.
ANNUAL_FORMS = frozenset({"10-K", "10-K/A"})
#: A flow is annual when end - start is within these days (a 53-week year is 370 days).
ANNUAL_DAYS = (350, 380)
#: An instant this many days from a fiscal year end may stand in for one exactly at it.
INSTANT_TOLERANCE_DAYS = 10
#: Fiscal years ending on January 1-7 are 52/53-week years "closest to December 31".
EARLY_JANUARY_DAYS = 7

#: Dates of companyfacts rows outside these years are malformed (EDGAR starts in 1993).
PLAUSIBLE_YEARS = (1900, 2100)
#: Amounts (USD) from this size up are malformed: no company reports them, and exact
#: arithmetic on them would overflow.
MAX_AMOUNT = Decimal("1e18")

_MILLION_EXP = -6


@dataclass(frozen=True)
class Part:
    """One summand of a rule: the first of ``tags`` with a value, or an earlier column.

    ``optional``: counts as zero when the company reports none of ``tags`` in any period (it
    has no such item); when it reports them for other years only, the rule fails for this
    year rather than silently summing fewer items. ``kind`` overrides the column's kind (a
    change in an instant inside a flow column); ``prior`` reads an instant at the previous
    fiscal year end instead of this one.
    """

    tags: tuple[str, ...] = ()
    column: str | None = None
    sign: int = 1
    optional: bool = False
    kind: Kind | None = None
    prior: bool = False


@dataclass(frozen=True)
class Rule:
    """A signed sum of parts; it gives a value when every required part has one.

    ``unless``: a company-level fallback, skipped for a company that reports any of these tags
    in any period (so one company's years are not mixed from different definitions).
    """

    parts: tuple[Part, ...]
    unless: tuple[str, ...] = ()


@dataclass(frozen=True)
class ColumnRules:
    """How one pack column is found: flow or instant, and its rules in priority order."""

    kind: Kind
    rules: tuple[Rule, ...]


def _tags(*tags: str, optional: bool = False, sign: int = 1) -> Part:
    return Part(tags=tags, optional=optional, sign=sign)


def _one(*tags: str) -> Rule:
    return Rule((_tags(*tags),))


def _sum(*parts: Part, unless: tuple[str, ...] = ()) -> Rule:
    return Rule(parts, unless)


def _col(name: str, sign: int = 1) -> Part:
    return Part(column=name, sign=sign)


_SHORT_TERM_INVESTMENTS = ("MarketableSecuritiesCurrent", "ShortTermInvestments",
                           "AvailableForSaleSecuritiesDebtSecuritiesCurrent")
_CASH_ALL = "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"
_DEBT_NONCURRENT = ("LongTermDebtNoncurrent", "LongTermDebtAndCapitalLeaseObligations")
_PRETAX = (
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
    "IncomeLossFromContinuingOperationsBeforeIncomeTaxes"
    "MinorityInterestAndIncomeLossFromEquityMethodInvestments",
)

#: Per pack column: flow or instant, and the rules tried in order for every fiscal year.
COLUMN_RULES: dict[str, ColumnRules] = {
    "sale": ColumnRules("flow", (
        _one("Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax",
             "SalesRevenueNet", "RevenueFromContractWithCustomerIncludingAssessedTax"),
        _sum(_tags("SalesRevenueGoodsNet"), _tags("SalesRevenueServicesNet", optional=True)),
    )),
    "cogs": ColumnRules("flow", (
        _one("CostOfRevenue", "CostOfGoodsAndServicesSold"),
        _sum(_tags("CostOfGoodsSold"), _tags("CostOfServices", optional=True)),
        _sum(_tags("CostOfServices"),
             unless=("CostOfRevenue", "CostOfGoodsAndServicesSold", "CostOfGoodsSold")),
    )),
    "gp": ColumnRules("flow", (
        _one("GrossProfit"),
        _sum(_col("sale"), _col("cogs", sign=-1)),
    )),
    "xsga": ColumnRules("flow", (
        _sum(_tags("SellingGeneralAndAdministrativeExpense"),
             _tags("ResearchAndDevelopmentExpense", optional=True)),
        _sum(_tags("GeneralAndAdministrativeExpense"),
             _tags("SellingAndMarketingExpense", "MarketingExpense"),
             _tags("ResearchAndDevelopmentExpense", optional=True)),
    )),
    "dp": ColumnRules("flow", (
        _one("DepreciationDepletionAndAmortization", "DepreciationAndAmortization",
             "DepreciationAmortizationAndAccretionNet"),
        _sum(_tags("Depreciation"), _tags("AmortizationOfIntangibleAssets", optional=True),
             unless=("DepreciationDepletionAndAmortization", "DepreciationAndAmortization",
                     "DepreciationAmortizationAndAccretionNet")),
    )),
    "oiadp": ColumnRules("flow", (_one("OperatingIncomeLoss"),)),
    "xint": ColumnRules("flow", (
        _one("InterestExpense", "InterestExpenseNonoperating"),
        _one("InterestExpenseDebt"),
    )),
    "nopi": ColumnRules("flow", (
        _sum(_col("pi"), _col("oiadp", sign=-1), _col("xint")),
    )),
    "pi": ColumnRules("flow", (
        _one(*_PRETAX),
        _sum(_tags("IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic"),
             _tags("IncomeLossFromContinuingOperationsBeforeIncomeTaxesForeign")),
    )),
    "txt": ColumnRules("flow", (_one("IncomeTaxExpenseBenefit"),)),
    "ni": ColumnRules("flow", (
        _one("NetIncomeLoss"),
        _sum(_tags("ProfitLoss"), unless=("NetIncomeLoss",)),
    )),
    "at": ColumnRules("instant", (_one("Assets"), _one("LiabilitiesAndStockholdersEquity"))),
    "act": ColumnRules("instant", (_one("AssetsCurrent"),)),
    "che": ColumnRules("instant", (
        _sum(_tags("CashAndCashEquivalentsAtCarryingValue", "Cash"),
             _tags(*_SHORT_TERM_INVESTMENTS, optional=True)),
        _sum(_tags(_CASH_ALL), _tags(*_SHORT_TERM_INVESTMENTS, optional=True),
             unless=("CashAndCashEquivalentsAtCarryingValue", "Cash")),
    )),
    "lt": ColumnRules("instant", (
        _one("Liabilities"),
        _sum(_tags("LiabilitiesCurrent"), _tags("LiabilitiesNoncurrent")),
        _sum(_tags("LiabilitiesAndStockholdersEquity"),
             _tags("StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
                   "StockholdersEquity", sign=-1)),
    )),
    "lct": ColumnRules("instant", (_one("LiabilitiesCurrent"),)),
    "dltt": ColumnRules("instant", (
        _one(*_DEBT_NONCURRENT),
        _sum(_tags("LongTermDebt"), _tags("LongTermDebtCurrent", sign=-1, optional=True),
             unless=_DEBT_NONCURRENT),
        _sum(_tags("ConvertibleDebtNoncurrent"), unless=_DEBT_NONCURRENT),
    )),
    "seq": ColumnRules("instant", (
        _one("StockholdersEquity"),
        _sum(_tags("StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"),
             unless=("StockholdersEquity",)),
    )),
    "oancf": ColumnRules("flow", (
        _one("NetCashProvidedByUsedInOperatingActivities",
             "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"),
    )),
    "ivncf": ColumnRules("flow", (
        _one("NetCashProvidedByUsedInInvestingActivities",
             "NetCashProvidedByUsedInInvestingActivitiesContinuingOperations"),
    )),
    "fincf": ColumnRules("flow", (
        _one("NetCashProvidedByUsedInFinancingActivities",
             "NetCashProvidedByUsedInFinancingActivitiesContinuingOperations"),
    )),
    "capx": ColumnRules("flow", (
        _one("PaymentsToAcquirePropertyPlantAndEquipment"),
        _one("PaymentsToAcquireProductiveAssets"),
    )),
    "dv": ColumnRules("flow", (_one("PaymentsOfDividends", "PaymentsOfDividendsCommonStock"),)),
    "chech": ColumnRules("flow", (
        _one("CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"
             "PeriodIncreaseDecreaseIncludingExchangeRateEffect",
             "CashAndCashEquivalentsPeriodIncreaseDecrease"),
        _sum(Part(tags=(_CASH_ALL,), kind="instant"),
             Part(tags=(_CASH_ALL,), kind="instant", prior=True, sign=-1)),
        _one("CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"
             "PeriodIncreaseDecreaseExcludingExchangeRateEffect"),
        _sum(Part(tags=("CashAndCashEquivalentsAtCarryingValue",), kind="instant"),
             Part(tags=("CashAndCashEquivalentsAtCarryingValue",), kind="instant", prior=True,
                  sign=-1)),
    )),
}


def _column_tags(name: str, seen: frozenset[str] = frozenset()) -> tuple[str, ...]:
    out: list[str] = []
    for rule in COLUMN_RULES[name].rules:
        for part in rule.parts:
            more = part.tags if part.column is None or part.column in seen else \
                _column_tags(part.column, seen | {name})
            out.extend(tag for tag in more if tag not in out)
    return tuple(out)


#: Per pack column: every us-gaap tag its rules use, in priority order.
COLUMN_TAGS: dict[str, tuple[str, ...]] = {name: _column_tags(name) for name in COLUMN_RULES}


# --- facts ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Fact:
    """A USD fact, normalised: local tag name, period, value in units, and its filing rank."""

    tag: str
    start: date | None
    end: date
    value: Decimal
    rank: tuple[str, str]       # (filed, accession): the larger, the later the filing


def _is_annual(start: date, end: date) -> bool:
    return ANNUAL_DAYS[0] <= (end - start).days <= ANNUAL_DAYS[1]


def fiscal_year_label(end: date) -> int:
    """The fiscal year a period ending on ``end`` is called by (see the module doc)."""
    if end.month == 1 and end.day <= EARLY_JANUARY_DAYS:
        return end.year - 1
    return end.year


def _decimal(raw: Any) -> Decimal:
    if isinstance(raw, bool):
        raise ValueError(f"not a number: {raw!r}")
    if isinstance(raw, int | Decimal):
        return Decimal(raw)
    if isinstance(raw, float):
        return Decimal(repr(raw))
    return Decimal(str(raw))


def to_millions(value: Decimal) -> Decimal:
    """``value`` (USD) in USD millions, exactly; integral results have no decimal places."""
    out = value.scaleb(_MILLION_EXP)
    if out == out.to_integral_value():
        return out.quantize(Decimal(1))
    return out.normalize()


class _Malformed(ValueError):
    """A companyfacts entry that is not understood; the message says which field and why."""


def _shown(raw: Any) -> str:
    text = repr(raw)
    return text if len(text) <= 40 else text[:37] + "..."


def _row_date(row: Mapping[str, Any], key: str) -> date:
    raw = row.get(key)
    try:
        day = date.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        day = None
    if day is None:
        raise _Malformed(f"{key} {_shown(raw)} is not a date")
    if not PLAUSIBLE_YEARS[0] <= day.year <= PLAUSIBLE_YEARS[1]:
        raise _Malformed(f"{key} {raw} is not a plausible date")
    return day


def _amount(raw: Any) -> Decimal:
    try:
        value = _decimal(raw)
    except (ValueError, ArithmeticError):
        raise _Malformed(f"val {_shown(raw)} is not a number") from None
    if not value.is_finite() or abs(value) >= MAX_AMOUNT:
        raise _Malformed(f"val {_shown(raw)} is not a finite amount below {MAX_AMOUNT} USD")
    return value


def _row_fact(tag: str, row: Mapping[str, Any]) -> _Fact:
    """One companyfacts row as a fact; raises :class:`_Malformed`."""
    end = _row_date(row, "end")
    start = _row_date(row, "start") if row.get("start") else None
    if start is not None and start > end:
        raise _Malformed(f"end {end} is before start {start}")
    return _Fact(tag, start, end, _amount(row.get("val")),
                 (str(row.get("filed", "")), str(row.get("accn", ""))))


def _usd_rows(tag: str, body: Any) -> list[Any]:
    """The USD rows of one tag (none when it has no USD unit); raises :class:`_Malformed`."""
    where = f"facts.us-gaap.{tag}"
    if not isinstance(body, Mapping):
        raise _Malformed(f"{where} is not an object")
    units = body.get("units")
    if not isinstance(units, Mapping):
        raise _Malformed(f"{where}.units is not an object")
    rows = units.get("USD", [])
    if not isinstance(rows, list):
        raise _Malformed(f"{where}.units.USD is not a list")
    return rows


def _companyfacts_facts(data: Mapping[str, Any], problems: list[str],
                        malformed: list[str]) -> list[_Fact]:
    facts = data.get("facts")
    if not isinstance(facts, Mapping):
        malformed.append("'facts' is not an object")
        return []
    gaap = facts.get("us-gaap")
    if gaap is not None and not isinstance(gaap, Mapping):
        malformed.append("facts.us-gaap is not an object")
        return []
    if not gaap:
        problems.append("companyfacts: no us-gaap facts")
        return []
    out: list[_Fact] = []
    bad: list[str] = []
    for tag, body in gaap.items():
        try:
            rows = _usd_rows(tag, body)
        except _Malformed as exc:
            bad.append(str(exc))
            continue
        for index, row in enumerate(rows):
            if not isinstance(row, Mapping):
                bad.append(f"facts.us-gaap.{tag}.units.USD[{index}] is not an object")
                continue
            form = row.get("form")
            if not isinstance(form, str):
                bad.append(f"facts.us-gaap.{tag}.units.USD[{index}]: form {_shown(form)} is "
                           "not a text")
                continue
            if form not in ANNUAL_FORMS:
                continue
            try:
                fact = _row_fact(tag, row)
            except _Malformed as exc:
                bad.append(f"facts.us-gaap.{tag}.units.USD[{index}]: {exc}")
                continue
            if fact.start is None or _is_annual(fact.start, fact.end):
                out.append(fact)
    if bad:
        malformed.append(f"skipped {len(bad)} malformed 10-K fact(s), e.g. {bad[0]}")
    return out


def _xbrl_facts(facts: Iterable[XbrlFact]) -> list[_Fact]:
    out: list[_Fact] = []
    for fact in facts:
        prefix, _, local = fact.name.rpartition(":")
        if prefix != "us-gaap" or fact.unit != "USD":
            continue
        if fact.start is not None and not _is_annual(fact.start, fact.end):
            continue
        out.append(_Fact(local, fact.start, fact.end, fact.value, ("", "")))
    return out


# --- fiscal years --------------------------------------------------------------------------

@dataclass(frozen=True)
class _Year:
    end: date
    start: date                 # the (most common) start of the year's annual flows


def _fiscal_years(facts: Sequence[_Fact], years: Sequence[int],
                  problems: list[str]) -> dict[int, _Year]:
    """Fiscal year -> its end (and start), from the end dates of the annual flows."""
    periods: dict[int, Counter[tuple[date, date]]] = defaultdict(Counter)
    for fact in facts:
        if fact.start is not None:
            periods[fiscal_year_label(fact.end)][(fact.start, fact.end)] += 1
    found: dict[int, _Year] = {}
    for label, counts in periods.items():
        by_end: Counter[date] = Counter()
        for (_, end), n in counts.items():
            by_end[end] += n
        end = _most_common(by_end)
        start = _most_common(Counter({s: n for (s, e), n in counts.items() if e == end}))
        found[label] = _Year(end, start)
        if len(by_end) > 1 and label in years:
            others = ", ".join(str(d) for d in sorted(by_end) if d != end)
            problems.append(f"FY{label}: annual periods also end on {others}; "
                            f"used the most common end, {end}")
    return found


def _most_common(counts: Counter[date]) -> date:
    return max(counts, key=lambda d: (counts[d], d))


# --- evaluation ----------------------------------------------------------------------------

class _Book:
    """The facts of one company, indexed for per-period look-ups."""

    def __init__(self, facts: Sequence[_Fact], fiscal: Mapping[int, _Year]) -> None:
        self.fiscal = fiscal
        self.flows: dict[tuple[str, date], list[_Fact]] = defaultdict(list)
        self.instants: dict[str, dict[date, list[_Fact]]] = defaultdict(lambda: defaultdict(list))
        for fact in facts:
            if fact.start is None:
                self.instants[fact.tag][fact.end].append(fact)
            else:
                self.flows[(fact.tag, fact.end)].append(fact)
        self.present = frozenset(fact.tag for fact in facts)
        self.conflicts: list[str] = []

    def _instant_date(self, year: int, prior: bool) -> date | None:
        fy = self.fiscal.get(year)
        if fy is None:
            return None
        return fy.start - timedelta(days=1) if prior else fy.end

    def candidates(self, tag: str, year: int, kind: Kind, prior: bool) -> list[_Fact]:
        """The facts of ``tag`` for the fiscal year (annual flow or year-end instant)."""
        if kind == "flow":
            fy = self.fiscal.get(year)
            return self.flows.get((tag, fy.end), []) if fy else []
        target = self._instant_date(year, prior)
        by_date = self.instants.get(tag)
        if target is None or not by_date:
            return []
        if target in by_date:
            return by_date[target]
        near = [d for d in by_date if abs((d - target).days) <= INSTANT_TOLERANCE_DAYS]
        if not near:
            return []
        return by_date[min(near, key=lambda d: (abs((d - target).days), d))]

    def pick(self, tags: Sequence[str], year: int, kind: Kind,
             prior: bool) -> tuple[str, Decimal] | None:
        """Latest filing wins among ``tags``; within one filing, the earlier tag wins."""
        best: tuple[tuple[str, str], int, str, _Fact] | None = None
        for index, tag in enumerate(tags):
            for fact in self.candidates(tag, year, kind, prior):
                key = (fact.rank, -index)
                if best is None or key > (best[0], best[1]):
                    best = (fact.rank, -index, tag, fact)
        if best is None:
            return None
        _, _, tag, fact = best
        rivals = {f.value for f in self.candidates(tag, year, kind, prior) if f.rank == fact.rank}
        if len(rivals) > 1:
            self.conflicts.append(
                f"{tag}: FY{year} has {len(rivals)} different values in one filing "
                f"({', '.join(str(to_millions(v)) for v in sorted(rivals))} USD millions); "
                f"used {to_millions(fact.value)}")
        return tag, fact.value


@dataclass(frozen=True)
class _Value:
    value: Decimal
    source: str                 # the tag formula that gave it
    compound: bool              # more than one term (needs brackets inside another formula)


class _Evaluator:
    def __init__(self, book: _Book) -> None:
        self.book = book
        self.memo: dict[tuple[str, int], _Value | None] = {}

    def column(self, name: str, year: int, stack: tuple[str, ...] = ()) -> _Value | None:
        key = (name, year)
        if key not in self.memo:
            if name in stack:
                raise ValueError(f"column rules refer to each other: {' -> '.join(stack)}")
            spec = COLUMN_RULES[name]
            found = None
            for rule in spec.rules:
                found = self._rule(rule, spec.kind, year, (*stack, name))
                if found is not None:
                    break
            self.memo[key] = found
        return self.memo[key]

    def _rule(self, rule: Rule, kind: Kind, year: int, stack: tuple[str, ...]) -> _Value | None:
        if any(tag in self.book.present for tag in rule.unless):
            return None
        total = Decimal(0)
        terms: list[tuple[int, str]] = []
        for part in rule.parts:
            got = self._part(part, kind, year, stack)
            if got is None:
                if part.optional and not any(tag in self.book.present for tag in part.tags):
                    continue
                return None
            value, source = got
            total += part.sign * value
            terms.append((part.sign, source))
        if not terms:
            return None
        return _Value(total, _formula(terms), len(terms) > 1)

    def _part(self, part: Part, kind: Kind, year: int,
              stack: tuple[str, ...]) -> tuple[Decimal, str] | None:
        if part.column is not None:
            ref = self.column(part.column, year, stack)
            if ref is None:
                return None
            return ref.value, f"({ref.source})" if ref.compound else ref.source
        picked = self.book.pick(part.tags, year, part.kind or kind, part.prior)
        if picked is None:
            return None
        tag, value = picked
        return value, f"{tag}(prior year end)" if part.prior else tag


def _formula(terms: Sequence[tuple[int, str]]) -> str:
    out = ""
    for index, (sign, source) in enumerate(terms):
        if index == 0:
            out = source if sign > 0 else f"-{source}"
        else:
            out += f" {'+' if sign > 0 else '-'} {source}"
    return out


def _figures(facts: Sequence[_Fact], years: Sequence[int], origin: str,
             problems: list[str]) -> CompanyFigures:
    wanted = sorted(set(years))
    fiscal = _fiscal_years(facts, wanted, problems)
    book = _Book(facts, fiscal)
    evaluator = _Evaluator(book)
    figures = CompanyFigures(origin=origin, problems=problems)
    for year in wanted:
        if year not in fiscal:
            problems.append(f"FY{year}: no annual 10-K figures (fiscal year end unknown)")
            continue
        figures.period_ends[year] = fiscal[year].end
        for name in COLUMN_RULES:
            got = evaluator.column(name, year)
            if got is None:
                problems.append(f"{name}: no value for FY{year} "
                                f"(tags tried: {', '.join(COLUMN_TAGS[name])})")
                continue
            figures.values.setdefault(name, {})[year] = to_millions(got.value)
            figures.tags.setdefault(name, {})[year] = got.source
    problems.extend(dict.fromkeys(book.conflicts))
    return figures


def companyfacts_figures(data: Mapping[str, Any], years: Sequence[int]) -> CompanyFigures:
    """The pack columns for ``years`` from a companyfacts response (already JSON-decoded).

    Entries that are not understood (a tag or row of the wrong type, a value that is not a
    finite number, a malformed or implausible date, an end before its start) are skipped and
    summarised in ``malformed``, naming the first one's field.
    """
    problems: list[str] = []
    malformed: list[str] = []
    facts = _companyfacts_facts(data, problems, malformed)
    figures = _figures(facts, years, "companyfacts", problems)
    figures.malformed = malformed
    return figures


def xbrl_figures(facts: Sequence[XbrlFact], years: Sequence[int]) -> CompanyFigures:
    """The pack columns for ``years`` from the inline XBRL facts of one 10-K.

    A 10-K tags three years of flows and two balance-sheet dates, so earlier years come back
    partly or wholly missing (each gap is listed in ``problems``).
    """
    return _figures(_xbrl_facts(facts), years, "inline-xbrl", [])
