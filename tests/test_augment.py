"""`gen augment`: every base in every variant, answers kept, the same bytes twice, tampering
caught; layouts that show every cell once; recipes swept from the registry."""

from __future__ import annotations

import json
import re
import shutil
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from hopvista.augment import TEN, VARIANTS
from hopvista.augment.grid import (
    Grid,
    grid_of_table,
    merged,
    order_columns,
    order_rows,
    pivoted,
    plain,
    shown_cells,
    split_columns,
    split_rows,
    transposed,
)
from hopvista.augment.recipes import Base, Skip
from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.model import Item
from hopvista.model.inputs import GridTable, Table
from hopvista.rng import Streams
from hopvista.variants.build import parse_variants
from tests.conftest import read_items, reseal

IMPORTS = Path(__file__).parent / "data" / "imports"
SAMPLES = Path(__file__).parent / "data" / "samples"


def _panel_table() -> Table:
    columns = [{"key": k, "label": k.upper(), "unit": "USD m", "precision": 1}
               for k in ("rev", "ni", "ta")]
    rows = [{"entity": e, "year": y, "values": {k: f"{i * 10 + j}.{y % 10}"
                                                for j, k in enumerate(("rev", "ni", "ta"))}}
            for i, e in enumerate(("a", "b", "c")) for y in (2020, 2021, 2022)]
    return Table.model_validate({"entity_label": "Company", "period_label": "Year",
                                 "columns": columns, "rows": rows})


def _grids() -> dict[str, Grid]:
    names = {"a": "Alpha", "b": "Beta", "c": "Gamma"}
    grid_table = GridTable(header=("Year", "Team", "Wins"),
                           rows=(("2001", "Lions", "7"), ("2001", "Tigers", "8"),
                                 ("2002", "Bears", "5")))
    return {"panel": grid_of_table(_panel_table(), names),
            "grid": grid_of_table(grid_table, {})}


def _layouts(grid: Grid) -> dict[str, Any]:
    out = {"plain": plain(grid), "transposed": transposed(grid), "merged": merged(plain(grid)),
           "rows2": split_rows(grid, 2), "rows3": split_rows(grid, 3),
           "columns2": split_columns(grid, 2),
           "reordered": plain(order_columns(order_rows(grid, list(range(len(grid.body)))[::-1]),
                                            [0, *range(grid.width - 1, 0, -1)]))}
    pivot = pivoted(grid)
    if pivot is not None:
        out["pivot"] = pivot
    return out


@pytest.mark.parametrize("kind", ["panel", "grid"])
def test_every_layout_shows_every_cell_once_with_its_own_text(kind: str) -> None:
    grid = _grids()[kind]
    texts = {(c.row, c.col): c.text for row in grid.rows for c in row}
    for name, layout in _layouts(grid).items():
        assert shown_cells(layout) == set(texts), name
        primary: list[tuple[int, int]] = []
        for panel in layout.panels:
            for row in panel.rows:
                for cell in row:
                    assert cell.at is not None
                    assert cell.text == texts[cell.at], (name, cell)
                    if not cell.copy:
                        primary += [cell.at, *cell.covers]
        assert sorted(primary) == sorted(texts), f"{name}: a cell shown twice or not at all"


def test_a_pivot_gives_a_two_level_header_and_one_row_per_entity() -> None:
    layout = pivoted(_grids()["panel"])
    assert layout is not None
    (panel,) = layout.panels
    assert panel.head_rows == 2 and len(panel.rows) == 2 + 3
    assert [c.colspan for c in panel.rows[0][1:]] == [3, 3, 3]
    assert pivoted(_grids()["grid"]) is None


def _base(protected: dict[tuple[int, int], str] | None = None) -> Base:
    grid = _grids()["grid"]
    item = Item.model_validate({
        "id": "t-1.base", "base_id": "t-1", "domain": "t", "kind": "table_qa",
        "inputs": {"table": {"header": ["Year", "Team", "Wins"],
                             "rows": [["2001", "Lions", "7"], ["2001", "Tigers", "8"],
                                      ["2002", "Bears", "5"]]}},
        "question": "How many wins did the Lions have?", "answer": 7, "answer_type": "number",
        "provenance": {"generator": "test", "source": "test"}})
    return Base(item, grid, protected or {})


@pytest.mark.parametrize("name", VARIANTS.names())
def test_a_recipe_plans_the_same_from_the_same_streams(name: str) -> None:
    recipe = VARIANTS.get(name)
    base = _base({(1, 2): "matches the answer"})
    params = recipe.parse({})
    try:
        first = recipe.plan(base, Streams(3, "t-1", name), params)
    except Skip as why:  # a recipe for charts (chart markup) cannot show this table-only base
        assert recipe.group == "chart-markup", f"{name} skipped: {why}"
        with pytest.raises(Skip, match=re.escape(str(why))):
            recipe.plan(base, Streams(3, "t-1", name), params)
        return
    again = recipe.plan(base, Streams(3, "t-1", name), params)
    assert first == again
    json.dumps(first.parameters)  # the recorded parameters are JSON
    if recipe.protects:
        assert not set(first.blanked) & {(1, 2)}


