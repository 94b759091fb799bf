"""Read 10-K filings from disk: SGML full submissions and Workiva inline-XBRL primary documents.

The reader turns one filing into a :class:`~hopvista.sources.sec.model.Filing`:

* **metadata** — CIK, registrant name, ticker and period end, from the inline XBRL ``dei:`` cover
  facts or the SGML ``<SEC-HEADER>``; accession and company folder from the path
  (``sec-edgar-filings/<TICKER or CIK>/10-K/<ACCESSION>/<file>``);
* **items** — the paragraphs of Items 1, 3, 7, 7A and 8 (FCMR B.2). The document is flattened
  into blocks (block elements' text; each table row is one block), item headings are recognised
  among the short blocks ("Item 7.", "ITEM 7 —", "Item 7:", "Items 7 and 7A", split across
  spans, non-breaking spaces), and one heading per item is chosen so that the chosen headings
  appear in item order and cover the most text: a table-of-contents entry is followed by the
  next entry, not by text, so the body heading wins. An item ends where the next chosen
  heading (of any item, e.g. 1A after 1) starts; an Item 8 that only points at F-pages placed
  after Part IV is read from the auditor's report there up to the exhibit index or signatures.
  Tables are figures, not prose: data-table rows are never paragraphs (Item 8 included — its
  paragraphs are the auditor's report and the notes' prose); a layout row holding one long
  sentence plus bullets is kept as prose. Running page headers/footers (short blocks repeated
  three or more times, digits ignored) and hidden content (``ix:header``, ``display:none``)
  are dropped; a paragraph split by a page break is joined again, and documents converted
  from text with one ``<p>`` per printed line are rejoined between their empty paragraphs.
  A paragraph is prose of at least :data:`MIN_PARAGRAPH` characters, mostly letters, ending
  like a sentence or at least 15 words long (subheadings and captions are not paragraphs);
* **facts** — every dimensionless ``ix:nonFraction`` with scale, sign and format applied; one
  fact per concept, unit and period (repeats collapse; of rounded repeats the most precise
  ``decimals`` wins).

:func:`chunk_paragraphs` groups paragraphs by three (FCMR B.4) and :func:`is_boilerplate` flags
chunks with no substance.
"""

from __future__ import annotations

import html
import os
import re
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from hopvista.sources.sec.figures import MAX_AMOUNT, PLAUSIBLE_YEARS
from hopvista.sources.sec.files import entry_problem, read_data_file
from hopvista.sources.sec.model import ITEMS, Filing, FilingError, SourceFileError, XbrlFact

__all__ = ["MIN_PARAGRAPH", "chunk_paragraphs", "find_filings", "is_boilerplate", "read_filing"]

#: Shortest text (characters, whitespace normalised) kept as a paragraph.
MIN_PARAGRAPH = 40

_ITEM_TITLES = {"1": "Business", "3": "Legal Proceedings",
                "7": "Management's Discussion and Analysis", "7A": "Market Risk",
                "8": "Financial Statements"}
_FORM_TYPES = frozenset({"10-K", "10-K405", "10-K/A", "10-K405/A", "10-KT", "10-KT/A"})
_ACCESSION = re.compile(r"^[0-9]{10}-[0-9]{2}-[0-9]{6}$")
#: A NUL byte among a document's first bytes marks binary data (as git and grep decide).
_BINARY_PROBE = 8192

# ---------------------------------------------------------------------------------------------
# Finding filings


_DOCUMENTS = ("primary-document.html", "full-submission.txt")


def find_filings(root: Path, problems: list[str] | None = None) -> list[Path]:
    """One file per 10-K accession under ``root``, sorted.

    ``root`` is the folder holding ``sec-edgar-filings`` (or its parent's ``filings``
    folder, as in ``shared/data/sec``), or ``sec-edgar-filings`` itself. Each accession
    folder ``<TICKER or CIK>/10-K/<ACCESSION>/`` yields its ``primary-document.html`` when
    that is a readable regular file, else its ``full-submission.txt``. Whatever does not fit
    the layout (a file where a folder belongs, a document that is a folder, a symbolic link
    loop, an accession folder without a document) is skipped and described, naming the path,
    in ``problems``; hidden entries (``.DS_Store``) are ignored.
    """
    report = problems if problems is not None else []
    base = _filings_base(root, report)
    if base is None:
        return []
    found: list[Path] = []
    for company in _entries(base, report):
        if _is_folder(company, report):
            form = company / "10-K"
            if os.path.lexists(form) and _is_folder(form, report):
                found.extend(doc for accession in _entries(form, report)
                             if (doc := _document(accession, report)) is not None)
    return sorted(found)


