"""Statement text against its program: the words a model reads say what the program checks.

A consistent forgery can flip a program's comparison, threshold, year or claimed entity
together with the stored label; the label then re-proves, but the text no longer says what
the program checks. Two checks, neither of which touches label computation:

* **mentions** (always): every number, year, entity name and column label the program implies
  occurs in the text, with the pack's words for its comparison, sign, order and direction when
  the pack is known, and the fact's distinctive tokens (numbers, proper names) for a fact hop;
* **rendering**: the text is one of the pack's surface forms of the statement's type rendered
  with the program's values, up to the two values a program does not fix (the noun, one of the
  pack's nouns, and the fact's wording, a third-person predicate, which may not negate or
  hedge what the text it quotes says).

Which wording the texts are rendered with is decided without trusting the dataset's word for
it (:func:`judge_wording`): a dataset whose identities or related columns — or, item by item,
whose columns — are those of an installed pack (whatever it calls its domain), made by this
hopvista in this format, is held to that pack's wording; any other dataset's recorded wording
(``config.wording``) is first judged by :mod:`hopvista.verify.meaning`, and only the forms it
accepts prove a text. Templates render in :class:`hopvista.sandbox.PackEnvironment`.

The question is checked the same way: re-rendered from the pack's template, or, without the
pack, containing each statement text in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import jinja2

from hopvista.domain import DomainPack, builtin_pack_names, resolve_pack
from hopvista.errors import UserError
from hopvista.model.format import FORMAT_VERSION
from hopvista.program.executor import mentions
from hopvista.program.operators import OPERATORS, View, nodes
from hopvista.reading import as_read, format_character
from hopvista.verify.meaning import (
    TEMPLATES,
    judge,
    negating,
    normalised,
    shown,
    unreadable,
    words_of,
)
from hopvista.version import __version__

NOUN, FACT = "\ue000", "\ue001"
# The sandbox: a dataset's manifest carries the wording it was built with, and verify must
# never run code that a dataset brings, nor work without bound.
_ENV = TEMPLATES
MAX_TEMPLATE_CHARS = 4000
#: Most forms a type, and most nouns, recorded wording may have (each is tried per statement).
MAX_FORMS = 64
_NUMERIC = ("threshold", "result")
_PERIODS = ("period", "period1", "period2")
_NAMES = ("entity", "anchor", "column", "cond_column", "cond_column2", "trend_column",
          "rank_column")
_WORDS = ("cmp", "sign", "order")
_WHAT = {"threshold": "threshold", "result": "result", "period": "period",
         "period1": "period", "period2": "period", "entity": "claimed entity",
         "anchor": "condition's entity",
         "column": "column", "cond_column": "condition column",
         "cond_column2": "second condition column", "trend_column": "chart column",
         "rank_column": "chart column", "cmp": "comparison", "sign": "sign",
         "order": "order", "direction": "direction"}
_TEMPLATE_ERRORS = (jinja2.TemplateError, TypeError, ValueError, ArithmeticError,
                    RecursionError, LookupError, AttributeError)


@dataclass(frozen=True)
class Wording:
    """A domain pack's wording: surface forms, word maps, entity nouns, question template."""

    pack: str
    forms: dict[str, list[str]]
    words: dict[str, dict[str, str]]
    nouns: tuple[str, ...]
    question: str
    singular: str = ""
    plural: str = ""
    period_format: str = "{}"


@dataclass(frozen=True)
class WordingVerdict:
    """Which wording proves the texts, and what was found deciding it.

    ``wording`` is the installed pack's, the recorded wording's accepted part, or ``None``
    (only mentions are checked); ``problems`` name ``manifest.json``'s fields; ``notes`` say
    what is not checked; ``builtin`` is the installed pack the dataset's content is."""

    wording: Wording | None
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    builtin: str | None = None


@lru_cache(maxsize=8)
def _builtin_pack(name: str) -> DomainPack | None:
    """A built-in pack, loaded once per process (``None`` if it does not load)."""
    try:
        return resolve_pack(name)
    except UserError:
        return None


