"""The paraphrase guard keeps what a statement's program reads and adds nothing.

Paraphrases are real statements of small ``--no-images`` builds of the financial and the
materials packs, edited: every statement type of both packs is covered (the sweep reads the
registry, so a new type is covered by being added). Each case is a test of its own: the
edit that keeps the meaning passes, the edit that changes it fails with a problem naming
what was lost or added.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hopvista.cli.main import main
from hopvista.domain import DomainPack, Synonyms, resolve_pack
from hopvista.program.statement_types import STATEMENT_TYPES
from hopvista.verify.guard import GuardResult, guard, numbers_of
from tests.conftest import read_items

PACKS = {"financial": ("-n", "12", "--seed", "3"), "materials": ("-n", "24", "--seed", "3")}
Case = tuple[str, dict[str, Any], dict[str, Any]]
"""(pack name, statement, item)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """The items of a small build of each pack."""
    out = {}
    for name, args in PACKS.items():
        root = tmp_path_factory.mktemp(name) / "ds"
        assert main(["build", name, "--no-images", "--out", str(root), *args]) == 0
        out[name] = read_items(root)
    return out


def _types() -> list[tuple[str, str]]:
    return [(name, t) for name in PACKS for t in STATEMENT_TYPES.names()
            if t in resolve_pack(name).types]


@pytest.fixture(scope="module", params=_types(), ids=lambda p: f"{p[0]}-{p[1]}")
def case(request: pytest.FixtureRequest, built: dict[str, list[dict[str, Any]]]) -> Case:
    """The first statement of a type in its pack's build."""
    name, type_name = request.param
    for item in built[name]:
        for statement in item["statements"]:
            if statement["type"] == type_name:
                return name, statement, item
    raise AssertionError(f"the {name} build has no {type_name} statement: make it larger")


def _pack(name: str) -> DomainPack:
    return resolve_pack(name)


def _guard(case: Case, text: str, synonyms: Synonyms | None = None) -> GuardResult:
    name, statement, item = case
    pack = _pack(name)
    return guard(text, statement["text"], statement, item, pack.words.words,
                 synonyms if synonyms is not None else pack.synonyms())


def _rejects(case: Case, text: str, *wanted: str) -> GuardResult:
    assert text != case[1]["text"], "the edit changed nothing"
    result = _guard(case, text)
    assert result.problems, f"kept: {text}"
    for clause in wanted:
        assert any(clause in p for p in result.problems), result.problems
    return result


def _variables(case: Case) -> dict[str, str]:
    from hopvista.verify.wording import statement_variables

    name, statement, item = case
    return statement_variables(statement, item, _pack(name).words.words)


def _word(case: Case, key: str) -> str | None:
    """The pack's phrase the text uses for word map ``key`` (``None``: it has none)."""
    variables = _variables(case)
    return variables.get(key)


# -- kept --------------------------------------------------------------------------------------


def test_the_template_itself_passes_with_every_check(case: Case) -> None:
    result = _guard(case, case[1]["text"])
    assert result.problems == ()
    assert "no other number" in result.checks
    assert "no negating or hedging word" in result.checks


def test_a_reordered_sentence_that_keeps_every_value_passes(case: Case) -> None:
    text = case[1]["text"].rstrip(".")
    result = _guard(case, f"It is the case that {text[0].lower()}{text[1:]}.")
    assert result.problems == ()


def test_a_column_replaced_by_a_pack_synonym_is_kept(case: Case) -> None:
    name, statement, item = case
    label = _variables(case).get("column") or _variables(case).get("cond_column")
    if label is None:
        pytest.skip("names no column")
    key = {v: k for k, v in _labels(item).items()}[label]
    synonyms = Synonyms(columns={key: ("the headline figure",)}, words=_pack(name).synonyms().words)
    text = statement["text"].replace(label, "the headline figure")
    result = _guard(case, text, synonyms)
    assert result.problems == ()
    assert f"column {label!r} (or a synonym)" in result.checks


def test_a_word_replaced_by_a_synonym_of_its_sense_is_kept(case: Case) -> None:
    name, statement, _ = case
    swaps = {"greater than": "more than", "less than": "below", "highest": "largest",
             "lowest": "smallest", "minus": "less", "plus": "added to",
             "increasing": "rising", "decreasing": "falling", "increased": "rose",
             "decreased": "fell", "rises": "increases", "falls": "declines"}
    text = statement["text"]
    for key in ("cmp", "order", "sign", "direction_verb", "direction"):
        word = _word(case, key)
        if word is not None and re.search(rf"\b{word}\b", text):
            text = re.sub(rf"\b{word}\b", swaps[word], text, count=1)
            break
    else:
        pytest.skip("states no comparison, order, sign or direction")
    assert _guard(case, text).problems == ()


# -- values dropped or changed -------------------------------------------------------------


