"""gen augment on a build of multimodal tables: every one of TableVista's ten variants shows
each picture once, in its own cell, wherever the layout puts the cell, and writes each picture
alone; no variant hides a picture or a cell the question reads, and none moves what the answer
names (a location's row and column, a list's table order): those skip with a recorded reason;
gen verify re-proves the variants and names a forged one; gen eval shows them."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import hopvista
from hopvista.augment.grid import (
    Layout,
    grid_of_table,
    plain,
    split_columns,
    split_rows,
    transposed,
)
from hopvista.augment.recipes import TEN, VARIANTS, Skip, base_of_item
from hopvista.cli.main import main
from hopvista.eval.prompts import SETTINGS, build_prompt, default_template
from hopvista.model import Item
from hopvista.model.inputs import GridTable
from hopvista.program.cells import ORDER, PLACE, execute, layout_dependence, read_columns
from hopvista.render.panels import CellPictures, panels_fragment
from hopvista.rng import Streams
from tests.conftest import read_items, reseal

COUNT = 3
"""Items of the build every test here reads: one asks for a list in table order, one for a
location, one for neither (the first seed that makes them, :func:`chosen_build`)."""

MOVES_PLACE = "the answer names a cell by its place in the table as built (row_i_col_j), " \
    "which every structural change that fits this table would move"
PANELS_RENUMBER = "the answer names a cell by its place in the table as built (row_i_col_j), " \
    "which panels would renumber"


@pytest.fixture(scope="module")
def chosen_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[Any, Item]]:
    """The first seed whose build of :data:`COUNT` items (no images) has one item of each
    layout an answer may name (:data:`ORDER`, :data:`PLACE`, ``None``), and those items."""
    root = tmp_path_factory.mktemp("mm-plain")
    for seed in range(100):
        out = root / f"mm-{seed}"
        hopvista.build("mmtables", str(out), count=COUNT, seed=seed, images=False)
        items = {layout_dependence(i.program or {}): i for i in hopvista.load(out)}
        if set(items) == {ORDER, PLACE, None}:
            return seed, items
    raise AssertionError("no seed below 100 makes the three kinds of answer")


@pytest.fixture(scope="module")
def bases(chosen_build: tuple[int, dict[Any, Item]]) -> dict[Any, Item]:
    return chosen_build[1]


def plan(item: Item, recipe: str, seed: int = 0) -> Any:
    chosen = VARIANTS.get(recipe)
    return chosen.plan(base_of_item(item), Streams(seed, item.base_id, recipe),
                       chosen.parse({}))


def grid_of(item: Item) -> list[list[str]]:
    assert isinstance(item.inputs.table, GridTable)
    return [list(item.inputs.table.header), *(list(r) for r in item.inputs.table.rows)]


def pictures_shown(layout: Layout, cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The cells whose picture the layout's HTML shows (each of ``cells`` holding one), once
    per showing."""
    pictures = CellPictures(8, dict.fromkeys(cells, b"png"))
    html = str(panels_fragment(layout, (), pictures))
    return sorted((int(r), int(c)) for r, c in re.findall(r'data-visual="(\d+),(\d+)"', html))


# -- what each recipe decides (no browser) -----------------------------------------------------


def test_every_layout_shows_each_picture_once_in_its_own_cell(bases: dict[Any, Item]) -> None:
    for item in bases.values():
        assert isinstance(item.inputs.table, GridTable)
        grid = grid_of_table(item.inputs.table, {})
        wanted = sorted((v.row, v.col) for v in item.inputs.visuals)
        layouts = [plain(grid), transposed(grid), split_rows(grid, 3), split_columns(grid, 2)]
        for recipe in ("structural", "partial", "missing"):
            with contextlib.suppress(Skip):
                layouts.append(plan(item, recipe).layout)
        for layout in layouts:
            assert pictures_shown(layout, wanted) == wanted, item.id
        every = sorted((c.row, c.col) for row in grid.rows for c in row)
        for layout in layouts[:4]:  # a picture in a repeated header or row label: shown once
            assert pictures_shown(layout, every) == every, item.id


def test_no_structural_or_partial_variant_moves_a_location_answer(bases: dict[Any, Item]) -> None:
    locate = bases[PLACE]
    with pytest.raises(Skip, match=re.escape(MOVES_PLACE)):
        plan(locate, "structural")
    with pytest.raises(Skip, match=re.escape(PANELS_RENUMBER)):
        plan(locate, "partial")
    assert plan(locate, "noise").layout.panels  # a variant that keeps every place is made


def test_an_answer_read_as_a_cells_location_is_not_moved_either(bases: dict[Any, Item]) -> None:
    item = bases[None]
    header = grid_of(item)[0][item.inputs.visuals[0].col]
    program = {"op": "argmax", "where": [], "by": {"column": grid_of(item)[0][1]},
               "read": {"cell": header}}
    located = item.model_copy(update={"program": program})
    with pytest.raises(Skip, match=re.escape(MOVES_PLACE)):
        plan(located, "structural")
    with pytest.raises(Skip, match=re.escape(PANELS_RENUMBER)):
        plan(located, "partial")


