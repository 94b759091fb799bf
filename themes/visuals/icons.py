"""The icon set emblems are drawn from: Font Awesome Free's solid icons, from the installed
``fontawesomefree`` package.

Badges and flags carry an emblem named by a plain English word (:data:`EMBLEMS`: star, crown,
anchor, ...), each one icon of the set chosen to read clearly at the size of a table cell. The
icon's code point is looked up by its name in the package's own metadata
(``metadata/icons.json``) when it is first drawn, and the glyph is drawn from the package's font
(``webfonts/fa-solid-900.ttf``) in one colour, without anti-aliasing, so the same icon at the
same size gives the same pixels (the canvas smooths the edges when it shrinks the drawing).

An icon set that is not installed, lacks a file or has no icon of a name is a one-line
:class:`~hopvista.errors.UserError` saying what to install. The set's licence (icons CC BY 4.0,
the font SIL OFL 1.1) is :meth:`IconSet.credit`; a dataset card whose pictures carry an emblem
cites it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from hopvista.errors import UserError

PACKAGE = "fontawesomefree"
"""The Python package that ships the icon set."""

NAME = "Font Awesome Free"
LICENSE = "CC BY 4.0 (icons), SIL OFL 1.1 (font)"
LICENSE_URL = "https://fontawesome.com/license/free"
"""The icon set's name and licence, as a dataset card cites them."""

FONT_FILE = "webfonts/fa-solid-900.ttf"
METADATA_FILE = "metadata/icons.json"
"""Where the font and the icons' names and code points are, inside the package's folder."""

STYLE = "solid"
"""The style of the set whose font is drawn (every free solid icon is in :data:`FONT_FILE`)."""

INSTALL = f"pip install {PACKAGE}"

EMBLEMS = MappingProxyType({
    "star": "star", "crown": "crown", "anchor": "anchor", "leaf": "leaf", "tree": "tree",
    "fish": "fish", "horse": "horse", "dove": "dove", "paw": "paw", "sun": "sun",
    "moon": "moon", "bell": "bell", "key": "key", "heart": "heart", "flame": "fire",
    "snowflake": "snowflake", "mountain": "mountain", "droplet": "droplet",
    "umbrella": "umbrella", "trophy": "trophy",
})
"""Each emblem a badge or a flag may carry (the word descriptions and questions use) and the
icon of the set it is drawn as: shapes told apart at 20 pixels, none of them a flag's layout
or a badge's shape, and none a religious or national symbol."""

_CACHED_GLYPHS = 512


def package_folder() -> Path:
    """The folder of the installed ``fontawesomefree`` package that holds the icon set."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UserError(f"emblems are drawn from the icon set {NAME}, which is not "
                        f"installed: {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))) / "static" / PACKAGE


def package_version() -> str:
    """The installed ``fontawesomefree`` package's version."""
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise UserError(f"emblems are drawn from the icon set {NAME}, which is not "
                        f"installed: {INSTALL}") from None


@dataclass(frozen=True)
class IconSet:
    """The icon set in ``folder`` (a ``fontawesomefree`` package's ``static/fontawesomefree``):
    its font file and each free solid icon's code point by name."""

    folder: Path
    version: str
    code_points: MappingProxyType[str, int] = field(repr=False)

    @classmethod
    def load(cls, folder: Path, version: str) -> IconSet:
        """The icon set in ``folder``, its font and metadata checked, or a ``UserError``."""
        font = folder / FONT_FILE
        if not font.is_file():
            raise UserError(f"icon set {NAME}: no font file {font} ({INSTALL})")
        return cls(folder, version, MappingProxyType(_read_code_points(folder / METADATA_FILE)))

    @property
    def font_file(self) -> Path:
        """The font the icons are drawn from."""
        return self.folder / FONT_FILE

    def code_point(self, icon: str) -> int:
        """The code point of the free solid icon named ``icon``."""
        found = self.code_points.get(icon)
        if found is None:
            raise UserError(f"icon set {NAME} {self.version} has no free {STYLE} icon "
                            f"{icon!r} ({self.folder / METADATA_FILE})")
        return found

    def glyph(self, icon: str, side_px: int) -> Image.Image:
        """The icon's shape as a mask (0 outside, 255 inside), cropped to it, its longer side
        ``side_px`` pixels (or the largest size that does not exceed it)."""
        return _glyph(str(self.font_file), self.code_point(icon), max(1, side_px))

    def credit(self) -> dict[str, str]:
        """What a dataset card cites for the icons: name, version, licence and URL."""
        return {"name": NAME, "version": self.version, "license": LICENSE,
                "url": LICENSE_URL}


