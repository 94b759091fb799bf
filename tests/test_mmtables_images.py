"""Images of multimodal tables: the table with its cell visuals drawn by Chromium in every
theme, whose pixels show each visual's recorded first colour where ``render.cells`` puts it;
each visual alone as a ``cell-image``; a page that loads nothing; themes that cannot hide a
visual."""

from __future__ import annotations

import dataclasses
import hashlib
import io
from collections import Counter
from pathlib import Path
from typing import Any

import numpy
import pytest
from bs4 import BeautifulSoup
from PIL import Image as PILImage

from hopvista.errors import UserError
from hopvista.model import Item, by_role
from hopvista.model.inputs import GridTable
from hopvista.render.mmtable import (
    CELL_IMAGE_PX,
    mmtable_document,
    render_mmtable_images,
    visual_size_px,
)
from hopvista.render.table import TableRenderer, parse_style
from hopvista.rng import Streams
from hopvista.themes.tables import TABLE_THEMES, theme_from_file
from hopvista.themes.visuals import VISUAL_KINDS
from tests.conftest import default_style

KINDS = tuple(VISUAL_KINDS.names())
TOLERANCE = 3
"""How far (per channel, 0-255) a shown colour may be from the drawn one."""


def visual_json(kind: str, row: int, col: int, seed: int = 0) -> dict[str, Any]:
    """A visual of ``kind`` at ``(row, col)`` with sampled attributes, as the format holds it."""
    drawer = VISUAL_KINDS.get(kind)
    attributes = drawer.sample(Streams(seed, "mmtables-images"), slot=f"r{row}c{col}")
    return {"row": row, "col": col, "kind": kind, "colors": drawer.colors(attributes),
            "attributes": attributes, "description": drawer.description(attributes)}


def mm_item(theme: str = "classic", rows: int = 2, seed: int = 0,
            visuals: list[dict[str, Any]] | None = None, index: int = 0) -> Item:
    """A hand-built mmtable item: a name column, one column per visual kind, a points
    column; every visual cell of every row holds a visual of its column's kind."""
    header = ["Club", *(kind.title() for kind in KINDS), "Points"]
    body = [[f"Club {r}", *([""] * len(KINDS)), str(10 * r)] for r in range(1, rows + 1)]
    if visuals is None:
        visuals = [visual_json(kind, r, c, seed) for r in range(1, rows + 1)
                   for c, kind in enumerate(KINDS, start=1)]
    base = f"mmtables-s{seed}-{index:06d}"
    return Item.model_validate({
        "id": f"{base}.base", "base_id": base, "domain": "mmtables", "kind": "mmtable",
        "inputs": {"table": {"header": header, "rows": body}, "visuals": visuals},
        "question": "Which club has the red badge?", "answer": "Club 1",
        "answer_type": "text",
        "tags": {"archetype": "multi-entity", "question_type": "visual",
                 "reasoning": "vision-based", "answer_type": "single-entity"},
        "program": {"op": "lookup"},
        "variant": {"style": {"table": default_style(theme)}},
        "provenance": {"generator": "test", "source": "hand-built", "index": index}})


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def near(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return all(abs(x - y) <= TOLERANCE for x, y in zip(a, b, strict=True))


def most_shown_colour(table_png: Path, cell_box: list[int], visual_box: list[int],
                      drawn: bytes) -> tuple[int, int, int]:
    """The colour most often shown on the visual's own (opaque) area, read from the table
    image inside the cell's box: anti-aliased edges and the theme's background, which show
    through where the visual is transparent, are not counted."""
    table = PILImage.open(table_png).convert("RGB")
    cx, cy, cw, ch = cell_box
    cell = table.crop((cx, cy, cx + cw, cy + ch))
    vx, vy, size, _ = visual_box
    mask = PILImage.open(io.BytesIO(drawn)).convert("RGBA").getchannel("A")
    counts: Counter[tuple[int, int, int]] = Counter()
    for y in range(size):
        for x in range(size):
            if mask.getpixel((x, y)) == 255:
                counts[cell.getpixel((vx - cx + x, vy - cy + y))] += 1
    assert counts, "the visual has no opaque pixel"
    return counts.most_common(1)[0][0]


def cell_box(render: dict[str, Any], row: int, col: int) -> list[int]:
    [box] = [c["box"] for c in render["cells"] if (c["row"], c["col"]) == (row, col)]
    return box


def inside(inner: list[int], outer: list[int]) -> bool:
    return (outer[0] <= inner[0] and outer[1] <= inner[1]
            and inner[0] + inner[2] <= outer[0] + outer[2]
            and inner[1] + inner[3] <= outer[1] + outer[3])


@pytest.fixture(scope="module")
def renderer() -> Any:
    with TableRenderer() as opened:
        yield opened


# -- the page (no browser) ---------------------------------------------------------------------


def test_the_page_shows_each_visual_as_a_data_uri_and_runs_no_script() -> None:
    item = mm_item()
    assert isinstance(item.inputs.table, GridTable)
    style = parse_style(default_style("classic"))
    html, size = mmtable_document(item.inputs.table, item.inputs.visuals, style, item.id)
    page = BeautifulSoup(html, "html.parser")
    assert not page.find_all("script") and not page.find_all(attrs={"onload": True})
    images = page.find_all("img")
    assert len(images) == len(item.inputs.visuals)
    for image, visual in zip(images, item.inputs.visuals, strict=True):
        assert image["data-visual"] == f"{visual.row},{visual.col}"
        assert image["src"].startswith("data:image/png;base64,")
        assert image["width"] == image["height"] == str(size)
        assert image.find_parent("td")["data-row"] == str(visual.row)
    for element in page.find_all(True):
        for name, value in element.attrs.items():
            if name != "src":
                assert "://" not in str(value) and "url(" not in str(value)
    assert "url(" not in html and "@import" not in html
    assert size == visual_size_px(style) and 2.4 * style.font_size_px <= size <= 2.8 * 14


@pytest.mark.parametrize(("places", "words"), [
    ([(3, 1)], "inputs.visuals[0]: cell row 3, col 1 is outside the table (2 rows"),
    ([(1, 10)], "inputs.visuals[0]: cell row 1, col 10 is outside the table (2 rows under the "
                "header, 10 columns)"),
    ([(1, 1), (1, 1)], "inputs.visuals[1]: cell row 1, col 1 already holds a visual"),
])
def test_a_misplaced_visual_is_one_line_naming_it(places: list[tuple[int, int]],
                                                  words: str) -> None:
    item = mm_item(visuals=[visual_json("badge", r, c) for r, c in places])
    assert isinstance(item.inputs.table, GridTable)
    with pytest.raises(UserError) as error:
        mmtable_document(item.inputs.table, item.inputs.visuals,
                         parse_style(default_style("classic")), item.id)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"item {item.id}: ")
    assert words in message


