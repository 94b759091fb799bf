"""Mark kinds (highlight, underline, bold, arrow, row, column, circle, hand-drawn): every
registered kind has its two counterfactual variants, draws on a table only inside the box the
renderer records for the marked cell, and is named by the record; and the markup distractor
is one a misled reader answers differently by, so ``gen eval`` can put wrong answers down to
the marker."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hopvista.augment.grid import grid_of_table, marked, plain
from hopvista.augment.markup import VARIANTS, choose_cells, look
from hopvista.augment.recipes import Skip, base_of_item
from hopvista.cli.main import main
from hopvista.markup_tasks.build import by_family, draw_task, mark_styles
from hopvista.markup_tasks.tables import domain_tables
from hopvista.model import Item
from hopvista.model.inputs import GridTable
from hopvista.render.panels import layout_document
from hopvista.render.table import TableRenderer, parse_style
from hopvista.rng import Streams
from hopvista.themes.marks import MARK_KINDS, MarkKind
from hopvista.themes.marks.hand import sample
from hopvista.themes.tables import get_theme
from hopvista.verify.markup import question_problems, task_problems

from .test_render_table import chromium_available

KINDS = MARK_KINDS.names()

GRID = grid_of_table(GridTable(
    caption="Revenue (USD millions)",
    header=("Company", "2021", "2022", "2023"),
    rows=(("Bowers Brands", "1,204.5", "1,310.2", "998.7"),
          ("Tucker Resources Inc.", "87.1", "91.0", "104.3"),
          ("Sanders Controls", "5,026.8", "4,152.5", "4,421.5"),
          ("Clark Carriers", "412.0", "398.6", "455.9"))), {})

PLACES = {"value": (2, 2), "label": (3, 0)}
"""A right-aligned number in the middle of the table, and a row label."""


def test_every_mark_kind_has_a_target_and_a_distractor_variant() -> None:
    for name in KINDS:
        kind = MARK_KINDS.get(name)
        assert VARIANTS[f"markup-{kind.code}c"] == (name, "target")
        assert VARIANTS[f"markup-{kind.code}i"] == (name, "distractor")
    assert VARIANTS["markup-n"] == (None, None)
    assert len(VARIANTS) == 1 + 2 * len(KINDS)
    # HighlightBench's three keep their names
    assert VARIANTS["markup-hc"] == ("highlight", "target")
    assert VARIANTS["markup-ui"] == ("underline", "distractor")
    assert VARIANTS["markup-bi"] == ("bold", "distractor")


def test_a_mark_kind_with_a_bad_code_or_scope_is_refused() -> None:
    with pytest.raises(ValueError, match="code 'n'"):
        MarkKind("dot", "n", "dotted", "a dot", lambda look: "")
    with pytest.raises(ValueError, match="scope 'page'"):
        MarkKind("dot", "t", "dotted", "a dot", lambda look: "", scope="page")
    with pytest.raises(ValueError, match="paint 'glow'"):
        MarkKind("dot", "t", "dotted", "a dot", lambda look: "", paint="glow")


def test_hand_drawn_marks_are_seeded_and_differ_between_items() -> None:
    one = sample(Streams(3, "item-1", "markup"))
    assert one == sample(Streams(3, "item-1", "markup"))
    assert one != sample(Streams(3, "item-2", "markup"))


@pytest.fixture(scope="module")
def renderer() -> Any:
    reason = chromium_available()
    if reason is not None:
        pytest.skip(reason)
    with TableRenderer() as shooter:
        yield shooter


def _style(theme: str) -> dict[str, Any]:
    spec = get_theme(theme)
    style: dict[str, Any] = {"theme": theme, "font": spec.fonts[0], "accent": spec.accents[0]}
    for key in ("font_size_px", "padding_y_px", "padding_x_px", "margin_px", "header_max_em"):
        style[key] = getattr(spec, key)[0]
    return style


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["classic", "excel"])
def test_each_mark_kind_changes_pixels_only_inside_its_recorded_box(renderer: TableRenderer,
                                                                    theme: str) -> None:
    style = parse_style(_style(theme))
    drawn = look(Streams(5, "marks", "markup")) | sample(Streams(5, "marks", "markup"))
    png, _ = renderer.shoot(layout_document(plain(GRID), style, drawn), style, "panels")
    before = _pixels(png)
    for name in KINDS:
        kind = MARK_KINDS.get(name)
        for where, at in PLACES.items():
            html = layout_document(marked(plain(GRID), {at: name}), style, drawn)
            png, layout = renderer.shoot(html, style, "panels")
            after = _pixels(png)
            assert after.shape == before.shape, f"{name} on the {where} moved the table"
            cells = [c for c in layout["cells"] if c.get("mark")]
            assert [(c["row"], c["col"], c["mark"]) for c in cells] == [(*at, name)]
            x, y, w, h = cells[0].get("mark_box", cells[0]["box"])
            assert ("mark_box" in cells[0]) == kind.reaches_beyond_cell, name
            changed = np.argwhere((after != before).any(axis=2))
            assert len(changed), f"{name} on the {where} drew nothing"
            outside = [(int(px), int(py)) for py, px in changed
                       if not (x <= px < x + w and y <= py < y + h)]
            assert not outside, f"{name} on the {where} ({theme}) changed pixels " \
                f"{outside[:3]} outside its box {[x, y, w, h]}"
            if kind.scope != "cell":  # a row or column mark covers its whole row or column
                others = [c["box"] for c in layout["cells"]
                          if (c["row"] == at[0] if kind.scope == "row" else c["col"] == at[1])]
                assert all(x <= b[0] and b[0] + b[2] <= x + w and y <= b[1]
                           and b[1] + b[3] <= y + h for b in others), name


def test_the_distractor_changes_the_answer_in_most_generated_items(hard48: Path) -> None:
    """On the README's reference build (48 three-hop items), a reader misled by the marker
    on the distractor answers differently from the right answer in at least 80% of them."""
    told = total = 0
    for line in (hard48 / "items.jsonl").read_text().splitlines():
        base = base_of_item(Item.model_validate_json(line))
        try:
            cells = choose_cells(base, Streams(7, base.item.base_id, "markup"))
        except Skip:
            continue
        total += 1
        hijacked = cells["hijacked"]
        told += hijacked["distinguishes"]
        if hijacked["distinguishes"]:  # one statement's label flipped, nothing else
            target, rival = cells["target"], cells["distractor"]
            assert target["column"] == rival["column"]
            assert set(hijacked["answer"]) ^ set(base.item.answer) == {target["statement"]}
    assert total == 48
    assert told >= 0.8 * total, f"the distractor changes the answer in {told} of {total}"


def test_markup_tasks_draw_from_every_kind_that_marks_a_cell() -> None:
    styles = mark_styles("all")
    assert set(styles) == {n for n in KINDS if MARK_KINDS.get(n).scope == "cell"}
    supply, families = domain_tables("financial", 0, None, None), by_family()
    seen: set[str] = set()
    for index in range(30):
        item, drawn, _ = draw_task(0, index, supply, families, styles)
        seen |= {m.style for m in drawn.marks}
        assert task_problems(item) == [] and question_problems(item, print) == [], item.id
    assert seen == set(styles)


@pytest.mark.parametrize("marks,message", [
    ("highlight,row,bold", "--marks: 'row' marks a whole row; a markup task marks single cells"),
    ("arrow,circle", "--marks names 2 mark kind(s); a markup task draws from at least three"),
    ("arrow,circle,sparkle", "--marks: unknown mark kind 'sparkle' (known: highlight, "),
])
def test_gen_markup_refuses_marks_a_task_cannot_draw(marks: str, message: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tasks"
    assert main(["markup", "-n", "2", "--marks", marks, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gen: error: {message}") and err.count("\n") == 1, err
    assert not out.exists()