def test_a_changed_number_is_rejected(case: Case) -> None:
    text = case[1]["text"]
    numbers = numbers_of(case[1]["text"])
    if not numbers:
        pytest.skip("writes no number")
    number = numbers[-1]
    changed = next(number[:-1] + d for d in "123456789"
                   if number[:-1] + d not in numbers and d != number[-1])
    edited = _replace_number(text, number, changed)
    result = _rejects(case, edited, f"adds the number {changed}")
    assert any(p.startswith(("drops the", "loses the fact's")) for p in result.problems)


def test_a_dropped_period_is_rejected(case: Case) -> None:
    variables = _variables(case)
    period = next((variables[k] for k in ("period", "period1", "period2") if k in variables),
                  None)
    if period is None:
        pytest.skip("names no period")
    text = case[1]["text"].replace(f" {period}", "", 1)
    result = _rejects(case, text)
    assert any(p.startswith(f"drops the {_period_word(case)} {period}") or
               p.startswith(f"drops the number {period} (written") for p in result.problems)


def test_a_changed_year_is_rejected(case: Case) -> None:
    variables = _variables(case)
    period = variables.get("period") or variables.get("period1")
    if period is None or not period.isdigit():
        pytest.skip("names no year")
    other = str(int(period) - 7)
    text = case[1]["text"].replace(period, other, 1)
    result = _rejects(case, text, f"adds the number {other}")
    assert any(p.startswith("drops the") and period in p for p in result.problems), \
        result.problems


def test_a_swapped_entity_is_rejected(case: Case) -> None:
    _, statement, item = case
    name = _variables(case).get("entity")
    if name is None or name not in statement["text"]:
        pytest.skip("names no claimed entity")
    other = next(e["name"] for e in item["entities"] if e["name"] not in statement["text"])
    text = statement["text"].replace(name, other)
    _rejects(case, text, f"drops the entity {name!r}", f"adds {other!r} (the entity")


def test_a_dropped_entity_is_rejected(case: Case) -> None:
    name = _variables(case).get("entity") or _variables(case).get("anchor")
    if name is None or name not in case[1]["text"]:
        pytest.skip("names no entity")
    text = case[1]["text"].replace(name, "one of them")
    _rejects(case, text, f"drops the entity {name!r}")


def test_a_lost_fact_is_rejected(case: Case) -> None:
    from hopvista.verify.wording import fact_needle, needle_tokens

    needle = fact_needle(case[1]["program"])
    if needle is None:
        pytest.skip("reads no fact")
    token = needle_tokens(needle)[0]
    text = case[1]["text"].replace(token, "something")
    _rejects(case, text, f"loses the fact's {token!r}")


# -- words flipped ------------------------------------------------------------------------------


FLIPS = {"cmp": {"greater than": ["less than", "below"], "less than": ["greater than", "above"]},
         "order": {"highest": ["lowest", "smallest"], "lowest": ["highest", "largest"]},
         "sign": {"plus": ["minus"], "minus": ["plus"]},
         "direction_verb": {"increased": ["fell"], "decreased": ["rose"], "rises": ["falls"],
                            "falls": ["rises"]},
         "direction": {"increasing": ["falling"], "decreasing": ["rising"]}}


@pytest.mark.parametrize("key", list(FLIPS))
def test_a_flipped_sense_is_rejected(case: Case, key: str) -> None:
    word = _word(case, key)
    text = case[1]["text"]
    if word is None or not re.search(rf"\b{word}\b", text):
        pytest.skip(f"states no {key}")
    what = "direction" if key.startswith("direction") else \
        {"cmp": "comparison", "order": "order", "sign": "sign"}[key]
    for flipped in FLIPS[key][word]:
        edited = re.sub(rf"\b{word}\b", flipped, text)
        _rejects(case, edited, f"drops the {what}", f"adds {flipped!r}")


# -- added -----------------------------------------------------------------------------------


def test_an_added_number_is_rejected(case: Case) -> None:
    text = case[1]["text"].rstrip(".") + ", by 17 points."
    _rejects(case, text, "adds the number 17")


def test_an_added_name_of_another_entity_of_the_item_is_rejected(case: Case) -> None:
    _, statement, item = case
    other = next((e["name"] for e in item["entities"] if e["name"] not in statement["text"]),
                 None)
    if other is None:
        pytest.skip("names every entity of its item")
    text = statement["text"].rstrip(".") + f", as {other} reports."
    _rejects(case, text, f"adds {other!r} (the entity {other!r})")


def test_another_columns_label_is_rejected(case: Case) -> None:
    _, statement, item = case
    label = _variables(case).get("column") or _variables(case).get("cond_column")
    if label is None:
        pytest.skip("names no column")
    other = next(v for v in _labels(item).values() if v not in statement["text"])
    text = statement["text"].replace(label, other)
    _rejects(case, text, f"drops the column {label!r}", f"adds {other!r} (the column")


