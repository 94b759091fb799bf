"""What a dataset's own wording may say: the meaning check of ``gen verify``.

A dataset built from a pack the verifier does not have (a user's pack, a panel, another
hopvista version) records the wording it was built with (``config.wording``), and its texts
are checked against that wording. A forger who rewrites the wording and the texts together
("It is false that …", a swapped comparison word, the claimed entity put where the condition's
entity goes) would pass a check of form alone, so the recorded wording is first judged here,
against what the verifier knows without the dataset — the installed packs:

* a **form** that is one of the installed packs' forms of its type is theirs, and means what
  they mean. Any other form of a type the verifier knows must be plain text with
  ``{{ variable }}`` slots (no tag, filter, call, attribute or expression), use the slots its
  type states (each once, nothing the type does not fill), keep each clause of the claim
  together in the order that gives its meaning (the comparison word just before its threshold,
  the periods of a difference or a trend in program order, the sign between its operands, the
  claimed entity outside the condition that picks it, the fact last), and hold no word or sign
  that negates, hedges or conditions the claim ("not", "false", "allegedly", "unless", "?", …)
  and no number of its own: such a form is refused. A word the installed packs do not use to
  word that type (besides articles, period and source nouns, and the pack's own nouns) is a
  *doubt*: the form is used, and the report lists the word as not checked for meaning. A form
  of a type no installed pack words (a plug-in's) is held to the syntax and to having no
  negating or hedging word, and listed as unchecked;
* the **word maps** (``cmp``, ``sign``, ``order``, ``direction``, ``direction_verb``) must give
  each key a phrase of that key's meaning: a phrase of another sense ("less than" for ``>``)
  or with a negating word is refused, a phrase verify does not know is a doubt;
* the **nouns**, ``singular``, ``plural`` and the period format must be nouns, not clauses;
* the **question** must be text, ``{{ names }}`` and one loop numbering the statements, with no
  negating word, and ask which statements are *true* (other words are doubts).

Words are read as a reader reads them (:mod:`hopvista.reading`): NFKC-normalised, a
negation matched by its stems ("fals…", "untru…", "seem…") and through a disguise (look-alike
letters of another script, "n o t", "fal-se", "n0t"); wording with an invisible format
character, a word mixing scripts or written in look-alikes of Latin letters, a mark struck
over letters, a pictograph or a label before the claim ("Fabricated claim:") is refused.

A refused form is reported naming it and is not used: a statement written with it is not
proved. What is accepted without being an installed pack's is listed as not checked for
meaning (the verifier does not read English; it checks words and slots).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import nodes

from hopvista.domain import DOMAIN_FILE, builtin_pack_names, resolve_pack
from hopvista.errors import UserError
from hopvista.reading import as_read, format_character, latin_reading, look_alike
from hopvista.sandbox import PackEnvironment
from hopvista.yamlfile import read_yaml

#: The one Jinja2 environment verify parses and renders a dataset's templates in.
TEMPLATES = PackEnvironment(keep_trailing_newline=False)

#: Variables wording recorded by format 2 called by another name.
ALIASES = {"year": "period", "year1": "period1", "year2": "period2"}
#: Variables any form may use, as often as it likes.
FREE = frozenset({"noun", "singular", "plural"})

#: The clauses each selector's claim is made of: the slots of one clause are written together.
CLAUSES: dict[str, tuple[frozenset[str], ...]] = {
    "CT": (frozenset({"column", "cmp", "threshold"}),),
    "AR": (frozenset({"column", "period1", "sign", "period2", "result"}),),
    "TR": (frozenset({"column", "direction", "direction_verb"}),),
    "RK": (frozenset({"column", "order"}),),
    "CT+TR": (frozenset({"cond_column", "cmp", "threshold"}),
              frozenset({"trend_column", "direction", "direction_verb"})),
    "AR+TR": (frozenset({"cond_column", "cmp", "threshold"}),
              frozenset({"trend_column", "direction", "direction_verb"})),
    "CT+RK": (frozenset({"anchor", "cond_column", "cmp", "threshold"}),
              frozenset({"order", "rank_column"})),
    "AR+RK": (frozenset({"anchor", "cond_column", "sign", "cond_column2", "cmp", "threshold"}),
              frozenset({"order", "rank_column"})),
}
#: Slots that set the scope of a whole claim (where they stand does not change it).
SCOPE: dict[str, frozenset[str]] = {
    "CT": frozenset({"period"}), "RK": frozenset({"period"}),
    "TR": frozenset({"period1", "period2"}),
    "CT+TR": frozenset({"first", "last"}), "AR+TR": frozenset({"first", "last"}),
}
#: Slots a form of the selector must write (the period and the condition's entity are
#: required by each statement's mentions instead: items of one period have neither).
REQUIRED: dict[str, frozenset[str]] = {
    "CT": frozenset({"column", "cmp", "threshold"}),
    "AR": frozenset({"column", "period1", "period2", "sign", "result"}),
    "TR": frozenset({"column", "period1", "period2"}),
    "RK": frozenset({"column", "order"}),
    "CT+TR": frozenset({"cond_column", "cmp", "threshold", "trend_column"}),
    "AR+TR": frozenset({"cond_column", "cmp", "threshold", "trend_column"}),
    "CT+RK": frozenset({"cond_column", "cmp", "threshold", "order", "rank_column"}),
    "AR+RK": frozenset({"cond_column", "sign", "cond_column2", "cmp", "threshold", "order",
                        "rank_column"}),
}
#: Selectors that state a direction (by ``direction`` or ``direction_verb``).
DIRECTED = frozenset({"TR", "CT+TR", "AR+TR"})
#: Pairs of slots whose order is the meaning: the first is written before the second.
ORDERED = (("period1", "period2"), ("first", "last"), ("cond_column", "cond_column2"),
           ("column", "cmp"), ("cond_column", "cmp"), ("cond_column2", "cmp"))
#: Where the sign of a difference stands: between its two operands.
SIGN_OPERANDS = {"AR": ("period1", "period2"), "AR+RK": ("cond_column", "cond_column2")}

#: What each word-map key means: the phrases that say it.
WORD_SENSES: dict[str, dict[str, frozenset[str]]] = {
    "cmp": {
        ">": frozenset({"greater than", "more than", "higher than", "larger than", "above",
                        "over", "bigger than", "exceeding", "in excess of", "greater",
                        "at least", "at or above", "exceeds", "surpassing"}),
        "<": frozenset({"less than", "lower than", "smaller than", "below", "under",
                        "fewer than", "beneath", "lower", "at most", "up to", "at or below"}),
    },
    "sign": {
        "+": frozenset({"plus", "added to", "and"}),
        "-": frozenset({"minus", "less"}),
    },
    "order": {
        "max": frozenset({"highest", "largest", "greatest", "biggest", "maximum", "top",
                          "most", "largest value of", "highest value of"}),
        "min": frozenset({"lowest", "smallest", "least", "minimum", "fewest", "bottom",
                          "smallest value of", "lowest value of"}),
    },
    "direction": {
        "increasing": frozenset({"increasing", "rising", "growing", "ascending", "climbing",
                                 "upward", "upward-sloping"}),
        "decreasing": frozenset({"decreasing", "falling", "declining", "shrinking",
                                 "descending", "dropping", "downward", "downward-sloping"}),
    },
    "direction_verb": {
        "increasing": frozenset({"increased", "rose", "grew", "rises", "grows", "increases",
                                 "climbed", "climbs", "went up", "goes up", "has risen",
                                 "has increased", "has grown"}),
        "decreasing": frozenset({"decreased", "fell", "declined", "falls", "declines",
                                 "decreases", "shrank", "shrinks", "dropped", "drops",
                                 "went down", "goes down", "has fallen", "has decreased",
                                 "has declined"}),
    },
}

#: Words that negate, hedge, condition or contradict a claim: never in a form, a noun or the
#: way a statement words a fact (unless the text it quotes says it too).
NEGATING = frozenset({
    "not", "no", "nor", "never", "neither", "none", "nobody", "nothing", "nowhere", "cannot",
    "false", "falsely", "untrue", "incorrect", "incorrectly", "wrong", "wrongly", "fake",
    "fail", "fails", "failed", "failing", "lack", "lacks", "lacked", "lacking", "without",
    "except", "excluding", "unless", "if", "whether", "opposite", "contrary", "contradict",
    "contradicts", "deny", "denies", "denied", "doubt", "doubts", "doubtful", "dispute",
    "disputed", "allegedly", "alleged", "supposedly", "purportedly", "maybe", "perhaps",
    "possibly", "probably", "might", "may", "could", "would", "should", "lie", "lies", "myth",
    "hoax", "rumor", "rumour", "rumored", "rumoured", "but", "instead", "unlike", "besides",
    "rather", "hardly", "barely", "scarcely", "seldom", "rarely", "misleading", "mistaken",
    "mistakenly", "erroneous", "erroneously", "bogus", "invalid", "refuted", "debunked",
    "non", "anti", "pseudo", "supposed", "disproved", "disproven", "pretend", "pretends",
    "pretended", "denial", "denying", "reportedly", "likely", "unlikely", "arguably",
    "conceivably", "potentially", "theoretically", "nominally", "lied", "lying", "liar",
    "thought", "nonsense", "inverse", "reverse", "reversed", "absent", "absence",
    "un", "dis", "mis", "isnt", "arent", "wasnt", "werent", "dont", "doesnt", "didnt",
    "hasnt", "hadnt", "havent", "cant", "couldnt", "wont", "wouldnt", "shouldnt", "aint",
    "baseless", "groundless", "impossible", "formerly", "parody", "joke", "joking",
    "nonexistent", "unreal", "flawed",
})
#: Beginnings of words that negate, hedge or fictionalise a claim in any of their forms
#: ("fals" for false, falsely, falsified; "untru" for untrue, untruthfully).
NEGATING_STEMS = (
    "fals", "untru", "fabricat", "fake", "fictio", "fictiti", "wrong", "incorrect",
    "inaccura", "erroneous", "mistak", "mislead", "misstat", "misrepresent", "refut",
    "disprov", "debunk", "contradict", "disput", "doubt", "dubious", "bogus", "spurious",
    "counterfeit", "never", "seem", "apparent", "alleg", "suppos", "purport", "ostensib",
    "presum", "rumo", "hypothe", "imagin", "pretend", "pretens", "speculat", "unverif",
    "unconfirm", "unprove", "unsubstantiat", "claim", "believ", "assum", "myth", "hoax",
    "negat", "invalid", "fail", "lack", "exclud", "untrustworth", "deceiv", "decept",
    "unfound", "unreliab", "unsupport", "misreport", "misattribut", "counterfact",
    "disagre", "reject", "retract", "fault", "satir", "ironic", "sarcas",
)
#: Words a question may not use to pick statements: it asks which are true, not which are not.
EXCLUDING = frozenset({"other", "others", "remaining", "rest", "complement"})
#: Words a noun (``noun``, ``singular``, ``plural``) may not hold: it would be a clause.
CLAUSE_WORDS = frozenset({
    "whose", "that", "which", "who", "whom", "with", "is", "are", "was", "were", "be", "been",
    "being", "has", "had", "have", "than", "when", "whenever", "where", "while", "during",
    "only", "and", "or", "every", "all", "any"})
#: Words any form may use: articles, possessives, period and source nouns.
NEUTRAL = frozenset({
    "a", "an", "the", "its", "their", "s", "year", "years", "period", "periods", "month",
    "months", "quarter", "quarters", "week", "weeks", "day", "days", "season", "seasons",
    "date", "dates", "step", "steps", "time", "times", "temperature", "temperatures",
    "according", "to", "report", "reports", "profile", "profiles", "description",
    "descriptions", "text", "texts", "filing", "filings", "record", "records", "document",
    "documents", "page", "pages", "article", "articles", "summary", "passage", "passages",
    "annual", "states", "says", "notes", "data", "reported", "recorded", "registered",
    "posted", "measured", "logged", "is", "was", "are", "were", "has", "had", "have"})
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
#: Characters the text of a form may hold besides letters and whitespace.
_PUNCTUATION = set(".,;:'\u2019-()")
#: Signs that negate or qualify what a form claims: never in a form.
_CONTRADICTING = set("?!\u2260\u00ac~\u2248\u2209\u00bf\u203d\u2e2e\u061f")
#: Symbols (Unicode category So) a form may hold: units.
_UNIT_SYMBOLS = set("\u00b0\u2103\u2109")


def contradicting(char: str) -> bool:
    """Whether ``char`` is a sign a reader may read as a verdict on the claim: a question or
    exclamation mark, a negated relation, or a pictograph (a cross, a thumb down)."""
    if char in _CONTRADICTING:
        return True
    category = unicodedata.category(char)
    name = unicodedata.name(char, "")
    return (category == "So" and char not in _UNIT_SYMBOLS) or \
        (category == "Sm" and ("NOT " in name or "NEITHER" in name))


class Refused(ValueError):
    """A template the verifier will not use, and why (one phrase)."""


@dataclass(frozen=True)
class Slot:
    """A ``{{ variable }}`` of a form (by its current name)."""

    name: str


Part = str | Slot


#: Signs a reader reads as an apostrophe.
_APOSTROPHES = str.maketrans({c: "'" for c in "\u2019\u2018\u02bc\u02b9\u02bb\u02bd\u0060"
                                                "\u00b4\u2032\u2035\ua78c\uff07"})


#: Letters split by signs a reader reads through ("fal-se", "fal·se", "un*true").
_SPLIT = re.compile(r"[^\W\d_]+(?:[-\u2010\u2011\u2012\u2013\u2014\u00b7\u2027.*_/|~^+]"
                    r"[^\W\d_]+)+")
#: Letters and digits mixed in one token ("n0t", "f4lse"), and the letters the digits imitate.
_LEET = re.compile(r"[^\W_]*(?:[^\W\d_][0134578]|[0134578][^\W\d_])[^\W_]*")
_DIGIT_LETTERS = str.maketrans("0134578", "oleasbt")


def words_of(text: str) -> list[str]:
    """The words of ``text`` as a reader sees them (:func:`as_read`), lower case (an
    apostrophe, or a sign that looks like one, inside a word keeps it whole). After them come
    the words a reader reads through a disguise: letters spelled out one by one ("n o t"),
    split by a sign ("fal-se"), or with digits for letters ("n0t")."""
    read = as_read(text).translate(_APOSTROPHES).lower()
    words = _WORD.findall(read)
    joined = ["".join(_WORD.findall(m)) for m in _SPLIT.findall(read)]
    leet = [m.translate(_DIGIT_LETTERS) for m in _LEET.findall(read)]
    return words + _spelled(words) + joined + leet


def _spelled(words: list[str]) -> list[str]:
    """The words that runs of two or more single letters spell ("n o t" → "not"; a run does
    not start with the article "a")."""
    out: list[str] = []
    run: list[str] = []
    for word in [*words, ""]:
        if len(word) == 1 and (run or word != "a"):
            run.append(word)
            continue
        if len(run) > 1:
            out.append("".join(run))
        run = []
    return out


def negating(words: Iterable[str]) -> list[str]:
    """The words of ``words`` that negate, hedge or condition a claim, read as a reader of
    English reads them (:func:`latin_reading`: "fаlse" with a Cyrillic "а" is "false")."""
    return [w for w in words if _negates(latin_reading(w))]


def _negates(word: str) -> bool:
    return word in NEGATING or word.endswith("n't") or word.startswith(NEGATING_STEMS)


def unreadable(text: str) -> str | None:
    """Why ``text`` does not read as it is written (``None``: it does): it holds an invisible
    format character, or a word in look-alike letters (:mod:`hopvista.reading`)."""
    hidden = format_character(text)
    if hidden is not None:
        return f"the invisible character {hidden} hides what a reader reads"
    return look_alike(text)


def shown(template: str, limit: int = 60) -> str:
    """A template as a message shows it: on one line, cut at ``limit`` characters."""
    text = " ".join(template.split())
    return repr(text if len(text) <= limit else text[:limit - 1] + "\u2026")


def _construct(node: nodes.Node) -> str:
    if isinstance(node, nodes.Filter):
        return "a filter"
    if isinstance(node, nodes.Call):
        return "a call"
    if isinstance(node, (nodes.Getattr, nodes.Getitem)):
        return "an attribute or item"
    if isinstance(node, (nodes.CondExpr, nodes.Test)):
        return "a condition"
    if isinstance(node, nodes.Expr):
        return "an expression"
    return f"a {{% {type(node).__name__.lower()} %}} tag"


def parse(source: str) -> nodes.Template:
    """``source`` parsed in the verifier's sandbox; :class:`Refused` when it does not parse."""
    try:
        return TEMPLATES.parse(source)
    except jinja2.TemplateSyntaxError as exc:
        raise Refused(f"does not parse as a template ({exc.message})") from None
    except (RecursionError, MemoryError, ValueError):
        raise Refused("does not parse as a template") from None


