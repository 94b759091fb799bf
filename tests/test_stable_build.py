"""A table theme and a chart library registered from outside change only the items that pick
them: two builds with images, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hopvista.building.pipeline import BuildConfig, build
from hopvista.model import base_item_id
from hopvista.render.libraries import BUILTIN_KINDS, draw_matplotlib
from hopvista.rng import choose
from hopvista.themes.charts import CHART_LIBRARIES, ChartLibrary
from hopvista.themes.tables import TABLE_THEMES, Theme

pytestmark = pytest.mark.slow  # two builds with images

COUNT = 8
SEPIA = Theme("test-sepia", ("Liberation Sans", "DejaVu Sans"),
              "A plug-in's theme: sepia page, accent rules under every row.",
              css=":root { --hv-bg: #f4ecd8; }\n"
                  ".hv-head th { border-bottom: 2px solid var(--hv-accent); }\n"
                  ".hv-body td { border-bottom: 1px solid var(--hv-accent); }\n",
              accents=("#704214",))
OPEN_MPL = ChartLibrary("test-open-mpl", "A plug-in's library: matplotlib, open spines.",
                        BUILTIN_KINDS, {True: ("open",), False: ("open",)}, draw_matplotlib,
                        ("matplotlib",))


def _picks(seed: int) -> tuple[set[int], set[int]]:
    """Indices whose table theme would be the new theme, and whose chart library the new
    library (every built-in library draws every kind, so the kind does not matter)."""
    themes = [*TABLE_THEMES.names(), SEPIA.name]
    libraries = [*CHART_LIBRARIES.names(), OPEN_MPL.name]
    ids = [base_item_id("financial", seed, i) for i in range(COUNT)]
    return ({i for i, x in enumerate(ids) if choose(themes, seed, x, "base", "table.theme")
             == SEPIA.name},
            {i for i, x in enumerate(ids) if choose(libraries, seed, x, "base", "chart.library")
             == OPEN_MPL.name})


def _seed() -> int:
    """A seed where some items, not all, pick each new entry."""
    for seed in range(200):
        themed, charted = _picks(seed)
        if themed and charted and len(themed | charted) <= COUNT // 2:
            return seed
    raise AssertionError("no seed picks the new entries")


def _dataset(out: Path) -> list[tuple[dict[str, Any], str, dict[str, bytes]]]:
    """Per item: the parsed item, its items.jsonl line, and its image bytes by role."""
    lines = (out / "items.jsonl").read_text(encoding="utf-8").splitlines()
    result = []
    for line in lines:
        item = json.loads(line)
        result.append((item, line, {image["role"]: (out / image["path"]).read_bytes()
                                    for image in item["images"]}))
    return result


def test_only_items_picking_a_new_theme_or_library_change(tmp_path: Path) -> None:
    seed = _seed()
    themed, charted = _picks(seed)
    config = BuildConfig(domain="financial", levels=(1, 2, 3), count=COUNT, seed=seed)
    build(config, tmp_path / "before", notice=lambda _: None)
    TABLE_THEMES.register(SEPIA.name, SEPIA)
    CHART_LIBRARIES.register(OPEN_MPL.name, OPEN_MPL)
    try:
        build(config, tmp_path / "after", notice=lambda _: None)
    finally:
        TABLE_THEMES.unregister(SEPIA.name)
        CHART_LIBRARIES.unregister(OPEN_MPL.name)
    before, after = _dataset(tmp_path / "before"), _dataset(tmp_path / "after")
    assert len(before) == len(after) == COUNT
    for index, ((old, old_line, old_png), (new, new_line, new_png)) in enumerate(
            zip(before, after, strict=True)):
        style = new["variant"]["style"]
        assert (style["table"]["theme"] == SEPIA.name) == (index in themed)
        assert (style["chart"]["library"] == OPEN_MPL.name) == (index in charted)
        if index not in themed | charted:
            assert new_line == old_line, index
            assert new_png == old_png, index
            continue
        assert (new_png["table"] != old_png["table"]) == (index in themed), index
        assert (new_png["chart"] != old_png["chart"]) == (index in charted), index
        if index in charted:
            chart = next(image for image in new["images"] if image["role"] == "chart")
            assert chart["render"]["library"] == OPEN_MPL.name
        # Everything but the style and the images drawn with it is the same item.
        drop = ("variant", "images")
        assert ({k: v for k, v in new.items() if k not in drop}
                == {k: v for k, v in old.items() if k not in drop}), index
