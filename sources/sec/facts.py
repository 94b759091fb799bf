"""Rule-based facts from real 10-K text, for FC (fact-checking) statements, without an LLM.

A fact is one sentence of a company's own text that says something checkable about the
company: a subject that *is* the company ("We ...", "The Company ...", "<Name> ...", "Our
<noun> ...") and a concrete anchor (a count with its noun, an amount, a percentage, a date, a
place, a product or other proper noun). The sentence is rewritten as a third-person predicate
that can follow any company name ("had approximately 164,000 full-time equivalent employees as
of September 28, 2024"), with "we/our/us" turned into "it/its" and the company's names removed.
Its *needle* is a short phrase of the sentence, quoted verbatim, that identifies the fact.

Precision over recall: a sentence is dropped whenever a rule is unsure - hedged or
forward-looking wording, lists, long or legalistic sentences, boilerplate, statements of the
main financial-statement figures (those belong to the table), coordinated verbs that could not
be conjugated safely, or a claim that would still name the company.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hopvista.generation.instance import needle_occurs
from hopvista.world import Fact

__all__ = ["BAD_HEADS", "BASE_VERBS", "BOILERPLATE", "COMMON_CAPS", "DISCOURSE",
           "GENERIC_FIRST_WORDS", "HEDGE", "IRREGULAR_PAST", "MASS_NOUNS", "MAX_WORDS",
           "MONTH_WORDS", "PLACE", "PLURAL_NOUNS", "STOP_WORDS", "SUPERLATIVES", "WEAK_NOUNS",
           "Candidate", "attach_adverbial", "broken_words", "claim_of", "extract_entity_facts",
           "extract_facts", "indefinite_article", "name_forms", "names_in", "needles_of",
           "normalise_needle", "sentence_spans"]

#: Sentences longer than this (in words) are not used.
MAX_WORDS = 45
MIN_WORDS = 5
#: Needles scoring lower than this are not distinctive enough to identify a company.
MIN_SCORE = 5
MAX_NEEDLE_WORDS = 7

_AP = "[’']"  # 10-K text uses the typographic apostrophe

# --------------------------------------------------------------------------------------------
# Sentence splitting
# --------------------------------------------------------------------------------------------

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that end with a period without ending a sentence (lower-case, without the period).
_ABBREVIATIONS = _words("""
inc corp co ltd llc plc no nos mr mrs ms dr prof sr jr st ave blvd dept est fig figs approx vs
etc al jan feb mar apr jun jul aug sep sept oct nov dec ref refs sec secs art bros
""")

#: After an abbreviation, a new sentence starts only with one of these words.
_STARTERS = _words("""
The We Our This These That Those It Its In As At On For During Since Additionally Also However
Such Each All Any Some Further Furthermore Moreover Accordingly Refer See There They
""")

_BOUNDARY = re.compile(r"[.!?][\"”’)\]]*(?=\s+[\"“(]?[A-Z0-9$•])")


def _blocks(text: str) -> Iterator[tuple[int, int]]:
    """Paragraph-like blocks: split at blank lines, and at single line breaks after a line
    that ends a sentence or looks like a heading."""
    start = 0
    for match in re.finditer(r"\n", text):
        line = text[start:match.start()].rstrip()
        after = text[match.end():].lstrip(" \t\r")
        if (not line.strip() or not after or after.startswith("\n")
                or line[-1] in ".!?:;\"”’"
                or (len(line.split()) <= 12 and after[:1].isupper())):
            if line.strip():
                yield start, match.start()
            start = match.end()
    if text[start:].strip():
        yield start, len(text)


def _ends_abbreviation(text: str, dot: int) -> bool:
    """Whether the period at ``dot`` ends an abbreviation or an initial."""
    k = dot
    while k > 0 and not text[k - 1].isspace():
        k -= 1
    word = text[k:dot].lstrip("(\"“‘").lower()
    if not word:
        return False
    if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return True
    return re.fullmatch(r"(?:[a-z]\.)+[a-z]", word) is not None  # U.S, e.g, N.A


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the sentences of ``text``; each slice is stripped.

    Sentences never cross a paragraph break. Periods of abbreviations ("Inc.", "U.S.", "No."),
    of initials and of decimals ("$1.2 billion") do not end a sentence, unless a usual sentence
    starter ("The", "We", ...) follows an abbreviation.
    """
    spans: list[tuple[int, int]] = []
    for b_start, b_end in _blocks(text):
        block = text[b_start:b_end]
        cuts = [0]
        for match in _BOUNDARY.finditer(block):
            if block[match.start()] == "." and _ends_abbreviation(block, match.start()):
                following = block[match.end():].split(None, 1)
                if not following or following[0].strip("\"“(") not in _STARTERS:
                    continue
            cuts.append(match.end())
        cuts.append(len(block))
        for s, e in zip(cuts, cuts[1:], strict=False):
            piece = block[s:e]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                trail = len(piece) - len(piece.rstrip())
                spans.append((b_start + s + lead, b_start + e - trail))
    return spans


# --------------------------------------------------------------------------------------------
# Word lists
# --------------------------------------------------------------------------------------------

#: Hedged, forward-looking or opinion words: the sentence is not a checkable fact.
_HEDGE = re.compile(
    r"\b(?:may|might|could|would|should|will|shall|can|cannot|must|expects?|expected|expecting"
    r"|expectations?|anticipat\w*|believes?|believed|intends?|intended|intention|plans?"
    r"|planned|planning|estimat\w*|if|unless|whether|likely|unlikely|probabl\w*|possibl\w*"
    r"|potential\w*|seeks?|aims?|goals?|targets?|forecast\w*|predict\w*|hopes?|assum\w*"
    r"|uncertain\w*|opinion|strives?|aspires?|committed|commitment|future|depends?|dependent"
    r"|generally|typically|subject\s+to|designed\s+to|intended\s+to|help(?:s|ed)?\s+to"
    r"|outlook|guidance|projected|projections?|risks?|approximate)\b",
    re.IGNORECASE)