def form_parts(source: str) -> list[Part]:
    """A form as text and slots; :class:`Refused` when it holds anything else."""
    parts: list[Part] = []
    for node in parse(source).body:
        if not isinstance(node, nodes.Output):
            raise Refused(f"holds {_construct(node)}; a form holds only text and "
                          "{{ variable }} slots")
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                parts.append(child.data)
            elif isinstance(child, nodes.Name) and child.ctx == "load":
                parts.append(Slot(ALIASES.get(child.name, child.name)))
            else:
                raise Refused(f"holds {_construct(child)}; a form holds only text and "
                              "{{ variable }} slots")
    return parts


def normalised(source: str) -> str:
    """A form with its whitespace collapsed and old variable names renamed, for comparing."""
    text = " ".join(source.split())
    for old, new in ALIASES.items():
        text = re.sub(r"\{\{\s*" + old + r"\s*\}\}", "{{ " + new + " }}", text)
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", r"{{ \1 }}", text)


def selector_of(type_name: str) -> str:
    """The selector part of a statement type (``FC+CT`` → ``CT``; ``FC`` → ``FC``)."""
    return type_name[3:] if type_name.startswith("FC+") else type_name


def family_of(type_name: str) -> str:
    """The types whose installed forms share one vocabulary (a type with and without a fact;
    the two conditions of a trend or a ranking pair)."""
    selector = selector_of(type_name)
    return {"AR+TR": "CT+TR", "AR+RK": "CT+RK"}.get(selector, selector)


