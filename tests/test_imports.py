"""Readers of existing datasets (hopvista.sources.imports): every registered format has a
sample in its release layout under tests/data/imports/<format>/, read here record by record."""

from __future__ import annotations

import json
import re
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from hopvista.errors import UserError
from hopvista.model import GridTable, Item
from hopvista.model.answers import normalise_text, read_number
from hopvista.sources.imports import (
    IMPORTERS,
    Imported,
    Protected,
    Skipped,
    detect_format,
    read_records,
)
from hopvista.sources.imports import protect as P
from hopvista.sources.imports.fcmr import parse_answer
from hopvista.sources.imports.html import plain_text, table_grid
from hopvista.sources.imports.tables import TableError, from_markdown, grid
from hopvista.sources.imports.wtq import parse_csv, unescape_tsv

DATA = Path(__file__).parent / "data" / "imports"

# Per format: the sample to read, the good records (base id -> kind, answer type, answer, and
# one cell (row, col) that must be protected), and the bad ones (where -> words of why).
SAMPLES: dict[str, dict[str, Any]] = {
    "wtq": {
        "input": "wtq",
        "good": {
            "wtq-nt-0": ("table_qa", "number", 7, (1, 2)),
            "wtq-nt-1": ("table_qa", "list", ["Lions", "Tigers"], (2, 1)),
            "wtq-nt-2": ("table_qa", "text", "Champions", (2, 3)),
            "wtq-nt-3": ("table_qa", "number", 1234, (2, 2)),
            "wtq-nt-6": ("table_qa", "text", 'Bears "Big"', (3, 1)),
            "wtq-nt-7": ("table_qa", "text", "C:\\Path", (4, 1)),
            "wtq-nu-0": ("table_qa", "number", 2003, (3, 0)),
        },
        "skipped": {"data/training.tsv:6": "fields", "data/training.tsv:7": "not found"},
    },
    "tabfact": {
        "input": "tabfact",
        "good": {
            "tabfact-2-1859269-1-html-csv-0": ("table_qa", "boolean", True, (1, 0)),
            "tabfact-2-1859269-1-html-csv-1": ("table_qa", "boolean", False, (2, 0)),
            "tabfact-2-1859269-3-html-csv-0": ("table_qa", "boolean", True, (1, 1)),
        },
        "skipped": {
            "collected_data/r1_training_all.json: id 2-1000000-1.html.csv": "not found",
            "collected_data/r1_training_all.json: id 2-1859269-2.html.csv": "one label",
            "collected_data/r1_training_all.json: id 2-1859269-3.html.csv#1": "0 or 1",
        },
    },
    "tatqa": {
        "input": "tatqa",
        "good": {
            "tatqa-q-1": ("table_qa", "number", 1496.5, (1, 1)),
            "tatqa-q-2": ("table_qa", "number", 22.3, (2, 2)),
            "tatqa-q-3": ("table_qa", "list", ["2019", "2018"], (0, 2)),
            "tatqa-q-4": ("table_qa", "number", 3, (3, 1)),
            "tatqa-q-6": ("table_qa", "text", "Revenue", (1, 0)),
        },
        "skipped": {"tatqa_dataset_dev.json: id q-5": "answer_type",
                    "tatqa_dataset_dev.json: id context 1": "table"},
    },
    "fcmr": {
        "input": "fcmr",
        "good": {
            "fcmr-easy-1": ("three_statement", "indices", [1, 3], (1, 0)),
            "fcmr-easy-2": ("three_statement", "indices", [], (1, 0)),
            "fcmr-hard-7": ("three_statement", "indices", [1, 2, 3], (2, 3)),
        },
        "skipped": {"easy_data.csv:4": "chart_3.png not found", "easy_data.csv:5": "'4'"},
    },
    "finqa": {
        "input": "finqa",
        "good": {
            "finqa-ACME-2019-page_10-pdf-1": ("table_qa", "text", "20%", (1, 2)),
            "finqa-ACME-2019-page_10-pdf-2": ("table_qa", "number", 550, (2, 2)),
            "finqa-ACME-2019-page_10-pdf-4": ("table_qa", "text", "yes", (1, 1)),
        },
        "skipped": {"dataset/test.json: id ACME/2019/page_10.pdf-3": "no answer",
                    "dataset/test.json: id ACME/2019/page_11.pdf-1": "table is not a list"},
    },
    "hitab": {
        "input": "hitab",
        "good": {
            "hitab-s1": ("table_qa", "number", 90, (3, 4)),
            "hitab-s2": ("table_qa", "number", 45, (5, 1)),
            "hitab-s4": ("table_qa", "text", "all workers", (2, 0)),
        },
        "skipped": {"data/dev_samples.jsonl:3": "tables/raw/t9.json not found",
                    "data/dev_samples.jsonl:5": "answer is not a list"},
    },
    "jsonl": {
        "input": "jsonl/questions.jsonl",
        "good": {
            "jsonl-r1": ("table_qa", "number", 1234, (1, 1)),
            "jsonl-h1": ("table_qa", "list", ["Oslo", "Bergen"], (2, 1)),
            "jsonl-m1": ("table_qa", "boolean", True, (1, 0)),
            "jsonl-4": ("table_qa", "text", "Bergen", (2, 0)),
            "jsonl-r1-2": ("table_qa", "number", 285, (2, 1)),
            "jsonl-a-b-c-d": ("table_qa", "text", "4", (2, 2)),
        },
        "skipped": {"questions.jsonl:5": "give one", "questions.jsonl:6": "truncated JSON"},
    },
}

