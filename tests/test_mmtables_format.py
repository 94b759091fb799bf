"""Multimodal tables (MMTabReal's): the ``mmtable`` item kind's public format, the program
language of its questions (:mod:`hopvista.program.cells`), visual necessity, and ``gen
verify`` re-proving hand-built items."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import hopvista
from hopvista.building.dataset_writer import Counts, DatasetKind, write_dataset
from hopvista.cli.main import main
from hopvista.model import Item
from hopvista.model.schema import json_schema
from hopvista.program.cells import (
    ProgramError,
    canonical_number,
    execute,
    visual_witness,
)
from hopvista.verify.mmtables import grid_of, mmtable_problems, visuals_of

HEADER = ("Club", "Badge", "Points", "GD", "Flag")
ROWS = (
    ("Arden FC", "", "60", "-3", ""),
    ("Brook United", "", "60", "5", ""),
    ("Cole Rovers", "", "48", "-1", ""),
    ("Dale Town", "", "71", "12", ""),
)
BADGES = (("red", "shield", "AF", "#d32f2f"), ("blue", "circle", "BU", "#1e88e5"),
          ("green", "shield", "CR", "#43a047"), ("red", "circle", "DT", "#c62828"))
FLAGS = ((3, ["red", "white", "red"]), (2, ["blue", "white"]), (3, ["green", "white", "blue"]),
         (2, ["yellow", "red"]))


def visuals() -> list[dict[str, Any]]:
    """One badge and one flag per club."""
    found: list[dict[str, Any]] = []
    for row, ((colour, shape, initials, hex_colour), (stripes, colours)) in \
            enumerate(zip(BADGES, FLAGS, strict=True), start=1):
        found.append({"row": row, "col": 1, "kind": "badge", "colors": [hex_colour, "#ffffff"],
                      "attributes": {"colour": colour, "shape": shape, "initials": initials},
                      "description": f"a {colour} {shape} badge with the initials {initials}"})
        found.append({"row": row, "col": 4, "kind": "flag", "colors": ["#ffffff"],
                      "attributes": {"stripes": stripes, "colours": colours},
                      "description": f"a flag of {stripes} stripes: {', '.join(colours)}"})
    return found


def item_json(program: dict[str, Any], answer: Any, tags: dict[str, str], *,
              index: int = 0, answer_type: str | None = None,
              visual_list: list[dict[str, Any]] | None = None,
              rows: tuple[tuple[str, ...], ...] = ROWS) -> dict[str, Any]:
    """A hand-built mmtable item's JSON."""
    kind = answer_type or ("boolean" if isinstance(answer, bool) else
                           "number" if isinstance(answer, int | float) else
                           "list" if isinstance(answer, list) else "text")
    base = f"mmtables-s0-{index:06d}"
    return {"id": f"{base}.base", "base_id": base, "domain": "mmtables", "kind": "mmtable",
            "inputs": {"table": {"header": list(HEADER), "rows": [list(r) for r in rows]},
                       "visuals": visual_list if visual_list is not None else visuals()},
            "question": "A question about the clubs' badges and flags?",
            "answer": answer, "answer_type": kind,
            "tags": {"archetype": "multi-entity", **tags},
            "program": program, "provenance": {"generator": "test", "source": "hand-built",
                                               "index": index}}


def typed(raw: dict[str, Any]) -> Item:
    return Item.model_validate(raw)


def run(program: dict[str, Any]) -> Any:
    item = typed(item_json(program, "x", {"question_type": "visual", "reasoning": "other",
                                          "answer_type": "single-entity"}))
    return execute(grid_of(item), visuals_of(item), program)


RED_BADGE = {"visual": "Badge", "attribute": "colour", "eq": "red"}