def is_known_type(type_name: str) -> bool:
    """Whether the verifier knows what a statement of this type claims."""
    return type_name == "FC" or (type_name.startswith("FC+") and selector_of(type_name)
                                 in CLAUSES) or type_name in CLAUSES


# -- what the installed packs say --------------------------------------------------------


@dataclass(frozen=True)
class Installed:
    """The installed packs' wording: their forms per type, the words they word each family
    of types with, and the words of their questions."""

    forms: Mapping[str, frozenset[str]]
    vocabulary: Mapping[str, frozenset[str]]
    questions: frozenset[str]
    question_words: frozenset[str]
    word_phrases: Mapping[str, Mapping[str, frozenset[str]]]


def _form_files() -> list[dict[str, Any]]:
    """The ``forms`` of every installed pack, and of the extra form files they ship (the
    panel's forms for data without periods)."""
    found: list[dict[str, Any]] = []
    root = Path(str(resources.files("hopvista.templates")))
    for name in builtin_pack_names():
        try:
            found.append(dict(resolve_pack(name).spec.forms))
        except UserError:
            continue
        for path in sorted((root / name).glob("*.yaml")):
            if path.name == DOMAIN_FILE or path.stat().st_size > 64_000:
                continue
            try:
                data, _ = read_yaml(path)
            except UserError:
                continue
            if isinstance(data, dict) and set(data) == {"forms"} and \
                    isinstance(data["forms"], dict):
                found.append(data["forms"])
    return found


