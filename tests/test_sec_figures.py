"""Compustat-like annual figures from SEC XBRL (companyfacts JSON and inline XBRL facts)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from hopvista.domain import DomainPack
from hopvista.sources.sec.figures import (
    COLUMN_RULES,
    COLUMN_TAGS,
    companyfacts_figures,
    fiscal_year_label,
    to_millions,
    xbrl_figures,
)
from hopvista.sources.sec.model import CompanyFigures, XbrlFact

FIXTURES = Path(__file__).parent / "fixtures" / "sec"
D = Decimal


def _fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def _companyfacts(sec_data: Path, cik: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((sec_data / "companyfacts" / f"CIK{cik}.json").read_text())
    return data


def _missing(figures: CompanyFigures, years: range) -> set[tuple[str, int]]:
    return {(c, y) for c in COLUMN_RULES for y in years if y not in figures.values.get(c, {})}


# --- the mapping itself ----------------------------------------------------------------------

def test_every_pack_column_has_rules_and_tags(pack: DomainPack) -> None:
    keys = [c.key for c in pack.spec.columns]
    assert list(COLUMN_RULES) == keys
    assert list(COLUMN_TAGS) == keys
    for key in keys:
        assert COLUMN_TAGS[key], key
        assert COLUMN_RULES[key].kind in ("flow", "instant")
    assert {k for k in keys if COLUMN_RULES[k].kind == "instant"} == \
        {"at", "act", "che", "lt", "lct", "dltt", "seq"}
    assert COLUMN_TAGS["sale"][:2] == ("Revenues",
                                       "RevenueFromContractWithCustomerExcludingAssessedTax")


def test_millions_are_exact_decimals() -> None:
    assert to_millions(D(391035000000)) == D(391035)
    assert str(to_millions(D(391035000000))) == "391035"
    assert str(to_millions(D(3626396000))) == "3626.396"
    assert str(to_millions(D(-1))) == "-0.000001"


def test_fiscal_years_are_labelled_by_their_end() -> None:
    assert fiscal_year_label(date(2025, 1, 26)) == 2025       # NVDA: FY2025
    assert fiscal_year_label(date(2024, 9, 28)) == 2024
    assert fiscal_year_label(date(2022, 1, 1)) == 2021        # 52/53 weeks closest to Dec 31
    assert fiscal_year_label(date(2021, 1, 8)) == 2021


# --- constructed fixtures --------------------------------------------------------------------

def test_the_latest_filed_10k_wins_a_restatement() -> None:
    figures = companyfacts_figures(_fixture("companyfacts_restatement.json"), [2022, 2023])
    assert figures.origin == "companyfacts"
    assert figures.values["sale"] == {2022: D(1100), 2023: D(1300)}   # not the 10-Q's 9999
    assert figures.values["ni"] == {2022: D(150), 2023: D(190)}       # the 10-K/A
    assert figures.values["at"] == {2022: D(4900), 2023: D(5200)}     # not the 10-Q's 7777
    assert figures.period_ends == {2022: date(2022, 12, 31), 2023: date(2023, 12, 31)}
    assert figures.tags["sale"] == {2022: "Revenues", 2023: "Revenues"}


def test_tag_changes_are_followed_per_period() -> None:
    figures = companyfacts_figures(_fixture("companyfacts_tag_change.json"), [2017, 2018, 2019])
    # FY2017: SalesRevenueNet (filed 2017) loses to the same figure re-tagged in the FY2018
    # 10-K; FY2018: the FY2019 10-K re-tagged it again; FY2019: Revenues and
    # RevenueFromContract... in one filing: the earlier tag in the priority list wins.
    assert figures.values["sale"] == {2017: D(229234), 2018: D(265595), 2019: D(260200)}
    assert figures.tags["sale"] == {
        2017: "Revenues", 2018: "RevenueFromContractWithCustomerExcludingAssessedTax",
        2019: "Revenues"}
    assert figures.values["capx"] == {2017: D(12451), 2018: D(13313), 2019: D(10495)}
    assert figures.tags["capx"][2019] == "PaymentsToAcquireProductiveAssets"
    assert figures.values["xsga"] == {2017: D(15261 + 11581), 2018: D(16705 + 14236),
                                      2019: D(8000 + 10245 + 16217)}
    assert figures.tags["xsga"][2017] == \
        "SellingGeneralAndAdministrativeExpense + ResearchAndDevelopmentExpense"
    assert figures.tags["xsga"][2019] == ("GeneralAndAdministrativeExpense + "
                                          "SellingAndMarketingExpense + "
                                          "ResearchAndDevelopmentExpense")
    assert figures.period_ends[2017] == date(2017, 9, 30)              # a 53-week year


def test_only_annual_10k_periods_count() -> None:
    figures = companyfacts_figures(_fixture("companyfacts_periods.json"), [2021, 2022, 2023])
    # the 53-week FY2023 (370 days) is kept; its Q4, a two-year span and all 10-Q facts are not
    assert figures.values["sale"] == {2022: D(394328), 2023: D(383285)}
    assert figures.values["ni"] == {2022: D(99803), 2023: D(96995)}
    assert figures.values["at"] == {2022: D(352755), 2023: D(352583)}
    assert figures.period_ends == {2022: date(2022, 9, 24), 2023: date(2023, 9, 30)}
    # the change in cash comes from the balances at this and the previous year end
    assert figures.values["chech"] == {2022: D(24977 - 35929), 2023: D(30737 - 24977)}
    assert "FY2021: no annual 10-K figures (fiscal year end unknown)" in figures.problems
    assert any(p.startswith("capx: no value for FY2023 (tags tried: "
                            "PaymentsToAcquirePropertyPlantAndEquipment, "
                            "PaymentsToAcquireProductiveAssets)") for p in figures.problems)


def test_composites_do_not_mix_definitions_within_a_company() -> None:
    def flow(tag: str, val: int, end: str, start: str, filed: str = "2024-02-01") -> Any:
        return tag, {"start": start, "end": end, "val": val * 10**6, "accn": "a", "fy": 2023,
                     "fp": "FY", "form": "10-K", "filed": filed}

    def instant(tag: str, val: int, end: str) -> Any:
        return tag, {"end": end, "val": val * 10**6, "accn": "a", "fy": 2023, "fp": "FY",
                     "form": "10-K", "filed": "2024-02-01"}

    rows = [flow("Revenues", 100, "2022-12-31", "2022-01-01"),
            flow("Revenues", 120, "2023-12-31", "2023-01-01"),
            flow("SellingGeneralAndAdministrativeExpense", 30, "2022-12-31", "2022-01-01"),
            flow("SellingGeneralAndAdministrativeExpense", 31, "2023-12-31", "2023-01-01"),
            flow("ResearchAndDevelopmentExpense", 10, "2023-12-31", "2023-01-01"),
            instant("CashAndCashEquivalentsAtCarryingValue", 50, "2023-12-31"),
            instant("MarketableSecuritiesCurrent", 5, "2023-12-31"),
            instant("CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents", 40,
                    "2022-12-31")]
    us_gaap: dict[str, Any] = {}
    for tag, row in rows:
        us_gaap.setdefault(tag, {"units": {"USD": []}})["units"]["USD"].append(row)
    figures = companyfacts_figures({"facts": {"us-gaap": us_gaap}}, [2022, 2023])
    # R&D is reported for 2023 only: 2022 is missing rather than SG&A without R&D
    assert figures.values["xsga"] == {2023: D(41)}
    # cash+securities at the 2023 year end; in 2022 only the cash-flow total exists, which a
    # company that tags its balance-sheet cash does not get as a stand-in
    assert figures.values["che"] == {2023: D(55)}


def test_conflicting_values_in_one_filing_are_reported() -> None:
    rows = [{"start": "2023-01-01", "end": "2023-12-31", "val": val, "accn": "a", "fy": 2023,
             "fp": "FY", "form": "10-K", "filed": "2024-02-01"} for val in (5 * 10**6, 6 * 10**6)]
    data = {"facts": {"us-gaap": {"Revenues": {"units": {"USD": rows}}}}}
    figures = companyfacts_figures(data, [2023])
    assert figures.values["sale"] == {2023: D(5)}
    assert "Revenues: FY2023 has 2 different values in one filing (5, 6 USD millions); used 5" \
        in figures.problems


def test_early_january_year_ends_belong_to_the_year_before() -> None:
    rows = []
    for start, end, val in (("2020-12-27", "2022-01-01", 53), ("2022-01-02", "2022-12-31", 52)):
        rows.append({"start": start, "end": end, "val": val, "accn": "a", "fy": 2022, "fp": "FY",
                     "form": "10-K", "filed": "2023-02-01"})
    data = {"facts": {"us-gaap": {"Revenues": {"units": {"USD": rows}}}}}
    figures = companyfacts_figures(data, [2021, 2022])
    assert figures.period_ends == {2021: date(2022, 1, 1), 2022: date(2022, 12, 31)}


def test_inline_xbrl_facts_of_one_10k() -> None:
    def flow(name: str, val: int, year: int, unit: str = "USD") -> XbrlFact:
        end = date(year, 9, 28) - timedelta(days=7 * (2024 - year))
        return XbrlFact(name, D(val) * 10**6, unit, end - timedelta(days=363), end)

    def instant(name: str, val: int, end: date) -> XbrlFact:
        return XbrlFact(name, D(val) * 10**6, "USD", None, end)

    ends = {y: date(y, 9, 28) - timedelta(days=7 * (2024 - y)) for y in (2021, 2022, 2023, 2024)}
    facts = [flow("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", v, y)
             for y, v in ((2022, 394328), (2023, 383285), (2024, 391035))]
    facts += [flow("us-gaap:NetIncomeLoss", 93736, 2024), flow("aapl:Custom", 1, 2024),
              flow("us-gaap:EarningsPerShareBasic", 6, 2024, unit="USD/shares"),
              instant("us-gaap:Assets", 364980, ends[2024]),
              instant("us-gaap:Assets", 352583, ends[2023]),
              instant("us-gaap:CashAndCashEquivalentsAtCarryingValue", 29943, ends[2024]),
              instant("us-gaap:CashAndCashEquivalentsAtCarryingValue", 29965, ends[2023])]
    cash_all = "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"
    facts += [instant(cash_all, v, ends[y])
              for y, v in ((2021, 24977), (2022, 24977), (2023, 30737), (2024, 29943))]
    figures = xbrl_figures(facts, [2022, 2023, 2024])
    assert figures.origin == "inline-xbrl"
    assert figures.values["sale"] == {2022: D(394328), 2023: D(383285), 2024: D(391035)}
    assert figures.values["ni"] == {2024: D(93736)}
    assert figures.values["at"] == {2023: D(352583), 2024: D(364980)}
    assert figures.values["che"] == {2023: D(29965), 2024: D(29943)}
    assert figures.values["chech"] == {2022: D(0), 2023: D(5760), 2024: D(-794)}
    assert "at: no value for FY2022 (tags tried: Assets, LiabilitiesAndStockholdersEquity)" \
        in figures.problems


# --- the real SEC files (HOPVISTA_SEC_DATA) --------------------------------------------------

AAPL, NVDA, GOOGL, SNOW = "0000320193", "0001045810", "0001652044", "0001640147"


def test_aapl_fy2024(sec_data: Path) -> None:
    figures = companyfacts_figures(_companyfacts(sec_data, AAPL), range(2020, 2025))
    assert figures.values["sale"][2024] == D(391035)
    assert figures.values["ni"][2024] == D(93736)
    assert figures.period_ends[2024] == date(2024, 9, 28)
    assert figures.tags["sale"][2024] == "RevenueFromContractWithCustomerExcludingAssessedTax"
    assert figures.values["che"][2024] == D(29943 + 35228)
    assert figures.values["capx"][2024] == D(9447) and figures.values["dv"][2024] == D(15234)
    assert figures.values["ivncf"][2024] == D(2935) and figures.values["fincf"][2024] < 0


def test_googl_revenue_tag_switch(sec_data: Path) -> None:
    figures = companyfacts_figures(_companyfacts(sec_data, GOOGL), range(2020, 2025))
    assert figures.values["sale"] == {2020: D(182527), 2021: D(257637), 2022: D(282836),
                                      2023: D(307394), 2024: D(350018)}
    assert set(figures.tags["sale"].values()) == {
        "Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax"}
    # no total SG&A tag: G&A + S&M (+ R&D, as Compustat's XSGA)
    assert figures.tags["xsga"][2024] == ("GeneralAndAdministrativeExpense + "
                                          "SellingAndMarketingExpense + "
                                          "ResearchAndDevelopmentExpense")


def test_nvda_fiscal_years_end_in_january(sec_data: Path) -> None:
    data = _companyfacts(sec_data, NVDA)
    figures = companyfacts_figures(data, range(2021, 2026))
    assert figures.values["sale"][2025] == D(130497)
    assert figures.period_ends[2025] == date(2025, 1, 26)
    assert figures.period_ends[2021] == date(2021, 1, 31)
    # the FY2025 revenue was also filed in the FY2026 10-K, whose "fy" says 2026
    fys = {row["fy"] for row in data["facts"]["us-gaap"]["Revenues"]["units"]["USD"]
           if row["end"] == "2025-01-26" and row["form"] == "10-K"}
    assert 2026 in fys
    assert 2021 not in figures.values["capx"]
    assert any(p.startswith("capx: no value for FY2021 (tags tried: "
                            "PaymentsToAcquirePropertyPlantAndEquipment")
               for p in figures.problems)
    assert figures.tags["capx"][2022] == "PaymentsToAcquireProductiveAssets"


def test_snow_fy2025(sec_data: Path) -> None:
    figures = companyfacts_figures(_companyfacts(sec_data, SNOW), range(2021, 2026))
    assert figures.values["sale"][2025] == D("3626.396")
    assert round(figures.values["sale"][2025]) == 3626
    assert figures.values["ni"][2025] < 0
    assert figures.values["dltt"] == {2024: D(0), 2025: D("2271.529")}


#: Columns genuinely untagged in the stored (tag-trimmed) companyfacts, FY2020-2024.
EXPECTED_MISSING = {
    # Apple tags no interest expense after its FY2023 10-K, so nopi (which adds it back) too
    AAPL: {("xint", 2024), ("nopi", 2024)},
    # no D&A tag for 2020; no dividends before 2024 (2022-23 are tagged 0); 2024 interest
    # expense is InterestExpenseNonoperating, a tag the stored file does not carry
    GOOGL: {("dp", 2020), ("dv", 2020), ("dv", 2021), ("xint", 2024), ("nopi", 2024)},
}


@pytest.mark.parametrize("cik", [AAPL, GOOGL])
def test_every_column_is_present_unless_untagged(sec_data: Path, cik: str) -> None:
    years = range(2020, 2025)
    figures = companyfacts_figures(_companyfacts(sec_data, cik), years)
    assert _missing(figures, years) == EXPECTED_MISSING[cik]
    for column, year in EXPECTED_MISSING[cik]:
        assert any(p.startswith(f"{column}: no value for FY{year} (tags tried: ")
                   for p in figures.problems)
    assert len(figures.problems) == len(EXPECTED_MISSING[cik])


@pytest.mark.parametrize("cik, years", [(AAPL, range(2020, 2025)), (GOOGL, range(2020, 2025)),
                                        (NVDA, range(2021, 2026))])
def test_real_figures_satisfy_the_reporting_identities(sec_data: Path, cik: str,
                                                       years: range) -> None:
    v = companyfacts_figures(_companyfacts(sec_data, cik), years).values
    for y in years:
        assert v["gp"][y] == v["sale"][y] - v["cogs"][y]
        assert v["at"][y] == v["lt"][y] + v["seq"][y]
        assert v["ni"][y] == v["pi"][y] - v["txt"][y]
        if y in v["xint"]:
            assert v["pi"][y] == v["oiadp"][y] + v["nopi"][y] - v["xint"][y]
        if cik != GOOGL:                       # GOOGL's change in cash includes FX effects
            assert v["chech"][y] == v["oancf"][y] + v["ivncf"][y] + v["fincf"][y]


def test_inline_xbrl_agrees_with_companyfacts(sec_data: Path) -> None:
    try:
        from hopvista.sources.sec.filings import read_filing
    except ImportError:
        pytest.skip("no inline XBRL reader (hopvista.sources.sec.filings)")
    path = (sec_data / "filings" / "sec-edgar-filings" / "AAPL" / "10-K" /
            "0000320193-24-000123" / "primary-document.html")
    filing = read_filing(path)
    years = [2022, 2023, 2024]
    inline = xbrl_figures(filing.facts, years)
    facts = companyfacts_figures(_companyfacts(sec_data, AAPL), years)
    assert inline.values["sale"][2024] == D(391035) and inline.values["ni"][2024] == D(93736)
    assert inline.period_ends == facts.period_ends
    for column, by_year in inline.values.items():
        for year, value in by_year.items():
            assert facts.values[column][year] == value, (column, year)
    # one 10-K: three years of flows, two balance-sheet dates
    assert 2022 not in inline.values["at"] and 2023 in inline.values["at"]
