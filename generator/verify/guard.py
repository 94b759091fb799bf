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
#: join two words or numbers ("2020-2022" is two numbers).
_NUMBER = re.compile(r"(?:(?<![\w.\-])-)?(?<![\d.])\d+(?:\.\d+)?")


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
    order of appearance, each once."""
    found = _NUMBER.findall(as_read(text))
    return list(dict.fromkeys(found))


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
    """A phrase the paraphrase may not add: what it names, and whether the template may
    hold it."""

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


def _found(text: str, allowed: Iterable[str], forbidden: Iterable[_Phrase]) -> list[_Phrase]:
    """The forbidden phrases ``text`` holds where no longer phrase (allowed or forbidden)
    covers them: "at least" is not "least", "Cost of Sales" not "Sales"."""
    read = _read(text)
    candidates: list[tuple[int, int, _Phrase | None]] = []
    for phrase in allowed:
        candidates += [(s, e, None) for s, e in _occurrences(read, _read(phrase))]
    for entry in forbidden:
        candidates += [(s, e, entry) for s, e in _occurrences(read, _read(entry.text))]
    candidates.sort(key=lambda c: (c[0] - c[1], c[0]))
    taken: list[tuple[int, int]] = []
    out: list[_Phrase] = []
    for start, end, entry in candidates:
        if any(start < e and s < end for s, e in taken):
            continue
        taken.append((start, end))
        if entry is not None and entry not in out:
            out.append(entry)
    return out


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

    def result(self) -> GuardResult:
        return GuardResult(tuple(self.checks), tuple(self.problems))

    def _keep(self, kept: bool, check: str, problem: str) -> None:
        (self.checks if kept else self.problems).append(check if kept else problem)

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
                value = variables[key]
                self._keep(number_in(self.text, value), f"{what} {value}",
                           f"drops the {what} {value}")
        for key in _PERIODS:
            value = variables.get(key)
            if value is not None and f"{period} {value}" not in self.checks:
                kept = number_in(self.text, value) if value.isdigit() else \
                    _mentions(self.text, [value])
                self._keep(kept, f"{period} {value}", f"drops the {period} {value}")
        for key in _ENTITIES:
            if key in variables:
                name = variables[key]
                self._keep(_mentions(self.text, [name]), f"entity {name!r}",
                           f"drops the entity {name!r}")
        for key in _COLUMNS:
            label = variables.get(key)
            if label is not None and f"column {label!r} (or a synonym)" not in self.checks:
                names = [label, *self.synonyms.column(self.keys.get(label, ""))]
                self._keep(_mentions(self.text, names), f"column {label!r} (or a synonym)",
                           f"drops the column {label!r} (and every synonym of it)")

    def _phrases(self, name: str, key: str) -> list[str]:
        maps = ("direction", "direction_verb") if name == "direction" else (name,)
        out: list[str] = []
        for map_name in maps:
            if self.words is not None and key in self.words.get(map_name, {}):
                out.append(self.words[map_name][key])
            out += self.synonyms.word(map_name, key)
        return list(dict.fromkeys(out))

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

    def senses(self, stated: Mapping[str, str]) -> tuple[list[str], list[_Phrase]]:
        """Keep each stated sense; the phrases it may hold, and those of other senses."""
        allowed: list[str] = []
        forbidden: list[_Phrase] = []
        for name, what in _MAP_NAMES.items():
            key = stated.get(name)
            if key is not None:
                phrases = self._phrases(name, key)
                shown = phrases[0] if phrases else key
                self._keep(_mentions(self.text, phrases), f"{what} {shown!r} (or a synonym)",
                           f"drops the {what} {shown!r} (and every synonym of it)")
                allowed += self._senses(name, key)
                for other in self._map_keys(name):
                    if other != key:
                        forbidden += [_Phrase(p, f"the {what} {other!r}")
                                      for p in self._senses(name, other)]
            else:
                for other in self._map_keys(name):
                    forbidden += [_Phrase(p, f"a {what} ({other!r})")
                                  for p in self._phrases(name, other) if p not in _COMMON]
        return allowed, forbidden

    def names(self, variables: Mapping[str, str]) -> tuple[list[str], list[_Phrase]]:
        """The entities and columns the template names (and their synonyms), and those of
        the item it does not."""
        allowed: list[str] = []
        forbidden: list[_Phrase] = []
        for entity in self.item["entities"]:
            name = entity["name"]
            if _mentions(self.template, [name]):
                allowed.append(name)
            else:
                forbidden.append(_Phrase(name, f"the entity {name!r}"))
        labels = {variables[k] for k in _COLUMNS if k in variables}
        for key, label in sorted(self.view.labels.items()):
            names = [label, *self.synonyms.column(key)]
            if label in labels or _mentions(self.template, [label]):
                allowed += names
            else:
                forbidden += [_Phrase(n, f"the column {label!r}") for n in names]
        catalogued = set(self.view.labels)
        for key in sorted(set(self.synonyms.columns) - catalogued):
            if not _mentions(self.template, self.synonyms.column(key)):
                forbidden += [_Phrase(n, f"a synonym of column {key!r}")
                              for n in self.synonyms.column(key)]
        return allowed, forbidden

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

    def added(self, allowed: list[str], forbidden: list[_Phrase]) -> None:
        template_numbers = Counter(_NUMBER.findall(as_read(self.template)))
        mine = Counter(_NUMBER.findall(as_read(self.text)))
        extra = [n for n in mine if n not in template_numbers]
        dropped = " ".join(self.problems)
        for number, times in template_numbers.items():
            if mine[number] >= times or \
                    re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", dropped):
                continue
            self.problems.append(f"drops the number {number}" if not mine[number] else
                                 f"drops the number {number} (written {mine[number]} of the "
                                 f"template's {times} times)")
        for number in extra:
            self.problems.append(f"adds the number {number}")
        if not extra:
            self.checks.append("no other number")
        said = [p for p in _found(self.text, allowed, forbidden)
                if not _mentions(self.template, [p.text])]
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
    allowed, forbidden = state.senses(word_keys(state.statement["program"]["select"]))
    names_allowed, names_forbidden = state.names(variables)
    state.fact()
    state.added(allowed + names_allowed, forbidden + names_forbidden)
    return state.result()
