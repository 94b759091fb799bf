"""Table themes: one CSS file each, plus the HTML skeleton of a table (``table.html.j2``).

TableVista renders tables in four scenarios (Web, LaTeX, Excel and "Custom" themes drawn from
a pool); this registry covers all of them. A theme is a CSS file using the ``hv-`` classes of
the skeleton and the custom properties the renderer sets from the sampled style:

``--hv-font``  the font family (also set explicitly on ``.hv-root``)
``--hv-size``  body font size;  ``--hv-pad-y`` / ``--hv-pad-x``  cell padding
``--hv-margin``  space around the table;  ``--hv-accent``  the theme's accent colour
``--hv-head-max``  maximum width of a header label before it wraps

A theme sets ``--hv-bg`` (the page colour) in ``:root``. Themes never change the text itself
(no ``text-transform``, no ``content``): the layout reports the DOM text of every cell.

:func:`sample_table_theme` draws a style from a ``numpy.random.Generator``; the same
generator state always gives the same style, independent of anything global.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

SKELETON = "table.html.j2"

# Accent colours for the themes that use one (header fills, stripes, rules).
_ACCENTS: tuple[str, ...] = (
    "#1f4e79",
    "#2e75b6",
    "#385723",
    "#7f6000",
    "#843c0c",
    "#5b2c6f",
    "#0b5345",
    "#922b21",
    "#2c3e50",
    "#1a5276",
)


@dataclass(frozen=True)
class Theme:
    """One table theme: its CSS file, the font families it may use and its size ranges."""

    name: str
    css: str
    fonts: tuple[str, ...]
    description: str
    font_size_px: tuple[int, int] = (13, 16)
    padding_y_px: tuple[int, int] = (4, 8)
    padding_x_px: tuple[int, int] = (8, 14)
    margin_px: tuple[int, int] = (10, 20)
    header_max_em: tuple[int, int] = (8, 14)
    accents: tuple[str, ...] = ("#000000",)

    def stylesheet(self) -> str:
        """The theme's CSS text, read from the package data."""
        return _read(self.css)


_SANS = ("Liberation Sans", "Open Sans", "Roboto", "DejaVu Sans", "Noto Sans")
_SERIF = ("Liberation Serif", "Caladea", "TeX Gyre Pagella", "TeX Gyre Termes", "DejaVu Serif")

_THEMES: tuple[Theme, ...] = (
    Theme(
        "web",
        "web.css",
        _SANS,
        "Bootstrap-like web table: light header, striped rows, thin horizontal rules.",
    ),
    Theme(
        "wikitable",
        "wikitable.css",
        ("Liberation Sans", "DejaVu Sans", "Noto Sans", "TeX Gyre Heros"),
        "Wikipedia 'wikitable': grey header, grey cell borders, light grey page.",
        font_size_px=(13, 15),
        padding_y_px=(3, 6),
        padding_x_px=(6, 10),
    ),
    Theme(
        "latex",
        "latex.css",
        ("CMU Serif", "Latin Modern Roman"),
        "LaTeX booktabs: top, mid and bottom rules, no vertical lines, Computer Modern.",
        font_size_px=(14, 17),
        padding_y_px=(2, 5),
        padding_x_px=(8, 14),
    ),
    Theme(
        "excel",
        "excel.css",
        ("Carlito", "Liberation Sans"),
        "Spreadsheet: gridlines on every cell, grey header band, dense rows.",
        font_size_px=(13, 15),
        padding_y_px=(1, 3),
        padding_x_px=(4, 7),
        margin_px=(4, 10),
    ),
    Theme(
        "dark",
        "dark.css",
        ("Roboto", "Open Sans", "DejaVu Sans", "Noto Sans"),
        "Dark mode: light text on a dark page, subtle row separators.",
        accents=("#4fc3f7", "#81c784", "#ffb74d", "#ba68c8", "#f06292"),
    ),
    Theme(
        "minimal",
        "minimal.css",
        ("Open Sans", "Roboto", "Noto Sans", "Carlito"),
        "Minimal: whitespace only, one hairline under the header.",
        padding_y_px=(5, 9),
        padding_x_px=(12, 18),
    ),
    Theme(
        "zebra",
        "zebra.css",
        ("Liberation Sans", "DejaVu Sans", "Roboto", "Carlito"),
        "Zebra: strongly tinted alternate rows in the accent colour, no borders.",
        accents=_ACCENTS,
    ),
    Theme(
        "financial-report",
        "financial.css",
        _SERIF + ("EB Garamond 12",),
        "Annual-report style: serif, right-aligned figures, rule above totals, double rule below.",
        font_size_px=(14, 17),
        accents=_ACCENTS,
    ),
    Theme(
        "compact",
        "compact.css",
        ("Liberation Sans Narrow", "Roboto Condensed", "Carlito"),
        "Compact: small type, tight padding, condensed faces, thin borders.",
        font_size_px=(11, 13),
        padding_y_px=(1, 2),
        padding_x_px=(3, 6),
        margin_px=(4, 8),
        header_max_em=(7, 11),
    ),
    Theme(
        "bold-header",
        "bold_header.css",
        ("Liberation Sans", "Roboto", "Open Sans", "TeX Gyre Heros"),
        "Black header band with white bold labels, heavy outer border.",
    ),
    Theme(
        "coloured-header",
        "coloured_header.css",
        ("Roboto", "Open Sans", "Noto Sans", "Carlito", "Liberation Sans"),
        "Header filled with the accent colour, white labels, light row rules.",
        accents=_ACCENTS,
    ),
    Theme(
        "monospace",
        "monospace.css",
        ("Inconsolata", "Liberation Mono", "DejaVu Sans Mono"),
        "Plain-text look: monospace, dashed rules, like a terminal or a code listing.",
        font_size_px=(13, 15),
        padding_y_px=(2, 4),
        padding_x_px=(6, 10),
    ),
    Theme(
        "classic",
        "classic.css",
        ("Caladea", "TeX Gyre Schola", "TeX Gyre Bonum", "Liberation Serif", "DejaVu Serif"),
        "Printed-document look: double outer border, cream page, serif type.",
        accents=_ACCENTS,
    ),
)

