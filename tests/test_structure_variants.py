"""Variants of a structured base (``gen build --structure``) show its structure: header levels,
merged cells, related tables, notes sentences; ``structural`` and ``partial`` keep it or skip,
saying why."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hopvista.augment.grid import Layout, plain
from hopvista.augment.recipes import VARIANTS, Base, Plan, Skip, base_of_item
from hopvista.augment.structures import (
    GROUP,
    NOTE_FORMS,
    layout_problem,
    note_texts,
    structure_problem,
    structured_layout,
)
from hopvista.cli.main import main
from hopvista.model import Item, Table
from hopvista.model.structure import TableStructure
from hopvista.rng import Streams
from tests.conftest import build_dataset, read_items

GOLDEN = Path(__file__).parent / "golden" / "format6" / "items.jsonl"
GROUPS = [{"label": "Income", "columns": ["txt", "ni"]},
          {"label": "Cash flows", "columns": ["oancf", "ivncf", "dv", "chech"]}]
STRUCTURES: dict[str, dict[str, Any]] = {
    "complex": {"type": "complex", "groups": GROUPS, "merged_entities": True},
    "across": {"type": "complex", "groups": GROUPS, "periods_across": True},
    "long": {"type": "long", "long_format": True},
    "text-mixed": {"type": "text-mixed", "notes": {"column": "ni", "form": NOTE_FORMS[0]}},
}
SHOWN_AS_IS = ("web", "latex", "excel", "custom", "noise", "screenshot", "photo",
               "markup-n", "markup-hc", "markup-rc", "chart-markup-n")
"""Variants that show the table as it is."""


def _golden() -> Item:
    return Item.model_validate(json.loads(GOLDEN.read_text(encoding="utf-8").split("\n")[0]))


def _structured(name: str) -> Item:
    """The golden base item with its table shown in structure ``name``."""
    item = _golden()
    table = item.inputs.table
    assert isinstance(table, Table)
    raw = STRUCTURES.get(name)
    if raw is None:  # multi-table: one related table per entity
        entities = sorted({row.entity for row in table.rows})
        years = sorted({row.year for row in table.rows})
        raw = {"type": "multi-table", "tables": [
            {"title": entity, "columns": [c.key for c in table.columns], "entities": [entity],
             "years": years, "split": "entity"} for entity in entities]}
    shown = table.model_copy(update={"structure": TableStructure.model_validate(raw)})
    assert structure_problem(shown) is None
    return item.model_copy(update={"inputs": item.inputs.model_copy(update={"table": shown})})


def _plan(base: Base, variant: str, **params: Any) -> Plan:
    recipe = VARIANTS.get(variant)
    return recipe.plan(base, Streams(0, base.item.base_id, variant), recipe.parse(params))


def _table(item: Item) -> Table:
    table = item.inputs.table
    assert isinstance(table, Table)
    return table


def _groups(layout: Layout) -> list[str]:
    return [c.text for p in layout.panels for r in p.rows for c in r if c.kind == GROUP]


@pytest.mark.parametrize("name", [*STRUCTURES, "multi-table"])
def test_variants_that_show_the_table_as_it_is_show_its_structure(name: str) -> None:
    item = _structured(name)
    base = base_of_item(item)
    wanted = structured_layout(_table(item), {e.id: e.name for e in item.entities})
    for variant in SHOWN_AS_IS:
        layout = _plan(base, variant).layout
        assert _unmarked(layout) == wanted, variant


def _unmarked(layout: Layout) -> Layout:
    return replace(layout, panels=tuple(
        replace(p, rows=tuple(tuple(replace(c, mark=None) for c in r) for r in p.rows))
        for p in layout.panels))


def test_an_unstructured_base_is_shown_as_one_plain_grid() -> None:
    base = base_of_item(_golden())
    assert base.layout == plain(base.grid) and base.structure() is None
    assert _plan(base, "web").layout == plain(base.grid)


def test_structural_keeps_header_levels_and_reorders_whole_entities() -> None:
    item = _structured("complex")
    plan = _plan(base_of_item(item), "structural", elastic=0)
    assert plan.parameters["ops"] == ["row-order"]
    assert plan.parameters["structure"] == "complex"
    (panel,) = plan.layout.panels
    assert panel.head_rows == 2 and _groups(plan.layout) == ["Income", "Cash flows"]
    firsts = [row[0] for row in panel.rows[2:] if row[0].rowspan > 1]
    assert [c.rowspan for c in firsts] == [5, 5, 5]  # each entity merged over its periods
    assert [c.at for c in firsts] != sorted(c.at for c in firsts if c.at)  # moved
    assert layout_problem(_table(item), plan.layout) is None


def test_structural_of_related_tables_reorders_the_tables() -> None:
    item = _structured("multi-table")
    plan = _plan(base_of_item(item), "structural", elastic=0)
    titles = [p.caption for p in plan.layout.panels]
    assert len(titles) == 3 and titles != sorted(titles)
    assert layout_problem(_table(item), plan.layout) is None
    with pytest.raises(Skip, match="keeps the table's multi-table structure"):
        _plan(base_of_item(item), "structural", ops=["transpose", "pivot"])


def test_partial_repeats_the_header_levels_or_skips_related_tables() -> None:
    item = _structured("complex")
    plan = _plan(base_of_item(item), "partial", cut="rows")
    assert len(plan.layout.panels) >= 2
    assert all(p.head_rows == 2 for p in plan.layout.panels)
    assert all(_groups(Layout((p,))) == ["Income", "Cash flows"] for p in plan.layout.panels)
    assert layout_problem(_table(item), plan.layout) is None
    with pytest.raises(Skip, match=r"^the table is shown as 3 related tables already"):
        _plan(base_of_item(_structured("multi-table")), "partial")


def test_missing_keeps_the_structure_and_never_blanks_a_sentence() -> None:
    item = _structured("text-mixed")
    names = {e.id: e.name for e in item.entities}
    noted = note_texts(_table(item), names)
    for seed_variant in ("missing", "missing-2", "missing-3"):
        recipe = VARIANTS.get("missing")
        plan = recipe.plan(base_of_item(item), Streams(0, item.base_id, seed_variant),
                           recipe.parse({"share": [0.9, 0.9]}))
        assert plan.blanked and not set(plan.blanked) & set(noted)
        shown = {c.at: c.text for p in plan.layout.panels for r in p.rows for c in r}
        assert all(shown[at] == text for at, text in noted.items())
    plan = _plan(base_of_item(_structured("across")), "missing", tokens=["N/A"])
    assert plan.layout.panels[0].head_rows == 3
    shown = {c.at: c.text for p in plan.layout.panels for r in p.rows for c in r}
    assert all(shown[at] == "N/A" for at in plan.blanked)


def test_marks_land_on_the_cells_own_showing_in_its_related_table() -> None:
    item = _structured("multi-table")
    plan = _plan(base_of_item(item), "markup-hc")
    target = plan.markup["target"] if plan.markup else {}
    marked = [(p.caption, c) for p in plan.layout.panels for r in p.rows for c in r if c.mark]
    ((caption, cell),) = marked
    assert cell.at == (target["row"], target["col"]) and not cell.copy
    assert caption is not None and caption.startswith(target["entity"])


# -- drawn and verified --------------------------------------------------------------------


@pytest.fixture(scope="module")
def augmented(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Variants drawn of three structured bases (complex, multi-table, text-mixed)."""
    root = tmp_path_factory.mktemp("structure-variants")
    build_dataset(root / "base", "-n", "3", "--no-images",
                  "--structure", "complex,multi-table,text-mixed")
    assert main(["augment", str(root / "base"), "--variants", "structural,markup-rc",
                 "--out", str(root / "out")]) == 0
    return root / "out"