@lru_cache(maxsize=1)
def installed() -> Installed:
    """What the installed packs say (read once per process)."""
    forms: dict[str, set[str]] = {}
    vocabulary: dict[str, set[str]] = {}
    for pack_forms in _form_files():
        for type_name, sources in pack_forms.items():
            for source in sources if isinstance(sources, list) else []:
                if not isinstance(source, str):
                    continue
                forms.setdefault(type_name, set()).add(normalised(source))
                text = re.sub(r"\{\{.*?\}\}", " ", source)
                vocabulary.setdefault(family_of(type_name), set()).update(words_of(text))
    question: set[str] = set()
    questions: set[str] = set()
    phrases: dict[str, dict[str, set[str]]] = {
        key: {sense: set(found) for sense, found in senses.items()}
        for key, senses in WORD_SENSES.items()}
    for name in builtin_pack_names():
        try:
            spec = resolve_pack(name).spec
        except UserError:
            continue
        question.update(words_of(re.sub(r"\{[{%].*?[}%]\}", " ", spec.question)))
        questions.add(" ".join(spec.question.split()))
        for key, senses in phrases.items():
            for sense, found in senses.items():
                value = spec.words.get(key, {}).get(sense)
                if isinstance(value, str):
                    found.add(" ".join(value.lower().split()))
    return Installed(
        forms={t: frozenset(f) for t, f in forms.items()},
        vocabulary={f: frozenset(w) for f, w in vocabulary.items()},
        questions=frozenset(questions), question_words=frozenset(question),
        word_phrases={k: {s: frozenset(p) for s, p in v.items()} for k, v in phrases.items()})