HOSTILE = re.compile(r"<\s*[A-Za-z/!?]|onerror|javascript|alert\(|color:\s*red", re.I)
FORMATS = IMPORTERS.names()


def read(name: str) -> tuple[list[Imported], list[Skipped]]:
    found, records = read_records(DATA / SAMPLES[name]["input"])
    assert found == name
    records = list(records)
    return ([r for r in records if isinstance(r, Imported)],
            [r for r in records if isinstance(r, Skipped)])


def all_texts(item: Item) -> list[str]:
    table = item.inputs.table
    assert isinstance(table, GridTable)
    cells = [c for row in (table.header, *table.rows) for c in row]
    return [*cells, table.caption or "", *(chunk.text for chunk in item.inputs.text)]


def test_every_importer_has_a_sample() -> None:
    """Registering a format without a sample here fails: each reader is tested by being
    added."""
    assert set(FORMATS) == set(SAMPLES)
    for name in FORMATS:
        assert (DATA / SAMPLES[name]["input"]).exists(), name


@pytest.mark.parametrize("name", FORMATS)
def test_the_sample_is_detected_as_its_format_only(name: str) -> None:
    sample = DATA / SAMPLES[name]["input"]
    assert detect_format(sample) == name
    assert [other for other, imp in IMPORTERS.items() if imp.detect(sample)] == [name]


@pytest.mark.parametrize("name", FORMATS)
def test_good_records_import_with_kind_answer_and_table(name: str) -> None:
    imported, _ = read(name)
    expected = SAMPLES[name]["good"]
    assert [r.item.base_id for r in imported] == list(expected)
    for record in imported:
        item = record.item
        kind, answer_type, answer, _ = expected[item.base_id]
        assert (item.kind, item.answer_type, item.answer) == (kind, answer_type, answer)
        assert item.domain == name and item.variant.name == "base"
        assert item.provenance.generator == f"import:{name}" and item.provenance.source
        table = item.inputs.table
        assert isinstance(table, GridTable) and table.rows
        assert all(len(row) == len(table.header) for row in table.rows)
        assert Item.model_validate(json.loads(item.model_dump_json())) == item


@pytest.mark.parametrize("name", FORMATS)
def test_bad_records_are_skipped_with_their_place(name: str) -> None:
    _, skipped = read(name)
    expected = SAMPLES[name]["skipped"]
    assert [s.where for s in skipped] == list(expected)
    for s in skipped:
        assert expected[s.where] in s.why and "\n" not in s.why


@pytest.mark.parametrize("name", FORMATS)
def test_ids_are_unique_and_valid(name: str) -> None:
    imported, _ = read(name)
    ids = [r.item.id for r in imported]
    assert len(set(ids)) == len(ids)
    for r in imported:
        assert re.fullmatch(r"[A-Za-z0-9_-]+", r.item.base_id)
        assert r.item.id == f"{r.item.base_id}.base"
        assert r.item.base_id.startswith(f"{name}-")