#: Boilerplate and cross-references.
_BOILERPLATE = re.compile(
    r"forward-looking|Form\s+10-[KQ]|this\s+report|annual\s+report|incorporated\s+(?:herein\s+)?"
    r"by\s+reference|herein|hereby|thereof|www\.|https?:|website|Exchange\s+Act|Securities\s+Act"
    r"|\bNote\s+\d|\bPart\s+[IV]+\b|\bItem\s+\d|Notes\s+to|pursuant\s+to|in\s+accordance\s+with"
    r"|\bGAAP\b|should\s+be\s+read|\brefer\s+to|discussed\s+(?:in|below|above)"
    r"|described\s+(?:in|below|above)|included\s+in\s+(?:Part|Item|Note)|Risk\s+Factors"
    r"|no\s+assurance|following\s+table|table\s+below|as\s+follows|see\s+(?:also\s+)?the\b"
    r"|Table\s+of\s+Contents|\bASU\b|material\s+(?:adverse\s+)?(?:impact|effect)"
    r"|Consolidated\s+(?:Financial\s+Statements|Balance\s+Sheets?|Statements)|\belected\b"
    r"|\brecogni[sz](?:e|es|ed|ing)\b|\bclassif(?:y|ies|ied)\b|accounting\s+polic",
    re.IGNORECASE)

#: Words of the main financial-statement columns: with a figure, the sentence states the table.
_FINANCIAL = re.compile(
    r"\b(?:sales|revenues?|income|profits?|margins?|assets|liabilit\w+|equity|debt|borrowings?"
    r"|cash|dividends?|expenses?|costs?|tax(?:es)?|interest|depreciation|amortization"
    r"|capital\s+expenditures?|earnings|EBITDA|operating\s+activities|investing\s+activities"
    r"|financing\s+activities|repurchas\w*|buybacks?|compensation|gains?|loss(?:es)?"
    r"|impairments?|charges?|write-downs?|proceeds|payments?|paid|notes|bonds|inventor(?:y|ies)"
    r"|receivables?|payables?|liquidity|share-based|stock-based)\b",
    re.IGNORECASE)

_FIGURE = re.compile(r"\$|%|\bpercent\b|\b(?:million|billion|trillion)\b", re.IGNORECASE)

_MODALS = _words("will would may might can could should shall must cannot")

#: Past tense or participle forms that do not end in -ed.
_IRREGULAR_PAST = _words("""
had was were did made sold began begun held paid spent grew grown built bought brought won
led became took taken gave given saw seen met ran chose chosen found kept left lost sent
told thought understood wrote written drove driven fell rose risen became struck stood
""")

#: Ambiguous present/past forms: a "We" sentence with these is not conjugated.
_AMBIGUOUS = _words("set put cut let read hit cost spread bid quit shut split beat cast")

_IRREGULAR_3SG = {"have": "has", "are": "is", "were": "was", "do": "does", "go": "goes",
                  "undergo": "undergoes", "am": "is"}

#: Adverbs that may sit between the subject and its verb.
_ADVERBS = _words("""
also currently primarily principally mainly largely now still only further previously recently
first regularly continually continuously directly jointly presently already together
historically predominantly solely separately actively collectively
""")

#: Base-form verbs that, after "and"/"or"/",", betray an unconjugated coordinated verb.
_BASE_VERBS = _words("""
sell operate offer provide design develop manufacture market own lease employ use serve hold
generate distribute produce license build make continue maintain invest acquire conduct
deliver support enable compete rely manage report purchase sponsor grant partner work engage
sublicense outsource contract procure enter face pay fund believe expect intend plan average
have are were do transact utilize utilise seek focus retain recruit attract
""")
_BASE_VERB = "(?:" + "|".join(sorted(_BASE_VERBS)) + ")"
_COORDINATED_BASE = re.compile(r"(?:\band|\bor|,)\s+" + _BASE_VERB + r"\b")
_IT_BASE = re.compile(r"\bit " + _BASE_VERB + r"\b")

#: Sentence-opening phrases dropped from a claim (they add nothing a claim must keep).
_DISCOURSE = re.compile(
    r"^(?:In\s+addition|Additionally|Also|Further|Furthermore|Moreover|However|Accordingly"
    r"|As\s+a\s+result|Consequently|Currently|Today|In\s+particular|Specifically|Finally"
    r"|Similarly|Separately|Importantly|Notably|Lastly|Likewise|Nonetheless|Nevertheless"
    r"|Thus|Therefore|For\s+example|For\s+instance|At\s+present|To\s+date|Overall),\s+")

#: Participial openings dropped from a claim ("Headquartered in Santa Clara, California, ...").
_PARTICIPLE = re.compile(
    r"^(?:Headquartered|Founded|Based|Incorporated|Established)\s+in\s+[^,]+(?:,\s+[A-Z][^,]*)?"
    r",\s+")

#: Fronted adverbials moved to the end of a claim ("As of May 1, 2024, we had ...").
_ADVERBIAL = re.compile(
    r"^(?:As\s+of|As\s+at|In|During|On|At|Since|Through|Throughout|For|Beginning\s+(?:in|on)"
    r"|Starting\s+(?:in|on)|Effective|Until|After|Before|Over|By|Within|Prior\s+to|Upon"
    r"|Outside\s+(?:of\s+)?)\b")

#: Uncountable heads: a possessive subject "Our X is ..." becomes "has X that is ..."
#: without an article.
_MASS = _words("""
research development information equipment software hardware inventory revenue income cash
debt growth property infrastructure compensation technology content advertising marketing
manufacturing capital stock liquidity exposure success
""")

#: Possessive subjects that are not the company's properties ("Our ability ...").
_BAD_HEADS = _words("""
ability results success future failure performance exposure view views opinion belief intent
plans goal goals strategy objective objectives management
""")

