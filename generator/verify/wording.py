"""Statement text against its program: the words a model reads say what the program checks.

A consistent forgery can flip a program's comparison, threshold, year or claimed entity
together with the stored label; the label then re-proves, but the text no longer says what
the program checks. Two checks, neither of which touches label computation:

* **mentions** (always): every number, year, entity name and column label the program implies
  occurs in the text, with the pack's words for its comparison, sign, order and direction when
  the pack is known, and the fact's distinctive tokens (numbers, proper names) for a fact hop;
* **rendering** (with the dataset's built-in pack when it is available, i.e. the domain is
  built in, the manifest's hopvista version is this one, and its identities and margins
  match; otherwise with the wording the manifest records, rendered in a sandbox): the text
  is one of the pack's surface forms of the statement's type rendered with the program's
  values, up to the two values a program does not fix (the noun, one of the pack's nouns, and
  the fact's wording, a third-person predicate).

The question is checked the same way: re-rendered from the pack's template, or, without the
pack, containing each statement text in order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.sandbox

from hopvista import __version__
from hopvista.domain import DomainPack, builtin_pack_names, resolve_pack
from hopvista.errors import UserError
from hopvista.model.format import FORMAT_VERSION
from hopvista.verify.executor import mentions
from hopvista.verify.manifest import Expect
from hopvista.verify.operators import OPERATORS, View, nodes

NOUN, FACT = "\ue000", "\ue001"
# Sandboxed: a dataset's manifest may carry the wording it was built with, and verify must
# never run code that a dataset brings.
_ENV = jinja2.sandbox.SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False,
                                          keep_trailing_newline=False)
MAX_TEMPLATE_CHARS = 4000
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


@lru_cache(maxsize=8)
def _builtin_pack(name: str) -> DomainPack | None:
    """A built-in pack, loaded once per process (``None`` if it does not load)."""
    try:
        return resolve_pack(name)
    except UserError:
        return None


def pack_wording(expect: Expect, manifest: dict[str, Any]) -> Wording | None:
    """The wording the dataset was built with: the built-in pack when it is the one (same
    domain, this hopvista version and dataset format version, same identities and margins),
    else the wording the manifest records, else ``None`` (only the mentions are checked
    then)."""
    packages = manifest.get("packages")
    built_by = packages.get("hopvista") if isinstance(packages, dict) else None
    config = expect.config
    if expect.domain in builtin_pack_names() and built_by == __version__ and \
            expect.version == FORMAT_VERSION:
        pack = _builtin_pack(expect.domain)
        if pack is not None and [i.text for i in pack.identities] == config.get("identities") \
                and pack.spec.decidability.model_dump() == config.get("decidability") \
                and pack.wording_json() == config.get("wording"):
            recorded = pack.wording_json()
            return Wording(pack=pack.name, forms=recorded["forms"], words=recorded["words"],
                           nouns=tuple(recorded["nouns"]), question=recorded["question"],
                           singular=recorded["singular"], plural=recorded["plural"],
                           period_format=recorded["period_format"] or "{}")
    return recorded_wording(config.get("wording"), expect.domain)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) and len(v) <= MAX_TEMPLATE_CHARS for v in value)


def recorded_wording(recorded: Any, domain: str | None) -> Wording | None:
    """The manifest's ``config.wording``, when it is well formed (else ``None``)."""
    if not isinstance(recorded, dict):
        return None
    forms, words = recorded.get("forms"), recorded.get("words")
    nouns, question = recorded.get("nouns"), recorded.get("question")
    if not (isinstance(forms, dict) and all(isinstance(k, str) and _strings(v)
                                            for k, v in forms.items())):
        return None
    if not (isinstance(words, dict) and all(
            isinstance(k, str) and isinstance(m, dict) and
            all(isinstance(a, str) and isinstance(b, str) for a, b in m.items())
            for k, m in words.items())):
        return None
    if not (_strings(nouns) and nouns and isinstance(question, str)
            and len(question) <= MAX_TEMPLATE_CHARS):
        return None
    extras = [recorded.get(k) or "" for k in ("singular", "plural")]
    period_format = recorded.get("period_format") or "{}"
    if not all(isinstance(x, str) and len(x) <= MAX_TEMPLATE_CHARS
               for x in (*extras, period_format)) or period_format.count("{}") != 1:
        return None
    return Wording(pack=f"{domain} (as recorded)", forms=forms, words=words,
                   nouns=tuple(nouns), question=question, singular=extras[0],
                   plural=extras[1], period_format=period_format)


def _node_variables(node: dict[str, Any], view: View,
                    words: dict[str, dict[str, str]] | None) -> dict[str, str]:
    """The template variables one selector node fixes (its operator says which)."""
    out = dict(OPERATORS.get(node["op"]).variables(node, view))
    if words is not None:
        out |= _node_words(node, words)
    return out


