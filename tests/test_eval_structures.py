"""gen eval's text settings show a structured table (gen build --structure) as its image shows
it, in every table format: related tables under their titles with their join keys, a notes
column of sentences, header levels, long format; a table without a structure is shown as
before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hopvista
from hopvista.augment.structures import note_texts, with_structure
from hopvista.cli.main import main
from hopvista.eval.prompts import SETTINGS, build_prompt
from hopvista.model import Item
from hopvista.model.dataset import Dataset
from hopvista.model.inputs import Table
from hopvista.model.structure import TableStructure
from tests.conftest import build_dataset
from tests.scripted_server import Script, serve

FORMATS = ("json", "pipe", "markdown")
SHOWN = "{{ table_text }}"
"""A prompt template showing only the table as text."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("structures") / "d"
    build_dataset(out, "--structure", "multi-table,text-mixed,complex,long", "-n", "4",
                  "--no-images")
    return out


@pytest.fixture(scope="module")
def dataset(built: Path) -> Dataset:
    return hopvista.load(built)


def _item(dataset: Dataset, kind: str) -> Item:
    return next(i for i in dataset if _table(i).structure is not None
                and _table(i).structure.type == kind)  # type: ignore[union-attr]


def _table(item: Item) -> Table:
    assert isinstance(item.inputs.table, Table)
    return item.inputs.table


def _shown(item: Item, structure: TableStructure | None) -> Item:
    """``item`` with its table shown as ``structure`` (``None``: as one flat grid)."""
    table = _table(item).model_copy(update={"structure": None}) if structure is None \
        else with_structure(_table(item), structure)
    return item.model_copy(update={"inputs": item.inputs.model_copy(update={"table": table})})


def _text(item: Item, dataset: Dataset, fmt: str, setting: str = "chart-as-table") -> str:
    prompt = build_prompt(item, dataset, SETTINGS[setting], SHOWN, table_format=fmt)
    (text,) = prompt.parts
    assert isinstance(text, str)
    return text


def _grid(text: str, fmt: str) -> list[list[str]]:
    """The rows of a pipe or Markdown table, its rule line left out."""
    rows = [line.strip().strip("|" if fmt == "markdown" else "").split(" | ")
            for line in text.splitlines() if not line.startswith("|---")]
    return [[cell.strip() for cell in row] for row in rows]


def _heading(column: Any) -> str:
    return f"{column.label} ({column.unit})" if column.unit else column.label


def test_a_multi_table_item_is_shown_as_its_tables_each_with_its_title_and_join_keys(
        dataset: Dataset) -> None:
    item = _item(dataset, "multi-table")
    table = _table(item)
    parts = table.structure.tables  # type: ignore[union-attr]
    headings = {c.key: _heading(c) for c in table.columns}
    keys = [table.entity_label, table.period_label]
    shown = json.loads(_text(item, dataset, "json"))
    assert list(shown) == [p.title for p in parts]
    for part, rows in zip(parts, shown.values(), strict=True):
        assert len(rows) == len(part.entities) * len(part.years)
        assert all(list(row) == [*keys, *(headings[k] for k in part.columns)] for row in rows)
    for fmt in ("pipe", "markdown"):
        blocks = _text(item, dataset, fmt).split("\n\n")
        if fmt == "markdown":  # the title, a blank line, the table
            blocks = ["\n".join(blocks[k:k + 2]) for k in range(0, len(blocks), 2)]
        assert len(blocks) == len(parts)
        for part, block in zip(parts, blocks, strict=True):
            title, rest = block.split("\n", 1)
            header, *rows = _grid(rest.strip(), fmt)
            assert title == part.title
            assert header == [*keys, *(headings[k] for k in part.columns)]
            assert len(rows) == len(part.entities) * len(part.years)


def test_a_text_mixed_item_shows_the_noted_values_only_in_sentences(dataset: Dataset) -> None:
    item = _item(dataset, "text-mixed")
    table = _table(item)
    noted = next(c for c in table.columns
                 if c.key == table.structure.notes.column)  # type: ignore[union-attr]
    names = {e.id: e.name for e in item.entities}
    sentences = [text for (r, _), text in sorted(note_texts(table, names).items()) if r]
    rows = json.loads(_text(item, dataset, "json"))
    assert [list(row)[-1] for row in rows] == ["Notes"] * len(table.rows)
    assert [row["Notes"] for row in rows] == sentences
    assert all(_heading(noted) not in row for row in rows)
    for fmt in ("pipe", "markdown"):
        header, *body = _grid(_text(item, dataset, fmt), fmt)
        assert header[-1] == "Notes" and _heading(noted) not in header
        assert [row[-1] for row in body] == sentences
        assert all(len(row) == len(header) == len(table.columns) + 2 for row in body)


