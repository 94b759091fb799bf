"""Whether a sentence is about the entity, and how: its subject, and what precedes it.

A sentence is about the entity when, after an optional opening (a discourse word, a
participial phrase, a fronted adverbial), its clause starts with

- a full name, a usable short form, "the <noun>" for one of the domain's nouns ("name" and
  "noun" subjects), possibly followed by an aside between commas ("Ashford Rovers, founded in
  1889, play at ...");
- "It"/"They" when the previous sentence's subject was the entity and that sentence offers
  no other antecedent ("pronoun" subjects);
- a possessive of one of those: "<Name>'s X", "The club's X", "Its X", "Their X"
  ("possessive" subjects);
- a person's or an organisation's name, a past tense verb and the entity as direct object
  ("Sarah Whitcombe coached the club from 2019 to 2022": "object" subjects).

:func:`context_after` says what a sentence leaves for the next one's pronouns and nouns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hopvista.sources.prose.names import EntityNames, mentions
from hopvista.sources.prose.words import (
    AP,
    AUXILIARIES,
    BASE_VERBS,
    COMMON_CAPS,
    DETERMINERS,
    DROPPABLE_ADVERBS,
    MONTHS,
    NUMBER_WORDS,
    PREPOSITIONS,
    STOP_WORDS,
    TITLES,
    is_adverb,
    is_past,
    passive_participle,
    verb_like,
    words,
)
from hopvista.sources.sec.facts import DISCOURSE

__all__ = ["START", "Context", "Subject", "context_after", "find_subject"]


@dataclass(frozen=True)
class Context:
    """What the previous sentence leaves for the next one."""

    entity_subject: bool = False
    """Its subject was the entity (a name, "the <noun>", or a resolved pronoun)."""
    singular_rival: bool = True
    """It mentions something else "it"/"its" could refer to."""
    plural_rival: bool = True
    """It mentions something else "they"/"their" could refer to."""
    noun_rival: bool = False
    """It mentions another thing of the entity's kind ("a local club"), so "the club" in the
    next sentence may not be the entity."""


#: The context before a passage's first sentence: no antecedent.
START = Context()


@dataclass(frozen=True)
class Subject:
    """How a sentence refers to the entity, and the rest of it."""

    form: str
    """``"name"``, ``"noun"``, ``"pronoun"``, ``"possessive"`` or ``"object"``."""
    rest: str
    """The predicate after the subject (a verb first, droppable adverbs dropped); for
    possessives the words after the owner ("academy trains 85 young players"); for objects
    the words after the object ("from 2019 to 2022", or "")."""
    lead: str = ""
    """A fronted adverbial as written ("In 2021"), or ""."""
    lead_ok: bool = True
    """Whether the lead may move to the end of the claim (a time or a named place, no
    reference to the sentences around it)."""
    plural: bool = False
    """The subject may take plural agreement ("Kingsbridge Town play", "They play")."""
    aside: str = ""
    """A dropped participial opening or aside about the subject ("founded in 1889")."""
    aside_kind: str = ""
    """``"participle"``, ``"relative"`` or ``"appositive"`` (or "" without an aside)."""
    agent: str = ""
    """For ``"object"`` subjects: who did it ("Sarah Whitcombe")."""
    verb: str = ""
    """For ``"object"`` subjects: the past tense verb ("coached")."""
    pronoun: str = ""
    """The pronoun, lower-case, for pronoun subjects and pronoun possessives."""
    short: bool = False
    """The subject is the first-word short form of the name ("Kingsbridge ...")."""


_MODALS = words("will would may might can could should shall must cannot")

_OPENERS = re.compile(
    r"^(?:Today|Currently|Now|Later|Eventually|Originally|Initially|Subsequently|Meanwhile"
    r"|Instead|Then|Historically|Traditionally|Ultimately|By\s+then|Since\s+then),?\s+")

_PARTICIPLE = re.compile(
    r"^((?:(?:Originally|First)\s+)?(?:Founded|Established|Formed|Built|Opened|Completed"
    r"|Launched|Commissioned|Designed|Incorporated|Discovered|Named|Renamed|Nicknamed|Known"
    r"|Located|Situated|Based|Headquartered|Set\s+up|Created|Chartered|Consecrated)\b[^,]{1,80})"
    r",\s+(?=\S)")

_LEAD_WORDS = (r"In|During|Since|From|By|At|On|After|Before|Until|Till|Between|Throughout"
               r"|Over|For|As\s+of|As\s+at|Under|Within|Following|Prior\s+to|Towards?"
               r"|Around|Circa|Early\s+in|Late\s+in|Later\s+in|Midway\s+through")
_COMMA_LEAD = re.compile(r"^((?:" + _LEAD_WORDS + r")\b(?:[^,]|,(?=\s\d{4}\b))*?),\s+(?=\S)")
_YEAR = r"(?:1[5-9]|20)\d\d"
_EVERY_LEAD = re.compile(r"^(?:Each|Every)\s+(?:year|season|summer|winter|spring|autumn|month"
                         r"|week|day|weekend),?\s+(?=[A-Za-z])")
_BARE_LEAD = re.compile(
    r"^(?:In|During|Since|By|From|Until|Before|After|Throughout|Between)\s+"
    r"(?:(?:early|late|mid)[\s\-]+)?(?:the\s+)?(?:(?:\d{1,2}\s+)?(?:" + MONTHS + r")\s+)?"
    r"(?:\d{1,2},\s+)?" + _YEAR + r"s?(?:\s*(?:to|and|-|–)\s*" + _YEAR + r")?"
    r"(?:\s+season)?\s+(?=[A-Za-z])")

_TIME_WORDS = words("""
season seasons year years century centuries decade decades war wars summer winter spring
autumn month months week weeks era end start beginning middle opening founding reign
""")
_REFERRING = re.compile(
    r"\b(?:this|that|these|those|such|then|same|following|previous|next|he|she|him|his|her"
    r"|hers|they|them|it|we|our|us|you|your|latter|former)\b", re.IGNORECASE)


def _lead_ok(lead: str) -> bool:
    """Whether a fronted adverbial says only when or where, and may move to the end."""
    tokens = lead.split()
    if len(tokens) > 10 or _REFERRING.search(lead):
        return False
    if any(t.lower() in AUXILIARIES or is_past(t) for t in tokens[1:]):
        return False  # a clause of its own ("After a fire destroyed the stand")
    if re.search(r"\d{4}|\b(?:" + MONTHS + r")\b", lead):
        return True
    if any(t.lower().strip(",") in _TIME_WORDS for t in tokens):
        return True
    return any(t[:1].isupper() and t not in COMMON_CAPS for t in tokens[1:])


def _split_lead(body: str) -> tuple[str, str, bool]:
    """(lead, clause, lead_ok) of ``body``; the lead is "" when there is none."""
    match = _COMMA_LEAD.match(body)
    if match is not None:
        return match.group(1), body[match.end():], _lead_ok(match.group(1))
    match = _BARE_LEAD.match(body) or _EVERY_LEAD.match(body)
    if match is not None:
        return match.group(0).strip().rstrip(","), body[match.end():], True
    return "", body, True


def _strip_openers(body: str) -> tuple[str, str]:
    """``body`` without discourse openers and a participial opening; the participial
    phrase (lower-case first letter) or ""."""
    participle = ""
    for _ in range(3):
        before = body
        body = DISCOURSE.sub("", body, count=1)
        body = _OPENERS.sub("", body, count=1)
        match = _PARTICIPLE.match(body)
        if match is not None and not participle:
            participle = match.group(1)
            body = body[match.end():]
        if body == before:
            break
    return participle[:1].lower() + participle[1:], body


# --------------------------------------------------------------------------------------------
# The predicate after a subject
# --------------------------------------------------------------------------------------------

_RELATIVE_OR_JOIN = words("that which who whom whose where when while and but as after before"
                          " because since until it they")


def _predicate(rest: str, plural_ok: bool) -> str | None:
    """``rest`` as a predicate: droppable adverbs dropped, a finite verb first; ``None`` if
    the first word is not a verb or the subject was only a modifier ("The club shop ...",
    "The club founded in 1889 was ...")."""
    tokens = rest.split(" ")
    while len(tokens) > 1 and tokens[0].lower() in DROPPABLE_ADVERBS:
        tokens = tokens[1:]
    first = tokens[0]
    low = first.lower()
    if first == low and low in _MODALS:
        return " ".join(tokens)  # about the entity, and hedged: the sentence filter drops it
    if first != low or not verb_like(first, plural_ok):
        return None
    nxt = tokens[1].lower().strip(",") if len(tokens) > 1 else ""
    if low not in AUXILIARIES:
        if nxt in AUXILIARIES or nxt in _MODALS or is_past(nxt) or nxt in BASE_VERBS:
            return None  # "The club shops sell ...", "Ashford Rovers supporters travelled"
        if not (low.endswith("s") or is_past(low)) and not (
                nxt in DETERMINERS or nxt in PREPOSITIONS or nxt in {"it", "them"}
                or nxt[:1].isdigit() or nxt in NUMBER_WORDS
                or tokens[1][:1].isupper() or is_adverb(nxt)):
            return None  # a base form must be followed by its object or a preposition
    if is_past(low) and low not in AUXILIARIES:
        clause = " ".join(tokens).split(", ")[0].split()
        for k in range(1, len(clause)):
            if clause[k].lower() in AUXILIARIES | {"remains", "remained", "became"}:
                before = {w.lower() for w in clause[max(0, k - 3):k]}
                if not before & _RELATIVE_OR_JOIN:
                    return None  # a reduced relative: "The club founded in 1889 was ..."
    return " ".join(tokens)


_ASIDE_PARTICIPLES = words("""
founded established formed built opened based located situated known nicknamed named renamed
headquartered launched completed designed created chartered
""")


def _aside(after: str) -> tuple[str, str, str] | None:
    """``after`` starts with ", ": (aside, kind, rest after it) for an aside about the
    subject between two commas, or ``None``."""
    end = after.find(", ", 2)
    if end < 0:
        return None
    aside = after[2:end]
    tokens = aside.split()
    if not tokens or len(tokens) > 12:
        return None
    first = tokens[0].lower()
    if first in _ASIDE_PARTICIPLES or (is_past(first) and tokens[0].islower()):
        kind = "participle"
    elif first in ("which", "who"):
        kind = "relative"
    elif first in ("a", "an", "the") or aside.lower().startswith("one of "):
        kind = "appositive"
    else:
        return None
    return aside, kind, after[end + 2:]


# --------------------------------------------------------------------------------------------
# Subjects
# --------------------------------------------------------------------------------------------

def _pronoun(clause: str, context: Context, lead: str, lead_ok: bool,
             participle: str) -> Subject | None:
    match = re.match(r"(It|They|Its|Their)\s+(\S.*)$", clause)
    if match is None:
        return None
    word = match.group(1)
    plural = word in ("They", "Their")
    if not context.entity_subject or (context.plural_rival if plural
                                      else context.singular_rival):
        return None
    if word in ("Its", "Their"):
        return Subject("possessive", match.group(2), lead, lead_ok, plural,
                       pronoun=word.lower())
    rest = _predicate(match.group(2), plural_ok=plural)
    if rest is None or re.match(
            r"(?:is|was)\s+(?:in|on|at|during|since|from|only|not)\b.*\bthat\b", rest):
        return None  # not a predicate, or a cleft ("It was in 1921 that ...")
    return Subject("pronoun", rest, lead, lead_ok, plural, participle,
                   "participle" if participle else "", pronoun=word.lower())


def _referents(names: EntityNames, noun_ok: bool) -> list[tuple[str, str, bool]]:
    """(form, text, plural agreement allowed) of the ways the clause may name the entity."""
    out = [("name", name, True) for name in names.full]
    out.extend(("name", "the " + name, True) for name in names.full
               if not name.lower().startswith("the "))
    if names.last:
        out.append(("name", "the " + names.last, True))
    if noun_ok:
        out.extend(("noun", "the " + noun, False) for noun in names.nouns)
    if names.first:
        out.append(("short", names.first, True))
    return out


def _starts_with(clause: str, form: str, text: str) -> bool:
    head = clause[:len(text)]
    if form == "short":
        return head == text
    if text.startswith("the ") and form == "name":  # "the Rovers": the name as written
        return head[:4].lower() == "the " and head[4:] == text[4:]
    return head.lower() == text.lower()


_NAME_SUFFIX = re.compile(
    r"^,?\s+(?:F\.C\.|FC|A\.F\.C\.|AFC|R\.F\.C\.|RFC|C\.F\.|Ltd\.?|Limited|plc|PLC|Inc\.?"
    r"|LLC)(?=[\s,'’]|$)")


def _named(clause: str, names: EntityNames, noun_ok: bool, lead: str, lead_ok: bool,
           participle: str) -> Subject | None:
    for form, text, plural_ok in _referents(names, noun_ok):
        if not _starts_with(clause, form, text):
            continue
        after = clause[len(text):]
        if form == "name":
            after = _NAME_SUFFIX.sub("", after, count=1)  # "Ashford Rovers F.C. was ..."
        if re.match(AP + r"s\s", after) or (text.endswith("s") and re.match(AP + r"\s", after)):
            if form == "short":
                return None  # "Kingsbridge's ...": the town's, or the club's?
            owner_end = after.index(" ") + 1
            return Subject("possessive", after[owner_end:], lead, lead_ok, plural_ok)
        aside, aside_kind = participle, "participle" if participle else ""
        if after.startswith(", "):
            parsed = _aside(after)
            if parsed is None:
                return None
            if aside:
                aside = ""  # two asides: keep neither as a claim
                aside_kind = ""
            else:
                aside, aside_kind = parsed[0], parsed[1]
            rest = parsed[2]
        elif after.startswith(" "):
            rest = after[1:]
        else:
            continue
        predicate = _predicate(rest, plural_ok)
        if predicate is None:
            return None
        return Subject("noun" if form == "noun" else "name", predicate, lead, lead_ok,
                       plural_ok, aside, aside_kind, short=form == "short")
    return None


_NAME_TOKEN = r"(?:[A-Z][A-Za-z]*[a-z]|[A-Z]['’][A-Z][a-z]+)(?:-[A-Z][a-z]+)*"
_TITLE = r"(?:" + "|".join(sorted(TITLES)) + r")\.?"
_AGENT = re.compile(
    r"^(?P<agent>(?:The\s+)?(?:" + _TITLE + r"\s+)?(?:(?:[A-Z]\.|" + _NAME_TOKEN + r")\s+){0,3}"
    + _NAME_TOKEN + r")\s+(?P<verb>[a-z][a-z\-]+)\s+(?P<object>.+)$")
_OBJECT_REST = re.compile(r"(?:\s(?:" + "|".join(sorted(PREPOSITIONS - {"of", "as"}))
                          + r"|as)\s.*)?$")
_INFINITIVES = words("join become take start open build win lose play coach manage lead run"
                     " help replace form found create")
_AGENT_FUNCTION = words("This That These Those It Its Their His Her Our We They He She There"
                        " In On At By For From After Before During Since Today A An One")


_COUNTED_AGENT = re.compile(
    r"^(?P<agent>(?:(?:Around|About|Some|Over|Nearly|Almost|Approximately|More\s+than)\s+)?"
    r"\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion|thousand))?(?:\s+[a-z][a-z\-]*){1,2}?)"
    r"\s+(?P<verb>[a-z][a-z\-]+)\s+(?P<object>.+)$")


def _object(clause: str, names: EntityNames, noun_ok: bool, lead: str,
            lead_ok: bool) -> Subject | None:
    counted = _COUNTED_AGENT.match(clause)
    match = counted or _AGENT.match(clause)
    if match is None:
        return None
    agent, verb, tail = match.group("agent"), match.group("verb"), match.group("object")
    if counted is not None:
        if is_past(agent.split()[-1]) or agent.split()[-1] in STOP_WORDS:
            return None
        agent = agent[:1].lower() + agent[1:]  # "around 9.8 million passengers"
        return _object_tail(agent, verb, tail, names, noun_ok, lead, lead_ok)
    tokens = agent.split()
    named = [t for t in tokens if t != "The" and t.rstrip(".") not in TITLES
             and not re.fullmatch(r"[A-Z]\.", t)]
    titled = len(named) < len(tokens) - (tokens[0] == "The")
    if tokens[0] in _AGENT_FUNCTION or not named or any(t in COMMON_CAPS for t in named):
        return None
    if tokens[0] == "The" and len(named) < 2:
        return None  # "The Council": a common noun, capitalised
    if len(named) < 2 and not titled:
        return None  # "Workers founded ...", "Ellis founded ...": not surely a name
    if tokens[0] == "The":
        agent = "the" + agent[3:]
    return _object_tail(agent, verb, tail, names, noun_ok, lead, lead_ok)


def _object_tail(agent: str, verb: str, tail: str, names: EntityNames, noun_ok: bool,
                 lead: str, lead_ok: bool) -> Subject | None:
    """The object subject of "<agent> <verb> <tail>" when ``tail`` starts with the entity."""
    if mentions(agent, names) or passive_participle(verb) is None:
        return None
    for form, text, _ in _referents(names, noun_ok):
        if form == "short" or not _starts_with(tail, form, text):
            continue
        rest = tail[len(text):]
        if re.match(AP, rest) or not _OBJECT_REST.match(rest):
            return None  # "the club's board", "the club captain"
        plain = re.sub(r"\bbetween\s+\d{4}\s+and\s+\d{4}\b", "", rest)
        infinitive = re.search(r"\bto\s+([a-z]+)\b", plain)
        if re.search(r",|\b(?:and|or|but|who|which|that|whose|whom)\b", plain) or (
                infinitive and infinitive.group(1) not in DETERMINERS
                and (infinitive.group(1) in BASE_VERBS or infinitive.group(1) in _INFINITIVES)):
            return None  # the agent's next deed would become the entity's
        return Subject("object", rest.strip(), lead, lead_ok, agent=agent, verb=verb)
    return None


#: Last words of names of organisations and institutions ("Kingsbridge Town").
_KIND_WORDS = words("""
town city united county club fc afc athletic albion rovers wanderers rangers hospital
infirmary university college school academy institute band orchestra choir ensemble group
company trust society association federation council league
""")
#: Verbs that set the entity against another of its kind.
_RIVAL_VERBS = re.compile(
    r"\b(?:beat|beats|lost\s+to|loses\s+to|drew\s+with|defeated|faced|played\s+against"
    r"|merged\s+with|overtook|replaced|succeeded|absorbed|rivals?|rivalry|versus|vs)\b",
    re.IGNORECASE)


def _noun_rival(text: str, names: EntityNames) -> bool:
    """Whether ``text`` mentions another thing of the entity's kind (a predicate nominal,
    "... was a passenger liner", is the entity itself)."""
    for name in names.full:
        text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
    own = "|".join(re.escape(n) for n in names.nouns)
    text = re.sub(r"^\s*(?:the\s+(?:" + own + r")\s+)?(?:is|was|are|were)\s+(?:a|an)\s+", "",
                  text, flags=re.IGNORECASE) if own else text
    for noun in names.nouns:
        noun_re = re.escape(noun)
        if re.search(r"\b(?:a|an|another|other|rival|local|neighbouring|neighboring|second|new"
                     r"|one|two|three|four|five|several|many|few|some|smaller|larger|older"
                     r"|newer|nearby|sister|parent|feeder)\s+(?:[a-z\-]+\s+)?" + noun_re
                     + r"\b", text, re.IGNORECASE):
            return True
        if re.search(r"\b" + noun_re + r"(?:e?s)\b", text, re.IGNORECASE):
            return True
        if re.search(r"\b[A-Z]\w+\s+" + re.escape(noun.title()) + r"\b", text):
            return True
    last_words = {n.split()[-1] for n in names.full if len(n.split()) >= 2}
    for match in re.finditer(r"\b([A-Z][\w'’\-]*)\s+([A-Z][\w\-]*)\b", text):
        if mentions(match.group(0), names):
            continue
        if match.group(2) in last_words or match.group(2).lower() in _KIND_WORDS:
            return True  # "Kingsbridge Town" beside "Ashford Rovers": another club, perhaps
    return bool(_RIVAL_VERBS.search(text))


def find_subject(sentence: str, names: EntityNames, context: Context) -> Subject | None:
    """How ``sentence`` (whitespace-normalised) refers to the entity, or ``None`` when it
    is not about the entity."""
    body = sentence[:-1].rstrip() if sentence.endswith(".") else sentence
    participle, body = _strip_openers(body)
    if not body:
        return None
    body = body[:1].upper() + body[1:]
    lead, clause, lead_ok = _split_lead(body)
    if not clause:
        return None
    clause = clause[:1].upper() + clause[1:]
    noun_ok = not context.noun_rival and not _noun_rival(lead, names)
    return (_pronoun(clause, context, lead, lead_ok, participle)
            or _named(clause, names, noun_ok, lead, lead_ok, participle)
            or _object(clause, names, noun_ok, lead, lead_ok))


# --------------------------------------------------------------------------------------------
# What a sentence leaves for the next one
# --------------------------------------------------------------------------------------------

_SCALES = words("million millions billion billions thousand thousands hundred hundreds")
_RATE_WORDS = words("year day week month season hour night summer winter spring autumn"
                    " decade century weekend")

_ADJECTIVES = words("""
local former new old early late first second third last small large big major minor
professional amateur senior junior current present original modern young public private
national regional royal general full founding main chief principal top highest lowest
""")


def _rivals(text: str, names: EntityNames) -> tuple[bool, bool]:
    """(singular, plural): whether ``text`` mentions something that "it" (or "they") could
    refer to. Dates, participles, adverbs and function words are no antecedents."""
    singular = plural = False
    for name in names.full:
        text = re.sub(re.escape(name), " ", text, flags=re.IGNORECASE)
    text = re.sub(r"°\s?[CFK]?", " ", text)  # units are no antecedents
    tokens = re.findall(r"[A-Za-z0-9£$€][\w'’\-,.]*[\w]|[A-Za-z0-9]", text)
    skip = False
    for k, token in enumerate(tokens):
        low = token.lower()
        if skip or low in _SCALES:
            skip = False
            continue
        following = tokens[k + 1].lower() if k + 1 < len(tokens) else ""
        if low in ("a", "an", "per", "each", "every", "most") and following in _RATE_WORDS:
            skip = True  # "40,000 barrels a year": a rate, not an antecedent
            continue
        if token[:1].isdigit() or token[:1] in "£$€":
            if re.fullmatch(r"(?:1[5-9]|20)\d\ds?", token):
                continue
            singular = singular or low in ("1", "one")
            continue
        if token[:1].isupper():
            if token in COMMON_CAPS or token.rstrip(".") in TITLES:
                continue
            return True, True  # a name: a ground, a person, a company
        if low in DETERMINERS and low not in ("no", "each", "every"):
            return True, True
        if (low in STOP_WORDS or low in PREPOSITIONS or low in _ADJECTIVES or is_adverb(low)
                or is_past(low) or low.endswith("ing") or low in NUMBER_WORDS
                or low in AUXILIARIES):
            continue
        if low.endswith("s") and not low.endswith(("ss", "us", "is")):
            plural = True
        else:
            singular = True
    return singular, plural


def _without_verb_group(predicate: str) -> str:
    tokens = predicate.split()
    k = 0
    while k < min(len(tokens), 3) and (tokens[k].lower() in AUXILIARIES | {"been", "being"}
                                       or (k == 0 and verb_like(tokens[k], True))
                                       or is_adverb(tokens[k])):
        k += 1
    return " ".join(tokens[k:])


def context_after(sentence: str, subject: Subject | None, names: EntityNames) -> Context:
    """What ``sentence``, whose subject is ``subject``, leaves for the next sentence."""
    noun_rival = _noun_rival(sentence, names)
    if subject is None or subject.form not in ("name", "noun", "pronoun"):
        return Context(False, True, True, noun_rival)
    scanned = " ".join([subject.lead, subject.aside, _without_verb_group(subject.rest)])
    singular, plural = _rivals(scanned, names)
    return Context(True, singular, plural, noun_rival)
