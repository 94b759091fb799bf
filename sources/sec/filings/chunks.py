"""10-K filings: paragraphs grouped into chunks (FCMR B.4), and chunks with no substance."""

from __future__ import annotations

import re

from hopvista.sources.sec.filings.blocks import normalise


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
    clean = normalise(text)
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