def _filings_base(root: Path, report: list[str]) -> Path | None:
    if root.name == "sec-edgar-filings":
        return root if _is_folder(root, report) else None
    for candidate in (root / "sec-edgar-filings", root / "filings" / "sec-edgar-filings"):
        if os.path.lexists(candidate) and _is_folder(candidate, report):
            return candidate
    return None


def _is_folder(path: Path, report: list[str]) -> bool:
    problem = entry_problem(path, "folder")
    if problem is not None:
        report.append(f"{path}: {problem}; skipped")
    return problem is None


def _entries(folder: Path, report: list[str]) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError as exc:
        report.append(f"{folder}: cannot list the folder ({exc.strerror or exc}); skipped")
        return []


def _document(accession: Path, report: list[str]) -> Path | None:
    """The document to read in one accession folder, or None (reported)."""
    if not _is_folder(accession, report):
        return None
    present = [accession / name for name in _DOCUMENTS if os.path.lexists(accession / name)]
    for path in present:
        problem = entry_problem(path)
        if problem is None:
            return path
        report.append(f"{path}: {problem}; skipped")
    if not present:
        report.append(f"{accession}: neither {' nor '.join(_DOCUMENTS)}; skipped")
    return None


# ---------------------------------------------------------------------------------------------
# Reading one filing


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
    if _is_sgml(text):
        header = _sgml_header(text)
        _, body = _sgml_main_document(path, text)
        is_html = _looks_like_html(body)
    else:
        body, is_html = text, True
    if is_html:
        soup = _soup(body)
        xbrl = _Xbrl(soup)
        doc_type = xbrl.dei.get("dei:DocumentType", "").strip()
        if doc_type and doc_type.upper() not in _FORM_TYPES:
            raise FilingError(f"{path}: document type is {doc_type!r}, not a 10-K")
        blocks = _html_blocks(soup)
        filing.facts = xbrl.facts
        filing.problems.extend(xbrl.problems)
        _fill_from_dei(filing, xbrl)
    else:
        blocks = _text_blocks(body)
    _fill_from_header(filing, header)
    _fill_from_path(filing, path, header)
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
    filing.sections, problems = _extract_items(blocks)
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


# ---------------------------------------------------------------------------------------------
# SGML full submissions

_SGML_START = re.compile(r"^\s*(?:-----BEGIN PRIVACY-ENHANCED MESSAGE-----|<SEC-DOCUMENT>|"
                         r"<SEC-HEADER>|<IMS-HEADER>|<DOCUMENT>)")
_DOCUMENT = re.compile(r"<DOCUMENT>(.*?)(?:</DOCUMENT>|(?=<DOCUMENT>)|\Z)", re.S)
_TYPE = re.compile(r"^\s*<TYPE>[ \t]*([^\s<]+)", re.M)
_TEXT = re.compile(r"<TEXT>(.*?)</TEXT>", re.S | re.I)
_HEADER_FIELD = re.compile(r"^[ \t]*([A-Z][A-Z0-9 ()&/-]*?):[ \t]*(\S[^\r\n]*?)[ \t]*\r?$", re.M)


def _is_sgml(text: str) -> bool:
    return bool(_SGML_START.match(text[:4096]))


def _sgml_header(text: str) -> dict[str, str]:
    """First value of each ``KEY: value`` line of the SEC-HEADER (or IMS-HEADER)."""
    end = text.find("<DOCUMENT>")
    head = text[: end if end >= 0 else 20000]
    fields: dict[str, str] = {}
    for key, value in _HEADER_FIELD.findall(head):
        fields.setdefault(key.strip(), value.strip())
    return fields