_POSS_VERBS_SG = _words("""
is was has includes consists comprises ends began begins contains remains represents operates
covers serves offers spans totaled totalled reached provides supports features uses
""")
_POSS_VERBS_PL = _words("""
are were have include consist comprise end begin contain remain represent operate cover serve
offer span total reach provide support feature use
""")
_POSS_VERBS_ANY = _words("had included consisted comprised ended contained remained represented"
                         " operated covered served offered spanned")

_STOP = _words("""
a an the and or of in on at to for with by from as that which who whom whose than its it their
our we us this these those such other is are was were be been being has have had does do did
not no nor but so each any all some more most both either neither into onto over under upon
about across after before during through throughout between among within without per via
including included includes include respectively approximately about nearly over under
around worldwide globally annually each
""")

_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November"
           "|December")
_MONTH_WORDS = _words(_MONTHS.replace("|", " "))

_US_STATES = """Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware
|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland
|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire
|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania
|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington
|West Virginia|Wisconsin|Wyoming|Puerto Rico|District of Columbia"""
_COUNTRIES = """United States|Canada|Mexico|Brazil|Argentina|Chile|Colombia|Peru|United Kingdom
|Ireland|France|Germany|Italy|Spain|Portugal|Netherlands|Belgium|Luxembourg|Switzerland|Austria
|Sweden|Norway|Denmark|Finland|Poland|Czech Republic|Hungary|Romania|Greece|Turkey|Israel
|Russia|Ukraine|China|Hong Kong|Taiwan|Japan|South Korea|Korea|India|Singapore|Malaysia
|Thailand|Vietnam|Indonesia|Philippines|Australia|New Zealand|South Africa|Egypt|Nigeria
|Kenya|Saudi Arabia|United Arab Emirates|Qatar|Chile|Costa Rica|Guatemala|Honduras"""
_REGIONS = """Europe|Asia|Africa|Latin America|North America|South America|Middle East
|Asia Pacific|Greater China|EMEA|APAC|Americas"""
_PLACE = re.compile(r"\b(?:" + "|".join(
    p.strip() for p in (_US_STATES + "|" + _COUNTRIES + "|" + _REGIONS).replace("\n", "")
    .split("|")) + r")(?![\w\-])")

_LEGAL = re.compile(
    r"\b(?:court|lawsuits?|litigation|complaints?|plaintiffs?|defendants?|antitrust|settle\w*"
    r"|judgments?|appeal\w*|class\s+action|fined|fines?|penalt\w+|verdict|jury|Commission"
    r"|Department\s+of\s+Justice|DOJ|FTC|regulators?|investigation)\b", re.IGNORECASE)

_EMPLOYEE_NOUNS = _words("employees employee team members associates people staff workers"
                         " personnel headcount")
_FACILITY_NOUNS = _words("""
stores store offices office locations facilities facility data centers warehouses campuses
restaurants clubs centers sites square feet acres plants branches outlets showrooms
fulfillment distribution hubs
""")
_PLACE_NOUNS = _words("countries states cities markets regions territories jurisdictions")
_PRODUCT_CUES = re.compile(
    r"\b(?:products?|platforms?|services?|lines?|brands?|architectures?|GPUs?|CPUs?|chips?"
    r"|devices?|models?|software|apps?|applications?|launch\w*|introduc\w*|releas\w*|unveil\w*"
    r"|announc\w*|family|series|subscriptions?)\b", re.IGNORECASE)

#: Capitalised words that are not distinctive proper nouns.
_COMMON_CAPS = _words("""
The A An We Our It Its This These That Those Company Companies U.S. US USA Inc Inc. Corp
Corporation Board Directors Director Chief Executive Officer Financial President Vice Senior
Item Note Part Form Annual Report Consolidated Statements Statement Fiscal Year Years Quarter
In As At On For During Since January February March April May June July August September
October November December Monday Tuesday Wednesday Thursday Friday Saturday Sunday First
Second Third Fourth Act Securities Exchange SEC
Internet AI I II III IV Additionally Also However CEO CFO Consolidated Balance Sheets
""")


# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------

_SUFFIX = re.compile(
    r"(?:,?\s+(?:Inc|Incorporated|Corp|Corporation|Co|Company|Ltd|Limited|LLC|L\.P|LP|plc"
    r"|PLC|Holdings|Holding|Group|N\.V|S\.A|AG|SE)\.?|\.com)$", re.IGNORECASE)


def name_forms(names: Sequence[str], suffix: re.Pattern[str] = _SUFFIX) -> set[str]:
    """The given names with their spacing normalised, each also without a leading "the" and
    without the suffixes ``suffix`` matches, one after another (by default legal ones: "Apple
    Inc." -> "Apple", "Amazon.com, Inc." -> "Amazon")."""
    out: set[str] = set()
    for name in names:
        name = " ".join(name.split())
        while name:
            out.add(name)
            if name.lower().startswith("the ") and len(name) > 4:
                out.add(name[4:])
            shorter = suffix.sub("", name).strip(" ,")
            if shorter == name:
                break
            name = shorter
    return out


def _core_names(names: Sequence[str], ticker: str | None) -> list[str]:
    """The names a company is called by, longest first: :func:`name_forms`, a distinctive
    first word ("Meta" of "Meta Platforms, Inc.") and the ticker."""
    out = name_forms(names)
    for name in list(out):
        first = name.split()[0].strip(",")
        if first != name and len(first) >= 4 and first[0].isupper() \
                and first.lower() not in _GENERIC_FIRST_WORDS:
            out.add(first)  # "Meta Platforms, Inc." is also "Meta"
    if ticker:
        out.add(ticker)
    return sorted((n for n in out if len(n) >= 2), key=len, reverse=True)


_GENERIC_FIRST_WORDS = _words("""
general american united international national first home global new north south east west
central pacific atlantic southern northern western eastern digital advanced applied public
royal standard western universal capital great best
""")


