"""Rewriting a sentence about the entity as a claim: a third-person predicate that reads
after any entity's name ("was founded in 1889") or after "the club whose ...".

- name, noun and pronoun subjects: the predicate as written (the verb keeps its agreement:
  "play their home games at The Dell"), a fronted adverbial moved to the end of its main
  clause ("In 2021, the club was coached by Tom Hadley." -> "was coached by Tom Hadley in
  2021");
- possessive subjects: "Its ground holds 18,400 spectators." -> "has a ground that holds 18,400
  spectators"; "Its shirt sponsor since 2017 has been Northway Bank." -> "has had Northway
  Bank as its shirt sponsor since 2017"; "Its capacity is 18,400." -> "has a capacity of
  18,400";
- object subjects: "Sarah Whitcombe coached the club from 2019 to 2022." -> "was coached by
  Sarah Whitcombe from 2019 to 2022";
- an aside about the subject, when the main clause gives nothing: "Founded in 1902, ..." ->
  "was founded in 1902".

:func:`claim_problem` holds the final checks every claim must pass.
"""

from __future__ import annotations

import re

from hopvista.sources.prose.names import EntityNames, mentions
from hopvista.sources.prose.referents import Subject
from hopvista.sources.prose.words import (
    AP,
    AUXILIARIES,
    BASE_VERBS,
    DETERMINERS,
    PREPOSITIONS,
    STOP_WORDS,
    TITLES,
    is_past,
    passive_participle,
    verb_like,
    words,
)
from hopvista.sources.sec.facts import (
    BAD_HEADS,
    MASS_NOUNS,
    SUPERLATIVES,
    attach_adverbial,
    indefinite_article,
)

__all__ = ["claim_problem", "claims_of", "possessive_claim"]

_ORDINALS = words("first second third fourth fifth sixth seventh eighth ninth tenth former"
                  " highest lowest oldest youngest biggest smallest greatest record-breaking")
#: Participles of a state, not an event: "Based in Leeds, ..." -> "is based in Leeds".
_STATE_PARTICIPLES = words("based located situated headquartered known nicknamed named")
_QUALIFIER_START = words("since in from during until between for")
_NUMBER_QUALIFIERS = (r"(?:around|about|approximately|nearly|almost|over|more\s+than|fewer\s+than"
                      r"|less\s+than|just\s+over|just\s+under|some|roughly|up\s+to|at\s+least)")
_NAME_COMPLEMENT = re.compile(
    r"^((?:[Tt]he\s+)?[A-Z][\w'’\-.&]*(?:\s+(?:[A-Z][\w'’\-.&]*|of|upon|on|de|la|van|von|\d+))*)"
    r"(\s+(?:since|in|from|during|until|between)\s+[^,]*\d{4}[^,]*)?$")
_NUMBER_COMPLEMENT = re.compile(
    r"^((?:" + _NUMBER_QUALIFIERS + r"\s+)?[£$€]?\d[\d,]*(?:\.\d+)?(?:\s?(?:%|°\s?[CF]))?"
    r"(?:\s+(?:million|billion|thousand))?(?:\s?(?:g/cm3|g/cm³|km²|m²|MPa|GPa|kPa|K))?"
    r"(?:\s+[a-z][a-z\-]*){0,3})"
    r"(\s+(?:since|in|from|during|until|between)\s+[^,]*\d{4}[^,]*)?$")
_HAVE = {"is": "has", "are": "has", "was": "had", "were": "had", "has been": "has had",
         "have been": "has had"}


