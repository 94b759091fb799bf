"""Rule-based 10-K facts (hopvista.sources.sec.facts) and stated columns (.stated)."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest

from hopvista.generation.instance import needle_occurs
from hopvista.sources.sec.facts import claim_of, extract_facts, sentence_spans
from hopvista.sources.sec.stated import columns_stated, written_amounts
from hopvista.world import Fact

ACME = ["Acme Rockets, Inc."]


def claim(sentence: str, names: list[str] = ACME, ticker: str | None = "ACME") -> str | None:
    result: str | None = claim_of(sentence, names, ticker)
    return result


def check_fact(fact: Fact, text: str, forbidden: list[str]) -> None:
    assert fact.sentence in text
    assert needle_occurs(fact.needle, fact.sentence)
    assert needle_occurs(fact.needle, text)
    assert fact.key == f"{fact.kind}:{' '.join(fact.needle.lower().replace('’', chr(39)).split())}"
    for word in forbidden:
        assert not re.search(rf"\b{re.escape(word)}\b", fact.claim, re.IGNORECASE), fact.claim
    assert not re.search(r"\b(?:we|our|us)\b", fact.claim, re.IGNORECASE), fact.claim
    assert fact.claim[:1].islower() and not fact.claim.endswith(".")


# --- sentence splitting ----------------------------------------------------------------------

def test_sentences_respect_abbreviations_and_decimals() -> None:
    text = ("Acme Rockets, Inc. designs rockets in the U.S. and Canada. It earned approximately "
            "$1.2 billion. See No. 5 for details.\n\nHuman Capital\nAs of May 1, 2024, we had "
            "approximately 1,200 employees. Sales were in the U.S. The next sentence starts here.")
    sentences = [text[a:b] for a, b in sentence_spans(text)]
    assert sentences == [
        "Acme Rockets, Inc. designs rockets in the U.S. and Canada.",
        "It earned approximately $1.2 billion.",
        "See No. 5 for details.",
        "Human Capital",
        "As of May 1, 2024, we had approximately 1,200 employees.",
        "Sales were in the U.S.",
        "The next sentence starts here.",
    ]
    for a, b in sentence_spans(text):
        assert text[a:b] == text[a:b].strip()


# --- rewriting -------------------------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "expected"), [
    ("We operate 1,234 stores in 12 countries.", "operates 1,234 stores in 12 countries"),
    ("We have 5,300 employees in Texas.", "has 5,300 employees in Texas"),
    ("We are headquartered in Austin, Texas.", "is headquartered in Austin, Texas"),
    ("We were incorporated in Delaware in 1998.", "was incorporated in Delaware in 1998"),
    ("We opened 12 new stores in Mexico.", "opened 12 new stores in Mexico"),
    ("We carry 40,000 products in each store.", "carries 40,000 products in each store"),
    ("We process 2,000 orders at our Ohio plant.", "processes 2,000 orders at its Ohio plant"),
    ("We also employ 3,100 engineers in India.", "also employs 3,100 engineers in India"),
    ("We design, manufacture and market the Falcon 9 engine.",
     "designs, manufactures and markets the Falcon 9 engine"),
    ("We sell our products to 4,500 dealers that rely on us.",
     "sells its products to 4,500 dealers that rely on it"),
    ("We sell the X-100 drill, which we designed in 1999.",
     "sells the X-100 drill, which it designed in 1999"),
    ("We license the Orbit platform that we develop in Ohio.",
     "licenses the Orbit platform that it develops in Ohio"),
])
def test_we_sentences_are_conjugated(sentence: str, expected: str) -> None:
    assert claim(sentence) == expected


@pytest.mark.parametrize(("sentence", "expected"), [
    ("The Company’s fiscal year is the 52- or 53-week period that ends on the last Saturday "
     "of September.",
     "has a fiscal year that is the 52- or 53-week period that ends on the last Saturday of "
     "September"),
    ("As of September 28, 2024, the Company had approximately 164,000 full-time equivalent "
     "employees.",
     "had approximately 164,000 full-time equivalent employees as of September 28, 2024"),
    ("Our principal executive offices are located in Austin, Texas.",
     "has principal executive offices that are located in Austin, Texas"),
    ("Acme Rockets operates 310 launch sites in Florida.", "operates 310 launch sites in Florida"),
    ("Acme’s Orbit line includes the Falcon 9 engine.",
     "has an Orbit line that includes the Falcon 9 engine"),
    ("In fiscal 2024, we opened 14 new plants in Ohio, resulting in 210 plants in total.",
     "opened 14 new plants in Ohio in fiscal 2024, resulting in 210 plants in total"),
    ("In addition, the Company operates 1,200 stores in Canada.",
     "operates 1,200 stores in Canada"),
    # the fronted date goes to the end of the main clause, never further
    ("In 1983, we opened our first store, and in 1988, we opened 40 more in Texas.",
     "opened its first store in 1983, and in 1988, it opened 40 more in Texas"),
])
def test_company_subjects_are_removed(sentence: str, expected: str) -> None:
    assert claim(sentence) == expected


@pytest.mark.parametrize("sentence", [
    "We may open 50 new stores in Texas in 2025.",
    "We expect to hire 2,000 employees in 2025.",
    "We believe our 1,200 stores are well located.",
    "We plan to enter Brazil in 2026.",
    "If demand rises, we would add 300 stores in Ohio.",
    "We intend to build 12 plants in Mexico.",
    "Do we have 1,200 stores in Canada?",
    "We operate in the following countries: Canada, Mexico and Brazil.",
    "Our net sales were $391.0 billion in 2024.",
    "We had net sales of $391.0 billion in 2024.",
    "We paid dividends of $15.2 billion in 2024.",
    "We operate 1,200 stores (see Note 4 and Item 7) in Canada (the “Stores”).",
    "For more information, refer to Part II, Item 7 of this Form 10-K.",
    "Acme Rockets sells the Acme Falcon engine in 20 countries.",   # a brand with the name
    "We sell engines and operate 20 launch sites in Florida.",       # coordinated base verb
    "These stores are in Texas and we operate 1,200 of them.",
    "Customers buy 1,200 engines from us in Texas.",                 # subject is not the company
    "We continue to grow " + "and grow " * 25 + "in Texas.",          # over 45 words
])
def test_unusable_sentences_give_no_claim(sentence: str) -> None:
    assert claim(sentence) is None


def test_claim_never_names_the_company_or_ticker() -> None:
    assert claim("We list our shares on Nasdaq under the symbol ACME since 1999.") is None
    assert claim("We sell AcmeCare support plans in 40 countries.") is None  # brand with name
    assert claim("Acme Rockets, Inc. operates 310 launch sites in Florida.") == \
        "operates 310 launch sites in Florida"


# --- facts -----------------------------------------------------------------------------------

CHUNK = """Human Capital