def _names_in(text: str, names: Sequence[str], ticker: str | None) -> bool:
    """Whether ``text`` mentions one of the company's names (case ignored) or its ticker."""
    for name in names:
        if name == ticker:
            if re.search(r"(?<![\w$])" + re.escape(name) + r"(?!\w)", text):
                return True
        elif len(name) >= 5 and name.lower() in text.lower():
            return True  # also inside a brand: "AppleCare"
        elif re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text, re.IGNORECASE):
            return True
    return False


# --------------------------------------------------------------------------------------------
# Rewriting a sentence as a claim
# --------------------------------------------------------------------------------------------

def _third_person(verb: str) -> str | None:
    """``verb`` as it reads after "it" ("have" -> "has"), unchanged if past; ``None`` if the
    form is a modal or ambiguous."""
    low = verb.lower()
    if low in _MODALS or low in _AMBIGUOUS or not low.isalpha():
        return None
    if low in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[low]
    if low in _IRREGULAR_PAST or (low.endswith("ed") and not low.endswith("eed")):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _is_adverb(word: str) -> bool:
    low = word.lower()
    return low in _ADVERBS or (low.endswith("ly") and len(low) > 4 and low not in _NOT_ADVERBS)


_NOT_ADVERBS = _words("apply supply rely comply multiply reply imply fly family")


def _is_finite(word: str) -> bool:
    """Whether ``word`` can be the finite verb after a third-person singular subject."""
    low = word.lower()
    return (low in {"is", "was", "has", "had", "does", "did"} or low in _IRREGULAR_PAST
            or (low.endswith("ed") and len(low) > 3)
            or (low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(low) > 2))


def _conjugate_at(tokens: list[str], k: int) -> bool:
    """Conjugate ``tokens[k]`` (punctuation kept) in place; ``False`` if it cannot be done."""
    match = re.fullmatch(r"([A-Za-z]+)(\W*)", tokens[k])
    if match is None:
        return False
    conj = _third_person(match.group(1))
    if conj is None:
        return False
    tokens[k] = conj + match.group(2)
    return True


def _conjugate_we(predicate: str) -> str | None:
    """Conjugate the verb(s) that followed "We" for a third-person subject."""
    tokens = predicate.split(" ")
    i = 0
    while i < min(len(tokens) - 1, 2) and _is_adverb(tokens[i]):
        i += 1
    first = tokens[i].rstrip(",")
    if first.lower() in _STOP - {"have", "are", "were", "do", "had", "did"} \
            or not first.isalpha() or not first.islower():
        return None
    if not _conjugate_at(tokens, i):
        return None
    if tokens[i].rstrip(",") == first:
        return " ".join(tokens)  # past tense: coordinated verbs are past too
    # a list of verbs right after the subject: "design, manufacture and market"
    j = i + 1
    after_comma = tokens[i].endswith(",")
    while j < len(tokens):
        word = tokens[j].rstrip(",")
        if after_comma and word in _BASE_VERBS:
            if not _conjugate_at(tokens, j):
                return None
            after_comma = tokens[j].endswith(",")
            j += 1
        elif word in ("and", "or") and j + 1 < len(tokens) \
                and tokens[j + 1].rstrip(",") in _BASE_VERBS:
            if not _conjugate_at(tokens, j + 1):
                return None
            break
        else:
            break
    return " ".join(tokens)


def _article(noun_phrase: str) -> str:
    head = noun_phrase.split()[0].lower()
    if re.match(r"(?:[aeio]|u(?!ni|s[eu])|hour|honest)", head) and not head.startswith("one"):
        return "an "
    return "a "


@dataclass(frozen=True)
class _Parsed:
    predicate: str      # the rest of the sentence after the subject, first verb first
    subject: str        # "we", "company" or "possessive"


def _strip_subject(body: str, names: Sequence[str]) -> _Parsed | None:
    """Recognise a company subject at the start of ``body`` (a sentence without its period)."""
    if body.startswith("We "):
        return _Parsed(body[3:], "we")
    owners = [r"Our", r"The\s+Company" + _AP + "s",
              *("(?i:" + re.escape(n) + ")" + _AP + "s" for n in names)]
    for owner in owners:
        match = re.match(owner + r"\s+", body)
        if match is not None:
            return _possessive(body[match.end():])
    for subject in ("The Company", *names):
        head = body[:len(subject) + 1]
        if head == subject + " " or (subject in names and head.lower() == subject.lower() + " "):
            rest = body[len(subject) + 1:]
            words = rest.split(" ")
            k = 0
            while k < min(len(words) - 1, 2) and _is_adverb(words[k]):
                k += 1
            verb = words[k].rstrip(",")
            after = words[k + 1].rstrip(",") if k + 1 < len(words) else ""
            if (_is_finite(verb) and verb.lower() not in _MODALS and verb not in _PLURAL_NOUNS
                    and after not in _POSS_VERBS_PL and after not in _BASE_VERBS):
                return _Parsed(rest, "company")
            return None
    return None