def _np_end(tokens: list[str]) -> int | None:
    """Index of the verb after a possessive's noun phrase ("home ground holds ..." -> 2)."""
    for k, token in enumerate(tokens[:6]):
        low = token.lower()
        nxt = tokens[k + 1].lower() if k + 1 < len(tokens) else ""
        if k == 0:
            if not re.fullmatch(r"[a-z][a-z\-]*(?:" + AP + "s)?", token):
                return None
            continue
        if low in AUXILIARIES or (low in _QUALIFIER_START and k > 0):
            return k
        if is_past(low) and nxt in AUXILIARIES:
            continue  # a noun that looks like a past tense: "home ground is", "bound was"
        if is_past(low):
            if low.endswith("ed") and re.fullmatch(r"[a-z][a-z\-]*", nxt) \
                    and nxt not in STOP_WORDS \
                    and nxt not in PREPOSITIONS and nxt not in DETERMINERS:
                return None  # "Its main listed building ...": an adjective, perhaps
            return k
        if low.endswith("s") and verb_like(low, False) and not (
                nxt in AUXILIARIES or verb_like(nxt, True) and not nxt[:1].isdigit()):
            return k
        if low in BASE_VERBS and tokens[k - 1].lower().endswith("s"):
            return k
        if low == "of" and nxt and nxt not in STOP_WORDS:
            continue  # "collection of lace"
        if not re.fullmatch(r"[a-z][a-z\-]*(?:" + AP + "s)?", token) or low in STOP_WORDS:
            return None
    return None


def possessive_claim(rest: str) -> str | None:
    """The claim of a possessive subject, from the words after the owner ("academy trains
    85 young players" -> "has an academy that trains 85 young players"), or ``None``."""
    tokens = rest.split(" ")
    end = _np_end(tokens)
    if end is None or end > 4:
        return None
    noun = tokens[:end]
    tail = tokens[end:]
    qualifier = ""
    if tail[0].lower() in _QUALIFIER_START:
        k = 1
        while k < len(tail) and k <= 6 and tail[k].lower() not in AUXILIARIES:
            k += 1
        qualifier = " ".join(tail[:k])
        if k >= len(tail) or not re.search(r"\d{4}", qualifier) or "," in qualifier:
            return None
        tail = tail[k:]
    low_noun = [w.lower() for w in noun]
    head = low_noun[-1]
    if head in BAD_HEADS or any(w in BAD_HEADS for w in low_noun):
        return None
    verb = tail[0].lower()
    group = verb
    complement_at = 1
    if verb in ("has", "have") and len(tail) > 1 and tail[1] == "been":
        group = f"{verb} been"
        complement_at = 2
    complement = " ".join(tail[complement_at:])
    noun_phrase = " ".join(noun)
    superlative = any(w in SUPERLATIVES or w in _ORDINALS for w in low_noun)
    if group in _HAVE:
        have = _HAVE[group]
        plural = group in ("are", "were", "have been")
        named = _NAME_COMPLEMENT.match(complement)
        number = _NUMBER_COMPLEMENT.match(complement)
        if named and not plural and not (qualifier and named.group(2)):
            after = qualifier or (named.group(2) or "").strip()
            tail_text = f" {after}" if after else ""
            return f"{have} {named.group(1)} as its {noun_phrase}{tail_text}"
        measured = number and re.search(r"\b(?:long|wide|deep|high|tall|old|thick|across|away"
                                        r"|apart|ago|above|below)$", number.group(1))
        if number and not measured and not plural and not superlative \
                and not (qualifier and number.group(2)):
            after = qualifier or (number.group(2) or "").strip()
            tail_text = f" {after}" if after else ""
            article = "" if head in MASS_NOUNS else indefinite_article(noun_phrase)
            return f"{have} {article}{noun_phrase} of {number.group(1)}{tail_text}"
    if qualifier or superlative:
        return None
    present = verb in ("is", "are", "has", "have", "does") or (
        not is_past(verb) and verb not in ("was", "were", "had", "did"))
    plural = verb in ("are", "were", "have") or (
        verb in BASE_VERBS and not verb.endswith("s")) or (
        head.endswith("s") and not head.endswith(("ss", "us", "is")) and not present)
    article = "" if plural or head in MASS_NOUNS else indefinite_article(noun_phrase)
    have = "has" if present else "had"
    return f"{have} {article}{noun_phrase} that {' '.join(tail)}"


def _passive(subject: Subject) -> str | None:
    participle = passive_participle(subject.verb)
    if participle is None:
        return None
    rest = f" {subject.rest}" if subject.rest else ""
    return f"was {participle} by {subject.agent}{rest}"