THEMES: dict[str, Theme] = {theme.name: theme for theme in _THEMES}


@cache
def _read(filename: str) -> str:
    return resources.files(__name__).joinpath(filename).read_text(encoding="utf-8")


def skeleton() -> str:
    """The Jinja2 source of the default table skeleton (``table.html.j2``)."""
    return _read(SKELETON)


def get_theme(name: str) -> Theme:
    """The theme called ``name``; ``KeyError`` naming the known themes otherwise."""
    try:
        return THEMES[name]
    except KeyError:
        known = ", ".join(THEMES)
        raise KeyError(f"unknown table theme {name!r}; known: {known}") from None


def _between(rng: np.random.Generator, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return int(rng.integers(low, high + 1))


def sample_table_theme(rng: np.random.Generator) -> dict[str, Any]:
    """A table style drawn from ``rng``: a JSON-serialisable dict the renderer accepts.

    Keys: ``theme``, ``font``, ``font_size_px``, ``padding_y_px``, ``padding_x_px``,
    ``margin_px``, ``header_max_em``, ``accent``. The draws happen in a fixed order, so the
    same generator state always yields the same style.
    """
    names = list(THEMES)
    theme = THEMES[names[int(rng.integers(len(names)))]]
    return {
        "theme": theme.name,
        "font": theme.fonts[int(rng.integers(len(theme.fonts)))],
        "font_size_px": _between(rng, theme.font_size_px),
        "padding_y_px": _between(rng, theme.padding_y_px),
        "padding_x_px": _between(rng, theme.padding_x_px),
        "margin_px": _between(rng, theme.margin_px),
        "header_max_em": _between(rng, theme.header_max_em),
        "accent": theme.accents[int(rng.integers(len(theme.accents)))],
    }


def default_style(name: str) -> dict[str, Any]:
    """The unsampled style of a theme: its first font and the middle of each range."""
    theme = get_theme(name)

    def mid(bounds: tuple[int, int]) -> int:
        return (bounds[0] + bounds[1]) // 2

    return {
        "theme": theme.name,
        "font": theme.fonts[0],
        "font_size_px": mid(theme.font_size_px),
        "padding_y_px": mid(theme.padding_y_px),
        "padding_x_px": mid(theme.padding_x_px),
        "margin_px": mid(theme.margin_px),
        "header_max_em": mid(theme.header_max_em),
        "accent": theme.accents[0],
    }