def _possessive(rest: str) -> _Parsed | None:
    """``rest`` follows "Our"/"The Company's": "fiscal year is ..." -> "has a fiscal year
    that is ..."."""
    words = rest.split(" ")
    verb_at = None
    adverb = ""
    for k, word in enumerate(words[:7]):
        if word in _POSS_VERBS_SG or word in _POSS_VERBS_PL or word in _POSS_VERBS_ANY:
            verb_at = k
            break
        if k > 0 and _is_adverb(word) and not adverb:
            adverb = word
            continue
        if adverb or not re.fullmatch(r"[A-Za-z][\w\-]*|of|and|&", word):
            return None
    if verb_at is None or verb_at == 0:
        return None
    if words[verb_at + 1:verb_at + 2] == ["of"] and words[verb_at] not in _OF_VERBS:
        return None  # "Our primary uses of cash ...": the "verb" is a noun
    noun_words = [w for w in words[:verb_at] if w != adverb]
    if not noun_words or noun_words[-1] in ("of", "and", "&") or any(
            w.lower() in _BAD_HEADS or w.lower() in _MODALS or w.lower() in _SUPERLATIVES
            or w.lower() in _STOP - {"of", "and"} for w in noun_words):
        return None
    verb = words[verb_at]
    head = noun_words[noun_words.index("of") - 1 if "of" in noun_words else -1].lower()
    if verb in _POSS_VERBS_SG:
        plural = False
    elif verb in _POSS_VERBS_PL:
        plural = True
    else:
        plural = head.endswith("s") and not head.endswith(("ss", "us", "is", "quarters"))
    noun_phrase = " ".join(noun_words)
    article = "" if plural or head in _MASS else _article(noun_phrase)
    predicate = " ".join(([adverb] if adverb else []) + words[verb_at:])
    return _Parsed(f"has {article}{noun_phrase} that {predicate}", "possessive")


#: Plural nouns that follow a company name as a modifier ("The Home Depot stores average").
_PLURAL_NOUNS = _words("""
stores products sales shares employees associates customers services operations segments
brands platforms results revenues devices solutions offerings members users businesses
subsidiaries facilities locations teams apps games systems networks GPUs
""")

_OF_VERBS = _words("consist consists consisted comprised is are was were")

_SUPERLATIVES = _words("latest first largest most best biggest newest last only next"
                       " leading")


def _split_lead(body: str, names: Sequence[str]) -> tuple[str, str] | None:
    """Split ``body`` into (fronted adverbial or "", clause starting with the subject)."""
    for _ in range(2):
        body = _DISCOURSE.sub("", body, count=1)
        body = _PARTICIPLE.sub("", body, count=1)
    if body[:1].islower():
        body = body[:1].upper() + body[1:]
    if _strip_subject(body, names) is not None:
        return "", body
    if not _ADVERBIAL.match(body):
        return None
    subjects = ["we ", "the Company ", "the Company’s ", "the Company's ", "our ",
                *(n + " " for n in names), *(n + "’s " for n in names)]
    best: tuple[str, str] | None = None
    for subject in subjects:
        k = body.find(", " + subject)
        if k < 0 and subject not in subjects[:5]:
            k = body.lower().find(", " + subject.lower())
        if k > 0 and (best is None or k < len(best[0])):
            clause = body[k + 2:]
            clause = clause[:1].upper() + clause[1:]
            best = (body[:k], clause)
    if best is None:
        return None
    lead, clause = best
    if len(lead.split()) > 10 or re.search(
            r"\b(?:we|our|us|the Company|this|that|these|those|such|it|its|they|them|then)\b",
            lead, re.IGNORECASE):
        return None
    if _strip_subject(clause, names) is None:
        return None
    if not (_DATE.search(lead) or _PLACE.search(lead) or re.search(
            r"\b(?:quarter|year|fiscal|month|week|period|since|during)\b", lead, re.IGNORECASE)):
        return None  # only when or where, which can move: "In Gaming, ..." cannot
    return lead[:1].lower() + lead[1:], clause


_DEFINED_TERM = re.compile(r"\s*\((?:the\s+|collectively\s+)?[“\"][^”\"()]{1,40}[”\"]\)")
_MARKS = re.compile(r"\s?[®™℠]|\s(?:SM)(?=[\s,.;]|$)")


def _replace_inner(claim: str) -> str | None:
    """Inner pronouns and references to the company, as seen from outside."""
    claim = re.sub(r"\bthe Company" + _AP + r"s\b", "its", claim)
    claim = re.sub(r"\bthe Company\b", "it", claim)
    claim = re.sub(r"\bour own\b", "its own", claim)
    if re.search(r"\b(?:Our|We|Us)\b", claim):
        return None
    claim = re.sub(r"\bour\b", "its", claim)
    claim = re.sub(r"\bourselves\b", "itself", claim)
    claim = re.sub(r"\bus\b", "it", claim)
    failed = False

    def we(match: re.Match[str]) -> str:
        nonlocal failed
        conj = _conjugate_we(match.group(1))
        if conj is None:
            failed = True
            return match.group(0)
        return "it " + conj

    claim = re.sub(r"\bwe ((?:\w+ ){0,2}\w+)", we, claim)
    return None if failed else claim


def claim_of(sentence: str, company_names: Sequence[str], ticker: str | None = None) -> str | None:
    """The third-person predicate a sentence states about its company, or ``None``.

    ``"We operate 1,234 stores in 12 countries."`` -> ``"operates 1,234 stores in 12
    countries"``. Only sentences whose subject is the company are rewritten; hedged,
    forward-looking, list-like, boilerplate or overlong sentences, and sentences whose
    claim would still name the company, give ``None``.
    """
    names = _core_names(company_names, ticker)
    subjects = [n for n in names if n != ticker]  # a ticker is never a sentence's subject
    text = " ".join(sentence.split())
    if not _usable_sentence(text):
        return None
    body = text[:-1].rstrip()
    split = _split_lead(body, subjects)
    if split is None:
        return None
    lead, clause = split
    parsed = _strip_subject(clause, subjects)
    if parsed is None:
        return None
    predicate = parsed.predicate
    conjugated = parsed.subject == "we" or re.search(r"\bwe\b", predicate) is not None
    if parsed.subject == "we":
        conj = _conjugate_we(predicate)
        if conj is None:
            return None
        predicate = conj
    claim = _attach(predicate, lead) if lead else predicate
    if claim is None:
        return None
    claim = _DEFINED_TERM.sub("", claim)
    claim = _MARKS.sub("", claim)
    replaced = _replace_inner(claim)
    if replaced is None:
        return None
    claim = " ".join(replaced.split())
    if conjugated and _has_unconjugated_coordination(claim):
        return None
    return claim if _good_claim(claim, names, ticker) else None