def test_a_list_in_table_order_keeps_its_rows_in_order(bases: dict[Any, Item]) -> None:
    listed = bases[ORDER]
    for seed in range(12):  # every draw of ops leaves the rows in their order
        chosen = VARIANTS.get("structural")
        drawn = chosen.plan(base_of_item(listed), Streams(seed, listed.base_id, "structural"),
                            chosen.parse({}))
        assert "row-order" not in drawn.parameters["ops"]
    other = bases[None]  # a question of no order may get its rows reordered
    assert any("row-order" in VARIANTS.get("structural").plan(
        base_of_item(other), Streams(seed, other.base_id, "structural"),
        VARIANTS.get("structural").parse({})).parameters["ops"] for seed in range(12))


def test_missing_never_blanks_a_picture_or_a_cell_the_question_reads(
        bases: dict[Any, Item]) -> None:
    made = 0
    for item in bases.values():
        grid = grid_of(item)
        read = read_columns(grid, item.program or {})
        try:
            drawn = plan(item, "missing")
        except Skip as why:
            assert str(why) == "every value cell is protected"
            continue
        made += 1
        pictured = {(v.row, v.col) for v in item.inputs.visuals}
        assert drawn.blanked and not set(drawn.blanked) & pictured
        assert not {c for _, c in drawn.blanked} & read
        shown = [[drawn.grid.cell(r, c).text for c in range(len(grid[0]))]
                 for r in range(len(grid))]
        visuals = {(v.row, v.col): v.model_dump(mode="json") for v in item.inputs.visuals}
        assert execute(shown, visuals, item.program or {}) == item.answer
    assert made


def test_every_recipe_shows_pictures() -> None:
    assert all(VARIANTS.get(name).shows_pictures for name in TEN)


# -- the variants drawn, verified and evaluated (Chromium) ------------------------------------


@pytest.fixture(scope="module")
def augmented(tmp_path_factory: pytest.TempPathFactory,
              chosen_build: tuple[int, dict[Any, Item]]) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("mm-augment")
    base, out = root / "mm", root / "mm-variants"
    assert main(["build", "mmtables", "-n", str(COUNT), "--seed", str(chosen_build[0]),
                 "--out", str(base)]) == 0
    assert main(["augment", str(base), "--out", str(out)]) == 0  # TableVista's ten
    return base, out