# -- judging a form -------------------------------------------------------------------------


def _text_verdict(text: str, allowed: frozenset[str] | None) -> tuple[str | None, str | None]:
    """What the literal text of a form says against it: a problem (a word or sign that
    negates, hedges or conditions the claim, a character that is no wording) and a doubt (a
    word or sign the installed packs do not word the type with, whose meaning verify cannot
    vouch for; ``allowed`` ``None``: no doubt is raised)."""
    why = unreadable(text)
    if why is not None:
        return why, None
    text = as_read(text)
    doubt = None
    for char in text:
        if contradicting(char):
            return f"the sign {char!r} negates or qualifies the claim", None
        if not char.isprintable() and not char.isspace():
            return f"the character {char!r} is not wording", None
        if doubt is None and not (char.isspace() or char.isalpha() or char in _PUNCTUATION):
            doubt = f"the sign {char!r}"
    words = words_of(text)
    bad = negating(words)
    if bad:
        return f"the word {shown(bad[0], 40)} negates, hedges or conditions the claim", None
    if allowed is None:
        return None, None
    unknown = [w for w in words if w not in allowed]
    if unknown:
        doubt = f"the word {shown(unknown[0], 40)}"
    return None, doubt


def _allowed_slots(type_name: str) -> frozenset[str]:
    selector = selector_of(type_name)
    if type_name == "FC":
        return FREE | {"entity", "fact"}
    claim = "fact" if type_name.startswith("FC+") else "entity"
    return FREE | frozenset().union(*CLAUSES[selector]) | SCOPE.get(selector, frozenset()) \
        | {claim}


def _slot_problem(type_name: str, slots: list[str]) -> str | None:
    """Slots the type does not fill, slots used too often, slots missing."""
    allowed = _allowed_slots(type_name)
    for name in slots:
        if name not in allowed:
            return f"uses {{{{ {name} }}}}, which a {type_name} statement does not fill"
    selector = selector_of(type_name)
    for name in set(slots) - FREE:
        limit = 2 if name == "column" and selector == "AR" else 1
        if slots.count(name) > limit:
            return f"uses {{{{ {name} }}}} {slots.count(name)} times"
    if type_name == "FC":
        required: frozenset[str] = frozenset({"entity", "fact"})
    else:
        claim = "fact" if type_name.startswith("FC+") else "entity"
        required = REQUIRED[selector] | {claim}
    missing = sorted(required - set(slots))
    if missing:
        return f"does not write {{{{ {missing[0]} }}}}, so it states less than its program"
    if selector in DIRECTED and not {"direction", "direction_verb"} & set(slots):
        return "does not write {{ direction }} or {{ direction_verb }}"
    return None


