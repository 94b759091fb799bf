"""`gen augment` on existing datasets a hostile user made: a bad record costs only itself and
says where and why, parse errors name the format and the place, and nothing crashes.

Every release here is a tiny hand-written folder in ``tmp_path``. Readers are called directly
where the behaviour is theirs; ``gen augment`` runs in-process where the behaviour is the
command's (errors before any drawing are quick; a run that draws variants needs Chromium and
is in the slow tier, one per format)."""

from __future__ import annotations

import json
import os
import random
import re
import struct
import zlib
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from hopvista.cli.main import main
from hopvista.sources.imports import Imported, Skipped, read_records
from hopvista.sources.imports.html import plain_text, table_grid

# -- tiny releases ----------------------------------------------------------------------------

TABLE = [["City", "Population"], ["Oslo", "1,234"], ["Bergen", "285"]]
QUESTION = "What is the population of Oslo?"
LINE_SEPARATORS = ["\u2028", "\u2029", "\x85", "\v", "\f", "\x1c", "\x1d", "\x1e"]
"""Characters ``str.splitlines`` splits at that are not line breaks of a JSON or TSV file."""


def jsonl_record(record_id: str, **changes: Any) -> dict[str, Any]:
    return {"id": record_id, "question": QUESTION, "answer": "1,234",
            "table": {"rows": TABLE}} | changes


def write_jsonl(path: Path, records: list[dict[str, Any] | bytes]) -> Path:
    lines = [r if isinstance(r, bytes) else json.dumps(r).encode() for r in records]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def write_wtq(root: Path, lines: list[bytes], table: bytes | None = None) -> Path:
    (root / "data").mkdir(parents=True)
    (root / "csv" / "200-csv").mkdir(parents=True)
    header = b"id\tutterance\tcontext\ttargetValue\n"
    (root / "data" / "training.tsv").write_bytes(header + b"\n".join(lines) + b"\n")
    (root / "csv" / "200-csv" / "0.csv").write_bytes(
        table or b'"Team","Wins"\n"Lions","7"\n"Tigers","5"\n')
    return root


def wtq_line(record_id: str, utterance: str = "how many wins did the lions have?",
             target: str = "7", context: str = "csv/200-csv/0.csv") -> bytes:
    return "\t".join([record_id, utterance, context, target]).encode()


def write_tabfact(root: Path, statements: bytes, table: bytes = b"team#wins\nlions#7\n"
                  ) -> Path:
    (root / "collected_data").mkdir(parents=True)
    (root / "data" / "all_csv").mkdir(parents=True)
    (root / "collected_data" / "r1_training_all.json").write_bytes(statements)
    (root / "data" / "all_csv" / "t-1.html.csv").write_bytes(table)
    return root


def tabfact_statements(*statements: str, labels: list[Any] | None = None) -> bytes:
    said = list(statements)
    return json.dumps({"t-1.html.csv": [said, labels or [1] * len(said), "a league"]}).encode()


def tatqa_question(uid: str, answer: Any = "10", **changes: Any) -> dict[str, Any]:
    return {"uid": uid, "order": 1, "question": "What was the revenue in 2019?",
            "answer": answer, "derivation": "", "answer_type": "span",
            "answer_from": "table", "rel_paragraphs": [], "req_comparison": False,
            "scale": ""} | changes


def tatqa_document(*questions: dict[str, Any], table: list[list[Any]] | None = None
                   ) -> dict[str, Any]:
    return {"table": {"uid": "t-1", "table": table or [["", "2019"], ["Revenue", "10"]]},
            "paragraphs": [{"uid": "p-1", "order": 1, "text": "Revenue rose."}],
            "questions": list(questions)}


def write_tatqa(root: Path, content: bytes) -> Path:
    root.mkdir(parents=True)
    (root / "tatqa_dataset_dev.json").write_bytes(content)
    return root


FCMR_HEADER = "anchor_num,filename,correct_answer,option1,option2,option3,chart_column"


def png(width: int = 8, height: int = 8) -> bytes:
    out = BytesIO()
    Image.new("RGB", (width, height), "white").save(out, format="PNG")
    return out.getvalue()


def noise_png() -> bytes:
    """A PNG of 200 x 200 random pixels (its data spans several kilobytes)."""
    out = BytesIO()
    pixels = random.Random(0).randbytes(200 * 200 * 3)
    Image.frombytes("RGB", (200, 200), pixels).save(out, format="PNG")
    return out.getvalue()


