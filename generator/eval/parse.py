"""Reading a model's answer out of what it wrote.

Models reason before they answer, and they write answers in many ways. The rules, in order:

1. **The answer segment.** A JSON object with an ``answer`` (or ``final_answer``,
   ``true_statements``) field, whole or in a fenced block, is the answer. Otherwise the text
   after the *last* marker ``final answer``, ``answer``, ``true statements`` or
   ``the true statements are`` (followed by ``:``, ``is`` or ``are``), to the end of its line;
   a marker with nothing after it on its line takes the next non-empty line. With no marker,
   the last non-empty line. Markdown emphasis (``**``, ``__``, backticks) and LaTeX
   ``\\boxed{…}`` are removed first; a ``\\boxed{…}`` anywhere wins over everything else.
2. **Three-statement answers** (:func:`parse_statements`). In the segment, "none" (``none``,
   ``no statement``, ``neither``, ``all false``, ``all … are false``) is the empty set and "all"
   (``all``, ``all three``, ``every statement``, ``all … are true``) is {1, 2, 3}. Otherwise
   the segment is split into clauses at ``;`` and sentence ends; numbers 1–3 (digits, or the
   words ``one``/``two``/``three``/``first``/``second``/``third`` after ``statement``) in a clause
   that calls them false (``false``, ``incorrect``, ``not true``, ``wrong``) are left out, and
   the rest are the answer. A number outside 1–3, or no number and no "none", makes the answer
   unparseable (``None``) rather than a guess: it is counted apart from wrong answers.
3. **Short answers** (:func:`parse_short`) are the segment itself, without a trailing full
   stop or surrounding quotes; the item kind's scorer normalises it (numbers, lists, yes/no;
   :mod:`hopvista.model.answers`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

STATEMENTS = 3

_FENCE = re.compile(r"```(?:json)?\s*(\{[^`]*?\})\s*```")
_OBJECT = re.compile(r"\{[^{}]*\}", re.S)
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_MARKER = re.compile(
    r"(?:final\s+answer|the\s+true\s+statements?\s+(?:is|are)|true\s+statements?|answer)"
    r"\s*(?:is|are)?\s*[:：=\-–—]?\s*(?P<rest>[^\n]*)", re.I)
_EMPHASIS = re.compile(r"\*\*|__|`")
_NONE = re.compile(r"\b(none|no\s+statements?|neither|nothing)\b", re.I)
_ALL_WORD = re.compile(r"\ball\b", re.I)
_FALSE_WORD = re.compile(r"\bfalse\b", re.I)
_ALL = re.compile(r"\b(all\s+three|all\s+of\s+them|every\s+statement|all)\b", re.I)
_FALSE = re.compile(r"\b(false|incorrect|not\s+true|wrong|untrue)\b", re.I)
_WORDS = {"one": 1, "two": 2, "three": 3, "first": 1, "second": 2, "third": 3}
_NUMBER = re.compile(r"(?<![\d.])(\d+)(?![\d.]*\d)|\bstatements?\s+(one|two|three|first|second|"
                     r"third)\b|\b(first|second|third)\s+statement\b", re.I)
_KEYS = ("answer", "final_answer", "true_statements", "true")


@dataclass(frozen=True)
class Parsed:
    """What was read from a response: the answer (``None`` if unparseable) and the rule that
    read it (recorded with each result, so a surprising parse can be traced)."""

    answer: Any
    rule: str


def answer_segment(text: str) -> tuple[str, str]:
    """The part of ``text`` that holds the answer, and the rule that found it (rule 1)."""
    boxed = _BOXED.findall(text)
    if boxed:
        return boxed[-1].strip(), "boxed"
    for block in [*_FENCE.findall(text), *_OBJECT.findall(text)][::-1]:
        value = _json_answer(block)
        if value is not None:
            return value, "json"
    whole = _json_answer(text.strip())
    if whole is not None:
        return whole, "json"
    clean = _EMPHASIS.sub("", text)
    markers = list(_MARKER.finditer(clean))
    if markers:
        last = markers[-1]
        rest = last.group("rest").strip()
        if not rest:
            after = [line.strip() for line in clean[last.end():].splitlines() if line.strip()]
            rest = after[0] if after else ""
        if rest:
            return rest, "marker"
    lines = [line.strip() for line in clean.splitlines() if line.strip()]
    return (lines[-1] if lines else ""), "last line"


def _json_answer(text: str) -> str | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, too deep, or an over-long number
        return None
    if not isinstance(value, dict):
        return None
    for key in _KEYS:
        if key in value:
            found = value[key]
            if isinstance(found, list):
                return ", ".join(str(v) for v in found) if found else "none"
            return str(found)
    return None


def parse_statements(text: str) -> Parsed:
    """The sorted indices of the statements ``text`` says are true (rule 2)."""
    segment, rule = answer_segment(text)
    indices = _indices(segment)
    return Parsed(indices, rule if indices is not None else "unparseable")


def _indices(segment: str) -> list[int] | None:
    true: set[int] = set()
    found = False
    for clause in re.split(r";|\.(?:\s|$)|\n", segment):
        numbers = [_number(m) for m in _NUMBER.finditer(clause)]
        if any(n is None or not 1 <= n <= STATEMENTS for n in numbers):
            return None
        if numbers:
            found = True
            if not _FALSE.search(clause):
                true.update(n for n in numbers if n is not None)
            continue
        if _NONE.search(clause) or _all_false(clause):
            found = True
        elif _ALL.search(clause) and not _FALSE.search(clause):
            found = True
            true.update(range(1, STATEMENTS + 1))
    return sorted(true) if found else None


def _all_false(clause: str) -> bool:
    """Whether a stretch of ``clause`` without ``.``, ``;`` or a line break says "all …
    false" (the first "all" of a stretch is the one to try: any later one sees less)."""
    for stretch in re.split(r"[.;\n]", clause):
        first = _ALL_WORD.search(stretch)
        if first is not None and _FALSE_WORD.search(stretch, first.end()):
            return True
    return False


def _number(match: re.Match[str]) -> int | None:
    digits, word, ordinal = match.groups()
    if digits is not None:
        significant = digits.lstrip("0")
        return int(significant or "0") if len(significant) <= 3 else STATEMENTS + 1
    return _WORDS[(word or ordinal).lower()]


def parse_short(text: str) -> Parsed:
    """A short answer: the answer segment, without a closing full stop or quotes (rule 3)."""
    segment, rule = answer_segment(text)
    segment = segment.strip().rstrip(".").strip().strip("\"'“”").strip()
    return Parsed(segment if segment else None, rule if segment else "unparseable")