def _adjacent(parts: list[Part], first: str, second: str) -> bool:
    """Whether slot ``second`` follows slot ``first`` with only whitespace between."""
    for i, part in enumerate(parts):
        if isinstance(part, Slot) and part.name == first:
            rest = parts[i + 1:]
            while rest and isinstance(rest[0], str) and not rest[0].strip():
                rest = rest[1:]
            return bool(rest) and isinstance(rest[0], Slot) and rest[0].name == second
    return False


def _order_problem(type_name: str, parts: list[Part]) -> str | None:
    """The order of slots that carries the meaning: comparison word then threshold, periods
    in program order, the sign between its operands, each clause together, the claim outside
    the clauses, a fact last."""
    slots = [p.name for p in parts if isinstance(p, Slot)]
    first = {name: slots.index(name) for name in slots}
    last = {name: len(slots) - 1 - slots[::-1].index(name) for name in slots}
    if "cmp" in first and not _adjacent(parts, "cmp", "threshold"):
        return "does not write {{ threshold }} right after {{ cmp }}"
    for a, b in ORDERED:
        if a in first and b in first and first[b] < last[a]:
            return f"writes {{{{ {b} }}}} before {{{{ {a} }}}}"
    operands = SIGN_OPERANDS.get(selector_of(type_name))
    if operands is not None and "sign" in first and not \
            first[operands[0]] < first["sign"] < last[operands[1]]:
        return f"does not write {{{{ sign }}}} between {{{{ {operands[0]} }}}} and " \
               f"{{{{ {operands[1]} }}}}"
    if type_name == "FC":
        return None if _adjacent(parts, "entity", "fact") else \
            "does not write {{ fact }} right after {{ entity }}"
    selector = selector_of(type_name)
    if type_name.startswith("FC+") and last["fact"] != len(slots) - 1:
        return "writes a slot after {{ fact }}: the fact is said of the one its clauses pick"
    claim = len(CLAUSES[selector])
    groups = {name: i for i, clause in enumerate(CLAUSES[selector]) for name in clause}
    groups |= {"entity": claim, "fact": claim}
    grouped = [(name, groups[name]) for name in slots if name in groups]
    for label in {g for _, g in grouped}:
        at = [i for i, (_, g) in enumerate(grouped) if g == label]
        inside = [name for name, g in grouped[at[0]:at[-1] + 1] if g != label]
        if inside:
            what = "the claim" if label == claim else "a clause of the claim"
            return f"puts {{{{ {inside[0]} }}}} inside {what}: the slots of one clause " \
                   "stand together"
    return None
def form_verdict(type_name: str, source: str, extra_words: frozenset[str]
                 ) -> tuple[str | None, str | None]:
    """Why the recorded form ``source`` of ``type_name`` is refused, and what of it verify
    cannot vouch for (each ``None`` when there is nothing). ``extra_words`` are the pack's own
    nouns, which any form may use."""
    try:
        parts = form_parts(source)
    except Refused as exc:
        return str(exc), None
    slots = [p.name for p in parts if isinstance(p, Slot)]
    text = " ".join(p for p in parts if isinstance(p, str))
    if not is_known_type(type_name):
        if not {"entity", "fact"} & set(slots):
            return "writes neither {{ entity }} nor {{ fact }}", None
        return _text_verdict(text, None)
    problem = _slot_problem(type_name, slots) or _order_problem(type_name, parts)
    if problem is not None:
        return problem, None
    vocabulary = installed().vocabulary
    allowed = vocabulary.get(family_of(type_name), frozenset()) | NEUTRAL | extra_words
    if type_name.startswith("FC"):
        allowed |= vocabulary.get("FC", frozenset())
    if any(c.isdigit() for c in text):
        return "holds a number of its own", None
    problem, doubt = _text_verdict(text, allowed)
    label = _label(parts)
    if problem is None and label is not None:
        problem = f"puts the label {label!r} before what it claims (no installed form has " \
            "one: a label can say what the claim is worth)"
    return (problem, None) if problem is not None else (None, doubt)


_LABEL = re.compile(r"[^\W\d_][^.,;:!?\u2014\u2013|\u00bb\u2192]*?"
                    r"(?::|\u2014|\u2013|\||\u00bb|\u2192|=>|\s-\s)")


def _label(parts: list[Part]) -> str | None:
    """The first label-like run of words ending in a colon (or a dash, a bar, an arrow) in a
    form's text ("Fabricated claim:", "Untruthfully:", "Counterpoint —"), if any."""
    for part in parts:
        if isinstance(part, str):
            found = _LABEL.search(as_read(part))
            if found is not None:
                return " ".join(found.group().split())
    return None


