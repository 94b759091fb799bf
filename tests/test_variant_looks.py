"""Variants that look as real documents do: merged labels centred on their rows, screenshot
pages no taller than a window, no table image far wider than tall (or the reverse), a LaTeX
table in another LaTeX face when Latin Modern lacks a glyph, and `missing` skips told per
question type."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from hopvista.augment.grid import grid_of_table, merged, plain
from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.model.inputs import GridTable
from hopvista.render.panels import layout_document
from hopvista.render.table import TableRenderer, parse_style
from hopvista.sources.imports.common import make_item
from hopvista.themes.fonts import covers
from hopvista.themes.tables import get_theme
from hopvista.variants.maker import SCROLL_MARGIN, scroll_to
from hopvista.variants.questions import question_type
from tests.conftest import default_style, read_items


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


LACKING = "\u2264"
"""A glyph (less-than or equal to) that neither Latin Modern Roman nor CMU Serif has."""

RECORDS = [
    {"id": "count", "question": "How many towns have more than 500 people?", "answer": "3",
     "table": {"rows": [["Town", "People"], ["Oslo", "1,234"], ["Bergen", "885"],
                        ["Moss", "640"], ["Vik", "120"]]}},
    {"id": "look", "question": "What is the population of Oslo?", "answer": "1,234",
     "table": {"rows": [["Town", "People", "Ferry"], ["Oslo", "1,234", f"{LACKING} 5 km"],
                        ["Bergen", "885", "12 km"], ["Moss", "640", "7 km"]]}},
    {"id": "wide", "question": "What did Oslo sell in week 7?", "answer": "107",
     "table": {"rows": [["Town", *(f"Week {w}" for w in range(1, 31))],
                        ["Oslo", *(str(100 + w) for w in range(1, 31))],
                        ["Moss", *(str(200 + w) for w in range(1, 31))]]}},
    {"id": "tall", "question": "What is the population of Town 47?", "answer": "557",
     "table": {"rows": [["Place", "People"], *([f"Town {t}", str(510 + t)] for t in range(60))]}},
]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Imported questions (a counting one; a lookup whose table shows a glyph Latin Modern
    lacks; a table 30 columns wide, one 60 rows tall) in the latex, missing and screenshot
    variants; the output and what the run said."""
    root = tmp_path_factory.mktemp("imported")
    source = root / "questions.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    out = root / "variants"
    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer):
        assert main(["augment", str(source), "--variants", "latex,missing,screenshot",
                     "--out", str(out)]) == 0
    return out, buffer.getvalue()


def test_the_latex_theme_names_faces_for_glyphs_its_own_lack() -> None:
    theme = get_theme("latex")
    assert not any(covers(font, LACKING) for font in theme.fonts)
    assert theme.fallback_fonts and all(covers(f, LACKING) for f in theme.fallback_fonts)


@pytest.mark.slow
def test_a_latex_variant_falls_back_to_a_latex_face_that_has_the_glyph(
        imported: tuple[Path, str]) -> None:
    out, _ = imported
    (item,) = [i for i in read_items(out)
               if i["base_id"].endswith("look") and i["variant"]["name"] == "latex"]
    style = item["variant"]["style"]["table"]
    assert style["font"] in get_theme("latex").fallback_fonts
    assert style["font_fallback"] == {"CMU Serif": LACKING, "Latin Modern Roman": LACKING}
    (table,) = [im for im in item["images"] if im["role"] == "table"]
    assert table["render"]["font"] == style["font"]  # every glyph drawn in the face recorded


@pytest.mark.slow
def test_missing_skips_are_told_per_question_type(imported: tuple[Path, str]) -> None:
    out, said = imported
    why = "every value cell is protected"
    assert f"missing skipped, by question type: counting 1 of 1 ({why})" in said
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["variants"]["skipped_by_question_type"] == {
        "missing": {"counting": {"skipped": 1, "bases": 1, "why": why}}}
    assert f"| missing | counting | 1 of 1 | {why} |" in (out / "README.md").read_text()
    made = {(i["base_id"], i["variant"]["name"]) for i in read_items(out)}
    assert any(base.endswith("look") and name == "missing" for base, name in made)