@pytest.mark.parametrize("name", FORMATS)
def test_protected_cells_hold_the_answer_and_give_a_reason(name: str) -> None:
    imported, _ = read(name)
    for record in imported:
        table = record.item.inputs.table
        assert isinstance(table, GridTable)
        where = {(p.row, p.col) for p in record.protected}
        assert SAMPLES[name]["good"][record.item.base_id][3] in where, record.item.id
        assert len(where) == len(record.protected)
        for p in record.protected:
            assert p.why and 0 <= p.row <= len(table.rows) and 0 <= p.col < len(table.header)
        answer = record.item.answer
        if record.item.kind == "table_qa" and not isinstance(answer, bool):
            every = [Protected(r, c, "") for r, c, _ in P.cells(table)]
            for value in answer if isinstance(answer, list) else [answer]:
                if any(_matches(_cell(table, p), value) for p in every):  # not a computed one
                    assert any(_matches(_cell(table, p), value) for p in record.protected)


def _cell(table: GridTable, p: Protected) -> str:
    return (table.header, *table.rows)[p.row][p.col]


def _matches(cell: str, value: Any) -> bool:
    number = read_number(value)
    if number is not None and abs(number) in P.numbers_in(cell):
        return True
    return normalise_text(str(value)) in normalise_text(cell)


@pytest.mark.parametrize("name", FORMATS)
def test_no_html_survives(name: str) -> None:
    imported, _ = read(name)
    for record in imported:
        for text in all_texts(record.item):
            assert not HOSTILE.search(text), (record.item.id, text)


# -- format details ---------------------------------------------------------------------------

def test_wtq_escapes_and_the_csv_table_version() -> None:
    assert unescape_tsv(r"a\pb\nc\\d") == "a|b\nc\\d"
    assert parse_csv('"a\\"b","c\\\\d","e\\nf"\n"x\ny",z\r\n\n') == [
        ['a"b', "c\\d", "e\nf"], ["x\ny", "z"]]
    with pytest.raises(ValueError):
        parse_csv('"open')
    imported, _ = read("wtq")
    first = imported[0].item
    assert first.question == "how many wins did the lions have in 2001?"
    table = first.inputs.table
    assert isinstance(table, GridTable)
    assert table.rows[2] == ("2003", 'Bears "Big"', "8", "line one\nline two")
    assert table.rows[1][3] == "Champions"  # the <script> is gone with its content
    assert imported[5].item.question == "what is the team a|b?"
    # random-split-1-train.tsv repeats training.tsv and is not read from the folder
    assert sum(r.item.provenance.source.startswith("data/training.tsv") for r in imported) == 6


def test_wtq_reads_one_question_file() -> None:
    name, records = read_records(DATA / "wtq" / "data" / "random-split-1-train.tsv")
    got = list(records)
    assert name == "wtq" and len(got) == 1 and isinstance(got[0], Imported)
    assert got[0].item.provenance.source == "random-split-1-train.tsv:2"


def test_tabfact_question_and_file_input() -> None:
    imported, _ = read("tabfact")
    item = imported[0].item
    assert item.question == ('Is the following statement true of the table? '
                             '"the lions won 7 games in 2001"')
    assert isinstance(item.inputs.table, GridTable)
    assert item.inputs.table.caption == "1999 regional league"
    assert item.provenance.source == "collected_data/r1_training_all.json#2-1859269-1.html.csv/0"
    name, records = read_records(DATA / "tabfact/collected_data/r1_training_all.json")
    assert name == "tabfact"
    again = [r.item for r in records if isinstance(r, Imported)]
    assert [i.id for i in again] == [r.item.id for r in imported]


def test_tatqa_paragraphs_scale_and_derivation() -> None:
    imported, _ = read("tatqa")
    by_id = {r.item.base_id: r for r in imported}
    q1 = by_id["tatqa-q-1"].item
    assert q1.question == "What was the revenue in 2019? (Answer in millions.)"
    assert q1.provenance.model_extra and \
        q1.provenance.model_extra["fields"]["question"] == "What was the revenue in 2019?"
    assert [(c.entity, c.chunk, c.section, c.period) for c in q1.inputs.text] == [
        ("t-1", "p-1", "paragraph", 0), ("t-1", "p-2", "paragraph", 0)]
    assert q1.inputs.text[0].text == "Revenue grew in 2019 as sales rose."
    assert by_id["tatqa-q-3"].item.question == "Which years are shown?"
    whys = {(p.row, p.col): p.why for p in by_id["tatqa-q-2"].protected}
    assert "derivation" in whys[(2, 2)] or "row" in whys[(2, 2)]
    assert (2, 1) in whys and (2, 2) in whys