def is_installed_form(type_name: str, source: str) -> bool:
    """Whether ``source`` is one of the installed packs' forms of ``type_name``."""
    return normalised(source) in installed().forms.get(type_name, frozenset())


# -- word maps, nouns, period format, question ---------------------------------------------


def word_map_verdict(words: Mapping[str, Mapping[str, str]]) -> tuple[list[str], list[str]]:
    """Each word-map entry the wording needs, with a phrase of its meaning: the problems (a
    missing entry, a phrase that means another key's sense or negates) and the doubts (a
    phrase verify does not know)."""
    problems, doubts = [], []
    phrases = installed().word_phrases
    for key, senses in phrases.items():
        given = words.get(key)
        for sense, allowed in senses.items():
            value = given.get(sense) if isinstance(given, Mapping) else None
            where = f"words.{key}[{sense!r}]"
            if not isinstance(value, str):
                problems.append(f"{where} is missing")
                continue
            unread = unreadable(value)
            if unread is not None:
                problems.append(f"{where} {shown(value, 40)}: {unread}")
                continue
            phrase = " ".join(as_read(value).lower().split())
            read = " ".join(latin_reading(w) for w in phrase.split())
            others = {other for other, found in senses.items() if other != sense and
                      (phrase in found or read in found or
                       set(read.split()) & (_sense_words(found) - _sense_words(allowed)))}
            bad = negating(words_of(phrase))
            if others or bad or any(contradicting(c) for c in phrase):
                problems.append(f"{where} {shown(value, 40)} " + (
                    f"says {sorted(others)[0]!r}" if others else "negates or qualifies it"))
            elif phrase not in allowed:
                doubts.append(f"{where} {shown(value, 40)}")
    return problems, doubts


def _sense_words(phrases: frozenset[str]) -> set[str]:
    return {w for phrase in phrases for w in phrase.split()}
def noun_problem(value: str) -> str | None:
    """Why ``value`` is not a plain noun phrase (``None``: it is)."""
    unread = unreadable(value)
    if unread is not None:
        return unread
    words = words_of(value)
    if not words or len(words) > 4:
        return "is not a noun of one to four words"
    if any(not (c.isalnum() or c in " -'\u2019&.") for c in value):
        return "holds characters a noun does not"
    bad = negating(words) or [w for w in words if w in CLAUSE_WORDS]
    if bad:
        return f"holds {bad[0]!r}: a noun, not a clause"
    return None


def period_format_problem(value: str) -> str | None:
    """Why the period format ``value`` could change what a statement says."""
    text = value.replace("{}", " ")
    if any(not (c.isascii() and c.isprintable()) for c in text) or len(words_of(text)) > 2:
        return "is not a short unit or prefix around '{}'"
    bad = negating(words_of(text)) or [w for w in words_of(text) if w in CLAUSE_WORDS]
    if bad:
        return f"holds {bad[0]!r}"
    return None


QUESTION_VARIABLES = frozenset({"names", "singular", "plural", "noun"})
def question_verdict(source: str, extra_words: frozenset[str]
                     ) -> tuple[str | None, str | None]:
    """Why the question template ``source`` is refused, and what of it verify cannot vouch
    for: it must be text, the entities' ``names`` and one loop numbering the statements
    (``loop.index`` then the statement), asking which statements are true, with no negating
    word; a word the installed packs' questions do not use is a doubt."""
    try:
        body = parse(source).body
    except Refused as exc:
        return str(exc), None
    texts: list[str] = []
    loops = 0
    for node in body:
        if isinstance(node, nodes.For):
            loops += 1
            problem = _loop_problem(node, texts)
        elif isinstance(node, nodes.Output):
            problem = _output_problem(node.nodes, QUESTION_VARIABLES, texts)
        else:
            problem = f"holds {_construct(node)}"
        if problem is not None:
            return problem, None
    if loops != 1:
        return "does not list the statements in one {% for %} loop", None
    text = " ".join(texts)
    unread = unreadable(text)
    if unread is not None:
        return unread, None
    if "true" not in words_of(text):
        return "does not ask which statements are true", None
    for char in text:
        if not (char.isprintable() or char.isspace()):
            return f"the character {char!r} is not wording", None
    bad = negating(w for w in words_of(text) if w not in installed().question_words)
    if bad:
        return f"the word {shown(bad[0], 40)} negates, hedges or conditions the question", None
    excluding = [w for w in words_of(text) if w in EXCLUDING]
    if excluding:
        return f"the word {excluding[0]!r} asks for statements other than the true ones", None
    unknown = [w for w in words_of(text) if w not in
               installed().question_words | NEUTRAL | extra_words]
    return None, (f"the word {unknown[0]!r}" if unknown else None)


