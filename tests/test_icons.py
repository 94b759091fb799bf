"""Emblems from Font Awesome Free: every emblem is an icon of the installed font, drawn in one
colour and told apart from the others at cell size; badges and flags that carry one still
record their first colour true; the same bytes in one process and in two; a missing icon set
is one line saying what to install; the card cites the set's licence when an emblem is
drawn."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy
import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from hopvista.cli.main import main
from hopvista.errors import UserError
from hopvista.mmtables.build import build_mmtables
from hopvista.model import Item, by_role
from hopvista.render.mmtable import render_mmtable_images
from hopvista.render.table import TableRenderer
from hopvista.rng import Streams
from hopvista.themes.visuals import VISUAL_KINDS, icons
from hopvista.themes.visuals.badge import SHAPES
from hopvista.themes.visuals.canvas import Canvas
from hopvista.themes.visuals.flag import LAYOUTS
from tests.test_mmtables_images import KINDS, check_pixels, mm_item
from tests.test_visuals import SIZE_PX, dominant_color

EMBLEMS = tuple(icons.EMBLEMS)
DIGEST = """
import hashlib, json
from hopvista.themes.visuals import VISUAL_KINDS, icons
from hopvista.themes.visuals.badge import SHAPES
from hopvista.themes.visuals.flag import LAYOUTS
from hopvista.rng import Streams

def digest():
    found = hashlib.sha256()
    for number, emblem in enumerate(icons.EMBLEMS):
        for kind, key, choices in (("badge", "shape", SHAPES), ("flag", "layout", LAYOUTS)):
            drawer = VISUAL_KINDS.get(kind)
            for choice in choices:
                attributes = drawer.sample(Streams(number, "icons"), emblem=emblem,
                                           **{key: choice})
                for size in (24, 128):
                    found.update(drawer.draw(attributes, size))
    return found.hexdigest()