def test_fcmr_statements_chart_and_fields() -> None:
    imported, _ = read("fcmr")
    first = imported[0]
    item = first.item
    assert first.chart_image is not None and first.chart_image.name == "chart_1.png"
    assert first.chart_image.is_file()
    assert [s.label for s in item.statements] == [True, False, True]
    assert all(s.program is None and s.type == "imported" for s in item.statements)
    assert "1. Alpha Corp had revenue above 100 in 2020." in item.question
    assert (item.difficulty, item.hops) == ("easy", 1)
    assert item.provenance.model_extra
    fields = item.provenance.model_extra["fields"]
    assert fields["chart_column"] == "total_assets" and fields["source"] == "10-K 2020"
    assert [c.chunk for c in item.inputs.text] == ["anchor_table_test_1_text#1",
                                                   "anchor_table_test_1_text#2"]
    hard = imported[2].item
    assert hard.statements[0].modalities == ("text", "table", "chart")


@pytest.mark.parametrize(("text", "indices"), [
    ("1, 3", [1, 3]), ("[1, 3]", [1, 3]), ("1,2,3", [1, 2, 3]), ("none", []), ("None", []),
    ("[]", []), ("(2)", [2]), ("3 1", [1, 3]), ("1 and 2", [1, 2]), ("'1, 3'", [1, 3]),
    ("[none]", [])])
def test_fcmr_answers_accepted(text: str, indices: list[int]) -> None:
    assert parse_answer(text) == indices


@pytest.mark.parametrize("text", ["", "4", "1, 1", "0", "one", "1.5", "true"])
def test_fcmr_answers_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_answer(text)


def test_jsonl_tables() -> None:
    imported, _ = read("jsonl")
    by_id = {r.item.base_id: r.item for r in imported}
    html = by_id["jsonl-h1"].inputs.table
    assert isinstance(html, GridTable)
    assert html.caption == "Cities"
    assert html.header == ("Country", "City", "City")
    assert html.rows == (("Norway", "Oslo", "port"), ("Norway", "Bergen", "port"))
    ragged = by_id["jsonl-a-b-c-d"].inputs.table
    assert isinstance(ragged, GridTable)
    assert ragged.header == ("A", "B", "C", "") and ragged.rows[0] == ("1", "", "", "")
    given = by_id["jsonl-r1-2"].inputs.table
    assert isinstance(given, GridTable)
    assert (given.header, given.caption) == (("City", "People"), "Norway")
    r1 = by_id["jsonl-r1"]
    assert [c.text for c in r1.inputs.text] == ["Oslo is the capital.", "Bergen is wet."]
    assert r1.provenance.model_extra and r1.provenance.model_extra["fields"] == {
        "id": "r1", "split": "dev"}


def test_hostile_html_is_reduced_to_text() -> None:
    rows, caption = table_grid(
        "<p>x</p><table><tr><th>a<script>alert(1)</script></th><th>b</th></tr>"
        "<tr><td><img src=x onerror=alert(1)></td><td><a href='javascript:alert(1)'>go</a>"
        "<!-- c --><style>p{}</style></td></tr><tr><td colspan=9>wide</td></tr></table>")
    assert rows == [["a", "b", "", "", "", "", "", "", ""], ["", "go", "", "", "", "", "", "", ""],
                    ["wide"] * 9] and caption is None
    assert plain_text("&lt;script&gt;alert(1)&lt;/script&gt;ok") == "ok"
    assert plain_text("a < b and c > d") == "a < b and c > d"
    assert plain_text("AT&amp;T") == "AT&T"
    with pytest.raises(ValueError):
        table_grid("<p>no table</p>")


def test_markdown_and_grid_shapes() -> None:
    table = from_markdown("| a | b \\| c |\n| --- | :-: |\n| 1 | 2 |\n| 3 |")
    assert table.header == ("a", "b | c") and table.rows == (("1", "2"), ("3", ""))
    with pytest.raises(TableError):
        from_markdown("a, b\n1, 2")
    with pytest.raises(TableError):
        grid([])


# -- whole-input problems ---------------------------------------------------------------------