#: A comma that ends the main clause of a predicate (a fronted adverbial is placed before it).
_CLAUSE_END = re.compile(
    r",\s(?=(?:and|but|while|whereas|which|who|resulting|based|including|extending|bringing"
    r"|with|of\s+which|compared|as\s+well\s+as|our|its|and\s+(?:it|later|subsequently|then|in|on"
    r"|during|\w+ed))\b)")


def _attach(predicate: str, lead: str) -> str | None:
    """Put a fronted adverbial back into the predicate, at the end of its main clause: the
    adverbial scoped the whole sentence, so it may scope less, never more. ``None`` where
    the end of the main clause is unclear."""
    first = re.search(r",\s", predicate)
    comma = first.start() if first else -1
    if comma == -1:
        if re.search(r"\b(?:and|but) it\b", predicate):
            return None
        return f"{predicate} {lead}"
    clause_end = _CLAUSE_END.search(predicate)
    if clause_end is None or clause_end.start() != comma:
        return None
    return f"{predicate[:comma]} {lead}{predicate[comma:]}"


def _usable_sentence(text: str) -> bool:
    """Shape filters on the sentence itself (before any rewriting)."""
    words = text.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS or not text.endswith("."):
        return False
    if any(ch in text for ch in "?:;•…[]{}") or text.count("(") > 1 or "—" in text:
        return False
    if _HEDGE.search(text) or _BOILERPLATE.search(text):
        return False
    if "(" in text and not _DEFINED_TERM.search(text):
        return False
    if _FIGURE.search(text) and _FINANCIAL.search(text):
        return False
    if text.count("“") != text.count("”") or text.count('"') % 2:
        return False
    return not _broken_words(text)


def _broken_words(text: str) -> bool:
    """Text extraction artefacts like "w ill" or "approxima te"."""
    if re.search(r"(?<![\w$.,’'\-])(?![aAI]\b)[a-z] [a-z]{2,}\b", text):
        return True
    if re.search(r"\b[a-z]+ (?![ai]\b)[a-z]\b(?![.’'])|\b[a-z]+ (?:ble|bles|ing|tion|tions|ment"
                 r"|ments|ness|ity|ities|ly|te|ted|ter|ters|ce|ces|ive|ous|ally|ated)\b", text):
        return True
    for match in re.finditer(r"\b[a-z]{3,} ([a-z]{1,2})\b(?=[.,])", text):
        if match.group(1) not in _SHORT_WORDS:
            return True
    return False


_SHORT_WORDS = _words("it us so go do to in on of at by up as is be me we or an no")


def _good_claim(claim: str, names: Sequence[str], ticker: str | None) -> bool:
    """Final checks on a claim: no company name, no first person, balanced, not too short."""
    if len(claim.split()) < 3 or _names_in(claim, names, ticker):
        return False
    if re.search(r"\b(?:we|our|ours|us|I|my)\b", claim, re.IGNORECASE):
        return False
    if re.search(r"\b(?:this|these|those|thereof|therein|aforementioned|above|such(?! as))\b",
                 claim, re.IGNORECASE):
        return False  # refers to the sentences around it
    if _IT_BASE.search(claim):
        return False
    if re.search("[“”\"]", claim):
        return False
    return claim.count("(") == claim.count(")") and claim[:1].islower()


def _has_unconjugated_coordination(claim: str) -> bool:
    """A base-form verb after "and", "or" or a comma ("sells X and operate Y", "chooses X,
    and review their Y")."""
    if _COORDINATED_BASE.search(claim):
        return True
    for match in re.finditer(r"\b(?:and|or)\s+([a-z]+)\s+(?:the|a|an|its|their|it|them|to)\b",
                             claim):
        word = match.group(1)
        if not (word.endswith(("s", "ed")) or word in _IRREGULAR_PAST or word in _STOP):
            return True
    return False


# --------------------------------------------------------------------------------------------
# Needles
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """A phrase that could identify a fact: its kind and how distinctive it is."""

    kind: str
    needle: str
    score: int


_NUMBER = re.compile(
    r"(?<![\w$.,\-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(\s+(?:million|billion|thousand))?"
    r"(?![\w%,.\-]\d)(?![\w\-])(?!\s*%|\s*percent)")
_MONEY = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion|trillion))?")
_PERCENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:%|\s+percent)")
_DATE = re.compile(
    r"\b(?:(?:" + _MONTHS + r")\s+\d{1,2},\s+\d{4}|(?:" + _MONTHS + r")\s+\d{4}"
    r"|fiscal\s+(?:year\s+)?\d{4}|(?:19|20)\d\d)\b(?!\s+[A-Za-z])")
_WEEKDAY = re.compile(
    r"\b(?:first|second|third|fourth|last)\s+(?:Monday|Tuesday|Wednesday|Thursday|Friday"
    r"|Saturday|Sunday)\s+(?:of|in)\s+(?:" + _MONTHS + r")\b")

#: Nouns of a count that say little on their own ("25 years", "10 times").
_WEAK_NOUNS = _words("years year months month days day weeks week hours times quarters quarter"
                     " percent points basis")

#: Proper nouns many companies' filings mention: never a needle on their own.
_GENERIC_PROPER = frozenset(s.lower() for s in (
    "United States", "U.S", "U.S.", "Internal Revenue Service", "IRS", "COVID-19",
    "COVID-19 pandemic", "Moore’s Law", "European Union", "EU", "Board", "Board of Directors",
    "Treasury", "Federal Reserve", "SEC", "FASB", "GAAP", "Nasdaq", "NYSE", "Nasdaq Global",
    "Select Market", "Nasdaq Global Select Market", "New York Stock Exchange", "AI", "GPU",
    "CPU", "PC", "PCs", "CEO", "CFO", "ESG", "LIBOR", "SOFR", "Notes", "Consolidated",
    "Data Center", "Supreme Court", "District Court", "Court of Appeals", "African American",
    "Hispanic", "Latino", "Black", "Asian", "White", "International Organization for "
    "Standardization", "Department of Justice", "Department of Commerce", "eCommerce",
    "United States", "State", "States", "Federal",
))

