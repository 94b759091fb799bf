"""10-K filings: what a line of text is -- an item heading, a printed line of figures."""

from __future__ import annotations

import re

HEADING = re.compile(
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
HEADING_MAX = 200


FULL_TITLES = {
    "1": r"business",
    "3": r"legal proceedings",
    "7": r"management[’']?s discussion and analysis of financial condition and results of "
         r"operations",
    "7A": r"quantitative and qualitative disclosures? (?:about|of|regarding) market risks?",
    "8": r"(?:consolidated )?financial statements and supplementa(?:ry|l) (?:data|information)",
}


def item_order(item: str) -> int:
    """Where an item stands among the items ("7" before "7A" before "8")."""
    number = int(item.rstrip("ABCD"))
    letter = item[len(str(number)):]
    return number * 10 + (ord(letter) - ord("A") + 1 if letter else 0)


def parse_heading(text: str) -> tuple[str, ...] | None:
    """The item(s) a block introduces (``("7",)``, ``("7", "7A")``), or None."""
    match = HEADING.match(text)
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
    if len(text) > HEADING_MAX:
        keys = _TITLE_KEYS.get(items[0], ())
        if not any(rest.lower().startswith(key) for key in keys):
            return None
    return tuple(items)


_RULE = re.compile(r"-{4,}|={4,}|_{4,}|\.{5,}")
_NUMBER_TOKEN = re.compile(r"^[($]*-?\d[\d,.]*\)?%?$|^[$-]$")


def figure_line(text: str) -> bool:
    """A printed line of a text-drawn table: rules or mostly numbers."""
    if _RULE.search(text):
        return True
    tokens = text.split()
    numbers = sum(bool(_NUMBER_TOKEN.match(t)) for t in tokens)
    return numbers >= 2 and numbers >= 0.45 * len(tokens)
