"""Fonts: FCMR's sixteen chart fonts, their free stand-ins, and how to find them.

FCMR (Appendix B.7) drew chart text from sixteen fonts, most of them Microsoft's. hopvista uses
free substitutes that Debian ships (metric twins where one exists). A family is resolved to a
font *file* and checked: a missing family raises :class:`~hopvista.errors.UserError` naming the
package to install, never a silent fallback to a default font.

Two font lookups matter: matplotlib's own font list (matplotlib ignores fontconfig aliases, so
it must be asked for "Liberation Sans", never "Arial") and fontconfig (what Chromium, hence
plotly/kaleido and the table renderer, uses).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from hopvista.errors import UserError


@dataclass(frozen=True)
class ChartFont:
    """One FCMR font and the free family drawn in its place."""

    requested: str
    """The font FCMR names, e.g. ``"Arial"``."""
    family: str
    """The installed substitute, e.g. ``"Liberation Sans"``."""
    package: str
    """The Debian package that provides the substitute."""


_FCMR = (
    ChartFont("Arial", "Liberation Sans", "fonts-liberation"),
    ChartFont("Verdana", "DejaVu Sans", "fonts-dejavu-core"),
    ChartFont("Times New Roman", "Liberation Serif", "fonts-liberation"),
    ChartFont("Courier New", "Liberation Mono", "fonts-liberation"),
    ChartFont("Georgia", "DejaVu Serif", "fonts-dejavu-core"),
    ChartFont("Comic Sans MS", "Comic Neue", "fonts-comic-neue"),
    ChartFont("Tahoma", "DejaVu Sans Condensed", "fonts-dejavu-extra"),
    ChartFont("Cambria", "Caladea", "fonts-crosextra-caladea"),
    ChartFont("Microsoft YaHei", "Noto Sans CJK SC", "fonts-noto-cjk"),
    # Nirmala UI's Latin letters are a Segoe-like sans. Noto Sans Devanagari has no Latin
    # letters at all (every chart character would come from a fallback font), so Nirmala UI
    # maps to Noto Sans, the Latin member of the same Noto design.
    ChartFont("Nirmala UI", "Noto Sans", "fonts-noto-core"),
    ChartFont("Calibri", "Carlito", "fonts-crosextra-carlito"),
    ChartFont("Consolas", "Inconsolata", "fonts-inconsolata"),
    ChartFont("Segoe UI", "Open Sans", "fonts-open-sans"),
    ChartFont("Garamond", "EB Garamond", "fonts-ebgaramond"),
    ChartFont("Century Schoolbook", "TeX Gyre Schola", "fonts-texgyre"),
    ChartFont("Book Antiqua", "TeX Gyre Pagella", "fonts-texgyre"),
)

FCMR_FONTS: dict[str, ChartFont] = {font.requested: font for font in _FCMR}
"""The sixteen FCMR chart fonts in the paper's order, keyed by the name FCMR uses."""

FALLBACK_FAMILY = "DejaVu Sans"
"""Per-glyph fallback for characters a chart font lacks (matplotlib ships this family)."""

# Debian packages of other families the renderers use (table themes), for error messages.
_OTHER_PACKAGES = {
    "DejaVu Sans Mono": "fonts-dejavu-core",
    "Roboto": "fonts-roboto",
    "Latin Modern Roman": "fonts-lmodern",
    "Latin Modern Sans": "fonts-lmodern",
    "CMU Serif": "fonts-cmu",
    "CMU Sans Serif": "fonts-cmu",
    "Lato": "fonts-lato",
    "Inter": "fonts-inter",
    "STIX Two Text": "fonts-stix",
    "Noto Sans Devanagari": "fonts-noto-core",
    "Noto Serif": "fonts-noto-core",
    "Noto Sans Mono": "fonts-noto-mono",
}


def substitute(requested: str) -> ChartFont:
    """The FCMR font ``requested`` (e.g. ``"Arial"``) with its substitute and package."""
    try:
        return FCMR_FONTS[requested]
    except KeyError:
        raise ValueError(f"{requested!r} is not one of FCMR's chart fonts: "
                         f"{', '.join(FCMR_FONTS)}") from None


def package_for(family: str) -> str | None:
    """The Debian package that provides ``family``, when hopvista knows it."""
    for font in _FCMR:
        if font.family.casefold() == family.casefold():
            return font.package
    for name, package in _OTHER_PACKAGES.items():
        if name.casefold() == family.casefold():
            return package
    return None


def _install_hint(family: str) -> str:
    package = package_for(family)
    if package is None:
        return f"install a package that provides it (try `apt-cache search {family}`)"
    return f"install it with `apt-get install {package}` (Debian/Ubuntu package {package})"


@dataclass(frozen=True)
class ResolvedFont:
    """A family as matplotlib will draw it: the file, the face in it, and its weight."""

    family: str
    path: str
    face_index: int
    weight: int
    """The weight of the face closest to regular (Inconsolata's only face is 500)."""