@pytest.mark.slow
def test_no_variant_table_is_more_than_five_times_wider_than_tall_or_the_reverse(
        imported: tuple[Path, str]) -> None:
    out, _ = imported
    items = read_items(out)
    for item in items:
        if item["variant"]["name"] == "screenshot":
            continue
        (table,) = [im for im in item["images"] if im["role"] == "table"]
        width, height = table["width"], table["height"]
        assert width <= 5 * height and height <= 5 * width, (item["id"], width, height)
    wrapped = {(_record(i), i["variant"]["name"]): i["variant"]["parameters"].get("wrapped")
               for i in items}
    assert wrapped[("wide", "latex")]["cut"] == "columns"
    assert wrapped[("tall", "latex")]["cut"] == "rows"
    assert wrapped[("look", "latex")] is None
    assert main(["verify", str(out)]) == 0  # every cell recorded once, copies show their cell


def _record(item: dict[str, Any]) -> str:
    """The id of the record an imported item was made from."""
    return str(item["base_id"]).rsplit("-", 1)[-1]


@pytest.mark.slow
def test_a_long_page_is_a_window_scrolled_to_the_cells_the_answer_reads(
        imported: tuple[Path, str]) -> None:
    out, _ = imported
    pages = {_record(i): i for i in read_items(out) if i["variant"]["name"] == "screenshot"}
    assert set(pages) == {r["id"] for r in RECORDS}
    for item in pages.values():
        (page,) = item["images"]
        assert page["height"] <= 1400 and page["height"] <= 5 * page["width"]
    tall = pages["tall"]
    parameters, (page,) = tall["variant"]["parameters"], tall["images"]
    assert parameters["scroll_px"] > 0 and 1000 <= parameters["height_px"] <= 1400
    region = page["render"]["viewport"]
    cells = {(c["row"], c["col"]): c["box"] for c in page["render"]["cells"]}

    def inside(box: list[int]) -> bool:
        return box[3] > 0 and region[1] <= box[1] and \
            box[1] + box[3] <= region[1] + region[3]

    assert inside(cells[(48, 0)]) and inside(cells[(48, 1)])  # Town 47 and its people
    assert cells[(0, 0)][3] == cells[(1, 0)][3] == 0  # header, Town 0: scrolled away
    image = Image.open(out / page["path"]).convert("L")
    x, y, w, h = cells[(48, 1)]
    assert image.crop((x, y, x + w, y + h)).getextrema()[0] < 110  # its text is drawn there


def test_a_page_scrolls_as_little_as_shows_what_it_must() -> None:
    layout = {"height": 3000, "viewport": [0, 100, 1000, 2900]}
    needed = ([[0, 2000, 100, 30], [0, 2300, 100, 30]], "the cells")
    assert scroll_to(layout, needed, (3000, 3000), "browser") is None
    height, shown, scroll = scroll_to(layout, needed, (1000, 1000), "browser")
    assert (height, shown) == (1000, 900)
    assert scroll == 2330 - 100 + SCROLL_MARGIN - 900
    assert scroll_to(layout, needed, (300, 1000), "browser")[0] == 100 + 330 + 2 * SCROLL_MARGIN
    whole = ([[0, 110, 100, 30], [0, 2960, 100, 30]], "the cells")
    assert scroll_to(layout, whole, (1000, 3200), "browser") == (3000, 2900, 0)
    with pytest.raises(UserError, match="the cells take 330 px of the page, more than the 200"):
        scroll_to(layout, needed, (300, 300), "browser")
    with pytest.raises(UserError, match="marks no data-viewport"):
        scroll_to({"height": 3000}, needed, (1000, 1000), "mine")


@pytest.mark.parametrize(("question", "answer_type", "kind"), [
    ("How many towns have more than 500 people?", "text", "counting"),
    ("What is the number of ferries?", "text", "counting"),
    ("How many more people live in Oslo than in Moss?", "text", "arithmetic"),
    ("What was the change in net income from 2018 to 2019?", "text", "arithmetic"),
    ("Which town has the most people?", "text", "superlative"),
    ("Did Oslo have more people than Moss?", "text", "comparison"),
    ("What is the population of Oslo?", "text", "lookup"),
    ("Is the following statement true of the table?", "boolean", "true/false"),
])
def test_an_imported_question_s_type_is_read_from_its_wording(
        question: str, answer_type: str, kind: str) -> None:
    table = GridTable(header=("Town", "People"), rows=(("Oslo", "1,234"),))
    item = make_item(fmt="jsonl", base_id="jsonl-q", kind="table_qa", question=question,
                     answer=True if answer_type == "boolean" else "1", answer_type=answer_type,
                     table=table, source="questions.jsonl")
    assert question_type(item) == kind