def _node_words(node: dict[str, Any], words: dict[str, dict[str, str]]) -> dict[str, str]:
    # a ranking's condition (rk_when's ``when``, rk_among's ``among``) holds its cmp and sign
    condition = {"rk_when": "when", "rk_among": "among"}.get(node["op"])
    source = node[condition] if condition is not None else node
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


def _number_in(text: str, number: str) -> bool:
    pattern = r"(?<![\d.,\-])" + re.escape(number) + r"(?![\d]|[.,]\d)"
    return re.search(pattern, text) is not None


def needle_tokens(needle: str) -> list[str]:
    """The distinctive tokens of a fact's needle (numbers and capitalised words, else its
    longer words): any wording of the fact keeps them."""
    tokens = [t.strip(".,;:()\"'") for t in needle.split()]
    key = [t for t in tokens if any(c.isdigit() or c.isupper() for c in t)]
    return key or [t for t in tokens if len(t) >= 5]


def _needle(program: dict[str, Any]) -> str | None:
    claim = program["claim"]
    if "fact" in claim:
        return str(claim["fact"]["needle"])
    select = program["select"]
    return str(select["needle"]) if select["op"] == "fact" else None


def missing_mentions(statement: dict[str, Any], variables: dict[str, str]) -> list[str]:
    """What the program implies that the statement text does not mention."""
    text, missing = statement["text"], []
    for key in _NUMERIC:
        if key in variables and not _number_in(text, variables[key]):
            missing.append(f"the {_WHAT[key]} {variables[key]}")
    for key in _PERIODS:
        value = variables.get(key)
        if value is not None and not (_number_in(text, value) if value.isdigit()
                                      else mentions(text, value)):
            missing.append(f"the {_WHAT[key]} {value}")
    for key in (*_NAMES, *_WORDS):
        if key in variables and not mentions(text, variables[key]):
            missing.append(f"the {_WHAT[key]} {variables[key]!r}")
    if "direction" in variables and not (mentions(text, variables["direction"]) or
                                         mentions(text, variables["direction_verb"])):
        missing.append(f"the direction {variables['direction']!r}")
    needle = _needle(statement["program"])
    if needle is not None:
        lost = [t for t in needle_tokens(needle) if t.lower() not in text.lower()]
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


def renders(statement: dict[str, Any], variables: dict[str, str], wording: Wording) -> bool:
    """Whether the text is one of the pack's forms of its type, rendered with the program's
    values (any pack noun; a fact wording that keeps the needle's distinctive tokens)."""
    needle = _needle(statement["program"])
    variables = variables | {"singular": wording.singular, "plural": wording.plural}
    # Wording recorded by format 2 (before domain-neutral packs) named periods "year".
    variables |= {old: variables[new] for old, new in
                  (("year", "period"), ("year1", "period1"), ("year2", "period2"))
                  if new in variables}
    for form in wording.forms.get(statement["type"], []):
        try:
            rendered = _template(form).render(**variables).strip()
        except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, RecursionError):
            continue
        rendered = rendered[:1].upper() + rendered[1:]
        match = _pattern(rendered, wording.nouns).fullmatch(statement["text"])
        if match is None:
            continue
        fact = match.groupdict().get("fact")
        if fact is None or needle is None or \
                all(t.lower() in fact.lower() for t in needle_tokens(needle)):
            return True
    return False


def check_wording(item: dict[str, Any], wording: Wording | None) -> list[str]:
    """Each statement's text says what its program checks; the question shows the texts."""
    problems = []
    words = wording.words if wording is not None else None
    for n, statement in enumerate(item["statements"], start=1):
        variables = statement_variables(statement, item, words)
        missing = missing_mentions(statement, variables)
        where = f"statement {n} ({statement['type']})"
        if missing:
            problems.append(f"{where}: text does not mention {'; '.join(missing)} "
                            "of its program")
        elif wording is not None and not renders(statement, variables, wording):
            problems.append(f"{where}: text is not a {statement['type']} form of pack "
                            f"{wording.pack!r} rendered with its program's values")
    problems += _check_question(item, wording)
    return problems


def _check_question(item: dict[str, Any], wording: Wording | None) -> list[str]:
    texts = [s["text"] for s in item["statements"]]
    if wording is not None:
        names = ", ".join(e["name"] for e in item["entities"]).rstrip(".")
        try:
            wanted = _template(wording.question).render(
                names=names, statements=texts, singular=wording.singular,
                plural=wording.plural, noun=wording.singular)
        except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, RecursionError):
            return []
        return [] if item["question"] == wanted else \
            ["question is not the pack's question with these entities and statements"]
    at = 0
    for text in texts:
        at = item["question"].find(text, at)
        if at < 0:
            return ["question does not show the three statement texts in order"]
        at += len(text)
    return []
