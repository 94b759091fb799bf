"""The paraphrase guard: a paraphrase of a statement keeps what its program reads and adds
nothing.

A paraphrase must **keep** every value the statement's text must mention
(:func:`hopvista.verify.wording.missing_mentions`): the numbers as displayed, the periods, the
claimed entity and the condition's entity, each column's label (or one of the pack's
synonyms of that column), the comparison, sign, order and direction words (or a synonym of
the same sense), and the distinctive tokens of a fact. And it must **add nothing**: no number
the template does not write, no name of another entity of the item, no other column's label
or synonym, no comparison, sign, order or direction phrase of another sense (nor, for a word
map the program does not use, any of its phrases), no negating or hedging word
(:func:`hopvista.verify.meaning.negating`) and no sign that questions the claim, no invisible
character and no word in look-alike letters.

The guard is deterministic: the paraphrasing stage runs it before asking the judge, and
``gen verify`` runs it again on each paraphrased statement, which must give the checks the
dataset records. It reads words, not meaning: a paraphrase that keeps every value but moves
the claimed entity into the condition is the judge's to catch.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hopvista.domain import Synonyms
from hopvista.program.operators import OPERATORS, View, nodes
from hopvista.reading import as_read, spoken_as_digits
from hopvista.verify.meaning import WORD_SENSES, contradicting, negating, unreadable, words_of
from hopvista.verify.wording import (
    fact_needle,
    needle_tokens,
    number_in,
    statement_variables,
)

__all__ = ["GuardResult", "Synonyms", "guard", "numbers_of", "word_keys"]

_NUMERIC = {"threshold": "threshold", "result": "result"}
_PERIODS = ("period", "period1", "period2")
_ENTITIES = ("entity", "anchor")
_COLUMNS = ("column", "cond_column", "cond_column2", "trend_column", "rank_column")
#: What each word map says, as a check or a problem names it.
_MAP_NAMES = {"cmp": "comparison", "sign": "sign", "order": "order", "direction": "direction"}
#: Phrases of a sense too common in English to be refused where they stand ("and" is "+").
_COMMON = frozenset({"and"})
#: A number as written: digits with an optional decimal part, and a minus sign that does not
#: join two words or numbers ("2020-2022" is two numbers); not digits inside a word.
_NUMBER = re.compile(r"(?:(?<![\w.\-])-)?(?<![\d.]|[^\W\d_])\d+(?:\.\d+)?(?![^\W\d_])")
#: A word of letters and digits ("Mg3Sb2", "FY2022", "R-3m"): a name or a code, kept whole.
_CODED = re.compile(r"(?<![\w\-])(?=[\w\-]*\d)(?=[\w\-]*[^\W\d_])[\w]+(?:-[\w]+)*")
_POSSESSIVE = re.compile(r"['\u2019]s\b")


@dataclass(frozen=True)
class GuardResult:
    """What the guard checked and found held (``checks``), and why the paraphrase fails
    (``problems``, one short clause each; empty: it passes)."""

    checks: tuple[str, ...]
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """Whether the paraphrase passes the guard."""
        return not self.problems


def numbers_of(text: str) -> list[str]:
    """The numbers ``text`` writes, as a reader reads them (thousands separators dropped), in
    order of appearance, each once; then its words of letters and digits, in lower case
    ("fy2022")."""
    return list(dict.fromkeys(_numbers(text)))


def _numbers(text: str) -> list[str]:
    read = _POSSESSIVE.sub("", as_read(text))
    return _NUMBER.findall(read) + [w.lower() for w in _CODED.findall(read)]


def _what_number(token: str) -> str:
    return f"the number {token}" if _NUMBER.fullmatch(token) else f"the word {token!r}"


def word_keys(select: Mapping[str, Any]) -> dict[str, str]:
    """The word-map entries a selector states: ``{"cmp": ">", "order": "max", ...}``
    (``direction`` stands for both direction maps)."""
    out: dict[str, str] = {}
    for node in nodes(dict(select)):
        conditions = OPERATORS.get(node["op"]).conditions
        source = node[conditions[0]] if conditions else node
        if "cmp" in source:
            out["cmp"] = source["cmp"]
        if "order" in node:
            out["order"] = node["order"]
        if "direction" in node:
            out["direction"] = node["direction"]
        terms = source.get("terms", [])
        sign = node.get("sign") or (terms[1]["sign"] if len(terms) > 1 else None)
        if sign is not None:
            out["sign"] = sign
    return out


def _read(text: str) -> str:
    return " ".join(spoken_as_digits(as_read(text)).lower().split())


@dataclass(frozen=True)
class _Phrase:
    """A phrase the paraphrase may not add (unless its template says it too), and what it
    names ("the entity 'Acme'", "the comparison '<'")."""

    text: str
    names: str


def _occurrences(text: str, phrase: str) -> Iterable[tuple[int, int]]:
    start = text.find(phrase)
    while start != -1 and phrase:
        end = start + len(phrase)
        before = text[start - 1] if start > 0 else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            yield start, end
        start = text.find(phrase, start + 1)


def _selected(text: str, phrases: Iterable[str]) -> frozenset[str]:
    """The phrases (as read) ``text`` says where no longer one of ``phrases`` covers them."""
    read = _read(text)
    candidates = [(s, e, wanted) for wanted in {_read(p) for p in phrases}
                  for s, e in _occurrences(read, wanted)]
    candidates.sort(key=lambda c: (c[0] - c[1], c[0]))
    taken: list[tuple[int, int]] = []
    said: set[str] = set()
    for start, end, wanted in candidates:
        if not any(start < e and s < end for s, e in taken):
            taken.append((start, end))
            said.add(wanted)
    return frozenset(said)


def _mentions(text: str, phrases: Iterable[str]) -> bool:
    read = _read(text)
    return any(next(iter(_occurrences(read, _read(p))), None) is not None for p in phrases)


class _Guard:
    """One paraphrase against its template: the checks that held, the problems found."""

    def __init__(self, paraphrase: str, template: str, statement: Mapping[str, Any],
                 item: Mapping[str, Any], words: Mapping[str, Mapping[str, str]] | None,
                 synonyms: Synonyms) -> None:
        self.text, self.template = paraphrase, template
        self.statement, self.item = dict(statement), dict(item)
        self.words, self.synonyms = words, synonyms
        self.view = View(self.item)
        self.keys = {label: key for key, label in self.view.labels.items()}
        self.checks: list[str] = []
        self.problems: list[str] = []
        vocabulary = self._vocabulary()
        self.said = _selected(paraphrase, vocabulary)
        self.template_said = _selected(template, vocabulary)

    def _vocabulary(self) -> list[str]:
        """Every name and word-map phrase of the item and the pack: what the paraphrase says
        is read longest phrase first among them ("cost of sales" is not "sales")."""
        out = [e["name"] for e in self.item["entities"]]
        for key in self.view.labels:
            out += self.column_names(key)
        out += [p for phrases in self.synonyms.columns.values() for p in phrases]
        for name in _MAP_NAMES:
            for key in self._map_keys(name):
                out += self._senses(name, key)
        return out

    def _says(self, phrases: Iterable[str]) -> bool:
        """Whether the paraphrase says one of ``phrases`` (not only inside a longer name or
        phrase)."""
        return any(_read(p) in self.said for p in phrases)

    def result(self) -> GuardResult:
        return GuardResult(tuple(self.checks), tuple(self.problems))

    def _keep(self, kept: bool, check: str, problem: str) -> None:
        found, said = (self.checks, check) if kept else (self.problems, problem)
        if said not in found:
            found.append(said)

    def readable(self) -> bool:
        unread = unreadable(self.text)
        if unread is not None:
            self.problems.append(f"is not read as written: {unread}")
            return False
        added = [c for c in self.text if contradicting(c) and c not in self.template]
        if added:
            self.problems.append(f"adds the sign {added[0]!r}, which questions the claim")
            return False
        return True

    def values(self, variables: Mapping[str, str]) -> None:
        period = (self.item["inputs"]["table"].get("period_label") or "period").lower()
        for key, what in _NUMERIC.items():
            if key in variables:
                number = variables[key]
                self._keep(number_in(self.text, number), f"{what} {number}",
                           f"drops the {what} {number}")
        for key in _PERIODS:
            value = variables.get(key)
            if value is not None:
                kept = number_in(self.text, value) if value.isdigit() else \
                    _mentions(self.text, [value])
                self._keep(kept, f"{period} {value}", f"drops the {period} {value}")
        for key in _ENTITIES:
            if key in variables:
                name = variables[key]
                self._keep(self._says([name]), f"entity {name!r}",
                           f"drops the entity {name!r}")
        for key in _COLUMNS:
            label = variables.get(key)
            if label is not None:
                names = self.column_names(self.keys[label]) if label in self.keys else [label]
                self._keep(self._says(names), f"column {label!r} (or a synonym)",
                           f"drops the column {label!r} (and every synonym of it)")

    def _phrases(self, name: str, key: str) -> list[str]:
        """The pack's phrase of ``key`` and its synonyms (a synonym another key of the map
        says too is not one)."""
        maps = ("direction", "direction_verb") if name == "direction" else (name,)
        out: list[str] = []
        for map_name in maps:
            if self.words is not None and key in self.words.get(map_name, {}):
                out.append(self.words[map_name][key])
            taken = self._said_by_others(map_name, key)
            out += [p for p in self.synonyms.word(map_name, key) if _read(p) not in taken]
        return list(dict.fromkeys(out))

    def _said_by_others(self, map_name: str, key: str) -> set[str]:
        said = {p for other, phrases in WORD_SENSES.get(map_name, {}).items() if other != key
                for p in phrases}
        said |= {p for other, p in (self.words or {}).get(map_name, {}).items() if other != key}
        return {_read(p) for p in said}

    def column_names(self, key: str) -> list[str]:
        """The label of the item's column ``key`` and its synonyms (a synonym that names
        another column of the item, by its label or a synonym, is not one)."""
        label = self.view.labels.get(key, "")
        others = {_read(v) for k, v in self.view.labels.items() if k != key}
        others |= {_read(p) for k, phrases in self.synonyms.columns.items() if k != key
                   for p in phrases}
        return [label, *(p for p in self.synonyms.column(key) if _read(p) not in others)]

    def _senses(self, name: str, key: str) -> list[str]:
        """Every phrase known to say ``key`` of map ``name``: the pack's, the synonyms and
        the meaning check's."""
        maps = ("direction", "direction_verb") if name == "direction" else (name,)
        out = self._phrases(name, key)
        for map_name in maps:
            out += sorted(WORD_SENSES.get(map_name, {}).get(key, ()))
        return [p for p in dict.fromkeys(out) if p not in _COMMON]

    def _map_keys(self, name: str) -> list[str]:
        maps = ("direction", "direction_verb") if name == "direction" else (name,)
        keys: list[str] = []
        for map_name in maps:
            keys += [*(self.words or {}).get(map_name, {}), *self.synonyms.words.get(map_name, {}),
                     *WORD_SENSES.get(map_name, {})]
        return list(dict.fromkeys(keys))

    def senses(self, stated: Mapping[str, str]) -> list[_Phrase]:
        """Keep each stated sense; the phrases of other senses (and of the word maps the
        program does not use), which the paraphrase may not add."""
        forbidden: list[_Phrase] = []
        for name, what in _MAP_NAMES.items():
            key = stated.get(name)
            if key is not None:
                phrases = self._phrases(name, key)
                shown = phrases[0] if phrases else key
                self._keep(self._says(phrases), f"{what} {shown!r} (or a synonym)",
                           f"drops the {what} {shown!r} (and every synonym of it)")
                for other in self._map_keys(name):
                    if other != key:
                        forbidden += [_Phrase(p, f"the {what} {other!r}")
                                      for p in self._senses(name, other)]
            else:
                for other in self._map_keys(name):
                    forbidden += [_Phrase(p, f"a {what} ({other!r})")
                                  for p in self._phrases(name, other) if p not in _COMMON]
        return forbidden

    def names(self, variables: Mapping[str, str]) -> list[_Phrase]:
        """The names of the item's entities and columns the template does not name (and
        the synonyms of those columns), which the paraphrase may not add."""
        forbidden = [_Phrase(e["name"], f"the entity {e['name']!r}")
                     for e in self.item["entities"]]
        labels = {variables[k] for k in _COLUMNS if k in variables}
        for key, label in sorted(self.view.labels.items()):
            if label not in labels:
                forbidden += [_Phrase(n, f"the column {label!r}") for n in self.column_names(key)]
        for key in sorted(set(self.synonyms.columns) - set(self.view.labels)):
            forbidden += [_Phrase(n, f"a synonym of column {key!r}")
                          for n in self.synonyms.column(key)]
        return forbidden

    def fact(self) -> None:
        needle = fact_needle(self.statement["program"])
        if needle is None:
            return
        seen = as_read(self.text).lower()
        tokens = needle_tokens(needle)
        lost = [t for t in tokens if as_read(t).lower() not in seen]
        listed = ", ".join(repr(t) for t in tokens[:3])
        self._keep(not lost, f"the fact's {listed}",
                   f"loses the fact's {', '.join(repr(t) for t in lost[:3])}")

    def added(self, forbidden: list[_Phrase]) -> None:
        template_numbers = Counter(_numbers(self.template))
        mine = Counter(_numbers(self.text))
        extra = [n for n in mine if n not in template_numbers]
        dropped = " ".join(self.problems)
        for number, times in template_numbers.items():
            if mine[number] >= times or \
                    re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", dropped):
                continue
            what = _what_number(number)
            self.problems.append(f"drops {what}" if not mine[number] else
                                 f"drops {what} (written {mine[number]} of the template's "
                                 f"{times} times)")
        for number in extra:
            self.problems.append(f"adds {_what_number(number)}")
        if not extra:
            self.checks.append("no other number")
        added: dict[str, _Phrase] = {}
        for phrase in forbidden:
            read = _read(phrase.text)
            if read in self.said and read not in self.template_said:
                added.setdefault(read, phrase)
        said = list(added.values())
        for phrase in said:
            self.problems.append(f"adds {phrase.text!r} ({phrase.names})")
        if not said:
            self.checks.append("no other entity, column or sense")
        had = set(negating(words_of(self.template)))
        hedges = [w for w in dict.fromkeys(negating(words_of(self.text))) if w not in had]
        for word in hedges:
            self.problems.append(f"adds the negating or hedging word {word!r}")
        if not hedges:
            self.checks.append("no negating or hedging word")


def guard(paraphrase: str, template: str, statement: Mapping[str, Any],
          item: Mapping[str, Any], words: Mapping[str, Mapping[str, str]] | None,
          synonyms: Synonyms | None) -> GuardResult:
    """Check ``paraphrase`` of the statement whose pack rendering is ``template``.

    ``statement`` and ``item`` are their JSON forms (``Item.model_dump(mode="json")``);
    ``words`` the pack's word maps (``config.wording.words``; ``None``: only synonyms say a
    sense); ``synonyms`` the pack's alternatives (``None``: the built-in English ones). The
    result's ``checks`` name what held, its ``problems`` why the paraphrase fails.
    """
    state = _Guard(paraphrase, template, statement, item, words,
                   synonyms if synonyms is not None else Synonyms.default())
    if not state.readable():
        return state.result()
    variables = statement_variables(state.statement, state.item, None)
    state.values(variables)
    forbidden = state.senses(word_keys(state.statement["program"]["select"]))
    forbidden += state.names(variables)
    state.fact()
    state.added(forbidden)
    return state.result()