As of September 28, 2024, the Company had approximately 164,000 full-time equivalent employees. \
The Company believes that its people are its strength. We operate 1,234 stores in 12 countries. \
We may open 40 stores in Brazil.

Acme Rockets was incorporated in Delaware in April 1993. Our Orbit line includes the Falcon 9X \
engine and the Raptor 2 engine. In 2024, Acme Rockets, Inc. had net sales of $391.0 billion."""


def test_extract_facts_on_a_handcrafted_chunk() -> None:
    facts = extract_facts("ACME", "ACME-business-1", CHUNK, ACME, "ACME")
    by_needle = {f.needle: f for f in facts}
    assert set(by_needle) == {"164,000 full-time equivalent employees", "1,234 stores",
                              "incorporated in Delaware in April 1993", "Falcon 9X"}
    employees = by_needle["164,000 full-time equivalent employees"]
    assert employees.kind == "employees"
    assert employees.key == "employees:164,000 full-time equivalent employees"
    assert employees.claim == ("had approximately 164,000 full-time equivalent employees as of "
                               "September 28, 2024")
    assert by_needle["1,234 stores"].kind == "facility"
    assert by_needle["incorporated in Delaware in April 1993"].kind == "date"
    assert by_needle["Falcon 9X"].kind == "product"
    for fact in facts:
        assert (fact.entity, fact.chunk) == ("ACME", "ACME-business-1")
        check_fact(fact, CHUNK, ["Acme", "ACME"])


def test_extract_facts_keys_are_unique_per_chunk() -> None:
    text = ("We operate 1,234 stores in 12 countries. We operate 1,234 stores in 12 countries. "
            "We operate 1,234 stores in 12 countries.")
    assert len(extract_facts("ACME", "c", text, ACME, None)) == 1


# --- stated columns --------------------------------------------------------------------------

AAPL_FIGURES: dict[str, dict[int, Decimal]] = {
    column: {2020 + k: Decimal(v) for k, v in enumerate(values)}
    for column, values in {
        "sale": ("274515", "365817", "394328", "383285", "391035"),
        "cogs": ("169559", "212981", "223546", "214137", "210352"),
        "gp": ("104956", "152836", "170782", "169148", "180683"),
        "xsga": ("19916", "21973", "25094", "24932", "26097"),
        "oiadp": ("66288", "108949", "119437", "114301", "123216"),
        "ni": ("57411", "94680", "99803", "96995", "93736"),
        "at": ("323888", "351002", "352755", "352583", "364980"),
        "lt": ("258549", "287912", "302083", "290437", "308030"),
        "seq": ("65339", "63090", "50672", "62146", "56950"),
        "oancf": ("80674", "104038", "122151", "110543", "118254"),
        "capx": ("7309", "11085", "10708", "10959", "9447"),
        "dv": ("14081", "14467", "14841", "15025", "15234"),
    }.items()
}


@pytest.mark.parametrize(("text", "expected"), [
    ("Total net sales increased 2% or $7.8 billion during 2024 compared to 2023, to $391.0 "
     "billion.", {"sale"}),
    ("Net sales were $391,035 million.", {"sale"}),
    ("Total net sales 391,035 383,285 394,328", {"sale"}),
    ("Net income was $93.7 billion in 2024.", {"ni"}),
    ("Net income was $94 billion.", {"ni"}),          # 2 digits, but money with a scale
    ("Net income was 93.7 in 2024.", set()),           # no $, no scale, no grouping
    ("Gross margin was 46.2% in 2024.", set()),
    ("The Company had approximately 164,000 full-time equivalent employees.", set()),
    ("Capital expenditures were $9.4 billion.", {"capx"}),
    ("It repurchased $95.0 billion of its common stock.", set()),
])
def test_columns_stated(text: str, expected: set[str]) -> None:
    assert columns_stated(text, AAPL_FIGURES) == frozenset(expected)


def test_written_amounts_ignore_coarse_numbers() -> None:
    assert [a.text for a in written_amounts("about 25 stores, 2.5 billion users, $7 million")] \
        == ["$7 million"]
    assert [a.text for a in written_amounts("in 2024, $ 0.01 par value")] == []


# --- real filings ----------------------------------------------------------------------------

class _Paragraphs(HTMLParser):
    """Text of a 10-K primary document, one entry per block element (no hidden XBRL header)."""

    BLOCKS = frozenset({"div", "p", "li", "tr", "br", "table", "h1", "h2", "h3", "h4", "h5"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self.current: list[str] = []
        self.hidden = 0

    def flush(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.paragraphs.append(text)
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "ix:header":
            self.hidden += 1
        elif tag in self.BLOCKS:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "ix:header":
            self.hidden -= 1
        elif tag in self.BLOCKS:
            self.flush()

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.current.append(data)
            self.current.append(" " if self.lasttag in ("td", "th") else "")


FILINGS = {
    "AAPL": "AAPL/10-K/0000320193-24-000123",
    "NVDA": "NVDA/10-K/0001045810-25-000023",
    "GOOGL": "GOOGL/10-K/0001652044-25-000014",
}
NAMES = {"AAPL": ["Apple Inc."], "NVDA": ["NVIDIA Corporation"], "GOOGL": ["Alphabet Inc."]}


@cache
def _paragraphs(path: Path) -> tuple[str, ...]:
    parser = _Paragraphs()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.flush()
    return tuple(re.sub(r" ([,.;:’)])", r"\1", p) for p in parser.paragraphs)


def paragraphs(sec_data: Path, ticker: str) -> tuple[str, ...]:
    root = sec_data / "filings" / "sec-edgar-filings" / FILINGS[ticker]
    return _paragraphs(root / "primary-document.html")


def chunks(sec_data: Path, ticker: str) -> list[str]:
    paras = [p for p in paragraphs(sec_data, ticker) if len(p) > 40]
    return ["\n\n".join(paras[k:k + 3]) for k in range(0, len(paras), 3)]


def facts_of(sec_data: Path, ticker: str) -> list[tuple[str, Fact]]:
    out = []
    for k, text in enumerate(chunks(sec_data, ticker)):
        for fact in extract_facts(ticker, f"{ticker}-{k}", text, NAMES[ticker], ticker):
            out.append((text, fact))
    return out


def test_aapl_filing_yields_checkable_facts(sec_data: Path) -> None:
    facts = facts_of(sec_data, "AAPL")
    assert len(facts) >= 5
    for text, fact in facts:
        check_fact(fact, text, ["Apple", "AAPL"])
    needles = {f.needle for _, f in facts}
    assert "164,000 full-time equivalent employees" in needles
    assert "last Saturday of September" in needles


@pytest.mark.parametrize("ticker", ["NVDA", "GOOGL"])
def test_other_filings_yield_facts(sec_data: Path, ticker: str) -> None:
    facts = facts_of(sec_data, ticker)
    assert len(facts) >= 5
    for text, fact in facts:
        check_fact(fact, text, [ticker, NAMES[ticker][0].split()[0]])


def test_aapl_needles_rarely_occur_in_other_filings(sec_data: Path) -> None:
    needles = sorted({f.needle for _, f in facts_of(sec_data, "AAPL")})
    others = ["\n\n".join(paragraphs(sec_data, t)) for t in ("NVDA", "GOOGL")]
    shared = [n for n in needles if any(needle_occurs(n, text) for text in others)]
    rate = len(shared) / len(needles)
    print(f"AAPL needles found in NVDA/GOOGL text: {len(shared)}/{len(needles)} = {rate:.0%}"
          f" {shared}")
    assert rate <= 0.25


def test_columns_stated_on_aapl_text(sec_data: Path) -> None:
    paras = paragraphs(sec_data, "AAPL")
    business = next(p for p in paras if "164,000 full-time equivalent employees" in p)
    assert columns_stated(business, AAPL_FIGURES) == frozenset()
    capital_return = next(p for p in paras if "paid dividends and dividend equivalents" in p)
    assert columns_stated(capital_return, AAPL_FIGURES) == frozenset({"dv"})  # $15.2 billion
    mdna = ("Total net sales increased 2% or $7.8 billion during 2024 compared to 2023, to "
            "$391.0 billion. " + business)
    assert columns_stated(mdna, AAPL_FIGURES) == frozenset({"sale"})
    row = next(p for p in paras if p.startswith("Total net sales") and "391,035" in p)
    assert "sale" in columns_stated(row, AAPL_FIGURES)
    text = "\n\n".join(paras)
    assert {"sale", "ni", "at"} <= columns_stated(text, AAPL_FIGURES)