def installed_pack(name: str | None) -> DomainPack | None:
    """The built-in pack ``name`` as installed (``None`` for no name, or one it does not
    know)."""
    return _builtin_pack(name) if name in builtin_pack_names() else None


def _installed_packs() -> list[DomainPack]:
    return [p for p in map(_builtin_pack, builtin_pack_names()) if p is not None]


def _installed_wording(pack: DomainPack) -> Wording:
    recorded = pack.wording_json()
    return Wording(pack=pack.name, forms=recorded["forms"], words=recorded["words"],
                   nouns=tuple(recorded["nouns"]), question=recorded["question"],
                   singular=recorded["singular"], plural=recorded["plural"],
                   period_format=recorded["period_format"] or "{}")


def pack_by_content(config: dict[str, Any]) -> DomainPack | None:
    """The installed pack whose identities or related columns the config records (each
    list non-empty and equal), whatever the config calls its domain."""
    for pack in _installed_packs():
        identities = [i.text for i in pack.identities]
        related = [list(g) for g in pack.spec.related]
        if (identities and config.get("identities") == identities) or \
                (related and config.get("related") == related):
            return pack
    return None


def pack_by_columns(item: dict[str, Any]) -> DomainPack | None:
    """The installed pack whose column catalogue names every column the item shows (three
    or more, each with its key and label)."""
    try:
        inputs = item["inputs"]
        shown_columns = {(c["key"], c["label"]) for c in inputs["table"]["columns"]}
        shown_columns.add((inputs["chart"]["column"]["key"], inputs["chart"]["column"]["label"]))
    except (KeyError, TypeError):
        return None
    if len(shown_columns) < 3:
        return None
    for pack in _installed_packs():
        catalogue = {(c.key, c.label) for c in pack.spec.columns}
        if shown_columns <= catalogue:
            return pack
    return None


def differences(recorded: Wording | None, pack: DomainPack, domain: str | None
                ) -> list[str]:
    """How recorded wording strays from the installed pack's (forms of each type among the
    pack's, the same words, nouns and question); one problem each."""
    where = "manifest.json: config.wording"
    said = "(the dataset is that pack" + \
        ("" if domain == pack.name else f", named {str(domain)[:40]!r}") + \
        "; its wording must be the pack's)"
    if recorded is None:
        return [f"{where}: missing or malformed, not the wording of the installed pack "
                f"{pack.name!r} {said}"]
    installed = pack.wording_json()
    problems = []
    known = {t: {normalised(f) for f in forms} for t, forms in pack.spec.forms.items()}
    for type_name, forms in recorded.forms.items():
        for i, form in enumerate(forms):
            if normalised(form) not in known.get(type_name, set()):
                problems.append(f"{where}.forms.{type_name}[{i}] {shown(form)} is not a "
                                f"{type_name} form of the installed pack {pack.name!r} {said}")
    for key, value in (("words", recorded.words), ("question", recorded.question),
                       ("singular", recorded.singular), ("plural", recorded.plural)):
        if value != installed[key]:
            problems.append(f"{where}.{key} is not the installed pack {pack.name!r}'s {said}")
    if not set(recorded.nouns) <= set(installed["nouns"]):
        problems.append(f"{where}.nouns {list(recorded.nouns)[:4]} are not the installed "
                        f"pack {pack.name!r}'s {said}")
    if recorded.period_format != (installed["period_format"] or "{}"):
        problems.append(f"{where}.period_format is not the installed pack {pack.name!r}'s "
                        f"{said}")
    return problems


#: The first format whose manifests record the pack's ``related`` columns (a format-2 build
#: had none: its pack must have none).
RELATED_FORMAT = 3