def test_whole_input_problems_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        read_records(tmp_path / "absent")
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    with pytest.raises(UserError, match=r"notes\.txt: not a dataset in any known format"):
        read_records(notes)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(UserError, match="broken.json"):
        detect_format(broken)
    with pytest.raises(UserError, match="unknown import format 'nope'"):
        read_records(DATA / "wtq", "nope")
    with pytest.raises(UserError, match=r"wtq: TAT-QA: no tatqa_dataset_\*.json file"):
        read_records(DATA / "wtq", "tatqa")
    with pytest.raises(UserError, match="no TabFact tables folder"):
        alone = tmp_path / "r1.json"
        shutil.copy(DATA / "tabfact/collected_data/r1_training_all.json", alone)
        read_records(alone, "tabfact")


def test_jsonl_with_a_broken_first_line_is_still_jsonl(tmp_path: Path) -> None:
    lines = (DATA / "jsonl/questions.jsonl").read_text().splitlines()
    sample = tmp_path / "q.jsonl"
    sample.write_text("\n".join(["{oops", "", *lines[:2]]) + "\n")
    name, records = read_records(sample)
    got = list(records)
    assert name == "jsonl" and got[0] == Skipped("q.jsonl:1", got[0].why)
    assert [r.item.base_id for r in got[1:] if isinstance(r, Imported)] == ["jsonl-r1",
                                                                           "jsonl-h1"]


@pytest.mark.parametrize("name", FORMATS)
def test_reading_twice_gives_the_same_records(name: str) -> None:
    assert read(name) == read(name)


def test_a_missing_table_folder_skips_only_its_records(tmp_path: Path) -> None:
    shutil.copytree(DATA / "fcmr", tmp_path / "fcmr")
    (tmp_path / "fcmr/easy_test_table_modality/table_modality_2.csv").unlink()
    _, records = read_records(tmp_path / "fcmr")
    got = list(records)
    skipped = [r for r in got if isinstance(r, Skipped)]
    assert skipped[0] == Skipped("easy_data.csv:3", "table file "
                                 "easy_test_table_modality/table_modality_2.csv not found")
    assert sum(isinstance(r, Imported) for r in got) == 2


def _fcmr_release(root: Path, nested: tuple[str, ...] = ("easy", "hard")) -> Path:
    """The FCMR sample laid out as its repository publishes it: ``dataset/<level>/`` holding
    ``<level>_data.csv`` beside that level's table, text and chart folders (levels not in
    ``nested`` stay flat at ``root``)."""
    sample = DATA / "fcmr"
    for level in ("easy", "hard"):
        home = root / "dataset" / level if level in nested else root
        home.mkdir(parents=True, exist_ok=True)
        for part in sample.iterdir():
            if part.name.startswith(level):
                (shutil.copytree if part.is_dir() else shutil.copy)(part, home / part.name)
        if not (home / "chart_images").exists():
            shutil.copytree(sample / "chart_images", home / "chart_images")
    return root


@pytest.mark.parametrize(("given", "ids", "where"), [
    ("", ["fcmr-easy-1", "fcmr-easy-2", "fcmr-hard-7"], "dataset/easy/easy_data.csv:4"),
    ("dataset", ["fcmr-easy-1", "fcmr-easy-2", "fcmr-hard-7"], "easy/easy_data.csv:4"),
    ("dataset/easy", ["fcmr-easy-1", "fcmr-easy-2"], "easy_data.csv:4"),
    ("dataset/hard/hard_data.csv", ["fcmr-hard-7"], None),
])
def test_fcmr_release_as_published_is_read_from_its_root_dataset_or_level_folder(
        tmp_path: Path, given: str, ids: list[str], where: str | None) -> None:
    root = _fcmr_release(tmp_path / "FCMR")
    name, records = read_records(root / given if given else root)
    got = list(records)
    assert name == "fcmr"
    flat = {r.item.base_id: r.item for r in read("fcmr")[0]}
    imported = [r for r in got if isinstance(r, Imported)]
    assert [r.item.base_id for r in imported] == ids
    for record in imported:  # the same items as the flat layout's, the chart beside its level
        assert record.item.model_dump(exclude={"provenance"}) == \
            flat[record.item.base_id].model_dump(exclude={"provenance"})
        assert record.chart_image is not None and \
            record.chart_image.parent.parent.name == record.item.difficulty
    skipped = [r.where for r in got if isinstance(r, Skipped)]
    assert (skipped[0] if skipped else None) == where


