"""The verifier's small parts on hand-made input: strict JSON, streaming lines, paths, numbers,
PNG headers and the statement-text helpers."""

from __future__ import annotations

import os
import struct
import zlib
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hopvista.display import fmt, midpoint
from hopvista.model.strict_json import parse_strict
from hopvista.program.executor import parse_number
from hopvista.program.fields import Malformed
from hopvista.program.numbers import program_number
from hopvista.program.operators import shown_number
from hopvista.verify.images import png_problem
from hopvista.verify.jsonl import read_lines, same_json
from hopvista.verify.paths import FILE, SPECIAL, SYMLINK, file_problem, unsafe_name, walk
from hopvista.verify.schema import check_program, displayed
from hopvista.verify.wording import needle_tokens


@pytest.mark.parametrize("text,reason", [
    ('{"a": NaN}', "NaN is not allowed"),
    ('{"a": -Infinity}', "-Infinity is not allowed"),
    ('{"a": 1e999}', "out of range"),
    ('{"a": 1, "a": 2}', "duplicate key 'a'"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a": 1', "Expecting"),
])
def test_strict_json_rejects(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_strict(text)


def test_strict_json_reads_ordinary_json() -> None:
    assert parse_strict('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


def test_same_json_tells_types_apart() -> None:
    assert same_json({"a": 1, "b": [True]}, {"b": [True], "a": 1})
    assert not same_json(1, True) and not same_json(1, 1.0) and not same_json("1", 1)


def test_lines_stream_and_skip_what_cannot_be_read(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(b'{"a":1}\n' + b"x" * 5000 + b"\n" + b"\xff\xfe\n" + b'{"b":2}')
    lines = list(read_lines(path, max_bytes=100))
    assert [line.number for line in lines] == [1, 2, 3, 4]
    assert lines[0].text == '{"a":1}' and lines[0].newline
    assert lines[1].text is None and "longer than 100 bytes" in str(lines[1].problem)
    assert lines[2].text is None and "not UTF-8" in str(lines[2].problem)
    assert lines[3].text == '{"b":2}' and not lines[3].newline


@pytest.mark.parametrize("name,ok", [
    ("items.jsonl", True), ("images/a-table.png", True), ("/etc/passwd", False),
    ("../x", False), ("data/../../x", False), ("a//b", False), ("./a", False), ("", False),
    ("a\\b", False), (None, False),
])
def test_manifest_names_must_be_plain_relative_paths(name: object, ok: bool) -> None:
    assert (unsafe_name(name) is None) is ok


def test_links_and_special_files_are_never_read(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f").write_text("x")
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    os.mkfifo(tmp_path / "fifo")
    assert file_problem(tmp_path, "real/f") is None
    assert file_problem(tmp_path, "linked/f").startswith("linked is a symbolic link")
    assert file_problem(tmp_path, "fifo") == "a named pipe, not a regular file"
    assert file_problem(tmp_path, "real") == "a folder, not a file"
    assert file_problem(tmp_path, "real/f/g") == "missing"
    assert walk(tmp_path) == [("fifo", SPECIAL), ("linked", SYMLINK), ("real/f", FILE)]


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-inf", "1e999999", "1E3", "", "1,2",
                                  "+5", "0x10", "1" * 41, "１２"])
def test_program_numbers_are_plain_finite_decimals(text: str) -> None:
    with pytest.raises(ValueError):
        program_number(text)


def test_displayed_numbers_parse_exactly() -> None:
    assert parse_number("-1,234.5") == Decimal("-1234.5")
    assert parse_number("\u22123.0") == Decimal("-3.0")
    for text in ("NaN", "1e5", "Infinity", None, 12):
        with pytest.raises(ValueError):
            parse_number(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("value,precision,ok", [
    ("1,105.5", 1, True), ("-3.5", 1, True), ("693", 0, True), ("1105.5", 1, False),
    ("1,105.50", 1, False), ("1,105", 1, False), ("NaN", 1, False), ("1e3", 0, False),
    (12.5, 1, False),
])
def test_displayed_values_carry_their_precision(value: object, precision: int, ok: bool) -> None:
    if ok:
        displayed(value, precision, "v")
    else:
        with pytest.raises(Malformed):
            displayed(value, precision, "v")


@given(st.decimals(min_value=-10**9, max_value=10**9, places=1, allow_nan=False),
       st.decimals(min_value=-10**9, max_value=10**9, places=1, allow_nan=False))
def test_statement_numbers_are_shown_as_the_generator_shows_them(a: Decimal, b: Decimal) -> None:
    """The verifier's own number formatting agrees with the generator's on every threshold a
    program can hold (a midpoint of displayed values, written without separators)."""
    value = midpoint(a, b)
    assert shown_number(format(value, "f")) == fmt(value)


def test_fact_tokens_are_numbers_and_names() -> None:
    assert needle_tokens("approximately 23,630 employees") == ["23,630"]
    assert needle_tokens("a request from the U.S. Department of Labor in July 2021") == \
        ["U.S", "Department", "Labor", "July", "2021"]
    assert needle_tokens("headquartered in austin") == ["headquartered", "austin"]


def test_programs_have_exactly_their_types_nodes() -> None:
    program = {"select": {"op": "ct", "column": "sale", "year": 2020, "cmp": ">",
                          "threshold": "1.5"}, "claim": {"entity": "C1"}}
    check_program(program, "CT", "p")
    with pytest.raises(Malformed, match="expected 'rk'"):
        check_program(program, "RK", "p")
    with pytest.raises(Malformed, match="claim"):
        check_program(program, "FC+CT", "p")
    program["select"]["year"] = True
    with pytest.raises(Malformed, match="year"):
        check_program(program, "CT", "p")


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + \
            struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"") + \
        chunk(b"IEND", b"")


def test_png_headers() -> None:
    assert png_problem(_png(30, 20), 30, 20) is None
    assert "is 30x20" in str(png_problem(_png(30, 20), 31, 20))
    assert png_problem(_png(30, 20)[:-4], 30, 20) == "a truncated PNG (no IEND chunk at the end)"
    assert png_problem(b"GIF89a", 1, 1) == "not a PNG image"
    assert png_problem(b"", 1, 1) == "not a PNG image"