def _sgml_main_document(path: Path, text: str) -> tuple[str, str]:
    """(form type, <TEXT> content) of the submission's 10-K document."""
    if "<DOCUMENT>" not in text:
        raise FilingError(f"{path}: SGML submission without any <DOCUMENT>")
    if text.count("<DOCUMENT>") != text.count("</DOCUMENT>"):
        raise FilingError(f"{path}: malformed SGML (unbalanced <DOCUMENT>/</DOCUMENT>)")
    types: list[str] = []
    for match in _DOCUMENT.finditer(text):
        doc = match.group(1)
        type_match = _TYPE.search(doc)
        form = type_match.group(1).upper() if type_match else ""
        types.append(form or "?")
        if form not in _FORM_TYPES:
            continue
        text_match = _TEXT.search(doc)
        if text_match is None:
            raise FilingError(f"{path}: malformed SGML ({form} document without <TEXT>…</TEXT>)")
        body = text_match.group(1)
        body = re.sub(r"</?(?:XBRL|XML)>", "", body, flags=re.I)
        if not body.strip():
            raise FilingError(f"{path}: {form} document has empty <TEXT>")
        return form, body
    raise FilingError(f"{path}: no 10-K document among the submission's documents "
                      f"({', '.join(types)})")


def _looks_like_html(body: str) -> bool:
    return bool(re.search(r"<(?:html|body|p|div|table|font|br)\b", body[:200000], re.I))


# ---------------------------------------------------------------------------------------------
# Blocks: the document flattened into text blocks


@dataclass
class _Block:
    text: str
    table: bool = False   # a data-table row (never a paragraph)
    blank: bool = False   # an empty block element (``<p><br></p>``): a paragraph separator


_BLOCK_TAGS = frozenset(
    ["p", "div", "li", "ul", "ol", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6",
     "blockquote", "center", "pre", "section", "article", "header", "footer", "address", "form",
     "body", "html", "hr", "caption"])
_SKIP_TAGS = frozenset(["head", "title", "script", "style", "noscript", "ix:header", "template"])
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
_SPACES = re.compile(r"[\s\u200b\ufeff]+")
_BR_BREAK = re.compile(r"\n *\n")
_INVISIBLE = str.maketrans("", "", "\u200b\u00ad\ufeff")


def _normalise(text: str) -> str:
    return " ".join(text.translate(_INVISIBLE).split())


def _hidden(tag: Tag) -> bool:
    style = tag.get("style")
    return isinstance(style, str) and "none" in style and bool(_HIDDEN.search(style))


def _html_blocks(soup: BeautifulSoup) -> list[_Block]:
    """Block-level text in document order; a ``<br><br>`` also separates blocks."""
    blocks: list[_Block] = []
    buffer: list[str] = []

    def flush() -> None:
        if not buffer:
            return
        joined = "".join(buffer)
        buffer.clear()
        parts = [_normalise(part) for part in _BR_BREAK.split(joined.replace("\x00", " "))]
        if not any(parts):
            # an empty paragraph (<p><br></p>, <p>&nbsp;</p>) separates paragraphs;
            # whitespace between tags does not
            if "\n" in joined or "\x00" in joined:
                blocks.append(_Block("", blank=True))
            return
        for text in parts:
            if text:
                blocks.append(_Block(text))

    stack: list[tuple[Iterator[PageElement], bool]] = [(iter(list(soup.contents)), True)]
    while stack:
        children, is_block = stack[-1]
        node = next(children, None)
        if node is None:
            stack.pop()
            if is_block:
                flush()
            continue
        if isinstance(node, Tag):
            name = node.name
            if name in _SKIP_TAGS or _hidden(node):
                continue
            if name == "table":
                flush()
                blocks.extend(_table_blocks(node))
                continue
            if name == "br":
                buffer.append("\n")
                continue
            block = name in _BLOCK_TAGS
            if block:
                flush()
            stack.append((iter(node.contents), block))
        elif isinstance(node, NavigableString) and not isinstance(node, PreformattedString):
            text = _SPACES.sub(" ", str(node))
            if text == " " and str(node).strip(" \t\r\n\f"):
                text = "\x00"   # only non-breaking spaces: marks an empty paragraph
            buffer.append(text)
    flush()
    return blocks


