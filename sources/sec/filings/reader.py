"""10-K filings: reading one filing into a :class:`~hopvista.sources.sec.model.Filing`."""

from __future__ import annotations

import warnings
from pathlib import Path

from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

from hopvista.sources.sec.figures import PLAUSIBLE_YEARS
from hopvista.sources.sec.files import read_data_file
from hopvista.sources.sec.filings.blocks import html_blocks, text_blocks
from hopvista.sources.sec.filings.items import extract_items
from hopvista.sources.sec.filings.metadata import fill_from_dei, fill_from_header, fill_from_path
from hopvista.sources.sec.filings.sgml import (
    FORM_TYPES,
    is_sgml,
    looks_like_html,
    sgml_header,
    sgml_main_document,
)
from hopvista.sources.sec.filings.xbrl import Xbrl
from hopvista.sources.sec.model import Filing, FilingError, SourceFileError

#: A NUL byte among a document's first bytes marks binary data (as git and grep decide).
_BINARY_PROBE = 8192

def read_filing(path: Path) -> Filing:
    """Read a ``full-submission.txt`` (SGML) or a ``primary-document.html`` into a Filing.

    Raises :class:`FilingError` (message ``"<path>: <problem>"``) when the file cannot be read
    or holds no 10-K document; everything else that is missing (an item, the period end, the
    CIK) is reported in ``Filing.problems``.
    """
    try:
        file = read_data_file(path)
    except SourceFileError as exc:
        raise FilingError(str(exc)) from None
    raw = file.data
    if not raw.strip():
        raise FilingError(f"{path}: empty file")
    if b"\x00" in raw[:_BINARY_PROBE]:
        raise FilingError(f"{path}: binary data (NUL bytes), not a text or HTML document")
    text = _decode(raw)
    filing = Filing(path=path, folder="", accession="", sha256=file.sha256)
    header: dict[str, str] = {}
    if is_sgml(text):
        header = sgml_header(text)
        _, body = sgml_main_document(path, text)
        is_html = looks_like_html(body)
    else:
        body, is_html = text, True
    if is_html:
        soup = _soup(body)
        xbrl = Xbrl(soup)
        doc_type = xbrl.dei.get("dei:DocumentType", "").strip()
        if doc_type and doc_type.upper() not in FORM_TYPES:
            raise FilingError(f"{path}: document type is {doc_type!r}, not a 10-K")
        blocks = html_blocks(soup)
        filing.facts = xbrl.facts
        filing.problems.extend(xbrl.problems)
        fill_from_dei(filing, xbrl)
    else:
        blocks = text_blocks(body)
    fill_from_header(filing, header)
    fill_from_path(filing, path, header)
    if filing.period_end is not None and not (
            PLAUSIBLE_YEARS[0] <= filing.period_end.year <= PLAUSIBLE_YEARS[1]):
        filing.problems.append(f"period end {filing.period_end} is not plausible; ignored")
        filing.period_end = None
    elif filing.period_end is None:
        filing.problems.append("no period end (no dei:DocumentPeriodEndDate and no SGML "
                               "CONFORMED PERIOD OF REPORT)")
    if filing.period_end is not None:
        filing.fiscal_year = filing.period_end.year
    if filing.cik is None:
        filing.problems.append("no CIK (no dei:EntityCentralIndexKey, SGML header or CIK folder)")
    filing.sections, problems = extract_items(blocks)
    filing.problems.extend(problems)
    return filing


def _decode(raw: bytes) -> str:
    """UTF-8 (ASCII), else Windows-1252 (older EDGAR HTML), else Latin-1."""
    for encoding in ("utf-8", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


def _soup(markup: str) -> BeautifulSoup:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(markup, "lxml")
