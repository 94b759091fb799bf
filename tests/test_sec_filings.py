"""The 10-K reader: real filings (HOPVISTA_SEC_DATA), hand-written fixtures, chunks, boilerplate."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from hopvista.sources.sec.filings import (
    MIN_PARAGRAPH,
    chunk_paragraphs,
    find_filings,
    is_boilerplate,
    read_filing,
)
from hopvista.sources.sec.model import ITEMS, Filing, FilingError, XbrlFact

FIXTURES = Path(__file__).parent / "fixtures" / "sec" / "reader"
TREE = FIXTURES / "sec-edgar-filings"
TINY = TREE / "TINY" / "10-K" / "0000000001-24-000001" / "primary-document.html"
NO_MDNA = TREE / "NOMD" / "10-K" / "0000000003-24-000003" / "primary-document.html"
MALFORMED = TREE / "0000000002" / "10-K" / "0000000002-24-000002" / "full-submission.txt"
PLAIN_TEXT = TREE / "0000000004" / "10-K" / "0000000004-01-000004" / "full-submission.txt"

AAPL_2024 = "AAPL/10-K/0000320193-24-000123/primary-document.html"
TGFIN = "0000876134/10-K/0001010412-10-000078/full-submission.txt"
PRIMARY_DOCUMENTS = [
    "AAPL/10-K/0000320193-24-000123", "AAPL/10-K/0000320193-25-000079",
    "AMZN/10-K/0001018724-25-000004", "GOOGL/10-K/0001652044-25-000014",
    "HD/10-K/0000354950-25-000085", "META/10-K/0001326801-25-000017",
    "NFLX/10-K/0001065280-25-000044", "NVDA/10-K/0001045810-23-000017",
    "NVDA/10-K/0001045810-25-000023", "WMT/10-K/0000104169-25-000021",
]
TOC_LINE = re.compile(r"^items?\s+\d{1,2}[a-c]?\b", re.I)


def text_of(filing: Filing, item: str) -> str:
    return "\n".join(filing.sections.get(item, []))


# --------------------------------------------------------------------------------------------
# Real filings (skipped without HOPVISTA_SEC_DATA)


@pytest.fixture(scope="module")
def filings_root(sec_data: Path) -> Path:
    return sec_data / "filings" / "sec-edgar-filings"


@pytest.fixture(scope="module")
def aapl(filings_root: Path) -> Filing:
    return read_filing(filings_root / AAPL_2024)


def test_find_filings_real_tree(sec_data: Path, filings_root: Path) -> None:
    found = find_filings(filings_root)
    assert len(found) == 11
    assert found == sorted(found)
    assert [p.name for p in found].count("full-submission.txt") == 1
    assert filings_root / TGFIN in found
    assert find_filings(sec_data) == found                 # shared/data/sec
    assert find_filings(sec_data / "filings") == found     # the folder holding sec-edgar-filings


def test_aapl_2024_metadata(aapl: Filing) -> None:
    assert (aapl.cik, aapl.ticker, aapl.name) == ("0000320193", "AAPL", "Apple Inc.")
    assert aapl.period_end == date(2024, 9, 28)
    assert aapl.fiscal_year == 2024
    assert (aapl.folder, aapl.accession) == ("AAPL", "0000320193-24-000123")
    assert aapl.problems == []


def test_aapl_2024_items(aapl: Filing) -> None:
    assert list(aapl.sections) == list(ITEMS)
    assert all(len(aapl.sections[item]) >= 3 for item in ITEMS)
    assert "iPhone" in text_of(aapl, "1")
    assert "net sales" in text_of(aapl, "7")
    assert "Epic" in text_of(aapl, "3")
    assert "interest rate" in text_of(aapl, "7A")
    assert "We have audited" in text_of(aapl, "8")
    for item in ITEMS:
        for paragraph in aapl.sections[item]:
            assert len(paragraph) >= MIN_PARAGRAPH
            assert not TOC_LINE.match(paragraph), paragraph           # no TOC / heading lines
            assert paragraph == " ".join(paragraph.split())          # whitespace normalised
            assert "&#" not in paragraph and "&amp;" not in paragraph and "\xa0" not in paragraph
            assert "Form 10-K |" not in paragraph                     # running footers
    business = text_of(aapl, "1")
    # Item 1 stops where Item 1A (Risk Factors) starts
    assert "can be affected by a number of factors" not in business
    assert "Macroeconomic and Industry Risks" not in business
    # Item 7 stops where 7A starts, 7A where 8 starts
    assert "value-at-risk" not in text_of(aapl, "7")
    assert "value-at-risk" in text_of(aapl, "7A")
    assert "We have audited" not in text_of(aapl, "7A")


def test_aapl_2024_inline_xbrl(aapl: Filing) -> None:
    year = (date(2023, 10, 1), date(2024, 9, 28))

    def values(name: str) -> list[Decimal]:
        return [f.value for f in aapl.facts
                if f.name == name and (f.start, f.end) == year and f.unit == "USD"]

    # one value each: the dimensional facts (iPhone, Mac, Americas, …) are left out
    assert values("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax") == [
        Decimal(391_035_000_000)]
    assert values("us-gaap:NetIncomeLoss") == [Decimal(93_736_000_000)]
    assert Decimal(201_183_000_000) not in {f.value for f in aapl.facts}   # iPhone net sales
    eps = [f for f in aapl.facts if f.name == "us-gaap:EarningsPerShareDiluted"
           and f.end == year[1]]
    assert [(f.value, f.unit) for f in eps] == [(Decimal("6.08"), "USD/shares")]
    shares = [f for f in aapl.facts if f.name == "dei:EntityCommonStockSharesOutstanding"]
    assert shares and shares[0].unit == "shares" and shares[0].start is None
    keys = Counter((f.name, f.unit, f.start, f.end) for f in aapl.facts)
    assert max(keys.values()) == 1                                           # deduplicated
    assert any(f.value < 0 for f in aapl.facts)                              # sign="-" applied


def test_aapl_2024_facts_agree_with_companyfacts(sec_data: Path, aapl: Filing) -> None:
    facts = json.loads((sec_data / "companyfacts" / "CIK0000320193.json").read_text())["facts"]
    compared = 0
    for fact in aapl.facts:
        prefix, tag = fact.name.split(":")
        for unit, rows in facts.get(prefix, {}).get(tag, {}).get("units", {}).items():
            for row in rows:
                if (row["accn"] == aapl.accession and row["end"] == fact.end.isoformat()
                        and row.get("start") == (fact.start.isoformat() if fact.start else None)):
                    assert (unit, Decimal(str(row["val"]))) == (fact.unit, fact.value), fact
                    compared += 1
    assert compared >= 100


@pytest.mark.slow
@pytest.mark.parametrize("accession", PRIMARY_DOCUMENTS)
def test_every_primary_document_has_all_items(filings_root: Path, accession: str) -> None:
    path = filings_root / accession / "primary-document.html"
    filing = read_filing(path)
    missing = [item for item in ITEMS if not filing.sections.get(item)]
    assert missing == [], f"{accession}: items without paragraphs {missing}; {filing.problems}"
    assert filing.problems == []
    assert filing.cik and filing.name and filing.ticker == accession.split("/")[0]
    assert filing.period_end is not None and filing.fiscal_year == filing.period_end.year
    assert len(filing.facts) > 100
    for paragraphs in filing.sections.values():
        assert not any(TOC_LINE.match(p) for p in paragraphs)
    # an item ends where the next one starts: no item repeats another's opening paragraph
    openings = [filing.sections[item][0] for item in ITEMS]
    assert len(set(openings)) == len(openings)


def test_sgml_full_submission(filings_root: Path) -> None:
    filing = read_filing(filings_root / TGFIN)
    assert filing.name == "TGFIN HOLDINGS INC"
    assert filing.cik == "0000876134"
    assert filing.period_end == date(2009, 12, 31) and filing.fiscal_year == 2009
    assert (filing.folder, filing.accession) == ("0000876134", "0001010412-10-000078")
    assert filing.ticker is None and filing.facts == []
    assert list(filing.sections) == list(ITEMS)
    assert "TradinGear" in text_of(filing, "1")
    assert "legal" in text_of(filing, "3")
    assert "Operating costs" in text_of(filing, "7")
    assert filing.sections["7A"] == ["Not required for smaller reporting companies."]
    assert "We have audited" in text_of(filing, "8")
    # the 10-K is the first of 4 documents; the certifications (EX-31/32) are not read
    assert "302 CERTIFICATION" not in text_of(filing, "8")
    # lines printed one per <p> are rejoined into paragraphs
    assert any(p.startswith("The Registrant consists of TGFIN Holdings") and len(p) > 300
               for p in filing.sections["1"])


# --------------------------------------------------------------------------------------------
# Hand-written fixtures


def test_find_filings_fixture_tree() -> None:
    found = find_filings(FIXTURES)
    assert found == sorted([TINY, NO_MDNA, MALFORMED, PLAIN_TEXT])  # TINY's html beats its txt
    assert find_filings(TREE) == found
    assert find_filings(FIXTURES / "missing") == []


def test_tiny_inline_xbrl_document() -> None:
    filing = read_filing(TINY)
    assert (filing.cik, filing.name, filing.ticker) == ("0000000001", "Tiny Widgets, Inc.", "TINY")
    assert filing.period_end == date(2023, 12, 31) and filing.fiscal_year == 2023
    assert (filing.folder, filing.accession) == ("TINY", "0000000001-24-000001")
    assert filing.problems == []
    assert list(filing.sections) == list(ITEMS)
    everything = " ".join(" ".join(p) for p in filing.sections.values())
    assert "HIDDEN HEADER TEXT" not in everything         # ix:header
    assert "Form 10-K |" not in everything                # running footer
    assert "Widgets shipped" not in everything            # table row
    assert "RISK FACTOR TEXT" not in everything           # Item 1A belongs to no wanted item
    assert "forward-looking" not in everything            # before Item 1
    assert "duly caused" not in everything                # after Item 9 (signatures)
    assert filing.sections["1"][0].startswith("Tiny Widgets, Inc. designs")
    assert filing.sections["1"][-1].startswith("The Company operates three factories")
    assert filing.sections["3"] == [
        "The Company is party to a patent dispute with Gadget Works over the design of its "
        "spring-loaded widget."]
    # a paragraph split by a page break (footer in between) is joined again
    assert filing.sections["7"][0].endswith("price increases taken in the second half of the "
                                            "year, partly offset by weaker demand in Europe.")
    assert len(filing.sections["7A"]) == 1 and len(filing.sections["8"]) == 2


def test_tiny_inline_xbrl_facts() -> None:
    facts = set(read_filing(TINY).facts)
    year, prior = (date(2023, 1, 1), date(2023, 12, 31)), (date(2022, 1, 1), date(2022, 12, 31))
    assert facts == {
        # scale 6, num-dot-decimal; the rounded "$1.2 billion" (decimals -8) loses to it,
        # the repeat in the statement collapses, the segment (dimension) value is left out
        XbrlFact("us-gaap:Revenues", Decimal(1_234_500_000), "USD", *year),
        XbrlFact("us-gaap:Revenues", Decimal(1_100_000_000), "USD", *prior),
        XbrlFact("us-gaap:NetIncomeLoss", Decimal(-12_300_000), "USD", *year),   # sign="-"
        XbrlFact("us-gaap:NetIncomeLoss", Decimal(45_600_000), "USD", *prior),
        XbrlFact("us-gaap:PaymentsOfDividends", Decimal(0), "USD", *year),       # fixed-zero "—"
        XbrlFact("us-gaap:EarningsPerShareDiluted", Decimal("-0.52"), "USD/shares", *year),
        XbrlFact("us-gaap:GrossProfitMargin", Decimal("0.255"), "pure", *year),   # scale -2
        XbrlFact("us-gaap:CommonStockSharesOutstanding", Decimal(23_600_000), "shares",
                 None, date(2023, 12, 31)),                                      # instant
        XbrlFact("tiny:NumberOfFactories", Decimal(3), "Factory", None,
                 date(2023, 12, 31)),                                            # numwordsen
    }


def test_html_without_item_7() -> None:
    filing = read_filing(NO_MDNA)
    assert set(filing.sections) == {"1", "3", "7A", "8"}
    assert "Item 7 (Management's Discussion and Analysis) not found" in filing.problems
    assert any("period end" in p for p in filing.problems)
    assert filing.folder == "NOMD" and filing.cik is None
    assert filing.sections["1"][-1].startswith("The company buys its coffee")   # not 1A
    assert filing.sections["7A"] == [
        "Our main market risk is the price of green coffee, which we do not hedge with "
        "derivatives."]


def test_malformed_sgml_names_the_file() -> None:
    with pytest.raises(FilingError, match=re.escape(str(MALFORMED)) + ": malformed SGML"):
        read_filing(MALFORMED)


def test_plain_text_sgml() -> None:
    filing = read_filing(PLAIN_TEXT)
    assert (filing.cik, filing.name) == ("0000000004", "PLAINTEXT MILLS INC")
    assert filing.period_end == date(2000, 12, 31) and filing.fiscal_year == 2000
    assert filing.sections["1"] == [
        "Plaintext Mills Inc. weaves cotton cloth in two mills in North Carolina and sells it "
        "to apparel makers & upholsterers in the United States.",
        "The company employed 310 people at the end of 2000, none of whom are represented by "
        "a union."]
    assert filing.sections["3"] == [
        "The company is not a party to any material pending legal proceedings."]
    assert filing.sections["7"] == [
        "Net sales rose 4% in 2000 because of higher prices for upholstery cloth, while "
        "volumes of apparel cloth were flat."]            # the text-drawn table is left out
    assert filing.sections["7A"] == []                    # "Not applicable." is too short
    assert filing.problems == [
        "Item 7A (Market Risk): heading found but no paragraph of 40+ characters"]


# --------------------------------------------------------------------------------------------
# Generated documents (tmp_path)

PAGE = """<html><body>
<table><tr><td>Item 1.</td><td>Business</td><td>1</td></tr>
<tr><td>Item 7.</td><td>MD&amp;A</td><td>2</td></tr><tr><td>Item 8.</td><td>Statements</td>
<td>3</td></tr></table>
<div><b>Item 1.</b> Business</div>
<div>Acme Rockets builds small reusable rockets for weather and research agencies.</div>
{middle}
<div>Item 9. Changes in and Disagreements with Accountants</div>
<div>There were no changes in or disagreements with our accountants during the year.</div>
{tail}
</body></html>"""


def write_page(tmp_path: Path, middle: str, tail: str = "") -> Path:
    path = tmp_path / "sec-edgar-filings" / "ACME" / "10-K" / "0000000009-24-000009"
    path.mkdir(parents=True)
    target = path / "primary-document.html"
    target.write_text(PAGE.format(middle=middle, tail=tail), encoding="utf-8")
    return target


@pytest.mark.parametrize("heading", [
    "ITEM 7 &#8212; MANAGEMENT&#8217;S DISCUSSION AND ANALYSIS",
    "Item 7: Management&#8217;s Discussion and Analysis",
    "<span>Item</span><span>&#160;7.</span><span>&#160;&#160;Management&#8217;s "
    "Discussion</span>",
    "PART II &#8212; Item 7. Management&#8217;s Discussion and Analysis",
])
def test_heading_variants(tmp_path: Path, heading: str) -> None:
    middle = (f"<div>{heading}</div><div>Revenue rose because more agencies ordered rockets "
              "this year.</div><div>ITEM 8. FINANCIAL STATEMENTS</div><div>The financial "
              "statements of Acme Rockets for the years 2023 and 2022 follow.</div>")
    filing = read_filing(write_page(tmp_path, middle))
    assert filing.sections["7"] == [
        "Revenue rose because more agencies ordered rockets this year."]
    assert filing.sections["1"] == [
        "Acme Rockets builds small reusable rockets for weather and research agencies."]


def test_items_7_and_7a_combined(tmp_path: Path) -> None:
    middle = ("<div>Items 7 and 7A. Management&#8217;s Discussion and Analysis of Financial "
              "Condition and Results of Operations and Quantitative and Qualitative Disclosures "
              "About Market Risk</div><div>Revenue rose because more agencies ordered rockets "
              "this year.</div><div>Item 8. Financial Statements and Supplementary Data</div>"
              "<div>The financial statements of Acme Rockets for the years 2023 and 2022 "
              "follow.</div>")
    filing = read_filing(write_page(tmp_path, middle))
    assert filing.sections["7"] == filing.sections["7A"] == [
        "Revenue rose because more agencies ordered rockets this year."]


def test_run_in_heading(tmp_path: Path) -> None:
    middle = ("<p><b>ITEM 3. LEGAL PROCEEDINGS.</b> Acme Rockets is defending a lawsuit brought "
              "by a former supplier over unpaid invoices.</p><p>ITEM 7. MANAGEMENT&#8217;S "
              "DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION AND RESULTS OF OPERATIONS</p>"
              "<p>Revenue rose because more agencies ordered rockets this year.</p>")
    filing = read_filing(write_page(tmp_path, middle))
    assert filing.sections["3"] == [
        "Acme Rockets is defending a lawsuit brought by a former supplier over unpaid invoices."]


def test_item_8_pointing_at_f_pages(tmp_path: Path) -> None:
    middle = ("<div>Item 7. Management&#8217;s Discussion and Analysis</div><div>Revenue rose "
              "because more agencies ordered rockets this year.</div><div>Item 8. Financial "
              "Statements and Supplementary Data</div><div>The information required by this "
              "item is set forth beginning on page F-1 of this report.</div>")
    tail = ("<div>Item 15. Exhibits and Financial Statement Schedules</div>"
            "<div>Report of Independent Registered Public Accounting Firm</div>"
            "<div>We have audited the accompanying balance sheets of Acme Rockets, Inc. as of "
            "December 31, 2023 and 2022.</div><div>SIGNATURES</div><div>Pursuant to the "
            "requirements of the Securities Exchange Act, the registrant has duly caused this "
            "report to be signed.</div>")
    filing = read_filing(write_page(tmp_path, middle, tail))
    assert filing.sections["8"] == [
        "We have audited the accompanying balance sheets of Acme Rockets, Inc. as of December "
        "31, 2023 and 2022."]


def test_read_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here.txt"
    with pytest.raises(FilingError, match=re.escape(str(missing)) + ": cannot read"):
        read_filing(missing)
    empty = tmp_path / "empty.html"
    empty.write_text("  \n")
    with pytest.raises(FilingError, match="empty file"):
        read_filing(empty)
    exhibits_only = tmp_path / "full-submission.txt"
    exhibits_only.write_text("<SEC-DOCUMENT>\n<SEC-HEADER>\nCENTRAL INDEX KEY: 0000000005\n"
                             "</SEC-HEADER>\n<DOCUMENT>\n<TYPE>EX-27\n<TEXT>\n1\n</TEXT>\n"
                             "</DOCUMENT>\n</SEC-DOCUMENT>\n")
    with pytest.raises(FilingError, match=r"no 10-K document .*\(EX-27\)"):
        read_filing(exhibits_only)
    quarterly = tmp_path / "q.html"
    quarterly.write_text('<html><body><ix:nonNumeric name="dei:DocumentType" contextRef="c">'
                         "10-Q</ix:nonNumeric></body></html>")
    with pytest.raises(FilingError, match="not a 10-K"):
        read_filing(quarterly)


# --------------------------------------------------------------------------------------------
# Chunks and boilerplate


def test_chunk_paragraphs() -> None:
    paragraphs = [f"p{i}" for i in range(8)]
    assert chunk_paragraphs(paragraphs) == [["p0", "p1", "p2"], ["p3", "p4", "p5"], ["p6", "p7"]]
    assert chunk_paragraphs(paragraphs[:7]) == [["p0", "p1", "p2"], ["p3", "p4", "p5"]]
    assert chunk_paragraphs(paragraphs[:1]) == []
    assert chunk_paragraphs([]) == []
    assert chunk_paragraphs(paragraphs[:5], size=2) == [["p0", "p1"], ["p2", "p3"]]
    assert chunk_paragraphs(paragraphs[:2], size=1) == [["p0"], ["p1"]]
    with pytest.raises(ValueError):
        chunk_paragraphs(paragraphs, size=0)


BOILERPLATE = [
    "None.",
    "Not applicable.",
    "[Reserved]",
    "Item 3. Legal Proceedings. None.",
    "Not required for smaller reporting companies.",
    "As a smaller reporting company, we are not required to provide the information required "
    "by this Item.",
    "Apple Inc. | 2024 Form 10-K | 23",
    "Table of Contents",
    "Item 1. Business 1 Item 1A. Risk Factors 5 Item 1B. Unresolved Staff Comments 17 "
    "Item 1C. Cybersecurity 17",
    "This Annual Report on Form 10-K contains forward-looking statements within the meaning of "
    "the Private Securities Litigation Reform Act of 1995. The Company assumes no obligation to "
    "revise or update any forward-looking statements for any reason.",
    "The information required by this Item is incorporated herein by reference to the "
    "Company's Proxy Statement. See Note 12 of the Notes to Consolidated Financial Statements.",
    "For additional information, see Note 3 of the Notes to Consolidated Financial Statements "
    "included in Item 8 of this Annual Report on Form 10-K.",
    "Exhibit 3.1 Restated Articles of Incorporation, filed herewith. 4.1 Indenture dated 2019. "
    "10.1 Employment Agreement.*",
    "Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934, "
    "the registrant has duly caused this report to be signed. /s/ Jane Doe, Chief Executive "
    "Officer",
]
SUBSTANCE = [
    "iPhone net sales were relatively flat during 2024 compared to 2023. Mac net sales "
    "increased due primarily to higher net sales of laptops.",
    "Our business is delivered by our approximately 2.1 million associates, with approximately "
    "1.6 million associates in the U.S. and 0.5 million associates internationally.",
    "As discussed in Note 6 to the financial statements, the Company's recurring losses from "
    "operations raise substantial doubt about its ability to continue as a going concern.",
    "Operating leases are included in operating lease right-of-use assets on the consolidated "
    "balance sheets. Lease expense was $2.1 billion in 2024.",
    "This section contains forward-looking statements about demand for our products. Demand "
    "for data center products grew strongly, and we expect supply to remain constrained. "
    "Revenue from Hopper GPUs more than doubled compared with the prior year.",
]


@pytest.mark.parametrize("text", BOILERPLATE)
def test_boilerplate_detected(text: str) -> None:
    assert is_boilerplate(text)


@pytest.mark.parametrize("text", SUBSTANCE)
def test_substance_kept(text: str) -> None:
    assert not is_boilerplate(text)


def test_real_chunks_are_rarely_boilerplate(aapl: Filing) -> None:
    chunks = [chunk for item in ITEMS for chunk in chunk_paragraphs(aapl.sections[item])]
    assert len(chunks) > 50
    assert sum(is_boilerplate("\n\n".join(chunk)) for chunk in chunks) <= len(chunks) // 20
