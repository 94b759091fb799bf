"""Choosing the needle of a claim: a short phrase of both the sentence and the claim that
identifies the fact, quoted verbatim.

Candidates, each with a kind and a score (higher is more distinctive):

- counts and measures: "18,400 spectators", "85 young players", "1,450 °C", "£2 million",
  "four stands" (the 10-K rules' :func:`~hopvista.sources.sec.facts.needles_of` for figures,
  with units, other currencies and spelled-out numbers added);
- names: "Tom Hadley" (a person: a title, or a role such as "coached by"), "Meadow Lane",
  "St. James' Park", "Northway Bank"; a single-word name only with the verb before it
  ("located in Kent");
- dates with their event: "founded in 1889", "launched on 3 May 1911" (a year alone says
  too little: many entities' texts mention 1889).

A needle never contains the entity's names, is at most seven words long and scores at least
:data:`MIN_SCORE`.
"""

from __future__ import annotations

import re

from hopvista.generation.instance import needle_occurs
from hopvista.sources.prose.names import EntityNames, mentions
from hopvista.sources.prose.words import (
    AUXILIARIES,
    COMMON_CAPS,
    MONTHS,
    NUMBER_WORDS,
    PREPOSITIONS,
    STOP_WORDS,
    TITLES,
    is_past,
    verb_like,
    words,
)
from hopvista.sources.sec.facts import PLACE, WEAK_NOUNS, Candidate, needles_of

__all__ = ["MAX_NEEDLE_WORDS", "MIN_SCORE", "needle_candidates"]

MIN_SCORE = 5
MAX_NEEDLE_WORDS = 7

_WEAK = WEAK_NOUNS | words("seasons season times occasions goals games matches")

_CONNECTORS = words("of upon on de la le du van von der den da di del y &")
_ABBREVIATION = re.compile(r"(?:[A-Z]|" + "|".join(sorted(TITLES | words("St Mt Ft"))) + r")\.")
_ORG_WORDS = words("""
Bank Group Ltd Limited Company Council Trust Society Association Partners Corporation Brewery
Works Foundation University College Club FC Railway Church Motors Industries Holdings Inc plc
Building Insurance Airways Airlines Brothers Bros Sons
""")
_PLACE_SUFFIXES = words("""
Lane Road Street Park Stadium Ground Arena Field Fields Hall Square Bridge Hill Hills Valley
Bay Lake River Sea Ocean Mountains Island Isles Moor Forest Green Way Avenue Quay Dock Docks
Harbour Harbor Estuary Gardens Common Marsh Fen Heath Point Head Sound Firth Gate Cross
Wharf Crescent Terrace Place Row Close Drive
""")
_ROLE_BEFORE = re.compile(
    r"\b(?:coached|managed|captained|chaired|fronted|conducted|directed|headed|trained|led"
    r"|founded|designed|discovered|written|composed|painted|commanded|skippered|produced"
    r"|engineered|sung|named\s+after|in\s+memory\s+of|in\s+hono(?:u)?r\s+of)\s+(?:by\s+)?$"
    r"|\b(?:manager|coach|captain|chairman|chairwoman|chair|president|director|principal"
    r"|dean|chancellor|vice-chancellor|mayor|singer|guitarist|drummer|bassist|frontman"
    r"|founder|architect|designer|surgeon|conductor|skipper|master|commander|owner|head"
    r"|headteacher|headmaster|headmistress|matron)\s+(?:was\s+|is\s+)?$", re.IGNORECASE)
_LOCATIVE_BEFORE = re.compile(
    r"\b(?:at|in|near|into|on|from|to|across|along|beside|beneath|outside|inside|through"
    r"|towards|off|opposite|past|over|under|around)\s+(?:the\s+)?$")


def _name_spans(text: str) -> list[tuple[int, int]]:
    """Spans of runs of capitalised words ("St. James' Park", "Tom Hadley", "Route 66",
    "Newcastle upon Tyne"), never at the start of ``text``."""
    tokens = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"\S+", text)]
    spans: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []

    def flush() -> None:
        while run and text[run[-1][0]:run[-1][1]] in _CONNECTORS:
            run.pop()
        if run:
            spans.append((run[0][0], run[-1][1]))
        run.clear()

    for k, (start, _, raw) in enumerate(tokens):
        core_start = start + len(raw) - len(raw.lstrip("(“‘"))
        core = raw.lstrip("(“‘")
        trailing = len(core) - len(core.rstrip(",;:)”."))
        if _ABBREVIATION.fullmatch(core):
            trailing = 0
        body = core[:len(core) - trailing] if trailing else core
        possessive = re.search(r"['’]s$", body)
        if possessive:
            body = body[:possessive.start()]
        elif body.endswith(("'", "’")):
            following = tokens[k + 1][2] if k + 1 < len(tokens) else ""
            if trailing or not following[:1].isupper():
                body = body[:-1]  # "the Rovers' ground": a possessive ends the name
                trailing = trailing or 1
        capital = bool(re.fullmatch(r"[A-Z][\w\-&]*(?:['’][A-Za-z]*)?\.?", body)) and k > 0
        joins = bool(run) and (body in _CONNECTORS or re.fullmatch(r"\d+[A-Za-z]?", body))
        if capital or joins:
            run.append((core_start, core_start + len(body)))
            if trailing or possessive:
                flush()
        else:
            flush()
    flush()
    out = []
    for start, end in spans:
        span = text[start:end]
        names = [t for t in span.split() if t not in _CONNECTORS and not t[:1].isdigit()]
        if names and not all(t.rstrip(".") in COMMON_CAPS or t.rstrip(".") in TITLES
                             for t in names):
            out.append((start, end))
    return out