def test_fcmr_levels_may_mix_flat_and_nested_folders(tmp_path: Path) -> None:
    root = _fcmr_release(tmp_path / "mixed", nested=("hard",))
    assert detect_format(root) == "fcmr"
    _, records = read_records(root)
    got = list(records)
    assert [r.item.base_id for r in got if isinstance(r, Imported)] == [
        "fcmr-easy-1", "fcmr-easy-2", "fcmr-hard-7"]
    assert got[0].item.provenance.source == "easy_data.csv:2"  # type: ignore[union-attr]
    assert got[-1].item.provenance.source == "dataset/hard/hard_data.csv:2"  # type: ignore[union-attr]


def test_a_folder_without_fcmr_levels_says_where_it_looked(tmp_path: Path) -> None:
    (tmp_path / "dataset" / "easy").mkdir(parents=True)
    with pytest.raises(UserError, match=r"FCMR: no easy_data.csv, medium_data.csv or "
                                        r"hard_data.csv in the folder, in its level folders "
                                        r"or in dataset/<level>/"):
        read_records(tmp_path, "fcmr")


# -- protected-cell inference (protect.py) ----------------------------------------------------

TABLE = GridTable(header=("Team", "Year", "Points"),
                  rows=(("Lions", "2013", "1,234"), ("Tigers", "2014", "3"),
                        ("Bears", "2015", "12.50")))


def cells_of(found: list[Protected] | tuple[Protected, ...]) -> set[tuple[int, int]]:
    return {(p.row, p.col) for p in found}


def test_answer_cells_compare_numbers_and_whole_words() -> None:
    assert cells_of(P.answer_cells(TABLE, 1234)) == {(1, 2), (0, 2)}
    assert cells_of(P.answer_cells(TABLE, "1234")) == {(1, 2), (0, 2)}
    assert cells_of(P.answer_cells(TABLE, "12.5")) == {(3, 2), (0, 2)}
    assert cells_of(P.answer_cells(TABLE, 3)) == {(2, 2), (0, 2)}  # not "2013"
    assert cells_of(P.answer_cells(TABLE, ["lions", "Bears"])) == {(1, 0), (3, 0), (0, 0)}
    assert P.answer_cells(TABLE, True) == []
    assert all("answer" in p.why for p in P.answer_cells(TABLE, "Tigers"))


def test_named_rows_and_columns_include_headers() -> None:
    assert cells_of(P.named_rows(TABLE, "How many points did the Tigers score?")) == {
        (2, 0), (2, 1), (2, 2)}
    assert cells_of(P.named_columns(TABLE, "Which year was best?")) == {
        (0, 1), (1, 1), (2, 1), (3, 1)}
    assert "('Year')" in P.named_columns(TABLE, "which year")[0].why


def test_derivation_and_mentioned_cells() -> None:
    assert cells_of(P.derivation_cells(TABLE, "(1,234 - 3) / 3")) == {(1, 2), (2, 2)}
    assert cells_of(P.derivation_cells(TABLE, "1234-12.5")) == {(1, 2), (3, 2)}
    found = P.mentioned_cells(TABLE, "the bears scored in 2015")
    assert cells_of(found) == {(3, 0), (3, 1), (3, 2)}
    assert numbers_equal(P.numbers_in("$1,234.5 and (12)"), {Decimal("1234.5"), Decimal(12)})


def numbers_equal(a: set[Decimal], b: set[Decimal]) -> bool:
    return a == b


def test_merge_keeps_first_reason_and_falls_back_to_the_whole_table() -> None:
    merged = P.protect_answer(TABLE, "How many points did the Lions get?", 1234)
    assert cells_of(merged) == {(1, 0), (1, 1), (1, 2), (0, 2), (2, 2), (3, 2)}
    assert [(p.row, p.col) for p in merged] == sorted(cells_of(merged))
    assert next(p for p in merged if (p.row, p.col) == (1, 2)).why.startswith("matches")
    nothing = P.protect_answer(TABLE, "Who knows?", "unrelated")
    assert len(nothing) == 12 and "whole table" in nothing[0].why
    three = P.protect_statements(TABLE, ["The Lions lead.", "Points rose.", "None."])
    assert cells_of(three) == {(1, 0), (1, 1), (1, 2), (0, 2), (2, 2), (3, 2)}
    claim = P.protect_claim(TABLE, "tigers had 3 points in 2014")
    assert {(2, 0), (2, 1), (2, 2), (0, 2)} <= cells_of(claim)