CASES = [
    # What is the colour of the badge of the club with 60 points and a negative GD?
    ({"op": "value", "where": [{"column": "Points", "eq": "60"}, {"column": "GD", "lt": "0"}],
      "read": {"visual": "Badge", "attribute": "colour"}}, "red",
     {"question_type": "visual", "reasoning": "vision-based", "answer_type": "single-entity"}),
    # How many points has the club with the green badge?
    ({"op": "value", "where": [{"visual": "Badge", "attribute": "colour", "eq": "green"}],
      "read": {"column": "Points"}}, 48,
     {"question_type": "implicit", "reasoning": "other", "answer_type": "single-number"}),
    # Which club, of those whose flag has no red, has the most points?
    ({"op": "argmax", "where": [{"visual": "Flag", "attribute": "colours", "lacks": "red"}],
      "by": {"column": "Points"}, "read": {"column": "Club"}}, "Brook United",
     {"question_type": "answer-mention", "reasoning": "extrema",
      "answer_type": "single-entity"}),
    # Which clubs have a red badge?
    ({"op": "values", "where": [RED_BADGE], "read": {"column": "Club"}},
     ["Arden FC", "Dale Town"],
     {"question_type": "answer-mention", "reasoning": "other",
      "answer_type": "multiple-entities"}),
    # By how many points does the red circle badge's club lead the blue badge's?
    ({"op": "difference", "a": [RED_BADGE, {"visual": "Badge", "attribute": "shape",
                                            "eq": "circle"}],
      "b": [{"visual": "Badge", "attribute": "colour", "eq": "blue"}],
      "read": {"column": "Points"}}, 11,
     {"question_type": "implicit", "reasoning": "mathematical",
      "answer_type": "single-number"}),
    # What is the mean goal difference of the clubs with red badges?
    ({"op": "mean", "where": [RED_BADGE], "read": {"column": "GD"}}, 4.5,
     {"question_type": "implicit", "reasoning": "mathematical",
      "answer_type": "single-number"}),
    # What share of the green badge's points has the blue badge's club?
    ({"op": "ratio", "a": [{"visual": "Badge", "attribute": "colour", "eq": "blue"}],
      "b": [{"visual": "Badge", "attribute": "colour", "eq": "green"}],
      "read": {"column": "Points"}}, 1.25,
     {"question_type": "implicit", "reasoning": "mathematical",
      "answer_type": "single-number"}),
    # How many clubs have a flag of three stripes?
    ({"op": "count", "where": [{"visual": "Flag", "attribute": "stripes", "eq": 3}]}, 2,
     {"question_type": "visual", "reasoning": "vision-based",
      "answer_type": "single-number"}),
    # Does the club with the blue badge have more than 50 points?
    ({"op": "check", "where": [{"visual": "Badge", "attribute": "colour", "eq": "blue"}],
      "test": {"column": "Points", "gt": "50"}}, True,
     {"question_type": "implicit", "reasoning": "fact-verification",
      "answer_type": "single-entity"}),
    # Does Arden FC's flag have more stripes than its badge has letters?  (explicit)
    ({"op": "check", "where": [{"column": "Club", "eq": "Arden FC"}],
      "test": {"visual": "Flag", "attribute": "stripes", "gt": 2}}, True,
     {"question_type": "explicit", "reasoning": "fact-verification",
      "answer_type": "single-entity"}),
    # Where is the badge with the initials CR?
    ({"op": "locate", "where": [{"visual": "Badge", "attribute": "initials", "eq": "CR"}],
      "column": "Badge"}, "row_3_col_2",
     {"question_type": "visual", "reasoning": "vision-based",
      "answer_type": "image-location"}),
    # Name and points of the club whose badge is a green shield.
    ({"op": "fields", "where": [{"visual": "Badge", "attribute": "colour", "eq": "green"},
                                {"visual": "Badge", "attribute": "shape", "eq": "shield"}],
      "read": [{"column": "Club"}, {"column": "Points"}]}, ["Cole Rovers", 48],
     {"question_type": "answer-mention", "reasoning": "other",
      "answer_type": "multiple-types"}),
    # How many colours has the flag of the club with the most points?
    ({"op": "argmax", "by": {"column": "Points"},
      "read": {"visual": "Flag", "attribute": "colours", "of": "count"}}, 2,
     {"question_type": "visual", "reasoning": "extrema", "answer_type": "single-number"}),
    # Which club with a circular badge has the fewest points, and what is its GD?
    ({"op": "argmin", "where": [{"visual": "Badge", "attribute": "shape", "eq": "circle"}],
      "by": {"column": "Points"}, "read": [{"column": "Club"}, {"column": "GD"}]},
     ["Brook United", 5],
     {"question_type": "answer-mention", "reasoning": "extrema",
      "answer_type": "multiple-types"}),
    # Of the clubs with a shield, which has the most points? Answer with its badge's cell.
    ({"op": "argmax", "where": [{"visual": "Badge", "attribute": "shape", "eq": "shield"}],
      "by": {"column": "Points"}, "read": {"cell": "Badge"}}, "row_1_col_2",
     {"question_type": "answer-mention", "reasoning": "extrema",
      "answer_type": "image-location"}),
    # Where is the club whose flag has yellow? Answer with the cell of its badge.
    ({"op": "locate", "where": [{"visual": "Flag", "attribute": "colours", "has": "yellow"}],
      "column": "Badge"}, "row_4_col_2",
     {"question_type": "answer-mention", "reasoning": "vision-based",
      "answer_type": "image-location"}),
    # How many points and how much GD do the clubs with red badges have in total?
    ({"op": "sum", "where": [RED_BADGE], "read": [{"column": "Points"}, {"column": "GD"}]},
     [131, 9],
     {"question_type": "implicit", "reasoning": "mathematical",
      "answer_type": "multiple-numbers"}),
    # How many more points and GD has Dale Town than the club with the green badge?
    ({"op": "difference", "a": [{"column": "Club", "eq": "Dale Town"}],
      "b": [{"visual": "Badge", "attribute": "colour", "eq": "green"}],
      "read": [{"column": "Points"}, {"column": "GD"}]}, [23, 13],
     {"question_type": "explicit", "reasoning": "mathematical",
      "answer_type": "multiple-numbers"}),
]


