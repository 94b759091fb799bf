"""Word lists and word tests shared by the prose rules (no sentence-level logic here).

The lists extend those of the 10-K rules (:mod:`hopvista.sources.sec.facts`) with the words
ordinary prose about clubs, cities, rivers, hospitals, bands or ships uses.
"""

from __future__ import annotations

import re

from hopvista.sources.sec.facts import BASE_VERBS as _SEC_BASE_VERBS
from hopvista.sources.sec.facts import COMMON_CAPS as _SEC_COMMON_CAPS
from hopvista.sources.sec.facts import IRREGULAR_PAST as _SEC_IRREGULAR_PAST
from hopvista.sources.sec.facts import MONTH_WORDS
from hopvista.sources.sec.facts import PLURAL_NOUNS as _SEC_PLURAL_NOUNS
from hopvista.sources.sec.facts import STOP_WORDS as _SEC_STOP_WORDS

__all__ = ["AP", "AUXILIARIES", "BASE_VERBS", "COMMON_CAPS", "DAY_WORDS", "DETERMINERS",
           "DROPPABLE_ADVERBS", "IRREGULAR_PAST", "MONTHS", "MONTH_WORDS", "NUMBER_WORDS",
           "PARTICIPLES", "PLURAL_NOUNS", "PREPOSITIONS", "STOP_WORDS", "TITLES", "is_adverb",
           "is_past", "is_plural_noun", "passive_participle", "verb_like", "words"]