def content_differences(config: dict[str, Any], pack: DomainPack, domain: str | None,
                        version: int = FORMAT_VERSION) -> list[str]:
    """The identities, related columns and decidability margins of a built-in pack's dataset
    must be the installed pack's, whatever format or hopvista it claims: the chart's need
    and its close calls are checked with them."""
    problems = []
    said = "(the dataset is that pack" + \
        ("" if domain == pack.name else f", named {str(domain)[:40]!r}") + ")"
    related = config.get("related", [] if version < RELATED_FORMAT else None)
    for key, recorded, installed in (
            ("identities", config.get("identities"), [i.text for i in pack.identities]),
            ("related", related, [list(g) for g in pack.spec.related])):
        if recorded != installed:
            problems.append(f"manifest.json: config.{key} are not the installed pack "
                            f"{pack.name!r}'s {said}")
    decide = config.get("decidability")
    for key, installed_margin in pack.spec.decidability.model_dump().items():
        value = decide.get(key) if isinstance(decide, dict) else None
        if type(value) not in (int, float) or value != installed_margin:
            text = repr(value)
            text = text if len(text) <= 30 else text[:27] + "..."
            problems.append(f"manifest.json: config.decidability.{key} {text} is not the "
                            f"installed pack {pack.name!r}'s {installed_margin} {said}")
    return problems


def judge_wording(config: dict[str, Any], domain: str | None, version: int,
                  built_by: Any) -> WordingVerdict:
    """Decide which wording proves the texts of a dataset of ``config`` (see the module
    docstring); ``version`` is its format version, ``built_by`` the hopvista that made it."""
    recorded, problems = read_recorded(config.get("wording"), domain)
    pack = pack_by_content(config)
    if pack is not None:
        problems += content_differences(config, pack, domain, version)
    if pack is not None and version == FORMAT_VERSION and built_by == __version__:
        problems += differences(recorded, pack, domain)
        return WordingVerdict(_installed_wording(pack), tuple(problems), (), pack.name)
    notes = []
    if recorded is None:
        return WordingVerdict(None, tuple(problems), (
            "statement wording beyond its mentions of the program's values (the manifest "
            "records no usable wording)",), pack.name if pack else None)
    verdict = judge(recorded.forms, recorded.words, recorded.nouns, recorded.singular,
                    recorded.plural, recorded.question, recorded.period_format)
    problems += verdict.problems
    if verdict.vouched:
        notes.append(f"the meaning of {len(verdict.vouched)} wording form(s) the manifest "
                     f"records that no installed pack has ({', '.join(verdict.vouched[:4])}"
                     f"{', …' if len(verdict.vouched) > 4 else ''}): verify checked their "
                     "slots, their order and their words, it does not read English")
    if verdict.doubts:
        notes.append(f"the meaning of words the installed packs do not use in "
                     f"{len(verdict.doubts)} wording field(s) ({'; '.join(verdict.doubts[:3])}"
                     f"{'; …' if len(verdict.doubts) > 3 else ''}): no negating or hedging "
                     "word was found, but verify cannot vouch for them")
    for type_name in verdict.unknown_types:
        notes.append(f"the meaning of the {type_name} forms (a type no installed pack "
                     "words): checked for their slots and for negations only")
    if pack is not None:
        notes.append(unheld_note(pack.name, version, built_by))
    accepted = replace(recorded, forms=verdict.forms,
                       question=recorded.question if verdict.question else "")
    return WordingVerdict(accepted, tuple(problems), tuple(notes),
                          pack.name if pack else None)


def unheld_note(pack: str, version: int, built_by: Any) -> str:
    """What is not checked of a built-in pack's dataset made by another hopvista or in
    another format: its recorded wording against the pack as installed."""
    return f"the recorded wording against the installed pack {pack!r} (the dataset was " \
        f"made in format {version} by hopvista {str(built_by)[:20]}; the pack may have " \
        "changed since): judged by its words and slots, as a custom pack's"
def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) and len(v) <= MAX_TEMPLATE_CHARS for v in value)