def _aside_claim(subject: Subject) -> str | None:
    """The claim an aside about the subject makes ("founded in 1889" -> "was founded in
    1889"), or ``None``."""
    aside = subject.aside
    if not aside or subject.form not in ("name", "noun", "pronoun"):
        return None
    first = aside.split()[0].lower()
    if subject.aside_kind == "participle":
        if first in ("originally", "first"):
            first = aside.split()[1].lower() if len(aside.split()) > 1 else ""
        be = "is" if first in _STATE_PARTICIPLES else "was"
        return f"{be} {aside[:1].lower()}{aside[1:]}"
    if subject.aside_kind == "relative":
        claim = aside.split(" ", 1)[1] if " " in aside else ""
        return claim if claim and verb_like(claim.split()[0], False) else None
    if subject.aside_kind == "appositive":
        return f"is {aside}"
    return None


def _main_claim(subject: Subject) -> str | None:
    if subject.form == "possessive":
        claim = possessive_claim(subject.rest)
    elif subject.form == "object":
        claim = _passive(subject)
    else:
        claim = subject.rest
    if claim is None:
        return None
    if subject.lead:
        if not subject.lead_ok:
            return None
        lead = subject.lead[:1].lower() + subject.lead[1:]
        return attach_adverbial(claim, lead)
    return claim


def claims_of(subject: Subject) -> list[str]:
    """The claims ``subject``'s sentence makes about the entity, best first (the main
    clause's, then an aside's); not yet checked by :func:`claim_problem`."""
    out = [c for c in (_main_claim(subject), _aside_claim(subject)) if c]
    return [" ".join(c.split()) for c in out]


_CONTEXT = re.compile(
    r"\b(?:this|these|those|such(?!\s+as)|aforementioned|latter|same|then|there|here"
    r"|following|previous|next(?!\s+to\b)|aforesaid|thereafter|therein|thereof|afterwards"
    r"|meanwhile)\b|\b(?:the|as)\s+above\b",
    re.IGNORECASE)
_HE_SHE = re.compile(r"\b(?:he|she|him|his|her|hers|himself|herself)\b", re.IGNORECASE)
_THEY = re.compile(r"\b(?:they|them|their|theirs|themselves)\b", re.IGNORECASE)
_PERSON_NAME = re.compile(r"(?:\b(?:" + "|".join(sorted(TITLES)) + r")\.?\s+[A-Z]"
                          r"|\b[A-Z][a-z]+\s+(?:[A-Z]\.\s+)?[A-Z][a-z]+)")
_PLACE_PREDICATE = re.compile(
    r"^(?:lies|lay|is\s+(?:located|situated|a\s+(?:\w+\s+)?(?:town|city|village|borough"
    r"|parish|county|port|suburb|district))|has\s+(?:had\s+)?a\s+population|had\s+a\s+population"
    r"|borders|is\s+twinned)\b")


def claim_problem(claim: str, names: EntityNames, subject: Subject) -> str | None:
    """Why ``claim`` cannot be used, or ``None``: it must be a predicate that starts with a
    lower-case verb, name neither the entity nor its short forms nor "the <noun>", use no
    first or second person, and refer to nothing outside itself."""
    tokens = claim.split()
    if len(tokens) < 3 or not claim[:1].islower() or claim.endswith("."):
        return "shape"
    if not verb_like(tokens[0], plural_ok=subject.plural):
        return "verb"
    if mentions(claim, names) or any(
            re.search(r"\bthe\s+" + re.escape(noun) + r"\b", claim, re.IGNORECASE)
            for noun in names.nouns):
        return "names"
    if subject.short and _PLACE_PREDICATE.match(claim):
        return "names"  # "Kingsbridge lies on the coast": the town, not the club
    if re.search(r"\b(?:we|us|our|ours|you|your|yours|my|me|mine)\b", claim, re.IGNORECASE) \
            or re.search(r"\bI\b", claim):
        return "person"
    if _CONTEXT.search(claim):
        return "context"
    pronoun = _HE_SHE.search(claim)
    if pronoun and not _PERSON_NAME.search(claim[:pronoun.start()]):
        return "context"
    if _THEY.search(claim):
        agrees = subject.pronoun in ("they", "their") or (
            subject.plural and (tokens[0] in ("are", "were", "have") or (
                tokens[0] in BASE_VERBS and not tokens[0].endswith("s"))))
        if not agrees:
            return "context"
    if claim.count("(") != claim.count(")") or re.search("[\"“”]", claim):
        return "shape"
    if tokens[-1].lower() in STOP_WORDS - {"it", "them"}:
        return "shape"
    return None