def test_missing_blanks_only_unprotected_value_cells_and_skips_when_none_is_left() -> None:
    recipe = VARIANTS.get("missing")
    everything = {(r, c): "protected" for r in range(1, 4) for c in range(1, 3)}
    for seed in range(20):
        protected = {(1, 2): "matches the answer", (2, 1): "in the row the question names"}
        plan = recipe.plan(_base(protected), Streams(seed, "t-1", "missing"), recipe.parse({}))
        assert plan.blanked and not set(plan.blanked) & set(protected)
        assert all(c >= 1 for _, c in plan.blanked)  # the row-label column is never blanked
        assert all(plan.grid.cell(r, c).text == plan.token for r, c in plan.blanked)
    with pytest.raises(Skip, match="protected"):
        recipe.plan(_base(everything), Streams(0, "t-1", "missing"), recipe.parse({}))


def test_the_variants_option_reads_names_parameters_and_aliases() -> None:
    specs = parse_variants("web,photo:surface=paper,paper2=photo:surface=screen,"
                           "noise:perturbation.jpeg_quality=[40,50],structural:count=1,elastic=0")
    assert [(s.name, s.recipe) for s in specs] == [
        ("web", "web"), ("photo", "photo"), ("paper2", "photo"), ("noise", "noise"),
        ("structural", "structural")]
    assert specs[1].params == {"surface": "paper"}
    assert specs[3].params == {"perturbation": {"jpeg_quality": [40, 50]}}
    assert specs[4].params == {"count": 1, "elastic": 0}
    for bad, said in [("web,nope", "unknown variant 'nope'"), ("web,web", "given twice"),
                      ("photo:surface=moon", "surface"), ("structural:count=9", "count"),
                      ("", "no variant")]:
        with pytest.raises(UserError, match=said):
            parse_variants(bad)


def test_the_ten_variants_are_registered() -> None:
    assert set(TEN) <= set(VARIANTS.names())


# -- whole runs (slow) -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(six: Path) -> Path:
    return six