#: An apostrophe, straight or typographic.
AP = "['’]"


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a set."""
    return frozenset(text.split())


MONTHS = ("January|February|March|April|May|June|July|August|September|October|November"
          "|December")
DAY_WORDS = words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")

AUXILIARIES = words("is was are were has have had does did")

STOP_WORDS = _SEC_STOP_WORDS | words("""
since until till from between against among along beside besides near towards toward off
out up down onto upon like unlike than then there here when where while whereas although
though because if also still now once only just even very
""")

PREPOSITIONS = words("""
in at on to from for with by of into onto over under since until till during between among
through throughout after before across along around near beside towards toward against off
within without beyond behind below above past via as
""")

DETERMINERS = words("a an the this that these those its their his her another each every one"
                    " some any no")

#: Titles that may precede a person's name ("Dr. Ellis", "Sir Alan Ross").
TITLES = words("""
Dr Mr Mrs Ms Miss Prof Professor Sir Dame Lord Lady Captain Capt Rev Reverend Father Sister
Colonel Col General Gen Admiral Major Judge Bishop Canon
""")

#: Adverbs right after the subject that a claim may drop without changing what it asserts
#: ("The club also plays ..." -> "plays ..."): none of them restricts or negates.
DROPPABLE_ADVERBS = words("""
also still now currently later subsequently eventually originally formerly initially first
once briefly always today meanwhile last
""")

#: Past tense forms that do not end in -ed.
IRREGULAR_PAST = _SEC_IRREGULAR_PAST | words("""
won lost beat led fought flew rode sank swam wore tore bore overtook undertook withdrew
rebuilt drew dug hung shone shot sped stuck swung taught caught sought fed fled bred dealt
meant felt slept swept kept lent spent bent burnt froze rose woke spoke broke stole wove
strove bit hid slid came overcame went underwent forgot got rang sang sprang drank shrank ran
knew threw blew told beheld upheld withheld withstood bound laid said heard lay
ate gave forgave mistook shook swore flung clung stung spun
sunk begun drunk sung rung swum shrunk flown drawn grown known shown thrown blown worn torn
born borne sworn driven ridden written risen given taken eaten fallen forgotten gotten hidden
spoken stolen broken chosen frozen woken beaten bitten forbidden mistaken shaken seen done
gone undergone overseen overtaken undertaken withdrawn
""")

#: Past tense -> past participle, for the verbs whose passive is safe to form ("Dr. Ellis
#: led the hospital" -> "was led by Dr. Ellis"); regular -ed verbs need no entry.
PARTICIPLES = {
    "led": "led", "built": "built", "rebuilt": "rebuilt", "bought": "bought", "sold": "sold",
    "took": "taken", "gave": "given", "held": "held", "chose": "chosen", "wrote": "written",
    "drove": "driven", "ran": "run", "made": "made", "found": "found", "kept": "kept",
    "brought": "brought", "taught": "taught", "caught": "caught", "sank": "sunk",
    "struck": "struck", "drew": "drawn", "rode": "ridden", "flew": "flown",
    "overtook": "overtaken", "laid": "laid", "sent": "sent", "shot": "shot", "stole": "stolen",
    "broke": "broken", "spun": "spun",
}

#: Verbs whose passive reads wrongly or changes the sense ("X played the club" is a match).
_NO_PASSIVE = words("""
played faced met beat became had did got went came seemed appeared remained was were
loved hated liked disliked feared followed watched called said told
""")

#: Base forms that may follow a plural-agreeing subject ("Kingsbridge Town play ...").
BASE_VERBS = _SEC_BASE_VERBS | words("""
play train wear compete host share field run win lose hold contain flow rise drain feed
serve treat admit house cover span reach number include remain show indicate suggest record
list note describe state claim say mention form make take give keep stand lie sit attract draw
welcome boast feature own rent occupy return meet beat finish lead follow tour perform sing
write release sell play count total measure weigh carry stretch sail dock berth moor
""")

#: Plural nouns of the 10-K list that are also verbs of prose ("The club shares its ground").
_VERBS_TOO = words("shares stores services results teams networks")

#: Plural nouns that are also common verbs of prose ("The volcano stands ...").
_ALSO_VERBS = words("stands tours accounts figures")

#: Plural nouns that may follow an entity's name or noun as a modifier ("The club colours
#: are ...", "Ashford Rovers supporters ..."): never taken for a verb.
PLURAL_NOUNS = (_SEC_PLURAL_NOUNS - _VERBS_TOO) | words("""
fans supporters players members colours colors records officials directors students patients
residents doctors nurses crews sailors musicians albums songs tours grounds stands matches
games seasons sides kits shirts badges trophies honours honors titles archives accounts
minutes rules waters banks shores levels lengths staff workers volunteers trustees governors
owners managers coaches captains academies squads youngsters graduates alumni visitors
passengers engines decks masts wards beds buildings halls streets roads parks bridges towers
walls gates citizens councillors elections taxes fees rates prices sales figures statistics
""") - _ALSO_VERBS

#: Words ending in -ed that are not past verbs.
_NOT_PAST = words("red bed shed hundred kindred sacred naked wicked seed need speed feed"
                  " breed deed weed reed creed steed wed led bled fled bred")

NUMBER_WORDS = words("""
two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
""")

#: Capitalised words that are not distinctive names on their own.
COMMON_CAPS = _SEC_COMMON_CAPS | words("""
He She His Her They Their Them There Here When Where While Although Though After Before Until
Since From With By Of To Its It's Today Now Then Later English British Scottish Welsh Irish
American European North South East West Northern Southern Eastern Western Upper Lower
""") | MONTH_WORDS | DAY_WORDS

_ADVERB_NOT_LY = words("apply supply rely comply multiply reply imply fly family only early"
                       " july italy rally ally holy belly jelly")


def is_adverb(word: str) -> bool:
    """Whether ``word`` reads as an adverb (one of the droppable ones, or an -ly word)."""
    low = word.lower()
    return low in DROPPABLE_ADVERBS or (low.endswith("ly") and len(low) > 4
                                        and low not in _ADVERB_NOT_LY)


def is_past(word: str) -> bool:
    """Whether ``word`` is a past tense form (regular -ed or a known irregular one)."""
    low = word.lower()
    if low in IRREGULAR_PAST:
        return True
    return bool(re.fullmatch(r"[a-z][a-z\-]*ed", low)) and len(low) > 3 and low not in _NOT_PAST


def is_plural_noun(word: str) -> bool:
    """Whether ``word`` is a plural noun that never starts a predicate."""
    return word.lower() in PLURAL_NOUNS


def verb_like(word: str, plural_ok: bool) -> bool:
    """Whether ``word`` can be the finite verb right after a third-person subject.

    ``plural_ok`` admits base forms of the known verbs, for subjects that may take plural
    agreement ("Kingsbridge Town play ...", "They play ...").
    """
    low = word.lower()
    if not re.fullmatch(r"[a-z][a-z\-]*", low) or low in STOP_WORDS - AUXILIARIES:
        return False
    if low in AUXILIARIES or is_past(low):
        return True
    if is_plural_noun(low):
        return False
    if low.endswith("s") and not low.endswith(("ss", "us", "is", "ics")) and len(low) > 2:
        return True
    return plural_ok and low in BASE_VERBS


def passive_participle(verb: str) -> str | None:
    """The past participle of a past tense ``verb`` for a passive claim, or ``None`` where
    the passive is unsafe (unknown irregular, or a verb whose passive reads wrongly)."""
    low = verb.lower()
    if low in _NO_PASSIVE or low != verb:
        return None
    if low in PARTICIPLES:
        return PARTICIPLES[low]
    if is_past(low) and low not in IRREGULAR_PAST:
        return low
    return None
