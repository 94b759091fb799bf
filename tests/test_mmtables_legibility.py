"""Every picture of a multimodal table stands out from its cell on every table theme: its
first colour (the one covering most of it) reaches a contrast of 1.5 against every background
a body cell of the theme may have, whichever accent the theme is drawn with."""

from __future__ import annotations

import pytest

from hopvista.cli.main import main
from hopvista.mmtables.domains import LAYOUTS, draw_table, legible_table
from hopvista.mmtables.images import style_backgrounds, table_style
from hopvista.model import Item
from hopvista.rng import Streams
from hopvista.themes.tables import TABLE_THEMES
from hopvista.themes.tables.policy import cell_backgrounds, contrast
from hopvista.themes.visuals.palette import PICTURE_CONTRAST
from tests.conftest import read_items


def _rgb(colour: str) -> tuple[float, float, float]:
    return tuple(int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]


def _faint(colours: list[str], backgrounds: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(colour, ground) for colour in colours[:1] for ground in backgrounds
            if contrast(_rgb(colour), _rgb(ground)) < PICTURE_CONTRAST]


THEMES = [(name, accent) for name, theme in TABLE_THEMES.items() for accent in theme.accents]
LAYOUT_LIST = [layout for layouts in LAYOUTS.values() for layout in layouts]


def test_light_and_dark_themes_know_their_cell_backgrounds() -> None:
    assert cell_backgrounds(TABLE_THEMES.get("dark"), "#4fc3f7") == ("#1e1e1e", "#262626")
    assert "#ffffff" in cell_backgrounds(TABLE_THEMES.get("web"), "#000000")


@pytest.mark.parametrize(("theme", "accent"), THEMES)
def test_every_kind_stands_out_on_every_theme(theme: str, accent: str) -> None:
    backgrounds = cell_backgrounds(TABLE_THEMES.get(theme), accent)
    for number, layout in enumerate(LAYOUT_LIST):
        streams = Streams(5, f"legible-{theme}-{accent}-{number}")
        table = legible_table(draw_table(layout, streams), backgrounds, streams)
        for (row, col), visual in table.visuals.items():
            assert not _faint(visual["colors"], backgrounds), \
                (theme, accent, visual["kind"], row, col, visual["colors"][0])


def test_a_build_draws_each_picture_to_stand_out_in_its_own_style(tmp_path) -> None:
    out = tmp_path / "mm"
    assert main(["build", "mmtables", "-n", "16", "--seed", "4", "--no-images",
                 "--out", str(out)]) == 0
    for raw in read_items(out):
        item = Item.model_validate(raw)
        backgrounds = style_backgrounds(table_style(item))
        for visual in item.inputs.visuals:
            assert not _faint(visual.colors, backgrounds), (item.id, visual.kind)


def test_a_picture_that_already_stands_out_is_kept() -> None:
    layout = LAYOUT_LIST[0]
    streams = Streams(5, "kept")
    table = draw_table(layout, streams)
    assert legible_table(table, (), streams).visuals == table.visuals