@pytest.fixture(scope="module")
def augmented(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("aug") / "variants"
    assert main(["augment", str(built), "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_every_base_comes_in_every_variant_with_its_answer(built: Path,
                                                           augmented: Path) -> None:
    bases = read_items(built)
    items = read_items(augmented)
    manifest = json.loads((augmented / "manifest.json").read_text())
    made = {(i["base_id"], i["variant"]["name"]) for i in items}
    skipped = sum(manifest["variants"]["skipped"].values())
    assert skipped <= 0.05 * len(bases) * len(TEN)
    assert len(made) == len(bases) * (len(TEN) + 1) - skipped
    by_id = {b["base_id"]: b for b in bases}
    for item in items:
        base = by_id[item["base_id"]]
        assert item["answer"] == base["answer"]
        assert [s["label"] for s in item["statements"]] == [s["label"] for s in base["statements"]]
        if item["variant"]["name"] != "base":
            assert item["variant"]["recipe"] == item["variant"]["name"]
            assert item["variant"]["protected"], "the cells kept clear are recorded"
    assert main(["verify", str(augmented)]) == 0


@pytest.mark.slow
def test_no_two_variant_images_of_a_base_are_the_same(augmented: Path) -> None:
    groups: dict[str, dict[str, str]] = {}
    for item in read_items(augmented):
        for image in item["images"]:
            if image["role"] in ("table", "page"):
                groups.setdefault(item["base_id"], {})[item["id"]] = image["sha256"]
    for digests in groups.values():
        for (a, da), (b, db) in combinations(digests.items(), 2):
            assert da != db, f"{a} and {b} show the same image"


@pytest.mark.slow
def test_augment_makes_the_same_bytes_with_two_workers(built: Path, augmented: Path,
                                                       tmp_path: Path) -> None:
    out = tmp_path / "again"
    assert main(["augment", str(built), "--out", str(out), "--workers", "2"]) == 0
    first = json.loads((augmented / "manifest.json").read_text())["files"]
    second = json.loads((out / "manifest.json").read_text())["files"]
    assert first == second


@pytest.mark.slow
def test_verify_rejects_a_missing_variant_that_blanks_a_cell_a_statement_reads(
        augmented: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged = tmp_path / "forged"
    shutil.copytree(augmented, forged)
    items = read_items(forged)
    target = next(i for i in items if i["variant"]["name"] == "missing")
    row, col = target["variant"]["protected"][0]["row"], target["variant"]["protected"][0]["col"]
    table = target["inputs"]["table"]
    first = 1 if table["period_label"] is None else 2
    key = table["columns"][col - first]["key"]
    token = target["variant"]["parameters"]["token"]
    table["rows"][row - 1]["values"][key] = token
    target["variant"]["parameters"]["cells"].append([row, col])
    for image in target["images"]:
        for cell in image["render"].get("cells", []):
            if (cell["row"], cell["col"]) == (row, col):
                cell["text"] = " ".join(token.split())
    reseal(forged, items)
    capsys.readouterr()
    assert main(["verify", str(forged)]) == 1
    said = capsys.readouterr().err
    assert target["id"] in said and "read by a statement" in said


@pytest.mark.slow
def test_verify_rejects_a_variant_whose_table_differs_from_its_base(
        augmented: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged = tmp_path / "forged"
    shutil.copytree(augmented, forged)
    items = read_items(forged)
    target = next(i for i in items if i["variant"]["name"] == "latex")
    row = target["inputs"]["table"]["rows"][0]
    key = next(iter(row["values"]))
    row["values"][key] = "9" + row["values"][key]
    for cell in target["images"][0]["render"]["cells"]:
        if (cell["row"], cell["col"]) == (1, 2 if target["inputs"]["table"]["period_label"]
                                          else 1):
            cell["text"] = row["values"][key]
    reseal(forged, items)
    capsys.readouterr()
    assert main(["verify", str(forged)]) == 1
    assert "differ from the base" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["wtq", "tabfact"])
def test_existing_datasets_come_in_every_variant(fmt: str, tmp_path: Path) -> None:
    """Samples made in WikiTableQuestions' and TabFact's release layouts (realistic tables:
    tests/data/samples); the hostile ones are tests/data/imports, read in test_imports.py."""
    out = tmp_path / fmt
    assert main(["augment", str(SAMPLES / fmt), "--out", str(out)]) == 0
    items = read_items(out)
    manifest = json.loads((out / "manifest.json").read_text())
    bases = {i["base_id"] for i in items}
    assert len(bases) == manifest["counts"]["bases"] == 4
    assert manifest["variants"]["skipped"] == {} and manifest["counts"]["records_skipped"] == 0
    for base_id in bases:
        names = sorted(i["variant"]["name"] for i in items if i["base_id"] == base_id)
        assert names == sorted(TEN), base_id
    for item in items:
        assert item["provenance"]["generator"] == f"import:{fmt}"
        assert item["variant"]["protected"]
        missing = item["variant"]["parameters"].get("cells", [])
        protected = {(p["row"], p["col"]) for p in item["variant"]["protected"]}
        assert not {tuple(c) for c in missing} & protected
    assert main(["verify", str(out)]) == 0


@pytest.mark.slow
def test_hostile_records_are_skipped_and_the_run_goes_on(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    out = tmp_path / "wtq"
    assert main(["augment", str(IMPORTS / "wtq"), "--variants", "web,missing",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["records_skipped"] >= 1
    assert "training.tsv:" in err  # the bad record named by file and line
    assert main(["verify", str(out)]) == 0


@pytest.mark.slow
def test_the_contact_sheet_shows_each_base_beside_its_variants(augmented: Path,
                                                               tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    from hopvista.render.browser import find_chromium

    out = tmp_path / "sheet.html"
    assert main(["preview", str(augmented), "--out", str(out), "--limit", "2"]) == 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
        page = browser.new_context(java_script_enabled=False).new_page()
        page.route("http*://**", lambda route: route.abort())
        page.goto(out.as_uri())
        assert page.locator("section.base").count() == 2
        first = page.locator("section.base").first
        names = [first.locator(".variant").nth(i).get_attribute("data-variant")
                 for i in range(first.locator(".variant").count())]
        assert names == ["base", *TEN]
        images = page.locator("img")
        assert images.count() >= 2 * (len(TEN) + 1)
        for i in range(images.count()):
            assert images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0")
        browser.close()


def test_augment_refuses_bad_input_with_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["augment", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    junk = tmp_path / "junk.txt"
    junk.write_text("nothing here\n")
    assert main(["augment", str(junk), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "junk.txt" in err
    assert main(["augment", str(IMPORTS / "wtq"), "--variants", "web,bogus",
                 "--out", str(tmp_path / "o")]) == 2
    assert "bogus" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_eval_reports_consistency_across_the_variants_of_each_base(augmented: Path,
                                                                     tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["eval", str(augmented), "--model", "oracle", "--out", str(run),
                 "--quiet"]) == 0
    summary = json.loads((run / "summary.json").read_text())
    variants = summary["variants"]
    assert variants["bases"] == len({i["base_id"] for i in read_items(augmented)})
    assert variants["consistency"] == 1.0
    assert set(variants["drop"]) == set(TEN)
    assert all(v["accuracy"] == 1.0 and v["drop"] == 0.0 for v in variants["drop"].values())
    by_variant = summary["by"]["variant"]
    assert set(by_variant) == {"base", *TEN}