def _read_code_points(metadata: Path) -> dict[str, int]:
    """Each free solid icon's name and code point, from the set's metadata file."""
    try:
        icons = json.loads(metadata.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"icon set {NAME}: no metadata file {metadata} ({INSTALL})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"icon set {NAME}: cannot read {metadata}: {exc} "
                        f"(reinstall it: {INSTALL} --force-reinstall)") from None
    if not isinstance(icons, dict):
        raise UserError(f"icon set {NAME}: {metadata} is not an object of icons")
    return {name: code for name, entry in icons.items()
            if (code := _solid_code_point(entry)) is not None}


def _solid_code_point(entry: Any) -> int | None:
    """The code point of an icon's metadata entry when it is a free solid icon."""
    if not isinstance(entry, dict) or STYLE not in (entry.get("free") or ()):
        return None
    code = entry.get("unicode")
    try:
        return int(code, 16) if isinstance(code, str) else None
    except ValueError:
        return None


@cache
def installed() -> IconSet:
    """The icon set of the installed ``fontawesomefree`` package (read once per process)."""
    return IconSet.load(package_folder(), package_version())


def icon_set_record(emblems: Iterable[str]) -> dict[str, Any] | None:
    """The manifest's ``icon_set`` for a dataset whose pictures carry ``emblems``: the set's
    credit and the emblems drawn, or ``None`` when none is drawn."""
    drawn = sorted(set(emblems))
    return installed().credit() | {"emblems": drawn} if drawn else None


def check_installed() -> None:
    """Nothing when the icon set is installed and readable; else the one-line ``UserError``
    saying what to install."""
    installed()


def emblem_icon(emblem: str) -> str:
    """The name of the icon the emblem ``emblem`` (a key of :data:`EMBLEMS`) is drawn as."""
    return EMBLEMS[emblem]


# -- drawing a glyph --------------------------------------------------------------------------


@cache
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, layout_engine=ImageFont.Layout.BASIC)


def _ink(path: str, code_point: int, size: int) -> Image.Image:
    """The glyph drawn at font size ``size`` without anti-aliasing, cropped to its ink."""
    canvas = Image.new("L", (size * 3, size * 3), 0)
    pen = ImageDraw.Draw(canvas)
    pen.fontmode = "1"
    pen.text((size, size), chr(code_point), font=_font(path, size), fill=255)
    box = canvas.getbbox()
    if box is None:
        raise UserError(f"icon set {NAME}: the font {path} draws nothing for U+{code_point:04X}")
    return canvas.crop(box)


@lru_cache(maxsize=_CACHED_GLYPHS)
def _glyph(path: str, code_point: int, side_px: int) -> Image.Image:
    """The glyph's ink, its longer side at most ``side_px``: drawn at ``side_px``, then at
    the font size that scales its ink to fit, smaller until it does (hinting rounds)."""
    trial = _ink(path, code_point, side_px)
    size = max(1, side_px * side_px // max(trial.size))
    ink = _ink(path, code_point, size)
    while max(ink.size) > side_px and size > 1:
        size -= 1
        ink = _ink(path, code_point, size)
    return ink


__all__ = ["EMBLEMS", "IconSet", "check_installed", "emblem_icon", "installed",
           "package_folder"]