#: Places many filings mention: a needle around them scores lower.
_GENERIC_PLACES = _words("United States U.S. North America Americas")

_WORD = r"[A-Za-z][\w’'\-]*"


def _following_words(text: str, end: int, limit: int) -> str:
    """Up to ``limit`` content words right after ``end``, stopping at punctuation, function
    words and pronouns."""
    words: list[str] = []
    pos = end
    while len(words) < limit:
        m = re.match(r"[ \t]+(" + _WORD + ")", text[pos:])
        if m is None:
            break
        word = m.group(1)
        if word.lower() in ("and", "or") and words:
            words.append(word)
            pos += m.end()
            continue
        if word.lower() in _STOP or word.lower() in {"it", "its"} or word.endswith("ing") \
                or (words and word.endswith("ed") and words[-1] not in ("and", "or")):
            break
        words.append(word)
        pos += m.end()
    while words and words[-1] in ("and", "or"):
        words.pop()
    return " ".join(words)


def _preceding_words(text: str, start: int, limit: int) -> list[str]:
    """Up to ``limit`` words right before ``start`` in the same clause (no punctuation
    between), without leading function words."""
    m = re.search(r"((?:" + _WORD + r"\s+){0," + str(limit) + r"})$", text[:start])
    words = m.group(1).split() if m else []
    while words and (words[0].lower() in _STOP or words[0].lower() in {"it", "its"}):
        words = words[1:]
    return words


def _sig_digits(number: str) -> int:
    return len(number.replace(",", "").replace(".", "").lstrip("0"))


def _count_kind(noun: str) -> str:
    low = noun.lower()
    words = low.split()
    if any(w in _EMPLOYEE_NOUNS for w in words) or "team members" in low:
        return "employees"
    if any(w in _FACILITY_NOUNS for w in words) or "square feet" in low:
        return "facility"
    if words and words[0] in _PLACE_NOUNS:
        return "place"
    return "other"


def _is_proper(token: str) -> bool:
    token = token.rstrip(".")
    return bool(token) and (token[0].isupper() or re.search(r"[a-z][A-Z]", token) is not None) \
        and token not in _COMMON_CAPS and not token.isdigit()