def read_recorded(recorded: Any, domain: str | None) -> tuple[Wording | None, list[str]]:
    """The manifest's ``config.wording`` and, when it is not well formed, the problem."""
    where = "manifest.json: field 'config.wording'"
    if not isinstance(recorded, dict):
        return None, [f"{where}: expected the wording the pack was built with, got "
                      f"{type(recorded).__name__}"]
    forms, words = recorded.get("forms"), recorded.get("words")
    nouns, question = recorded.get("nouns"), recorded.get("question")
    if not (isinstance(forms, dict) and all(isinstance(k, str) and _strings(v)
                                            and len(v) <= MAX_FORMS for k, v in forms.items())):
        return None, [f"{where}.forms: expected lists of at most {MAX_FORMS} templates of at "
                      f"most {MAX_TEMPLATE_CHARS} characters per type"]
    if not (isinstance(words, dict) and all(
            isinstance(k, str) and isinstance(m, dict) and
            all(isinstance(a, str) and isinstance(b, str) for a, b in m.items())
            for k, m in words.items())):
        return None, [f"{where}.words: expected word maps of strings"]
    if not (_strings(nouns) and nouns and len(nouns) <= MAX_FORMS and isinstance(question, str)
            and len(question) <= MAX_TEMPLATE_CHARS):
        return None, [f"{where}: expected nouns and a question template"]
    extras = [recorded.get(k) or "" for k in ("singular", "plural")]
    period_format = recorded.get("period_format") or "{}"
    if not all(isinstance(x, str) and len(x) <= MAX_TEMPLATE_CHARS
               for x in (*extras, period_format)) or period_format.count("{}") != 1:
        return None, [f"{where}: singular, plural or period_format is malformed"]
    return Wording(pack=f"{domain} (as recorded)", forms=forms, words=words,
                   nouns=tuple(nouns), question=question, singular=extras[0],
                   plural=extras[1], period_format=period_format), []
def _node_variables(node: dict[str, Any], view: View,
                    words: dict[str, dict[str, str]] | None) -> dict[str, str]:
    """The template variables one selector node fixes (its operator says which)."""
    out = dict(OPERATORS.get(node["op"]).variables(node, view))
    if words is not None:
        out |= _node_words(node, words)
    return out


def _node_words(node: dict[str, Any], words: dict[str, dict[str, str]]) -> dict[str, str]:
    # a condition (rk_when's ``when``, rk_among's ``among``) holds its cmp and sign
    conditions = OPERATORS.get(node["op"]).conditions
    source = node[conditions[0]] if conditions else node
    out = {}
    if "cmp" in source:
        out["cmp"] = words["cmp"][source["cmp"]]
    if "order" in node:
        out["order"] = words["order"][node["order"]]
    if "direction" in node:
        out["direction"] = words["direction"][node["direction"]]
        out["direction_verb"] = words["direction_verb"][node["direction"]]
    terms = source.get("terms", [])
    sign = node.get("sign") or (terms[1]["sign"] if len(terms) > 1 else None)
    if sign is not None:
        out["sign"] = words["sign"][sign]
    return out


def statement_variables(statement: dict[str, Any], item: dict[str, Any],
                        words: dict[str, dict[str, str]] | None) -> dict[str, str]:
    """Every variable a surface form of the statement may use; the noun and the fact's
    wording (which the program does not fix) are placeholders."""
    program = statement["program"]
    select = program["select"]
    out: dict[str, str] = {"noun": NOUN}
    view = View(item)
    for node in nodes(select):
        out |= _node_variables(node, view, words)
    if item["inputs"]["table"].get("period_label") is None:  # no period axis: never shown
        for key in _PERIODS:
            out.pop(key, None)
    claim = program["claim"]
    claimed = claim.get("entity", claim.get("only"))
    if claimed is not None:
        names = {e["id"]: e["name"] for e in item["entities"]}
        out["entity"] = names.get(claimed, claimed)
    if "fact" in claim or select["op"] == "fact":
        out["fact"] = FACT
    return out


def number_in(text: str, number: str) -> bool:
    """Whether ``text`` writes ``number`` as a number (with or without thousands
    separators)."""
    pattern = r"(?<![\d.,\-])" + re.escape(as_read(number)) + r"(?![\d]|[.,]\d)"
    return re.search(pattern, as_read(text)) is not None