def _name_candidates(claim: str) -> list[Candidate]:
    found: list[Candidate] = []
    for start, end in _name_spans(claim):
        span = claim[start:end]
        tokens = span.split()
        before = claim[:start]
        names = [t.rstrip(".") for t in tokens if t not in _CONNECTORS]
        if any(t in _ORG_WORDS for t in names):
            kind = "other"
        elif any(t in TITLES for t in names) or _ROLE_BEFORE.search(before):
            kind = "person"
        elif PLACE.fullmatch(span) or (_LOCATIVE_BEFORE.search(before) and (
                names[-1] in _PLACE_SUFFIXES or not re.search(r"\bwith\s+$", before))):
            kind = "place"
        else:
            kind = "other"
        if len(names) >= 2 or (len(tokens) >= 2 and re.search(r"\d", span)):
            if kind == "person":
                score = 7
            elif len(names) >= 3 or re.search(r"\d|[a-z][A-Z]", span):
                score = 8
            else:
                score = 6
            found.append(Candidate(kind, span, score))
            continue
        word = names[0]
        if re.search(r"\d|[a-z][A-Z]", word) and len(word) >= 3:
            found.append(Candidate(kind, word, 7))  # "U-47", "McLaren"
            continue
        if len(word) < 4 or word in COMMON_CAPS or word in TITLES:
            continue
        if len(word) >= 5 and re.search(r"\bthe\s+$", before) and not PLACE.fullmatch(word):
            found.append(Candidate(kind, word, 5))  # "the Ironmen", "the Resolute"
            continue
        event = _event_before(claim, start)
        if event is not None:
            found.append(Candidate(kind, claim[event:end], 5))
    return found


def _event_before(claim: str, at: int) -> int | None:
    """Offset of the nearest event verb before ``at`` in the same clause, at most six words
    back ("founded in 1889", "built at the Harland yard in Belfast"), or ``None``."""
    prefix = claim[:at]
    offset = max(prefix.rfind(","), prefix.rfind(";")) + 1
    for token in reversed(list(re.finditer(r"\S+", prefix[offset:]))[-6:]):
        low = token.group(0).lower()
        if low in AUXILIARIES or low in STOP_WORDS:
            continue
        first_word = offset == 0 and token.start() == 0
        if is_past(low) or (low.endswith("ing") and len(low) > 5) or (
                first_word and verb_like(low, True)):
            return offset + token.start()
    return None


_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_UNIT = re.compile(
    r"(?<![\w.,])(" + _NUMBER + r")\s?(°\s?[CF]|K|MPa|GPa|kPa|Pa|km²|m²|km2|m2|cm|mm|km|kg"
    r"|g/cm³|g/cm3|kt|mph|km/h|ha|m|t|ft|mi|kW|MW|GW|kV|V|Hz|dB)(?![\w/²³])")
_MONEY = re.compile(r"[£€¥]\s?" + _NUMBER + r"(?:\s?(?:million|billion|thousand|m|bn|k)\b)?")
_SPELLED = re.compile(r"\b(?:(?:" + "|".join(sorted(NUMBER_WORDS)) + r")(?:[\s\-](?:"
                      + "|".join(sorted(NUMBER_WORDS)) + r"))?)\s+((?:[a-z][a-z\-]*\s+){0,2}"
                      r"[a-z][a-z\-]*)", re.IGNORECASE)
_FIGURE = re.compile(r"(?<![\w.,£$€\-])(" + _NUMBER + r")(?![\w%,.\-]\d|[\w\-%°])")
_YEAR = re.compile(r"(?:1\d|20)\d\d")


def _noun_words(text: str, limit: int) -> list[str]:
    """Up to ``limit`` content words at the start of ``text``, stopping at function words
    and punctuation."""
    out: list[str] = []
    for match in re.finditer(r"\s*(\S+)", text):
        word = match.group(1)
        bare = word.rstrip(",;:.)")
        if not re.fullmatch(r"[a-z][a-z\-]*", bare) or bare in STOP_WORDS or verb_like(
                bare, False) and not bare.endswith("s"):
            break
        out.append(bare)
        if bare != word or len(out) == limit:
            break
    return out


