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

One module a step: ``finding`` (the folder layout), ``reader`` (one filing, end to end),
``sgml``, ``blocks`` (the document as text blocks), ``lines`` (headings, lines of figures),
``items``, ``xbrl``, ``metadata`` and ``chunks``.
"""

from hopvista.sources.sec.filings.blocks import MIN_PARAGRAPH
from hopvista.sources.sec.filings.chunks import chunk_paragraphs, is_boilerplate
from hopvista.sources.sec.filings.finding import find_filings
from hopvista.sources.sec.filings.reader import read_filing

__all__ = ["MIN_PARAGRAPH", "chunk_paragraphs", "find_filings", "is_boilerplate", "read_filing"]