def _cell_text(cell: Tag) -> str:
    """A table cell's visible text (``<br>`` as a space, hidden content skipped)."""
    parts: list[str] = []
    stack: list[Iterator[PageElement]] = [iter(cell.contents)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif isinstance(node, Tag):
            if node.name == "br":
                parts.append(" ")
            elif node.name not in _SKIP_TAGS and not _hidden(node):
                stack.append(iter(node.contents))
        elif isinstance(node, NavigableString) and not isinstance(node, PreformattedString):
            parts.append(str(node))
    return _normalise("".join(parts))


def _table_blocks(table: Tag) -> list[_Block]:
    """One block per row of ``table`` (rows of nested tables belong to those tables)."""
    out: list[_Block] = []
    for row in table.find_all("tr"):
        if row.find_parent("table") is not table:
            continue
        cells = [_cell_text(c) for c in row.find_all(["td", "th"], recursive=False)]
        cells = [c for c in cells if c]
        if not cells:
            continue
        text = " ".join(cells)
        long_cells = [c for c in cells if len(c) >= MIN_PARAGRAPH]
        prose = (len(long_cells) == 1 and all(len(c) <= 3 or c is long_cells[0] for c in cells)
                 and _is_sentence(long_cells[0]))
        out.append(_Block(long_cells[0] if prose else text, table=not prose))
    return out


def _is_sentence(text: str) -> bool:
    """Running prose in a table cell: several words, mostly letters, ending like a sentence or a
    list entry (a row label ending in ":" is not prose)."""
    letters = sum(ch.isalpha() for ch in text)
    words = text.split()
    return (len(words) >= 8 and letters >= 0.6 * len(text)
            and (text.rstrip("”’\"') ")[-1:] in ".;!?" or words[-1] in ("and", "or")))


_PAGE_MARK = re.compile(r"^\s*<PAGE>\s*\d*\s*$", re.I | re.M)
_TABULAR_LINE = re.compile(r"\S {3,}\S.*\d|\d.* {3,}\S|\.{4,}|-{5,}|={5,}")


def _text_blocks(body: str) -> list[_Block]:
    """Blocks of a plain-text document: paragraphs separated by blank lines."""
    body = html.unescape(_PAGE_MARK.sub("\n", body.replace("\r\n", "\n")))
    blocks: list[_Block] = []
    for chunk in re.split(r"\n[ \t]*\n", body):
        lines = [ln for ln in chunk.split("\n") if ln.strip()]
        if not lines:
            continue
        if len(lines) > 1 and _parse_heading(lines[0].strip()) is not None:
            # a heading line (wrapped over upper-case lines) directly above its text
            size = 1
            while size < len(lines) and not re.search(r"[a-z]", lines[size]):
                size += 1
            blocks.append(_Block(_normalise(" ".join(lines[:size]))))
            lines = lines[size:]
            if not lines:
                continue
        tabular = sum(bool(_TABULAR_LINE.search(ln)) or _figure_line(ln) for ln in lines) * 2 \
            >= len(lines) > 1
        text = _normalise(" ".join(lines))
        if text:
            blocks.append(_Block(text, table=tabular))
    return blocks


# ---------------------------------------------------------------------------------------------
# Items: headings, choice of one heading per item, paragraphs

_HEADING = re.compile(
    r"(?:part\s+[ivx]{1,3}\b[\s.,:;|\-–—]*)?items?\s*(\d{1,2})([a-d](?![a-z]))?(?!\d|\.\d)"
    r"((?:\s*(?:,|and|&)\s*\d{1,2}(?:[a-d](?![a-z]))?(?!\d|\.\d))*)", re.I)
_MORE_ITEMS = re.compile(r"(\d{1,2})([a-d](?![a-z]))?", re.I)
_TITLE_KEYS = {
    "1": ("business",), "1A": ("risk factors",), "1B": ("unresolved",), "1C": ("cybersecurity",),
    "2": ("properties", "description of propert"), "3": ("legal proceedings",),
    "4": ("mine safety", "submission of matters", "(removed", "[reserved", "reserved"),
    "5": ("market for",), "6": ("selected", "[reserved", "reserved"),
    "7": ("management",), "7A": ("quantitative and qualitative",),
    "8": ("financial statements", "consolidated financial statements"),
    "9": ("changes in and disagreements",), "9A": ("controls and procedures",),
    "9B": ("other information",), "9C": ("disclosure regarding foreign",),
}
_HEADING_MAX = 200


_FULL_TITLES = {
    "1": r"business",
    "3": r"legal proceedings",
    "7": r"management[’']?s discussion and analysis of financial condition and results of "
         r"operations",
    "7A": r"quantitative and qualitative disclosures? (?:about|of|regarding) market risks?",
    "8": r"(?:consolidated )?financial statements and supplementa(?:ry|l) (?:data|information)",
}


def _run_in_text(text: str, items: tuple[str, ...]) -> str | None:
    """The text that follows an item's title in the same block, when it is a paragraph."""
    match = _HEADING.match(text)
    if match is None:
        return None
    rest = text[match.end():].lstrip(" .:;|-–—")
    for item in items:
        title = _FULL_TITLES.get(item)
        found = re.match(title, rest, re.I) if title else None
        if found:
            rest = rest[found.end():]
            rest = re.sub(r"^(?:\s*(?:and|&)\s*" + "|".join(
                f"(?:{t})" for t in _FULL_TITLES.values()) + r")", "", rest, flags=re.I)
    rest = rest.lstrip(" .:;|-–—")
    if len(text) > _HEADING_MAX and rest and not _is_paragraph(rest):
        return text   # a long block that merely starts like a heading: keep it whole
    return rest if _is_paragraph(rest) else None


def _item_order(item: str) -> int:
    number = int(item.rstrip("ABCD"))
    letter = item[len(str(number)):]
    return number * 10 + (ord(letter) - ord("A") + 1 if letter else 0)


def _parse_heading(text: str) -> tuple[str, ...] | None:
    """The item(s) a block introduces (``("7",)``, ``("7", "7A")``), or None."""
    match = _HEADING.match(text)
    if match is None:
        return None
    items = [match.group(1).lstrip("0") + (match.group(2) or "").upper()]
    for number, letter in _MORE_ITEMS.findall(match.group(3) or ""):
        items.append(number.lstrip("0") + letter.upper())
    if any(not item or item[0] == "0" for item in items):
        return None
    rest = text[match.end():].lstrip(" .:;|-–—")
    if rest and not (rest[0].isupper() or rest[0] in "[(\"'“‘"):
        return None   # "Item 1A of this report …": a cross-reference in prose
    if len(text) > _HEADING_MAX:
        keys = _TITLE_KEYS.get(items[0], ())
        if not any(rest.lower().startswith(key) for key in keys):
            return None
    return tuple(items)


def _digit_free(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())


@dataclass
class _Heading:
    index: int               # block index
    items: tuple[str, ...]
    low: int                 # order of the first item
    high: int                # order of the last item
    score: int = 0           # text that follows it before the next heading


def _extract_items(raw_blocks: list[_Block]) -> tuple[dict[str, list[str]], list[str]]:
    """The paragraphs of each wanted item, and the problems met."""
    blocks = _clean_blocks(raw_blocks)
    headings: list[_Heading] = []
    for index, block in enumerate(blocks):
        items = None if block.table and len(block.text) > _HEADING_MAX else \
            _parse_heading(block.text)
        if items is not None:
            orders = [_item_order(item) for item in items]
            headings.append(_Heading(index, items, min(orders), max(orders)))
    heading_at = {h.index for h in headings}
    # score: the text between a heading and the next heading (tables count a quarter), plus
    # any run-in text, plus one so that of two equal chains the one with more headings wins
    bounds = [h.index for h in headings] + [len(blocks)]
    for number, heading in enumerate(headings):
        opening = _run_in_text(blocks[heading.index].text, heading.items) or ""
        heading.score = 1 + len(opening) + sum(
            len(b.text) // 4 if b.table else len(b.text)
            for b in blocks[heading.index + 1:bounds[number + 1]])
    chain = _best_chain(headings)

    def paragraphs(start: int, end: int) -> list[str]:
        return [blocks[i].text for i in range(start, end)
                if i not in heading_at and not blocks[i].table and _is_paragraph(blocks[i].text)]

    sections: dict[str, list[str]] = {}
    for position, heading in enumerate(chain):
        end = chain[position + 1].index if position + 1 < len(chain) else len(blocks)
        found = paragraphs(heading.index + 1, end)
        run_in = _run_in_text(blocks[heading.index].text, heading.items)
        if run_in:  # "ITEM 3. LEGAL PROCEEDINGS. We are a defendant in …"
            found.insert(0, run_in)
        if "8" in heading.items and _is_pointer(found):
            part_iv = [h.index for h in chain if h.low >= _item_order("15")]
            start = _financial_statements_start(blocks, part_iv[0] if part_iv else end)
            if start is not None:
                found = paragraphs(start, _financial_statements_end(blocks, start, chain))
        for item in heading.items:
            if item in ITEMS and item not in sections:
                sections[item] = list(found)
    problems: list[str] = []
    for item in ITEMS:
        label = f"Item {item} ({_ITEM_TITLES[item]})"
        if item not in sections:
            problems.append(f"{label} not found")
        elif not sections[item]:
            problems.append(f"{label}: heading found but no paragraph of "
                            f"{MIN_PARAGRAPH}+ characters")
    return {item: sections[item] for item in ITEMS if item in sections}, problems


_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]*]*(?:\(\d\)|\*|†)?$")
_CONTINUES = re.compile(r"^[a-z(]")