def test_a_visual_of_an_unknown_kind_or_bad_attributes_is_one_line(tmp_path: Path) -> None:
    wrong_kind = visual_json("badge", 1, 1) | {"kind": "hologram"}
    bad_shape = visual_json("badge", 1, 1)
    bad_shape["attributes"] = bad_shape["attributes"] | {"shape": "blob"}
    for visual, words in ((wrong_kind, "hologram"), (bad_shape, "shape")):
        with pytest.raises(UserError) as error:
            render_mmtable_images(mm_item(visuals=[visual]), tmp_path, TableRenderer())
        assert "\n" not in str(error.value) and words in str(error.value)
    assert not (tmp_path / "images").exists()  # refused before anything was written


def test_an_item_without_a_grid_table_or_a_style_is_refused(tmp_path: Path) -> None:
    item = mm_item(visuals=[visual_json("badge", 1, 1)])
    unstyled = item.model_copy(update={"variant": item.variant.model_copy(update={"style": {}})})
    with pytest.raises(UserError, match=r"variant\.style\.table is missing"):
        render_mmtable_images(unstyled, tmp_path, TableRenderer())


@pytest.mark.parametrize("rule", [
    "img { display: none; }",
    ".hv-table img { width: 0; }",
    ".hv-table td { display: none; }",
    ".hv-table td * { visibility: hidden; }",
    ".hv-table td * { opacity: 0; }",
    ".hv-table * { height: 0; }",
    ".hv-table td { max-width: 0; }",
    ".hv-table td > * { transform: scale(0); }",
    ".hv-table td { overflow: hidden; }",
    ".hv-table td { clip-path: inset(50%); }",
])
def test_a_theme_that_tries_to_hide_images_is_refused_with_one_line(rule: str) -> None:
    text = ("/* hopvista-theme\n name: veil\n family: custom\n fonts: [Caladea]\n"
            " description: Hides pictures.\n font_size_px: [13, 16]\n accents: [\"#704214\"]\n*/\n"
            f"{rule}\n")
    with pytest.raises(UserError) as error:
        theme_from_file(text, "themes/veil.css")
    message = str(error.value)
    assert "\n" not in message and message.startswith("themes/veil.css:9: ")
    assert "not allowed in a theme" in message


# -- pixels (Chromium) -------------------------------------------------------------------------