def _output_problem(children: Sequence[nodes.Node], variables: frozenset[str],
                    texts: list[str]) -> str | None:
    for child in children:
        if isinstance(child, nodes.TemplateData):
            texts.append(child.data)
        elif not (isinstance(child, nodes.Name) and child.name in variables):
            name = child.name if isinstance(child, nodes.Name) else None
            return f"uses {{{{ {name} }}}}" if name else f"holds {_construct(child)}"
    return None


def _loop_problem(loop: nodes.For, texts: list[str]) -> str | None:
    """The one loop: ``{% for s in statements %}{{ loop.index }}. {{ s }}…{% endfor %}``."""
    target = loop.target.name if isinstance(loop.target, nodes.Name) else None
    iterated = loop.iter.args[0] if isinstance(loop.iter, nodes.Call) and loop.iter.args \
        else loop.iter
    if target is None or not (isinstance(iterated, nodes.Name) and
                              iterated.name == "statements") or loop.else_ or \
            loop.test is not None:
        return "has a loop other than {% for statement in statements %}"
    order: list[str] = []
    for node in loop.body:
        if not isinstance(node, nodes.Output):
            return f"holds {_construct(node)} in its loop"
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                texts.append(child.data)
            elif isinstance(child, nodes.Name) and child.name == target:
                order.append("statement")
            elif isinstance(child, nodes.Getattr) and isinstance(child.node, nodes.Name) and \
                    child.node.name == "loop" and child.attr == "index":
                order.append("index")
            else:
                return f"holds {_construct(child)} in its loop"
    if order != ["index", "statement"]:
        return "does not number each statement ({{ loop.index }} then the statement)"
    return None


# -- the whole recorded wording -------------------------------------------------------------


@dataclass
class Judged:
    """The verdict on recorded wording: the forms accepted per type, whether the question is,
    the problems (each naming its field), and what was accepted without being an installed
    pack's."""

    forms: dict[str, list[str]] = field(default_factory=dict)
    question: bool = True
    problems: list[str] = field(default_factory=list)
    vouched: list[str] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)
    """Fields accepted with a word or sign whose meaning verify cannot vouch for, each with
    the first such."""
    unknown_types: list[str] = field(default_factory=list)


def pack_words(nouns: Iterable[str], singular: str, plural: str) -> frozenset[str]:
    """The words of the pack's own nouns and their plurals (a form may use them as text)."""
    found = {w for text in (*nouns, singular, plural) for w in words_of(text)
             if not negating([w]) and w not in CLAUSE_WORDS}
    plurals = {w + "s" for w in found} | {w + "es" for w in found} | \
        {w[:-1] + "ies" for w in found if w.endswith("y")}
    return frozenset(found | plurals)


def judge(forms: Mapping[str, list[str]], words: Mapping[str, Mapping[str, str]],
          nouns: tuple[str, ...], singular: str, plural: str, question: str,
          period_format: str) -> Judged:
    """Judge recorded wording (see the module docstring); problems name ``config.wording``'s
    fields."""
    verdict = Judged()
    where = "manifest.json: config.wording"
    for key, value in (*((f"nouns[{i}]", n) for i, n in enumerate(nouns)),
                       ("singular", singular), ("plural", plural)):
        if value or key.startswith("nouns"):
            why = noun_problem(value)
            if why:
                verdict.problems.append(f"{where}.{key} {shown(value, 40)} {why}")
    why = period_format_problem(period_format)
    if why:
        verdict.problems.append(f"{where}.period_format {shown(period_format, 40)} {why}")
    problems, doubts = word_map_verdict(words)
    verdict.problems += [f"{where}.{p}" for p in problems]
    verdict.doubts += doubts
    own = pack_words(nouns, singular, plural)
    why, doubt = question_verdict(question, own)
    if why:
        verdict.question = False
        verdict.problems.append(f"{where}.question {shown(question)}: {why}")
    elif " ".join(question.split()) not in installed().questions:
        verdict.vouched.append("question")
        if doubt:
            verdict.doubts.append(f"question ({doubt})")
    for type_name, sources in forms.items():
        accepted = []
        if not is_known_type(type_name):
            verdict.unknown_types.append(type_name)
        for i, source in enumerate(sources):
            if is_installed_form(type_name, source):
                accepted.append(source)
                continue
            why, doubt = form_verdict(type_name, source, own)
            if why is None:
                accepted.append(source)
                if is_known_type(type_name):
                    verdict.vouched.append(f"{type_name}[{i}]")
                if doubt:
                    verdict.doubts.append(f"forms.{type_name}[{i}] ({doubt})")
            else:
                verdict.problems.append(f"{where}.forms.{type_name}[{i}] {shown(source)}: "
                                        f"{why}")
        verdict.forms[type_name] = accepted
    return verdict
