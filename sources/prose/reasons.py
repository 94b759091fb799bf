"""Why a passage gave no fact: one short sentence a person can act on.

Each sentence of a passage ends in one :class:`Outcome`. A passage without facts is
explained by its sentences about the entity: the most common outcome among them (ties go to
the outcome listed first in :data:`PRIORITY`), or, when no sentence is about the entity, by
that.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import Enum

__all__ = ["PRIORITY", "Outcome", "reason_for"]


class Outcome(Enum):
    """What became of one sentence."""

    FACT = "fact"
    NOT_ABOUT = "not-about"
    TABLE = "table"
    HEDGED = "hedged"
    NEGATED = "negated"
    NOT_PLAIN = "not-plain"
    NO_DETAIL = "no-detail"
    REWRITE = "rewrite"
    REPEATED = "repeated"


#: Tie-breaking order of the outcomes that explain a passage.
PRIORITY = (Outcome.TABLE, Outcome.HEDGED, Outcome.NEGATED, Outcome.NO_DETAIL,
            Outcome.REWRITE, Outcome.NOT_PLAIN, Outcome.REPEATED)

#: Sentence problems (:func:`hopvista.sources.prose.sentences.shape_problem`) as outcomes.
PROBLEM_OUTCOMES = {"hedged": Outcome.HEDGED, "list": Outcome.HEDGED,
                    "negated": Outcome.NEGATED, "question": Outcome.NOT_PLAIN,
                    "quoted": Outcome.NOT_PLAIN, "person": Outcome.NOT_PLAIN,
                    "shape": Outcome.NOT_PLAIN}


def _text(outcome: Outcome, noun: str) -> str:
    about = f"its sentences about the {noun}"
    return {
        Outcome.TABLE: f"{about} write values of the table",
        Outcome.HEDGED: f"{about} are hedged or lists",
        Outcome.NEGATED: f"{about} are negated",
        Outcome.NOT_PLAIN: f"{about} are questions, quotations, in the first or second "
                           "person, or not plain sentences ending with a period",
        Outcome.NO_DETAIL: f"{about} state no checkable detail (number, date, name)",
        Outcome.REWRITE: f"{about} could not be reworded safely as a claim about another "
                         f"{noun} (they name the {noun} again, refer to other sentences, or "
                         "are worded in a way the rules do not read)",
        Outcome.REPEATED: f"{about} repeat a fact already taken",
    }[outcome]


def reason_for(outcomes: Sequence[Outcome], nouns: Sequence[str]) -> str:
    """The reason a passage whose sentences ended in ``outcomes`` gave no fact."""
    noun = nouns[0] if nouns else "entity"
    if not outcomes:
        return "the passage has no sentences"
    about: Counter[Outcome] = Counter(
        o for o in outcomes if o not in (Outcome.NOT_ABOUT, Outcome.FACT))
    if not about:
        the_noun = f", 'the {noun}'" if nouns else ""
        return f"no sentence is about the {noun} (its name{the_noun}, or 'it' after one)"
    top = max(about.values())
    return _text(next(o for o in PRIORITY if about[o] == top), noun)
