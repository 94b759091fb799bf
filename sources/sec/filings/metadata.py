"""10-K filings: metadata (CIK, name, ticker, period end, accession, folder)."""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path

from hopvista.sources.sec.filings.blocks import normalise
from hopvista.sources.sec.filings.xbrl import Xbrl
from hopvista.sources.sec.model import Filing

_ACCESSION = re.compile(r"^[0-9]{10}-[0-9]{2}-[0-9]{6}$")

def _parse_date(text: str) -> date | None:
    cleaned = normalise(text).replace(".", "").replace("Sept ", "Sep ")
    for fmt in ("%Y-%m-%d", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%m/%d/%Y",
                "%d %B %Y", "%Y%m%d"):
        try:
            return datetime.strptime(cleaned, fmt).date()
        except ValueError:
            continue
    return None


def _cik_in_field(text: str | None) -> str | None:
    """The CIK a filing's field writes (``0000320193``, ``CIK 320193``): its digits, at most
    ten and not all zero, padded to ten, else ``None``."""
    digits = re.sub(r"[^0-9]", "", text or "")
    return digits.zfill(10) if digits and len(digits) <= 10 and int(digits) else None


def fill_from_dei(filing: Filing, xbrl: Xbrl) -> None:
    """Set CIK, name, ticker and period end from the inline XBRL ``dei:`` cover facts."""
    dei = xbrl.dei
    filing.cik = (_cik_in_field(dei.get("dei:EntityCentralIndexKey"))
                  or _cik_in_field(xbrl.identifier))
    filing.name = dei.get("dei:EntityRegistrantName") or None
    filing.ticker = (dei.get("dei:TradingSymbol") or "").split(" ")[0] or None
    if "dei:DocumentPeriodEndDate" in dei:
        period = _parse_date(dei["dei:DocumentPeriodEndDate"])
        if period is None:  # fall back on the fact's own context
            context = xbrl.contexts.get(xbrl.dei_context["dei:DocumentPeriodEndDate"])
            period = context[1] if context else None
        filing.period_end = period


def fill_from_header(filing: Filing, header: dict[str, str]) -> None:
    """Fill what the cover facts left unset from the SGML ``<SEC-HEADER>``."""
    if not header:
        return
    filing.cik = filing.cik or _cik_in_field(header.get("CENTRAL INDEX KEY"))
    filing.name = filing.name or header.get("COMPANY CONFORMED NAME")
    if filing.period_end is None and "CONFORMED PERIOD OF REPORT" in header:
        filing.period_end = _parse_date(header["CONFORMED PERIOD OF REPORT"])


def fill_from_path(filing: Filing, path: Path, header: dict[str, str]) -> None:
    """Set accession and company folder from the path (``<folder>/10-K/<accession>/<file>``),
    else from the header; a ten-digit folder is the CIK when nothing else gave one."""
    accession_dir = path.parent
    if _ACCESSION.match(accession_dir.name):
        filing.accession = accession_dir.name
        if len(path.parents) >= 3 and path.parents[1].name.upper().startswith("10-K"):
            filing.folder = path.parents[2].name
    if not filing.accession:
        filing.accession = header.get("ACCESSION NUMBER", "")
    if not filing.folder:
        filing.folder = filing.cik or ""
    if filing.cik is None and re.fullmatch(r"[0-9]{10}", filing.folder):
        filing.cik = filing.folder
