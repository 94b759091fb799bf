"""Item kinds: what an item's answer is and how a prediction is scored.

Each kind is an :class:`ItemKind` in :data:`ITEM_KINDS` (a third-party package registers its
own under the entry-point group ``hopvista.item_kinds``). Built in:

``three_statement``
    Three numbered statements, "which are true?" (FCMR). ``answer`` is the sorted list of the
    1-based indices of the true statements (that it matches the labels is for ``gen verify``
    to prove, not for the model to assume) (``answer_type`` ``"indices"``; 8 possible
    answers). A prediction is text such as ``"1, 3"`` or ``"none"`` (or a list of ints).
    Scored by exact set match (``set_accuracy``, FCMR's metric); ``statement_accuracy`` is
    the share of the three statements whose truth the prediction gets right.
``table_qa``
    A short-answer question about a table (the questions of imported datasets such as
    WikiTableQuestions; MMTabReal's answer formats). ``answer_type`` is ``number``, ``text``,
    ``list`` or ``boolean`` and ``answer`` a JSON value of that type. A prediction is the
    model's text. ``em``: exact match after normalisation (:mod:`hopvista.model.answers`:
    numbers equal after rounding to two decimals, text normalised, lists as unordered
    multisets); ``ss``: the normalised prediction occurs in the normalised answer; ``f1``:
    token F1 (element F1 for lists). The item is correct when ``em`` is 1.
``markup_task``
    A question about a table image with marked cells (HighlightBench's task families T1–T5;
    ``item.task`` holds the marks and the program). ``answer_type`` is ``json`` and ``answer``
    a JSON object such as ``{"count": 3}`` or ``{"row": "Acme", "value": "12.5"}``. A
    prediction is the model's text; its last JSON object is read, and it is correct (``em``)
    when every field of the answer matches (:func:`hopvista.model.answers.same_field`);
    ``fields`` is the share of fields that match.
``mmtable``
    A short-answer question about a table whose cells hold pictures (MMTabReal's):
    ``inputs.visuals`` lists the pictures, ``tags`` classifies the question and ``program``
    gives its answer (:mod:`hopvista.model.mmtable`, :mod:`hopvista.program.cells`). Answer
    types and scoring are ``table_qa``'s; an image location is a ``text`` answer
    ``row_i_col_j``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hopvista.model.answers import (
    element_key,
    normalise_text,
    read_boolean,
    read_json_object,
    read_list,
    same_field,
    same_number,
    token_f1,
)
from hopvista.program.numbers import read_number
from hopvista.registry import Registry

if TYPE_CHECKING:
    from hopvista.model.item import Item


@dataclass(frozen=True)
class Score:
    """One prediction's score: whether it is correct, and every metric of the kind."""

    correct: bool
    metrics: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemKind:
    """A kind of item.

    ``answer_types`` are the values an item's ``answer_type`` may take; ``scoring`` says in one
    line how a prediction is scored; ``check(item)`` lists what is wrong with an item's answer
    for this kind; ``score(item, prediction)`` scores a prediction (the model's text, or an
    answer value); ``reference(item)`` is the answer written as a model should write it;
    ``statements`` is how many numbered statements an item of the kind has (0: none).
    """

    name: str
    answer_types: tuple[str, ...]
    scoring: str
    check: Callable[[Item], list[str]]
    score: Callable[[Item, Any], Score]
    reference: Callable[[Item], str]
    statements: int = 0


ITEM_KINDS: Registry[ItemKind] = Registry("item kind", "item_kinds")
"""Every item kind, by name."""


def kind_problems(item: Item) -> list[str]:
    """What is wrong with ``item`` for its kind; ``[]`` for a kind this install does not know
    (readers skip unknown kinds rather than reject them)."""
    if item.kind not in ITEM_KINDS:
        return []
    kind = ITEM_KINDS.get(item.kind)
    if item.answer_type not in kind.answer_types:
        return [f"answer_type {item.answer_type!r} is not one of {list(kind.answer_types)}"]
    return kind.check(item)


def score(item: Item, prediction: Any) -> Score:
    """Score ``prediction`` for ``item`` by the rules of its kind."""
    return ITEM_KINDS.get(item.kind).score(item, prediction)


# -- three statements -------------------------------------------------------------------------

STATEMENTS = 3


def _check_three(item: Item) -> list[str]:
    problems = []
    if len(item.statements) != STATEMENTS:
        problems.append(f"{len(item.statements)} statement(s), not {STATEMENTS}")
    if parse_indices(item.answer) != item.answer:
        problems.append(f"answer {item.answer!r} is not a sorted list of distinct indices "
                        f"1..{STATEMENTS}")
    return problems


def parse_indices(prediction: Any) -> list[int] | None:
    """A three-statement prediction as sorted indices: ``"1, 3"`` → ``[1, 3]``, ``"none"`` →
    ``[]``; ``None`` when it names an index outside 1..3 or nothing at all."""
    if isinstance(prediction, list):
        numbers: list[Any] = prediction
    else:
        text = str(prediction).strip().lower()
        numbers = [int(n) for n in re.findall(r"\d+", text)]
        if not numbers:
            return [] if re.search(r"\bnone\b", text) else None
    if not all(type(n) is int and 1 <= n <= STATEMENTS for n in numbers):
        return None
    return sorted(set(numbers))