"""
"""Every emblem on every badge shape and flag layout, at table and cell-image size, hashed
(run in this process and in another)."""


@pytest.fixture
def fresh_icons() -> Iterator[None]:
    """The icon set read afresh before the test and again after it."""
    icons.installed.cache_clear()
    yield
    icons.installed.cache_clear()


def _digest() -> str:
    scope: dict[str, object] = {}
    exec(DIGEST, scope)
    return scope["digest"]()  # type: ignore[operator,no-any-return]


def _sample(kind: str, emblem: str, seed: int, **fixed: str) -> dict[str, object]:
    return VISUAL_KINDS.get(kind).sample(Streams(seed, "icons"), emblem=emblem, **fixed)


def _centred(emblem: str, side: int) -> numpy.ndarray:
    """The emblem's shape centred in a ``side`` square, as coverage in 0..1."""
    glyph = icons.installed().glyph(icons.emblem_icon(emblem), side * 4)
    square = Image.new("L", (side * 4, side * 4), 0)
    square.paste(glyph, ((side * 4 - glyph.width) // 2, (side * 4 - glyph.height) // 2))
    return numpy.asarray(square.resize((side, side), Image.Resampling.BOX), dtype=float) / 255


# -- the icon set -----------------------------------------------------------------------------


def test_every_emblem_is_a_free_solid_icon_of_the_installed_font() -> None:
    icon_set = icons.installed()
    cmap = TTFont(str(icon_set.font_file), lazy=True).getBestCmap()
    for emblem, icon in icons.EMBLEMS.items():
        assert cmap.get(icon_set.code_point(icon)) == icon, emblem
    assert icon_set.credit() == {"name": "Font Awesome Free", "version": "6.6.0",
                                 "license": "CC BY 4.0 (icons), SIL OFL 1.1 (font)",
                                 "url": "https://fontawesome.com/license/free"}


@pytest.mark.parametrize("emblem", EMBLEMS)
def test_every_emblem_draws_a_shape_in_its_one_colour(emblem: str) -> None:
    canvas = Canvas(64)
    canvas.emblem(emblem, (0.5, 0.5), 0.4, "red")
    pixels = numpy.asarray(canvas.finished(), dtype=int)
    opaque = pixels[..., 3] == 255
    assert opaque.sum() > 0.15 * (0.8 * 64) ** 2, emblem
    assert (pixels[opaque][:, :3] == (0xd6, 0x20, 0x20)).all()
    assert not pixels[:6, :, 3].any() and not pixels[-6:, :, 3].any()


def test_emblems_are_told_apart_at_20_px() -> None:
    shapes = {emblem: _centred(emblem, 20) for emblem in EMBLEMS}
    for first, second in itertools.combinations(EMBLEMS, 2):
        assert numpy.abs(shapes[first] - shapes[second]).mean() > 0.08, (first, second)


def test_an_icon_the_set_lacks_and_an_emblem_outside_the_list_are_one_line() -> None:
    with pytest.raises(UserError) as lacked:
        icons.installed().code_point("no-such-icon")
    assert "'no-such-icon'" in str(lacked.value) and "\n" not in str(lacked.value)
    attributes = _sample("badge", "star", 0) | {"emblem": "crescent"}
    with pytest.raises(UserError, match="visual badge: attribute 'emblem'"):
        VISUAL_KINDS.get("badge").draw(attributes, SIZE_PX)


def test_an_empty_folder_is_one_line_naming_the_font_and_what_to_install(
        tmp_path: Path) -> None:
    with pytest.raises(UserError) as missing:
        icons.IconSet.load(tmp_path, "6.6.0")
    message = str(missing.value)
    assert str(tmp_path / icons.FONT_FILE) in message and "pip install fontawesomefree" in message
    assert "\n" not in message


# -- badges and flags -------------------------------------------------------------------------


@pytest.mark.parametrize("emblem", EMBLEMS)
def test_badges_and_flags_with_an_emblem_record_their_first_colour_true(emblem: str) -> None:
    for seed, (kind, key, choice) in enumerate(
            [("badge", "shape", s) for s in SHAPES] + [("flag", "layout", la) for la in LAYOUTS]):
        attributes = _sample(kind, emblem, seed, **{key: choice})
        drawer = VISUAL_KINDS.get(kind)
        colors = drawer.colors(attributes)
        assert dominant_color(drawer.draw(attributes, SIZE_PX), colors) == colors[0], attributes
        assert emblem in drawer.description(attributes)
        assert drawer.icons(attributes) == [emblem]


def test_the_same_emblems_give_the_same_bytes_when_drawn_again(fresh_icons: None) -> None:
    first = _digest()
    icons.installed.cache_clear()
    icons._glyph.cache_clear()
    icons._font.cache_clear()
    assert _digest() == first


@pytest.mark.slow  # a second process
def test_the_same_emblems_give_the_same_bytes_in_another_process() -> None:
    other = subprocess.run([sys.executable, "-c", DIGEST + "\nprint(digest())"],
                           capture_output=True, text=True, check=True, timeout=300)
    assert other.stdout.strip() == _digest()


@pytest.mark.slow  # Chromium
def test_a_table_of_badges_and_flags_with_emblems_shows_each_first_colour(
        tmp_path: Path) -> None:
    columns = {kind: KINDS.index(kind) + 1 for kind in ("badge", "flag")}
    visuals = []
    for row, emblem in enumerate(EMBLEMS[:6], start=1):
        for kind, col in columns.items():
            attributes = _sample(kind, emblem, row)
            drawer = VISUAL_KINDS.get(kind)
            visuals.append({"row": row, "col": col, "kind": kind,
                            "colors": drawer.colors(attributes), "attributes": attributes,
                            "description": drawer.description(attributes)})
    item = mm_item("classic", rows=6, visuals=visuals)
    with TableRenderer() as renderer:
        drawn = render_mmtable_images(item, tmp_path, renderer)
    [table] = by_role(drawn.images, "table")
    check_pixels(tmp_path / table.path, table.render, item)


# -- builds, the card and gen list ------------------------------------------------------------


def keep_as_is(item: Item, root: Path) -> Item:
    """An image maker that draws nothing: the build takes itself to draw its pictures."""
    return item


def test_the_card_cites_the_icon_set_when_an_emblem_is_drawn(tmp_path: Path) -> None:
    manifest = build_mmtables(tmp_path / "drawn", count=8, images=keep_as_is)
    emblems = sorted({visual.attributes["emblem"]
                      for line in (tmp_path / "drawn" / "items.jsonl").read_text().splitlines()
                      for visual in Item.model_validate_json(line).inputs.visuals
                      if visual.attributes.get("emblem", "none") != "none"})
    assert emblems
    assert manifest["icon_set"] == icons.installed().credit() | {"emblems": emblems}
    assert json.loads((tmp_path / "drawn" / "manifest.json").read_text())["icon_set"] \
        == manifest["icon_set"]
    card = " ".join((tmp_path / "drawn" / "README.md").read_text().split())
    assert ("are icons of Font Awesome Free 6.6.0 (https://fontawesome.com/license/free), "
            "licensed CC BY 4.0 (icons), SIL OFL 1.1 (font).") in card
    assert f"Emblems ({', '.join(emblems)})" in card and "DejaVu Sans" in card


def test_a_build_without_images_draws_no_emblem_and_cites_none(tmp_path: Path) -> None:
    manifest = build_mmtables(tmp_path / "plain", count=8)
    assert "icon_set" not in manifest
    card = (tmp_path / "plain" / "README.md").read_text()
    assert "Font Awesome" not in card and "credits and licences" not in card


def test_a_build_with_images_stops_in_one_line_when_the_icon_set_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        fresh_icons: None) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(icons, "package_folder", lambda: empty)
    out = tmp_path / "mm"
    assert main(["build", "mmtables", "-n", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (f"gen: error: icon set Font Awesome Free: no font file "
                   f"{empty / icons.FONT_FILE} (pip install fontawesomefree)\n")
    assert not out.exists()
    assert main(["build", "mmtables", "-n", "2", "--no-images", "--out", str(out)]) == 0


def test_a_build_with_images_says_what_to_install_when_the_package_is_absent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        fresh_icons: None) -> None:
    monkeypatch.setitem(sys.modules, "fontawesomefree", None)
    out = tmp_path / "mm"
    assert main(["build", "mmtables", "-n", "2", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "gen: error: emblems are drawn from the icon set Font Awesome Free, which is not "
        "installed: pip install fontawesomefree\n")
    assert not out.exists()
    assert main(["list"]) == 0
    assert "which is not installed: pip install fontawesomefree" in capsys.readouterr().out


def test_gen_list_names_the_emblems_and_the_icon_sets_licence(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert f"emblems (badge, flag):\n  {', '.join(EMBLEMS)}\n" in out
    assert ("icons of Font Awesome Free 6.6.0 (https://fontawesome.com/license/free), "
            "licensed CC BY 4.0 (icons), SIL OFL 1.1 (font)") in out

