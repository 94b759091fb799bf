"""Fonts resolve to the same files everywhere: not through a cache's order, not from the home."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.text import Text

from hopvista.errors import UserError
from hopvista.render.chart import ChartRenderer
from hopvista.render.chart_data import ChartData, text_width_px
from hopvista.themes import fonts
from tests.test_render_chart import CHART, HAS_CHROMIUM, NAMES, PIE, style_for

FAMILIES = sorted({f.family for f in fonts.FCMR_FONTS.values()} | {fonts.FALLBACK_FAMILY})
GARAMOND = {"requested": "Garamond", "family": "EB Garamond"}
SYSTEM_GARAMOND_12 = Path("/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Regular.otf")


def _clear_caches() -> None:
    fonts.resolve_font.cache_clear()
    text_width_px.cache_clear()
    font_manager.fontManager._findfont_cached.cache_clear()  # type: ignore[attr-defined]
    font_manager._get_font.cache_clear()  # type: ignore[attr-defined]


def _reverse(entries: list[Any]) -> list[Any]:
    return entries[::-1]


def _shuffle(seed: int) -> Callable[[list[Any]], list[Any]]:
    def shuffled(entries: list[Any]) -> list[Any]:
        copy = list(entries)
        random.Random(seed).shuffle(copy)
        return copy
    return shuffled


ORDERS = [pytest.param(_reverse, id="reversed"),
          *(pytest.param(_shuffle(seed), id=f"shuffled-{seed}") for seed in range(3))]


@pytest.fixture
def reorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[..., Any]], None]]:
    """Replace matplotlib's font list by a reordered copy (as another font cache would list
    it) and forget every font lookup made so far."""
    def apply(order: Callable[[list[Any]], list[Any]]) -> None:
        manager = font_manager.fontManager
        monkeypatch.setattr(manager, "ttflist", order(manager.ttflist))
        _clear_caches()

    _clear_caches()
    yield apply
    monkeypatch.undo()
    _clear_caches()


def _resolved() -> dict[str, tuple[str, int]]:
    return {f: (fonts.resolve_font(f).path, fonts.resolve_font(f).face_index) for f in FAMILIES}


def _matplotlib_draws(family: str) -> tuple[str, int]:
    """The face matplotlib's own lookup gives for ``family``'s registered name."""
    (name,) = fonts.matplotlib_families(family, fallback=False)
    prop = font_manager.FontProperties(family=name, weight=fonts.resolve_font(family).weight)
    found = font_manager.fontManager.findfont(prop, fallback_to_default=False)
    return os.path.realpath(found), found.face_index


# -- resolution ------------------------------------------------------------------------------

@pytest.mark.parametrize("order", ORDERS)
def test_resolution_ignores_the_order_of_matplotlibs_font_list(
        reorder: Callable[[Callable[..., Any]], None], order: Callable[..., Any]) -> None:
    before = _resolved()
    drawn = {f: _matplotlib_draws(f) for f in FAMILIES}
    reorder(order)
    assert _resolved() == before
    assert {f: _matplotlib_draws(f) for f in FAMILIES} == drawn
    assert drawn == {f: (os.path.realpath(p), i) for f, (p, i) in before.items()}
    assert before["EB Garamond"][0].endswith("EBGaramond08-Regular.otf")


def test_a_registered_face_is_found_without_scoring_every_installed_face(
        monkeypatch: pytest.MonkeyPatch) -> None:
    manager = font_manager.fontManager
    family = "Liberation Sans"
    (name,) = fonts.matplotlib_families(family, fallback=False)
    scored: list[str] = []
    score = manager.score_family
    monkeypatch.setattr(manager, "score_family",
                        lambda wanted, face: scored.append(face) or score(wanted, face))
    weight = fonts.matplotlib_weight(fonts.resolve_font(family).weight)
    prop = font_manager.FontProperties(family=name, size=13.37, weight=weight)  # a new query
    found = manager.findfont(prop, fallback_to_default=False)
    assert os.path.realpath(found) == os.path.realpath(fonts.resolve_font(family).path)
    assert name in scored and len(scored) < len(manager.ttflist) // 4


def test_registering_a_face_changes_no_other_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    manager = font_manager.fontManager
    monkeypatch.setattr(manager, "ttflist", list(manager.ttflist))  # the new face goes after
    queries = [font_manager.FontProperties(family=family, weight=weight)
               for family in ("DejaVu Sans", "Liberation Serif", "sans-serif", "No Such Family",
                              fonts.matplotlib_families("Carlito", fallback=False)[0])
               for weight in ("normal", "bold", 300)]
    before = [manager.findfont(q) for q in queries]
    added = fonts._register(fonts.resolve_font("Liberation Serif"), 550)  # a weight unused
    assert manager.ttflist[0].name == added
    manager._findfont_cached.cache_clear()  # type: ignore[attr-defined]
    assert [manager.findfont(q) for q in queries] == before
    manager._findfont_cached.cache_clear()  # type: ignore[attr-defined]


@pytest.mark.parametrize("order", ORDERS)
def test_resolution_ignores_the_order_fontconfig_lists_faces(
        monkeypatch: pytest.MonkeyPatch, order: Callable[..., Any]) -> None:
    before = _resolved()
    faces = tuple(order(list(fonts._faces())))
    monkeypatch.setattr(fonts, "_faces", lambda: faces)
    fonts.resolve_font.cache_clear()
    try:
        assert _resolved() == before
    finally:
        fonts.resolve_font.cache_clear()


def _face(path: str, slant: float = 0.0, width: float = 100.0, weight: float = 80.0,
          index: int = 0) -> Any:
    return fonts._Face(path, index, slant, width, weight, Path(path).stem,
                       frozenset({"hopvista test", "hopvista test extra"}))


def test_resolution_prefers_upright_normal_width_regular_system_faces(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    candidates = [
        _face("/usr/share/fonts/a-italic.otf", slant=100.0),
        _face("/usr/share/fonts/b-bold.otf", weight=200.0),
        _face("/usr/share/fonts/c-condensed.otf", width=87.0),
        _face("/usr/share/fonts/d-medium.otf", weight=100.0),
        _face(str(tmp_path / ".fonts/a-regular.otf")),
        _face("/usr/share/fonts/f-regular.ttc", index=1),
        _face("/usr/share/fonts/f-regular.ttc", index=0),
        _face("/usr/share/fonts/g-regular.otf"),
    ]
    monkeypatch.setattr(fonts, "_weight", lambda path, index: 400)
    for seed in range(5):
        random.Random(seed).shuffle(candidates)
        faces = tuple(candidates)
        monkeypatch.setattr(fonts, "_faces", lambda faces=faces: faces)
        fonts.resolve_font.cache_clear()
        try:
            font = fonts.resolve_font("Hopvista Test")
        finally:
            fonts.resolve_font.cache_clear()
        assert (font.path, font.face_index) == ("/usr/share/fonts/f-regular.ttc", 0)


def test_a_family_with_no_upright_face_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    faces = (_face("/usr/share/fonts/a-italic.otf", slant=100.0),)
    monkeypatch.setattr(fonts, "_faces", lambda: faces)
    fonts.resolve_font.cache_clear()
    try:
        with pytest.raises(UserError, match="Hopvista Test.*not installed"):
            fonts.resolve_font("Hopvista Test")
    finally:
        fonts.resolve_font.cache_clear()


# -- matplotlib and seaborn draw the resolved files ---------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("order", ORDERS[:2])
@pytest.mark.parametrize("library", ["matplotlib", "seaborn"])
def test_charts_are_the_same_with_a_reordered_font_list(
        reorder: Callable[[Callable[..., Any]], None], order: Callable[..., Any],
        library: str) -> None:
    styles = [style_for(library, kind, seed=3, font=GARAMOND) for kind in ("bar", "scatter")]
    styles.append(style_for(library, "pie", seed=5, font=GARAMOND))
    charts = [PIE if s["kind"] == "pie" else CHART for s in styles]
    with ChartRenderer(warm_plotly=False) as renderer:
        first = [renderer.render(c, NAMES, s) for c, s in zip(charts, styles, strict=True)]
        reorder(order)
        again = [renderer.render(c, NAMES, s) for c, s in zip(charts, styles, strict=True)]
    assert [png for png, _ in again] == [png for png, _ in first]
    assert {meta["font_file"] for _, meta in first} == {fonts.resolve_font("EB Garamond").path}


def _fonts_of(fig: Figure) -> set[tuple[str, int]]:
    faces: set[tuple[str, int]] = set()
    for text in fig.findobj(Text):
        if text.get_text():
            found = font_manager.fontManager._find_fonts_by_props(  # type: ignore[attr-defined]
                text.get_fontproperties(), fallback_to_default=False)
            faces.update((os.path.realpath(f), f.face_index) for f in found)
    return faces


@pytest.mark.parametrize("fallback", [False, True], ids=["plain", "fallback"])
@pytest.mark.parametrize("library", ["matplotlib", "seaborn"])
def test_every_text_element_is_drawn_from_the_resolved_files(library: str,
                                                             fallback: bool) -> None:
    from hopvista.render.chart_mpl import draw_matplotlib_chart

    names = dict(NAMES, C013="Adams → Webster") if fallback else NAMES
    data = ChartData.parse(CHART, names, "line")
    font = fonts.resolve_font("EB Garamond")
    assert bool(fonts.missing_glyphs(font.family, data.all_text())) == fallback
    expected = {(os.path.realpath(font.path), font.face_index)}
    if fallback:
        dejavu = fonts.resolve_font(fonts.FALLBACK_FAMILY)
        expected.add((os.path.realpath(dejavu.path), dejavu.face_index))
    seen: list[set[tuple[str, int]]] = []
    draw_matplotlib_chart(data, style_for(library, "line", font=GARAMOND), font, fallback,
                          seaborn=library == "seaborn",
                          inspect=lambda fig: seen.append(_fonts_of(fig)))
    assert seen == [expected]


def test_text_width_uses_the_resolved_files(reorder: Callable[[Callable[..., Any]], None]) -> None:
    samples = ["Silva Microsystems Corporation", "Adams → Webster", "1,075.7"]
    widths = [text_width_px(s, "EB Garamond", 11.0, 100) for s in samples]
    reorder(_reverse)
    assert [text_width_px(s, "EB Garamond", 11.0, 100) for s in samples] == widths
    # Each file measures differently: the width says which one was used.
    twelve = fonts.ResolvedFont("EB Garamond", str(SYSTEM_GARAMOND_12), 0, 400)
    if SYSTEM_GARAMOND_12.is_file():
        prop = font_manager.FontProperties(family=fonts._register(twelve, 400), size=11.0)
        from matplotlib.textpath import TextToPath

        other, _, _ = TextToPath().get_text_width_height_descent(samples[0], prop, ismath=False)
        assert other * 100 / 72 != widths[0]


# -- fontconfig and Chromium ignore the user's fonts and settings --------------------------------

def _planted_home(home: Path) -> None:
    """A home with copies of EB Garamond 12 (one claiming a newer version) and a fontconfig
    setting that would draw DejaVu Sans for "EB Garamond"."""
    from fontTools.ttLib import TTFont

    system = Path(fonts.resolve_font("EB Garamond").path).with_name("EBGaramond12-Regular.otf")
    (home / ".local/share/fonts").mkdir(parents=True)
    (home / ".fonts").mkdir()
    shutil.copy(system, home / ".local/share/fonts/EBGaramond00-Regular.otf")
    newer = TTFont(system)
    newer["head"].fontRevision = 9.0
    for record in newer["name"].names:
        if record.nameID == 5:
            record.string = "Version 9.000"
        if record.nameID == 6:
            record.string = "HopvistaPlanted-Regular"
    newer.save(home / ".fonts/Planted.otf")
    (home / ".config/fontconfig").mkdir(parents=True)
    (home / ".config/fontconfig/fonts.conf").write_text(
        '<?xml version="1.0"?>\n<fontconfig><match target="pattern">'
        '<test name="family"><string>EB Garamond</string></test>'
        '<edit name="family" mode="prepend" binding="strong"><string>DejaVu Sans</string>'
        "</edit></match></fontconfig>\n")


def _fresh_env(home: Path, **extra: str) -> dict[str, str]:
    drop = ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
            "FONTCONFIG_FILE", "FONTCONFIG_PATH")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    cache = home.parent / f"{home.name}-cache"
    cache.mkdir(exist_ok=True)
    return {**env, "HOME": str(home), "XDG_CACHE_HOME": str(cache), **extra}


def _fc_match_file(env: dict[str, str]) -> str:
    return subprocess.run(["fc-match", "-f", "%{file}", "EB Garamond"], env=env,
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("fc-match") is None:
        pytest.skip("no fontconfig")
    home = tmp_path_factory.mktemp("planted") / "home"
    home.mkdir()
    _planted_home(home)
    return home


def test_fontconfig_env_leaves_out_the_users_fonts_and_settings(planted: Path) -> None:
    system = fonts.fontconfig_face("EB Garamond")[0]
    # Without isolation the planted home wins (the test would notice a leak).
    assert _fc_match_file(_fresh_env(planted)) != system
    assert _fc_match_file(_fresh_env(planted, **fonts.fontconfig_env())) == system


def test_generated_config_drops_only_per_user_parts(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    (etc / "conf.d").mkdir(parents=True)
    (etc / "fonts.conf").write_text(
        "<fontconfig><dir>/usr/share/fonts</dir><dir prefix=\"xdg\">fonts</dir>"
        "<dir>~/.fonts</dir><dir prefix=\"relative\">fonts-here</dir>"
        "<include ignore_missing=\"yes\">conf.d</include>"
        "<cachedir>/var/cache/fontconfig</cachedir></fontconfig>")
    (etc / "conf.d/10-system.conf").write_text("<fontconfig><match/></fontconfig>")
    (etc / "conf.d/50-user.conf").write_text(
        "<fontconfig><description>user</description>"
        "<include ignore_missing=\"yes\" prefix=\"xdg\">fontconfig/fonts.conf</include>"
        "<include ignore_missing=\"yes\">~/.fonts.conf</include></fontconfig>")
    (etc / "conf.d/60-mixed.conf").write_text(
        "<fontconfig><dir>~/more-fonts</dir><alias><family>x</family></alias></fontconfig>")
    (etc / "conf.d/README").write_text("not a configuration file")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(fonts, "_system_config", lambda: etc / "fonts.conf")
    monkeypatch.setattr(fonts, "_private_dir", lambda: out)
    fonts._isolated_env.cache_clear()
    try:
        env = fonts.fontconfig_env()
    finally:
        fonts._isolated_env.cache_clear()
    assert env["FONTCONFIG_PATH"] == str(etc)
    root = ET.parse(env["FONTCONFIG_FILE"]).getroot()
    assert [d.text for d in root.iter("dir")] == ["/usr/share/fonts", str(etc / "fonts-here")]
    includes = [i.text or "" for i in root.iter("include")]
    assert includes[0] == str(etc / "conf.d/10-system.conf")
    assert len(includes) == 2 and Path(includes[1]).parent == out
    mixed = ET.parse(includes[1]).getroot()
    assert not list(mixed.iter("dir")) and list(mixed.iter("alias"))
    assert [c.text for c in root.iter("cachedir")] == ["/var/cache/fontconfig"]


def test_generated_config_is_written_again_when_removed() -> None:
    env = fonts.fontconfig_env()
    if not env:
        pytest.skip("no system fontconfig configuration here")
    Path(env["FONTCONFIG_FILE"]).unlink()
    again = fonts.fontconfig_env()
    assert again == env and Path(again["FONTCONFIG_FILE"]).is_file()


def _chromium_faces(env: dict[str, str], families: list[str]) -> dict[str, set[str]]:
    """The PostScript names of the faces Chromium draws each family's regular, bold and
    italic text with, in a browser started with ``env``."""
    from playwright.sync_api import sync_playwright

    from hopvista.render.browser import LAUNCH_ARGS, find_chromium

    html = "".join(f'<p id="f{i}" style="font-family: \'{family}\'">Adams 2019 <b>Bold</b> '
                   "<i>Italic</i></p>" for i, family in enumerate(families))
    faces: dict[str, set[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(),
                                             args=list(LAUNCH_ARGS), env=env)
        try:
            page = browser.new_page()
            page.set_content(html)
            cdp = page.context.new_cdp_session(page)
            cdp.send("DOM.enable")
            cdp.send("CSS.enable")
            root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
            for i, family in enumerate(families):
                for selector in (f"#f{i}", f"#f{i} b", f"#f{i} i"):
                    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})
                    used = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
                    faces.setdefault(family, set()).update(
                        str(u.get("postScriptName")) for u in used["fonts"])
        finally:
            browser.close()
    return faces


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CHROMIUM, reason="no Chromium")
def test_chromium_under_fontconfig_env_ignores_the_users_fonts(planted: Path) -> None:
    isolated = _chromium_faces(_fresh_env(planted, **fonts.fontconfig_env()), ["EB Garamond"])
    assert "EBGaramond08-Regular" in isolated["EB Garamond"]
    assert all(name.startswith("EBGaramond") and fonts.is_system_face(name)
               for name in isolated["EB Garamond"])
    # Without it the user's settings win (the test would notice a leak).
    assert _chromium_faces(_fresh_env(planted), ["EB Garamond"]) != isolated


@pytest.mark.slow
@pytest.mark.skipif(not HAS_CHROMIUM, reason="no Chromium")
def test_every_face_chromium_draws_for_a_theme_font_is_a_system_face() -> None:
    from hopvista.themes.tables import TABLE_THEMES

    families = sorted({f for _, theme in TABLE_THEMES.items() for f in theme.fonts} | set(FAMILIES))
    drawn = _chromium_faces({**os.environ, **fonts.fontconfig_env()}, families)
    assert {f: n for f, names in drawn.items() for n in names
            if not fonts.is_system_face(n)} == {}
    assert set(drawn) == set(families) and all(drawn.values())


_RESOLVE = """
import hashlib, json
from matplotlib import font_manager
from hopvista.render.chart import ChartRenderer
from hopvista.themes import fonts
from tests.test_fonts import FAMILIES, _charts, _matplotlib_draws
print(json.dumps({
    "resolved": {f: [fonts.resolve_font(f).path, fonts.resolve_font(f).face_index]
                 for f in FAMILIES},
    "fontconfig": {f: list(fonts.fontconfig_face(f)) for f in FAMILIES},
    "matplotlib": {f: list(_matplotlib_draws(f)) for f in FAMILIES},
    "charts": _charts(),
    "cache_has_user_fonts": any(e.fname.startswith(%(home)r)
                                for e in font_manager.fontManager.ttflist),
}))
"""


def _charts() -> list[list[str]]:
    """sha256 and font file of an EB Garamond chart from each library that can run here."""
    libraries = ["matplotlib", "seaborn", *(["plotly"] if HAS_CHROMIUM else [])]
    drawn = []
    with ChartRenderer(warm_plotly=False) as renderer:
        for library in libraries:
            png, meta = renderer.render(CHART, NAMES, style_for(library, "bar", font=GARAMOND))
            drawn.append([library, hashlib.sha256(png).hexdigest(), meta["font_file"]])
    return drawn


@pytest.mark.slow
def test_a_users_copy_of_a_family_changes_nothing(planted: Path) -> None:
    here = {
        "resolved": {f: list(p) for f, p in _resolved().items()},
        "fontconfig": {f: list(fonts.fontconfig_face(f)) for f in FAMILIES},
        "matplotlib": {f: list(_matplotlib_draws(f)) for f in FAMILIES},
        "charts": _charts(),
    }
    script = _RESOLVE % {"home": str(planted)}
    result = subprocess.run([sys.executable, "-c", script], env=_fresh_env(planted),
                            cwd=Path(__file__).parent.parent, capture_output=True, text=True,
                            check=True, timeout=600)
    there = json.loads(result.stdout.strip().splitlines()[-1])
    assert there.pop("cache_has_user_fonts")  # matplotlib's fresh cache lists them
    assert there == here


# -- what the renderers record ---------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(not HAS_CHROMIUM, reason="no Chromium")
def test_table_records_fontconfigs_file_and_refuses_foreign_faces(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import hopvista.render.table as table_module
    from tests.conftest import default_style
    from tests.test_render_table import NAMES as TABLE_NAMES
    from tests.test_render_table import make_table

    with table_module.TableRenderer() as renderer:
        _, layout = renderer.render(make_table(), TABLE_NAMES, default_style("web"))
        assert layout["font_file"] == str(fonts.fontconfig_file(layout["font"]))
        assert Path(layout["font_file"]).is_file()
        monkeypatch.setattr(table_module, "is_system_face", lambda name: False)
        with pytest.raises(UserError, match="fontconfig_env"):  # another theme: checked again
            renderer.render(make_table(), TABLE_NAMES, default_style("minimal"))


def test_font_manifest_lists_files_indices_and_versions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = fonts.font_manifest([*FAMILIES, "EB Garamond"])
    assert list(manifest) == FAMILIES
    for family, entry in manifest.items():
        assert set(entry) == {"file", "face_index", "version"}, family
        font = fonts.resolve_font(family)
        assert (entry["file"], entry["face_index"]) == (font.path, font.face_index)
        assert entry["version"] and entry["version"] != "unknown"
    assert manifest["Noto Sans CJK SC"]["face_index"] > 0  # a collection's face, not face 0
    json.dumps(manifest)

    monkeypatch.setattr(fonts, "fontconfig_face", lambda family: (str(SYSTEM_GARAMOND_12), 0))
    if not SYSTEM_GARAMOND_12.is_file():
        pytest.skip("EB Garamond 12 is not where Debian puts it")
    differing = fonts.font_manifest(["EB Garamond"])["EB Garamond"]
    assert differing["fontconfig"] == {"file": str(SYSTEM_GARAMOND_12), "face_index": 0,
                                       "version": fonts.file_version(str(SYSTEM_GARAMOND_12))}


# -- a whole build ---------------------------------------------------------------------------

def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _build(out: Path, env: dict[str, str]) -> dict[str, bytes]:
    """The files of ``gen build financial -n 6 --seed 3`` (the command of the shared ``six``
    build) run as a process with ``env``."""
    subprocess.run([sys.executable, "-m", "hopvista.cli.main", "build", "financial", "-n", "6",
                    "--seed", "3", "--out", str(out)], env=env, check=True,
                   capture_output=True, timeout=900)
    return _files(out)


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder with a short path: Chromium refuses a profile whose socket path
    is longer than a Unix socket address allows, and a build keeps its browsers' temporary
    files under the output folder."""
    folder = Path(tempfile.mkdtemp(prefix="hv"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_a_build_in_a_fresh_home_makes_the_same_bytes(short_tmp: Path, six: Path) -> None:
    home = short_tmp / "home"
    home.mkdir()
    # A fresh matplotlib font cache, listed in another order than the usual one would be
    # (the usual: the tests' own process built the same command).
    fresh = _build(short_tmp / "A", _fresh_env(home, PYTHONHASHSEED="0"))
    usual = _files(six)
    assert (short_tmp / "home-cache" / "matplotlib").is_dir()
    assert sorted(fresh) == sorted(usual) and any(n.endswith(".chart.png") for n in fresh)
    assert [name for name in fresh if fresh[name] != usual[name]] == []