def _score_three(item: Item, prediction: Any) -> Score:
    picked = parse_indices(prediction)
    if picked is None:
        return Score(False, {"set_accuracy": 0.0, "statement_accuracy": 0.0, "parsed": 0.0})
    truth = item.answer if isinstance(item.answer, list) else []
    right = sum((n in picked) == (n in truth) for n in range(1, STATEMENTS + 1))
    correct = picked == truth
    return Score(correct, {"set_accuracy": float(correct),
                           "statement_accuracy": right / STATEMENTS, "parsed": 1.0})


def _reference_three(item: Item) -> str:
    answer = item.answer if isinstance(item.answer, list) else []
    return ", ".join(str(n) for n in answer) if answer else "none"


THREE_STATEMENT = ITEM_KINDS.register("three_statement", ItemKind(
    name="three_statement", answer_types=("indices",),
    scoring="exact set match of the true statement indices (set_accuracy)",
    check=_check_three, score=_score_three, reference=_reference_three,
    statements=STATEMENTS))
"""The kind every generated item has (FCMR's): its statement count is how many a plan
gives each item."""


# -- short-answer table QA --------------------------------------------------------------------

QA_TYPES = ("number", "text", "list", "boolean")


def _check_qa(item: Item) -> list[str]:
    answer, kind = item.answer, item.answer_type
    if kind == "number" and read_number(answer) is None:
        return [f"answer {answer!r} is not a number"]
    if kind == "text" and not (isinstance(answer, str) and normalise_text(answer)):
        return [f"answer {answer!r} is not a non-empty text"]
    if kind == "boolean" and not isinstance(answer, bool):
        return [f"answer {answer!r} is not true or false"]
    if kind == "list" and not (isinstance(answer, list) and answer and
                               all(isinstance(a, (str, int, float)) for a in answer)):
        return [f"answer {answer!r} is not a non-empty list of texts or numbers"]
    if item.statements:
        return ["a table_qa item has no statements"]
    return []


def _reference_qa(item: Item) -> str:
    answer = item.answer
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, list):
        import json

        return json.dumps(answer, ensure_ascii=False)
    return str(answer)


def _score_qa(item: Item, prediction: Any) -> Score:
    gold, kind = item.answer, item.answer_type
    said = prediction if isinstance(prediction, str) else _reference_qa(
        item.model_copy(update={"answer": prediction}))
    if kind == "list":
        golds = [element_key(g) for g in read_list(gold)]
        preds = [element_key(p) for p in read_list(said)]
        em = sorted(golds) == sorted(preds)
        f1 = token_f1(preds, golds)
    elif kind == "number":
        got, want = read_number(said), read_number(gold)
        em = got is not None and want is not None and same_number(got, want)
        f1 = float(em)
    elif kind == "boolean":
        em = read_boolean(said) is gold
        f1 = float(em)
    else:
        em = normalise_text(said) == normalise_text(str(gold))
        f1 = token_f1(normalise_text(said).split(), normalise_text(str(gold)).split())
    shown, truth = normalise_text(said), normalise_text(_reference_qa(item))
    ss = em or (bool(shown) and shown in truth)
    return Score(em, {"em": float(em), "ss": float(ss), "f1": f1})


ITEM_KINDS.register("table_qa", ItemKind(
    name="table_qa", answer_types=QA_TYPES,
    scoring="exact match after normalisation (em); substring (ss) and token F1 (f1) too",
    check=_check_qa, score=_score_qa, reference=_reference_qa))


# -- markup tasks (HighlightBench) ------------------------------------------------------------


def _check_markup(item: Item) -> list[str]:
    problems = []
    if not isinstance(item.answer, dict) or not item.answer:
        problems.append(f"answer {item.answer!r} is not a non-empty JSON object")
    if item.task is None:
        problems.append("a markup_task item has no task (marks and program)")
    if item.statements:
        problems.append("a markup_task item has no statements")
    return problems


def _reference_markup(item: Item) -> str:
    import json

    return json.dumps(item.answer, ensure_ascii=False)


def _score_markup(item: Item, prediction: Any) -> Score:
    said = read_json_object(prediction)
    gold = item.answer if isinstance(item.answer, dict) else {}
    if said is None:
        return Score(False, {"em": 0.0, "fields": 0.0, "parsed": 0.0})
    ordered = set(item.task.ordered) if item.task is not None else set()
    right = [key in said and same_field(value, said[key], key in ordered)
             for key, value in gold.items()]
    correct = all(right) and bool(right)
    return Score(correct, {"em": float(correct), "fields": sum(right) / max(len(right), 1),
                           "parsed": 1.0})


ITEM_KINDS.register("markup_task", ItemKind(
    name="markup_task", answer_types=("json",),
    scoring="every field of the strict-JSON answer object matches (em); share of fields (fields)",
    check=_check_markup, score=_score_markup, reference=_reference_markup))


# -- multimodal tables (MMTabReal) ------------------------------------------------------------


def _check_mmtable(item: Item) -> list[str]:
    problems = _check_qa(item)
    if item.inputs.table is None or not hasattr(item.inputs.table, "header"):
        problems.append("an mmtable item shows a grid table (inputs.table: header and rows)")
    if item.tags is None:
        problems.append("an mmtable item has tags (archetype, question_type, reasoning, "
                        "answer_type)")
    if item.program is None:
        problems.append("an mmtable item has the program of its question")
    return problems


ITEM_KINDS.register("mmtable", ItemKind(
    name="mmtable", answer_types=QA_TYPES,
    scoring="as table_qa: exact match after normalisation (em); substring (ss) and token F1 (f1)",
    check=_check_mmtable, score=_score_qa, reference=_reference_qa))