def needle_tokens(needle: str) -> list[str]:
    """The distinctive tokens of a fact's needle (numbers and capitalised words, else its
    longer words): any wording of the fact keeps them."""
    tokens = [t.strip(".,;:()\"'") for t in needle.split()]
    key = [t for t in tokens if any(c.isdigit() or c.isupper() for c in t)]
    return key or [t for t in tokens if len(t) >= 5]


def fact_needle(program: dict[str, Any]) -> str | None:
    """The needle of the fact a program reads or claims (``None``: it reads no fact)."""
    claim = program["claim"]
    if "fact" in claim:
        return str(claim["fact"]["needle"])
    select = program["select"]
    return str(select["needle"]) if select["op"] == "fact" else None


def missing_mentions(statement: dict[str, Any], variables: dict[str, str]) -> list[str]:
    """What the program implies that the statement text does not mention."""
    text, missing = statement["text"], []
    for key in _NUMERIC:
        if key in variables and not number_in(text, variables[key]):
            missing.append(f"the {_WHAT[key]} {variables[key]}")
    for key in _PERIODS:
        value = variables.get(key)
        if value is not None and not (number_in(text, value) if value.isdigit()
                                      else mentions(text, value)):
            missing.append(f"the {_WHAT[key]} {value}")
    for key in (*_NAMES, *_WORDS):
        if key in variables and not mentions(text, variables[key]):
            missing.append(f"the {_WHAT[key]} {variables[key]!r}")
    if "direction" in variables and not (mentions(text, variables["direction"]) or
                                         mentions(text, variables["direction_verb"])):
        missing.append(f"the direction {variables['direction']!r}")
    needle = fact_needle(statement["program"])
    if needle is not None:
        seen = as_read(text).lower()
        lost = [t for t in needle_tokens(needle) if as_read(t).lower() not in seen]
        if lost:
            missing.append(f"the fact's {', '.join(repr(t) for t in lost[:3])}")
    return missing


@lru_cache(maxsize=256)
def _template(source: str) -> jinja2.Template:
    return _ENV.from_string(source)


def _pattern(rendered: str, nouns: tuple[str, ...]) -> re.Pattern[str]:
    """A regex of a rendering whose noun and fact are placeholders."""
    parts, seen = [], set()
    for i, piece in enumerate(re.split(f"([{NOUN}{FACT}])", rendered)):
        if piece == NOUN:
            options = set(nouns) | ({n[:1].upper() + n[1:] for n in nouns} if i == 1 else set())
            body = "|".join(re.escape(n) for n in sorted(options, key=len, reverse=True))
            parts.append("(?P=noun)" if "noun" in seen else f"(?P<noun>{body})")
            seen.add("noun")
        elif piece == FACT:
            parts.append("(?P=fact)" if "fact" in seen else "(?P<fact>.+?)")
            seen.add("fact")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts), re.DOTALL)


def _quoted_negations(needle: str, item: dict[str, Any] | None) -> set[str]:
    """The negating words of the text sentences that state the fact (``needle``)."""
    found: set[str] = set()
    chunks = item.get("inputs", {}).get("text", []) if isinstance(item, dict) else []
    for chunk in chunks if isinstance(chunks, list) else []:
        text = chunk.get("text") if isinstance(chunk, dict) else None
        if not isinstance(text, str) or as_read(needle) not in as_read(text):
            continue
        text, needle = as_read(text), as_read(needle)
        sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if needle in s]
        for sentence in sentences or [text]:
            found.update(negating(words_of(sentence)))
    return found


def fact_problem(fact: str, needle: str, item: dict[str, Any] | None) -> str | None:
    """Why a statement's wording of a fact does not say what the text says: it loses the
    needle's distinctive tokens, or it negates or hedges what no sentence stating the fact
    negates."""
    unread = unreadable(fact)
    if unread is not None:
        return unread
    if not all(as_read(t).lower() in as_read(fact).lower() for t in needle_tokens(needle)):
        return "loses the fact's numbers or names"
    added = [w for w in negating(words_of(fact)) if w not in _quoted_negations(needle, item)]
    if added:
        return f"says {added[0]!r} of the fact, which no text stating it says"
    return None