@pytest.mark.slow
def test_the_ten_variants_verify(augmented: tuple[Path, Path],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, out = augmented
    recipes = {i["variant"]["recipe"] for i in read_items(out)}
    assert {"structural", "partial", "missing", "screenshot", "noise", "photo"} <= recipes
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert f"OK: {len(read_items(out))} items verified" in capsys.readouterr().out


@pytest.mark.slow
def test_the_variants_card_credits_the_icon_set_of_the_emblems_shown(
        augmented: tuple[Path, Path]) -> None:
    _, out = augmented
    shown = {v["attributes"]["emblem"] for i in read_items(out) for v in i["inputs"]["visuals"]
             if v["kind"] in ("badge", "flag") and v["attributes"].get("emblem", "none") != "none"}
    manifest = json.loads((out / "manifest.json").read_text())
    card = " ".join((out / "README.md").read_text().split())
    assert shown, "the build shows no emblem: pick another seed for this module"
    assert manifest["icon_set"]["emblems"] == sorted(shown)
    assert manifest["icon_set"]["name"] == "Font Awesome Free"
    assert "are icons of Font Awesome Free" in card and "CC BY 4.0" in card


@pytest.mark.slow
def test_each_variant_shows_every_picture_in_its_cell_and_writes_it_alone(
        augmented: tuple[Path, Path]) -> None:
    _, out = augmented
    items = {i["id"]: i for i in read_items(out)}
    for item_id, item in items.items():
        base = items[item["base_id"] + ".base"]
        shot = "page" if item["variant"]["recipe"] == "screenshot" else "table"
        roles = [image["role"] for image in item["images"]]
        assert roles == [shot] + ["cell-image"] * len(item["inputs"]["visuals"]), item_id
        render = item["images"][0]["render"]
        cells = {(c["row"], c["col"]): c["box"] for c in render["cells"]}
        for shown in render["visuals"]:
            x, y, w, h = shown["box"]
            cx, cy, cw, ch = cells[(shown["row"], shown["col"])]
            assert cx <= x + w / 2 <= cx + cw and cy <= y + h / 2 <= cy + ch, item_id
        assert sorted((v["row"], v["col"]) for v in render["visuals"]) == \
            sorted((v["row"], v["col"]) for v in item["inputs"]["visuals"]), item_id
        alone = [(out / i["path"]).read_bytes() for i in item["images"][1:]]
        assert alone == [(out / i["path"]).read_bytes() for i in base["images"][1:]], item_id
        assert item["inputs"]["visuals"] == base["inputs"]["visuals"]
        assert item["answer"] == base["answer"]


@pytest.mark.slow
def test_variants_that_would_move_a_location_skip_with_their_reason(
        augmented: tuple[Path, Path], bases: dict[Any, Item]) -> None:
    _, out = augmented
    manifest = json.loads((out / "manifest.json").read_text())
    located = bases[PLACE].base_id
    skipped = {(s["base_id"], s["variant"]): s["why"] for s in manifest["skipped"]}
    assert skipped[(located, "structural")] == MOVES_PLACE
    assert skipped[(located, "partial")] == PANELS_RENUMBER
    assert not any("does not show the pictures" in why for why in skipped.values())


def swap_rows(render: dict[str, Any]) -> None:
    """Rows 1 and 2 recorded as drawn the other way round: each cell takes the box of the
    same column's cell in the other row, its picture moving along."""
    boxes = {(c["row"], c["col"]): c["box"] for c in render["cells"]}
    for cell in render["cells"]:
        if cell["row"] in (1, 2):
            cell["box"] = boxes[(3 - cell["row"], cell["col"])]
    for picture in render["visuals"]:
        if picture["row"] in (1, 2):
            old, new = boxes[(picture["row"], picture["col"])], \
                boxes[(3 - picture["row"], picture["col"])]
            picture["box"] = [picture["box"][0] + new[0] - old[0],
                              picture["box"][1] + new[1] - old[1], *picture["box"][2:]]


@pytest.mark.slow
def test_forged_variants_are_each_named(augmented: tuple[Path, Path], bases: dict[Any, Item],
                                        tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    forged = tmp_path / "forged"
    shutil.copytree(augmented[1], forged)
    items = read_items(forged)

    def variant(recipe: str, base: Item | None = None, pictures: int = 1) -> dict[str, Any]:
        return next(i for i in items if i["variant"]["recipe"] == recipe and
                    (base is None or i["base_id"] == base.base_id) and
                    len(i["inputs"]["visuals"]) >= pictures)

    lost = variant("photo")  # a picture's record dropped
    lost["images"][0]["render"]["visuals"] = lost["images"][0]["render"]["visuals"][1:]
    moved = variant("structural")  # a picture recorded inside another cell
    render = moved["images"][0]["render"]
    first = render["visuals"][0]
    other = next(c for c in render["cells"] if (c["row"], c["col"]) != (first["row"],
                                                                          first["col"]))
    first["box"] = [other["box"][0] + 1, other["box"][1] + 1, *first["box"][2:]]
    swapped = variant("partial", pictures=2)  # two pictures written alone, each in the other's file
    one, two = swapped["images"][1], swapped["images"][2]
    data = (forged / one["path"]).read_bytes(), (forged / two["path"]).read_bytes()
    assert data[0] != data[1]
    (forged / one["path"]).write_bytes(data[1])
    (forged / two["path"]).write_bytes(data[0])
    one["sha256"], two["sha256"] = two["sha256"], one["sha256"]
    listed, located = variant("noise", bases[ORDER]), variant("noise", bases[PLACE])
    for item in (listed, located):
        swap_rows(item["images"][0]["render"])
    reseal(forged, items)
    capsys.readouterr()
    assert main(["verify", str(forged)]) != 0
    text = "".join(capsys.readouterr())

    def named(item: dict[str, Any], problem: str) -> str:
        return f"item {item['id']}: table image images/{item['id']}.table.png: {problem}"

    assert named(lost, "render.visuals does not show each picture once") in text
    assert named(moved, f"the picture of row {first['row']}, col {first['col']} is not "
                        "inside its cell") in text
    for image in (one, two):
        assert f"item {swapped['id']}: cell-image image {image['path']}: is not the " in text
    assert named(listed, "the answer lists rows in table order, but the image shows the rows "
                         "in another order") in text
    assert named(located, "the answer names a cell by its place in the table as built "
                          "(row_i_col_j), but the image shows a column whose cells do not "
                          "run top to bottom") in text
    assert "FAILED: 6 problem(s)" in text


@pytest.mark.slow
def test_every_variant_is_shown_as_one_image_and_interleaved(
        augmented: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, out = augmented
    dataset = hopvista.load(out)
    template = default_template("mmtable")
    for item in dataset:
        as_image = build_prompt(item, dataset, SETTINGS["table-as-image"], template)
        shot = "page" if item.variant.recipe == "screenshot" else "table"
        assert [(p.role, len(p.png) > 0) for p in as_image.parts if not isinstance(p, str)] \
            == [(shot, True)], item.id
        interleaved = build_prompt(item, dataset, SETTINGS["interleaved"], template)
        assert [p.png for p in interleaved.parts if not isinstance(p, str)] == \
            [dataset.image_file(i).read_bytes() for i in item.images[1:]], item.id
    assert main(["eval", str(out), "--model", "oracle", "--setting", "table-as-image",
                 "--out", str(tmp_path / "run")]) == 0
    assert "accuracy 100.0%" in capsys.readouterr().out