@pytest.mark.slow
def test_drawn_variants_record_the_structure_and_verify(
        augmented: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = read_items(augmented)
    seen = set()
    for item in items:
        if item["variant"]["name"] == "base":
            continue
        table = item["inputs"]["table"]
        structure = table["structure"]
        assert item["attributes"]["structure"] == structure["type"]
        (image,) = [i for i in item["images"] if i["role"] == "table"]
        render = image["render"]
        cells = {(c["row"], c["col"]): c for c in render["cells"]}
        assert len(cells) == len(render["cells"])  # every logical cell once
        if structure["type"] == "complex":
            assert [g["text"] for g in render["groups"]] == \
                [g["label"] for g in structure["groups"]]
        elif structure["type"] == "multi-table":
            tables = len(structure["tables"])
            assert len(render["copies"]) >= (tables - 1) * 2  # headers repeated per table
        else:
            column = [c["key"] for c in table["columns"]].index(structure["notes"]["column"])
            sentence = cells[(1, 2 + column)]["text"]
            assert sentence.endswith(".") and len(sentence.split()) > 4
        if item["variant"]["name"] == "markup-rc":
            marked = [c for c in render["cells"] if c.get("mark")]
            assert marked and "mark_box" in marked[0]
        seen.add((structure["type"], item["variant"]["name"]))
    assert len(seen) == 6
    assert main(["verify", str(augmented)]) == 0
    assert "OK: 9 items verified" in capsys.readouterr().out