def test_a_complex_item_shows_its_header_levels(dataset: Dataset) -> None:
    item = _item(dataset, "complex")
    table = _table(item)
    groups = table.structure.groups  # type: ignore[union-attr]
    headings = {c.key: _heading(c) for c in table.columns}
    joined = [f"{g.label} / {headings[k]}" for g in groups for k in g.columns]
    rows = json.loads(_text(item, dataset, "json"))
    assert all(row[g.label] == {headings[k]: r.values[k] for k in g.columns}
               for row, r in zip(rows, table.rows, strict=True) for g in groups)
    for fmt in ("pipe", "markdown"):
        header, *body = _grid(_text(item, dataset, fmt), fmt)
        assert header == [table.entity_label, table.period_label, *joined]
        assert len(body) == len(table.rows)
    # the periods as a third header level: one row per entity, "group / column / period"
    across = _shown(item, TableStructure(type="complex", groups=groups, periods_across=True))
    entities = list(dict.fromkeys(r.entity for r in table.rows))
    years = [str(r.year) for r in table.rows if r.entity == entities[0]]
    first = json.loads(_text(across, dataset, "json"))[0]
    group, key = groups[0].label, groups[0].columns[0]
    assert first[group][headings[key]] == {
        y: r.values[key] for y, r in zip(years, table.rows, strict=False)}
    for fmt in ("pipe", "markdown"):
        header, *body = _grid(_text(across, dataset, fmt), fmt)
        assert header[:2] == [table.entity_label, f"{group} / {headings[key]} / {years[0]}"]
        assert len(header) == 1 + len(table.columns) * len(years)
        assert len(body) == len(entities)


def test_a_long_format_table_is_one_row_per_value(dataset: Dataset) -> None:
    item = _shown(_item(dataset, "long"), TableStructure(type="long", long_format=True))
    table = _table(item)
    values = len(table.rows) * len(table.columns)
    rows = json.loads(_text(item, dataset, "json"))
    assert len(rows) == values
    assert list(rows[0]) == [table.entity_label, table.period_label, "Measure", "Value"]
    assert rows[0]["Value"] == table.rows[0].values[table.columns[0].key]
    for fmt in ("pipe", "markdown"):
        header, *body = _grid(_text(item, dataset, fmt), fmt)
        assert header == [table.entity_label, table.period_label, "Measure", "Value"]
        assert len(body) == values


def test_a_table_shown_as_one_grid_keeps_its_prompt(dataset: Dataset) -> None:
    """No structure, ``simple`` and a long table of many rows are shown exactly as a table
    without one; a variant of a structured base is shown in the base's structure."""
    for item in dataset:
        flat = _shown(item, None)
        variant = item.model_copy(update={"variant": item.variant.model_copy(
            update={"name": "noise", "recipe": "noise"})})
        shown_flat = [_shown(item, TableStructure(type="simple"))]
        if _table(item).structure.type == "long":  # type: ignore[union-attr]
            shown_flat.append(item)
        for fmt in FORMATS:
            expected = _text(flat, dataset, fmt, "table-json")
            assert all(_text(i, dataset, fmt, "table-json") == expected for i in shown_flat)
            assert _text(variant, dataset, fmt, "table-json") == \
                _text(item, dataset, fmt, "table-json")


def test_gen_eval_sends_the_tables_of_a_multi_table_item(
        built: Path, dataset: Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-structures-test")
    item = _item(dataset, "multi-table")
    titles = [p.title for p in _table(item).structure.tables]  # type: ignore[union-attr]
    script = Script({"": ["Answer: none"]})
    with serve(script) as url:
        assert main(["eval", str(built), "--model", "openai:scripted", "--base-url", url,
                     "--out", str(tmp_path / "run"), "--quiet", "--setting", "chart-as-table",
                     "--table-format", "markdown", "--where", "structure=multi-table"]) == 0
    asked = [m["content"] for b in script.bodies for m in b["messages"] if m["role"] == "user"]
    (prompt,) = [p for p in asked if item.question in p]
    assert all(f"\n{title}\n\n| {_table(item).entity_label} |" in prompt for title in titles)
