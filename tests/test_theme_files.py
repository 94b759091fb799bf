"""Table themes as files: front matter, discovery, ``$HOPVISTA_THEMES``, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hopvista.errors import UserError
from hopvista.themes.tables import (
    DECOR,
    FAMILIES,
    TABLE_THEMES,
    THEMES_ENV,
    builtin_themes,
    read_theme_folder,
    theme_from_file,
)

SEPIA = """/* hopvista-theme
 name: sepia
 family: custom
 fonts: [Caladea, Liberation Serif]
 description: Sepia page, ruled rows.
 font_size_px: [13, 16]
 accents: ["#704214"]
*/
:root { --hv-bg: #f4ecd8; }
.hv-table td { border-bottom: 1px solid var(--hv-accent); }
"""


def test_every_builtin_theme_is_a_file_with_front_matter() -> None:
    themes = builtin_themes()
    assert sorted(t.name for t in themes) == TABLE_THEMES.names()
    for theme in themes:
        assert theme.origin.endswith(".css")
        assert TABLE_THEMES.get(theme.name) == theme
        assert TABLE_THEMES.origin(theme.name) == theme.origin
        assert "hopvista-theme" not in theme.stylesheet()
        assert theme.family in FAMILIES and set(theme.decor) <= set(DECOR)
    assert {t.family for t in themes} == set(FAMILIES)  # every scenario has a theme


def test_a_theme_file_gives_its_theme(tmp_path: Path) -> None:
    (tmp_path / "sepia.css").write_text(SEPIA)
    (tmp_path / "notes.txt").write_text("not a theme")
    [theme] = read_theme_folder(tmp_path)
    assert theme.name == "sepia" and theme.fonts == ("Caladea", "Liberation Serif")
    assert theme.accents == ("#704214",) and theme.font_size_px == (13, 16)
    assert theme.padding_y_px == (4, 8)  # left out: the Theme default
    assert theme.stylesheet().startswith(":root { --hv-bg: #f4ecd8; }")
    assert theme.origin == str(tmp_path / "sepia.css")


@pytest.mark.parametrize(("change", "field"), [
    (("font_size_px: [13, 16]", "font_size_px: [13, sixteen]"), "font_size_px.1"),
    (("font_size_px: [13, 16]", "font_size_px: [16, 13]"), "font_size_px"),
    (("font_size_px: [13, 16]", "font_size_px: [13.5, 16]"), "font_size_px.0"),
    ((' accents: ["#704214"]', " accents: [#704214]"), '"#rrggbb"'),
    ((' accents: ["#704214"]', ' accents: ["brown"]'), "accents.0"),
    ((" family: custom", " family: word"), "family"),
    ((" family: custom", " famliy: custom"), "famliy"),
    ((" name: sepia", " nom: sepia"), "name"),
    ((" fonts: [Caladea, Liberation Serif]", " fonts: []"), "fonts"),
    ((" fonts: [Caladea, Liberation Serif]", " fonts: ['Caladea; x']"), "fonts.0"),
    ((" family: custom", " family: excel\n decor: [row-numbers, sparkles]"), "decor.1"),
])
def test_a_malformed_front_matter_is_one_line_naming_file_and_field(
        change: tuple[str, str], field: str) -> None:
    text = SEPIA.replace(*change)
    assert text != SEPIA
    with pytest.raises(UserError) as error:
        theme_from_file(text, "themes/sepia.css")
    message = str(error.value)
    assert "\n" not in message
    assert "themes/sepia.css" in message and field in message, message


@pytest.mark.parametrize("text", [
    ":root { --hv-bg: #ffffff; }\n",  # no front matter
    "/* a comment */\n/* hopvista-theme\nname: x\n*/",  # not the first comment
    "/* hopvista-theme\nname: [x\n*/\n",  # not YAML
    "/* hopvista-theme\n- a list\n*/\n",  # not a mapping
])
def test_a_file_without_front_matter_is_a_user_error(text: str) -> None:
    with pytest.raises(UserError, match="themes/x.css") as error:
        theme_from_file(text, "themes/x.css")
    assert "\n" not in str(error.value)


def _run(code: str, folder: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, THEMES_ENV: str(folder)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_user_theme_folder_is_discovered(tmp_path: Path) -> None:
    (tmp_path / "sepia.css").write_text(SEPIA)
    result = _run(
        "import json; from hopvista.themes.tables import TABLE_THEMES, get_theme\n"
        "theme = get_theme('sepia')\n"
        "print(json.dumps([TABLE_THEMES.names(), [theme.fonts[0], theme.accents[0]], "
        "TABLE_THEMES.origin('sepia')]))", tmp_path)
    assert result.returncode == 0, result.stderr
    names, (font, accent), origin = json.loads(result.stdout)
    assert set(names) == set(TABLE_THEMES.names()) | {"sepia"}
    assert font == "Caladea" and accent == "#704214"
    assert origin == str(tmp_path / "sepia.css")


def test_a_user_theme_may_not_take_a_builtin_name(tmp_path: Path) -> None:
    (tmp_path / "web.css").write_text(SEPIA.replace("name: sepia", "name: web"))
    result = _run("from hopvista.themes.tables import TABLE_THEMES; TABLE_THEMES.names()",
                  tmp_path)
    assert result.returncode != 0
    assert "'web' is defined twice" in result.stderr and str(tmp_path / "web.css") in result.stderr


def test_a_missing_user_theme_folder_is_a_user_error(tmp_path: Path) -> None:
    result = _run("from hopvista.themes.tables import TABLE_THEMES; TABLE_THEMES.names()",
                  tmp_path / "nowhere")
    assert result.returncode != 0 and THEMES_ENV in result.stderr
