"""HiTab and FinQA in their release formats (hopvista.sources.imports.hitab / .finqa): tiny
releases written here, read record by record, shown by ``gen augment`` as their tables are
(HiTab's multi-level header, merged cells and row hierarchy), and malformed records named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hopvista.augment.grid import blank, grid_of_table, plain
from hopvista.cli.main import main
from hopvista.model import GridTable, Item, MergedCell
from hopvista.sources.imports import IMPORTERS, Imported, Skipped, detect_format, read_records

# -- tiny releases ------------------------------------------------------------------------------


def node(row: int, col: int, *children: dict[str, Any]) -> dict[str, Any]:
    return {"row_index": row, "column_index": col, "children": list(children)}


HITAB_TABLE: dict[str, Any] = {
    "title": "workers by sex",
    "top_root": node(-1, -1, node(0, 1, node(1, 1), node(1, 2)),
                     node(0, 3, node(1, 3), node(1, 4))),
    "left_root": node(-1, -1, node(2, 0, node(3, 0), node(4, 0)), node(5, 0)),
    "top_header_rows_num": 2, "left_header_columns_num": 1,
    "texts": [["", "2019", "", "2020", ""],
              ["", "men", "women", "men", "women"],
              ["all workers", 100.0, 110.0, 120.0, 130.0],
              ["full-time", 60.0, 70.0, 80.0, 90.0],
              ["part-time", 40.0, 40.0, 40.0, 40.0],
              ["self-employed", 5.0, 6.0, 7.5, 8.0]],
    "merged_regions": [{"first_row": 0, "last_row": 0, "first_column": 3, "last_column": 4},
                       {"first_row": 0, "last_row": 0, "first_column": 1, "last_column": 2},
                       {"first_row": 0, "last_row": 1, "first_column": 0, "last_column": 0}],
}


def hitab_sample(sample_id: str, **changes: Any) -> dict[str, Any]:
    sample = {"id": sample_id, "table_id": "t1", "table_source": "statcan",
              "question": "how many women worked full-time in 2020?", "answer": [90.0],
              "aggregation": ["none"],
              "linked_cells": {"entity_link": {"top": {"women": {"(1, 4)": "women"}},
                                               "left": {"full-time": {"(3, 0)": "full-time"}},
                                               "top_left_corner": {}},
                               "quantity_link": {"[ANSWER]": {"(3, 4)": 90.0}}},
              "answer_formulas": ["=E4"], "reference_cells_map": {"E4": "(3, 4)"}}
    return sample | changes


def write_hitab(root: Path, samples: list[dict[str, Any] | str],
                tables: dict[str, Any] | None = None) -> Path:
    """A HiTab release as its repository publishes it: ``data/dev_samples.jsonl`` and
    ``data/tables/raw/<table_id>.json``."""
    raw = root / "data" / "tables" / "raw"
    raw.mkdir(parents=True)
    for name, table in (tables if tables is not None else {"t1": HITAB_TABLE}).items():
        (raw / f"{name}.json").write_text(json.dumps(table), encoding="utf-8")
    lines = [s if isinstance(s, str) else json.dumps(s) for s in samples]
    (root / "data" / "dev_samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def finqa_record(record_id: str, **qa: Any) -> dict[str, Any]:
    return {"pre_text": ["acme makes widgets .", "net sales grew in 2019 ."],
            "post_text": ["", "operating income rose ."],
            "filename": "ACME/2019/page_10.pdf",
            "table": [["", "2019", "2018"], ["net sales", "$ 1,200", "$ 1,000"],
                      ["operating income", "300", "250"]],
            "id": record_id,
            "qa": {"question": "what was the change in operating income from 2018 to 2019?",
                   "answer": "50", "exe_ans": 50.0, "program": "subtract(300, 250)",
                   "gold_inds": {"table_2": "the operating income of 2019 is 300 ;"}} | qa}


def write_finqa(root: Path, records: list[Any]) -> Path:
    """A FinQA release as its repository publishes it: ``dataset/test.json``."""
    (root / "dataset").mkdir(parents=True)
    (root / "dataset" / "test.json").write_text(json.dumps(records), encoding="utf-8")
    return root


def read(path: Path, fmt: str | None = None) -> tuple[list[Imported], list[Skipped]]:
    found = list(read_records(path, fmt)[1])
    return ([r for r in found if isinstance(r, Imported)],
            [r for r in found if isinstance(r, Skipped)])


def table_of(item: Item) -> GridTable:
    table = item.inputs.table
    assert isinstance(table, GridTable)
    return table


# -- detection ----------------------------------------------------------------------------------


def test_each_release_is_detected_from_its_root_its_data_folder_and_its_file(
        tmp_path: Path) -> None:
    hitab = write_hitab(tmp_path / "HiTab", [hitab_sample("s1")])
    finqa = write_finqa(tmp_path / "FinQA", [finqa_record("ACME/1")])
    for path, name in [(hitab, "hitab"), (hitab / "data", "hitab"),
                       (hitab / "data" / "dev_samples.jsonl", "hitab"),
                       (finqa, "finqa"), (finqa / "dataset", "finqa"),
                       (finqa / "dataset" / "test.json", "finqa")]:
        assert detect_format(path) == name, path
        assert [other for other, imp in IMPORTERS.items() if imp.detect(path)] == [name]


def test_hitab_samples_without_their_tables_say_how_to_get_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_hitab(tmp_path / "HiTab", [hitab_sample("s1")], tables={})
    (root / "data" / "tables" / "raw").rmdir()
    capsys.readouterr()
    assert main(["augment", str(root), "--variants", "web", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a dataset in any known format" in err
    assert err.endswith("; HiTab: no data/tables/raw/ folder beside dev_samples.jsonl (the "
                        "release ships the tables zipped: unzip -d data/ data/tables.zip)\n")
    assert not (tmp_path / "o").exists()


# -- HiTab: the table keeps its hierarchy -------------------------------------------------------


def test_a_hitab_table_keeps_its_header_levels_merged_cells_and_row_hierarchy(
        tmp_path: Path) -> None:
    (record,), _ = read(write_hitab(tmp_path / "HiTab", [hitab_sample("s1")]))
    table = table_of(record.item)
    assert (table.header_rows, table.label_cols, table.caption) == (2, 1, "workers by sex")
    assert table.merged == (MergedCell(row=0, col=0, rows=2, cols=1),
                            MergedCell(row=0, col=1, rows=1, cols=2),
                            MergedCell(row=0, col=3, rows=1, cols=2))
    # the release writes a merged cell's text in its first cell: the grid repeats it
    assert table.header == ("", "2019", "2019", "2020", "2020")
    assert table.rows[0] == ("", "men", "women", "men", "women")
    assert table.body_rows[1] == ("full-time", "60", "70", "80", "90")  # 60.0 shows as 60
    assert table.body_rows[3][3] == "7.5"
    assert table.row_levels == (0, 1, 1, 0)
    again = Item.model_validate(json.loads(record.item.model_dump_json()))
    assert again == record.item


def test_hitab_answers_aggregation_and_linked_cells_are_kept(tmp_path: Path) -> None:
    summed = hitab_sample("s2", question="how many men were part-time or self-employed "
                                         "in 2019?", answer=[45.0], aggregation=["sum"],
                          linked_cells={"entity_link": {}, "quantity_link": {
                              "[ANSWER]": {"(4, 1)": 40.0, "(5, 1)": 5.0}}},
                          answer_formulas=["=B7+B8"], reference_cells_map={})
    listed = hitab_sample("s3", answer=["full-time", "part-time"], aggregation=["none"])
    imported, skipped = read(write_hitab(tmp_path / "HiTab",
                                         [hitab_sample("s1"), summed, listed]))
    assert not skipped
    first, second, third = imported
    assert (first.item.answer, first.item.answer_type) == (90, "number")
    assert (second.item.answer, third.item.answer) == (45, ["full-time", "part-time"])
    fields = second.item.provenance.model_extra["fields"]  # type: ignore[index]
    assert fields["aggregation"] == ["sum"] and fields["answer_formulas"] == ["=B7+B8"]
    assert fields["table_id"] == "t1" and "linked_cells" in fields
    whys = {(p.row, p.col): p.why for p in first.protected}
    assert whys[(3, 4)].startswith("matches the answer")  # HiTab's coordinates are the grid's
    assert "linked to the question by HiTab" in whys[(1, 4)]
    assert {(4, 1), (5, 1)} <= {(p.row, p.col) for p in second.protected}


def test_a_hitab_table_is_shown_with_its_structure() -> None:
    table = GridTable.model_validate({
        "caption": "t", "header": ["", "2019", "2019"], "rows": [
            ["", "men", "women"], ["all", "1", "2"], ["full", "3", "4"]],
        "header_rows": 2, "row_levels": [0, 1],
        "merged": [{"row": 0, "col": 0, "rows": 2, "cols": 1},
                   {"row": 0, "col": 1, "rows": 1, "cols": 2}]})
    (panel,) = plain(grid_of_table(table, {})).panels
    assert panel.head_rows == 2
    corner, year = panel.rows[0]
    assert (corner.at, corner.rowspan, corner.covers) == ((0, 0), 2, ((1, 0),))
    assert (year.at, year.colspan, year.covers) == ((0, 1), 2, ((0, 2),))
    assert [c.at for c in panel.rows[1]] == [(1, 1), (1, 2)]
    assert [c.indent for c in panel.rows[3]] == [1, 0, 0]
    # a merged cell whose covered cell shows something else (blanked) is shown cell by cell
    (split,) = plain(blank(grid_of_table(table, {}), [(0, 2)], "")).panels
    assert [(c.at, c.colspan) for c in split.rows[0]][1:] == [((0, 1), 1), ((0, 2), 1)]


def test_a_flat_grid_writes_no_structure_fields() -> None:
    flat = GridTable(header=("a", "b"), rows=(("1", "2"),))
    assert flat.model_dump(mode="json") == {"caption": None, "header": ["a", "b"],
                                            "rows": [["1", "2"]]}


# -- FinQA: the text around the table, the answer and the program -------------------------------


def test_finqa_keeps_the_text_around_the_table_its_answer_and_program(tmp_path: Path) -> None:
    executed = finqa_record("ACME/2", answer="", exe_ans=0.2)
    imported, skipped = read(write_finqa(tmp_path / "FinQA",
                                         [finqa_record("ACME/1"), executed]))
    assert not skipped
    item = imported[0].item
    assert item.base_id == "finqa-ACME-1" and item.kind == "table_qa"
    assert (item.answer, item.answer_type) == (50, "number")
    assert [(c.chunk, c.section, c.text) for c in item.inputs.text] == [
        ("text_0", "pre_text", "acme makes widgets ."),
        ("text_1", "pre_text", "net sales grew in 2019 ."),
        ("text_3", "post_text", "operating income rose .")]  # text_2 is empty in the source
    assert table_of(item).header == ("", "2019", "2018")
    fields = item.provenance.model_extra["fields"]  # type: ignore[index]
    assert fields["program"] == "subtract(300, 250)" and fields["exe_ans"] == 50.0
    assert fields["filename"] == "ACME/2019/page_10.pdf"
    assert item.provenance.source == "dataset/test.json#ACME/1"
    assert (imported[1].item.answer, imported[1].item.answer_type) == (0.2, "number")
    whys = {(p.row, p.col): p.why for p in imported[0].protected}
    assert "gold facts" in whys[(2, 0)] or "row" in whys[(2, 0)]
    assert (2, 1) in whys and (2, 2) in whys


# -- malformed records are named ----------------------------------------------------------------


def test_malformed_hitab_samples_are_named_by_line_and_id(tmp_path: Path) -> None:
    outside = json.loads(json.dumps(HITAB_TABLE))
    outside["merged_regions"] = [{"first_row": 0, "last_row": 0, "first_column": 4,
                                  "last_column": 6}]
    root = write_hitab(tmp_path / "HiTab", [
        hitab_sample("s1"), '{"id": "s2", "question"', hitab_sample("s3", table_id="t9"),
        hitab_sample("s4", table_id="bad"), hitab_sample("s5", answer=[]),
        hitab_sample("s6", answer=[float("nan")])],
        tables={"t1": HITAB_TABLE, "bad": outside})
    imported, skipped = read(root)
    assert [r.item.base_id for r in imported] == ["hitab-s1"]
    assert [(s.where, s.why) for s in skipped] == [
        ("data/dev_samples.jsonl:2", "truncated JSON at column 24"),
        ("data/dev_samples.jsonl:3", "id 's3': table file tables/raw/t9.json not found"),
        ("data/dev_samples.jsonl:4", "id 's4': table file tables/raw/bad.json: "
                                     "merged_regions[0] (rows 0-0, columns 4-6) lies outside "
                                     "the 6 x 5 table"),
        ("data/dev_samples.jsonl:5", "id 's5': answer is not a list of numbers and texts"),
        ("data/dev_samples.jsonl:6", "id 's6': answer[0]: NaN is not a finite number")]


def test_malformed_finqa_records_are_named_by_id(tmp_path: Path) -> None:
    no_qa = finqa_record("ACME/3")
    del no_qa["qa"]
    root = write_finqa(tmp_path / "FinQA", [
        finqa_record("ACME/1"), finqa_record("ACME/2", answer="", exe_ans=None), no_qa,
        "not a record", finqa_record("ACME/5") | {"table": [["a"], "row"]}])
    imported, skipped = read(root)
    assert [r.item.base_id for r in imported] == ["finqa-ACME-1"]
    assert [(s.where, s.why) for s in skipped] == [
        ("dataset/test.json: id ACME/2", "no answer (qa.answer and qa.exe_ans are empty: the "
                                         "private test split?)"),
        ("dataset/test.json: id ACME/3", "qa is not an object with a question"),
        ("dataset/test.json: id record 3", "expected an object, found a text"),
        ("dataset/test.json: id ACME/5", "table is not a list of rows")]


def test_a_release_whose_every_record_is_malformed_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_finqa(tmp_path / "FinQA", [finqa_record("ACME/1", answer="", exe_ans="")])
    capsys.readouterr()
    assert main(["augment", str(root), "--variants", "web", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gen: error: ")
    assert "no record to augment (finqa): all 1 record(s) skipped: 1 like " \
           "dataset/test.json: id ACME/1: no answer" in err
    assert not (tmp_path / "o").exists()


# -- gen augment (images) -----------------------------------------------------------------------


@pytest.mark.slow
def test_gen_augment_shows_each_release_in_a_variant_and_verify_agrees(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hitab = write_hitab(tmp_path / "HiTab", [hitab_sample("s1")])
    finqa = write_finqa(tmp_path / "FinQA", [finqa_record("ACME/1")])
    for source in (hitab, finqa):
        out = tmp_path / f"{source.name}-variants"
        assert main(["augment", str(source), "--variants", "web", "--out", str(out)]) == 0
        assert main(["verify", str(out), "--source", str(source)]) == 0
    capsys.readouterr()
    (item,) = [json.loads(line) for line in
               (tmp_path / "HiTab-variants" / "items.jsonl").read_text().splitlines()]
    assert item["inputs"]["table"]["header_rows"] == 2
    cells = {(c["row"], c["col"]): c for c in item["images"][0]["render"]["cells"]}
    assert len(cells) == 6 * 5  # every logical cell once, covered ones with their cell's box
    assert cells[(0, 1)]["box"] == cells[(0, 2)]["box"] and cells[(0, 1)]["text"] == "2019"
    assert cells[(0, 1)]["box"][2] > cells[(1, 1)]["box"][2]  # the year spans its two columns
    assert cells[(0, 0)]["box"] == cells[(1, 0)]["box"]  # the corner spans the header rows


def test_hostile_hitab_and_finqa_records_cost_only_themselves(tmp_path: Path) -> None:
    root = write_hitab(tmp_path / "HiTab", [
        hitab_sample("s1"), hitab_sample("s2", table_id="../../secret"),
        hitab_sample("s3", table_id="link"), hitab_sample("s4", question="how \udcff many?")])
    samples = root / "data" / "dev_samples.jsonl"
    samples.write_bytes(samples.read_bytes().replace(b"how \\udcff many", b"how \xff many"))
    (root / "data" / "tables" / "raw" / "link.json").symlink_to(
        root / "data" / "tables" / "raw" / "t1.json")
    imported, skipped = read(root)
    assert [r.item.base_id for r in imported] == ["hitab-s1"]
    assert [(s.where, s.why) for s in skipped] == [
        ("data/dev_samples.jsonl:2", "id 's2': table_id '../../secret' is not a plain file name"),
        ("data/dev_samples.jsonl:3", "id 's3': table file tables/raw/link.json is a symbolic "
                                     "link"),
        ("data/dev_samples.jsonl:4", "not UTF-8: byte 0xff at column 76")]
    finqa = write_finqa(tmp_path / "FinQA", [finqa_record("ACME/1"),
                                             finqa_record("ACME/2", question="how \udcff?")])
    data = finqa / "dataset" / "test.json"
    data.write_bytes(data.read_bytes().replace(b"how \\udcff?", b"how \xff?"))
    imported, skipped = read(finqa)
    assert [r.item.base_id for r in imported] == ["finqa-ACME-1"]
    assert [(s.where, s.why) for s in skipped] == [
        ("dataset/test.json: id ACME/2", "qa.question: not UTF-8: byte 0xff at character 5")]


def test_markup_tasks_and_prompts_read_a_hitab_table_under_one_header_row(
        tmp_path: Path) -> None:
    from hopvista.eval.prompts import table_json
    from hopvista.markup_tasks.tables import imported_tables
    from hopvista.rng import Streams

    named = json.loads(json.dumps(HITAB_TABLE))
    named["merged_regions"] = named["merged_regions"][:2]
    root = write_hitab(tmp_path / "bare", [hitab_sample("s1")], tables={"t1": named})
    cells = imported_tables(root, None).draw(Streams(0, "t", "v"), 0).cells
    # HiTab's corner above the row labels is mostly empty: no task names it, so it is kept
    assert cells[0] == ("", "2019 / men", "2019 / women", "2020 / men", "2020 / women")

    named["texts"][0][0] = "group"  # a corner with a name: every column has a header
    root = write_hitab(tmp_path / "HiTab", [hitab_sample("s1")], tables={"t1": named})
    cells = imported_tables(root, None).draw(Streams(0, "t", "v"), 0).cells
    assert cells[0] == ("group", "2019 / men", "2019 / women", "2020 / men", "2020 / women")
    assert [row[0] for row in cells[1:]] == ["all workers", "full-time", "part-time",
                                             "self-employed"]
    (record,), _ = read(root)
    rows = json.loads(table_json(record.item) or "")
    assert rows[1] == {"group": "full-time", "2019 / men": "60", "2019 / women": "70",
                       "2020 / men": "80", "2020 / women": "90"}
