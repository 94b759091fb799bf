"""Scores as the papers compute them: ``gen eval --metric mmtabreal`` reproduces MMTabReal's
``Eval/eval.py`` EM / SS / F1, ``--metric tablevista`` TableVista's ``scripts/eval.py`` exact
match, and ``summary.json``'s ``papers.fcmr`` FCMR's level average and hard-only statement
figures.

Each expected MMTabReal figure below is what MMTabReal's own functions (``compute_metrics``
with NLTK's stop words and Porter stemmer) return for the pair: the published behaviour,
quirks included.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from hopvista.eval.papers.mmtabreal import STOP_WORDS, mmtabreal_metrics, words

CASES = [
    # gold, prediction, EM, SS, F1
    ("-12", "12", 1, 1, 1),                      # the ASCII minus is deleted
    ("12.5", "12.50", 0, 1, 0),                  # the point is deleted: 125 vs 1250
    ("12.5", "125", 1, 1, 1),
    ("3", "3.0", 0, 1, 0),
    ("1,000", "1000", 1, 1, 1),
    ("$57", "57", 1, 1, 1),
    ("45%", "45", 1, 1, 1),
    ("12", "1", 0, 1, 0),                        # SS is a character substring
    ("12", "12 points", 0, 1, 2 / 3),
    ("3", "The answer is 3", 0, 1, 2 / 3),
    ("Running", "runs", 1, 1, 1),                # stemmed
    ("No", "No", 1, 0, 0),                       # "no" is a stop word: nothing left
    ("No", "not at all", 1, 0, 0),
    ("Yes", "yes", 1, 1, 1),
    ("['Apple', 'Google']", "Google, Apple", 1, 1, 1),    # order ignored
    ("['Apple', 'Google']", "Apple, Apple, Google", 1, 1, 0.8),  # repeats: EM set, F1 bag
    ("['Apple', 'Google']", "Apple", 0, 1, 2 / 3),
    ("[23, 45.67]", "[45.67, 23]", 1, 1, 1),
    ("row_2_col_3", "row_3_col_2", 0, 0, 0),
    ("row_2_col_3", "row 2 col 3", 0, 1, 0),
    ("Tottenham Hotspur", "Tottenham Hotspurs", 1, 1, 1),
    ("United States", "the United States of America", 0, 1, 0.8),
    ("New York", "York, New", 1, 1, 1),
    ("Arsenal F.C.", "Arsenal FC", 1, 1, 1),
    ("New York City", "York Boston", 0, 0.5, 0.4),
    ("Chelsea", "It is Chelsea", 1, 1, 1),
    ("Chelsea", "the", 0, 0, 0),
    ("No", "none", 0, 0, 0),                     # "none" is not a stop word
    ("No", "Yes", 0, 0, 0),
    ("Yes", "Yes, it does", 1, 1, 1),
    ("12", "12, 12", 1, 1, 2 / 3),
    ("0.5", "50%", 0, 0, 0),
    ("\u221212", "12", 0, 1, 0),                 # a Unicode minus is not ASCII punctuation
    ("-12", "\u221212", 0, 1, 0),
    ("3", "three", 0, 0, 0),                     # no number words
    ("x", "", 0, 0, 0),                          # an empty prediction scores nothing
]


@pytest.mark.parametrize(("gold", "prediction", "em", "ss", "f1"), CASES,
                         ids=[f"{g!r}-{p!r}" for g, p, *_ in CASES])
def test_scores_as_mmtabreal_publishes_them(gold: str, prediction: str, em: float, ss: float,
                                            f1: float) -> None:
    got = mmtabreal_metrics(gold, prediction)
    assert got == pytest.approx({"mmtabreal_em": em, "mmtabreal_ss": ss, "mmtabreal_f1": f1})


def test_the_stop_words_are_nltks_english_list_without_downloads() -> None:
    assert len(STOP_WORDS) == 153
    assert {"no", "not", "all", "nor", "only", "same"} <= STOP_WORDS
    assert not {"none", "yes", "nobody"} & STOP_WORDS


def test_words_are_stemmed_the_way_nltks_porter_stemmer_does() -> None:
    assert words("Running runs ran Yes apples millions Hotspurs") == [
        "run", "run", "ran", "ye", "appl", "million", "hotspur"]


def _docs_rows() -> list[list[str]]:
    """The rows of the table of differences in docs/eval.md."""
    text = (Path(__file__).parents[1] / "docs" / "eval.md").read_text(encoding="utf-8")
    section = text.split("Where the two disagree", 1)[1].split("\n\n", 2)[1]
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| `")]
    assert len(rows) >= 10
    return rows


def _answer(cell: str) -> tuple[Any, str]:
    shown = cell.split("`")[1]
    if "(false)" in cell or "(true)" in cell:
        return "(true)" in cell, "boolean"
    if shown.startswith("["):
        return ast.literal_eval(shown), "list"
    try:
        float(shown)
    except ValueError:
        return shown, "text"
    return shown, "number"


def _figures(cell: str) -> list[float]:
    return [float(x) for x in cell.split("/")]


@pytest.mark.parametrize("row", _docs_rows(), ids=lambda row: f"{row[0]}-{row[1]}")
def test_the_documented_differences_are_what_both_scorers_give(row: list[str]) -> None:
    from hopvista.eval.papers.mmtabreal import gold_text
    from hopvista.model.kinds import ITEM_KINDS

    item = _item(*_answer(row[0]))
    reply = row[1].split("`")[1]
    theirs = mmtabreal_metrics(gold_text(item), reply)
    ours = ITEM_KINDS.get("table_qa").score(item, reply).metrics
    assert [theirs[f"mmtabreal_{m}"] for m in ("em", "ss", "f1")] == \
        pytest.approx(_figures(row[2]), abs=0.005)
    assert [ours[m] for m in ("em", "ss", "f1")] == pytest.approx(_figures(row[3]), abs=0.005)


# -- TableVista ------------------------------------------------------------------------------------

def _item(answer: Any, kind: str) -> Any:
    from hopvista.model import Item

    return Item.model_validate({
        "id": "doc-000001.base", "base_id": "doc-000001", "domain": "doc", "kind": "table_qa",
        "inputs": {"table": {"header": ["a"], "rows": [["1"]]}}, "question": "?",
        "answer": answer, "answer_type": kind, "provenance": {"generator": "t", "source": "d"}})


TABLEVISTA = [  # answer, type, reply, TableVista's exact match (its scripts/eval.py)
    ("New York", "text", "new   york", 1),               # lowercased, spaces folded
    ("New York", "text", "<ANSWER> New York </answer>", 1),  # the answer span, any case
    ("New York", "text", "<think>Maybe Boston.</think>\nNew York", 1),  # after the reasoning
    ("New York", "text", "The city is New York.\nAnswer: New York", 0),  # no span: whole reply
    ("New York", "text", "New York.", 0),                # punctuation is kept
    ("12.5", "number", "12.50", 0),                       # text, not numbers
    (True, "boolean", "Yes", 1),
]


@pytest.mark.parametrize(("answer", "kind", "reply", "em"), TABLEVISTA)
def test_tablevista_exact_match_is_its_scripts(answer: Any, kind: str, reply: str,
                                               em: int) -> None:
    from hopvista.eval.papers import tablevista

    assert tablevista.score(_item(answer, kind), reply, None, None) == {"tablevista_em": em}


# -- FCMR ------------------------------------------------------------------------------------------

def _three(difficulty: str, correct: bool, k: int) -> dict[str, Any]:
    statements = [{"type": "FC", "label": True, "predicted": correct},
                  {"type": "FC", "label": False, "predicted": not correct},
                  {"type": "FC", "label": True, "predicted": True}]
    return {"id": f"x-{k:06d}.base", "base_id": f"x-{k:06d}", "variant": "base",
            "kind": "three_statement", "difficulty": difficulty, "error": None,
            "parsed": [1], "correct": correct, "cached": False, "cost": None,
            "metrics": {"set_accuracy": float(correct)}, "statements": statements,
            "tokens": {"input": None, "output": None}}


def test_fcmr_average_is_the_mean_of_its_levels_and_statements_are_the_hard_ones() -> None:
    from hopvista.eval.summary import summarise

    results = [_three("easy", True, 0), _three("easy", True, 1),
               _three("medium", True, 2), _three("medium", False, 3),
               *[_three("hard", k == 4, k) for k in range(4, 8)]]
    summary = summarise(results, {})
    assert summary["accuracy"]["value"] == pytest.approx(4 / 8)  # hopvista's: over items
    fcmr = summary["papers"]["fcmr"]
    assert fcmr["levels"] == {"easy": 1.0, "medium": 0.5, "hard": 0.25}
    assert fcmr["avg"] == pytest.approx((1 + 0.5 + 0.25) / 3)  # FCMR's Avg column
    hard = fcmr["statements_hard"]
    assert sum(hard["confusion"].values()) == 4 * 3  # the hard items' statements only
    assert sum(summary["statements"]["confusion"].values()) == 8 * 3
