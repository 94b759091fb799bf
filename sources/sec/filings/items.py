"""10-K filings: the items -- one heading chosen per item, and each item's paragraphs."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from hopvista.sources.sec.filings.blocks import MIN_PARAGRAPH, Block
from hopvista.sources.sec.filings.lines import (
    FULL_TITLES,
    HEADING,
    HEADING_MAX,
    figure_line,
    item_order,
    parse_heading,
)
from hopvista.sources.sec.model import ITEMS

_ITEM_TITLES = {"1": "Business", "3": "Legal Proceedings",
                "7": "Management's Discussion and Analysis", "7A": "Market Risk",
                "8": "Financial Statements"}

def _run_in_text(text: str, items: tuple[str, ...]) -> str | None:
    """The text that follows an item's title in the same block, when it is a paragraph."""
    match = HEADING.match(text)
    if match is None:
        return None
    rest = text[match.end():].lstrip(" .:;|-–—")
    for item in items:
        title = FULL_TITLES.get(item)
        found = re.match(title, rest, re.I) if title else None
        if found:
            rest = rest[found.end():]
            rest = re.sub(r"^(?:\s*(?:and|&)\s*" + "|".join(
                f"(?:{t})" for t in FULL_TITLES.values()) + r")", "", rest, flags=re.I)
    rest = rest.lstrip(" .:;|-–—")
    if len(text) > HEADING_MAX and rest and not _is_paragraph(rest):
        return text   # a long block that merely starts like a heading: keep it whole
    return rest if _is_paragraph(rest) else None


def _digit_free(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())


@dataclass
class _Heading:
    index: int               # block index
    items: tuple[str, ...]
    low: int                 # order of the first item
    high: int                # order of the last item
    score: int = 0           # text that follows it before the next heading


def extract_items(raw_blocks: list[Block]) -> tuple[dict[str, list[str]], list[str]]:
    """The paragraphs of each wanted item, and the problems met."""
    blocks = _clean_blocks(raw_blocks)
    headings: list[_Heading] = []
    for index, block in enumerate(blocks):
        items = None if block.table and len(block.text) > HEADING_MAX else \
            parse_heading(block.text)
        if items is not None:
            orders = [item_order(item) for item in items]
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
            part_iv = [h.index for h in chain if h.low >= item_order("15")]
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


def _clean_blocks(blocks: list[Block]) -> list[Block]:
    """Drop running headers/footers, rejoin lines and paragraphs split by page breaks.

    Documents converted from text keep one ``<p>`` per printed line, with empty
    ``<p><br></p>`` between paragraphs ("line mode"): their lines are rejoined between the
    blank separators. In every document a block that starts in lower case continues an
    unfinished previous block (a paragraph split by a page break).
    """
    counts = Counter(_digit_free(b.text) for b in blocks if b.text and len(b.text) <= 100)
    kept = [b for b in blocks
            if b.blank or b.table or len(b.text) > 100 or counts[_digit_free(b.text)] < 3
            or parse_heading(b.text) is not None]
    prose = [b.text for b in kept if not b.blank and not b.table and len(b.text) >= MIN_PARAGRAPH]
    wrapped = sum(len(t) <= 100 and not _SENTENCE_END.search(t) for t in prose)
    line_mode = sum(b.blank for b in kept) >= 10 and wrapped >= 0.4 * max(len(prose), 1)
    merged: list[Block] = []
    open_run = False   # line mode: the last block may take the next line
    for block in kept:
        if block.blank:
            open_run = False
            continue
        if line_mode and not block.table and figure_line(block.text):
            block = Block(block.text, table=True)
        heading = parse_heading(block.text) is not None
        last = merged[-1] if merged else None
        if last is not None and not block.table and not last.table and not heading \
                and parse_heading(last.text) is None \
                and ((line_mode and open_run)
                     or (_CONTINUES.match(block.text) and not _SENTENCE_END.search(last.text))):
            last.text = f"{last.text} {block.text}"
        else:
            merged.append(Block(block.text, table=block.table))
        open_run = line_mode and not block.table and not heading
    return merged


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


def _financial_statements_start(blocks: list[Block], after: int) -> int | None:
    """The auditor's report heading that opens F-pages placed in or after Part IV, if any."""
    for index in range(after, len(blocks)):
        block = blocks[index]
        if not block.table and len(block.text) <= 100 and _AUDIT_REPORT.match(block.text):
            return index
    return None


def _financial_statements_end(blocks: list[Block], start: int, chain: list[_Heading]) -> int:
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