def _rendering_problem(statement: dict[str, Any], variables: dict[str, str],
                       wording: Wording, item: dict[str, Any] | None) -> str | None:
    """``None`` when the text is one of the pack's forms of its type rendered with the
    program's values (any pack noun; a wording of the fact that keeps the needle's
    distinctive tokens and adds no negation), else why not."""
    needle = fact_needle(statement["program"])
    variables = variables | {"singular": wording.singular, "plural": wording.plural}
    # Wording recorded by format 2 (before domain-neutral packs) named periods "year".
    variables |= {old: variables[new] for old, new in
                  (("year", "period"), ("year1", "period1"), ("year2", "period2"))
                  if new in variables}
    why = f"text is not a {statement['type']} form of pack {wording.pack!r} rendered with " \
          "its program's values"
    for form in wording.forms.get(statement["type"], []):
        try:
            rendered = _template(form).render(**variables).strip()
        except _TEMPLATE_ERRORS:
            continue
        rendered = rendered[:1].upper() + rendered[1:]
        match = _pattern(rendered, wording.nouns).fullmatch(statement["text"])
        if match is None:
            continue
        fact = match.groupdict().get("fact")
        if fact is None or needle is None:
            return None
        problem = fact_problem(fact, needle, item)
        if problem is None:
            return None
        why = f"its wording of the fact {shown(fact, 50)} {problem}"
    return why


def renders(statement: dict[str, Any], variables: dict[str, str], wording: Wording,
            item: dict[str, Any] | None = None) -> bool:
    """Whether the text is one of the pack's forms of its type, rendered with the program's
    values (any pack noun; a wording of the fact that keeps the needle's distinctive tokens
    and adds no negation to what the item's texts say)."""
    return _rendering_problem(statement, variables, wording, item) is None


def check_wording(item: dict[str, Any], wording: Wording | None) -> list[str]:
    """Each statement's text says what its program checks; the question shows the texts."""
    problems = []
    words = wording.words if wording is not None else None
    for n, statement in enumerate(item["statements"], start=1):
        where = f"statement {n} ({statement['type']})"
        hidden = format_character(statement["text"])
        if hidden is not None:
            problems.append(f"{where}: text holds the invisible character {hidden}, which "
                            "hides what a reader reads")
            continue
        variables = statement_variables(statement, item, words)
        missing = missing_mentions(statement, variables)
        if missing:
            problems.append(f"{where}: text does not mention {'; '.join(missing)} "
                            "of its program")
            continue
        why = None if wording is None else \
            _rendering_problem(statement, variables, wording, item)
        if why is not None:
            problems.append(f"{where}: {why}")
    problems += _check_question(item, wording)
    shown_format = item["inputs"]["table"].get("period_format") or "{}"
    if wording is not None and shown_format != (wording.period_format or "{}"):
        problems.append(f"inputs.table.period_format {shown(str(shown_format), 30)} is not "
                        f"the pack's {wording.period_format!r}")
    return problems


def _check_question(item: dict[str, Any], wording: Wording | None) -> list[str]:
    texts = [s["text"] for s in item["statements"]]
    hidden = format_character(item["question"])
    if hidden is not None:
        return [f"question holds the invisible character {hidden}, which hides what a reader "
                "reads"]
    if wording is not None:
        names = ", ".join(e["name"] for e in item["entities"]).rstrip(".")
        try:
            wanted = _template(wording.question).render(
                names=names, statements=texts, singular=wording.singular,
                plural=wording.plural, noun=wording.singular)
        except _TEMPLATE_ERRORS:
            wanted = None
        return [] if item["question"] == wanted else \
            ["question is not the pack's question with these entities and statements"]
    at = 0
    for text in texts:
        at = item["question"].find(text, at)
        if at < 0:
            return ["question does not show the three statement texts in order"]
        at += len(text)
    return []