def _is_paragraph(text: str) -> bool:
    """Prose worth keeping: 40+ characters, mostly letters, sentence-like (not a subheading,
    a table caption or a line of figures)."""
    if len(text) < MIN_PARAGRAPH:
        return False
    letters = sum(ch.isalpha() for ch in text)
    digits = sum(ch.isdigit() for ch in text)
    if letters < 0.5 * len(text.replace(" ", "")) or digits > 0.25 * len(text.replace(" ", "")):
        return False
    return bool(_SENTENCE_END.search(text)) or len(text.split()) >= 15


def _clean_blocks(blocks: list[_Block]) -> list[_Block]:
    """Drop running headers/footers, rejoin lines and paragraphs split by page breaks.

    Documents converted from text keep one ``<p>`` per printed line, with empty
    ``<p><br></p>`` between paragraphs ("line mode"): their lines are rejoined between the
    blank separators. In every document a block that starts in lower case continues an
    unfinished previous block (a paragraph split by a page break).
    """
    counts = Counter(_digit_free(b.text) for b in blocks if b.text and len(b.text) <= 100)
    kept = [b for b in blocks
            if b.blank or b.table or len(b.text) > 100 or counts[_digit_free(b.text)] < 3
            or _parse_heading(b.text) is not None]
    prose = [b.text for b in kept if not b.blank and not b.table and len(b.text) >= MIN_PARAGRAPH]
    wrapped = sum(len(t) <= 100 and not _SENTENCE_END.search(t) for t in prose)
    line_mode = sum(b.blank for b in kept) >= 10 and wrapped >= 0.4 * max(len(prose), 1)
    merged: list[_Block] = []
    open_run = False   # line mode: the last block may take the next line
    for block in kept:
        if block.blank:
            open_run = False
            continue
        if line_mode and not block.table and _figure_line(block.text):
            block = _Block(block.text, table=True)
        heading = _parse_heading(block.text) is not None
        last = merged[-1] if merged else None
        if last is not None and not block.table and not last.table and not heading \
                and _parse_heading(last.text) is None \
                and ((line_mode and open_run)
                     or (_CONTINUES.match(block.text) and not _SENTENCE_END.search(last.text))):
            last.text = f"{last.text} {block.text}"
        else:
            merged.append(_Block(block.text, table=block.table))
        open_run = line_mode and not block.table and not heading
    return merged