@pytest.mark.parametrize(("program", "answer", "tags"), CASES,
                         ids=[f"{c[0]['op']}-{k}" for k, c in enumerate(CASES)])
def test_each_op_gives_the_answer_written_by_mmtabreals_rules_and_verifies(
        program: dict[str, Any], answer: Any, tags: dict[str, str]) -> None:
    assert run(program) == answer
    item = typed(item_json(program, answer, tags))
    assert mmtable_problems(item) == []


def test_numbers_are_written_by_appendix_e() -> None:
    assert canonical_number(Decimal("45.00")) == 45
    assert canonical_number(Decimal("12.355")) == 12.36
    assert canonical_number(Decimal("23.40")) == 23.4
    assert canonical_number(Decimal("-0.004")) == 0
    assert run({"op": "sum", "where": [RED_BADGE], "read": {"column": "Points"}}) == 131
    assert run({"op": "ratio", "a": [{"column": "Club", "eq": "Cole Rovers"}],
                "b": [{"column": "Club", "eq": "Dale Town"}],
                "read": {"column": "Points"}}) == 0.68


@pytest.mark.parametrize(("program", "why"), [
    ({"op": "value", "where": [RED_BADGE], "read": {"column": "Club"}}, "picks 2 rows"),
    ({"op": "argmax", "where": [{"column": "Points", "lt": "70"}], "by": {"column": "Points"},
      "read": {"column": "Club"}}, "2 rows tie"),
    ({"op": "value", "where": [{"column": "Club", "eq": "Arden FC"}],
      "read": {"column": "Badge"}}, "shows no text"),
    ({"op": "value", "where": [{"column": "Club", "eq": "Arden FC"}],
      "read": {"visual": "Points", "attribute": "colour"}}, "has no visual"),
    ({"op": "value", "where": [{"column": "Club", "eq": "Arden FC"}],
      "read": {"column": "Stadium"}}, "0 columns are headed"),
    ({"op": "ratio", "a": [{"column": "Club", "eq": "Arden FC"}],
      "b": [{"column": "Club", "eq": "Arden FC"}], "read": {"column": "Badge"}},
     "shows no text"),
    ({"op": "median"}, "unknown op"),
    ({"op": "value", "where": [{"column": "Club", "eq": "Arden FC"}],
      "read": {"cell": "Points"}}, "has no visual in column 2"),
    ({"op": "sum", "where": [RED_BADGE], "read": []}, "read is an empty list"),
])
def test_a_program_that_cannot_be_executed_raises_program_error(
        program: dict[str, Any], why: str) -> None:
    with pytest.raises(ProgramError, match=why):
        run(program)