def _figure_candidates(claim: str) -> list[Candidate]:
    found: list[Candidate] = []
    for m in _UNIT.finditer(claim):
        digits = len(m.group(1).replace(",", "").replace(".", "").lstrip("0"))
        found.append(Candidate("measure", m.group(0), 10 if digits >= 2 else 5))
    for m in _MONEY.finditer(claim):
        digits = len(re.sub(r"\D", "", m.group(0)).lstrip("0"))
        tail = _noun_words(claim[m.end():], 3)
        needle = " ".join([m.group(0), *tail])
        found.append(Candidate("amount", needle, 8 if digits >= 3 else 6))
    for m in _SPELLED.finditer(claim):
        nouns = _noun_words(" " + m.group(1), 3)
        if nouns and nouns[0] not in _WEAK:
            needle = claim[m.start():m.start(1)] + " ".join(nouns)
            found.append(Candidate("count", needle, 5))
    for m in _FIGURE.finditer(claim):
        number = m.group(1)
        nouns = _noun_words(claim[m.end():], 3)
        if _YEAR.fullmatch(number) and (not nouns or number >= "1500"):
            continue  # a year ("in 1227"), or a year as a modifier ("the 2021 census")
        value = float(number.replace(",", ""))
        strong = len(number.replace(",", "").replace(".", "").lstrip("0")) >= 3 or "," in number \
            or bool(nouns and nouns[0] in ("million", "billion", "thousand"))
        if nouns and nouns[0] not in _WEAK:
            score = 9 if strong else 6 if value >= 10 else 5 if len(nouns) >= 2 else 0
            found.append(Candidate("count", " ".join([number, *nouns]), score))
        elif not nouns and strong:
            found.append(Candidate("count", number, 5))
    for candidate in needles_of(claim, claim):
        numbers = re.findall(r"\d[\d,.]*", candidate.needle)
        if numbers and not all(_YEAR.fullmatch(n.rstrip(",.")) for n in numbers):
            kind = candidate.kind if candidate.kind in ("percent", "amount") else "count"
            found.append(Candidate(kind, candidate.needle, candidate.score))
    return found


_DATE = re.compile(
    r"(?:\b\d{1,2}\s+(?:" + MONTHS + r")\s+\d{4}|\b(?:" + MONTHS + r")\s+\d{1,2},\s+\d{4}"
    r"|\b(?:" + MONTHS + r")\s+\d{4}|\b(?:the\s+)?(?:1[5-9]|20)\d0s|\b1[0-4]\d\d\b(?!\s*[a-z])"
    r"|\b(?:1[5-9]|20)\d\d(?:\s*(?:–|-|to|and)\s*(?:(?:1[5-9]|20)\d\d|\d\d))?)(?![\w\-])")


def _date_candidates(claim: str) -> list[Candidate]:
    found: list[Candidate] = []
    for m in _DATE.finditer(claim):
        full_date = bool(re.search(r"\b(?:" + MONTHS + r")\b", m.group(0))
                         and re.search(r"\b\d{1,2}\b", m.group(0)))
        event = _event_before(claim, m.start())
        if event is not None:
            found.append(Candidate("date", claim[event:m.end()], 7 if full_date else 6))
        elif full_date:
            found.append(Candidate("date", m.group(0), 6))
    return found


_KIND_ORDER = {"count": 0, "measure": 0, "amount": 0, "percent": 0, "employees": 0,
               "facility": 0, "person": 1, "place": 2, "date": 3, "other": 4}


def needle_candidates(claim: str, sentence: str, names: EntityNames) -> list[Candidate]:
    """Usable needles of ``claim`` (made from ``sentence``), best first."""
    best: dict[str, Candidate] = {}
    for candidate in (*_figure_candidates(claim), *_name_candidates(claim),
                      *_date_candidates(claim)):
        tokens = " ".join(candidate.needle.split()).strip(" ,.").split()
        while tokens and (tokens[-1].lower() in STOP_WORDS or tokens[-1].lower() in PREPOSITIONS):
            tokens.pop()
        needle = " ".join(tokens)
        if (candidate.score < MIN_SCORE or not tokens or len(tokens) > MAX_NEEDLE_WORDS
                or not needle_occurs(needle, sentence) or not needle_occurs(needle, claim)
                or mentions(needle, names) or _YEAR.fullmatch(needle)
                or all(t.lower() in STOP_WORDS for t in tokens)
                or any(re.search(r"\bthe\s+" + re.escape(n) + r"\b", needle, re.IGNORECASE)
                       for n in names.nouns)):
            continue
        key = needle.lower()
        if key not in best or best[key].score < candidate.score:
            best[key] = Candidate(candidate.kind, needle, candidate.score)
    return sorted(best.values(), key=lambda c: (-c.score, _KIND_ORDER.get(c.kind, 5),
                                                 claim.lower().find(c.needle.lower())))