_RULE = re.compile(r"-{4,}|={4,}|_{4,}|\.{5,}")
_NUMBER_TOKEN = re.compile(r"^[($]*-?\d[\d,.]*\)?%?$|^[$-]$")


def _figure_line(text: str) -> bool:
    """A printed line of a text-drawn table: rules or mostly numbers."""
    if _RULE.search(text):
        return True
    tokens = text.split()
    numbers = sum(bool(_NUMBER_TOKEN.match(t)) for t in tokens)
    return numbers >= 2 and numbers >= 0.45 * len(tokens)


_POINTER_TEXT = re.compile(
    r"set forth|included|incorporated|beginning on|following|appear|\bF-\d|item 15|part iv",
    re.I)
_AUDIT_REPORT = re.compile(r"^report of independent (?:registered )?(?:public )?accounting firm",
                           re.I)
_AFTER_STATEMENTS = re.compile(r"^(?:signatures?|exhibit index|index to exhibits|exhibits)$", re.I)


def _is_pointer(paragraphs: list[str]) -> bool:
    """Whether an Item 8 only points at financial statements placed elsewhere (F-pages)."""
    return (len(paragraphs) <= 3 and sum(map(len, paragraphs)) < 800
            and all(_POINTER_TEXT.search(p) for p in paragraphs))


def _financial_statements_start(blocks: list[_Block], after: int) -> int | None:
    """The auditor's report heading that opens F-pages placed in or after Part IV, if any."""
    for index in range(after, len(blocks)):
        block = blocks[index]
        if not block.table and len(block.text) <= 100 and _AUDIT_REPORT.match(block.text):
            return index
    return None


def _financial_statements_end(blocks: list[_Block], start: int, chain: list[_Heading]) -> int:
    ends = [h.index for h in chain if h.index > start]
    ends += [i for i in range(start, len(blocks))
             if not blocks[i].table and _AFTER_STATEMENTS.match(blocks[i].text)][:1]
    return min(ends, default=len(blocks))