def _proper_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of runs of capitalised, CamelCase or model-number tokens ("GeForce RTX 40
    Series", "Rest of Asia Pacific"), never at the start of ``text``."""
    tokens = list(re.finditer(r"[A-Za-z0-9][\w’'\-+&.]*[\w+]|[A-Za-z0-9]", text))
    run: list[re.Match[str]] = []

    def flush() -> Iterator[tuple[int, int]]:
        while run and not _is_proper(run[-1].group(0)) and not run[-1].group(0)[0].isdigit():
            run.pop()
        if run:
            end = run[-1].end()
            if re.search(_AP + "s$", run[-1].group(0)):
                end -= 2
            yield run[0].start(), end

    for k, tok in enumerate(tokens):
        word = tok.group(0)
        if run and text[run[-1].end():tok.start()].strip() == "" and (
                _is_proper(word) or re.fullmatch(r"\d[\w+]{0,4}", word) is not None
                or word in ("of", "&", "for")):
            run.append(tok)
            continue
        yield from flush()
        run = [tok] if k > 0 and _is_proper(word) else []
    yield from flush()


def needles_of(claim: str, sentence: str) -> list[Candidate]:
    """Candidate needles of a claim, best first: phrases of ``claim`` that also occur
    verbatim (as whole words) in ``sentence``."""
    text = claim
    found: list[Candidate] = []

    def add(kind: str, needle: str, score: int) -> None:
        needle = " ".join(needle.split()).strip(" ,.")
        if needle and needle_occurs(needle, sentence) and needle_occurs(needle, claim) \
                and not re.search(r"[®™℠]", needle) and needle.lower() not in _GENERIC_PROPER:
            found.append(Candidate(kind, needle, score))

    for m in _MONEY.finditer(text):
        tail = _following_words(text, m.end(), 4)
        prep = re.match(r" (?:of|in|for)(?: an?| the)?(?= )", text[m.end():])
        if not tail and prep:
            tail_of = _following_words(text, m.end() + prep.end(), 3)
            tail = prep.group(0) + " " + tail_of if tail_of else ""
        digits = _sig_digits(re.sub(r"[^\d.]", "", m.group(0)))
        add("amount", f"{m.group(0)} {tail}", (8 if digits >= 3 else 6) if tail else 3)
    for m in _PERCENT.finditer(text):
        before = _preceding_words(text, m.start(), 2)
        after = _following_words(text, m.end(), 2)
        score = 6 if "." in m.group(0) else 5
        add("percent", " ".join([*before, m.group(0), after]), score if before or after else 3)
    for m in _NUMBER.finditer(text):
        number = m.group(1)
        if re.fullmatch(r"(?:19|20)\d\d", number) and not m.group(2):
            continue
        previous = text[:m.start()].split()[-1:]
        if previous and (previous[0] in _MONTH_WORDS or _is_proper(previous[0])):
            continue  # a day of a date, or part of a model name ("RTX 4090")
        noun = _following_words(text, m.end(), 4)
        strong = _sig_digits(number) >= 3 or "," in number
        if noun:
            kind = _count_kind(noun)
            value = float(number.replace(",", ""))
            if strong:
                score = 9
            else:
                score = 6 if value >= 10 and noun.split()[0].lower() not in _WEAK_NOUNS else 3
            if kind in ("employees", "facility"):
                score += 2
            add(kind, f"{number}{m.group(2) or ''} {noun}", score)
        elif strong:
            before = _preceding_words(text, m.start(), 3)
            if len(before) >= 2:
                add(_count_kind(" ".join(before)), " ".join([*before, number]), 8)
    for m in _WEEKDAY.finditer(text):
        add("date", m.group(0), 7)
    for m in _DATE.finditer(text):
        before = _preceding_words(text, m.start(), 4)
        events = [k for k, w in enumerate(before)
                  if (w.endswith("ed") or w in _IRREGULAR_PAST) and w.lower() not in _STOP]
        if events:
            add("date", " ".join([*before[events[-1]:], m.group(0)]),
                7 if re.search(r"\d,", m.group(0)) else 6)
    for m in _PLACE.finditer(text):
        place = m.group(0)
        start = m.start()
        city = re.search(r"((?:[A-Z][a-z]+\s){1,2}),\s$", text[:start])
        if city and text[:start].rstrip().endswith(","):
            start -= len(city.group(0))
            place = text[start:m.end()]
        before = _preceding_words(text, start, 3)
        if any(w.lower() not in _STOP and w.islower() for w in before):
            score = 6 if "," in place else 5
            add("place", " ".join([*before, place]),
                3 if m.group(0) in _GENERIC_PLACES or m.group(0) == "United States" else score)
    for start, end in _proper_spans(text):
        span = text[start:end]
        if _PLACE.fullmatch(span) or span.lower() in _GENERIC_PROPER \
                or re.fullmatch(r"Q[1-4](?: \d{4})?|FY ?\d{2,4}", span):
            continue
        place_words = sum(len(m.group(0).split()) for m in _PLACE.finditer(span))
        kind = "place" if 2 * place_words >= len(span.split()) else "product"
        tokens = span.split()
        if len(tokens) >= 2:
            coined = re.search(r"[a-z][A-Z]|\d|[A-Z]{2}", span) is not None
            add(kind, span, 8 if coined or len(tokens) >= 3 else 6)
        elif re.search(r"[a-z][A-Z]|\d", span) and len(span) >= 5:
            add(kind, span, 7)
        else:
            after = _following_words(text, end, 1)
            if after and not after[0].isupper():
                add(kind, f"{span} {after}", 5)

    found.sort(key=lambda c: -c.score)
    return found


def _kind_for(candidate: Candidate, sentence: str) -> str:
    if _LEGAL.search(sentence) and candidate.kind in ("product", "date", "other", "place"):
        return "legal"
    if candidate.kind == "product" and not _PRODUCT_CUES.search(sentence):
        return "other"
    return candidate.kind


def _normalise(needle: str) -> str:
    return " ".join(needle.lower().replace("’", "'").split())


def extract_facts(entity_id: str, chunk_id: str, text: str, company_names: Sequence[str],
                  ticker: str | None) -> list[Fact]:
    """Rule-based facts that ``text`` (one chunk of a company's 10-K) states about the company.

    Each fact's ``sentence`` is an exact substring of ``text``; its ``needle`` occurs in the
    sentence as whole words; its ``claim`` is a third-person predicate entailed by the
    sentence that contains neither the company's names nor its ticker. At most one fact per
    sentence, and one per key.
    """
    names = _core_names(company_names, ticker)
    facts: list[Fact] = []
    keys: set[str] = set()
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        claim = claim_of(sentence, company_names, ticker)
        if claim is None:
            continue
        for candidate in needles_of(claim, sentence):
            if candidate.score < MIN_SCORE:
                break
            needle = candidate.needle
            if len(needle.split()) > MAX_NEEDLE_WORDS or _names_in(needle, names, ticker):
                continue
            if len(needle.split()) < 2 and not re.search(r"[a-z][A-Z]|\d", needle):
                continue
            kind = _kind_for(candidate, sentence)
            key = f"{kind}:{_normalise(needle)}"
            if key in keys:
                break
            keys.add(key)
            facts.append(Fact(entity=entity_id, chunk=chunk_id, kind=kind, key=key,
                              needle=needle, claim=claim, sentence=sentence))
            break
    return facts


def extract_entity_facts(entity_id: str, chunk_id: str, text: str, names: Sequence[str],
                         nouns: Sequence[str] = ()) -> list[Fact]:
    """Rule-based facts that plain ``text`` states about one entity of any domain.

    The same rules as :func:`extract_facts`, for text that is not a 10-K: the entity is the
    subject when the sentence starts with one of its ``names`` ("Eastmere opened ..."), with
    "the <noun>" for one of the domain's ``nouns`` ("The city operates 14 monitoring
    stations." with ``nouns=["city"]``), or with "We"/"Our". There is no ticker.
    """
    referents = [*names, *(f"the {noun}" for noun in nouns if noun.strip())]
    return extract_facts(entity_id, chunk_id, text, referents, None)


# --------------------------------------------------------------------------------------------
# Public names for other rule sets (hopvista.sources.prose reads ordinary prose with them);
# the rules above use the private names, so these aliases change nothing here.
# --------------------------------------------------------------------------------------------

HEDGE = _HEDGE
BOILERPLATE = _BOILERPLATE
DISCOURSE = _DISCOURSE
STOP_WORDS = _STOP
MONTH_WORDS = _MONTH_WORDS
IRREGULAR_PAST = _IRREGULAR_PAST
BASE_VERBS = _BASE_VERBS
PLURAL_NOUNS = _PLURAL_NOUNS
MASS_NOUNS = _MASS
BAD_HEADS = _BAD_HEADS
SUPERLATIVES = _SUPERLATIVES
COMMON_CAPS = _COMMON_CAPS
GENERIC_FIRST_WORDS = _GENERIC_FIRST_WORDS
WEAK_NOUNS = _WEAK_NOUNS
PLACE = _PLACE
attach_adverbial = _attach
broken_words = _broken_words
indefinite_article = _article
names_in = _names_in
normalise_needle = _normalise