def test_a_question_needs_its_visuals_when_one_visual_changed_changes_its_answer() -> None:
    item = typed(item_json(*CASES[0]))
    found = visual_witness(grid_of(item), visuals_of(item), CASES[0][0])
    assert found is not None and found[0] == (1, 1)
    by_text = {"op": "value", "where": [{"column": "Club", "eq": "Dale Town"}],
               "read": {"column": "Points"}}
    assert visual_witness(grid_of(item), visuals_of(item), by_text) is None
    # A value that no visual takes counts: with every badge red, a "red" count still
    # depends on them.
    all_red = [{**v, "attributes": {**v["attributes"], "colour": "red"}} for v in visuals()]
    counted = {"op": "count", "where": [RED_BADGE]}
    red = typed(item_json(counted, 4, CASES[7][2], visual_list=all_red))
    assert visual_witness(grid_of(red), visuals_of(red), counted) is not None


def test_an_item_round_trips_and_other_items_keep_their_json(tmp_path: Path) -> None:
    raw = item_json(*CASES[0])
    item = typed(raw)
    again = json.loads(item.model_dump_json())
    assert again == {**raw, "difficulty": None, "hops": None, "entities": [], "images": [],
                     "statements": [], "seed": None,
                     "inputs": {**raw["inputs"], "text": [], "chart": None,
                                "table": {"caption": None, **raw["inputs"]["table"]}},
                     "variant": again["variant"], "provenance": again["provenance"]}
    assert typed(again) == item
    plain = item.model_copy(update={"kind": "table_qa", "tags": None, "program": None,
                                    "inputs": item.inputs.model_copy(update={"visuals": ()})})
    dumped = json.loads(plain.model_dump_json())
    assert "tags" not in dumped and "program" not in dumped
    assert "visuals" not in dumped["inputs"]


def test_the_json_schema_describes_visuals_and_tags() -> None:
    schema = json_schema()
    defs = schema["$defs"]
    assert set(defs["Visual"]["required"]) == {"row", "col", "kind", "colors", "description"}
    assert defs["Visual"]["properties"]["colors"]["items"]["pattern"] == "^#[0-9a-f]{6}$"
    assert defs["Tags"]["properties"]["question_type"]["enum"] == [
        "explicit", "implicit", "answer-mention", "visual"]
    assert len(defs["Tags"]["properties"]["archetype"]["enum"]) == 8
    assert "visuals" in defs["Inputs"]["properties"]


def test_a_malformed_colour_is_refused_by_the_model() -> None:
    bad = visuals()
    bad[0] = {**bad[0], "colors": ["red"]}
    with pytest.raises(ValidationError, match="inputs.visuals.0.colors.0"):
        typed(item_json(*CASES[0], visual_list=bad))


# -- gen verify ---------------------------------------------------------------------------


class HandBuilt(DatasetKind):
    """A dataset of multimodal tables made of hand-built items."""

    name = "mmtables"

    def __init__(self, raws: list[dict[str, Any]]) -> None:
        self.raws = raws
        self.total = len(raws)

    def items(self, stage: Path, kept: int) -> Iterator[Item]:
        for raw in self.raws[kept:]:
            yield typed(raw)

    def manifest(self, stage: Path, counts: Counts) -> dict[str, Any]:
        return {"config": {"count": self.total}, "seed": 0,
                "counts": {"items": counts.items, "images": counts.images}}

    def card(self, manifest: dict[str, Any]) -> str:
        return "# Multimodal tables\n"