def check_pixels(table_png: Path, render: dict[str, Any], item: Item) -> None:
    """Every visual's box is a whole ``visual_px`` square inside its cell's box, and its
    opaque area shows its recorded first colour most."""
    size = render["visual_px"]
    boxes = {(v["row"], v["col"]): v["box"] for v in render["visuals"]}
    assert len(boxes) == len(item.inputs.visuals)
    for visual in item.inputs.visuals:
        box, cell = boxes[(visual.row, visual.col)], cell_box(render, visual.row, visual.col)
        assert box[2:] == [size, size] and inside(box, cell), (visual.kind, box, cell)
        drawn = VISUAL_KINDS.get(visual.kind).draw(visual.attributes, size)
        shown = most_shown_colour(table_png, cell, box, drawn)
        assert near(shown, rgb(visual.colors[0])), (visual.kind, shown, visual.colors)
        assert opaque_pixels_as_drawn(table_png, box, drawn), visual.kind


def opaque_pixels_as_drawn(table_png: Path, box: list[int], drawn: bytes) -> bool:
    """Whether every opaque pixel of the drawing shows in the table image at ``box`` as
    drawn: the browser neither resampled nor covered it."""
    x, y, size, _ = box
    shown = numpy.asarray(PILImage.open(table_png).convert("RGB"), dtype=int)
    picture = numpy.asarray(PILImage.open(io.BytesIO(drawn)).convert("RGBA"), dtype=int)
    opaque = picture[..., 3] == 255
    crop = shown[y:y + size, x:x + size]
    return bool(numpy.abs(crop[opaque] - picture[..., :3][opaque]).max() <= TOLERANCE)


@pytest.mark.slow
@pytest.mark.parametrize("theme", TABLE_THEMES.names())
def test_every_visual_kind_shows_its_first_colour_in_its_cell(
        theme: str, renderer: TableRenderer, tmp_path: Path) -> None:
    item = mm_item(theme, rows=1, seed=len(theme))
    drawn = render_mmtable_images(item, tmp_path, renderer)
    [table] = by_role(drawn.images, "table")
    assert table.render["visual_px"] == visual_size_px(parse_style(default_style(theme)))
    check_pixels(tmp_path / table.path, table.render, item)
    assert renderer.blocked_requests == []


@pytest.mark.slow
def test_cell_images_are_the_kinds_drawings_in_reading_order(
        renderer: TableRenderer, tmp_path: Path) -> None:
    item = mm_item("zebra", rows=2)
    drawn = render_mmtable_images(item, tmp_path, renderer)
    assert item.images == ()  # the given item is unchanged
    assert [image.role for image in drawn.images] == ["table"] + ["cell-image"] * 16
    cells = by_role(drawn.images, "cell-image")
    order = sorted(item.inputs.visuals, key=lambda v: (v.row, v.col))
    for number, (image, visual) in enumerate(zip(cells, order, strict=True), start=1):
        assert image.path == f"images/{item.id}.cell-image.{number}.png"
        assert image.render == {"row": visual.row, "col": visual.col, "kind": visual.kind,
                                "size_px": CELL_IMAGE_PX}
        data = (tmp_path / image.path).read_bytes()
        assert data == VISUAL_KINDS.get(visual.kind).draw(visual.attributes, CELL_IMAGE_PX)
        assert image.sha256 == hashlib.sha256(data).hexdigest()
        assert (image.width, image.height) == (CELL_IMAGE_PX, CELL_IMAGE_PX)


@pytest.mark.slow
def test_same_item_same_style_same_bytes(renderer: TableRenderer, tmp_path: Path) -> None:
    item = mm_item("excel", rows=2, seed=3)
    first = render_mmtable_images(item, tmp_path / "a", renderer)
    render_mmtable_images(mm_item("dark", seed=4, index=1), tmp_path / "a", renderer)
    with TableRenderer() as fresh:
        second = render_mmtable_images(item, tmp_path / "b", fresh)
    assert first.model_dump(mode="json") == second.model_dump(mode="json")
    for image in first.images:
        assert (tmp_path / "a" / image.path).read_bytes() == \
            (tmp_path / "b" / image.path).read_bytes()


@pytest.mark.slow
def test_a_theme_allowed_to_pad_and_frame_everything_still_shows_each_visual_whole(
        renderer: TableRenderer, tmp_path: Path) -> None:
    text = ("/* hopvista-theme\n name: padded\n family: custom\n fonts: [Caladea]\n"
            " description: Pads and frames.\n font_size_px: [13, 16]\n accents: [\"#704214\"]\n*/\n"
            ".hv-table td > * { padding: 20px; border: 8px solid #111111; "
            "background: #ff00ff; margin: 10px; }\n"
            ".hv-table td { background: #ff00ff; }\n")
    style = dataclasses.replace(parse_style(default_style("classic")),
                                theme=theme_from_file(text, "themes/padded.css"))
    item = mm_item(rows=1, seed=5)
    assert isinstance(item.inputs.table, GridTable)
    html, _ = mmtable_document(item.inputs.table, item.inputs.visuals, style, item.id)
    png, layout = renderer.shoot(html, style, "panels")
    (tmp_path / "t.png").write_bytes(png)
    check_pixels(tmp_path / "t.png", layout | {"visual_px": visual_size_px(style)}, item)
