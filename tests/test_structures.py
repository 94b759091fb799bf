"""Table structures as data (``gen build --structure``) and the attributes items record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hopvista.augment.structures import (
    NOTE_FORMS,
    layout_problem,
    note_texts,
    structured_layout,
)
from hopvista.cli.main import main
from hopvista.model import Item, Table
from hopvista.model.structure import TableStructure
from hopvista.program.skills import program_skills, statement_skills
from tests.conftest import build_dataset, read_items, reseal
from tests.test_no_period_pairs import ALLOYS, DOMAIN
from tests.test_panel import write_folder


@pytest.fixture(scope="module")
def structured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six items without images, half complex, half multi-table (seed 3)."""
    out = tmp_path_factory.mktemp("structured") / "out"
    build_dataset(out, "-n", "6", "--seed", "3", "--no-images",
                  "--structure", "complex,multi-table")
    return out


def _table(item: dict[str, Any]) -> Table:
    table = Item.model_validate(item).inputs.table
    assert isinstance(table, Table)
    return table


def test_each_structure_gets_its_share_and_verifies(structured: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    items = read_items(structured)
    kinds = [item["inputs"]["table"]["structure"]["type"] for item in items]
    assert sorted(kinds) == ["complex"] * 3 + ["multi-table"] * 3
    assert [i["provenance"]["plan"]["structure"] for i in items] == kinds
    assert [i["attributes"]["structure"] for i in items] == kinds
    manifest = json.loads((structured / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["shares"]["structures"] == {"complex": 3, "multi-table": 3}
    assert main(["verify", str(structured)]) == 0
    assert "OK: 6 items verified" in capsys.readouterr().out


def test_complex_tables_have_levels_and_merged_cells(structured: Path) -> None:
    for item in read_items(structured):
        structure = item["inputs"]["table"]["structure"]
        if structure["type"] != "complex":
            continue
        layout = item["attributes"]["layout"]
        assert layout["header_levels"] == (3 if structure["periods_across"] else 2)
        assert layout["merged_cells"] > 0 and layout["tables"] == 1
        assert [g["label"] for g in structure["groups"]]  # statement sections over columns
        assert layout_problem(_table(item), structured_layout(_table(item), {})) is None


def test_multi_tables_show_their_join_keys_and_are_read_across(structured: Path) -> None:
    across = 0
    for item in read_items(structured):
        structure = item["inputs"]["table"]["structure"]
        if structure["type"] != "multi-table":
            continue
        parts = structure["tables"]
        assert 2 <= len(parts) == item["attributes"]["layout"]["tables"] <= 5
        for panel in structured_layout(_table(item), {}).panels:
            for row in panel.rows[1:]:
                assert [c.at[1] for c in row[:2] if c.at is not None] == [0, 1]  # join keys
        for statement in item["statements"]:
            tables = {n for cell in statement["cells"] if cell["modality"] == "table"
                      for n, part in enumerate(parts) if cell["column"] in part["columns"]
                      and cell["entity"] in part["entities"] and cell["year"] in part["years"]}
            across += len(tables) > 1
    assert across > 0


def test_verify_recomputes_attributes_and_checks_structures(
        structured: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged = tmp_path / "forged"
    forged.mkdir()
    for path in structured.rglob("*"):
        if path.is_file():
            target = forged / path.relative_to(structured)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    items = read_items(forged)
    complex_ = next(i for i in items if i["inputs"]["table"]["structure"]["type"] == "complex")
    complex_["attributes"]["skills"]["lookup"] += 1
    multi = next(i for i in items if i["inputs"]["table"]["structure"]["type"] == "multi-table")
    multi["inputs"]["table"]["structure"]["tables"][0]["columns"].pop()
    bare = next(i for i in items if i is not complex_ and i is not multi)
    del bare["attributes"]
    reseal(forged, items)
    assert main(["verify", str(forged)]) == 1
    out = "".join(capsys.readouterr())
    lookup = complex_["attributes"]["skills"]["lookup"]
    assert (f"{complex_['id']}: attributes.skills.lookup is {lookup}, but its table and "
            f"programs give {lookup - 1}") in out
    assert (f"{multi['id']}: inputs.table: structure.tables do not show every value cell of "
            "the table once") in out
    assert f"{bare['id']}: its table has a structure, but it records no attributes" in out


def test_eval_breaks_results_down_by_attributes_and_selects_on_them(
        structured: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["eval", str(structured), "--model", "oracle", "--out", str(run),
                 "--quiet"]) == 0
    by = json.loads((run / "summary.json").read_text(encoding="utf-8"))["by"]
    assert {g: e["n"] for g, e in by["structure"].items()} == {"complex": 3, "multi-table": 3}
    items = read_items(structured)
    for skill in ("lookup", "aggregation", "numeric", "logical"):  # under each it needs
        assert by["skill"].get(skill, {"n": 0})["n"] == \
            sum(i["attributes"]["skills"][skill] > 0 for i in items)
    assert sum(e["n"] for e in by["steps"].values()) == 6
    report = tmp_path / "report.html"
    assert main(["report", str(run), "--out", str(report)]) == 0
    assert "data-facet='structure'" in report.read_text(encoding="utf-8")
    chosen = tmp_path / "chosen"
    assert main(["eval", str(structured), "--model", "oracle", "--out", str(chosen), "--quiet",
                 "--where", "structure=complex", "--where", "skill=lookup"]) == 0
    summary = json.loads((chosen / "summary.json").read_text(encoding="utf-8"))
    assert summary["answered"] == 3 and list(summary["by"]["structure"]) == ["complex"]
    capsys.readouterr()
    assert main(["eval", str(structured), "--model", "oracle", "--out", str(tmp_path / "no"),
                 "--quiet", "--where", "colour=red"]) == 2
    assert capsys.readouterr().err.startswith(
        "gen: error: --where colour=red: no facet 'colour' (facets: difficulty,")
    assert not (tmp_path / "no").exists()


@pytest.fixture(scope="module")
def alloys_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A panel of twelve alloys measured once: no period axis, no column groups."""
    return write_folder(tmp_path_factory.mktemp("alloys") / "data", ALLOYS, domain=DOMAIN)


def test_any_domain_gets_text_mixed_long_and_multi_table_structures(
        alloys_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["build", "panel", "--data", str(alloys_data), "--hops", "1", "-n", "3",
                 "--no-images", "--out", str(out),
                 "--structure", "text-mixed,long,multi-table"]) == 0
    assert main(["verify", str(out)]) == 0
    capsys.readouterr()
    by_type = {i["attributes"]["structure"]: i for i in read_items(out)}
    noted = by_type["text-mixed"]
    names = {e["id"]: e["name"] for e in noted["entities"]}
    texts = note_texts(_table(noted), names)
    column = noted["inputs"]["table"]["structure"]["notes"]["column"]
    read = {c["column"] for s in noted["statements"] for c in s["cells"]
            if c["modality"] == "table"}
    assert column in read or not read  # a column the statements need
    row = noted["inputs"]["table"]["rows"][0]
    sentence = next(text for (r, _), text in texts.items() if r == 1)
    assert names[row["entity"]] in sentence or " was " in sentence
    assert row["values"][column] in sentence and "{" not in sentence
    long = by_type["long"]  # more rows than the pack's five entities, or one row per value
    assert len(long["entities"]) > 5 or long["inputs"]["table"]["structure"]["long_format"]
    assert {p["split"] for p in by_type["multi-table"]["inputs"]["table"]["structure"]
            ["tables"]} <= {"entity", "columns"}


@pytest.mark.parametrize(("args", "message"), [
    (["--structure", "complex"], "gen: error: --structure complex: needs a period axis or "
                                 "column groups ('group' in domain.yaml), and domain 'panel' "
                                 "has neither"),
    (["--structure", "complex,tall"], "gen build: error: argument --structure: no structure "
                                      "'tall' (structures: simple, text-mixed, complex, long, "
                                      "multi-table)"),
])
def test_a_structure_a_domain_cannot_show_is_one_line(
        args: list[str], message: str, alloys_data: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as raised:
        code = main(["build", "panel", "--data", str(alloys_data), "-n", "2", "--no-images",
                     "--out", str(out), *args])
        raise SystemExit(code)
    assert raised.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == message
    assert not out.exists()


def _tiny(structure: dict[str, Any]) -> Table:
    """Two entities, two years, two columns of one unit."""
    columns = [{"key": k, "label": k.upper(), "unit": "USD", "precision": 0} for k in "ab"]
    rows = [{"entity": e, "year": y, "values": {"a": "1", "b": "2"}}
            for e in ("E1", "E2") for y in (2020, 2021)]
    return Table.model_validate({"entity_label": "Firm", "period_label": "Year",
                                 "columns": columns, "rows": rows,
                                 "structure": TableStructure.model_validate(structure)})


def test_three_level_header_covers_every_logical_cell_once() -> None:
    table = _tiny({"type": "complex", "periods_across": True,
                   "groups": [{"label": "Income", "columns": ["a"]},
                              {"label": "Cash", "columns": ["b"]}]})
    layout = structured_layout(table, {"E1": "One", "E2": "Two"})
    (panel,) = layout.panels
    assert panel.head_rows == 3
    assert [(c.text, c.colspan) for c in panel.rows[0][1:]] == [("Income", 2), ("Cash", 2)]
    assert [(c.text, c.colspan) for c in panel.rows[1]] == [("A", 2), ("B", 2)]
    assert [c.text for c in panel.rows[2]] == ["Year", "2020", "2021", "2020", "2021"]
    assert [c.text for c in panel.rows[3]] == ["One", "1", "1", "2", "2"]
    assert layout_problem(table, layout) is None


def test_long_format_shows_one_row_per_value() -> None:
    table = _tiny({"type": "long", "long_format": True})
    (panel,) = structured_layout(table, {"E1": "One", "E2": "Two"}).panels
    assert [c.text for c in panel.rows[0]] == ["Firm", "Year", "Measure", "Value"]
    assert len(panel.rows) == 1 + 4 * 2  # four rows of two values
    assert [(c.text, c.copy) for c in panel.rows[2]] == [
        ("One", True), ("2020", True), ("B", False), ("2", False)]
    assert layout_problem(table, structured_layout(table, {})) is None


def test_skills_are_counted_from_programs() -> None:
    rank_when = {"select": {"op": "rk_when", "column": "x", "order": "max", "when": {}},
                 "claim": {"fact": {"op": "fact", "needle": "n"}}}
    assert program_skills(rank_when) == {"lookup": 0, "aggregation": 1, "numeric": 2,
                                         "logical": 1}
    both = {"select": {"op": "and", "args": [{"op": "ct"}, {"op": "tr"}]},
            "claim": {"only": "E1"}}
    cell = {"modality": "table", "entity": "E1", "column": "x", "year": 2020}
    assert statement_skills([{"program": both, "cells": [cell, cell]}]) == {
        "lookup": 1, "aggregation": 0, "numeric": 2, "logical": 3}


def _span(boxes: list[list[int]], axis: int) -> tuple[int, int]:
    """The range ``boxes`` cover together along ``axis`` (0: x, 1: y)."""
    return min(b[axis] for b in boxes), max(b[axis] + b[axis + 2] for b in boxes)


@pytest.mark.slow
def test_recorded_boxes_show_header_levels_and_merged_cells() -> None:
    from hopvista.render.panels import layout_document
    from hopvista.render.table import TableRenderer, parse_style
    from tests.conftest import default_style

    groups = [{"label": "Income", "columns": ["a"]}, {"label": "Cash", "columns": ["b"]}]
    across = _tiny({"type": "complex", "periods_across": True, "groups": groups})
    merged = _tiny({"type": "complex", "merged_entities": True, "groups": groups})
    style = parse_style(default_style("classic"))
    names = {"E1": "One", "E2": "Two"}
    noted = _tiny({"type": "text-mixed", "notes": {"column": "a", "form": NOTE_FORMS[1]}})
    long = _tiny({"type": "long", "long_format": True})
    with TableRenderer() as renderer:
        shots = [renderer.shoot(layout_document(structured_layout(t, names), style), style,
                                "panels")[1] for t in (across, merged, noted, long)]
    every = {(r, c) for r in range(5) for c in range(4)}
    for layout in shots:
        assert sorted((c["row"], c["col"]) for c in layout["cells"]) == sorted(every)
    for layout in shots[:2]:
        assert [g["text"] for g in layout["groups"]] == ["Income", "Cash"]
    assert [g["text"] for g in shots[3]["groups"]] == ["Measure", "Value"]
    assert len(shots[3]["copies"]) == 2 * 4 + 2 * 3  # each row's labels, each column's label
    recorded = {(c["row"], c["col"]): c["text"] for c in shots[2]["cells"]}
    assert recorded[(0, 2)] == "Notes"
    assert recorded[(3, 2)] == "For 2020, A was 1 USD." == note_texts(noted, names)[(3, 2)]

    (income, cash), box = (g["box"] for g in shots[0]["groups"]), \
        {(c["row"], c["col"]): c["box"] for c in shots[0]["cells"]}
    copies = [c["box"] for c in shots[0]["copies"]]
    # level 1 over level 2 over level 3, each spanning what is below it
    assert _span([income], 0) == _span([box[(0, 2)]], 0) == _span([box[(1, 1)], box[(2, 1)]], 0)
    assert _span([cash], 0) == _span([box[(0, 3)]], 0) == _span(copies, 0)
    assert income[1] + income[3] == box[(0, 2)][1]
    assert box[(0, 2)][1] + box[(0, 2)][3] == box[(1, 1)][1]
    assert box[(3, 1)] == box[(1, 1)] and box[(4, 2)][1] == box[(3, 2)][1]  # one row each

    (income, cash), box = (g["box"] for g in shots[1]["groups"]), \
        {(c["row"], c["col"]): c["box"] for c in shots[1]["cells"]}
    assert _span([income], 0) == _span([box[(0, 2)]], 0)
    assert _span([cash], 0) == _span([box[(0, 3)]], 0)
    for first, second in ((1, 2), (3, 4)):  # an entity's merged cell spans its periods' rows
        assert box[(first, 0)] == box[(second, 0)]
        assert _span([box[(first, 0)]], 1) == _span([box[(first, 1)], box[(second, 1)]], 1)