def jpeg() -> bytes:
    out = BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, format="JPEG")
    return out.getvalue()


def declared_png(width: int, height: int) -> bytes:
    """A small PNG file whose header declares ``width`` x ``height`` pixels (a bomb)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00" * (width + 1))) + chunk(b"IEND", b""))


def write_fcmr(root: Path, charts: dict[str, bytes | None], rows: list[bytes] | None = None
               ) -> Path:
    """An FCMR release with one row per chart (anchor n for the n-th); a chart of ``None``
    is not written."""
    for folder in ("easy_test_table_modality", "easy_test_text_modality_chunk", "chart_images"):
        (root / folder).mkdir(parents=True)
    lines = [FCMR_HEADER.encode()]
    for n, (name, data) in enumerate(charts.items(), start=1):
        (root / f"easy_test_table_modality/table_modality_{n}.csv").write_text(
            "Company,Revenue\nAlpha Corp,120\nBeta Inc,80\n")
        (root / f"easy_test_text_modality_chunk/anchor_table_test_{n}_text.txt").write_text(
            "Alpha Corp grew.\n\nBeta Inc did not.\n")
        if data is not None:
            (root / "chart_images" / name).write_bytes(data)
        lines.append(f'{n},{name},"1, 3",Alpha Corp had revenue above 100.,Beta Inc had the '
                     f'most revenue.,Alpha Corp had revenue of 120.,revenue'.encode())
    (root / "easy_data.csv").write_bytes(b"\n".join(lines + (rows or [])) + b"\n")
    return root


def records(path: Path, fmt: str | None = None) -> tuple[list[Imported], list[Skipped]]:
    found = list(read_records(path, fmt)[1])
    return ([r for r in found if isinstance(r, Imported)],
            [r for r in found if isinstance(r, Skipped)])


def augment_fails(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``gen augment ARGS`` exits 2 with one line on stderr; that line."""
    capsys.readouterr()
    assert main(["augment", *args, "--variants", "web"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gen: error: "), err
    assert len(err) < 2000, f"{len(err)} characters"
    return err


def items_of(out: Path) -> list[dict[str, Any]]:
    text = (out / "items.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


# -- 1. an invalid UTF-8 byte costs its record only -------------------------------------------


def test_an_invalid_byte_in_a_jsonl_skips_its_line_only(tmp_path: Path) -> None:
    lines: list[dict[str, Any] | bytes] = [jsonl_record(f"r{n}") for n in range(12)]
    lines[2] = json.dumps(jsonl_record("r2")).encode().replace(b"Oslo?", b"Oslo\xff?")
    imported, skipped = records(write_jsonl(tmp_path / "q.jsonl", lines))
    assert len(imported) == 11
    assert [(s.where, "not UTF-8" in s.why and "0xff" in s.why) for s in skipped] == [
        ("q.jsonl:3", True)]


def test_an_invalid_byte_on_the_first_line_does_not_hide_the_format(tmp_path: Path) -> None:
    lines: list[dict[str, Any] | bytes] = [b"{\"id\": \"\xe9\"}", jsonl_record("r1")]
    name, found = read_records(write_jsonl(tmp_path / "q.jsonl", lines))
    assert name == "jsonl" and len(list(found)) == 2


def test_an_invalid_byte_in_a_wtq_question_file_skips_its_line_only(tmp_path: Path) -> None:
    root = write_wtq(tmp_path / "wtq", [wtq_line("nt-0"),
                                        b"nt-1\thow many \xff wins?\tcsv/200-csv/0.csv\t7",
                                        wtq_line("nt-2")])
    imported, skipped = records(root)
    assert [r.item.base_id for r in imported] == ["wtq-nt-0", "wtq-nt-2"]
    assert [s.where for s in skipped] == ["data/training.tsv:3"] and "0xff" in skipped[0].why


def test_an_invalid_byte_in_a_tatqa_question_skips_that_question_only(tmp_path: Path) -> None:
    content = json.dumps([tatqa_document(tatqa_question("q-1"), tatqa_question("q-2"),
                                         tatqa_question("q-3"))]).encode()
    content = content.replace(b'"uid": "q-2", "order": 1, "question": "What',
                              b'"uid": "q-2", "order": 1, "question": "Wh\xfft')
    imported, skipped = records(write_tatqa(tmp_path / "tatqa", content))
    assert [r.item.base_id for r in imported] == ["tatqa-q-1", "tatqa-q-3"]
    assert [s.where for s in skipped] == ["tatqa_dataset_dev.json: id q-2"]
    assert "question" in skipped[0].why and "0xff" in skipped[0].why


def test_an_invalid_byte_in_a_tabfact_statement_skips_that_statement_only(
        tmp_path: Path) -> None:
    statements = tabfact_statements("lions won 7", "lions won BAD", "tigers lost")
    root = write_tabfact(tmp_path / "tf", statements.replace(b"BAD", b"\xc3("))
    imported, skipped = records(root)
    assert len(imported) == 2
    assert [s.where for s in skipped] == ["collected_data/r1_training_all.json: id "
                                          "t-1.html.csv#1"] and "not UTF-8" in skipped[0].why


def test_an_invalid_byte_in_an_fcmr_row_skips_that_row_only(tmp_path: Path) -> None:
    root = write_fcmr(tmp_path / "fcmr", {"c1.png": png(), "c2.png": png(), "c3.png": png()})
    data = (root / "easy_data.csv").read_bytes().replace(b"2,c2.png", b"2,c\xe92.png")
    (root / "easy_data.csv").write_bytes(data)
    imported, skipped = records(root)
    assert [r.item.base_id for r in imported] == ["fcmr-easy-1", "fcmr-easy-3"]
    assert [s.where for s in skipped] == ["easy_data.csv:3"] and "0xe9" in skipped[0].why


# -- 2. Unicode line separators stay inside their field ---------------------------------------


@pytest.mark.parametrize("separator", LINE_SEPARATORS)
def test_a_line_separator_in_a_wtq_utterance_and_cell_stays_in_it(tmp_path: Path,
                                                                    separator: str) -> None:
    utterance = f"how many wins did the{separator}lions have?"
    table = f'"Team","Wins"\n"Lions{separator}Club","7"\n"Tigers","5"\n'.encode()
    root = write_wtq(tmp_path / "wtq", [wtq_line("nt-0", utterance), wtq_line("nt-1")], table)
    imported, skipped = records(root)
    assert skipped == [] and len(imported) == 2
    item = imported[0].item
    assert item.question == utterance and item.answer == 7
    assert item.inputs.table is not None and item.inputs.table.rows[0][0] == f"Lions{separator}Club"


@pytest.mark.parametrize("separator", LINE_SEPARATORS)
def test_a_line_separator_stays_in_jsonl_and_tabfact_fields(tmp_path: Path,
                                                            separator: str) -> None:
    question = f"What is the{separator}population of Oslo?"
    markdown = f"| City | Note |\n|---|---|\n| Oslo | big{separator}city |\n| Bergen | wet |"
    path = write_jsonl(tmp_path / "q.jsonl", [
        jsonl_record("a", question=question), jsonl_record("b", table={"markdown": markdown},
                                                           answer="Oslo")])
    imported, skipped = records(path)
    assert skipped == [] and imported[0].item.question == question
    table = imported[1].item.inputs.table
    assert table is not None and table.rows == (("Oslo", f"big{separator}city"), ("Bergen", "wet"))
    root = write_tabfact(tmp_path / "tf", tabfact_statements("lions won 7"),
                         f"team#wins\nlions{separator}club#7\n".encode())
    imported, skipped = records(root)
    tabfact_table = imported[0].item.inputs.table
    assert skipped == [] and tabfact_table is not None
    assert tabfact_table.rows == ((f"lions{separator}club", "7"),)


# -- 3. numbers that no dataset can hold ------------------------------------------------------


def test_non_finite_and_huge_numbers_are_refused_with_the_record_id(tmp_path: Path) -> None:
    rows = json.dumps(TABLE)
    lines = [b'{"id": "nan", "question": "q?", "answer": NaN, "table": {"rows": %s}}',
             b'{"id": "inf", "question": "q?", "answer": Infinity, "table": {"rows": %s}}',
             b'{"id": "minf", "question": "q?", "answer": -Infinity, "table": {"rows": %s}}',
             b'{"id": "e999", "question": "q?", "answer": 1e999, "table": {"rows": %s}}',
             b'{"id": "digits", "question": "q?", "answer": ' + b"9" * 400
             + b', "table": {"rows": %s}}',
             b'{"id": "text", "question": "q?", "answer": "' + b"9" * 400 + b'.5", '
             b'"table": {"rows": %s}}',
             b'{"id": "huge", "question": "q?", "answer": ' + b"1" * 4301
             + b', "table": {"rows": %s}}',
             b'{"id": "cell", "question": "q?", "answer": 1, "table": {"rows": '
             b'[["a", "b"], ["x", NaN]]}}',
             b'{"id": "extra", "question": "q?", "answer": 1, "weight": -Infinity, '
             b'"table": {"rows": %s}}',
             json.dumps(jsonl_record("ok")).encode()]
    path = write_jsonl(tmp_path / "q.jsonl", [line.replace(b"%s", rows.encode())
                                              for line in lines])
    imported, skipped = records(path)
    assert [r.item.base_id for r in imported] == ["jsonl-ok"]
    ids = ["nan", "inf", "minf", "e999", "digits", "text", "huge", "cell", "extra"]
    assert [s.where for s in skipped] == [f"q.jsonl:{n}" for n in range(1, 10)]
    for record_id, skip in zip(ids, skipped, strict=True):
        assert f"id '{record_id}'" in skip.why and "number" in skip.why, skip
        assert len(skip.why) < 200


def test_refused_numbers_in_wtq_and_tatqa_answers_and_cells(tmp_path: Path) -> None:
    root = write_wtq(tmp_path / "wtq", [wtq_line("nt-0", target="9" * 400),
                                        wtq_line("nt-1")])
    imported, skipped = records(root)
    assert [r.item.base_id for r in imported] == ["wtq-nt-1"]
    assert "nt-0" in skipped[0].why and "400 digits" in skipped[0].why
    content = json.dumps([
        tatqa_document(tatqa_question("q-1", answer=[float("nan")]),
                       tatqa_question("q-2", answer=float("inf"), answer_type="arithmetic"),
                       tatqa_question("q-3")),
        tatqa_document(tatqa_question("q-4"), table=[["", "2019"], ["Revenue", float("-inf")]]),
    ]).encode()
    imported, skipped = records(write_tatqa(tmp_path / "tatqa", content))
    assert [r.item.base_id for r in imported] == ["tatqa-q-3"]
    assert [s.where for s in skipped] == ["tatqa_dataset_dev.json: id q-1",
                                          "tatqa_dataset_dev.json: id q-2",
                                          "tatqa_dataset_dev.json: id context 1"]
    assert all("finite" in s.why for s in skipped)


# -- 4. sanitised HTML keeps its visible text -------------------------------------------------


@pytest.mark.parametrize(("html", "shown"), [
    ("<object data='x.swf'></object> 1,234 people", "1,234 people"),
    ("<object data='x.swf'>fallback</object> after", "fallback after"),
    ("<object data='x.swf'><param name=a value=b> after", "after"),
    ("<embed src='x.swf'> 1,234 people", "1,234 people"),
    ("<embed src='x.swf'>1,234</embed> people", "1,234 people"),
    ("a<script>alert(1)</script>b", "ab"),
    ("a<style>td{color:red}</style>b", "ab"),
    ("a<iframe src='javascript:alert(1)'>inner</iframe>b", "ab"),
    ("a<svg onload=alert(1)><script>alert(2)</script></svg>b", "ab"),
    ("a<svg><text>42</text></svg>b", "a42b"),
    ("a<math><mi>x</mi><annotation>TeX</annotation></math>b", "axb"),
    ("a<template><b>t</b></template>b", "ab"),
    ("a<noscript>n</noscript>b", "ab"),
    ("a<!-- comment -->b", "ab"),
    ("a<![CDATA[x]]>b", "ab"),
    ("AT&amp;T &lt;script&gt;alert(1)&lt;/script&gt;", "AT&T"),
    ("<b><i>x</b>y</i>z", "xyz"),
    ("<html><body>x</body></html> y", "x y"),
    pytest.param("<b>" * 3000 + "deep", "deep", id="nested-3000-deep"),
    ("a<img src=x onerror=alert(1)>b", "ab"),
])
def test_sanitised_html_keeps_its_visible_text(html: str, shown: str) -> None:
    assert plain_text(html) == shown
    table = f"<table><tr><th>h</th></tr><tr><td>{html}</td></tr></table>"
    if html.count("<b>") > 1000:  # too deep for a table's structure: refused, not emptied
        with pytest.raises(ValueError, match="nested too deeply"):
            table_grid(table)
        return
    rows, _ = table_grid(table)
    assert rows[1] == [shown]


def test_an_embed_cell_followed_by_text_is_kept_in_a_jsonl_table(tmp_path: Path) -> None:
    html = ("<table><tr><th>City</th><th>Population</th></tr><tr><td>Oslo</td>"
            "<td><object data=x></object>1,234</td></tr><tr><td>Bergen</td>"
            "<td><embed src=x>285</td></tr></table>")
    imported, skipped = records(write_jsonl(tmp_path / "q.jsonl",
                                            [jsonl_record("h", table={"html": html})]))
    table = imported[0].item.inputs.table
    assert skipped == [] and table is not None
    assert table.rows == (("Oslo", "1,234"), ("Bergen", "285"))


# -- 5. named parse errors, with --format honoured --------------------------------------------


def test_a_tabfact_file_that_is_a_list_is_named(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r1.json"
    path.write_text('[["lions won 7"], [1], "caption"]')
    err = augment_fails(capsys, str(path), "--format", "tabfact", "--out", str(tmp_path / "o"))
    assert "r1.json: TabFact: expected an object" in err and "found a list" in err
    err = augment_fails(capsys, str(path), "--out", str(tmp_path / "o"))
    assert "not a dataset in any known format" in err and "TabFact: expected an object" in err


def test_a_tatqa_file_that_is_an_object_is_named(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"table": {}, "paragraphs": [], "questions": []}))
    err = augment_fails(capsys, str(path), "--format", "tatqa", "--out", str(tmp_path / "o"))
    assert "data.json: TAT-QA: expected a list of documents, found an object" in err


def test_truncated_json_is_named_with_its_place(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "data.json"
    path.write_text('[{"table": {"uid": "t"},\n  "paragraphs": [],\n  "ques')
    err = augment_fails(capsys, str(path), "--format", "tatqa", "--out", str(tmp_path / "o"))
    assert "data.json: TAT-QA: truncated JSON at line 3, column 8" in err
    err = augment_fails(capsys, str(path), "--out", str(tmp_path / "o"))
    assert "TabFact, TAT-QA: truncated JSON at line 3, column 8" in err


def test_invalid_utf8_is_named_with_its_place(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"id": "caf\xe9", "question": "q?"}\n')
    err = augment_fails(capsys, str(path), "--format", "jsonl", "--out", str(tmp_path / "o"))
    assert "latin.jsonl: JSONL:" in err and "line 1: not UTF-8: byte 0xe9 at column 12" in err
    tsv = write_wtq(tmp_path / "wtq", [wtq_line("nt-0")]) / "data" / "training.tsv"
    tsv.write_bytes(b"id\tutt\xe9rance\n")
    err = augment_fails(capsys, str(tsv), "--format", "wtq", "--out", str(tmp_path / "o"))
    assert "training.tsv: WikiTableQuestions:" in err and "byte 0xe9" in err


@pytest.mark.parametrize(("fmt", "write", "said"), [
    ("wtq", lambda p: (write_wtq(p, []) / "data" / "training.tsv").write_text("q\ta\n")
     and p, "WikiTableQuestions: data/training.tsv: line 1 is not the header"),
    ("fcmr", lambda p: (p.mkdir(), (p / "easy_data.csv").write_text("anchor_num,filename\n"),
                        p)[-1],
     "FCMR: easy_data.csv: the header (line 1) lacks the column(s) correct_answer"),
    ("jsonl", lambda p: write_jsonl(p.with_suffix(".jsonl"), [b"[1, 2]"]),
     "JSONL: r.jsonl: no record with a question and a table"),
    ("tatqa", lambda p: write_tatqa(p, b"[{\"questions\": []}]"),
     "TAT-QA: tatqa_dataset_dev.json: document 0 is not an object with table"),
    ("tabfact", lambda p: write_tabfact(p, b'{"t.csv": "nothing"}'),
     "TabFact: collected_data/r1_training_all.json: entry 't.csv' is not [statements"),
])
def test_every_format_names_what_its_reader_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str,
        write: Callable[[Path], Path], said: str) -> None:
    path = write(tmp_path / "r")
    err = augment_fails(capsys, str(path), "--format", fmt, "--out", str(tmp_path / "o"))
    assert said in err


# -- 6. every record skipped: say why ---------------------------------------------------------


def test_an_fcmr_release_whose_rows_are_all_skipped_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_fcmr(tmp_path / "fcmr", {"c1.png": None, "c2.png": None, "c3.png": b"GIF89a"},
                      rows=[b"4,c1.png,7,a,b,c,revenue"])
    err = augment_fails(capsys, str(root), "--out", str(tmp_path / "o"))
    assert "no record to augment (fcmr): all 4 record(s) skipped" in err
    assert "2 like easy_data.csv:2: chart image file chart_images/c1.png not found" in err
    assert "1 like easy_data.csv:4: chart image chart_images/c3.png is not a PNG image" in err
    assert "1 like easy_data.csv:5: correct_answer '7'" in err
    assert not (tmp_path / "o").exists()


def test_a_file_whose_every_record_is_skipped_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [jsonl_record("a", answer=None),
                                              b'{"id": "b", "question": "q?", "answer": NaN, '
                                              b'"table": {"rows": [["a"]]}}'])
    err = augment_fails(capsys, str(path), "--out", str(tmp_path / "o"))
    assert "no record to augment (jsonl): all 2 record(s) skipped" in err
    assert "q.jsonl:1: id 'a': answer is missing" in err and "q.jsonl:2: id 'b'" in err


# -- 7. no crash: long ids, huge cells, hostile chart images, special files -------------------


def test_a_5000_character_id_makes_a_short_unique_deterministic_base_id(
        tmp_path: Path) -> None:
    long_a, long_b = "a" * 5000, "a" * 4999 + "b"
    path = write_jsonl(tmp_path / "q.jsonl", [jsonl_record(long_a), jsonl_record(long_b),
                                              jsonl_record(long_a)])
    imported, skipped = records(path)
    ids = [r.item.base_id for r in imported]
    assert skipped == [] and len(set(ids)) == 3
    assert all(len(i) <= 90 and re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids)
    assert ids == [r.item.base_id for r in records(path)[0]]
    assert imported[0].item.provenance.model_extra is not None
    assert imported[0].item.provenance.model_extra["fields"]["id"] == long_a


def test_a_6_mb_cell_is_refused_with_a_short_message(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    big = [["City", "Population"], ["Oslo", "x" * 6_000_000]]
    path = write_jsonl(tmp_path / "q.jsonl", [jsonl_record("big", table={"rows": big}),
                                              jsonl_record("ok")])
    imported, skipped = records(path)
    assert [r.item.base_id for r in imported] == ["jsonl-ok"]
    assert skipped[0].where == "q.jsonl:1" and "row 1, column 2" in skipped[0].why
    assert len(skipped[0].why) < 200
    (tmp_path / "q.jsonl").write_text(json.dumps(jsonl_record("big", table={"rows": big})))
    err = augment_fails(capsys, str(path), "--out", str(tmp_path / "o"))
    assert "6,000,000 characters" in err


def test_a_huge_question_or_text_is_refused(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [
        jsonl_record("q", question="why? " * 200_000), jsonl_record("t", text=["w " * 600_000]),
        jsonl_record("ok")])
    imported, skipped = records(path)
    assert [r.item.base_id for r in imported] == ["jsonl-ok"]
    assert ["question" in skipped[0].why, "text" in skipped[1].why] == [True, True]


@pytest.mark.parametrize(("chart", "why"), [
    pytest.param(b"not a png at all", "is not a PNG image", id="text"),
    pytest.param(noise_png()[:4000], "cannot be read as a PNG image", id="truncated"),
    pytest.param(declared_png(30_000, 30_000), "declares 30,000 x 30,000 pixels", id="bomb"),
    pytest.param(declared_png(100_000, 1), "declares 100,000 x 1 pixels", id="too-wide"),
    pytest.param(jpeg(), "is not a PNG image", id="jpeg"),
])
def test_a_chart_image_that_is_not_a_readable_png_skips_its_row(tmp_path: Path,
                                                                chart: bytes, why: str
                                                                ) -> None:
    root = write_fcmr(tmp_path / "fcmr", {"good.png": png(), "bad.png": chart})
    imported, skipped = records(root)
    assert [r.item.base_id for r in imported] == ["fcmr-easy-1"]
    assert skipped[0].where == "easy_data.csv:3" and why in skipped[0].why


def test_a_chart_image_outside_the_release_or_a_symlink_skips_its_row(tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    outside.write_bytes(png())
    root = write_fcmr(tmp_path / "fcmr", {"good.png": png(), "link.png": None,
                                          "inner.png": None, "sub": None})
    (root / "chart_images" / "link.png").symlink_to(outside)
    (root / "chart_images" / "inner.png").symlink_to(root / "chart_images" / "good.png")
    (root / "chart_images" / "sub").symlink_to(tmp_path)
    imported, skipped = records(root)
    assert [r.item.base_id for r in imported] == ["fcmr-easy-1"]
    assert [s.why for s in skipped] == ["chart image file chart_images/link.png is a symbolic "
                                        "link", "chart image file chart_images/inner.png is a "
                                        "symbolic link", "chart image file chart_images/sub is "
                                        "a symbolic link"]


def test_a_table_file_outside_the_release_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text('"Password","x"\n"hunter2","1"\n')
    root = write_wtq(tmp_path / "wtq", [wtq_line("nt-0"), wtq_line("nt-1",
                                                                    context="csv/200-csv/1.csv"),
                                        wtq_line("nt-2", context="../secret.csv")])
    (root / "csv" / "200-csv" / "1.csv").symlink_to(secret)
    imported, skipped = records(root)
    assert [r.item.base_id for r in imported] == ["wtq-nt-0"]
    assert ["symbolic link" in skipped[0].why, "inside the dataset" in skipped[1].why] == [
        True, True]


def test_a_fifo_is_refused_without_waiting(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "q.jsonl"
    os.mkfifo(fifo)
    err = augment_fails(capsys, str(fifo), "--format", "jsonl", "--out", str(tmp_path / "o"))
    assert "q.jsonl: JSONL: q.jsonl: not a regular file" in err
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "a.jsonl")
    write_jsonl(folder / "b.jsonl", [jsonl_record("ok")])
    imported, skipped = records(folder, "jsonl")
    assert [r.item.base_id for r in imported] == ["jsonl-ok"]
    assert skipped == [Skipped("a.jsonl", "unreadable: not a regular file")]


def test_json_nested_too_deeply_or_lone_surrogates_skip_their_record(tmp_path: Path) -> None:
    deep = b'{"id": "deep", "question": "q?", "answer": 1, "x": ' + b"[" * 100_000 + b"]" * \
        100_000 + b', "table": {"rows": [["a"]]}}'
    lone = b'{"id": "lone", "question": "q\\ud800?", "answer": 1, "table": {"rows": [["a"]]}}'
    path = write_jsonl(tmp_path / "q.jsonl", [deep, lone, jsonl_record("ok")])
    imported, skipped = records(path)
    assert [r.item.base_id for r in imported] == ["jsonl-ok"]
    assert "nested" in skipped[0].why and "surrogate U+D800" in skipped[1].why


def test_a_long_variant_name_is_refused(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", [jsonl_record("ok")])
    capsys.readouterr()
    assert main(["augment", str(path), "--variants", "v" * 300 + "=web",
                 "--out", str(tmp_path / "o")]) == 2
    assert "is not a variant name" in capsys.readouterr().err


def test_a_row_the_csv_reader_refuses_costs_only_that_row(tmp_path: Path) -> None:
    root = write_fcmr(tmp_path / "fcmr", {"c1.png": png(), "c2.png": png(), "c3.png": png()})
    data = (root / "easy_data.csv").read_bytes().replace(
        b"Beta Inc had the most revenue.,Alpha Corp had revenue of 120.,revenue\n2,",
        b'Beta Inc had the most revenue.,Alpha Corp had revenue of 120.,revenue\n2,"'
        + b"x" * 200_000 + b'",', 1)
    (root / "easy_data.csv").write_bytes(data)
    imported, skipped = records(root)
    assert [r.item.base_id for r in imported] == ["fcmr-easy-1", "fcmr-easy-3"]
    assert [s.where for s in skipped] == ["easy_data.csv:3"] and "CSV" in skipped[0].why


def test_a_span_bomb_in_an_html_table_is_refused_at_once(tmp_path: Path) -> None:
    cells = "<td colspan=1000 rowspan=1000>x</td>" * 100
    html = f"<table><tr>{cells}</tr>{'<tr><td>y</td></tr>' * 999}</table>"
    imported, skipped = records(write_jsonl(tmp_path / "q.jsonl", [
        jsonl_record("bomb", table={"html": html}), jsonl_record("ok")]))
    assert [r.item.base_id for r in imported] == ["jsonl-ok"]
    assert "wider than 200 columns" in skipped[0].why


def test_many_records_with_one_id_get_unique_ids_at_once() -> None:
    from hopvista.sources.imports.common import Ids

    ids = Ids("jsonl")
    made = [ids.new("same") for _ in range(50_000)]
    assert len(set(made)) == 50_000 and made[:3] == ["jsonl-same", "jsonl-same-2", "jsonl-same-3"]
    assert [ids.new("Case"), ids.new("case"), ids.new("CASE")] == [
        "jsonl-Case", "jsonl-case-2", "jsonl-CASE-3"]  # one file name on a case-blind disk


def test_an_empty_json_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "data.json"
    path.write_text("  \n")
    err = augment_fails(capsys, str(path), "--format", "tabfact", "--out", str(tmp_path / "o"))
    assert "data.json: TabFact: empty: no JSON value" in err


# -- end to end: one augment per format (draws variants: Chromium) ----------------------------


def _hostile_jsonl(root: Path) -> tuple[Path, list[str]]:
    path = write_jsonl(root.with_suffix(".jsonl"), [
        jsonl_record("a" * 5000), b'{"id": "nan", "question": "q?", "answer": NaN}',
        json.dumps(jsonl_record("bad")).encode().replace(b"Oslo?", b"Oslo\xff?"),
        jsonl_record("sep", question="What is the\u2028population of Oslo?")])
    return path, ["r.jsonl:2", "r.jsonl:3"]


def _hostile_wtq(root: Path) -> tuple[Path, list[str]]:
    return write_wtq(root, [wtq_line("nt-0", "how many\u2028wins did the lions have?"),
                            wtq_line("nt-1", target="9" * 400),
                            b"nt-2\thow many \xff wins?\tcsv/200-csv/0.csv\t7"]), [
        "data/training.tsv:3", "data/training.tsv:4"]


def _hostile_tabfact(root: Path) -> tuple[Path, list[str]]:
    statements = tabfact_statements("lions won 7", "lions won BAD", labels=[1, 1])
    return write_tabfact(root, statements.replace(b"BAD", b"\xff")), [
        "collected_data/r1_training_all.json: id t-1.html.csv#1"]


def _hostile_tatqa(root: Path) -> tuple[Path, list[str]]:
    content = json.dumps([tatqa_document(tatqa_question("q-1"),
                                         tatqa_question("q-2", answer=float("nan")))])
    return write_tatqa(root, content.encode()), ["tatqa_dataset_dev.json: id q-2"]


def _hostile_fcmr(root: Path) -> tuple[Path, list[str]]:
    return write_fcmr(root, {"c1.png": png(), "c2.png": declared_png(30_000, 30_000),
                             "c3.png": b"text"}), ["easy_data.csv:3", "easy_data.csv:4"]


@pytest.mark.slow
@pytest.mark.parametrize("make", [_hostile_jsonl, _hostile_wtq, _hostile_tabfact,
                                  _hostile_tatqa, _hostile_fcmr])
def test_a_hostile_release_augments_and_reports_each_skipped_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        make: Callable[[Path], tuple[Path, list[str]]]) -> None:
    path, skipped = make(tmp_path / "r")
    out = tmp_path / "out"
    capsys.readouterr()
    assert main(["augment", str(path), "--variants", "web", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text())
    assert [s["where"] for s in manifest["records_skipped"]] == skipped
    for where in skipped:
        assert f"skipped {where}: " in err
    items = items_of(out)
    assert items and all(len(Path(i["images"][0]["path"]).name) < 160 for i in items)
    assert main(["verify", str(out)]) == 0


@pytest.mark.slow
def test_a_table_too_long_to_show_as_an_image_skips_its_variant(tmp_path: Path) -> None:
    """A table of thousands of rows renders taller than any perturbation or reader can use:
    its variant is skipped with the image's size, the rest of the input is augmented."""
    rows = [[f"r{i}", str(i)] for i in range(3000)]
    source = tmp_path / "long.jsonl"
    source.write_text(
        json.dumps({"id": "long", "question": "What is r5?", "answer": "5",
                    "table": {"header": ["name", "v"], "rows": rows}}) + "\n"
        + json.dumps({"id": "short", "question": "What is x?", "answer": "1",
                      "table": {"header": ["name", "v"], "rows": [["x", "1"]]}}) + "\n")
    out = tmp_path / "out"
    assert main(["augment", str(source), "--variants", "photo", "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    (skipped,) = manifest["skipped"]
    assert skipped["base_id"] == "jsonl-long" and "px as an image" in skipped["why"]
    assert main(["verify", str(out)]) == 0