class _PrefixMax:
    """A Fenwick tree of (value, -index) maxima over positions 0..size-1."""

    def __init__(self, size: int) -> None:
        self._tree = [(0, 1)] * (size + 1)   # (0, 1): nothing, read as index -1

    def add(self, position: int, value: int, index: int) -> None:
        """Record ``value`` of the heading ``index`` at ``position``."""
        k = position + 1
        while k < len(self._tree):
            self._tree[k] = max(self._tree[k], (value, -index))
            k += k & -k

    def below(self, position: int) -> tuple[int, int]:
        """(the largest value at positions < ``position``, the first index with it) or
        (0, -1)."""
        found, k = (0, 1), position
        while k > 0:
            found = max(found, self._tree[k])
            k -= k & -k
        return found[0], -found[1]


def _best_chain(headings: list[_Heading]) -> list[_Heading]:
    """Headings in increasing item order and document order that cover the most text.

    Each heading extends the best chain among the earlier headings of a lower item order
    (the first of equal ones); a prefix-maximum tree over item orders finds it in
    O(log n), so a document with tens of thousands of "Item" lines stays fast.
    """
    if not headings:
        return []
    tree = _PrefixMax(max(h.high for h in headings) + 1)
    best: list[int] = []
    previous: list[int] = []
    for i, heading in enumerate(headings):
        top, link = tree.below(heading.low)
        best.append(heading.score + top)
        previous.append(link)
        tree.add(heading.high, best[-1], i)
    top = max(range(len(headings)), key=lambda k: (best[k], -k))
    chain: list[_Heading] = []
    while top >= 0:
        chain.append(headings[top])
        top = previous[top]
    return chain[::-1]


# ---------------------------------------------------------------------------------------------
# Inline XBRL


class _Xbrl:
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
                    self.dei[name] = _normalise(tag.get_text())
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
                failed.append(f"{name[:80]}={_normalise(tag.get_text())[:40]!r}")
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
                self.identifier = _normalise(child.get_text())
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
    text = _normalise(tag.get_text())
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


# ---------------------------------------------------------------------------------------------
# Metadata


def _parse_date(text: str) -> date | None:
    cleaned = _normalise(text).replace(".", "").replace("Sept ", "Sep ")
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


def _fill_from_dei(filing: Filing, xbrl: _Xbrl) -> None:
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


def _fill_from_header(filing: Filing, header: dict[str, str]) -> None:
    if not header:
        return
    filing.cik = filing.cik or _cik_in_field(header.get("CENTRAL INDEX KEY"))
    filing.name = filing.name or header.get("COMPANY CONFORMED NAME")
    if filing.period_end is None and "CONFORMED PERIOD OF REPORT" in header:
        filing.period_end = _parse_date(header["CONFORMED PERIOD OF REPORT"])


def _fill_from_path(filing: Filing, path: Path, header: dict[str, str]) -> None:
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


# ---------------------------------------------------------------------------------------------
# Chunks (FCMR B.4) and boilerplate


def chunk_paragraphs(paragraphs: list[str], size: int = 3) -> list[list[str]]:
    """Consecutive groups of ``size`` paragraphs (FCMR B.4: three).

    A shorter last group is kept only when it has at least two paragraphs.
    """
    if size < 1:
        raise ValueError(f"chunk size must be at least 1, not {size}")
    groups = [paragraphs[i:i + size] for i in range(0, len(paragraphs), size)]
    if groups and len(groups[-1]) < size and len(groups[-1]) < 2:
        groups.pop()
    return groups


_EMPTY_ANSWER = re.compile(
    r"^(?:item\s+\d{1,2}[a-d]?\b[^a-z]*(?:[a-z' ’,&]{0,80}?[.:\-–—]\s*)?)?"
    r"(?:none|not applicable|n/?a|\[?reserved\]?|omitted|intentionally omitted|not required|"
    r"not required for smaller reporting compan(?:y|ies)|"
    r"no (?:such )?(?:legal )?proceedings|there (?:are|were) no [a-z ]{0,60})\.?$", re.I)
_FLS = re.compile(r"forward[- ]looking", re.I)
_FLS_DISCLAIMER = re.compile(
    r"reform act|safe harbor|no (?:duty|obligation) to (?:publicly )?(?:update|revise)|"
    r"undertakes? no obligation|assumes? no obligation|actual (?:results|events)[a-z ,]{0,40}"
    r"differ materially|identified by (?:the )?(?:use of )?words|words such as|"
    r"section 27a|section 21e|are not guarantees|speak only as of", re.I)