@cache
def resolve_font(family: str) -> ResolvedFont:
    """Find ``family`` in matplotlib's font list, without any fallback.

    Raises :class:`UserError` naming the family and the package to install when matplotlib
    does not know the family, or when the file it finds belongs to another family.
    """
    import matplotlib
    from matplotlib import font_manager

    wanted = family.casefold()
    entries = [e for e in font_manager.fontManager.ttflist
               if e.name.casefold() == wanted and e.style == "normal"]
    if not entries:
        raise UserError(
            f"font family {family!r} is not installed: {_install_hint(family)}. If it is "
            f"installed, delete matplotlib's font cache ({matplotlib.get_cachedir()}) "
            "so that matplotlib scans the fonts again.")
    weights = sorted({int(e.weight) for e in entries}, key=lambda w: (abs(w - 400), w))
    properties = font_manager.FontProperties(family=family, weight=weights[0])
    try:
        found = font_manager.findfont(properties, fallback_to_default=False)
    except ValueError:
        raise UserError(f"font family {family!r} is not installed: "
                        f"{_install_hint(family)}") from None
    face = getattr(found, "face_index", 0)
    names = {e.name.casefold() for e in font_manager.fontManager.ttflist
             if e.fname == str(found) and getattr(e, "index", 0) == face}
    if wanted not in names:
        raise UserError(f"matplotlib resolved font family {family!r} to {found}, which is "
                        f"{' / '.join(sorted(names)) or 'another family'}: "
                        f"{_install_hint(family)}")
    return ResolvedFont(family, str(found), face, weights[0])


def font_file(family: str) -> Path:
    """The font file matplotlib draws ``family`` from (raises :class:`UserError`)."""
    return Path(resolve_font(family).path)


def _fc_escape(name: str) -> str:
    return "".join("\\" + c if c in "\\-:,=" else c for c in name)


@cache
def _fc_match(name: str) -> tuple[tuple[str, ...], str, int]:
    """fontconfig's best match for ``name``: its family names, file and face index."""
    if shutil.which("fc-match") is None:
        raise UserError("fc-match is not installed: install it with `apt-get install "
                        "fontconfig` (Chromium finds fonts through fontconfig)")
    result = subprocess.run(
        ["fc-match", "-f", "%{family}\\n%{file}\\n%{index}", _fc_escape(name)],
        capture_output=True, text=True, check=False)
    lines = result.stdout.split("\n")
    if result.returncode != 0 or len(lines) < 3:
        raise UserError(f"fc-match failed for font family {name!r}: {result.stderr.strip()}")
    families = tuple(part.replace("\\", "").strip() for part in lines[0].split(","))
    return families, lines[1], int(lines[2] or 0)


def fontconfig_family(name: str) -> str:
    """The family fontconfig (hence Chromium) draws for ``name``; it must be ``name`` itself.

    Raises :class:`UserError` naming the family and its package when fontconfig would
    substitute another family (its answer for anything it does not have).
    """
    families, path, _ = _fc_match(name)
    for family in families:
        if family.casefold() == name.casefold():
            return family
    raise UserError(f"font family {name!r} is not installed for fontconfig (it would draw "
                    f"{families[0]!r} from {path}): {_install_hint(name)}")


def fontconfig_file(name: str) -> Path:
    """The file fontconfig draws ``name`` from (raises :class:`UserError` when missing)."""
    fontconfig_family(name)
    return Path(_fc_match(name)[1])


def _open_face(path: str, face_index: int) -> Any:
    """An FT2Font for one face (matplotlib < 3.10 opens face 0 only)."""
    from matplotlib import ft2font

    if face_index:
        return ft2font.FT2Font(path, face_index=face_index)
    return ft2font.FT2Font(path)


def _sfnt_version(path: str, face_index: int) -> str:
    table: dict[tuple[int, int, int, int], bytes] = _open_face(path, face_index).get_sfnt()
    for key in ((3, 1, 0x409, 5), (1, 0, 0, 5)):
        raw = table.get(key)
        if raw is not None:
            text = raw.decode("utf-16-be" if key[0] == 3 else "mac_roman")
            return text.strip()
    for (platform, _, _, name_id), raw in sorted(table.items()):
        if name_id == 5:
            return raw.decode("utf-16-be" if platform in (0, 3) else "latin-1").strip()
    return "unknown"


@cache
def file_version(path: str, face_index: int = 0) -> str:
    """The version string (name table entry 5) of a font file, e.g. ``"Version 2.1.0"``."""
    return _sfnt_version(path, face_index)


def font_version(family: str) -> str:
    """The version of ``family`` as drawn by matplotlib and, if it differs, by fontconfig."""
    resolved = resolve_font(family)
    mpl = file_version(resolved.path, resolved.face_index)
    try:
        fontconfig_family(family)
    except UserError:
        return mpl
    _, path, index = _fc_match(family)
    fc = file_version(path, index)
    return mpl if fc == mpl else f"{mpl} (matplotlib); {fc} (fontconfig)"


def font_versions(families: Iterable[str]) -> dict[str, str]:
    """``{family: version}`` for the manifest, in sorted order.

    A family matplotlib does not know (a table-only font) is looked up through fontconfig.
    Raises :class:`UserError` for a family neither knows.
    """
    versions: dict[str, str] = {}
    for family in sorted(set(families)):
        try:
            versions[family] = font_version(family)
        except UserError:
            fontconfig_family(family)
            _, path, index = _fc_match(family)
            versions[family] = file_version(path, index)
    return versions


@lru_cache(maxsize=64)
def _charmap(path: str, face_index: int) -> frozenset[int]:
    return frozenset(int(c) for c in _open_face(path, face_index).get_charmap())


def missing_glyphs(family: str, text: str) -> str:
    """The characters of ``text`` that ``family`` has no glyph for (sorted, no duplicates)."""
    resolved = resolve_font(family)
    covered = _charmap(resolved.path, resolved.face_index)
    return "".join(sorted({c for c in text if not c.isspace() and ord(c) not in covered}))