@pytest.mark.parametrize("word", ["not", "allegedly", "may", "perhaps"])
def test_an_added_negation_or_hedge_is_rejected(case: Case, word: str) -> None:
    text = case[1]["text"]
    edited = re.sub(r"\b(is|was|had|has|equals)\b", rf"\1 {word}", text, count=1)
    if edited == text:
        edited = f"{word.capitalize()}, {text[0].lower()}{text[1:]}"
    _rejects(case, edited, f"adds the negating or hedging word {word!r}")


def test_an_invisible_character_is_rejected(case: Case) -> None:
    text = case[1]["text"].replace(" ", " \u200b", 1)
    _rejects(case, text, "U+200B")


def test_look_alike_letters_are_rejected(case: Case) -> None:
    text = case[1]["text"]
    at = next(i for i, c in enumerate(text) if c in "ae" and text[i - 1].isalpha())
    edited = text[:at] + {"a": "\u0430", "e": "\u0435"}[text[at]] + text[at + 1:]
    _rejects(case, edited, "is not read as written")


def test_a_question_mark_is_rejected(case: Case) -> None:
    _rejects(case, case[1]["text"].rstrip(".") + "?", "adds the sign '?'")


# -- numbers as displayed ------------------------------------------------------------------------


def _ct_case(built: dict[str, list[dict[str, Any]]], threshold: str, text: str) -> Case:
    for item in built["financial"]:
        for statement in item["statements"]:
            if statement["type"] == "CT":
                program = json.loads(json.dumps(statement["program"]))
                old = program["select"]["threshold"]
                program["select"]["threshold"] = threshold
                shown = statement["text"]
                return "financial", {**statement, "program": program,
                                     "text": _replace_number(shown, _shown(shown, old), text)}, \
                    item
    raise AssertionError("no CT statement")


@pytest.mark.parametrize(("threshold", "shown", "kept", "rejected"), [
    ("1234.5", "1,234.5", ["1234.5", "1,234.5"], ["1,234.6", "1,234", "12,345"]),
    ("-3.2", "-3.2", ["-3.2"], ["3.2", "-3.25", "-32"]),
    ("12.5", "12.5%", ["12.5 percent", "12.5%"], ["12.6%", "125%"]),
])
def test_numbers_are_kept_as_displayed(built: dict[str, list[dict[str, Any]]], threshold: str,
                                       shown: str, kept: list[str], rejected: list[str]) -> None:
    case = _ct_case(built, threshold, shown)
    for text in kept:
        edited = _replace_number(case[1]["text"], shown.rstrip("%"), text.removesuffix("%")
                                 .removesuffix(" percent")) if text != shown else case[1]["text"]
        if text.endswith(" percent"):
            edited = edited.replace("%", " percent")
        assert _guard(case, edited).problems == (), edited
    for text in rejected:
        edited = case[1]["text"].replace(shown, text)
        result = _guard(case, edited)
        assert any(p.startswith("drops the threshold") for p in result.problems), edited


def test_numbers_of_reads_ranges_and_separators() -> None:
    assert numbers_of("from 2020-2022, 1,234.5 and -3.2 (FY2021), 10-K") == \
        ["2020", "2022", "1234.5", "-3.2", "2021", "10"]


# -- helpers ---------------------------------------------------------------------------------


def _labels(item: dict[str, Any]) -> dict[str, str]:
    inputs = item["inputs"]
    labels = {c["key"]: c["label"] for c in inputs["table"]["columns"]}
    labels[inputs["chart"]["column"]["key"]] = inputs["chart"]["column"]["label"]
    return labels


def _period_word(case: Case) -> str:
    return (case[2]["inputs"]["table"].get("period_label") or "period").lower()


def _shown(text: str, number: str) -> str:
    """How ``text`` writes ``number`` (with thousands separators, if any)."""
    for match in re.finditer(r"-?\d[\d,]*(?:\.\d+)?", text):
        if match.group().replace(",", "") == number:
            return match.group()
    raise AssertionError(f"{number} not in {text!r}")


def _replace_number(text: str, number: str, new: str) -> str:
    """``text`` with the last place it writes ``number`` (as a reader reads it) replaced."""
    written = r"(?:(?<![\w.\-])-)?(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
    matches = [m for m in re.finditer(written, text)
               if m.group().replace(",", "") == number.replace(",", "")]
    assert matches, f"{number} not in {text!r}"
    m = matches[-1]
    return text[:m.start()] + new + text[m.end():]


def test_the_sweep_covers_every_type_of_both_packs() -> None:
    covered = {t for _, t in _types()}
    enabled = set(resolve_pack("financial").types) | set(resolve_pack("materials").types)
    assert covered == enabled
    assert Path(__file__).name == "test_guard.py"