_POINTER = re.compile(
    r"^[•\-–—*]?\s*(?:\(\w{1,3}\)\s*)?(?:please\s+)?(?:see|refer to)\b|"
    r"^[•\-–—*]?\s*(?:\(\w{1,3}\)\s*)?for (?:additional|further|more|a|an|the|information)\b"
    r".{0,200}?[,;]?\s*(?:please\s+)?(?:see|refer to)\b|"
    r"^(?:the )?information (?:required|called for|set forth)\b|"
    r"incorporated (?:herein )?by reference", re.I)
_NOT_REQUIRED = re.compile(r"\bnot required\b.{0,80}\bsmaller reporting compan|"
                           r"\bsmaller reporting compan.{0,80}\bnot required\b", re.I)
_SIGNATURE = re.compile(
    r"/s/|pursuant to the requirements of (?:section 13 or 15\(d\) of )?the securities "
    r"exchange act|duly authorized|power of attorney|\bsignatures?\b.{0,40}\btitle\b", re.I)
_EXHIBIT_NUMBER = re.compile(
    r"(?<![\d$.,])\d{1,3}\.\d{1,3}[*†+#]?(?![\d%,])(?!\s*(?:million|billion|thousand|percent|"
    r"%|x\b|times))", re.I)
_EXHIBIT_WORDS = re.compile(
    r"\bexhibits?\b|filed herewith|furnished herewith", re.I)
_TOC_ITEM = re.compile(r"\bitem\s+\d{1,2}[a-d]?\b\.?", re.I)
_PAGE_HEADER = re.compile(
    r"^(?:table of contents|index|page \d+|\d{1,3}|[ivx]{1,5}|f-\d{1,3})$|"
    r"(?:form 10-k|annual report)\s*\|?\s*(?:page\s*)?\d{1,3}$", re.I)
_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+[\"'”’)]*|$)")


def is_boilerplate(text: str) -> bool:
    """Whether a chunk (or paragraph) has no substance and should be dropped.

    Conservative: a text is boilerplate when

    * it has fewer than 20 letters, or is a bare answer such as "None.", "Not applicable.",
      "[Reserved]", "Not required for smaller reporting companies." (optionally after its
      "Item N. Title" heading), or a page header/footer
      ("Table of Contents", a lone page number, "… Form 10-K | 23");
    * it looks like a table-of-contents fragment (three or more "Item N" references, at most
      100 characters per reference);
    * it looks like an exhibit list (three or more exhibit numbers such as "10.1", not
      amounts like "2.1 million", together with "Exhibit", "filed herewith" or "furnished
      herewith");
    * it contains a signature block ("/s/", "duly authorized", "pursuant to the requirements
      of the Securities Exchange Act", "power of attorney");
    * at least 60 % of its characters are in sentences that are forward-looking-statement
      disclaimers ("forward-looking" plus a disclaimer phrase such as "Reform Act",
      "undertakes no obligation", "differ materially"), bare answers, smaller-reporting-
      company exemptions ("… not required …"), or cross-reference
      pointers under 250 characters (sentences that start with "See …", "Refer to …",
      "For additional information, see …", "The information required by this item …", or
      that say "incorporated herein by reference").

    Substantive text that merely mentions a note or forward-looking statements is kept.
    """
    clean = _normalise(text)
    if sum(ch.isalpha() for ch in clean) < 20:
        return True
    if _EMPTY_ANSWER.match(clean) or (len(clean) <= 100 and _PAGE_HEADER.search(clean)):
        return True
    items = len(_TOC_ITEM.findall(clean))
    if items >= 3 and len(clean) <= 100 * items:
        return True
    if len(_EXHIBIT_NUMBER.findall(clean)) >= 3 and _EXHIBIT_WORDS.search(clean):
        return True
    if _SIGNATURE.search(clean):
        return True
    flagged = 0
    for sentence in _SENTENCE.findall(clean):
        stripped = sentence.strip()
        if not stripped:
            continue
        if ((_FLS.search(stripped) and _FLS_DISCLAIMER.search(stripped))
                or _EMPTY_ANSWER.match(stripped) or _NOT_REQUIRED.search(stripped)
                or (len(stripped) < 250 and _POINTER.search(stripped))):
            flagged += len(stripped)
    return flagged >= 0.6 * len(clean)