def verify(tmp_path: Path, raws: list[dict[str, Any]],
           capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    out = tmp_path / "mm"
    write_dataset(out, HandBuilt(raws), notice=lambda text: None)
    code = main(["verify", str(out)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_gen_verify_re_proves_hand_built_items(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raws = [item_json(p, a, t, index=k) for k, (p, a, t) in enumerate(CASES)]
    code, said = verify(tmp_path, raws, capsys)
    assert code == 0, said
    loaded = hopvista.load(tmp_path / "mm")
    assert [item.answer for item in loaded] == [c[1] for c in CASES]
    assert loaded[0].inputs.visuals[0].kind == "badge"


def _changed(k: int, **update: Any) -> dict[str, Any]:
    return {**item_json(*CASES[k], index=0), **update}


@pytest.mark.parametrize(("raw", "said"), [
    (_changed(1, answer=60), "item mmtables-s0-000000.base: answer 60 is not what the "
                             "program gives (48)"),
    (_changed(1, answer_type="text", answer="48"), "answer \"48\" is not what the program"),
    (_changed(0, tags={"archetype": "multi-entity", "question_type": "visual",
                       "reasoning": "extrema", "answer_type": "single-entity"}),
     "item mmtables-s0-000000.base: tags.reasoning 'extrema' is not what a 'value' program "
     "does (vision-based)"),
    (_changed(0, tags={"archetype": "single-entity", "question_type": "visual",
                       "reasoning": "vision-based", "answer_type": "single-entity"}),
     "tags.archetype 'single-entity' is not 'multi-entity'"),
    (_changed(1, tags={"archetype": "multi-entity", "question_type": "visual",
                       "reasoning": "other", "answer_type": "single-number"}),
     "tags.question_type 'visual' does not fit the program (it fits implicit)"),
    (_changed(1, tags={"archetype": "multi-entity", "question_type": "implicit",
                       "reasoning": "other", "answer_type": "single-entity"}),
     "tags.answer_type 'single-entity' is not 'single-number'"),
    (_changed(1, program={"op": "value", "where": [{"column": "Club", "eq": "Cole Rovers"}],
                          "read": {"column": "Points"}},
              tags={"archetype": "multi-entity", "question_type": "explicit",
                    "reasoning": "other", "answer_type": "single-number"}),
     "item mmtables-s0-000000.base: program: the question does not need its visuals"),
    (_changed(0, inputs={"table": {"header": list(HEADER), "rows": [list(r) for r in ROWS]},
                         "visuals": [{**visuals()[0], "col": 0}, *visuals()[1:]]}),
     "item mmtables-s0-000000.base: inputs.visuals[0]: its cell (row 1, col 0) shows "
     "'Arden FC'"),
    (_changed(0, inputs={"table": {"header": list(HEADER), "rows": [list(r) for r in ROWS]},
                         "visuals": [{**visuals()[0], "row": 9}, *visuals()[1:]]}),
     "inputs.visuals[0]: row 9, col 1 lies outside the 5-row table"),
], ids=["answer", "answer-type", "reasoning", "archetype", "question-type", "answer-tag",
        "not-needed", "visual-on-text", "visual-outside"])
def test_gen_verify_refuses_an_item_naming_it_and_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: dict[str, Any],
        said: str) -> None:
    code, printed = verify(tmp_path, [raw], capsys)
    assert code == 1, printed
    assert said in printed


def test_gen_verify_refuses_a_malformed_colour_naming_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mm"
    write_dataset(out, HandBuilt([item_json(*CASES[0])]), notice=lambda text: None)
    lines = (out / "items.jsonl").read_text(encoding="utf-8")
    (out / "items.jsonl").write_text(lines.replace('"#d32f2f"', '"#D32F2F"'),
                                     encoding="utf-8")
    code = main(["verify", str(out)])
    printed = capsys.readouterr()
    assert code == 1
    assert "item mmtables-s0-000000.base: malformed item: field " \
        "'inputs.visuals.0.colors.0'" in printed.out + printed.err


def test_gen_verify_refuses_a_source_for_a_dataset_of_multimodal_tables(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mm"
    write_dataset(out, HandBuilt([item_json(*CASES[0])]), notice=lambda text: None)
    code = main(["verify", str(out), "--source", str(tmp_path)])
    printed = capsys.readouterr()
    assert code == 2
    assert printed.err.strip().splitlines() == [
        f"gen: error: --source {tmp_path}: {out} is a dataset of multimodal tables, made from "
        "no input"]


def test_a_condition_on_a_column_the_table_lacks_cannot_be_executed() -> None:
    with pytest.raises(ProgramError, match="0 columns are headed 'Crest'"):
        run({"op": "count", "where": [{"visual": "Crest", "attribute": "colour", "eq": "red"}]})
    assert run({"op": "count", "where": [{"visual": "Badge", "attribute": "motto",
                                          "eq": "x"}]}) == 0
