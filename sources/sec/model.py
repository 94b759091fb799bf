"""The shapes the SEC source's parts exchange: filings, XBRL facts, company figures."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

#: 10-K items FCMR uses, in document order: Business, Legal Proceedings, MD&A, Market Risk,
#: Financial Statements.
ITEMS = ("1", "3", "7", "7A", "8")
SECTION_NAMES = {"1": "business", "3": "legal", "7": "mdna", "7A": "market_risk",
                 "8": "financial_statements"}


class SourceFileError(Exception):
    """A file of the data folder that cannot be used; the message names the file and why."""


class FilingError(SourceFileError):
    """A filing that cannot be used at all; the message names the file and the problem."""


@dataclass(frozen=True)
class XbrlFact:
    """One numeric fact tagged in a filing's inline XBRL (no dimensions: whole-company)."""

    name: str                 # e.g. "us-gaap:Revenues"
    value: Decimal            # in units (USD, not millions), sign and scale applied
    unit: str                 # e.g. "USD", "USD/shares", "shares"
    start: date | None        # None for instants
    end: date


@dataclass
class Filing:
    """A 10-K read from disk: who filed it, for which fiscal year, and its item texts."""

    path: Path
    folder: str                       # the company folder name (ticker or 10-digit CIK)
    accession: str                    # the accession folder name, e.g. 0000320193-24-000123
    cik: str | None = None            # 10 digits
    name: str | None = None           # registrant name
    ticker: str | None = None
    period_end: date | None = None    # dei:DocumentPeriodEndDate / SGML CONFORMED PERIOD
    fiscal_year: int | None = None    # labelled by the period end's year
    sections: dict[str, list[str]] = field(default_factory=dict)  # item -> paragraphs
    facts: list[XbrlFact] = field(default_factory=list)            # inline XBRL, if any
    problems: list[str] = field(default_factory=list)              # non-fatal, human-readable
    sha256: str = ""                                               # of the file as read


@dataclass
class CompanyFigures:
    """Annual figures of one company in USD millions, by column and fiscal year."""

    values: dict[str, dict[int, Decimal]] = field(default_factory=dict)
    tags: dict[str, dict[int, str]] = field(default_factory=dict)  # which tag(s) gave a value
    period_ends: dict[int, date] = field(default_factory=dict)     # fiscal year -> period end
    origin: str = "companyfacts"                                   # or "inline-xbrl"
    problems: list[str] = field(default_factory=list)              # gaps and oddities
    malformed: list[str] = field(default_factory=list)             # data not understood
