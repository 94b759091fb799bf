"""The type of a base's question, as `gen augment` reports its skipped variants by it.

A variant a recipe cannot make is often right to skip for a whole type of question: a
counting question ("how many ...") ties no cell to its answer, so every value cell is
protected and ``missing`` has nothing it may blank. The run's summary, the manifest and the
card count skips per question type so that a user sees that at a glance.

The type is, in order: a multimodal table question's own (``tags.question_type``); for an item
with numbered statements, how many and its level (``3 statements, hard``); a question
whose answer is true or false, ``true/false``; else the first of :data:`WORDING` whose
pattern its wording matches, or ``lookup``.
"""

from __future__ import annotations

import re

from hopvista.model import Item

WORDING: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("arithmetic", re.compile(r"\bhow (?:many|much) (?:more|less|fewer)\b"
                              r"|\b(?:difference|change|ratio|percent|percentage|sum|total"
                              r"|average|mean|combined|altogether)\b")),
    ("counting", re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b")),
    ("superlative", re.compile(r"\b(?:most|least|highest|lowest|largest|smallest|greatest"
                               r"|fewest|first|last|top|best|worst|longest|shortest|oldest"
                               r"|youngest|earliest|latest|maximum|minimum)\b")),
    ("comparison", re.compile(r"\b(?:more|less|fewer|greater|higher|lower|larger|smaller"
                              r"|before|after|than)\b")),
)
"""Question types read from the wording of an imported question, tried in order."""

LOOKUP = "lookup"
"""The type of a question none of :data:`WORDING` matches: a value read from the table."""


def question_type(item: Item) -> str:
    """The type of ``item``'s question (see the module docstring)."""
    if item.tags is not None:
        return str(item.tags.question_type)
    if item.statements:
        return f"{len(item.statements)} statements" + \
            (f", {item.difficulty}" if item.difficulty else "")
    if item.answer_type == "boolean":
        return "true/false"
    words = item.question.casefold()
    return next((name for name, pattern in WORDING if pattern.search(words)), LOOKUP)
