"""Variants that look as real documents do: merged labels centred on their rows, screenshot
pages no taller than a window, no table image far wider than tall (or the reverse), a LaTeX
table in another LaTeX face when Latin Modern lacks a glyph, and `missing` skips told per
question type."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from hopvista.augment.grid import grid_of_table, merged, plain
from hopvista.model.inputs import GridTable
from hopvista.render.panels import layout_document
from hopvista.render.table import TableRenderer, parse_style
from tests.conftest import default_style


@pytest.fixture(scope="module")
def renderer() -> Iterator[TableRenderer]:
    """One warm table renderer for the module."""
    with TableRenderer() as opened:
        yield opened


def _ink_rows(png: bytes, box: list[int]) -> list[int]:
    """The rows of ``box`` (image coordinates) holding dark pixels: the text's."""
    image = Image.open(io.BytesIO(png)).convert("L")
    x, y, w, h = box
    inside = image.crop((x + 3, y + 3, x + w - 3, y + h - 3))
    pixels = inside.load()
    assert pixels is not None
    return [y + 3 + j for j in range(inside.height)
            if any(int(pixels[i, j]) < 110 for i in range(inside.width))]


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["latex", "excel", "wikitable"])
def test_a_merged_label_sits_in_the_middle_of_the_rows_it_spans(
        renderer: TableRenderer, theme: str) -> None:
    table = GridTable(header=("Company", "Year", "Sales"),
                      rows=(("Acme", "2021", "10"), ("Acme", "2022", "11"),
                            ("Acme", "2023", "12"), ("Acme", "2024", "13"),
                            ("Bolt", "2021", "9")))
    layout = merged(plain(grid_of_table(table, {})))
    style = parse_style(default_style(theme))
    png, shot = renderer.shoot(layout_document(layout, style), style, "panels")
    boxes: dict[tuple[int, int], Any] = {(c["row"], c["col"]): c["box"] for c in shot["cells"]}
    label = boxes[(1, 0)]
    assert label == boxes[(4, 0)] and label[3] > 3 * boxes[(5, 0)][3]  # one box, four rows
    ink = _ink_rows(png, label)
    assert ink, "the merged label shows no text"
    middle = (ink[0] + ink[-1]) / 2
    centre = label[1] + label[3] / 2
    assert abs(middle - centre) < label[3] / 8, (ink[0], ink[-1], label)
