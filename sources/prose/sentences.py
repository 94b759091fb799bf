"""Sentences of a passage, and the shapes of sentence that never give a fact.

Splitting is the 10-K splitter (:func:`hopvista.sources.sec.facts.sentence_spans`), with a few
more abbreviations of ordinary prose ("Mt.", "Rev.", "Capt.") mended afterwards. A sentence
gives no fact when it is hedged, forward-looking or an opinion, negated, a question or an
exclamation, quoted, in the first or second person, list-like, or of an odd shape (too short
or long, no final period, brackets, dashes).
"""

from __future__ import annotations

import re

from hopvista.sources.prose.words import words
from hopvista.sources.sec.facts import BOILERPLATE, HEDGE, MAX_WORDS, broken_words, sentence_spans

__all__ = ["MIN_WORDS", "prose_sentence_spans", "shape_problem"]

MIN_WORDS = 4

#: Abbreviations the 10-K splitter does not know; a sentence never ends after them when a
#: capitalised word follows.
_MORE_ABBREVIATIONS = words("mt ft rev gen capt col lt sgt hon gov pres messrs cllr supt insp"
                            " nr rd")


def prose_sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the sentences of ``text``; each slice is stripped."""
    merged: list[tuple[int, int]] = []
    for start, end in sentence_spans(text):
        if merged:
            prev_start, prev_end = merged[-1]
            last = text[prev_start:prev_end].split()[-1]
            gap = text[prev_end:start]
            if (re.fullmatch(r"\(?[A-Za-z]+\.", last) and "\n" not in gap
                    and last.strip("(.").lower() in _MORE_ABBREVIATIONS
                    and text[start:start + 1].isupper()):
                merged[-1] = (prev_start, end)
                continue
        merged.append((start, end))
    return merged


#: Hedges, opinions and forward-looking words of ordinary prose, beyond the 10-K ones.
_PROSE_HEDGE = re.compile(
    r"\b(?:reportedly|allegedly|apparently|supposedly|perhaps|maybe|seems?|seemed"
    r"|appears?\s+to|appeared\s+to|said\s+to|thought\s+to|rumou?red|claims?\s+(?:that|to)"
    r"|claimed\s+(?:that|to)|according\s+to|often|usually|sometimes|occasionally|rarely"
    r"|arguably|widely|considered|regarded|reputed(?:ly)?|famous|famously|renowned|popular"
    r"|celebrated|iconic|legendary|notorious|beautiful|stunning|impressive|wonderful"
    r"|well[\s\-]known|best[\s\-]known|known\s+for|proposed|proposals?|scheduled|upcoming"
    r"|soon|hopefully|unclear|disputed|almost\s+certainly|nearly\s+certainly|some\s+say)\b",
    re.IGNORECASE)

_NEGATION = re.compile(
    r"\b(?:not|never|no|none|nor|neither|nobody|nothing|nowhere|without|cannot|lacks?|lacked"
    r"|lacking|fail(?:s|ed)?\s+to|hardly|barely|scarcely|unable)\b|n[’']t\b", re.IGNORECASE)

_LIST_WORDS = re.compile(
    r"\b(?:etc|including|includes|included|such\s+as|among\s+(?:them|others)|e\.g|i\.e"
    r"|and\s+so\s+on|as\s+well\s+as|respectively)\b", re.IGNORECASE)

_ITEM = r"[^,\s]+(?:\s[^,\s]+){0,2}"
_SERIES = re.compile(r"(?:^|\s)" + _ITEM + r",\s(" + _ITEM + r"),?\s(?:and|or)\s")
_CLAUSE_WORDS = words("which who whose whom where when while and but although though that the"
                      " it its they their he she his her")

_PERSON = re.compile(r"\b(?:we|us|our|ours|ourselves|you|your|yours|my|me|mine)\b"
                     r"|\b(?:We|Our|Ours|You|Your|My)\b|\bI\b(?=\s+[a-z])")


def _hedged(text: str) -> bool:
    for pattern in (HEDGE, _PROSE_HEDGE):
        for match in pattern.finditer(text):
            word = match.group(0)
            after = text[match.end():match.end() + 2]
            before = text[max(0, match.start() - 12):match.start()]
            if word[:1].isupper() and (match.start() > 0 or re.match(r" [A-Z0-9]", after)):
                continue  # a name or a month: "Will Harper", "in May 1911"
            if word[:1].isupper() and re.search(r"\d\s+$", before):
                continue
            if word.lower() in ("goal", "goals", "target", "targets") and re.search(
                    r"(?:\d|\b(?:league|cup|career|international))\S*\s+(?:\w+\s+)?$", before):
                continue  # "scored 30 league goals": a count, not an aim
            return True
    return False


def _boilerplate(text: str) -> bool:
    for match in BOILERPLATE.finditer(text):
        word = match.group(0).lower()
        if word == "elected" or word.startswith(("recogni", "classif")):
            continue  # ordinary words in prose ("was elected mayor", "recognised as a city")
        return True
    return False


def _list_like(text: str) -> bool:
    if any(ch in text for ch in ":;•…") or _LIST_WORDS.search(text):
        return True
    for match in _SERIES.finditer(text):
        first = match.group(1).split()[0].lower()
        if first not in _CLAUSE_WORDS:
            return True
    return False


def shape_problem(sentence: str) -> str | None:
    """Why ``sentence`` (whitespace-normalised) can give no fact, or ``None``.

    One of ``"question"``, ``"quoted"``, ``"person"`` (first or second person), ``"list"``,
    ``"negated"``, ``"hedged"`` (also opinions, forward-looking words and boilerplate) and
    ``"shape"`` (length, final period, brackets, dashes, broken words).
    """
    if "?" in sentence or "!" in sentence:
        return "question"
    if re.search(r"[\"“”‘]|(?:^|[\s(])'\w", sentence):
        return "quoted"
    if _PERSON.search(sentence):
        return "person"
    if _list_like(sentence):
        return "list"
    if _NEGATION.search(sentence):
        return "negated"
    if _hedged(sentence) or _boilerplate(sentence):
        return "hedged"
    n_words = len(sentence.split())
    if not MIN_WORDS <= n_words <= MAX_WORDS or not sentence.endswith(".") \
            or sentence.endswith(".."):
        return "shape"
    if any(ch in sentence for ch in "[]{}—") or re.search(r"\s[–\-]\s", sentence):
        return "shape"
    if sentence.count("(") != sentence.count(")") or sentence.count("(") > 1:
        return "shape"
    return "shape" if broken_words(sentence) else None
